/* The BVH's interface to the rest of the library (src/bvh/). */
#ifndef SKIM_BVH_H
#define SKIM_BVH_H

#include "../skim_internal.h"

/* Builds world->bvh over world's triangles. May reorder the triangle arrays
   (vertices, triangle_index, material) into leaf order. */
skim_status skim_bvh_build(skim_world *world, const skim_world_def *def);
void        skim_bvh_destroy(skim_world *world);
void        skim_bvh_add_stats(const skim_world *world, skim_world_stats *out);
/* Calls visit for every leaf whose box overlaps [box_min, box_max]. */
void        skim_bvh_visit_box(const skim_world *world, const float box_min[3],
                               const float box_max[3], skim_triangle_run_fn visit, void *ctx);
/* Releases a mapped (loaded) world's file mapping, if any. */
void        skim_world_unmap(skim_world *world);

#endif
