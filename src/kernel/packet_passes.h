/* The packet kernel's two passes over a call's candidates, W lanes at a
   time: the cull against the swept sphere's box, which packs the survivors
   into a small buffer (lane compaction), and the tests on full packets of
   survivors, which keep the best hit each lane slot has seen.

   Part of packet_kernel.c's translation unit, which includes it once per
   kernel set after packet_features.h; not a header of its own. */
#ifndef SKIM_PACKET_PASSES_H
#define SKIM_PACKET_PASSES_H

#include "kernel/packet_features.h"

enum { CHUNK = 128 }; /* candidates packed before the tests run on them */
enum {
    P_VERTEX = 0,    /* 9 arrays: vertex v, axis k at P_VERTEX + 3 v + k */
    P_TRIANGLE = 9,  /* bit patterns */
    P_LANE = 10,     /* bit patterns: lane + 1 */
    P_ARRAYS = 11
};

/* The best hit each lane slot has seen: t, triangle, lane + 1 (0 = the
   caller's hit) and feature; found says the slot holds one. */
typedef struct slots {
    fw t, triangle, lane, feature;
    mw found;
} slots;

typedef struct sweep_call {
    const skim_candidates *c;
    /* The sweep's start relative to the candidates' (skim_sweep_candidates_
       from_fn): with rebase, every loaded lane becomes v - origin. */
    v3 origin;
    v3 delta;
    /* t_max: the plane interval's bound (Rouwé 3.1), max(1, caller's t).
       Not the caller's t itself: a lane's answer must not depend on the
       bound its call happened to get, or splitting the candidates over
       several calls (front-to-back traversal, slide iterations) could
       change the result where a vertex or edge root rounds below t1
       (see test_simd_equivalence.c). Roots above the caller's t lose in
       the slots anyway. */
    fw dd, t_max, bound; /* bound: the caller's t */
    /* The box around everything the swept sphere covers up to the caller's
       t, and the path's length (see cull_pass). */
    fw box_lo[3], box_hi[3], path_length;
    bool cull;
    /* A hit at t = 0 is known (the caller's or a touching lane): lanes with
       a higher triangle index cannot win any more, as no t is below 0. */
    bool zero_found;
    uint32_t zero_triangle;
    slots best;
    uint32_t packed;
    float pack[P_ARRAYS][CHUNK + SKIM_W];
} sweep_call;

/* A packet of candidates: triangles, their indices, which lanes are real. */
typedef struct lanes_in {
    v3 vertex[3];
    fw triangle, lane;
    mw live;
} lanes_in;

static inline __attribute__((always_inline)) void test_pass(sweep_call *k, const lanes_in *w);

/* Pass 1 on candidates [base, base + W): the cull. A packet whose lanes all
   survive is tested as it is; otherwise the survivors are packed. */
static inline __attribute__((always_inline)) void cull_pass(sweep_call *k, uint32_t base,
                                                            const bool rebase)
{
    const fw zero = fw_set1(0.0f);
    const skim_candidates *c = k->c;
    /* Lanes at or past count are padding: masked off by index. */
    const uint32_t remaining = c->count - base;
    mw live = fw_lt(fw_iota(), fw_set1(remaining < SKIM_W ? (float)remaining : (float)SKIM_W));
    lanes_in w;
    w.triangle = u32_load(c->triangle + base);
    if (k->zero_found) {
        live = mw_and_not(live, u32_lt(u32_set1(k->zero_triangle), w.triangle));
        if (!mw_any(live))
            return;
    }
    for (int v = 0; v < 3; ++v) {
        w.vertex[v] = v3_load(c, v, base);
        if (rebase)
            w.vertex[v] = v3_sub(w.vertex[v], k->origin);
    }

    /* A triangle whose bounding box is clear of the swept sphere's box
       cannot be met, and most candidates of a move are (its one gather
       covers all its slides, steps and gravity). Exact arithmetic would
       allow no margin; the reference computes in float, and near a contact
       its quantities (plane distance, closest point, the quadratics'
       coefficients, sums of products of coordinates of size at most
       L = sqrt(3) max|coordinate| + |D| t) are off by a few units of
       roundoff times L^2 at most. A triangle more than 1e-3 + 1e-5 L^2
       clear, over a hundred times that, is not reported at or before t by
       the reference either, so skipping it changes no result. */
    fw lo[3], hi[3], magnitude = zero;
    for (int axis = 0; axis < 3; ++axis) {
        const fw p = v3_axis(w.vertex[0], axis), q = v3_axis(w.vertex[1], axis),
                 r = v3_axis(w.vertex[2], axis);
        lo[axis] = fw_min(fw_min(p, q), r);
        hi[axis] = fw_max(fw_max(p, q), r);
        magnitude = fw_max(magnitude, fw_max(hi[axis], fw_neg(lo[axis])));
    }
    const fw reach = fw_add(fw_mul(fw_set1(1.7320508f), magnitude), k->path_length);
    const fw margin = fw_add(fw_set1(1e-3f), fw_mul(fw_set1(1e-5f), fw_mul(reach, reach)));
    mw apart = mw_none();
    for (int axis = 0; axis < 3; ++axis)
        apart = mw_or(apart, mw_or(fw_gt(lo[axis], fw_add(k->box_hi[axis], margin)),
                                   fw_lt(hi[axis], fw_sub(k->box_lo[axis], margin))));
    w.live = mw_and_not(live, apart);
    const unsigned survivors = mw_count(w.live);
    if (survivors == 0)
        return;
    w.lane = u32_lane_ids(base + 1);
    /* Nothing to gain from packing a full packet, or the last one when
       nothing waits in the buffer (a call of one packet). */
    if (survivors == SKIM_W || (k->packed == 0 && remaining <= SKIM_W)) {
        test_pass(k, &w);
        return;
    }
    const ck key = ck_make(w.live);
    const uint32_t at = k->packed;
    for (int v = 0; v < 3; ++v) {
        fw_compress(k->pack[P_VERTEX + 3 * v + 0] + at, key, w.vertex[v].x);
        fw_compress(k->pack[P_VERTEX + 3 * v + 1] + at, key, w.vertex[v].y);
        fw_compress(k->pack[P_VERTEX + 3 * v + 2] + at, key, w.vertex[v].z);
    }
    fw_compress(k->pack[P_TRIANGLE] + at, key, w.triangle);
    fw_compress(k->pack[P_LANE] + at, key, w.lane);
    k->packed = at + survivors;
}

