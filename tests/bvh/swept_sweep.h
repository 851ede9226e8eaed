/* skim_sweep's steps (sweep.c) with the swept gather in place of the box
   gather: what skim_sweep becomes if it calls skim_gather_candidates_swept.
   Shared by the BVH tests and the benchmark so both exercise exactly that. */
#ifndef SKIM_SWEPT_SWEEP_H
#define SKIM_SWEPT_SWEEP_H

#include "gather/gather.h"

static inline skim_status swept_sweep(const skim_world *world, const skim_ellipsoid *shape,
                                      skim_vec3 start, skim_vec3 delta, const skim_query *query,
                                      skim_candidates *candidates, skim_hit *out)
{
    memset(out, 0, sizeof *out);
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT;
    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, shape);
    const float s[3] = { start.x, start.y, start.z }, d[3] = { delta.x, delta.y, delta.z };
    skim_status status = skim_gather_candidates_swept(world, &space, s, d, query->material_mask, candidates);
    if (status != SKIM_OK)
        return status;
    float delta_unit[3];
    skim_mat3_mul_vec(space.to_unit, d, delta_unit);
    skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
    kernels->sweep(candidates, delta_unit, query->cull_back_faces, &best);
    if (best.hit)
        skim_unit_hit_to_world(&space, s, &best, out);
    else
        out->t = 1.0f;
    return SKIM_OK;
}

#endif
