/* The packet kernel: a unit sphere swept from the origin by delta against
   SKIM_W candidate triangles at once, after Jorrit Rouwé, "Collision
   Detection with Swept Spheres and Ellipsoids", in its 3D form
   (section 5). This file is compiled once per kernel set (see meson.build)
   with SKIM_LANES choosing the lane type of lanes.h and SKIM_SET naming the
   set; the source is the same for every width.

   It computes what src/kernel/sweep_sphere_triangle.c computes, with the
   same IEEE operations in the same order, but branch-free: every test runs
   on all lanes under a mask, and the reference's early returns become
   masks that say which result a lane keeps. The only branches are
   packet-wide early outs (a stage no lane needs is skipped), which change
   no lane's result.

   Two passes, so the tests run on full packets:
   1. every candidate, W at a time: a cull against the box around the
      swept sphere (with a margin that makes it exact, see cull_pass). Most
      candidates of a move end here. The survivors are packed into a small
      buffer, unless the whole packet survives, which goes on as it is;
   2. the survivors, W at a time: the plane of Rouwé 2, touching at the
      start, the interval of 3.1 and the face at t1 (3.3), the vertex and
      edge quadratics (3.4, 3.5).
   Packing only moves bits, so each lane computes exactly what it would
   have in place, whatever the width.

   Each lane slot keeps the best (t, triangle, lane) it has seen; the slots
   are reduced once per call in an order-independent way. Per lane the
   kernel produces only t and which feature gave it; the contact point and
   normal (one more square root and three divisions) are computed once per
   call, for the winner, by skim_simd_finish().

   This file is the call: its setup, the loop of the two passes and the
   reduction of the slots, and the three entry points. The per-triangle
   tests are in packet_features.h, the passes (cull, lane compaction, the
   tests on full packets) in packet_passes.h; both are part of this
   translation unit, so every kernel set compiles them with its own lane
   type and flags. */
#include "kernel/lanes.h"
#include "kernel/packet_passes.h"
#include "kernel/simd_kernels.h"

#include <math.h>
#include <string.h>

#ifndef SKIM_SET
#error "SKIM_SET must name the kernel set"
#endif
#define SKIM_CAT_(a, b) a##b
#define SKIM_CAT(a, b) SKIM_CAT_(a, b)
#define SKIM_KERNEL SKIM_CAT(skim_simd_sweep_, SKIM_SET)
#define SKIM_KERNEL_FROM SKIM_CAT(skim_simd_sweep_from_, SKIM_SET)
#define SKIM_KERNEL_DEFERRED SKIM_CAT(skim_simd_sweep_deferred_, SKIM_SET)

/* The whole call, instantiated twice: rebase is a constant in each, so the
   plain entry pays nothing for the origin. */
static inline __attribute__((always_inline)) void sweep_body(const skim_candidates *c,
                                                             const float origin[3],
                                                             const float delta[3],
                                                             bool cull_back_faces,
                                                             skim_unit_hit *best, const bool rebase,
                                                             skim_unit_winner *winner)
{
    sweep_call k;
    k.c = c;
    if (rebase)
        k.origin = (v3){ fw_set1(origin[0]), fw_set1(origin[1]), fw_set1(origin[2]) };
    k.delta = (v3){ fw_set1(delta[0]), fw_set1(delta[1]), fw_set1(delta[2]) };
    k.dd = v3_dot(k.delta, k.delta);
    k.t_max = fw_set1(best->t > 1.0f ? best->t : 1.0f);
    k.bound = fw_set1(best->t);
    /* In float: the box's own rounding (a few ulps of |D| t + 1) is far
       inside the cull's margin of 1e-3 + 1e-5 L^2 (see cull_pass), and the
       minima and maxima compile to branch-free instructions (this setup
       runs on every call, four or more a move). */
    float path_sq = 0.0f;
    for (int axis = 0; axis < 3; ++axis) {
        const float reach = delta[axis] * best->t;
        k.box_lo[axis] = fw_set1((reach < 0.0f ? reach : 0.0f) - 1.0f);
        k.box_hi[axis] = fw_set1((reach > 0.0f ? reach : 0.0f) + 1.0f);
        path_sq += reach * reach;
    }
    k.path_length = fw_set1(sqrtf(path_sq));
    k.cull = cull_back_faces;
    k.zero_found = best->hit && best->t == 0.0f;
    k.zero_triangle = best->triangle;
    const mw all = fw_lt(fw_iota(), fw_set1((float)SKIM_W));
    k.best = (slots){ .t = fw_set1(best->t), .triangle = u32_set1(best->triangle),
                      .lane = u32_set1(0), .feature = fw_set1(-1.0f),
                      .found = best->hit ? all : mw_none() };
    k.packed = 0;
    for (uint32_t base = 0; base < c->count; base += SKIM_W) {
        cull_pass(&k, base, rebase);
        if (k.packed > CHUNK - SKIM_W)
            flush(&k, false);
    }
    flush(&k, true);

    /* Reduce the slots: lowest (t, triangle, lane), whatever the width.
       Only slots a lane of this call won (lane != 0) are offered: a slot
       still holding the caller's hit (every slot, when the caller had
       one) has nothing new, and skipping it in one mask costs less than
       a branch per slot. */
    skim_simd_running run = skim_simd_running_start(best);
    const unsigned won = mw_bits(mw_and_not(k.best.found, u32_eq(k.best.lane, u32_set1(0))));
    if (won) {
        float t[SKIM_W], feature[SKIM_W];
        uint32_t triangle[SKIM_W], lane[SKIM_W];
        fw_store(t, k.best.t);
        fw_store(feature, k.best.feature);
        u32_store(triangle, k.best.triangle);
        u32_store(lane, k.best.lane);
        for (unsigned bits = won; bits; bits &= bits - 1) {
            const unsigned i = (unsigned)__builtin_ctz(bits);
            skim_simd_running_offer(&run, t[i], triangle[i], lane[i] - 1, (int)feature[i]);
        }
    }
    if (winner)
        skim_simd_defer(c, &run, best, winner);
    else
        skim_simd_finish(c, origin, delta, &run, best);
}

void SKIM_KERNEL_FROM(const skim_candidates *c, const float origin[3], const float delta[3],
                      bool cull_back_faces, skim_unit_hit *best)
{
    /* Subtracting +0 changes no bit, so an origin of +0s (a move's first
       iteration) takes the plain path; -0 does change a -0 coordinate.
       So the test is on the bit patterns: all three zero (one OR, where a
       compare and a sign test per axis would cost several a call). */
    uint32_t bits[3];
    memcpy(bits, origin, sizeof bits);
    if ((bits[0] | bits[1] | bits[2]) != 0)
        sweep_body(c, origin, delta, cull_back_faces, best, true, NULL);
    else
        sweep_body(c, origin, delta, cull_back_faces, best, false, NULL);
}

void SKIM_KERNEL(const skim_candidates *c, const float delta[3], bool cull_back_faces,
                 skim_unit_hit *best)
{
    static const float at_start[3] = { 0.0f, 0.0f, 0.0f };
    sweep_body(c, at_start, delta, cull_back_faces, best, false, NULL);
}

void SKIM_KERNEL_DEFERRED(const skim_candidates *c, const float delta[3], bool cull_back_faces,
                          skim_unit_hit *best, skim_unit_winner *winner)
{
    static const float at_start[3] = { 0.0f, 0.0f, 0.0f };
    sweep_body(c, at_start, delta, cull_back_faces, best, false, winner);
}
