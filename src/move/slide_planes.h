/* The plane set of one pass of collide-and-slide (slide_planes.c), in the
   mover's unit-sphere space. */
#ifndef SKIM_SLIDE_PLANES_H
#define SKIM_SLIDE_PLANES_H

#include "gather/gather.h"

/* Planes a single pass may hold at once (PM_SlideMove's MAX_CLIP_PLANES is
   5; push-out can add several touching triangles at once). */
#define SKIM_MOVE_MAX_PLANES 16

/* Every surface met in a pass becomes a constraint "never move into it":
   v . normal >= 0 for the motion v (unit space). Solving them together is
   what PM_SlideMove (Quake) does with its clip planes and crease, and what
   Box2D's b2SolvePlanes / b2ClipVector do for its mover: it is what keeps a
   mover from ping-ponging in an acute corner. A plane stays in the set while
   the mover is within 2 skins of where it touched (the contact is still
   "on"); moving farther away retires it, so a long slide can follow a curved
   wall. */
typedef struct skim_move_plane {
    float normal[3];        /* constraint normal, unit space, unit length */
    float contact_normal[3];/* the contact's own normal (from the contact toward the center) */
    float offset;           /* contact_normal . contact point (relative to the move's start) */
    uint32_t lane;          /* candidate lane excluded from sweeps while this plane lives,
                               UINT32_MAX for none */
} skim_move_plane;

typedef struct skim_move_planes {
    int count;
    skim_move_plane plane[SKIM_MOVE_MAX_PLANES];
} skim_move_planes;

/* Adds a constraint; a duplicate normal replaces the older plane. When the
   set is full the oldest plane without an exclusion goes. */
void skim_move_planes_add(skim_move_planes *set, const float normal[3],
                          const float contact_normal[3], float offset, uint32_t lane);
/* Retires planes the mover at pos has left by more than gap (returns true
   when one that excluded a lane went, so the candidate view must change). */
bool skim_move_planes_retire(skim_move_planes *set, const float pos[3], float gap);
/* The motion closest to want (least squares, unit space) that moves into no
   plane: the projection of want onto the cone { v : v . n_i >= 0 }, found
   by trying want itself, each single plane and each crease (pair of planes,
   PM_SlideMove's cross product) and keeping the closest feasible one; zero
   when three or more planes pin the mover. */
void skim_move_planes_clip(const skim_move_planes *set, const float want[3], float out[3]);

/* The same projection in the world's metric, for an ellipsoid: the motion
   v (unit space) whose world image M v is closest to M want. Unit space
   stretches directions unequally, so its own projection can turn a slide
   against the asked motion in the world; a projection in the world never
   does (P(x) . x = |P(x)|^2 >= 0) nor lengthens it. For a sphere (M = r R)
   the two are the same, and skim_move_planes_clip is used. */
void skim_move_planes_clip_world(const skim_move_planes *set, const skim_ellipsoid_space *space,
                                 const float want[3], float out[3]);

/* b2SolvePlanes: a push p with p . n_i >= depth_i for every contact, by
   projected Gauss-Seidel with accumulated pushes clamped at >= 0. Returns
   false when no push moving away from every contact was found (the mover is
   squeezed between contacts closer than its size). */
bool skim_move_solve_push(int count, const float (*normals)[3], const float *depths,
                          float push[3]);

#endif
