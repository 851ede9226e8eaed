/* The packet kernel's geometry on W lanes: the vector helpers and Rouwé's
   per-triangle tests (Jorrit Rouwé, "Collision Detection with Swept
   Spheres and Ellipsoids": containment 3.3, touching at the start, the
   lowest root 3.6, the vertex and edge quadratics 3.4 and 3.5), each the
   scalar reference's IEEE operations in its order, under a lane mask.

   Part of packet_kernel.c's translation unit, which includes it once per
   kernel set (SKIM_LANES chooses the lane type of lanes.h); not a header
   of its own. */
#ifndef SKIM_PACKET_FEATURES_H
#define SKIM_PACKET_FEATURES_H

#include "kernel/lanes.h"
#include "kernel/simd_kernels.h"

#include <string.h>

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
   is often mispredicted, costing more than the square root and division
   it would skip (lanes without a root compute NaN or inf and are masked
   off). */
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

#endif /* SKIM_PACKET_FEATURES_H */
