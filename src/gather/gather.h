/* The gather stage: the mover's ellipsoid space, the candidate buffers the
   kernels read, and the gathers that fill them from a world. */
#ifndef SKIM_GATHER_H
#define SKIM_GATHER_H

#include "bvh/bvh.h"
#include "kernel/kernel.h"
#include "world/world.h"

/* ---- ellipsoid space (Rouwé section 4, Nettle "ellipsoid space") ----
   M = R * S maps the unit sphere onto the ellipsoid (R from the quaternion,
   S = diag(radii)). Positions go to unit-sphere space with M^-1 = S^-1 R^T;
   normals come back with M^-T = R S^-1 (normals transform by the inverse
   transpose). */
typedef struct skim_ellipsoid_space {
    float to_unit[3][3];     /* M^-1, row-major: unit = to_unit * world */
    float to_world[3][3];    /* M */
    float normal_to_world[3][3]; /* M^-T */
    float bounding_radius;   /* largest radius: a sphere around the shape */
    float smallest_radius;
} skim_ellipsoid_space;

void skim_ellipsoid_space_init(skim_ellipsoid_space *space, const skim_ellipsoid *shape);
void skim_mat3_mul_vec(const float m[3][3], const float v[3], float out[3]);

/* ---- candidate buffers (candidates.c) ---- */
void        skim_candidates_init(skim_candidates *c);
void        skim_candidates_free(skim_candidates *c);
skim_status skim_candidates_reserve(skim_candidates *c, uint32_t lanes);
/* Pads lanes [count, padded_count) so whole packets can be read. */
void        skim_candidates_pad(skim_candidates *c);
/* The same with whole vector stores over lanes [count, count +
   SKIM_MAX_PACKET_WIDTH): the capacity must hold them. */
void        skim_candidates_pad_whole(skim_candidates *c);
/* The triangle padding lanes (and a move's parked lanes) hold: finite and
   well-formed, so no lane computes NaN or Inf, and a million units out, so
   nothing swept near the start meets it. One definition for every writer. */
extern const float skim_far_triangle[3][3];

/* Calls visit(ctx, first, count) for every run of triangles in storage order
   whose bounds may overlap the box [box_min, box_max] (world space).
   Triangles outside the box may be reported too; none inside is missed. */
void skim_world_visit_box(const skim_world *world, const float box_min[3], const float box_max[3],
                          skim_triangle_run_fn visit, void *ctx);

/* Gathers every triangle that may touch a shape moving from start by delta
   (box start +- bounding radius, grown by the displacement) into candidates,
   translated relative to start and transformed to unit-sphere space, skipping
   materials not in material_mask. With a BVH, exactly the triangles whose
   bounding box overlaps the box are gathered, in leaf order; brute force
   gathers every triangle (the oracle). Results never depend on the order,
   since the kernels break ties by triangle index. */
skim_status skim_gather_candidates(const skim_world *world, const skim_ellipsoid_space *space,
                                   const float start[3], const float box_min[3],
                                   const float box_max[3], uint64_t material_mask,
                                   skim_candidates *out);

/* The same for one straight sweep from start by delta (world space): the
   box is skim_sweep_box's, and a triangle is kept only if the segment
   start -> start + delta passes within that box's margin of the triangle's
   bounding box (a slab test), which drops most of a long diagonal move's
   box. Every triangle the kernels could report as the sweep's first hit is
   still kept (the margins are skim_sweep_box's), so a sweep on these
   candidates answers exactly what brute force answers. */
skim_status skim_gather_candidates_swept(const skim_world *world, const skim_ellipsoid_space *space,
                                         const float start[3], const float delta[3],
                                         uint64_t material_mask, skim_candidates *out);

void skim_sweep_box(const float start[3], const float delta[3], float bounding_radius,
                    float box_min[3], float box_max[3]);

/* Converts a unit-space hit back to world space (point, normal). */
void skim_unit_hit_to_world(const skim_ellipsoid_space *space, const float start[3],
                            const skim_unit_hit *unit, skim_hit *out);

#endif /* SKIM_GATHER_H */
