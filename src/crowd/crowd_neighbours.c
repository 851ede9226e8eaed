/* The neighbours local avoidance looks at: each agent's nearest ones within
   its sense distance, found straight from the grid of this step's starts
   (crowd_sense_grid.c).

   The search visits rings of cells around the agent's cell, the nearest
   ring first, and stops as soon as no cell further out can hold an agent
   nearer than the tenth it has, or within the sense distances at all. It
   keeps the agents ordered by squared distance, then index, which is the
   order a scan of every candidate would give: the result is the same
   whatever the cell size or the order the cells are visited in.

   Rings 0 and 1 (the square of nine cells around the agent's) are read
   from a block the searching thread gathers once for all the agents of a
   cell, who come one after another in the step (crowd_avoid.c). */
#include "crowd/crowd_nearest_keep.h"
#include "crowd/crowd_sense_grid.h"

#include <math.h>
#include <simde/x86/sse2.h>

/* How much nearer than its cells' edges a ring is taken to be, relative
   (in cells, at least this much): the members' cells come from double
   products of their float coordinates and the distances are float, whose
   rounding is a million times finer. */
#define RING_SLACK 1e-3

/* What the search reads of the members it tests: the grid's columns, or
   a block's. */
typedef struct member_columns {
    const float *x, *y, *z, *sense, *height;
    const uint32_t *agent;
} member_columns;

/* What agent i's search needs to test a member. */
typedef struct searcher {
    const skim_crowd *crowd;
    uint32_t i;
    simde__m128 x, y, z, sense, height; /* in every lane */
} searcher;

/* Whether agent i may avoid agent j, both active indices: not itself,
   and their layers meet (else the broadphase never pairs them). */
static inline bool may_avoid(const skim_crowd *c, uint32_t i, uint32_t j)
{
    return j != i && (!c->layered || crowd_layers_meet(c, c->active[i], c->active[j]));
}

/* Tests the members [first, last) against agent i one by one: a member is
   kept unless d > reach * reach or |dz| >= the two half heights. For the
   short runs of a thin crowd, where a group of lanes would be mostly
   empty. */
static inline __attribute__((always_inline)) void test_few_members(const searcher *s, const member_columns *g,
                                                                   uint32_t first, uint32_t last, nearest *best)
{
    const float x = simde_mm_cvtss_f32(s->x), y = simde_mm_cvtss_f32(s->y), z = simde_mm_cvtss_f32(s->z);
    const float sense = simde_mm_cvtss_f32(s->sense), height = simde_mm_cvtss_f32(s->height);
    for (uint32_t m = first; m < last; ++m) {
        float dx = g->x[m] - x, dy = g->y[m] - y, dz = g->z[m] - z;
        float reach = sense + g->sense[m];
        float d = dx * dx + dy * dy;
        if (d > reach * reach || fabsf(dz) >= height + g->height[m] || !may_avoid(s->crowd, s->i, g->agent[m]))
            continue;
        keep(best, d, g->agent[m]);
    }
}

/* The same, CROWD_MEMBER_LANES at a time, each lane computing exactly
   what the loop over the members does (the same float operations in the
   same order), so the same members are kept with the same keys. */
