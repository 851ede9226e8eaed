/* The packet kernel: a unit sphere swept from the origin by delta against
   SKIM_W candidate triangles at once, after Jorrit Rouwé, "Collision
   Detection with Swept Spheres and Ellipsoids" (seed 001), in its 3D form
   (section 5). This file is compiled once per kernel set (see meson.build)
   with SKIM_LANES choosing the lane type of lanes.h and SKIM_SET naming the
   set; the source is the same for every width.

   It computes what src/scalar/sweep_sphere_triangle.c computes, with the
   same IEEE operations in the same order, but branch-free: every test runs
   on all lanes under a mask, and the reference's early returns become
   masks that say which result a lane keeps. The only branches are
   packet-wide early outs (a stage no lane needs is skipped), which change
   no lane's result.

   Per lane the kernel produces only t and which feature gave it; the
   contact point and normal (one more square root and three divisions) are
   computed once per call, for the winning lane, by skim_simd_finish(). */
#include "lanes.h"
#include "simd_kernels.h"

#ifndef SKIM_SET
#error "SKIM_SET must name the kernel set"
#endif
#define SKIM_CAT_(a, b) a##b
#define SKIM_CAT(a, b) SKIM_CAT_(a, b)
#define SKIM_KERNEL SKIM_CAT(skim_simd_sweep_, SKIM_SET)

typedef struct v3 {
    fw x, y, z;
} v3;

