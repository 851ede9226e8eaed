/* Broadphase: which agents can meet (the collision chapter, "Eliminating Tests": a grid
   where each object sits in one cell and tests only the objects in its own
   and the surrounding cells).

   This builds each agent's half list: the agents of higher index whose
   contact bounds overlap its own, a contact bound being its reach (how far
   it can get this step, see crowd_contacts.c) grown by a skin so the list
   stays good for several steps: a disc across up and an extent along up.
   Each pair is so listed once: crowd_contacts.c works out its constraint
   once a step and gives it to both agents.

   The grid: square cells across up, a mean bound wide (the bound is the
   reach grown by a wider skin; avoidance finds its neighbours in a grid
   of its own, crowd_sense_grid.c, so a sense distance that grows as an
   agent sets off does not cost a new order); an agent's home cell is the
   cell of its start. At every build the agents are renumbered in the grid's order: by home cell, the cells row
   after row, so the agents of a cell, and of a row of cells, are a run of
   indices. That is what keeps agents near each other near in every working
   array (the solver's and the check's reads of their neighbours walk
   memory in order), and it halves the search: an agent's partners of
   higher index are the later agents of its home row and the agents of the
   rows above, so it looks only there, up to its contact bound plus the
   largest in the grid, which holds every agent whose contact bound can
   overlap its own. Its half list then comes out in index order by itself.
   The order holds for as long as agents stay within their bounds; the
   half lists, shorter, may need making again before that, and are then
   made from the same grid, the search widened by how far agents have
   drifted from their home cells. Agents whose bound is more
   than BIG_FACTOR times the mean (a very fast one) are kept out of the
   grid and numbered after it, so that one bullet does not widen everyone's
   search: they are tested against every agent of higher index, that is
   against each other, and every grid agent tests them; ghosts come last
   and meet nobody.

   Cells are laid out row-major over the box the agents occupy when that
   box is small, else hashed (a few agents spread over a huge level); the
   hashed layout gives no useful order, so there an agent searches every
   cell around it and sorts what it finds. Nothing depends on the thread
   count: the renumbering is a stable counting sort from the old order, and
   each agent's list is built by one thread, into its chunk's buffer. */
#include "crowd/crowd_internal.h"
#include "crowd/crowd_lanes.h"

#include <math.h>
#include <simde/x86/sse2.h>
#include <stdlib.h>
#include <string.h>

#define BIG_FACTOR 4.0 /* bound beyond this many mean bounds: tested against all */
/* Cell width in mean bounds. A search reaches two bounds (its own and the
   largest) each way; cells of one bound let the disc clip the rows it
   scans, so fewer agents are tested than with wider cells, for a few more
   rows. */
#define CELL_PER_MEAN_BOUND 1.0

/* What an agent is to the grid, kept in order_key until it is renumbered. */
enum { KIND_GRID, KIND_BIG, KIND_GHOST };

static inline uint32_t bucket_of(const skim_crowd *c, int32_t cx, int32_t cy)
{
    if (c->grid_dense)
        return (uint32_t)((int64_t)(cy - c->grid_min[1]) * c->grid_width + (cx - c->grid_min[0]));
    return crowd_hash_cell(cx, cy) & c->bucket_mask;
}

static bool is_ghost(const skim_crowd *c, uint32_t i)
{
    return (c->body[c->active[i]].flags & SKIM_AGENT_GHOST) != 0;
}

/* The symmetric pair test: contact bound discs across up, where the
   agents are now, and extents along up, where they were at the build
   (which the grid's order keeps them within); both tests evaluated: one
   branch, or none, for the caller. */
static inline bool bounds_overlap(const skim_crowd *c, uint32_t i, uint32_t j)
{
    const float *a = c->proj + 3 * (size_t)i, *b = c->proj + 3 * (size_t)j;
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = c->built_proj[3 * (size_t)i + 2] - c->built_proj[3 * (size_t)j + 2];
    float r = c->contact_bound[i] + c->contact_bound[j];
    return (dx * dx + dy * dy <= r * r) & (fabsf(dz) <= c->vbound[i] + c->vbound[j]);
}

static bool push_neighbour(crowd_index_buffer *buffer, uint32_t other)
{
    if (buffer->count == buffer->capacity &&
        !crowd_reserve((void **)&buffer->items, &buffer->capacity, buffer->count + 1, sizeof *buffer->items))
        return false;
    buffer->items[buffer->count++] = other;
    return true;
}

