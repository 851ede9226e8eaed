/* The grid the avoidance search reads (crowd_neighbours.c): the agents
   that others may avoid (a sense distance above 0), bucketed by the cell of
   this step's start (the collision chapter, "Eliminating Tests": a uniform
   grid where each object sits in the one cell of its center).

   It is rebuilt every step by a counting sort, in index order within a
   bucket; what the search reads of a member is copied into columns in
   bucket order, so a cell is read as runs of memory, four members at a
   time. Cells are a sense distance wide: in a packed crowd an agent's ten
   nearest lie in its own cell and the ring around it. The grid holds this
   step's starts exactly, so the search need not allow for agents moving
   since it was built. */
#include "crowd/crowd_sense_grid.h"

#include <string.h>

/* Cell width in the mean sense distance of the grid's members: narrower
   cells test fewer agents in a packed crowd but cost more cells where it
   thins out. */
#define CELL_PER_SENSE 1.0
/* The row-major layout while it has at most this many cells per member
   (plus a few thousand): its counting sort costs a few instructions a
   cell every step, far less than a hashed cell costs each search that
   visits it (a hash and a walk of its bucket); beyond, the hashed layout. */
#define DENSE_CELLS_PER_MEMBER 64
/* Cells in a thin crowd are as wide as the largest sense distance, but at
   most this many mean sense distances. */
#define WIDE_PER_MEAN 4.0

static bool is_member(const skim_crowd *c, uint32_t i)
{
    /* A ghost's sense is 0, as is everyone's when they do not avoid. */
    return c->sense[i] > 0.0f;
}

/* Whether a grid of cells `width` wide would be thin, judged from the
   last build's members per occupied cell, scaled by the cells' areas.
   Where it is, the search goes to the edge of its disc in most cells
   anyway, and cells as wide as the largest sense distance make that disc
   fewer rows and cells: the grid's own width makes no difference to what
   the search finds. */
static bool thin_at(const crowd_sense_grid *g, double width)
{
    const double scale = width / g->cell; /* g->cell: the last build's */
    return g->per_occupied * scale * scale <= CROWD_THIN_MEMBERS_PER_CELL;
}

/* The cell width, the box of occupied cells and the layout; returns the
   number of buckets, or 0 when nobody is a member. */
static size_t lay_out(skim_crowd *c, uint32_t n)
{
    crowd_sense_grid *g = &c->sense_grid;
    double senses = 0.0;
    uint32_t members = 0;
    float largest = 0.0f;
    for (uint32_t i = 0; i < n; ++i)
        if (is_member(c, i)) {
            senses += c->sense[i];
            members++;
            largest = c->sense[i] > largest ? c->sense[i] : largest;
        }
    g->largest_sense = largest;
    if (members == 0)
        return 0;
    const double mean = CELL_PER_SENSE * senses / members;
    /* At most WIDE_PER_MEAN means wide: one giant's sense must not put a
       whole crowd in a cell. */
    const double wide = largest < WIDE_PER_MEAN * mean ? largest : WIDE_PER_MEAN * mean;
    g->cell = g->per_occupied > 0.0 && thin_at(g, mean) ? wide : mean;
    if (!(g->cell > 0.0))
        g->cell = 1.0;
    g->inverse_cell = 1.0 / g->cell;
    int32_t lo[2] = { INT32_MAX, INT32_MAX }, hi[2] = { INT32_MIN, INT32_MIN };
    for (uint32_t i = 0; i < n; ++i)
        if (is_member(c, i))
            for (int k = 0; k < 2; ++k) {
                int32_t cell = crowd_cell_of((double)c->proj[3 * (size_t)i + k], g->inverse_cell);
                g->home[2 * (size_t)i + k] = cell;
                lo[k] = cell < lo[k] ? cell : lo[k];
                hi[k] = cell > hi[k] ? cell : hi[k];
            }
    uint64_t width = (uint64_t)((int64_t)hi[0] - lo[0] + 1), height = (uint64_t)((int64_t)hi[1] - lo[1] + 1);
    g->dense = width * height <= DENSE_CELLS_PER_MEMBER * (uint64_t)members + 1024;
    if (g->dense) {
        memcpy(g->min, lo, sizeof lo);
        memcpy(g->max, hi, sizeof hi);
        g->width = (uint32_t)width;
        return (size_t)(width * height);
    }
    size_t buckets = 64;
    while (buckets < 2 * (size_t)members)
        buckets *= 2;
    g->bucket_mask = (uint32_t)buckets - 1;
    return buckets;
}

