/* Proving a sweep meets nothing without a kernel call.

   Worth it only where such sweeps are the rule: a step attempt's climb
   (step_and_snap.c) goes straight up from where the mover stands, away
   from the floor under it and along the wall that blocked it, and almost
   never meets anything. Everywhere else most sweeps hit, and the test
   would cost nearly what the call it saves costs.

   A lane is clear when one of three exact facts, held with room for the
   rounding of the kernels and of this test, says the unit sphere moving
   from pos by delta never comes within 1 of its triangle:
   - its box is apart from the box around the swept sphere by more than
     the packet kernel's own cull margin (packet_passes.h, cull_pass): the
     kernels cull such a lane themselves;
   - its plane stays farther than 1 from the center over the whole path:
     the distance of the center from the plane is linear along the path,
     so its least value is at an end, and the reference (Rouwé, Swept
     Spheres and Ellipsoids, 3.1) reports nothing for a start clear of
     the plane that never reaches it within t_max;
   - its distance from the path's start, less the most the path can
     approach it (lane_clear below), stays above 1. */
#include "move/move_internal.h"

#include <math.h>
#if defined(SKIM_SWEEP_CLEAR_AVX2)
#include <simde/x86/avx.h>
/* Eight lanes a step (this file compiled a second time with -mavx2,
   src/move/meson.build), picked when the kernel set has eight lanes or
   more: the same facts, each proved the same way, at half the steps. */
enum { W = 8, ALL = 255 };
typedef simde__m256 vf;
#define vf_set1 simde_mm256_set1_ps
#define vf_zero simde_mm256_setzero_ps
#define vf_sub simde_mm256_sub_ps
#define vf_add simde_mm256_add_ps
#define vf_mul simde_mm256_mul_ps
#define vf_min simde_mm256_min_ps
#define vf_max simde_mm256_max_ps
#define vf_xor simde_mm256_xor_ps
#define vf_and simde_mm256_and_ps
#define vf_andnot simde_mm256_andnot_ps
#define vf_or simde_mm256_or_ps
#define vf_gt(a, b) simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ)
#define vf_lt(a, b) simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ)
#define vf_sqrt simde_mm256_sqrt_ps
#define vf_mask simde_mm256_movemask_ps
#define vf_load simde_mm256_loadu_ps
#define PROVED_CLEAR skim_move_sweep_proved_clear_avx2
#define PROVED_CLEAR_LINKAGE
#else
#include <simde/x86/sse2.h>
enum { W = 4, ALL = 15 };
typedef simde__m128 vf;
#define vf_set1 simde_mm_set1_ps
#define vf_zero simde_mm_setzero_ps
#define vf_sub simde_mm_sub_ps
#define vf_add simde_mm_add_ps
#define vf_mul simde_mm_mul_ps
#define vf_min simde_mm_min_ps
#define vf_max simde_mm_max_ps
#define vf_xor simde_mm_xor_ps
#define vf_and simde_mm_and_ps
#define vf_andnot simde_mm_andnot_ps
#define vf_or simde_mm_or_ps
#define vf_gt simde_mm_cmpgt_ps
#define vf_lt simde_mm_cmplt_ps
#define vf_sqrt simde_mm_sqrt_ps
#define vf_mask simde_mm_movemask_ps
#define vf_load simde_mm_load_ps
#define PROVED_CLEAR proved_clear_narrow
#define PROVED_CLEAR_LINKAGE static
#endif

/* The third fact, for a lane in doubt after the other two (a floor
   triangle beside the one under the mover, whose plane passes within 1 of
   the center): the center's distance f(t) to the triangle is convex in t
   (the distance to a convex set along a line), so f(t) >= f(0) + t f'(0)
   with f'(0) = -(q . delta) / |q| for the triangle's closest point q to
   the start. Clear when that bound stays above 1 over [0, 1]. The
   allowance is a touching start's (contacts.c, clear_of_sphere) with the
   path in the extent. */
static bool lane_clear(const skim_candidates *g, uint32_t lane, const float pos[3],
                       const float delta[3], float path, float clearance)
{
    float v[3][3];
    for (int corner = 0; corner < 3; ++corner)
        for (int axis = 0; axis < 3; ++axis)
            v[corner][axis] = g->vertex[corner][axis][lane] - pos[axis];
    float closest[3], allowance;
    if (!skim_move_closest_with_allowance((const float(*)[3])v, path, closest, &allowance))
        return false;
    const float distance = sqrtf(mv_dot(closest, closest));
    const float approach = mv_max(mv_dot(closest, delta), 0.0f);
    return distance * distance - approach > (1.0f + clearance + allowance) * distance;
}

