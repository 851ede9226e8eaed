/* Proving a sweep meets nothing without a kernel call.

   Worth it only where such sweeps are the rule: a step attempt's climb
   (step_and_snap.c) goes straight up from where the mover stands, away
   from the floor under it and along the wall that blocked it, and almost
   never meets anything. Everywhere else most sweeps hit, and the test
   would cost nearly what the call it saves costs.

   A lane is clear when one of two exact facts, held with room for the
   rounding of the kernels and of this test, says the unit sphere moving
   from pos by delta never comes within 1 of its triangle:
   - its box is apart from the box around the swept sphere by more than
     the packet kernel's own cull margin (packet_passes.h, cull_pass): the
     kernels cull such a lane themselves;
   - its plane stays farther than 1 from the center over the whole path:
     the distance of the center from the plane is linear along the path,
     so its least value is at an end, and the reference (Rouwé, Swept
     Spheres and Ellipsoids, 3.1) reports nothing for a start clear of
     the plane that never reaches it within t_max. */
#include "move/move_internal.h"

#include <math.h>
#include <simde/x86/sse2.h>

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
    const float e1[3] = { v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2] };
    const float e2[3] = { v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2] };
    float n[3];
    mv_cross(n, e1, e2);
    const float nn = mv_dot(n, n), e1e1 = mv_dot(e1, e1), e2e2 = mv_dot(e2, e2);
    if (!(nn > 0.0f))
        return false;
    float closest[3];
    skim_move_closest_point_to_origin(v[0], v[1], v[2], closest);
    const float extent = sqrtf(mv_dot(v[0], v[0])) + sqrtf(e1e1) + sqrtf(e2e2) + path;
    const float allowance = 1e-6f * extent * (1.0f + sqrtf(e1e1 * e2e2 / nn));
    const float distance = sqrtf(mv_dot(closest, closest));
    const float approach = mv_max(mv_dot(closest, delta), 0.0f);
    return distance * distance - approach > (1.0f + clearance + allowance) * distance;
}

