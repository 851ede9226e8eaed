/* Front-to-back sweeps through the BVH (src/gather/bvh_ordered.c) and the
   path gather they share with skim_gather_candidates_swept (src/gather/gather.c).

   A single sweep needs only its FIRST contact, and most sweeps of a game
   server meet something close to their start. So instead of gathering every
   triangle along the whole path and running the kernel once over all of
   them, the ordered traversal visits BVH children in the order the path
   enters them, runs the kernel on leaf triangles as they come, and skips
   every subtree the path enters after the best contact found so far: the
   ordered, early-terminating traversal of ray tracers (Embree's and Jolt's
   closest-hit casts sort children by entry distance and cull against the
   current hit distance). Internal. */
#ifndef SKIM_BVH_ORDERED_H
#define SKIM_BVH_ORDERED_H

#include "bvh/bvh.h"
#include "gather/gather.h"

#include <simde/x86/sse2.h>

/* Slack on the path's parameter t in every slab test: the segment is taken
   as t in [-SLACK, 1 + SLACK], and a box is entered "before" the best hit
   when its entry t <= best t + SLACK. Far above the rounding of the slab
   products (a few ulps of t near [0, 1]); the real spatial margin is the
   reach (skim_sweep_box's margins). See bvh_ordered.c for why it also
   keeps a tie at exactly the best t. */
#define SKIM_PATH_T_SLACK 1e-3f

/* What the path gather needs, broadcast once per sweep: the start, the
   ellipsoid transform, the sweep box, and the segment's slab-test terms
   (1/delta with +-1e30 for a zero or denormal component, so no lane
   computes 0 * inf; reach = the sweep box's margin per axis). */
typedef struct skim_path_gather {
    simde__m128 start[3];
    simde__m128 to_unit[3][3];
    bool        diagonal; /* to_unit has exact zeros off its diagonal (no rotation) */
    simde__m128 box_min[3], box_max[3];
    bool        swept;  /* false: a plain box gather (no segment test) */
    simde__m128 inverse_delta[3], reach[3];
    uint64_t    material_mask;
    bool        all_materials;
    /* Scalars of the same segment, for the node tests. */
    float       start_s[3], inverse_delta_s[3], reach_s[3];
    /* Far triangles (src/gather/gather_clip.h, triangles far beyond the query): a triangle
       whose world box leaves [near_min, near_max] (start +-
       SKIM_GATHER_FAR_RADII smallest radii) is clipped. far_possible is
       false when the whole world lies inside (then near_* are not set and
       no lane is tested: the test could only answer "none"). For a swept
       setup the clip box comes from the segment (clip_delta) and the
       bounding radius (clip_radius); for a box gather, from the box. */
    bool        far_possible;
    simde__m128 near_min[3], near_max[3];
    float       clip_delta[3], clip_radius;
} skim_path_gather;

/* Sets g up for a plain box gather (no segment test): the shape's
   transform (skim_path_gather_shape), then start, the box [box_min,
   box_max] (world space), the material mask and the far-triangle test
   (gather_clip.h) (skim_path_gather_place). The one setup every gather
   uses: skim_gather_candidates, skim_path_gather_init and a move's walked
   gather (src/move/move_gather.c), which redoes the shape's part only when
   the shape changes (a crowd repeats one). */
void skim_path_gather_shape(skim_path_gather *g, const skim_ellipsoid_space *space);
void skim_path_gather_place(skim_path_gather *g, const skim_world *world,
                            const skim_ellipsoid_space *space, const float start[3],
                            const float box_min[3], const float box_max[3],
                            uint64_t material_mask);
void skim_path_gather_box_init(skim_path_gather *g, const skim_world *world,
                               const skim_ellipsoid_space *space, const float start[3],
                               const float box_min[3], const float box_max[3],
                               uint64_t material_mask);

/* Sets g up for the straight sweep start -> start + delta (world space) of
   a shape with space's bounding radius: the box is skim_sweep_box's.
   skim_path_gather_sweep does all but the shape's part, for a g whose
   skim_path_gather_shape was done for this space (skim_sweep keeps it
   while the shape stays the same). */
void skim_path_gather_init(skim_path_gather *g, const skim_world *world,
                           const skim_ellipsoid_space *space, const float start[3],
                           const float delta[3], uint64_t material_mask);
void skim_path_gather_sweep(skim_path_gather *g, const skim_world *world,
                            const skim_ellipsoid_space *space, const float start[3],
                            const float delta[3], uint64_t material_mask);

/* The first contact of the sweep set up in g through world's BVH, in
   best (unit-sphere space), exactly what one kernel call over every
   candidate of the swept gather would give: the same kernel on the same
   lanes, and the minimum of (t, triangle) does not depend on the order.
   best must come in as { .hit = false, .t = 1, .triangle = UINT32_MAX }.
   pending is a scratch candidate buffer. With first_hit, the traversal
   ends at the first kernel call that finds any contact: best->hit is the
   same, but best is then some contact, not the first. */
skim_status skim_bvh_sweep_ordered(const skim_world *world, const skim_path_gather *g,
                                   const float delta_unit[3], bool cull_back_faces,
                                   const skim_kernel_set *kernels, skim_candidates *pending,
                                   bool first_hit, skim_unit_hit *best);

/* The same traversal with the 8-wide node test in 256-bit lanes, built
   only on x86 (src/gather/meson.build and src/move/meson.build) and used by skim_bvh_sweep_ordered
   when the kernel set has at least 8 lanes. */
#if defined(__x86_64__) || defined(__i386__)
#define SKIM_BVH_HAVE_AVX2_TRAVERSAL 1
skim_status skim_bvh_sweep_ordered_avx2(const skim_world *world, const skim_path_gather *g,
                                        const float delta_unit[3], bool cull_back_faces,
                                        const skim_kernel_set *kernels, skim_candidates *pending,
                                        bool first_hit, skim_unit_hit *best);
#endif

#endif