static inline __attribute__((always_inline)) void test_columns(const searcher *s, const member_columns *g,
                                                                uint32_t first, uint32_t last, nearest *best)
{
    const skim_crowd *c = s->crowd;
    if (last - first < CROWD_MEMBER_LANES) {
        test_few_members(s, g, first, last, best);
        return;
    }
    const simde__m128 x = s->x, y = s->y, z = s->z, sense = s->sense, height = s->height;
    const simde__m128 sign = simde_mm_set1_ps(-0.0f);
    /* The agent itself fails with the far and the apart, by its index (the
       padding's index is no agent's); whether layers are asked is read
       once, where keep's stores might have been to it as far as the
       compiler knows. */
    const simde__m128i self = simde_mm_set1_epi32((int)s->i);
    const bool layered = c->layered;
    for (uint32_t base = first; base < last; base += CROWD_MEMBER_LANES) {
        simde__m128 dx = simde_mm_sub_ps(simde_mm_loadu_ps(g->x + base), x);
        simde__m128 dy = simde_mm_sub_ps(simde_mm_loadu_ps(g->y + base), y);
        simde__m128 dz = simde_mm_sub_ps(simde_mm_loadu_ps(g->z + base), z);
        simde__m128 reach = simde_mm_add_ps(sense, simde_mm_loadu_ps(g->sense + base));
        simde__m128 d = simde_mm_add_ps(simde_mm_mul_ps(dx, dx), simde_mm_mul_ps(dy, dy));
        simde__m128 far = simde_mm_cmpgt_ps(d, simde_mm_mul_ps(reach, reach));
        /* Farther than the tenth kept: its key is larger, keep would drop it. */
        if (best->found == CROWD_AVOID_NEIGHBOURS)
            far = simde_mm_or_ps(far, simde_mm_cmpgt_ps(d, simde_mm_set1_ps(key_distance(best->key[CROWD_AVOID_NEIGHBOURS - 1]))));
        simde__m128 apart = simde_mm_cmpge_ps(simde_mm_andnot_ps(sign, dz),
                                              simde_mm_add_ps(height, simde_mm_loadu_ps(g->height + base)));
        const simde__m128 own = simde_mm_castsi128_ps(
            simde_mm_cmpeq_epi32(simde_mm_loadu_si128((const simde__m128i *)(g->agent + base)), self));
        const uint32_t lanes =
            last - base < CROWD_MEMBER_LANES ? (1u << (last - base)) - 1 : (1u << CROWD_MEMBER_LANES) - 1;
        uint32_t pass = ~(uint32_t)simde_mm_movemask_ps(simde_mm_or_ps(simde_mm_or_ps(far, apart), own)) & lanes;
        if (!pass)
            continue;
        float distance[CROWD_MEMBER_LANES];
        simde_mm_storeu_ps(distance, d);
        for (; pass; pass &= pass - 1) {
            const uint32_t lane = (uint32_t)__builtin_ctz(pass), j = g->agent[base + lane];
            if (!layered || crowd_layers_meet(c, c->active[s->i], c->active[j]))
                keep(best, distance[lane], j);
        }
    }
}

/* test_columns on the grid's members [first, last). */
static inline void test_members(const searcher *s, uint32_t first, uint32_t last, nearest *best)
{
    const crowd_sense_grid *g = &s->crowd->sense_grid;
    const member_columns columns = { g->x, g->y, g->z, g->sense, g->height, g->agent };
    test_columns(s, &columns, first, last, best);
}

/* The members of cells [lo, hi] of row cy (dense layout: one run). */
static inline void test_row(const searcher *s, int32_t lo, int32_t hi, int32_t cy, nearest *best)
{
    const crowd_sense_grid *g = &s->crowd->sense_grid;
    lo = lo > g->min[0] ? lo : g->min[0];
    hi = hi < g->max[0] ? hi : g->max[0];
    if (lo > hi || cy < g->min[1] || cy > g->max[1])
        return;
    test_members(s, g->bucket_start[crowd_sense_bucket(g, lo, cy)], g->bucket_start[crowd_sense_bucket(g, hi, cy) + 1],
                 best);
}

/* The members whose cell is (cx, cy) (hashed layout: a bucket holds
   other cells too). */
static void test_hashed_cell(const searcher *s, int32_t cx, int32_t cy, nearest *best)
{
    const crowd_sense_grid *g = &s->crowd->sense_grid;
    const uint32_t b = crowd_sense_bucket(g, cx, cy);
    for (uint32_t k = g->bucket_start[b]; k < g->bucket_start[b + 1]; ++k)
        if (g->member_cell[2 * (size_t)k] == cx && g->member_cell[2 * (size_t)k + 1] == cy)
            test_members(s, k, k + 1, best);
}

/* Where the search stands, in cells: the agent at (u, v) in cell (cx, cy),
   looking no further than radius. */
typedef struct ring_walk {
    double u, v, radius;
    int32_t cx, cy;
} ring_walk;

static inline double smaller(double a, double b)
{
    return a < b ? a : b; /* fmin is a call into libm */
}

/* The cells [lo, hi] of row, cut to the columns the walk's disc reaches in
   it; false if none. */
static inline bool clip_row(const ring_walk *w, int32_t row, int32_t *lo, int32_t *hi)
{
    double dy = row > w->cy ? (double)row - w->v : row < w->cy ? w->v - (double)(row + 1) : 0.0;
    double room = w->radius * w->radius - dy * dy;
    if (room < 0.0)
        return false;
    double half = sqrt(room);
    int32_t first = crowd_floor_to_int(w->u - half), last = crowd_floor_to_int(w->u + half);
    *lo = *lo > first ? *lo : first;
    *hi = *hi < last ? *hi : last;
    return *lo <= *hi;
}

