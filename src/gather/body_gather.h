/* Bodies' triangles for a move's kernels (body_gather.c): each body the
   query box overlaps is searched through its own BVH with the box taken into the
   body's space, and the triangles found are placed in the world and moved
   into the query's unit-sphere space, appended after the static ones. */
#ifndef SKIM_BODY_GATHER_H
#define SKIM_BODY_GATHER_H

#include "gather/gather.h"

/* A body's lane in a candidate buffer carries SKIM_BODY_LANE_BASE + k in
   its triangle field, k indexing the buffer's skim_body_lanes: above every
   caller's index (a mesh holds at most UINT32_MAX / 3 triangles), so the
   kernels' tie rule (the lower triangle field wins) puts the world's own
   triangles first and then bodies in increasing id, the order bodies are
   appended in, and within a body the lower index in its mesh (each body's
   triangles are appended in that order). */
#define SKIM_BODY_LANE_BASE 0x80000000u

typedef struct skim_body_lanes {
    skim_triangle_ref *ref; /* k -> (caller's index in the body's mesh, body id) */
    uint32_t count, capacity;
    uint64_t *found;        /* one body's triangles found: caller's index << 32 | stored */
    uint32_t found_count, found_capacity;
    uint64_t *meets;        /* the bodies the query's box meets, a bit per table index */
    size_t   meets_capacity;
} skim_body_lanes;

void skim_body_lanes_free(skim_body_lanes *lanes);

/* Appends every triangle of world's bodies whose world box overlaps
   [box_min, box_max] and whose material collides, as
   skim_gather_candidates would have gathered it from the world (relative to
   start, in space's unit sphere), with its entry in lanes; then pads out.
   When no body's box meets the box, out is left as it was: the caller's
   own gather has padded it. Entries already in lanes stay (a move's
   earlier gathers may name them). */
skim_status skim_body_gather(const skim_world *world, const skim_ellipsoid_space *space,
                             const float start[3], const float box_min[3], const float box_max[3],
                             uint64_t material_mask, skim_candidates *out, skim_body_lanes *lanes);

/* The triangle and body a lane's triangle field names. */
static inline skim_triangle_ref skim_body_lane_ref(const skim_body_lanes *lanes, uint32_t triangle)
{
    if (triangle < SKIM_BODY_LANE_BASE || triangle - SKIM_BODY_LANE_BASE >= lanes->count)
        return (skim_triangle_ref){ triangle, SKIM_STATIC };
    return lanes->ref[triangle - SKIM_BODY_LANE_BASE];
}

#endif /* SKIM_BODY_GATHER_H */