/* Pass 2 on a packet of candidates: Rouwé's tests and the slots' update. */
static inline __attribute__((always_inline)) void test_pass(sweep_call *k, const lanes_in *w)
{
    const fw zero = fw_set1(0.0f), one = fw_set1(1.0f);
    const v3 *vertex = w->vertex;

    /* Rouwé 2: the plane N . P + C_p = 0, front normal
       (v[k+1] - v[k]) x (v[k+2] - v[k]) normalised at the corner k opposite
       the longest edge (the reference's plane_corner: the two shortest
       edges keep the cross product well conditioned on needles), and the
       start's signed distance -N . v[k]. */
    const fw ab_sq = v3_dot(v3_sub(vertex[1], vertex[0]), v3_sub(vertex[1], vertex[0]));
    const fw bc_sq = v3_dot(v3_sub(vertex[2], vertex[1]), v3_sub(vertex[2], vertex[1]));
    const fw ca_sq = v3_dot(v3_sub(vertex[0], vertex[2]), v3_sub(vertex[0], vertex[2]));
    const mw at_c = mw_and(fw_ge(ab_sq, bc_sq), fw_ge(ab_sq, ca_sq));
    const mw at_a = mw_and_not(fw_ge(bc_sq, ca_sq), at_c);
    /* corner, next, after: v[k], v[k+1], v[k+2] for k = 2 (at_c), 0 (at_a), else 1. */
    const v3 corner = v3_select(at_c, vertex[2], v3_select(at_a, vertex[0], vertex[1]));
    const v3 next = v3_select(at_c, vertex[0], v3_select(at_a, vertex[1], vertex[2]));
    const v3 after = v3_select(at_c, vertex[1], v3_select(at_a, vertex[2], vertex[0]));
    v3 n = v3_cross(v3_sub(next, corner), v3_sub(after, corner));
    const fw n_length = fw_sqrt(v3_dot(n, n));
    mw valid = mw_and(w->live, fw_gt(n_length, zero));
    n = (v3){ fw_div(n.x, n_length), fw_div(n.y, n_length), fw_div(n.z, n_length) };
    const fw start_distance = fw_neg(v3_dot(n, corner));
    const mw behind = fw_lt(start_distance, zero);
    if (k->cull)
        valid = mw_and_not(valid, behind);
    if (!mw_any(valid))
        return;
    /* Two-sided: the plane turned toward the start. */
    const fw side = fw_select(behind, fw_set1(-1.0f), one);
    const v3 plane_normal = v3_scale(side, n);
    const fw distance = fw_mul(side, start_distance);
    const mw near = mw_and(valid, fw_le(distance, one));
    const mw far = mw_and(valid, fw_gt(distance, one));

    const mw touch = mw_any(near) ? starts_touching(vertex, n, start_distance, near)
                                  : mw_none();

    /* Rouwé 3.1: a start clear of the plane first touches it at
       t1 = (distance - 1) / -(N . D), if approaching and t1 <= t_max;
       3.3 at t1: the face is hit when the touching point C(t1) - N is
       inside. */
    const fw n_dot_d = v3_dot(plane_normal, k->delta);
    const mw approaching = mw_and(far, fw_lt(n_dot_d, zero));
    fw t1 = zero;
    mw in_range = mw_none(), face = mw_none();
    if (mw_any(approaching)) {
        t1 = fw_div(fw_sub(distance, one), fw_neg(n_dot_d));
        in_range = mw_and(approaching, fw_le(t1, k->t_max));
        if (mw_any(in_range)) {
            const v3 touching_point = v3_sub(v3_scale(t1, k->delta), plane_normal);
            face = triangle_contains(vertex, n, touching_point, in_range);
        }
    }

    /* The quadratics run where the reference gets to them: not touching,
       and either not clear of the plane or clear but reaching it in range
       with the face missed. A root above the caller's t loses in the slots
       below. */
    const mw face_missed = mw_and_not(in_range, face);
    const mw quadratic = mw_and_not(mw_and_not(valid, mw_and_not(far, face_missed)), touch);
    root quad = { .t = zero, .ok = mw_none(), .feature = zero };
    if (mw_any(quadratic))
        quad = vertices_and_edges(vertex, k->delta, k->dd, k->t_max, quadratic);

    const mw hit = mw_or(touch, mw_or(face, quad.ok));
    if (!mw_any(hit))
        return;
    const fw t = fw_select(touch, zero, fw_select(face, t1, quad.t));
    const fw feature = fw_select(touch, fw_set1((float)SKIM_FEATURE_TOUCH),
                                 fw_select(face, fw_set1((float)SKIM_FEATURE_FACE), quad.feature));
    /* Lowest (t, triangle, lane) per slot: the order lanes arrive in does
       not matter. A first hit in a slot must be within the caller's bound,
       as in the reference. */
    slots *b = &k->best;
    const mw tie = mw_and(fw_eq(t, b->t), mw_or(u32_lt(w->triangle, b->triangle),
                                                 mw_and(u32_eq(w->triangle, b->triangle),
                                                        u32_lt(w->lane, b->lane))));
    const mw first = mw_and_not(fw_le(t, k->bound), b->found);
    const mw better = mw_and(hit, mw_or(first, mw_or(fw_lt(t, b->t), tie)));
    b->t = fw_select(better, t, b->t);
    b->triangle = fw_select(better, w->triangle, b->triangle);
    b->lane = fw_select(better, w->lane, b->lane);
    b->feature = fw_select(better, feature, b->feature);
    b->found = mw_or(b->found, better);
    if (mw_any(touch)) {
        uint32_t triangles[SKIM_W];
        u32_store(triangles, w->triangle);
        for (unsigned bits = mw_bits(touch); bits; bits &= bits - 1) {
            const uint32_t tri = triangles[__builtin_ctz(bits)];
            if (!k->zero_found || tri < k->zero_triangle)
                k->zero_triangle = tri;
            k->zero_found = true;
        }
    }
}