/* The cells [lo, hi] of row that the disc reaches. */
static inline __attribute__((always_inline)) void test_cells(const searcher *s, const ring_walk *w, int32_t lo,
                                                             int32_t hi, int32_t row, nearest *best)
{
    if (!clip_row(w, row, &lo, &hi))
        return;
    if (s->crowd->sense_grid.dense) {
        test_row(s, lo, hi, row, best);
        return;
    }
    for (int32_t col = lo; col <= hi; ++col)
        test_hashed_cell(s, col, row, best);
}

/* Ring k > 0 of cells around the walk's cell (the cells k away in either
   direction), cut to its disc. */
static void test_ring(const searcher *s, const ring_walk *w, int32_t k, nearest *best)
{
    const int32_t cx = w->cx, cy = w->cy;
    test_cells(s, w, cx - k, cx + k, cy - k, best);
    for (int32_t row = cy - k + 1; row < cy + k; ++row) {
        test_cells(s, w, cx - k, cx - k, row, best);
        test_cells(s, w, cx + k, cx + k, row, best);
    }
    test_cells(s, w, cx - k, cx + k, cy + k, best);
}

/* The members of cells [lo, hi] of row (dense layout), lo and hi within
   the grid's box. */
static inline void test_dense_run(const searcher *s, int32_t lo, int32_t hi, int32_t row, nearest *best)
{
    const crowd_sense_grid *g = &s->crowd->sense_grid;
    const size_t first = (size_t)(row - g->min[1]) * g->width + (size_t)(lo - g->min[0]);
    test_members(s, g->bucket_start[first], g->bucket_start[first + (size_t)(hi - lo) + 1], best);
}

/* test_disc in the dense layout: each row's cells cut to the disc and to
   the grid's box at once, and read as one run (two beside rings 0 and 1
   with seen), without the hashed layout's checks a row. */
static void test_dense_disc(const searcher *s, const ring_walk *w, int32_t reach, bool seen, nearest *best)
{
    const crowd_sense_grid *g = &s->crowd->sense_grid;
    const int32_t cx = w->cx, cy = w->cy;
    const int32_t first = cy - reach > g->min[1] ? cy - reach : g->min[1];
    const int32_t last = cy + reach < g->max[1] ? cy + reach : g->max[1];
    const int32_t left = cx - reach > g->min[0] ? cx - reach : g->min[0];
    const int32_t right = cx + reach < g->max[0] ? cx + reach : g->max[0];
    for (int32_t row = first; row <= last; ++row) {
        int32_t lo = left, hi = right;
        if (!clip_row(w, row, &lo, &hi))
            continue;
        if (seen && row >= cy - 1 && row <= cy + 1) {
            if (lo <= cx - 2)
                test_dense_run(s, lo, hi < cx - 2 ? hi : cx - 2, row, best);
            if (hi >= cx + 2)
                test_dense_run(s, lo > cx + 2 ? lo : cx + 2, hi, row, best);
        } else
            test_dense_run(s, lo, hi, row, best);
    }
}

/* The walk's disc, a run of cells per row: where fewer than ten are near,
   the search goes to the disc's edge anyway, and a row costs less as one
   run than as the cells of each ring it crosses. With seen, rings 0 and 1
   were tested already and the rows through them are split around them;
   else the search starts from nothing here. */
static void test_disc(const searcher *s, const ring_walk *w, bool seen, nearest *best)
{
    const crowd_sense_grid *g = &s->crowd->sense_grid;
    const int32_t reach = w->radius < 536870912.0 ? (int32_t)w->radius + 1 : 536870912;
    if (g->dense) {
        test_dense_disc(s, w, reach, seen, best);
        return;
    }
    if ((uint64_t)(2 * (int64_t)reach + 1) * (uint64_t)(2 * (int64_t)reach + 1) > 2 * (uint64_t)g->count + 64) {
        /* More cells than members (a few agents spread far, one much
           larger than the rest): every member instead. */
        forget_all(best);
        test_members(s, 0, g->count, best);
        return;
    }
    for (int32_t row = w->cy - reach; row <= w->cy + reach; ++row) {
        if (seen && row >= w->cy - 1 && row <= w->cy + 1) {
            test_cells(s, w, w->cx - reach, w->cx - 2, row, best);
            test_cells(s, w, w->cx + 2, w->cx + reach, row, best);
        } else
            test_cells(s, w, w->cx - reach, w->cx + reach, row, best);
    }
}

