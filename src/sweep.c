/* skim_sweep: one swept ellipsoid against the world. */
#include "skim_internal.h"
#include "bvh/bvh_ordered.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

/* Per-thread candidate buffer: sweeps allocate nothing once it has grown to
   the largest gather seen on this thread. The thread-local pointer makes the
   lookup free; the tss key only carries the destructor, so a thread that
   ends (an OpenMP worker dropped when a team shrinks, a user's thread) frees
   its buffer. */
static _Thread_local skim_candidates *thread_candidates;
static tss_t candidates_key;
static once_flag candidates_key_once = ONCE_FLAG_INIT;
static bool candidates_key_ok;

static void free_thread_candidates(void *opaque)
{
    skim_candidates_free(opaque);
    free(opaque);
}

static void make_candidates_key(void)
{
    candidates_key_ok = tss_create(&candidates_key, free_thread_candidates) == thrd_success;
}

static skim_candidates *sweep_thread_candidates(void)
{
    if (thread_candidates)
        return thread_candidates;
    call_once(&candidates_key_once, make_candidates_key);
    skim_candidates *candidates = calloc(1, sizeof *candidates);
    if (!candidates)
        return NULL;
    skim_candidates_init(candidates);
    if (candidates_key_ok)
        tss_set(candidates_key, candidates);
    thread_candidates = candidates;
    return candidates;
}

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
    if (!skim_within_coordinate_range(start))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_sweep: start is not finite or beyond %g", (double)SKIM_COORDINATE_MAX);
    if (!skim_within_coordinate_range(delta))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_sweep: delta is not finite or beyond %g", (double)SKIM_COORDINATE_MAX);
    status = skim_check_sweep_length(shape, delta, "skim_sweep");
    if (status != SKIM_OK)
        return status;
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
    skim_candidates *candidates = sweep_thread_candidates();
    if (!candidates)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_sweep: candidate buffer");
    float delta_unit[3];
    skim_mat3_mul_vec(space.to_unit, delta_world, delta_unit);
    skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh) {
        /* Front to back through the BVH, stopping at the first contact
           (bvh/bvh_ordered.c): the same answer as one kernel call over the
           swept gather, without gathering what lies beyond the hit. */
        skim_path_gather path;
        skim_path_gather_init(&path, world, &space, start_world, delta_world, query->material_mask);
        status = skim_bvh_sweep_ordered(world, &path, delta_unit, query->cull_back_faces, kernels,
                                        candidates, &best);
        if (status != SKIM_OK)
            return status;
    } else {
        /* Brute force (the oracle): every triangle through its own box test, no tree, one kernel call. */
        status = skim_gather_candidates_swept(world, &space, start_world, delta_world,
                                              query->material_mask, candidates);
        if (status != SKIM_OK)
            return status;
        kernels->sweep(candidates, delta_unit, query->cull_back_faces, &best);
    }
    if (best.hit) {
        skim_unit_hit_to_world(&space, start_world, &best, out);
        /* Far triangles are clipped to the sweep's reach before the move to
           unit space (gather_clip.c, finding 18), so the kernels see at
           most ~14,000 radii (fast path) or ~1e7 (pieces of a 1e6-radii
           sweep): nothing here overflows for a world built by
           skim_world_create. Kept as the last guard for a loaded world:
           the loader checks structure and checksum, not that the header's
           bounds hold the triangles, and the gather skips the far test
           when those bounds say every triangle is near. */
        if (!(isfinite(out->t) && skim_finite3(out->point) && skim_finite3(out->normal))) {
            memset(out, 0, sizeof *out);
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "skim_sweep: a triangle near the path is too large for this shape "
                             "(beyond float range in its unit-sphere space); the contact is "
                             "not finite");
        }
    } else {
        out->t = 1.0f;
    }
    return SKIM_OK;
}
