/* Far triangles in the gather: a triangle reaching
   beyond SKIM_GATHER_FAR_RADII of the shape's smallest radius from the
   start is clipped, in double, to the query's clip box before it is moved
   to unit-sphere space, so the kernels never see coordinates that cost
   accuracy (64 u (P + L), README "Accuracy") or overflow float (the plane
   normal's squared length is of degree 4 in L: it overflows past
   L ~ 4e9 radii). See gather_clip.c. Internal. */
#ifndef SKIM_GATHER_CLIP_H
#define SKIM_GATHER_CLIP_H

#include "gather/gather.h"

struct skim_path_gather;

/* The threshold, in the shape's smallest radii per world axis: a triangle
   whose world box lies within start +- SKIM_GATHER_FAR_RADII * smallest
   radius on every axis is gathered by the fast path exactly as before
   (its unit-space coordinates are then at most sqrt(3) * 2^12 ~ 7,100
   radii, twice that where start +- that distance rounds); any other is
   clipped. Why 2^12: below it the fast path's rounding (a few u L,
   u = 2^-24) is under 1e-3 radii and clipping (a few hundred double
   operations a triangle) would buy little; above it a triangle's own
   magnitude, not the query's, sets the sweep's accuracy. The scenes of
   bench/ (radius 16: 65,536 units) never reach it. */
#ifndef SKIM_GATHER_FAR_RADII /* -DSKIM_GATHER_FAR_RADII=1e30f turns clipping off (tests' fail-without check) */
#define SKIM_GATHER_FAR_RADII 4096.0f
#endif

/* Pieces a clipped triangle may become: a triangle clipped by the 6 planes
   of a box has at most 3 + 6 = 9 corners, fanned into 7 triangles. */
#define SKIM_GATHER_CLIP_MAX_PIECES 7u

/* Sets g's fast-path region (far_possible, near_min, near_max) once the
   rest of g (start, to_unit, box) is set; g->swept is false here. The
   clip box itself is only formed when a far triangle is met:
     - a box gather (a move): the query box [box_min, box_max], grown on
       every side by half its largest extent;
     - a swept gather (skim_path_gather_init sets swept, clip_delta and
       clip_radius): the box of the bounding sphere (radius x 1.001) along
       start -> start + clip_delta, in double and without the sweep box's
       rounding margins (1e-4 |coordinate| would make the clip box, and so
       the clipped magnitude, needlessly large far from the origin),
       grown the same way. */
void skim_gather_clip_setup(struct skim_path_gather *g, const skim_world *world,
                            const skim_ellipsoid_space *space, const float start[3]);

/* The slow path of skim_gather_run for one packet of four stored triangles
   starting at storage index first: for each lane of keep in lane order,
   a lane not in far is appended from fast (the unit-space corners the fast
   path computed, fast[v][axis][lane]) exactly as the fast path would, and
   a lane in far is clipped and appended as up to
   SKIM_GATHER_CLIP_MAX_PIECES pieces with its index and material.
   Reserves room first for the pieces and for later more lanes after them
   plus a padded packet (the caller's contract for the rest of its run);
   SKIM_ERROR_OUT_OF_MEMORY if that fails, with out->count unchanged. */
skim_status skim_gather_clip_packet(const skim_world *world, const struct skim_path_gather *g,
                                    uint32_t first, unsigned keep, unsigned far,
                                    const float fast[3][3][4], uint32_t later,
                                    skim_candidates *out);

/* Clips one triangle (world corners) as above, appending its pieces to out,
   which must have room for SKIM_GATHER_CLIP_MAX_PIECES more lanes. Returns
   the number of pieces (0 when nothing of it lies in the clip box).
   Exposed for the tests. */
uint32_t skim_gather_clip_triangle(const struct skim_path_gather *g, const float corner[3][3],
                                   uint32_t triangle, uint16_t material, skim_candidates *out);

#endif