/* The run of members of row `row` of the square of nine cells around
   column cx (dense layout: the cells of a row are one run of buckets),
   [*first, *last); returns how many. Cells outside the grid's box hold
   nobody. */
static inline uint32_t square_row(const crowd_sense_grid *g, int32_t cx, int32_t row, uint32_t *first, uint32_t *last)
{
    const int32_t lo = cx - 1 > g->min[0] ? cx - 1 : g->min[0], hi = cx + 1 < g->max[0] ? cx + 1 : g->max[0];
    *first = *last = 0;
    if (lo > hi || row < g->min[1] || row > g->max[1])
        return 0;
    *first = g->bucket_start[crowd_sense_bucket(g, lo, row)];
    *last = g->bucket_start[crowd_sense_bucket(g, hi, row) + 1];
    return *last - *first;
}

/* Whether the square of rings 0 and 1 around (cx, cy) holds at most ten
   members, its own row first: in a packed crowd that row alone holds
   more. */
static inline bool square_is_thin(const crowd_sense_grid *g, int32_t cx, int32_t cy)
{
    const int32_t rows[3] = { cy, cy - 1, cy + 1 };
    uint32_t held = 0, first, last;
    for (int r = 0; r < 3; ++r) {
        held += square_row(g, cx, rows[r], &first, &last);
        if (held > CROWD_AVOID_NEIGHBOURS)
            return false;
    }
    return true;
}

/* How far, in cells, the search still has to look: nobody beyond the
   sense distances, nor beyond the tenth found. */
static inline double search_radius(const crowd_sense_grid *g, const nearest *best, double farthest)
{
    double radius = farthest;
    if (best->found == CROWD_AVOID_NEIGHBOURS)
        radius = smaller(radius, sqrt((double)key_distance(best->key[CROWD_AVOID_NEIGHBOURS - 1])) * g->inverse_cell);
    return radius + RING_SLACK * (1.0 + radius);
}

/* Copies the grid's members [from, from + CROWD_MEMBER_LANES) into the
   block's [to, to + CROWD_MEMBER_LANES). */
static inline void copy_members(const crowd_sense_grid *g, uint32_t from, crowd_sense_block *b, uint32_t to)
{
    simde_mm_storeu_ps(b->x + to, simde_mm_loadu_ps(g->x + from));
    simde_mm_storeu_ps(b->y + to, simde_mm_loadu_ps(g->y + from));
    simde_mm_storeu_ps(b->z + to, simde_mm_loadu_ps(g->z + from));
    simde_mm_storeu_ps(b->sense + to, simde_mm_loadu_ps(g->sense + from));
    simde_mm_storeu_ps(b->height + to, simde_mm_loadu_ps(g->height + from));
    simde_mm_storeu_si128((simde__m128i *)(b->agent + to), simde_mm_loadu_si128((const simde__m128i *)(g->agent + from)));
}

/* Gathers the members of the square of nine cells around (cx, cy) (dense
   layout) into the block, the centre row first: they are the nearest to
   the agents of the centre cell, and the ten found first bound the rest
   sooner. */
static void gather_square(const crowd_sense_grid *g, int32_t cx, int32_t cy, crowd_sense_block *b)
{
    b->filled = true;
    b->cx = cx;
    b->cy = cy;
    b->count = 0;
    b->held = false;
    const int32_t rows[3] = { cy, cy - 1, cy + 1 };
    uint32_t first[3], last[3], count = 0;
    for (int r = 0; r < 3; ++r)
        count += square_row(g, cx, rows[r], &first[r], &last[r]);
    if (count > CROWD_BLOCK_MEMBERS)
        return;
    /* A row's run is copied four members at a time, its last group
       spilling up to three past it into the grid's padding or the next
       row's place, which the next row or the padding below overwrites. */
    uint32_t at = 0;
    for (int r = 0; r < 3; ++r) {
        for (uint32_t m = first[r]; m < last[r]; m += CROWD_MEMBER_LANES)
            copy_members(g, m, b, at + (m - first[r]));
        at += last[r] - first[r];
    }
    /* What a test of the last members reads past them: defined, never kept. */
    for (uint32_t m = at; m < at + CROWD_MEMBER_PADDING; ++m) {
        b->x[m] = b->y[m] = b->z[m] = b->sense[m] = b->height[m] = 0.0f;
        b->agent[m] = UINT32_MAX;
    }
    b->count = count;
    b->held = true;
}