/* Bounds, cell size, home cells and layout; returns the number of
   buckets. Everything here is in the order the agents had. */
static size_t lay_out_grid(skim_crowd *c, uint32_t n)
{
    for (size_t i = 0; i < n; ++i) {
        float skin = CROWD_LIST_SKIN * c->radius[i];
        c->bound[i] = c->reach[i] + skin;
        c->vbound[i] = c->vreach[i] + skin;
    }
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
    double cell = CELL_PER_MEAN_BOUND * mean;
    if (!(cell > 0.0))
        cell = 1.0;
    c->inverse_cell = 1.0 / cell;

    /* Home cells and the box of home cells (max and min are the same in
       any order). */
    int32_t box_lo[2] = { INT32_MAX, INT32_MAX }, box_hi[2] = { INT32_MIN, INT32_MIN };
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (is_ghost(c, i)) {
            c->order_key[i] = KIND_GHOST;
            continue;
        }
        if ((double)c->bound[i] > BIG_FACTOR * mean) {
            c->order_key[i] = KIND_BIG;
            continue;
        }
        c->order_key[i] = KIND_GRID;
        int32_t *home = c->cell + 2 * (size_t)i;
        for (int k = 0; k < 2; ++k) {
            home[k] = crowd_cell_of((double)c->proj[3 * i + k], c->inverse_cell);
            box_lo[k] = home[k] < box_lo[k] ? home[k] : box_lo[k];
            box_hi[k] = home[k] > box_hi[k] ? home[k] : box_hi[k];
        }
        total++;
    }
    c->grid_count = total;
    size_t buckets = 64;
    c->grid_dense = false;
    if (total > 0) {
        uint64_t width = (uint64_t)((int64_t)box_hi[0] - box_lo[0] + 1);
        uint64_t height = (uint64_t)((int64_t)box_hi[1] - box_lo[1] + 1);
        /* Row-major up to 16 cells an agent (64 bytes of bucket starts
           each): 10,000 agents spread over a 16,000-unit terrain, in
           cells a bound (about 60 units) wide, fill one cell in eight,
           and their search scans runs of a row where the hashed layout
           would sort what it finds. */
        if (width * height <= 16 * (uint64_t)total + 1024) {
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
    c->bucket_mask = (uint32_t)buckets - 1; /* used by the hash only */
    return buckets;
}

/* The new order (order, applied by crowd_reorder_gather): a stable
   counting sort by bucket, the big agents after the last bucket and the
   ghosts after them. */
static skim_status renumber(skim_crowd *c, uint32_t n, size_t buckets)
{
    if (!crowd_reserve((void **)&c->bucket_start, &c->bucket_capacity, buckets + 3, sizeof *c->bucket_start))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the grid");
    for (size_t i = 0; i < n; ++i) {
        uint32_t kind = c->order_key[i];
        const int32_t *home = c->cell + 2 * i;
        c->order_key[i] = kind == KIND_GRID ? bucket_of(c, home[0], home[1])
                                            : (uint32_t)buckets + (kind == KIND_BIG ? 0u : 1u);
    }
    uint32_t *start = c->bucket_start;
    memset(start, 0, (buckets + 3) * sizeof *start);
    for (uint32_t i = 0; i < n; ++i)
        start[c->order_key[i] + 1]++;
    for (size_t b = 0; b < buckets + 2; ++b)
        start[b + 1] += start[b];
    for (uint32_t i = 0; i < n; ++i)
        c->order[start[c->order_key[i]]++] = i; /* start[b] runs ahead while filling, put back below */
    for (size_t b = buckets + 2; b > 0; --b)
        start[b] = start[b - 1];
    start[0] = 0;
    c->big_count = start[buckets + 1] - start[buckets];
    return SKIM_OK;
}

/* bounds_overlap(c, i, j + lane) for the four agents from j, a bit per
   lane: each lane does the scalar test's float operations in its order. */
static inline uint32_t bounds_overlap_four(const skim_crowd *c, uint32_t i, uint32_t j)
{
    const float *a = c->proj + 3 * (size_t)i;
    simde__m128 x, y;
    crowd_columns_xy(c->proj + 3 * (size_t)j, &x, &y);
    const simde__m128 z = crowd_column_z(c->built_proj + 3 * (size_t)j);
    const simde__m128 dx = simde_mm_sub_ps(simde_mm_set1_ps(a[0]), x);
    const simde__m128 dy = simde_mm_sub_ps(simde_mm_set1_ps(a[1]), y);
    const simde__m128 dz = simde_mm_sub_ps(simde_mm_set1_ps(c->built_proj[3 * (size_t)i + 2]), z);
    const simde__m128 r = simde_mm_add_ps(simde_mm_set1_ps(c->contact_bound[i]), simde_mm_loadu_ps(c->contact_bound + j));
    const simde__m128 across = simde_mm_cmple_ps(simde_mm_add_ps(simde_mm_mul_ps(dx, dx), simde_mm_mul_ps(dy, dy)),
                                                 simde_mm_mul_ps(r, r));
    const simde__m128 abs_dz = simde_mm_andnot_ps(simde_mm_set1_ps(-0.0f), dz);
    const simde__m128 along =
        simde_mm_cmple_ps(abs_dz, simde_mm_add_ps(simde_mm_set1_ps(c->vbound[i]), simde_mm_loadu_ps(c->vbound + j)));
    return (uint32_t)simde_mm_movemask_ps(simde_mm_and_ps(across, along));
}

/* For each set of passed lanes (bit k for lane k): the passed lanes in
   order, then zeros; and how many passed. */
static const uint32_t passed_lanes[16][4] __attribute__((aligned(16))) = {
    { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 2, 0, 0, 0 }, { 0, 2, 0, 0 },
    { 1, 2, 0, 0 }, { 0, 1, 2, 0 }, { 3, 0, 0, 0 }, { 0, 3, 0, 0 }, { 1, 3, 0, 0 }, { 0, 1, 3, 0 },
    { 2, 3, 0, 0 }, { 0, 2, 3, 0 }, { 1, 2, 3, 0 }, { 0, 1, 2, 3 }
};
static const uint8_t passed_count[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };

/* Keeps j + lane for the lanes set in passed, after the count items kept
   so far, with one store of four (the lanes past the kept ones are
   written and left for the next to overwrite: the buffer has room for
   three more than the run); returns the new count. No branch on the test
   (a third of the tests pass, at random). */
static inline size_t keep_passed(uint32_t *items, size_t count, uint32_t j, uint32_t passed)
{
    const simde__m128i lanes = simde_mm_load_si128((const simde__m128i *)passed_lanes[passed]);
    simde_mm_storeu_si128((simde__m128i *)(items + count), simde_mm_add_epi32(simde_mm_set1_epi32((int)j), lanes));
    return count + passed_count[passed];
}

/* Tests agent i against the agents [first, last). Inlined: an agent
   tests a few short runs, and a call per run cost a tenth of the search
   (callgrind). */
static inline __attribute__((always_inline)) bool test_run(const skim_crowd *c, uint32_t i, uint32_t first,
                                                           uint32_t last, crowd_index_buffer *out)
{
    /* Room for every agent of the run first (the call only when it grows:
       an agent tests a few short runs). Four agents are tested at once (a
       run is consecutive indices, so their fields are four in a row). */
    if (last <= first)
        return true;
    const size_t room = out->count + (last - first) + 3;
    if (room > out->capacity && !crowd_reserve((void **)&out->items, &out->capacity, room, sizeof *out->items))
        return false;
    uint32_t *items = out->items;
    size_t count = out->count;
    uint32_t j = first;
    for (; last - j >= 4; j += 4)
        count = keep_passed(items, count, j, bounds_overlap_four(c, i, j));
    if (j < last && last >= 4) {
        /* The rest of the run, under four, as the last lanes of the four
           agents that end it: the lanes before j, agents that exist but
           are not in the run, are tested and dropped. Runs are short (a
           row clipped to the search disc), and one at a time their ends
           cost a fifth of the search (callgrind). */
        const uint32_t from = last - 4;
        count = keep_passed(items, count, j, bounds_overlap_four(c, i, from) >> (j - from));
        j = last;
    }
    for (; j < last; ++j) {
        items[count] = j;
        count += bounds_overlap(c, i, j);
    }
    out->count = count;
    return true;
}

/* How much the search widens the rows it clips, in cells: the cells come
   from the same double products as the agents' home cells, and the pair
   test is in float, relative to the pair's distance, so a thousandth of a
   cell is room to spare. */
#define CLIP_SLACK 1e-3

/* Grid agent i in the row-major layout: the rest of its home row, then
   the rows above, each cut to the columns the search disc around where it
   is now reaches in it. The disc holds every agent's start at the build
   that could be within the contact bounds now: list_reach allows for
   everyone's drift since. All in cells: an agent at (u, v) at the build is
   in cell (floor(u), floor(v)), as lay_out_grid placed it (the clamp is
   crowd_cell_of's). */
static bool find_in_rows(const skim_crowd *c, uint32_t i, crowd_index_buffer *out)
{
    const float *p = c->proj + 3 * (size_t)i;
    const double inv = c->inverse_cell;
    const double u = crowd_clamp_cells((double)p[0] * inv), v = crowd_clamp_cells((double)p[1] * inv);
    const double reach = ((double)c->contact_bound[i] + c->list_reach) * inv + CLIP_SLACK;
    const int32_t row = c->cell[2 * (size_t)i + 1];
    int32_t top = crowd_floor_to_int(v + reach);
    top = top < c->grid_max[1] ? top : c->grid_max[1];
    for (int32_t cy = row; cy <= top; ++cy) {
        /* How far the row is from p across it: 0 for the row p is in. */
        double off = (double)cy > v ? (double)cy - v : v >= (double)cy + 1.0 ? v - ((double)cy + 1.0) : 0.0;
        if (off >= reach)
            continue;
        double half_width = sqrt(reach * reach - off * off) + CLIP_SLACK;
        int32_t lo = crowd_floor_to_int(u - half_width), hi = crowd_floor_to_int(u + half_width);
        lo = lo > c->grid_min[0] ? lo : c->grid_min[0];
        hi = hi < c->grid_max[0] ? hi : c->grid_max[0];
        if (lo > hi)
            continue;
        uint32_t first = c->bucket_start[bucket_of(c, lo, cy)];
        if (cy == row && first < i + 1)
            first = i + 1;
        uint32_t last = c->bucket_start[bucket_of(c, hi, cy) + 1];
        if (!test_run(c, i, first, last, out))
            return false;
    }
    return true;
}

/* Grid agent i in the hashed layout: every cell around it, keeping the
   agents of higher index, sorted. */
static bool find_in_hashed_cells(const skim_crowd *c, uint32_t i, crowd_index_buffer *out)
{
    const float *p = c->proj + 3 * (size_t)i;
    const double search = (double)c->contact_bound[i] + c->list_reach;
    int32_t lo[2], hi[2];
    for (int k = 0; k < 2; ++k) {
        lo[k] = crowd_cell_of((double)p[k] - search, c->inverse_cell);
        hi[k] = crowd_cell_of((double)p[k] + search, c->inverse_cell);
    }
    size_t first_found = out->count;
    for (int32_t cy = lo[1]; cy <= hi[1]; ++cy)
        for (int32_t cx = lo[0]; cx <= hi[0]; ++cx) {
            uint32_t b = bucket_of(c, cx, cy);
            for (uint32_t j = c->bucket_start[b]; j < c->bucket_start[b + 1]; ++j) {
                const int32_t *home = c->cell + 2 * (size_t)j;
                if (j > i && home[0] == cx && home[1] == cy && bounds_overlap(c, i, j) &&
                    !push_neighbour(out, j))
                    return false;
            }
        }
    uint32_t *found = out->items + first_found;
    size_t count = out->count - first_found;
    for (size_t k = 1; k < count; ++k) {
        uint32_t j = found[k];
        size_t at = k;
        for (; at > 0 && found[at - 1] > j; --at)
            found[at] = found[at - 1];
        found[at] = j;
    }
    return true;
}

/* Agent i's half list: for a grid agent, the grid agents it finds, then
   every big agent (all of higher index); for a big agent, the big agents
   after it; for a ghost, nobody. */
static bool find_neighbours(const skim_crowd *c, uint32_t i, crowd_index_buffer *out)
{
    const uint32_t big_first = c->grid_count, big_last = c->grid_count + c->big_count;
    const size_t before = out->count;
    bool ok = true;
    if (i < big_first) {
        ok = c->grid_dense ? find_in_rows(c, i, out) : find_in_hashed_cells(c, i, out);
        ok = ok && test_run(c, i, big_first, big_last, out);
    } else if (i < big_last)
        ok = test_run(c, i, i + 1, big_last, out);
    if (ok && c->layered) {
        /* Pairs whose layers do not meet are never listed: no contact, no
           avoidance, no check. */
        size_t kept = before;
        for (size_t e = before; e < out->count; ++e)
            if (crowd_layers_meet(c, c->active[i], c->active[out->items[e]]))
                out->items[kept++] = out->items[e];
        out->count = kept;
    }
    return ok;
}

/* Agents per chunk of the neighbour search. */
#define NEIGHBOUR_CHUNK 64

/* The chunks' lists, laid end to end in agent order. */
static bool concatenate_lists(skim_crowd *c, uint32_t n, uint32_t chunks)
{
    crowd_counts_to_offsets(c->half_begin, n);
    size_t total = c->half_begin[n];
    if (!crowd_reserve((void **)&c->half_other, &c->half_capacity, total ? total : 1, sizeof *c->half_other))
        return false;
    size_t at = 0;
    for (uint32_t t = 0; t < chunks; ++t) {
        crowd_index_buffer *buffer = &c->index_buffers[t];
        if (buffer->count)
            memcpy(c->half_other + at, buffer->items, buffer->count * sizeof *buffer->items);
        at += buffer->count;
    }
    return true;
}

/* The half lists' bounds (a serial step): this step's contact bounds, and
   the search's reach, the largest of them in the grid plus the farthest
   any agent has drifted from its home cell. */
static void take_contact_bounds(skim_crowd *c, uint32_t n, float drift)
{
    float *taken = c->next_contact_bound;
    c->next_contact_bound = c->contact_bound;
    c->contact_bound = taken;
    float largest = 0.0f;
    for (uint32_t i = 0; i < c->grid_count; ++i)
        largest = taken[i] > largest ? taken[i] : largest;
    c->list_reach = largest + drift;
    memcpy(c->listed_proj, c->proj, 3 * (size_t)n * sizeof *c->proj);
}

/* Each chunk of agents lists their neighbours in its own buffer; per agent
   it records the count, and the chunks' lists are then laid end to end in
   agent order, whichever thread made them. */
static bool make_half_lists(skim_crowd *c, uint32_t n, team_cursor *cursor)
{
    const uint32_t chunks = team_chunks(n, NEIGHBOUR_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, NEIGHBOUR_CHUNK, n, &first, &last);
        /* Filled through a copy on this thread's stack and stored back
           once: the chunks' buffers sit side by side in one array, and a
           count stored per neighbour would put two threads on one cache
           line (as in crowd_find_contacts). */
        crowd_index_buffer buffer = c->index_buffers[k];
        buffer.count = 0;
        for (uint32_t i = first; i < last; ++i) {
            size_t before = buffer.count;
            if (!find_neighbours(c, i, &buffer)) {
                crowd_note_out_of_memory(&c->shared);
                break;
            }
            c->half_begin[i + 1] = buffer.count - before; /* a count until the prefix below */
        }
        c->index_buffers[k] = buffer;
    }
    return crowd_join_chunks(c, cursor, phase, n, chunks, concatenate_lists);
}

