/* What the avoidance grid (crowd_sense_grid.c) and the search of it
   (crowd_neighbours.c) both know of its layout. */
#ifndef SKIM_CROWD_SENSE_GRID_H
#define SKIM_CROWD_SENSE_GRID_H

#include "crowd/crowd_internal.h"

/* Members tested at once, and the padding after the last member that
   lets a test of the last ones read a whole group. */
#define CROWD_MEMBER_LANES 4
#define CROWD_MEMBER_PADDING (CROWD_MEMBER_LANES - 1)

/* At most this many members per occupied cell, on average, and most
   agents have fewer than ten others in the square of rings 0 and 1: the
   search asks first whether it can skip the rings. */
#define CROWD_THIN_MEMBERS_PER_CELL 2

/* Whether the grid as built is thin (the count of members is exact in a
   double, so this is count <= 2 * occupied). */
static inline bool crowd_sense_grid_thin(const crowd_sense_grid *g)
{
    return g->per_occupied <= CROWD_THIN_MEMBERS_PER_CELL;
}

/* The bucket of cell (cx, cy): its place in the row-major layout, else
   its hash. */
static inline uint32_t crowd_sense_bucket(const crowd_sense_grid *g, int32_t cx, int32_t cy)
{
    if (g->dense)
        return (uint32_t)((int64_t)(cy - g->min[1]) * g->width + (cx - g->min[0]));
    return crowd_hash_cell(cx, cy) & g->bucket_mask;
}

/* Members a block holds at most: a square of nine cells a sense distance
   wide holds a few dozen in a packed crowd. */
#define CROWD_BLOCK_MEMBERS 256

/* The members of the square of nine cells around one cell, copied into
   columns of their own (crowd_neighbours.c): the agents of a cell search
   the same square, so it is gathered once for all of them. It lives on
   the stack of the thread that searches, for one step. */
struct crowd_sense_block {
    int32_t  cx, cy;     /* the cell at the square's centre */
    uint32_t count;      /* members held */
    bool     filled;     /* false: nothing gathered yet */
    bool     held;       /* false: the square held more than CROWD_BLOCK_MEMBERS */
    float    x[CROWD_BLOCK_MEMBERS + CROWD_MEMBER_PADDING], y[CROWD_BLOCK_MEMBERS + CROWD_MEMBER_PADDING];
    float    z[CROWD_BLOCK_MEMBERS + CROWD_MEMBER_PADDING];
    float    sense[CROWD_BLOCK_MEMBERS + CROWD_MEMBER_PADDING], height[CROWD_BLOCK_MEMBERS + CROWD_MEMBER_PADDING];
    uint32_t agent[CROWD_BLOCK_MEMBERS + CROWD_MEMBER_PADDING];
};

/* A block that holds nothing yet (before a step's searches). */
static inline void crowd_forget_sense_block(crowd_sense_block *block)
{
    block->filled = false;
}

#endif