static inline v3 v3_load(const skim_candidates *c, int vertex, uint32_t base)
{
    return (v3){ fw_load(c->vertex[vertex][0] + base), fw_load(c->vertex[vertex][1] + base),
                 fw_load(c->vertex[vertex][2] + base) };
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
    return mw_andnot(outside, lanes);
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
    if (mw_any(mw_andnot(inside, near))) {
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
   reference: for c >= 0 and b < 0 the lower root is 2c / (-b + sqrt(disc)).
   Returns the lanes with a root t >= 0 (the caller applies the upper
   bound); four_a is 4a, computed as the reference computes it. */
static inline mw lowest_root(fw four_a, fw b, fw c, mw lanes, fw *t)
{
    const fw zero = fw_set1(0.0f);
    mw ok = mw_andnot(fw_lt(c, zero), mw_andnot(fw_ge(b, zero), lanes));
    if (!mw_any(ok))
        return ok;
    const fw discriminant = fw_sub(fw_mul(b, b), fw_mul(four_a, c));
    ok = mw_andnot(fw_lt(discriminant, zero), ok);
    if (!mw_any(ok))
        return ok;
    *t = fw_div(fw_mul(fw_set1(2.0f), c), fw_add(fw_neg(b), fw_sqrt(discriminant)));
    return mw_and(ok, fw_ge(*t, zero));
}

/* The reference's replacement rule: the first feature found needs
   t <= upper bound, later ones a strictly smaller t. */
static inline mw takes_over(mw ok, mw found, fw t, fw upper)
{
    return mw_and(ok, mw_or(mw_and(found, fw_lt(t, upper)), mw_andnot(found, fw_le(t, upper))));
}

typedef struct features {
    fw t;       /* the lowest root so far: the running upper bound */
    mw found;
    fw feature; /* SKIM_FEATURE_* of that root */
} features;

/* Rouwé 3.4 and 3.5 in 3D on the lanes in `lanes`: the swept sphere against
   the three vertices, |v - tD|^2 = 1, then the three edges' infinite lines
   with the contact required on the segment. */
static inline void vertices_and_edges(const v3 vertex[3], v3 delta, fw dd, mw lanes,
                                      features *out)
{
    const fw zero = fw_set1(0.0f), one = fw_set1(1.0f);
    const fw four_dd = fw_mul(fw_set1(4.0f), dd);
    fw delta_dot_v[3], c_vertex[3];
    for (int i = 0; i < 3; ++i) {
        delta_dot_v[i] = v3_dot(delta, vertex[i]);
        c_vertex[i] = fw_sub(v3_dot(vertex[i], vertex[i]), one);
        fw t = zero;
        const mw ok = lowest_root(four_dd, fw_mul(fw_set1(-2.0f), delta_dot_v[i]), c_vertex[i],
                                  lanes, &t);
        const mw take = takes_over(ok, out->found, t, out->t);
        out->t = fw_select(take, t, out->t);
        out->feature = fw_select(take, fw_set1((float)(SKIM_FEATURE_VERTEX + i)), out->feature);
        out->found = mw_or(out->found, take);
    }
    for (int i = 0; i < 3; ++i) {
        const v3 v1 = vertex[i];
        const v3 e = v3_sub(vertex[(i + 1) % 3], v1);
        const fw ee = v3_dot(e, e), ed = v3_dot(e, delta), ev = v3_dot(e, v1);
        const fw qa = fw_sub(fw_mul(ee, dd), fw_mul(ed, ed));
        const fw qb = fw_mul(fw_set1(2.0f), fw_sub(fw_mul(ed, ev), fw_mul(ee, delta_dot_v[i])));
        const fw qc = fw_sub(fw_mul(ee, c_vertex[i]), fw_mul(ev, ev));
        fw t = zero;
        mw ok = lowest_root(fw_mul(fw_set1(4.0f), qa), qb, qc, lanes, &t);
        if (!mw_any(ok))
            continue;
        /* On the segment: f |e|^2 = t (e . D) - e . v1 in [0, |e|^2]. */
        const fw f = fw_sub(fw_mul(t, ed), ev);
        ok = mw_and(ok, mw_and(fw_ge(f, zero), fw_le(f, ee)));
        const mw take = takes_over(ok, out->found, t, out->t);
        out->t = fw_select(take, t, out->t);
        out->feature = fw_select(take, fw_set1((float)(SKIM_FEATURE_EDGE + i)), out->feature);
        out->found = mw_or(out->found, take);
    }
}

void SKIM_KERNEL(const skim_candidates *c, const float delta_in[3], bool cull_back_faces,
                 skim_unit_hit *best)
{
    const fw zero = fw_set1(0.0f), one = fw_set1(1.0f);
    const v3 delta = { fw_set1(delta_in[0]), fw_set1(delta_in[1]), fw_set1(delta_in[2]) };
    const fw dd = v3_dot(delta, delta);
    /* Every lane uses the caller's bound for the plane interval (so a lane's
       result never depends on which packet it shared), and the best t so
       far as the quadratics' upper bound, which only drops roots that
       could not win. */
    const fw t_max = fw_set1(best->t);
    skim_simd_running run = skim_simd_running_start(best);

    for (uint32_t base = 0; base < c->count; base += SKIM_W) {
        /* Lanes at or past count are padding: masked off by index. */
        const uint32_t remaining = c->count - base;
        const mw live = fw_lt(fw_iota(), fw_set1(remaining < SKIM_W ? (float)remaining
                                                                    : (float)SKIM_W));
        const v3 vertex[3] = { v3_load(c, 0, base), v3_load(c, 1, base), v3_load(c, 2, base) };

        /* Rouwé 2: the plane N . P + C_p = 0, front normal (b - a) x (c - a)
           normalised, and the start's signed distance -N . a. */
        v3 n = v3_cross(v3_sub(vertex[1], vertex[0]), v3_sub(vertex[2], vertex[0]));
        const fw n_length = fw_sqrt(v3_dot(n, n));
        mw valid = mw_and(live, fw_gt(n_length, zero));
        n = (v3){ fw_div(n.x, n_length), fw_div(n.y, n_length), fw_div(n.z, n_length) };
        const fw start_distance = fw_neg(v3_dot(n, vertex[0]));
        const mw behind = fw_lt(start_distance, zero);
        if (cull_back_faces)
            valid = mw_andnot(behind, valid);
        if (!mw_any(valid))
            continue;
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
        const fw n_dot_d = v3_dot(plane_normal, delta);
        const mw approaching = mw_and(far, fw_lt(n_dot_d, zero));
        fw t1 = zero;
        mw in_range = mw_none(), face = mw_none();
        if (mw_any(approaching)) {
            t1 = fw_div(fw_sub(distance, one), fw_neg(n_dot_d));
            in_range = mw_and(approaching, fw_le(t1, t_max));
            if (mw_any(in_range)) {
                const v3 touching_point = v3_sub(v3_scale(t1, delta), plane_normal);
                face = triangle_contains(vertex, n, touching_point, in_range);
            }
        }

        /* The quadratics run where the reference gets to them: not touching,
           and either not clear of the plane or clear but reaching it in
           range with the face missed. */
        const mw far_done = mw_andnot(mw_andnot(face, in_range), far);
        const mw quadratic = mw_andnot(touch, mw_andnot(far_done, valid));
        features quad = { .t = fw_set1(run.t), .found = mw_none(), .feature = zero };
        if (mw_any(quadratic))
            vertices_and_edges(vertex, delta, dd, quadratic, &quad);

        const mw hit = mw_or(touch, mw_or(face, quad.found));
        unsigned bits = mw_bits(hit);
        if (!bits)
            continue;
        const fw t = fw_select(touch, zero, fw_select(face, t1, quad.t));
        const fw feature = fw_select(touch, fw_set1((float)SKIM_FEATURE_TOUCH),
                                     fw_select(face, fw_set1((float)SKIM_FEATURE_FACE),
                                               quad.feature));
        float lane_t[SKIM_W], lane_feature[SKIM_W];
        fw_store(lane_t, t);
        fw_store(lane_feature, feature);
        /* Order-independent reduction: lowest (t, triangle, lane). */
        while (bits) {
            const unsigned i = (unsigned)__builtin_ctz(bits);
            bits &= bits - 1;
            skim_simd_running_offer(&run, lane_t[i], c->triangle[base + i], base + i,
                                    (int)lane_feature[i]);
        }
    }
    skim_simd_finish(c, delta_in, &run, best);
}