static bool reserve_index_buffers(skim_crowd *c, uint32_t n)
{
    return crowd_reserve_chunk_buffers((void **)&c->index_buffers, &c->index_buffer_count,
                                       team_chunks(n, NEIGHBOUR_CHUNK), sizeof *c->index_buffers);
}

bool crowd_build_neighbours(skim_crowd *c, uint32_t n, team_cursor *cursor)
{
    /* The grid and the new order, serially (a counting sort); the arrays
       are then gathered into it by everyone. */
    team_phase *phase = team_phase_next(cursor);
    if (team_serial(phase)) {
        if (renumber(c, n, lay_out_grid(c, n)) != SKIM_OK || !reserve_index_buffers(c, n))
            crowd_note_out_of_memory(&c->shared);
        team_finish(phase);
    }
    team_wait(phase, 1);
    if (crowd_out_of_memory(&c->shared))
        return false;
    crowd_reorder_gather(c, n, c->order, cursor);
    phase = team_phase_next(cursor);
    if (team_serial(phase)) {
        crowd_reorder_take(c);
        take_contact_bounds(c, n, 0.0f); /* everyone is at home */
        team_finish(phase);
    }
    team_wait(phase, 1);
    return make_half_lists(c, n, cursor);
}

bool crowd_refresh_neighbours(skim_crowd *c, uint32_t n, uint32_t chunks, team_cursor *cursor)
{
    team_phase *phase = team_phase_next(cursor);
    if (team_serial(phase)) {
        float drift = 0.0f;
        for (uint32_t k = 0; k < chunks; ++k)
            drift = c->chunk_drift[k] > drift ? c->chunk_drift[k] : drift;
        if (!reserve_index_buffers(c, n))
            crowd_note_out_of_memory(&c->shared);
        else
            take_contact_bounds(c, n, drift);
        team_finish(phase);
    }
    team_wait(phase, 1);
    if (crowd_out_of_memory(&c->shared))
        return false;
    return make_half_lists(c, n, cursor);
}