/* Rings 0 and 1 around the walk's cell, whole, from the block (gathered
   again if it holds another cell's square); false if the square holds more
   than a block can. */
static bool test_square(const searcher *s, const ring_walk *w, crowd_sense_block *block, nearest *best)
{
    if (!block->filled || block->cx != w->cx || block->cy != w->cy)
        gather_square(&s->crowd->sense_grid, w->cx, w->cy, block);
    if (!block->held)
        return false;
    const member_columns columns = { block->x, block->y, block->z, block->sense, block->height, block->agent };
    test_columns(s, &columns, 0, block->count, best);
    return true;
}

uint32_t crowd_nearest_neighbours(const skim_crowd *c, uint32_t i, crowd_sense_block *block, uint32_t *near)
{
    const crowd_sense_grid *g = &c->sense_grid;
    const float *p = c->proj + 3 * (size_t)i;
    const searcher s = { c, i, simde_mm_set1_ps(p[0]), simde_mm_set1_ps(p[1]), simde_mm_set1_ps(p[2]),
                         simde_mm_set1_ps(c->sense[i]), simde_mm_set1_ps(c->height[i]) };
    if (g->count == 0)
        return 0;
    nearest best;
    forget_all(&best);
    /* In cells: where the agent is, and how far anyone it may avoid can be. */
    ring_walk w;
    w.u = crowd_clamp_cells((double)p[0] * g->inverse_cell);
    w.v = crowd_clamp_cells((double)p[1] * g->inverse_cell);
    w.cx = crowd_floor_to_int(w.u);
    w.cy = crowd_floor_to_int(w.v);
    const double farthest = ((double)c->sense[i] + g->largest_sense) * g->inverse_cell;
    const int32_t cx = w.cx, cy = w.cy;
    if (g->dense && crowd_sense_grid_thin(g) && square_is_thin(g, cx, cy)) {
        /* Rings 0 and 1 cannot give ten others: the whole disc at once. */
        w.radius = farthest + RING_SLACK * (1.0 + farthest);
        test_disc(&s, &w, false, &best);
        return copy_found(&best, near);
    }
    /* Rings 0 and 1 as three runs of three cells, the agent's own row
       first (its own cell and the two beside it, the nearest), then the
       rows above and below it, cut to the disc of what was found so far:
       a packed crowd nearly always needs both rings, and three runs cost
       less than the five pieces of the two rings. */
    if (g->dense && test_square(&s, &w, block, &best))
        w.radius = search_radius(g, &best, farthest);
    else {
        w.radius = search_radius(g, &best, farthest);
        test_cells(&s, &w, cx - 1, cx + 1, cy, &best);
        w.radius = search_radius(g, &best, farthest);
        test_cells(&s, &w, cx - 1, cx + 1, cy - 1, &best);
        w.radius = search_radius(g, &best, farthest);
        test_cells(&s, &w, cx - 1, cx + 1, cy + 1, &best);
    }
    if (best.found < CROWD_AVOID_NEIGHBOURS) {
        test_disc(&s, &w, true, &best);
        return copy_found(&best, near);
    }
    for (int32_t k = 2; k < (int32_t)CROWD_CELL_LIMIT; ++k) {
        if (g->dense && cx - k < g->min[0] && cx + k > g->max[0] && cy - k < g->min[1] && cy + k > g->max[1])
            break; /* rings 0 .. k - 1 went round every occupied cell */
        w.radius = search_radius(g, &best, farthest);
        /* Ring k lies beyond the square of rings 0 .. k - 1. */
        double gap = smaller(smaller(w.u - (double)(cx - k + 1), (double)(cx + k) - w.u),
                             smaller(w.v - (double)(cy - k + 1), (double)(cy + k) - w.v));
        if (gap > w.radius)
            break;
        if (!g->dense && (uint64_t)(2 * k + 1) * (uint64_t)(2 * k + 1) > 2 * (uint64_t)g->count + 64) {
            /* More cells ahead than members (a few agents spread far,
               one much larger than the rest): every member instead. */
            forget_all(&best);
            test_members(&s, 0, g->count, &best);
            break;
        }
        test_ring(&s, &w, k, &best);
    }
    return copy_found(&best, near);
}
