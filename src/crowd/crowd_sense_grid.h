/* What the avoidance grid (crowd_sense_grid.c) and the search of it
   (crowd_neighbours.c) both know of its layout. */
#ifndef SKIM_CROWD_SENSE_GRID_H
#define SKIM_CROWD_SENSE_GRID_H

#include "crowd/crowd_internal.h"

/* Members tested at once, and the padding after the last member that
   lets a test of the last ones read a whole group. */
#define CROWD_MEMBER_LANES 4
#define CROWD_MEMBER_PADDING (CROWD_MEMBER_LANES - 1)

/* The bucket of cell (cx, cy): its place in the row-major layout, else
   its hash. */
static inline uint32_t crowd_sense_bucket(const crowd_sense_grid *g, int32_t cx, int32_t cy)
{
    if (g->dense)
        return (uint32_t)((int64_t)(cy - g->min[1]) * g->width + (cx - g->min[0]));
    return crowd_hash_cell(cx, cy) & g->bucket_mask;
}

#endif
