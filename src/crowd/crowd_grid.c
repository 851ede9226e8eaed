/* Broadphase: which agents can meet (seed 004, "Eliminating Tests": a grid
   where each object sits in one cell and tests only the objects in its own
   and the surrounding cells).

   This builds each agent's half list: the agents of higher index whose
   bounds overlap its bound, a bound being its reach (how far it can get
   this step, see crowd_contacts.c) grown by a skin so the list stays good
   for several steps: a disc across up and an extent along up. Each pair is
   so listed once, and its entry is the pair's slot for the step's
   constraint; crowd_lists.c makes the lists both ways from them.

   The grid: square cells across up, twice the mean bound wide. Each agent
   is entered once, in the cell of its center, with what the pair test needs
   (its position and bounds), so the test reads the grid alone. An agent
   looks through the cells within its bound plus the largest bound in the
   grid, which holds every agent whose bound can overlap its own, and lists
   those of higher index. Agents
   whose bound is more than BIG_FACTOR times the mean (a very fast one) are
   kept out of the grid, so that one bullet does not widen everyone's
   search: they are tested against every agent directly.

   Cells are laid out row-major over the box the agents occupy when that
   box is small (then a row of cells is one run of memory), else hashed.
   The result depends only on the agents, not on the thread count: entries
   are made in agent order, the bucket sort is stable, and each agent's
   list is built by one thread in cell order. That order is also kept as
   each agent's rank (its position in the sorted grid, big agents after),
   by which crowd_lists.c puts the full lists in the same order. */
#include "crowd_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define BIG_FACTOR 4.0 /* reach beyond this many mean reaches: tested against all */
#define CELL_LIMIT 1073741824.0 /* cell coordinates stay well inside int32 */

static uint32_t hash_cell(int32_t cx, int32_t cy)
{
    uint64_t h = (uint64_t)(uint32_t)cx * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)cy * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(h >> 32);
}

/* The bucket of a cell: row-major in the agents' bounding box of cells
   when that box is small (neighbouring cells then sit side by side in
   memory, and agents walked in spatial order touch memory in order), a hash
   otherwise (a few agents spread over a huge level). */
static inline uint32_t bucket_of(const skim_crowd *c, int32_t cx, int32_t cy)
{
    if (c->grid_dense)
        return (uint32_t)((int64_t)(cy - c->grid_min[1]) * c->grid_width + (cx - c->grid_min[0]));
    return hash_cell(cx, cy) & c->bucket_mask;
}

/* The cell a coordinate falls in, given 1 / cell size. Floor by hand:
   without SSE4.1 in the baseline x86-64 target, floor() is a call into libm,
   and this runs several times per agent per step. */
static inline int32_t cell_of(double coordinate, double inverse_cell)
{
    double v = coordinate * inverse_cell;
    if (!(v > -CELL_LIMIT))
        return (int32_t)-CELL_LIMIT;
    if (v > CELL_LIMIT)
        return (int32_t)CELL_LIMIT;
    int32_t i = (int32_t)v; /* toward zero */
    return (double)i > v ? i - 1 : i;
}

static bool is_ghost(const skim_crowd *c, uint32_t i)
{
    return (c->flags[c->active[i]] & SKIM_AGENT_GHOST) != 0;
}

/* The symmetric pair test: reach discs across up and extents along up. */
static inline bool overlap(const float a[3], float reach_a, float vreach_a, const float b[3], float reach_b,
                           float vreach_b)
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    float r = reach_a + reach_b;
    if (dx * dx + dy * dy > r * r)
        return false;
    return fabsf(dz) <= vreach_a + vreach_b;
}

static inline bool bounds_overlap(const skim_crowd *c, uint32_t i, uint32_t j)
{
    return overlap(c->proj + 3 * (size_t)i, c->bound[i], c->vbound[i], c->proj + 3 * (size_t)j, c->bound[j],
                   c->vbound[j]);
}

static bool push_neighbour(crowd_index_buffer *buffer, uint32_t other)
{
    if (buffer->count == buffer->capacity &&
        !crowd_reserve((void **)&buffer->items, &buffer->capacity, buffer->count + 1, sizeof *buffer->items))
        return false;
    buffer->items[buffer->count++] = other;
    return true;
}

/* Enters the grid agents in their home cells: a stable counting sort of
   the agents by bucket. */