PROVED_CLEAR_LINKAGE bool PROVED_CLEAR(const skim_move_ctx *ctx, const float pos[3],
                                        const float delta[3])
{
    const skim_candidates *g = &ctx->scratch->gathered;
    /* Beyond the kernels' rounding at a contact, as for a touching start
       (contacts.c): half a skin, which move.c keeps above that rounding. */
    const float clearance = 0.5f * ctx->skin;
    const float path = sqrtf(mv_dot(delta, delta));
    const vf sign = vf_set1(-0.0f);
    const vf reach = vf_set1(1.0f + clearance);
    const vf roundoff = vf_set1(1e-6f);
    const vf path_length = vf_set1(path);
    vf origin[3], box_lo[3], box_hi[3], d[3];
    for (int axis = 0; axis < 3; ++axis) {
        origin[axis] = vf_set1(pos[axis]);
        d[axis] = vf_set1(delta[axis]);
        box_lo[axis] = vf_set1(mv_min(delta[axis], 0.0f) - 1.0f);
        box_hi[axis] = vf_set1(mv_max(delta[axis], 0.0f) + 1.0f);
    }
    for (uint32_t base = 0; base < g->count; base += W) {
        vf v[3][3];
        for (int corner = 0; corner < 3; ++corner)
            for (int axis = 0; axis < 3; ++axis)
                v[corner][axis] = vf_sub(vf_load(g->vertex[corner][axis] + base), origin[axis]);
        /* The box: twice the packet kernel's cull margin, 1e-3 + 1e-5 L^2
           with L = sqrt(3) max|coordinate| + |delta|, so that this test's
           own rounding of the boxes cannot cull what the kernel keeps. */
        vf magnitude = vf_zero(), lo[3], hi[3];
        for (int axis = 0; axis < 3; ++axis) {
            lo[axis] = vf_min(vf_min(v[0][axis], v[1][axis]), v[2][axis]);
            hi[axis] = vf_max(vf_max(v[0][axis], v[1][axis]), v[2][axis]);
            magnitude = vf_max(magnitude, vf_max(hi[axis], vf_xor(lo[axis], sign)));
        }
        const vf extent = vf_add(vf_mul(vf_set1(1.7320508f), magnitude), path_length);
        const vf margin =
            vf_add(vf_set1(2e-3f), vf_mul(vf_set1(2e-5f), vf_mul(extent, extent)));
        vf clear = vf_zero();
        for (int axis = 0; axis < 3; ++axis)
            clear = vf_or(clear, vf_or(vf_gt(lo[axis], vf_add(box_hi[axis], margin)),
                                       vf_lt(hi[axis], vf_sub(box_lo[axis], margin))));
        if (vf_mask(clear) == ALL)
            continue;
        /* The plane from corner 0, n = e1 x e2 unnormalised: the center's
           distance from it is |n . v0| / |n| at the start and changes by
           -+ (n . delta) / |n| along the path, + when moving to the side
           the center is on. Its rounding, and the kernels' from their own
           corner, is a few units of roundoff times the extent (v0, e1, e2,
           delta) times |e1| |e2| / |n| for a needle: the same allowance as
           a touching start's (contacts.c), with delta in the extent. */
        vf e1[3], e2[3], n[3];
        for (int axis = 0; axis < 3; ++axis) {
            e1[axis] = vf_sub(v[1][axis], v[0][axis]);
            e2[axis] = vf_sub(v[2][axis], v[0][axis]);
        }
        for (int axis = 0; axis < 3; ++axis) {
            const int i = (axis + 1) % 3, j = (axis + 2) % 3;
            n[axis] = vf_sub(vf_mul(e1[i], e2[j]), vf_mul(e1[j], e2[i]));
        }
        vf nn = vf_zero(), e1e1 = nn, e2e2 = nn, v0v0 = nn, nv = nn, nd = nn;
        for (int axis = 0; axis < 3; ++axis) {
            nn = vf_add(nn, vf_mul(n[axis], n[axis]));
            e1e1 = vf_add(e1e1, vf_mul(e1[axis], e1[axis]));
            e2e2 = vf_add(e2e2, vf_mul(e2[axis], e2[axis]));
            v0v0 = vf_add(v0v0, vf_mul(v[0][axis], v[0][axis]));
            nv = vf_add(nv, vf_mul(n[axis], v[0][axis]));
            nd = vf_add(nd, vf_mul(n[axis], d[axis]));
        }
        const vf n_length = vf_sqrt(nn), e1_length = vf_sqrt(e1e1), e2_length = vf_sqrt(e2e2);
        const vf size =
            vf_add(vf_add(vf_sqrt(v0v0), path_length), vf_add(e1_length, e2_length));
        const vf allowance =
            vf_mul(vf_mul(roundoff, size), vf_add(n_length, vf_mul(e1_length, e2_length)));
        /* The center is on the side of -nv: moving away from the plane is
           n . delta with the sign of -nv; only an approach (negative) counts. */
        const vf away = vf_xor(vf_xor(nd, sign), vf_and(sign, nv));
        const vf least = vf_add(vf_andnot(sign, nv), vf_min(away, vf_zero()));
        /* NaN-free for real lanes (world triangles are not degenerate); a
           NaN compares false and leaves the lane in doubt. */
        clear = vf_or(clear, vf_gt(least, vf_add(vf_mul(reach, n_length), allowance)));
        unsigned doubtful = (unsigned)vf_mask(clear) ^ (unsigned)ALL;
        /* Lanes past count are padding, which the kernels never test. */
        if (g->count - base < W)
            doubtful &= (1u << (g->count - base)) - 1u;
        for (; doubtful; doubtful &= doubtful - 1) {
            const uint32_t lane = base + (uint32_t)__builtin_ctz(doubtful);
            if (!lane_clear(g, lane, pos, delta, path, clearance))
                return false;
        }
    }
    return true;
}

#if !defined(SKIM_SWEEP_CLEAR_AVX2)
bool skim_move_sweep_proved_clear(const skim_move_ctx *ctx, const float pos[3],
                                  const float delta[3])
{
#if defined(SKIM_MOVE_HAVE_AVX2_PACK)
    if (ctx->kernels && ctx->kernels->width >= 8)
        return skim_move_sweep_proved_clear_avx2(ctx, pos, delta);
#endif
    return proved_clear_narrow(ctx, pos, delta);
}
#endif
