/* skim_sweep: one swept ellipsoid against the world. */
#include "gather/gather.h"
#include "query/query_internal.h"
#include "gather/bvh_ordered.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per-thread sweep scratch: the candidate buffer (sweeps allocate nothing
   once it has grown to the largest gather seen on this thread), and the
   last shape's check, ellipsoid space and path-gather transform. Callers
   sweep one shape many times (a server's player or NPC hull), and a shape
   bitwise equal to the last one checked is valid and has the same space
   and transform, so keeping them saves the check and the setup on every
   sweep after the first. Made on a thread's first sweep and freed when
   the thread ends (thread_objects.c); the thread-local pointer makes the
   lookup free. */
typedef struct sweep_scratch {
    skim_path_gather     path;        /* its shape part (transform broadcasts) is space's */
    skim_candidates      candidates;
    bool                 space_valid;
    skim_ellipsoid       space_shape; /* the shape space was made for, checked valid */
    skim_ellipsoid_space space;
} sweep_scratch;

static void init_thread_scratch(void *object)
{
    skim_candidates_init(&((sweep_scratch *)object)->candidates);
}

static void free_thread_scratch(void *object)
{
    skim_candidates_free(&((sweep_scratch *)object)->candidates);
    free(object);
}

static _Thread_local sweep_scratch *thread_scratch;

static sweep_scratch *sweep_thread_scratch(void)
{
    if (!thread_scratch)
        thread_scratch = skim_thread_object(SKIM_THREAD_SWEEP_SCRATCH, sizeof(sweep_scratch),
                                            init_thread_scratch, free_thread_scratch);
    return thread_scratch;
}

/* skim_sweep, or with first_hit only whether the path meets anything
   (out->hit; the rest of out is then some contact, not the first). */
static skim_status sweep(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 start,
                         skim_vec3 delta, const skim_query *query, bool first_hit, skim_hit *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_sweep: out is NULL");
    memset(out, 0, sizeof *out);
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_sweep: world is NULL");
    sweep_scratch *scratch = sweep_thread_scratch();
    if (!scratch)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_sweep: no memory for the thread's scratch");
    /* The shape's check and space, unless it is bitwise the last valid one
       (NULL is checked first: memcmp must not read it). */
    skim_status status = SKIM_OK;
    if (!shape || !scratch->space_valid ||
        memcmp(&scratch->space_shape, shape, sizeof *shape) != 0) {
        scratch->space_valid = false;
        status = skim_check_ellipsoid(shape, "skim_sweep: shape");
        if (status != SKIM_OK)
            return status;
        skim_ellipsoid_space_init(&scratch->space, shape);
        skim_path_gather_shape(&scratch->path, &scratch->space);
        scratch->space_shape = *shape;
        scratch->space_valid = true;
    }
    if (!skim_within_coordinate_range(start))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_sweep: start is not finite or beyond %g", (double)SKIM_COORDINATE_MAX);
    if (!skim_within_coordinate_range(delta))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_sweep: delta is not finite or beyond %g", (double)SKIM_COORDINATE_MAX);
    if (!skim_position_resolves(scratch->space.smallest_radius, start, delta))
        return skim_fail_position_resolution(scratch->space.smallest_radius, start, delta,
                                             "skim_sweep: start");
    status = skim_check_sweep_length(shape, delta, "skim_sweep");
    if (status != SKIM_OK)
        return status;
    status = skim_check_query(query, "skim_sweep: query");
    if (status != SKIM_OK)
        return status;
    skim_query defaults = skim_query_default();
    if (!query)
        query = &defaults;
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */

    const skim_ellipsoid_space *space = &scratch->space;
    const float start_world[3] = { start.x, start.y, start.z };
    const float delta_world[3] = { delta.x, delta.y, delta.z };
    skim_candidates *candidates = &scratch->candidates;
    float delta_unit[3];
    skim_mat3_mul_vec(space->to_unit, delta_world, delta_unit);
    skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh) {
        /* Front to back through the BVH, stopping at the first contact
           (bvh/bvh_ordered.c): the same answer as one kernel call over the
           swept gather, without gathering what lies beyond the hit. */
        skim_path_gather *path = &scratch->path;
        skim_path_gather_sweep(path, world, space, start_world, delta_world, query->material_mask);
        status = skim_bvh_sweep_ordered(world, path, delta_unit, query->cull_back_faces, kernels,
                                        candidates, first_hit, &best);
        if (status != SKIM_OK)
            return status;
    } else {
        /* Brute force (the oracle): every triangle through its own box test, no tree, one kernel call. */
        status = skim_gather_candidates_swept(world, space, start_world, delta_world,
                                              query->material_mask, candidates);
        if (status != SKIM_OK)
            return status;
        kernels->sweep(candidates, delta_unit, query->cull_back_faces, &best);
    }
    if (best.hit) {
        skim_unit_hit_to_world(space, start_world, &best, out);
    } else {
        out->t = 1.0f;
        out->body = SKIM_STATIC;
    }
    if (world->bodies.count && !(first_hit && out->hit)) {
        status = skim_sweep_bodies(world, shape, start_world, delta_world, query, kernels,
                                   candidates, out);
        if (status != SKIM_OK) {
            memset(out, 0, sizeof *out);
            return status;
        }
    }
    if (out->hit) {
        /* Far triangles are clipped to the sweep's reach before the move to
           unit space (gather_clip.c), so the kernels see at
           most ~14,000 radii (fast path) or ~1e7 (pieces of a 1e6-radii
           sweep): nothing here overflows for a world built by
           skim_world_create, nor for a loaded one (the loader checks that
           the header's bounds, which the far test reads, are the
           triangles'). Kept as the last guard all the same: a non-finite
           contact must never leave with SKIM_OK. */
        if (!(isfinite(out->t) && skim_finite3(out->point) && skim_finite3(out->normal))) {
            memset(out, 0, sizeof *out);
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "skim_sweep: a triangle near the path is too large for this shape "
                             "(beyond float range in its unit-sphere space); the contact is "
                             "not finite");
        }
    }
    return SKIM_OK;
}

skim_status skim_sweep(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 start,
                       skim_vec3 delta, const skim_query *query, skim_hit *out)
{
    return sweep(world, shape, start, delta, query, false, out);
}

skim_status skim_sweep_meets(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 start,
                             skim_vec3 delta, bool *meets)
{
    skim_hit hit;
    skim_status status = sweep(world, shape, start, delta, NULL, true, &hit);
    *meets = status == SKIM_OK && hit.hit;
    return status;
}
