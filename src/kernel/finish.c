/* The winner's contact point and normal, shared by every packet kernel.

   The packet kernels find, per lane, the first-contact t and which of
   Rouwé's features (Rouwé, Swept Spheres and Ellipsoids, 3) produced it; the point and normal
   are only needed for the one lane that wins, so they are computed here,
   once per call, in scalar code. The operations and their order are the
   reference's (src/kernel/sweep_sphere_triangle.c), and -ffp-contract=off
   keeps the compiler from fusing them, so the result is the same bits
   whichever set found the lane, and the same bits the reference computes
   for the same (triangle, feature, t). */
#include "kernel/simd_kernels.h"

#include <math.h>

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const float a[3], const float b[3], float out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = a[k] - b[k];
}

static void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Rouwé 3.3, PolygonContains in 3D (edge signs against the front normal). */
static bool triangle_contains(const float vertex[3][3], const float n[3], const float p[3])
{
    for (int i = 0; i < 3; ++i) {
        float edge[3], to_point[3], side[3];
        sub3(vertex[(i + 1) % 3], vertex[i], edge);
        sub3(p, vertex[i], to_point);
        cross3(edge, to_point, side);
        if (dot3(side, n) < 0.0f)
            return false;
    }
    return true;
}

/* The closest point of the triangle to the origin (the start), as the
   packet kernel's starts_touching() and the reference find it. */
static void closest_point_to_origin(const float vertex[3][3], const float n[3],
                                    float start_distance, float out[3])
{
    const float projection[3] = { -start_distance * n[0], -start_distance * n[1],
                                  -start_distance * n[2] };
    if (triangle_contains(vertex, n, projection)) {
        for (int k = 0; k < 3; ++k)
            out[k] = projection[k];
        return;
    }
    float best_sq = INFINITY;
    for (int k = 0; k < 3; ++k)
        out[k] = INFINITY;
    for (int i = 0; i < 3; ++i) {
        const float *v1 = vertex[i];
        float edge[3], candidate[3];
        sub3(vertex[(i + 1) % 3], v1, edge);
        const float length_sq = dot3(edge, edge);
        float f = length_sq > 0.0f ? -dot3(v1, edge) / length_sq : 0.0f;
        f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
        for (int k = 0; k < 3; ++k)
            candidate[k] = v1[k] + f * edge[k];
        const float distance_sq = dot3(candidate, candidate);
        if (distance_sq < best_sq) {
            best_sq = distance_sq;
            for (int k = 0; k < 3; ++k)
                out[k] = candidate[k];
        }
    }
}

/* Normal of a vertex or edge contact: from the point toward C(t) = t D. */
static void normal_toward_center(float t, const float delta[3], const float point[3],
                                 float normal[3])
{
    const float to_center[3] = { t * delta[0] - point[0], t * delta[1] - point[1],
                                 t * delta[2] - point[2] };
    const float length = sqrtf(dot3(to_center, to_center));
    for (int k = 0; k < 3; ++k)
        normal[k] = to_center[k] / length;
}

/* The point and normal of `feature` of the triangle `vertex` (unit space,
   relative to the start) at t, written into best with t and triangle. */
static inline __attribute__((always_inline)) void finish_contact(const float vertex[3][3], int feature, float t, uint32_t triangle,
                           const float delta[3], skim_unit_hit *best)
{
    /* Rouwé 2: the normalised front normal and the plane turned toward the
       start, exactly as the kernel computed them: at the corner opposite the
       longest edge (the reference's plane_corner). */
    float ab[3], bc[3], ca[3];
    sub3(vertex[1], vertex[0], ab);
    sub3(vertex[2], vertex[1], bc);
    sub3(vertex[0], vertex[2], ca);
    const float ab_sq = dot3(ab, ab), bc_sq = dot3(bc, bc), ca_sq = dot3(ca, ca);
    const int corner = ab_sq >= bc_sq && ab_sq >= ca_sq ? 2 : bc_sq >= ca_sq ? 0 : 1;
    float first_edge[3], second_edge[3], n[3];
    sub3(vertex[(corner + 1) % 3], vertex[corner], first_edge);
    sub3(vertex[(corner + 2) % 3], vertex[corner], second_edge);
    cross3(first_edge, second_edge, n);
    const float n_length = sqrtf(dot3(n, n));
    for (int k = 0; k < 3; ++k)
        n[k] /= n_length;
    const float start_distance = -dot3(n, vertex[corner]);
    const float side = start_distance < 0.0f ? -1.0f : 1.0f;
    const float plane_normal[3] = { side * n[0], side * n[1], side * n[2] };

    float point[3], normal[3];
    if (feature == SKIM_FEATURE_TOUCH) {
        closest_point_to_origin(vertex, n, start_distance, point);
        const float length = sqrtf(dot3(point, point));
        /* Centre on the triangle itself: the face normal on the start's side. */
        for (int k = 0; k < 3; ++k)
            normal[k] = length > 1e-6f ? -point[k] / length : plane_normal[k];
    } else if (feature == SKIM_FEATURE_FACE) {
        for (int k = 0; k < 3; ++k) {
            point[k] = t * delta[k] - plane_normal[k];
            normal[k] = plane_normal[k];
        }
    } else if (feature < SKIM_FEATURE_EDGE) {
        const float *v = vertex[feature - SKIM_FEATURE_VERTEX];
        for (int k = 0; k < 3; ++k)
            point[k] = v[k];
        normal_toward_center(t, delta, point, normal);
    } else {
        const int i = feature - SKIM_FEATURE_EDGE;
        const float *v1 = vertex[i];
        float e[3];
        sub3(vertex[(i + 1) % 3], v1, e);
        const float ee = dot3(e, e), ed = dot3(e, delta), ev = dot3(e, v1);
        const float fraction = (t * ed - ev) / ee;
        for (int k = 0; k < 3; ++k)
            point[k] = v1[k] + fraction * e[k];
        normal_toward_center(t, delta, point, normal);
    }
    best->hit = true;
    best->t = t;
    best->triangle = triangle;
    for (int k = 0; k < 3; ++k) {
        best->point[k] = point[k];
        best->normal[k] = normal[k];
    }
}

void skim_simd_finish(const skim_candidates *c, const float origin[3], const float delta[3],
                      const skim_simd_running *run, skim_unit_hit *best)
{
    if (run->lane < 0)
        return; /* nothing beat what the caller passed in */
    const uint32_t lane = (uint32_t)run->lane;
    float vertex[3][3];
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            vertex[v][axis] = c->vertex[v][axis][lane] - origin[axis];
    finish_contact(vertex, run->feature, run->t, run->triangle, delta, best);
}

void skim_simd_defer(const skim_candidates *c, const skim_simd_running *run, skim_unit_hit *best,
                     skim_unit_winner *winner)
{
    if (run->lane < 0)
        return;
    const uint32_t lane = (uint32_t)run->lane;
    /* As skim_simd_finish reads them with an origin of +0s: v - 0 is v,
       bit for bit (and -0 - 0 is -0). */
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            winner->vertex[v][axis] = c->vertex[v][axis][lane];
    winner->feature = run->feature;
    best->hit = true;
    best->t = run->t;
    best->triangle = run->triangle;
}

void skim_unit_winner_finish(const skim_unit_winner *winner, const float delta[3],
                             skim_unit_hit *best)
{
    if (winner->feature < 0)
        return;
    finish_contact(winner->vertex, winner->feature, best->t, best->triangle, delta, best);
}
