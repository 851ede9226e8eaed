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
   call, for the winner, by skim_simd_finish(). */
#include "kernel/lanes.h"
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

typedef struct v3 {
    fw x, y, z;
} v3;

static inline v3 v3_load(const skim_candidates *c, int vertex, uint32_t base)
{
    return (v3){ fw_load(c->vertex[vertex][0] + base), fw_load(c->vertex[vertex][1] + base),
                 fw_load(c->vertex[vertex][2] + base) };
}

/* Stores the bit patterns of v as unsigned integers. */
static inline void u32_store(uint32_t *p, fw v)
{
    float bits[SKIM_W];
    fw_store(bits, v);
    memcpy(p, bits, sizeof bits);
}

static inline fw v3_axis(v3 a, int axis)
{
    return axis == 0 ? a.x : axis == 1 ? a.y : a.z;
}

static inline v3 v3_add(v3 a, v3 b)
{
    return (v3){ fw_add(a.x, b.x), fw_add(a.y, b.y), fw_add(a.z, b.z) };
}

static inline v3 v3_sub(v3 a, v3 b)
{
    return (v3){ fw_sub(a.x, b.x), fw_sub(a.y, b.y), fw_sub(a.z, b.z) };
}

/* s * a, component by component (the reference writes s * v[k]). */
static inline v3 v3_scale(fw s, v3 a)
{
    return (v3){ fw_mul(s, a.x), fw_mul(s, a.y), fw_mul(s, a.z) };
}

/* (a.x b.x + a.y b.y) + a.z b.z: the reference's dot3, left to right. */
static inline fw v3_dot(v3 a, v3 b)
{
    return fw_add(fw_add(fw_mul(a.x, b.x), fw_mul(a.y, b.y)), fw_mul(a.z, b.z));
}

static inline v3 v3_cross(v3 a, v3 b)
{
    return (v3){ fw_sub(fw_mul(a.y, b.z), fw_mul(a.z, b.y)),
                 fw_sub(fw_mul(a.z, b.x), fw_mul(a.x, b.z)),
                 fw_sub(fw_mul(a.x, b.y), fw_mul(a.y, b.x)) };
}

static inline v3 v3_select(mw m, v3 a, v3 b)
{
    return (v3){ fw_select(m, a.x, b.x), fw_select(m, a.y, b.y), fw_select(m, a.z, b.z) };
}

/* Rouwé 3.3's PolygonContains in 3D: p (on the plane) is inside when it is
   on the inner side of every counter-clockwise edge, (v2 - v1) x (p - v1)
   along the front normal n. A lane is outside as soon as one edge says
   dot < 0, so NaN counts as inside, as in the reference's early return. */
static inline mw triangle_contains(const v3 vertex[3], v3 n, v3 p, mw lanes)
{
    const fw zero = fw_set1(0.0f);
    mw outside = mw_none();
    for (int i = 0; i < 3; ++i) {
        v3 side = v3_cross(v3_sub(vertex[(i + 1) % 3], vertex[i]), v3_sub(p, vertex[i]));
        outside = mw_or(outside, fw_lt(v3_dot(side, n), zero));
    }
    return mw_and_not(lanes, outside);
}

/* Touching at the start (Nettle's "embedded" case; Rouwé 3.3 at t = 0 in
   3D): the closest point of the triangle to the origin is the centre's
   projection if inside, else the nearest point of the three edges; the
   lanes in `near` whose closest point is within 1 touch. The point itself
   is recomputed for the winner by skim_simd_finish(). */
static inline mw starts_touching(const v3 vertex[3], v3 n, fw start_distance, mw near)
{
    const fw zero = fw_set1(0.0f), one = fw_set1(1.0f);
    const v3 projection = v3_scale(fw_neg(start_distance), n);
    const mw inside = triangle_contains(vertex, n, projection, near);
    v3 closest = projection;
    if (mw_any(mw_and_not(near, inside))) {
        /* The reference keeps the first edge with a strictly smaller
           squared distance, starting from infinity. */
        const fw infinity = fw_set1(__builtin_inff());
        fw best_sq = infinity;
        v3 best = { infinity, infinity, infinity };
        for (int i = 0; i < 3; ++i) {
            const v3 v1 = vertex[i];
            const v3 edge = v3_sub(vertex[(i + 1) % 3], v1);
            const fw length_sq = v3_dot(edge, edge);
            fw f = fw_select(fw_gt(length_sq, zero), fw_div(fw_neg(v3_dot(v1, edge)), length_sq),
                             zero);
            f = fw_select(fw_lt(f, zero), zero, fw_select(fw_gt(f, one), one, f));
            const v3 candidate = v3_add(v1, v3_scale(f, edge));
            const fw distance_sq = v3_dot(candidate, candidate);
            const mw closer = fw_lt(distance_sq, best_sq);
            best_sq = fw_select(closer, distance_sq, best_sq);
            best = v3_select(closer, candidate, best);
        }
        closest = v3_select(inside, projection, best);
    }
    return mw_and(near, fw_le(v3_dot(closest, closest), one));
}