/* Pass 2 on packed candidates [at, at + W) (those past count are dead). */
static inline void packed_pass(sweep_call *k, uint32_t at, uint32_t count)
{
    const uint32_t remaining = count - at;
    lanes_in w;
    w.live = fw_lt(fw_iota(), fw_set1(remaining < SKIM_W ? (float)remaining : (float)SKIM_W));
    for (int v = 0; v < 3; ++v)
        w.vertex[v] = (v3){ fw_load(k->pack[P_VERTEX + 3 * v + 0] + at),
                            fw_load(k->pack[P_VERTEX + 3 * v + 1] + at),
                            fw_load(k->pack[P_VERTEX + 3 * v + 2] + at) };
    w.triangle = fw_load(k->pack[P_TRIANGLE] + at);
    w.lane = fw_load(k->pack[P_LANE] + at);
    test_pass(k, &w);
}

/* Runs pass 2 on the packed candidates: all of them at the end, else only
   whole packets, keeping the rest (fewer than W) for the next round. */
static void flush(sweep_call *k, bool final)
{
    const uint32_t count = k->packed;
    const uint32_t whole = final ? count : count / SKIM_W * SKIM_W;
    if (final && count % SKIM_W) /* dead lanes read zeros, not stale bits */
        for (int a = 0; a < P_ARRAYS; ++a)
            fw_store(k->pack[a] + count, fw_set1(0.0f));
    for (uint32_t at = 0; at < whole; at += SKIM_W)
        packed_pass(k, at, count);
    if (!final && whole < count)
        for (int a = 0; a < P_ARRAYS; ++a)
            fw_store(k->pack[a], fw_load(k->pack[a] + whole));
    k->packed = count - whole;
}

#endif /* SKIM_PACKET_PASSES_H */
