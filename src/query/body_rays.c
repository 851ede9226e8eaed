/* Rays against a world's bodies: the ray goes into each crossed body's own
   space and meets the body's mesh there, as Embree and Jolt trace an
   instance. The mesh is not moved, so the watertight test (Woop, Benthin
   and Wald, "Watertight Ray/Triangle Intersection", 3) holds across the
   body's own shared edges; a rigid transform keeps the ray's parameter t. */
#include "query/query_internal.h"

#include <math.h>

/* Whether the segment origin -> origin + delta meets the body's box
   (slabs, in double, the box grown by a relative 1e-6 for the rounding of
   the local ray). */
static bool segment_meets_box(const skim_body *body, const double origin[3], const double delta[3])
{
    double near = 0.0, far = 1.0;
    for (int axis = 0; axis < 3; ++axis) {
        const double lo = body->box_min[axis], hi = body->box_max[axis];
        const double grow = 1e-6 * (fabs(lo) + fabs(hi)) + 1e-6;
        if (delta[axis] == 0.0) {
            if (origin[axis] < lo - grow || origin[axis] > hi + grow)
                return false;
            continue;
        }
        double t1 = (lo - grow - origin[axis]) / delta[axis], t2 = (hi + grow - origin[axis]) / delta[axis];
        if (t1 > t2) {
            const double swap = t1;
            t1 = t2;
            t2 = swap;
        }
        near = t1 > near ? t1 : near;
        far = t2 < far ? t2 : far;
        if (near > far)
            return false;
    }
    return true;
}

void skim_ray_cast_bodies(const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                          const skim_query *query, const skim_kernel_set *kernels, skim_hit *out)
{
    if (delta.x == 0.0f && delta.y == 0.0f && delta.z == 0.0f)
        return;
    const double o[3] = { origin.x, origin.y, origin.z }, d[3] = { delta.x, delta.y, delta.z };
    const skim_body_table *table = &world->bodies;
    for (uint32_t i = 0; i < table->count; ++i) {
        const skim_body *body = &table->body[i];
        if (!segment_meets_box(body, o, d))
            continue;
        double local_origin[3], local_delta[3];
        skim_body_point_to_local(body, o, local_origin);
        skim_body_vector_to_local(body, d, local_delta);
        skim_hit local;
        skim_ray_cast_static(body->shape,
                             (skim_vec3){ (float)local_origin[0], (float)local_origin[1], (float)local_origin[2] },
                             (skim_vec3){ (float)local_delta[0], (float)local_delta[1], (float)local_delta[2] },
                             query, kernels, &local);
        if (!local.hit || (out->hit && !(local.t < out->t)))
            continue;
        const double n[3] = { local.normal.x, local.normal.y, local.normal.z };
        double turned[3];
        skim_body_vector_to_world(body, n, turned);
        const double length = sqrt(turned[0] * turned[0] + turned[1] * turned[1] + turned[2] * turned[2]);
        const float t = local.t;
        out->hit = true;
        out->t = t;
        out->point = (skim_vec3){ origin.x + t * delta.x, origin.y + t * delta.y, origin.z + t * delta.z };
        out->normal = (skim_vec3){ (float)(turned[0] / length), (float)(turned[1] / length),
                                   (float)(turned[2] / length) };
        out->triangle = local.triangle;
        out->body = body->id;
    }
}
