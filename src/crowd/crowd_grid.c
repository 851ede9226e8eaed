/* Broadphase: which agents can meet this step (seed 004, "Eliminating
   Tests": a grid, each object tests only the objects in its own and the
   surrounding cells).

   Every agent has a reach: a disc across up (radius + how far it can move
   this step, pushes included) and an extent along up. A pair is tested only
   when the two reaches overlap; agents whose reaches do not overlap cannot
   touch by the end of the step, so the solver and the check need no other
   pairs.

   The grid is a spatial hash of square cells across up, sized from the
   mean reach. An agent is entered into every cell its reach box covers
   (usually 1 to 4), and looks for neighbours in those cells; a pair sharing
   several cells is kept only in the first of them (the cell at the larger
   of the two boxes' lower corners), so each neighbour is listed once. An
   agent so fast that its box covers more than BIG_SPAN cells is not entered
   at all: it is tested against every agent directly, which bounds the grid's
   size whatever the speeds.

   The result depends only on the agents, not on the thread count: entries
   are made in agent order, the bucket sort is stable, and each agent's
   neighbour list is built by one thread in cell order. */
#include "crowd_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define BIG_SPAN 64 /* cells of one agent's box beyond which it is tested against all */
#define CELL_LIMIT 1073741824.0 /* cell coordinates stay well inside int32 */

static uint32_t hash_cell(int32_t cx, int32_t cy)
{
    uint64_t h = (uint64_t)(uint32_t)cx * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)cy * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(h >> 32);
}

static int32_t cell_of(double coordinate, double cell)
{
    double v = floor(coordinate / cell);
    if (v < -CELL_LIMIT)
        v = -CELL_LIMIT;
    if (v > CELL_LIMIT)
        v = CELL_LIMIT;
    return (int32_t)v;
}

static bool is_ghost(const skim_crowd *c, uint32_t i)
{
    return (c->flags[c->active[i]] & SKIM_AGENT_GHOST) != 0;
}

/* The symmetric pair test: reach discs across up and extents along up. */
static bool reaches_overlap(const skim_crowd *c, uint32_t i, uint32_t j)
{
    const float *a = c->proj + 3 * (size_t)i, *b = c->proj + 3 * (size_t)j;
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    float r = c->reach[i] + c->reach[j];
    if (dx * dx + dy * dy > r * r)
        return false;
    return fabsf(dz) <= c->vreach[i] + c->vreach[j];
}

static bool push_contact(crowd_contact_buffer *buffer, const skim_crowd *c, uint32_t self, uint32_t other)
{
    if (buffer->count == buffer->capacity &&
        !crowd_reserve((void **)&buffer->items, &buffer->capacity, buffer->count + 1, sizeof *buffer->items))
        return false;
    crowd_contact_setup(c, self, other, &buffer->items[buffer->count++]);
    return true;
}

/* Enters the small agents into the hash: entries in agent order, then a
   stable counting sort by bucket. */
static skim_status build_grid(skim_crowd *c, uint32_t n)
{
    const long count = (long)n;
    /* Cell size: twice the mean reach, summed in fixed point so the sum,
       and so the grid, is the same in any order. */
    int64_t sum = 0, counted = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (!is_ghost(c, i)) {
            sum += (int64_t)llround((double)c->reach[i] * 1024.0);
            counted++;
        }
    double cell = counted ? 2.0 * ((double)sum / 1024.0) / (double)counted : 1.0;
    if (!(cell > 0.0))
        cell = 1.0;
    c->cell_size = (float)cell;

#pragma omp parallel for schedule(static)
    for (long i = 0; i < count; ++i) {
        c->big[i] = 0;
        c->entry_offset[i] = 0;
        if (is_ghost(c, (uint32_t)i))
            continue;
        const float *p = c->proj + 3 * i;
        int32_t *lo = c->cell_lo + 2 * i, *hi = c->cell_hi + 2 * i;
        for (int k = 0; k < 2; ++k) {
            lo[k] = cell_of((double)p[k] - c->reach[i], cell);
            hi[k] = cell_of((double)p[k] + c->reach[i], cell);
        }
        int64_t span = ((int64_t)hi[0] - lo[0] + 1) * ((int64_t)hi[1] - lo[1] + 1);
        if (span > BIG_SPAN)
            c->big[i] = 1;
        else
            c->entry_offset[i] = (uint32_t)span;
    }
    size_t total = 0;
    c->big_count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t cells = c->entry_offset[i];
        c->entry_offset[i] = (uint32_t)total;
        total += cells;
        if (c->big[i])
            c->big_list[c->big_count++] = i;
    }
    c->entry_offset[n] = (uint32_t)total;

    size_t buckets = 64;
    while (buckets < 2 * total)
        buckets *= 2;
    if (!crowd_reserve((void **)&c->entries, &c->entry_capacity, total, sizeof *c->entries) ||
        !crowd_reserve((void **)&c->sorted, &c->sorted_capacity, total, sizeof *c->sorted) ||
        !crowd_reserve((void **)&c->bucket_start, &c->bucket_capacity, buckets + 1, sizeof *c->bucket_start))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the grid");
    const uint32_t mask = (uint32_t)buckets - 1;
    c->bucket_mask = mask;