static skim_status build_grid(skim_crowd *c, uint32_t n)
{
    const long count = (long)n;
    /* Cell size: twice the mean bound, summed in fixed point so the sum,
       and so the grid, is the same in any order. The unit is the largest
       bound / 2^30, so no term exceeds 2^30 and 2^28 agents cannot
       overflow the sum whatever the sizes. */
    float top = 0.0f;
    for (uint32_t i = 0; i < n; ++i)
        if (!is_ghost(c, i) && c->bound[i] > top)
            top = c->bound[i];
    const double unit = top > 0.0f ? (double)top / 1073741824.0 : 1.0;
    int64_t sum = 0, counted = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (!is_ghost(c, i)) {
            sum += (int64_t)((double)c->bound[i] / unit + 0.5);
            counted++;
        }
    double mean = counted ? (double)sum * unit / (double)counted : 1.0;
    double cell = 2.0 * mean;
    if (!(cell > 0.0))
        cell = 1.0;
    c->cell_size = (float)cell;
    c->inverse_cell = 1.0 / cell;

    /* Home cells, the big agents, the largest reach in the grid and the box
       of home cells (max and min are the same in any order). */
    float largest = 0.0f;
    int32_t box_lo[2] = { INT32_MAX, INT32_MAX }, box_hi[2] = { INT32_MIN, INT32_MIN };
    uint32_t total = 0;
    c->big_count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        c->big[i] = 0;
        if (is_ghost(c, i))
            continue;
        if ((double)c->bound[i] > BIG_FACTOR * mean) {
            c->big[i] = 1;
            c->big_list[c->big_count++] = i;
            continue;
        }
        int32_t *home = c->cell_lo + 2 * (size_t)i;
        for (int k = 0; k < 2; ++k) {
            home[k] = cell_of((double)c->proj[3 * i + k], c->inverse_cell);
            box_lo[k] = home[k] < box_lo[k] ? home[k] : box_lo[k];
            box_hi[k] = home[k] > box_hi[k] ? home[k] : box_hi[k];
        }
        largest = c->bound[i] > largest ? c->bound[i] : largest;
        total++;
    }
    c->largest_reach = largest;
    c->grid_count = total;
    size_t buckets = 64;
    c->grid_dense = false;
    if (total > 0) {
        uint64_t width = (uint64_t)((int64_t)box_hi[0] - box_lo[0] + 1);
        uint64_t height = (uint64_t)((int64_t)box_hi[1] - box_lo[1] + 1);
        if (width * height <= 4 * (uint64_t)total + 1024) {
            c->grid_dense = true;
            c->grid_min[0] = box_lo[0];
            c->grid_min[1] = box_lo[1];
            c->grid_max[0] = box_hi[0];
            c->grid_max[1] = box_hi[1];
            c->grid_width = (uint32_t)width;
            buckets = (size_t)(width * height);
        }
    }
    if (!c->grid_dense)
        while (buckets < 2 * (size_t)total)
            buckets *= 2;
    if (!crowd_reserve((void **)&c->entries, &c->entry_capacity, total ? total : 1, sizeof *c->entries) ||
        !crowd_reserve((void **)&c->sorted, &c->sorted_capacity, total ? total : 1, sizeof *c->sorted) ||
        !crowd_reserve((void **)&c->bucket_start, &c->bucket_capacity, buckets + 1, sizeof *c->bucket_start))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the grid");
    c->bucket_mask = (uint32_t)buckets - 1; /* used by the hash only */

    uint32_t at = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (!is_ghost(c, i) && !c->big[i])
            c->entry_offset[i] = at++;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < count; ++i) {
        if (is_ghost(c, (uint32_t)i) || c->big[i])
            continue;
        const int32_t *home = c->cell_lo + 2 * i;
        const float *p = c->proj + 3 * i;
        c->entries[c->entry_offset[i]] = (crowd_grid_entry){
            { p[0], p[1], p[2] }, c->bound[i], c->vbound[i], (uint32_t)i, home[0], home[1],
            bucket_of(c, home[0], home[1]) };
    }
    memset(c->bucket_start, 0, (buckets + 1) * sizeof *c->bucket_start);
    for (uint32_t e = 0; e < total; ++e)
        c->bucket_start[c->entries[e].bucket + 1]++;
    for (size_t b = 0; b < buckets; ++b)
        c->bucket_start[b + 1] += c->bucket_start[b];
    for (uint32_t e = 0; e < total; ++e) {
        /* bucket_start[b] runs ahead while filling and is put back below. */
        uint32_t b = c->entries[e].bucket;
        c->sorted[c->bucket_start[b]++] = c->entries[e];
    }
    for (size_t b = buckets; b > 0; --b)
        c->bucket_start[b] = c->bucket_start[b - 1];
    c->bucket_start[0] = 0;
    /* The scan's order: a grid agent lists others in sorted order (in the
       row-major layout; in the hashed one, cells come in scan order, so
       this is only the same order for every list, which is all
       crowd_lists.c needs), then the big agents. */
    for (uint32_t e = 0; e < total; ++e)
        c->rank[c->sorted[e].agent] = e;
    for (uint32_t k = 0; k < c->big_count; ++k)
        c->rank[c->big_list[k]] = total + k;
    return SKIM_OK;
}

/* Tests agent i against the entries [first, last) of the sorted grid of
   higher index. */
