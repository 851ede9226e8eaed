/* A ray against one triangle, watertight: Woop, Benthin and Wald,
   "Watertight Ray/Triangle Intersection" (JCGT 2013). */
#include "query/query_internal.h"

#include <math.h>

void skim_ray_init(skim_ray *ray, const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                   const skim_query *query)
{
    const float o[3] = { origin.x, origin.y, origin.z }, d[3] = { delta.x, delta.y, delta.z };
    const float *lo = &world->bounds_min.x, *hi = &world->bounds_max.x;
    for (int axis = 0; axis < 3; ++axis) {
        ray->origin[axis] = o[axis];
        ray->delta[axis] = d[axis];
        ray->inverse_delta[axis] = fabsf(d[axis]) < 1e-30f ? copysignf(1e30f, d[axis]) : 1.0f / d[axis];
        /* The node boxes are dequantised and moved to the origin in float:
           a few roundings of the largest coordinate involved. 2^-19 of it is
           32 times that, so a triangle's point is always strictly inside
           every box above it (Ize, "Robust BVH Ray Traversal", makes the
           same argument with a factor on t). */
        float extent = fabsf(lo[axis]) > fabsf(hi[axis]) ? fabsf(lo[axis]) : fabsf(hi[axis]);
        ray->reach[axis] = 0x1p-19f * (extent + fabsf(o[axis]) + fabsf(d[axis])) + 1e-30f;
    }
    /* Section 3.1: the dimension where the ray direction is maximal. */
    const float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]);
    int kz = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
    int kx = kz + 1 == 3 ? 0 : kz + 1;
    int ky = kx + 1 == 3 ? 0 : kx + 1;
    if (d[kz] < 0.0f) {
        int swap = kx;
        kx = ky;
        ky = swap;
    }
    ray->kx = kx, ray->ky = ky, ray->kz = kz;
    /* A zero delta has no dimension to shear along: sz = 0 leaves every
       depth 0, and the caller reports no hit for it (see raycast.c). */
    ray->sz = d[kz] != 0.0f ? 1.0f / d[kz] : 0.0f;
    ray->sx = d[kx] * ray->sz;
    ray->sy = d[ky] * ray->sz;
    ray->cull_back_faces = query->cull_back_faces;
    ray->material_mask = query->material_mask;
}

bool skim_ray_triangle(const skim_ray *ray, const skim_world *world, uint32_t stored, float limit,
                       float *t)
{
    const int kx = ray->kx, ky = ray->ky, kz = ray->kz;
    float rel[3][3]; /* corner v, axis, relative to the origin */
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            rel[v][axis] = world->vertex[v][axis][stored] - ray->origin[axis];
    /* Section 3.2: shear into ray space. Each corner's sheared coordinates
       depend only on that corner and the ray, so two triangles sharing an
       edge compute bit-identical edge functions of opposite sign for it. */
    const float ax = rel[0][kx] - ray->sx * rel[0][kz], ay = rel[0][ky] - ray->sy * rel[0][kz];
    const float bx = rel[1][kx] - ray->sx * rel[1][kz], by = rel[1][ky] - ray->sy * rel[1][kz];
    const float cx = rel[2][kx] - ray->sx * rel[2][kz], cy = rel[2][ky] - ray->sy * rel[2][kz];
    double u = cx * by - cy * bx, v = ax * cy - ay * cx, w = bx * ay - by * ax;
    /* Section 3.3: an edge function of exactly zero is recomputed in double,
       where the products of floats are exact, so its sign is the true one
       and the ray through an edge or vertex is decided consistently. */
    if (u == 0.0 || v == 0.0 || w == 0.0) {
        u = (double)cx * (double)by - (double)cy * (double)bx;
        v = (double)ax * (double)cy - (double)ay * (double)cx;
        w = (double)bx * (double)ay - (double)by * (double)ax;
    }
    if ((u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0))
        return false;
    double det = u + v + w;
    if (det == 0.0)
        return false;
    /* det > 0: the ray meets the front ((b - a) x (c - a) faces the origin). */
    if (ray->cull_back_faces && det < 0.0)
        return false;
    /* Where the line meets the plane, in double from the float corners:
       Woop's depth / det loses all precision on a sliver (det tiny beside
       the corners' extent), and every candidate's t must be the same
       whichever traversal tests it. */
    const double e1[3] = { (double)rel[1][0] - rel[0][0], (double)rel[1][1] - rel[0][1], (double)rel[1][2] - rel[0][2] };
    const double e2[3] = { (double)rel[2][0] - rel[0][0], (double)rel[2][1] - rel[0][1], (double)rel[2][2] - rel[0][2] };
    const double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
    const double facing = n[0] * ray->delta[0] + n[1] * ray->delta[1] + n[2] * ray->delta[2];
    if (facing == 0.0)
        return false;
    double depth_t = (n[0] * rel[0][0] + n[1] * rel[0][1] + n[2] * rel[0][2]) / facing;
    /* A start on the triangle: the plane a rounding behind the origin.
       Within a quarter of the ray's reach on every axis (the margin the
       BVH's boxes are grown by), the ray starts on it and hits at t = 0. */
    if (depth_t < 0.0) {
        for (int axis = 0; axis < 3; ++axis)
            if (-depth_t * fabs((double)ray->delta[axis]) > 0.25 * ray->reach[axis])
                return false;
        depth_t = 0.0;
    }
    const float hit_t = (float)depth_t;
    if (!(hit_t <= limit))
        return false;
    *t = hit_t;
    return true;
}