/* Rouwé 3.6, FindLowestRootInInterval with the stable form of the
   reference: for c >= 0 and approach = -b/2 > 0 the lower root is
   c / (approach + sqrt(b^2/4 - ac)), the quarter discriminant given by the
   caller in the reference's non-cancelling form. Returns the lanes with a
   root t >= 0 (the caller applies the upper bound). No packet-wide early
   out: six of these run per packet, and a branch on "no lane has a root"
   was mispredicted about one time in five, costing more than the square
   root and division it skipped (lanes without a root compute NaN or inf
   and are masked off). */
static inline mw lowest_root(fw approach, fw c, fw quarter_discriminant, mw lanes, fw *t)
{
    const fw zero = fw_set1(0.0f);
    mw ok = mw_and_not(mw_and_not(lanes, fw_le(approach, zero)), fw_lt(c, zero));
    ok = mw_and_not(ok, fw_lt(quarter_discriminant, zero));
    *t = fw_div(c, fw_add(approach, fw_sqrt(quarter_discriminant)));
    return mw_and(ok, fw_ge(*t, zero));
}

/* One feature's candidate root per lane: valid where ok. */
typedef struct root {
    fw t;
    mw ok;
    fw feature; /* SKIM_FEATURE_* */
} root;

/* The reference keeps the first feature in the order vertices a, b, c,
   edges ab, bc, ca whose root is at most the bound, and replaces it only
   with a strictly smaller one: that is the lowest (t, feature order). As a
   lexicographic minimum it can be taken as a tree (earlier wins ties), so
   the six roots are computed independently and combined in three steps
   instead of a chain of six. */
static inline root earliest(root first, root second)
{
    const mw keep_first = mw_and(first.ok, mw_or(mw_and_not(first.ok, second.ok),
                                                 fw_le(first.t, second.t)));
    return (root){ fw_select(keep_first, first.t, second.t), mw_or(first.ok, second.ok),
                   fw_select(keep_first, first.feature, second.feature) };
}

/* Rouwé 3.4 and 3.5 in 3D on the lanes in `lanes`: the swept sphere against
   the three vertices, |v - tD|^2 = 1, then the three edges' infinite lines
   with the contact required on the segment; roots above t_max do not count.
   Returns the lowest root per lane, ok where there is one. */
static inline root vertices_and_edges(const v3 vertex[3], v3 delta, fw dd, fw t_max, mw lanes)
{
    const fw zero = fw_set1(0.0f), one = fw_set1(1.0f);
    root roots[6];
    /* The quadratics in the reference's forms, rewritten with Lagrange's
       identity so that nothing cancels but the grazing itself (see the
       reference's comments on Rouwé 3.4 and 3.5). */
    for (int i = 0; i < 3; ++i) {
        const v3 dxv = v3_cross(delta, vertex[i]);
        fw t = zero;
        const mw ok = lowest_root(v3_dot(delta, vertex[i]),
                                  fw_sub(v3_dot(vertex[i], vertex[i]), one),
                                  fw_sub(dd, v3_dot(dxv, dxv)), lanes, &t);
        roots[i] = (root){ t, mw_and(ok, fw_le(t, t_max)),
                           fw_set1((float)(SKIM_FEATURE_VERTEX + i)) };
    }
    for (int i = 0; i < 3; ++i) {
        const v3 v1 = vertex[i];
        const v3 e = v3_sub(vertex[(i + 1) % 3], v1);
        const v3 exd = v3_cross(e, delta), exv = v3_cross(e, v1);
        const fw ee = v3_dot(e, e), ed = v3_dot(e, delta), ev = v3_dot(e, v1);
        const fw triple = v3_dot(exd, v1);
        const fw quarter_discriminant =
            fw_mul(ee, fw_sub(v3_dot(exd, exd), fw_mul(triple, triple)));
        fw t = zero;
        mw ok = lowest_root(v3_dot(exv, exd), fw_sub(v3_dot(exv, exv), ee), quarter_discriminant,
                            lanes, &t);
        /* On the segment: f |e|^2 = t (e . D) - e . v1 in [0, |e|^2]. */
        const fw f = fw_sub(fw_mul(t, ed), ev);
        ok = mw_and(ok, mw_and(mw_and(fw_ge(f, zero), fw_le(f, ee)), fw_le(t, t_max)));
        roots[3 + i] = (root){ t, ok, fw_set1((float)(SKIM_FEATURE_EDGE + i)) };
    }
    return earliest(earliest(earliest(roots[0], roots[1]), earliest(roots[2], roots[3])),
                    earliest(roots[4], roots[5]));
}

/* ---- the packed candidates ---- */
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
       compare and a sign test per axis cost ~25 instructions a call). */
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