static bool test_entries(const skim_crowd *c, uint32_t i, uint32_t first, uint32_t last, bool check_cell,
                         int32_t cx, int32_t cy, crowd_index_buffer *out)
{
    const float *p = c->proj + 3 * (size_t)i;
    const float reach = c->bound[i], vreach = c->vbound[i];
    for (uint32_t e = first; e < last; ++e) {
        const crowd_grid_entry *entry = &c->sorted[e];
        if (entry->agent <= i || (check_cell && (entry->cx != cx || entry->cy != cy)))
            continue;
        if (overlap(p, reach, vreach, entry->p, entry->reach, entry->vreach) &&
            !push_neighbour(out, entry->agent))
            return false;
    }
    return true;
}

/* The neighbours of higher index of grid agent i, in cell order, then the
   big agents. */
static bool find_for_small(const skim_crowd *c, uint32_t i, crowd_index_buffer *out)
{
    const float *p = c->proj + 3 * (size_t)i;
    const double search = (double)c->bound[i] + c->largest_reach;
    int32_t lo[2], hi[2];
    for (int k = 0; k < 2; ++k) {
        lo[k] = cell_of((double)p[k] - search, c->inverse_cell);
        hi[k] = cell_of((double)p[k] + search, c->inverse_cell);
    }
    if (c->grid_dense) {
        /* Clipped to the occupied box; a row of cells is one run of entries. */
        for (int k = 0; k < 2; ++k) {
            lo[k] = lo[k] > c->grid_min[k] ? lo[k] : c->grid_min[k];
            hi[k] = hi[k] < c->grid_max[k] ? hi[k] : c->grid_max[k];
        }
        for (int32_t cy = lo[1]; cy <= hi[1]; ++cy) {
            if (lo[0] > hi[0])
                break;
            uint32_t first = c->bucket_start[bucket_of(c, lo[0], cy)];
            uint32_t last = c->bucket_start[bucket_of(c, hi[0], cy) + 1];
            if (!test_entries(c, i, first, last, false, 0, 0, out))
                return false;
        }
    } else {
        for (int32_t cy = lo[1]; cy <= hi[1]; ++cy)
            for (int32_t cx = lo[0]; cx <= hi[0]; ++cx) {
                uint32_t b = bucket_of(c, cx, cy);
                if (!test_entries(c, i, c->bucket_start[b], c->bucket_start[b + 1], true, cx, cy, out))
                    return false;
            }
    }
    for (uint32_t k = 0; k < c->big_count; ++k) {
        uint32_t j = c->big_list[k];
        if (j > i && bounds_overlap(c, i, j) && !push_neighbour(out, j))
            return false;
    }
    return true;
}

static bool find_for_big(const skim_crowd *c, uint32_t i, uint32_t n, crowd_index_buffer *out)
{
    for (uint32_t j = i + 1; j < n; ++j)
        if (!is_ghost(c, j) && bounds_overlap(c, i, j) && !push_neighbour(out, j))
            return false;
    return true;
}

skim_status crowd_build_neighbours(skim_crowd *c, uint32_t n)
{
    skim_status status = build_grid(c, n);
    if (status != SKIM_OK)
        return status;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    if (c->index_buffer_count < threads) {
        crowd_index_buffer *grown = realloc(c->index_buffers, (size_t)threads * sizeof *grown);
        if (!grown)
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory");
        for (int t = c->index_buffer_count; t < threads; ++t)
            grown[t] = (crowd_index_buffer){ 0 };
        c->index_buffers = grown;
        c->index_buffer_count = threads;
    }
    for (int t = 0; t < c->index_buffer_count; ++t)
        c->index_buffers[t].count = 0;
    int failed = 0;

    /* Each thread takes a contiguous range of agents and lists their
       neighbours in its own buffer; per agent it records the count, and the
       ranges are then laid end to end in agent order. */
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        int t = 0, used = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        used = omp_get_num_threads();
#endif
        crowd_index_buffer *buffer = &c->index_buffers[t];
        uint32_t first = (uint32_t)((uint64_t)n * (uint64_t)t / (uint64_t)used);
        uint32_t last = (uint32_t)((uint64_t)n * (uint64_t)(t + 1) / (uint64_t)used);
        for (uint32_t i = first; i < last && !failed; ++i) {
            size_t before = buffer->count;
            bool ok = true;
            if (!is_ghost(c, i))
                ok = c->big[i] ? find_for_big(c, i, n, buffer) : find_for_small(c, i, buffer);
            if (!ok)
                failed = 1;
            c->half_begin[i + 1] = buffer->count - before; /* a count until the prefix below */
        }
    }
    if (failed)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for neighbours");
    crowd_counts_to_offsets(c->half_begin, n);
    size_t total = c->half_begin[n];
    if (!crowd_reserve((void **)&c->half_other, &c->half_capacity, total ? total : 1, sizeof *c->half_other))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for neighbours");
    size_t at = 0;
    for (int t = 0; t < c->index_buffer_count; ++t) {
        crowd_index_buffer *buffer = &c->index_buffers[t];
        if (buffer->count)
            memcpy(c->half_other + at, buffer->items, buffer->count * sizeof *buffer->items);
        at += buffer->count;
    }
    return SKIM_OK;
}