/* The grid of this step's starts (a serial step). */
static bool build_grid(skim_crowd *c, uint32_t n, uint32_t chunks)
{
    (void)chunks;
    crowd_sense_grid *g = &c->sense_grid;
    if (!crowd_reserve((void **)&g->key, &g->key_capacity, n ? n : 1, sizeof *g->key) ||
        !crowd_reserve((void **)&g->home, &g->home_capacity, n ? 2 * (size_t)n : 1, sizeof *g->home) ||
        !crowd_reserve((void **)&g->member_block, &g->member_capacity, (size_t)n + CROWD_MEMBER_PADDING,
                       8 * sizeof *g->member_block))
        return false;
    /* The columns, each member_capacity long (8 words a member). */
    const size_t column = g->member_capacity;
    g->x = g->member_block;
    g->y = g->x + column;
    g->z = g->y + column;
    g->sense = g->z + column;
    g->height = g->sense + column;
    g->agent = (uint32_t *)(g->height + column);
    g->member_cell = (int32_t *)(g->agent + column);
    const size_t buckets = lay_out(c, n);
    if (!crowd_reserve((void **)&g->bucket_start, &g->bucket_capacity, buckets + 1, sizeof *g->bucket_start))
        return false;
    uint32_t *start = g->bucket_start;
    memset(start, 0, (buckets + 1) * sizeof *start);
    for (uint32_t i = 0; i < n; ++i) {
        g->key[i] = UINT32_MAX;
        if (buckets == 0 || !is_member(c, i))
            continue;
        g->key[i] = crowd_sense_bucket(g, g->home[2 * (size_t)i], g->home[2 * (size_t)i + 1]);
        start[g->key[i] + 1]++;
    }
    size_t occupied = 0;
    for (size_t b = 0; b < buckets; ++b) {
        occupied += start[b + 1] != 0;
        start[b + 1] += start[b];
    }
    /* start[b] runs ahead while filling and is put back after. */
    for (uint32_t i = 0; i < n; ++i) {
        if (g->key[i] == UINT32_MAX)
            continue;
        const float *p = c->proj + 3 * (size_t)i;
        const uint32_t m = start[g->key[i]]++;
        g->x[m] = p[0];
        g->y[m] = p[1];
        g->z[m] = p[2];
        g->sense[m] = c->sense[i];
        g->height[m] = c->height[i];
        g->agent[m] = i;
        /* Only the hashed layout's buckets hold other cells, which the
           search tells apart by the member's cell: in the row-major one
           it would be one more column written at random a member. */
        if (!g->dense) {
            g->member_cell[2 * (size_t)m] = g->home[2 * (size_t)i];
            g->member_cell[2 * (size_t)m + 1] = g->home[2 * (size_t)i + 1];
        }
    }
    for (size_t b = buckets; b > 0; --b)
        start[b] = start[b - 1];
    start[0] = 0;
    g->count = buckets ? start[buckets] : 0;
    /* What a test of the last members reads past them: defined, and never
       kept (the test masks it off). */
    for (uint32_t m = g->count; m < g->count + CROWD_MEMBER_PADDING; ++m) {
        g->x[m] = g->y[m] = g->z[m] = g->sense[m] = g->height[m] = 0.0f;
        g->agent[m] = UINT32_MAX;
    }
    g->per_occupied = occupied ? (double)g->count / (double)occupied : 0.0;
    return true;
}

bool crowd_build_sense_grid(skim_crowd *c, uint32_t n, team_cursor *cursor)
{
    team_phase *phase = team_phase_next(cursor); /* nothing parallel before the build: no chunks */
    return crowd_join_chunks(c, cursor, phase, n, 0, build_grid);
}
