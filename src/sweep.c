/* skim_sweep: one swept ellipsoid against the world. */
#include "skim_internal.h"

#include <math.h>
#include <string.h>

/* Per-thread candidate buffer: sweeps allocate nothing once it has grown to
   the largest gather seen on this thread. Freed at thread exit would need a
   destructor; it is bounded by the largest query and reused for ever. */
static _Thread_local skim_candidates thread_candidates;

/* The box that holds the whole sweep: start +- the bounding radius, grown by
   the displacement, padded by a relative margin so rounding in the kernels
   can never make a triangle just outside it the first hit (the BVH must give
   exactly what brute force gives). */
void skim_sweep_box(const float start[3], const float delta[3], float bounding_radius,
                    float box_min[3], float box_max[3])
{
    for (int axis = 0; axis < 3; ++axis) {
        float from = start[axis], to = start[axis] + delta[axis];
        float lo = from < to ? from : to, hi = from < to ? to : from;
        float margin = bounding_radius * 1.001f + 1e-4f * (fabsf(lo) + fabsf(hi)) * 0.5f +
                       1e-3f * fabsf(delta[axis]);
        box_min[axis] = lo - margin;
        box_max[axis] = hi + margin;
    }
}

skim_status skim_sweep(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 start,
                       skim_vec3 delta, const skim_query *query, skim_hit *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_sweep: out is NULL");
    memset(out, 0, sizeof *out);
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_sweep: world is NULL");
    skim_status status = skim_check_ellipsoid(shape, "skim_sweep: shape");
    if (status != SKIM_OK)
        return status;
    if (!skim_finite3(start))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_sweep: start is not finite");
    if (!skim_finite3(delta))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_sweep: delta is not finite");
    skim_query defaults = skim_query_default();
    if (!query)
        query = &defaults;
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */

    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, shape);
    const float start_world[3] = { start.x, start.y, start.z };
    const float delta_world[3] = { delta.x, delta.y, delta.z };
    float box_min[3], box_max[3];
    skim_sweep_box(start_world, delta_world, space.bounding_radius, box_min, box_max);

    skim_candidates *candidates = &thread_candidates;
    status = skim_gather_candidates(world, &space, start_world, box_min, box_max,
                                    query->material_mask, candidates);
    if (status != SKIM_OK)
        return status;

    float delta_unit[3];
    skim_mat3_mul_vec(space.to_unit, delta_world, delta_unit);
    skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
    kernels->sweep(candidates, delta_unit, query->cull_back_faces, &best);
    if (best.hit)
        skim_unit_hit_to_world(&space, start_world, &best, out);
    else
        out->t = 1.0f;
    return SKIM_OK;
}
