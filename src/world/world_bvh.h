/* The world's BVH: building it over the world's triangles (which it stores
   in leaf order), its statistics, and checking a loaded tree against the
   triangles it indexes. The tree itself is bvh/'s. */
#ifndef SKIM_WORLD_BVH_H
#define SKIM_WORLD_BVH_H

#include "bvh/bvh_binary.h"
#include "world/world.h"

/* Builds world->bvh over the boxes prims[0, world->triangle_count) of the
   mesh triangles world keeps (bvh_binary.h; each tagged with its mesh
   triangle index) and stores those triangles, from the mesh, in leaf
   order as world's storage. Takes prims (64-byte aligned; freed here,
   also on failure). The result is the same bit for bit for any
   def->build_threads. */
struct skim_bvh_prim;
skim_status skim_bvh_build(skim_world *world, const skim_mesh *mesh, struct skim_bvh_prim *prims,
                           const skim_world_def *def);
void        skim_bvh_destroy(skim_world *world);

/* NULL when stored triangle t is one skim_world_create keeps (finite
   coordinates within SKIM_COORDINATE_MAX, a normal that can be formed in
   float), else why not. */
const char *skim_stored_triangle_problem(const skim_world *world, uint32_t t);
/* For a loaded tree that passed skim_bvh_validate: true when every
   triangle is in exactly one leaf, every triangle passes
   skim_stored_triangle_problem and every child box contains everything
   below it (world_check.c); else false with why in reason, and
   *out_of_memory set when the check itself could not allocate. */
bool        skim_bvh_check_geometry(const skim_world *world, const skim_bvh_node *nodes,
                                    uint32_t node_count, uint32_t root, float bounds_lo[3],
                                    float bounds_hi[3], char *reason, size_t reason_size,
                                    bool *out_of_memory);
void        skim_bvh_add_stats(const skim_world *world, skim_world_stats *out);

#endif /* SKIM_WORLD_BVH_H */