bool skim_move_sweep_proved_clear(const skim_move_ctx *ctx, const float pos[3],
                                  const float delta[3])
{
    const skim_candidates *g = &ctx->scratch->gathered;
    /* Beyond the kernels' rounding at a contact, as for a touching start
       (contacts.c): half a skin, which move.c keeps above that rounding. */
    const float clearance = 0.5f * ctx->skin;
    const float path = sqrtf(mv_dot(delta, delta));
    const simde__m128 sign = simde_mm_set1_ps(-0.0f);
    const simde__m128 reach = simde_mm_set1_ps(1.0f + clearance);
    const simde__m128 roundoff = simde_mm_set1_ps(1e-6f);
    const simde__m128 path_length = simde_mm_set1_ps(path);
    simde__m128 origin[3], box_lo[3], box_hi[3], d[3];
    for (int axis = 0; axis < 3; ++axis) {
        origin[axis] = simde_mm_set1_ps(pos[axis]);
        d[axis] = simde_mm_set1_ps(delta[axis]);
        box_lo[axis] = simde_mm_set1_ps(mv_min(delta[axis], 0.0f) - 1.0f);
        box_hi[axis] = simde_mm_set1_ps(mv_max(delta[axis], 0.0f) + 1.0f);
    }
    for (uint32_t base = 0; base < g->count; base += 4) {
        simde__m128 v[3][3];
        for (int corner = 0; corner < 3; ++corner)
            for (int axis = 0; axis < 3; ++axis)
                v[corner][axis] = simde_mm_sub_ps(
                    simde_mm_load_ps(g->vertex[corner][axis] + base), origin[axis]);
        /* The box: twice the packet kernel's cull margin, 1e-3 + 1e-5 L^2
           with L = sqrt(3) max|coordinate| + |delta|, so that this test's
           own rounding of the boxes cannot cull what the kernel keeps. */
        simde__m128 magnitude = simde_mm_setzero_ps(), lo[3], hi[3];
        for (int axis = 0; axis < 3; ++axis) {
            lo[axis] = simde_mm_min_ps(simde_mm_min_ps(v[0][axis], v[1][axis]), v[2][axis]);
            hi[axis] = simde_mm_max_ps(simde_mm_max_ps(v[0][axis], v[1][axis]), v[2][axis]);
            magnitude = simde_mm_max_ps(magnitude,
                                        simde_mm_max_ps(hi[axis], simde_mm_xor_ps(lo[axis], sign)));
        }
        const simde__m128 extent =
            simde_mm_add_ps(simde_mm_mul_ps(simde_mm_set1_ps(1.7320508f), magnitude), path_length);
        const simde__m128 margin = simde_mm_add_ps(
            simde_mm_set1_ps(2e-3f), simde_mm_mul_ps(simde_mm_set1_ps(2e-5f),
                                                     simde_mm_mul_ps(extent, extent)));
        simde__m128 clear = simde_mm_setzero_ps();
        for (int axis = 0; axis < 3; ++axis)
            clear = simde_mm_or_ps(
                clear,
                simde_mm_or_ps(simde_mm_cmpgt_ps(lo[axis], simde_mm_add_ps(box_hi[axis], margin)),
                               simde_mm_cmplt_ps(hi[axis], simde_mm_sub_ps(box_lo[axis], margin))));
        if (simde_mm_movemask_ps(clear) == 15)
            continue;
        /* The plane from corner 0, n = e1 x e2 unnormalised: the center's
           distance from it is |n . v0| / |n| at the start and changes by
           -+ (n . delta) / |n| along the path, + when moving to the side
           the center is on. Its rounding, and the kernels' from their own
           corner, is a few units of roundoff times the extent (v0, e1, e2,
           delta) times |e1| |e2| / |n| for a needle: the same allowance as
           a touching start's (contacts.c), with delta in the extent. */
        simde__m128 e1[3], e2[3], n[3];
        for (int axis = 0; axis < 3; ++axis) {
            e1[axis] = simde_mm_sub_ps(v[1][axis], v[0][axis]);
            e2[axis] = simde_mm_sub_ps(v[2][axis], v[0][axis]);
        }
        for (int axis = 0; axis < 3; ++axis) {
            const int i = (axis + 1) % 3, j = (axis + 2) % 3;
            n[axis] = simde_mm_sub_ps(simde_mm_mul_ps(e1[i], e2[j]), simde_mm_mul_ps(e1[j], e2[i]));
        }
        simde__m128 nn = simde_mm_setzero_ps(), e1e1 = nn, e2e2 = nn, v0v0 = nn, nv = nn, nd = nn;
        for (int axis = 0; axis < 3; ++axis) {
            nn = simde_mm_add_ps(nn, simde_mm_mul_ps(n[axis], n[axis]));
            e1e1 = simde_mm_add_ps(e1e1, simde_mm_mul_ps(e1[axis], e1[axis]));
            e2e2 = simde_mm_add_ps(e2e2, simde_mm_mul_ps(e2[axis], e2[axis]));
            v0v0 = simde_mm_add_ps(v0v0, simde_mm_mul_ps(v[0][axis], v[0][axis]));
            nv = simde_mm_add_ps(nv, simde_mm_mul_ps(n[axis], v[0][axis]));
            nd = simde_mm_add_ps(nd, simde_mm_mul_ps(n[axis], d[axis]));
        }
        const simde__m128 n_length = simde_mm_sqrt_ps(nn),
                          e1_length = simde_mm_sqrt_ps(e1e1), e2_length = simde_mm_sqrt_ps(e2e2);
        const simde__m128 size = simde_mm_add_ps(
            simde_mm_add_ps(simde_mm_sqrt_ps(v0v0), path_length),
            simde_mm_add_ps(e1_length, e2_length));
        const simde__m128 allowance =
            simde_mm_mul_ps(simde_mm_mul_ps(roundoff, size),
                            simde_mm_add_ps(n_length, simde_mm_mul_ps(e1_length, e2_length)));
        /* The center is on the side of -nv: moving away from the plane is
           n . delta with the sign of -nv; only an approach (negative) counts. */
        const simde__m128 away = simde_mm_xor_ps(simde_mm_xor_ps(nd, sign),
                                                 simde_mm_and_ps(sign, nv));
        const simde__m128 least = simde_mm_add_ps(simde_mm_andnot_ps(sign, nv),
                                                  simde_mm_min_ps(away, simde_mm_setzero_ps()));
        /* NaN-free for real lanes (world triangles are not degenerate); a
           NaN compares false and leaves the lane in doubt. */
        clear = simde_mm_or_ps(
            clear, simde_mm_cmpgt_ps(least, simde_mm_add_ps(simde_mm_mul_ps(reach, n_length),
                                                            allowance)));
        unsigned doubtful = (unsigned)simde_mm_movemask_ps(clear) ^ 15u;
        /* Lanes past count are padding, which the kernels never test. */
        if (g->count - base < 4)
            doubtful &= (1u << (g->count - base)) - 1u;
        for (; doubtful; doubtful &= doubtful - 1) {
            const uint32_t lane = base + (uint32_t)__builtin_ctz(doubtful);
            if (!lane_clear(g, lane, pos, delta, path, clearance))
                return false;
        }
    }
    return true;
}