#pragma omp parallel for schedule(static)
    for (long i = 0; i < count; ++i) {
        if (is_ghost(c, (uint32_t)i) || c->big[i])
            continue;
        crowd_grid_entry *e = c->entries + c->entry_offset[i];
        const int32_t *lo = c->cell_lo + 2 * i, *hi = c->cell_hi + 2 * i;
        for (int32_t cy = lo[1]; cy <= hi[1]; ++cy)
            for (int32_t cx = lo[0]; cx <= hi[0]; ++cx)
                *e++ = (crowd_grid_entry){ cx, cy, (uint32_t)i, hash_cell(cx, cy) & mask };
    }
    memset(c->bucket_start, 0, (buckets + 1) * sizeof *c->bucket_start);
    for (size_t e = 0; e < total; ++e)
        c->bucket_start[c->entries[e].bucket + 1]++;
    for (size_t b = 0; b < buckets; ++b)
        c->bucket_start[b + 1] += c->bucket_start[b];
    for (size_t e = 0; e < total; ++e) {
        /* bucket_start[b] runs ahead while filling and is put back below. */
        uint32_t b = c->entries[e].bucket;
        c->sorted[c->bucket_start[b]++] = c->entries[e];
    }
    for (size_t b = buckets; b > 0; --b)
        c->bucket_start[b] = c->bucket_start[b - 1];
    c->bucket_start[0] = 0;
    return SKIM_OK;
}

/* The neighbours of small agent i, in cell order, then the big agents. */
static bool find_for_small(const skim_crowd *c, uint32_t i, uint32_t mask, crowd_contact_buffer *out)
{
    const int32_t *lo = c->cell_lo + 2 * (size_t)i, *hi = c->cell_hi + 2 * (size_t)i;
    for (int32_t cy = lo[1]; cy <= hi[1]; ++cy)
        for (int32_t cx = lo[0]; cx <= hi[0]; ++cx) {
            uint32_t b = hash_cell(cx, cy) & mask;
            for (uint32_t e = c->bucket_start[b]; e < c->bucket_start[b + 1]; ++e) {
                const crowd_grid_entry *entry = &c->sorted[e];
                uint32_t j = entry->agent;
                if (j == i || entry->cx != cx || entry->cy != cy)
                    continue;
                /* Only in the first cell the two boxes share. */
                const int32_t *lo_j = c->cell_lo + 2 * (size_t)j;
                if ((lo[0] > lo_j[0] ? lo[0] : lo_j[0]) != cx || (lo[1] > lo_j[1] ? lo[1] : lo_j[1]) != cy)
                    continue;
                if (reaches_overlap(c, i, j) && !push_contact(out, c, i, j))
                    return false;
            }
        }
    for (uint32_t k = 0; k < c->big_count; ++k) {
        uint32_t j = c->big_list[k];
        if (reaches_overlap(c, i, j) && !push_contact(out, c, i, j))
            return false;
    }
    return true;
}

static bool find_for_big(const skim_crowd *c, uint32_t i, uint32_t n, crowd_contact_buffer *out)
{
    for (uint32_t j = 0; j < n; ++j)
        if (j != i && !is_ghost(c, j) && reaches_overlap(c, i, j) && !push_contact(out, c, i, j))
            return false;
    return true;
}

skim_status crowd_find_contacts(skim_crowd *c, uint32_t n)
{
    skim_status status = build_grid(c, n);
    if (status != SKIM_OK)
        return status;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    if (c->thread_buffer_count < threads) {
        crowd_contact_buffer *grown = realloc(c->thread_buffers, (size_t)threads * sizeof *grown);
        if (!grown)
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory");
        for (int t = c->thread_buffer_count; t < threads; ++t)
            grown[t] = (crowd_contact_buffer){ 0 };
        c->thread_buffers = grown;
        c->thread_buffer_count = threads;
    }
    const uint32_t bucket_mask = c->bucket_mask;
    for (int t = 0; t < c->thread_buffer_count; ++t)
        c->thread_buffers[t].count = 0;
    int failed = 0;

    /* Each thread takes a contiguous range of agents and lists their
       contacts in its own buffer; per agent it records the count, and the
       ranges are then laid end to end in agent order. */
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        int t = 0, used = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        used = omp_get_num_threads();
#endif
        crowd_contact_buffer *buffer = &c->thread_buffers[t];
        uint32_t first = (uint32_t)((uint64_t)n * (uint64_t)t / (uint64_t)used);
        uint32_t last = (uint32_t)((uint64_t)n * (uint64_t)(t + 1) / (uint64_t)used);
        for (uint32_t i = first; i < last && !failed; ++i) {
            size_t before = buffer->count;
            bool ok = true;
            if (!is_ghost(c, i))
                ok = c->big[i] ? find_for_big(c, i, n, buffer) : find_for_small(c, i, bucket_mask, buffer);
            if (!ok)
                failed = 1;
            c->contact_begin[i + 1] = buffer->count - before; /* a count until the prefix below */
        }
    }
    if (failed)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for contacts");
    c->contact_begin[0] = 0;
    for (uint32_t i = 0; i < n; ++i)
        c->contact_begin[i + 1] += c->contact_begin[i];
    size_t total = c->contact_begin[n];
    if (!crowd_reserve((void **)&c->contacts, &c->contact_capacity, total ? total : 1, sizeof *c->contacts))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for contacts");
    size_t at = 0;
    for (int t = 0; t < c->thread_buffer_count; ++t) {
        crowd_contact_buffer *buffer = &c->thread_buffers[t];
        if (buffer->count)
            memcpy(c->contacts + at, buffer->items, buffer->count * sizeof *buffer->items);
        at += buffer->count;
    }
    return SKIM_OK;
}
