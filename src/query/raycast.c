/* skim_raycast, skim_raycast_any and their batches: the checks, and the
   hit in world terms. */
#include "query/query_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static skim_status check_ray(skim_vec3 origin, skim_vec3 delta, const char *who, size_t index,
                             bool batch)
{
    if (!skim_within_coordinate_range(origin)) {
        if (batch)
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "%s: origins[%zu] is not finite or beyond %g", who, index,
                             (double)SKIM_COORDINATE_MAX);
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: origin is not finite or beyond %g", who,
                         (double)SKIM_COORDINATE_MAX);
    }
    if (!skim_within_coordinate_range(delta)) {
        if (batch)
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "%s: deltas[%zu] is not finite or beyond %g", who, index,
                             (double)SKIM_COORDINATE_MAX);
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: delta is not finite or beyond %g", who,
                         (double)SKIM_COORDINATE_MAX);
    }
    return SKIM_OK;
}

void skim_ray_cast_static(const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                          const skim_query *query, const skim_kernel_set *kernels, skim_hit *out)
{
    memset(out, 0, sizeof *out);
    out->t = 1.0f;
    out->body = SKIM_STATIC;
    if (delta.x == 0.0f && delta.y == 0.0f && delta.z == 0.0f)
        return; /* a point: no direction to meet anything along */
    skim_ray ray;
    skim_ray_init(&ray, world, origin, delta, query);
    float t;
    const uint32_t stored = skim_ray_first_hit(&ray, world, kernels, &t);
    if (stored == UINT32_MAX)
        return;
    double corner[3][3];
    skim_stored_corners(world, stored, corner);
    const double e1[3] = { corner[1][0] - corner[0][0], corner[1][1] - corner[0][1], corner[1][2] - corner[0][2] };
    const double e2[3] = { corner[2][0] - corner[0][0], corner[2][1] - corner[0][1], corner[2][2] - corner[0][2] };
    double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
    const double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double facing = n[0] * delta.x + n[1] * delta.y + n[2] * delta.z;
    /* The winner is decided in float (watertight); its t is then the
       plane's, in double, where the float edge functions' rounding no
       longer shows (a t of 0 stays 0: the ray starts on the triangle). */
    if (t > 0.0f && facing != 0.0) {
        const double plane = n[0] * (corner[0][0] - origin.x) + n[1] * (corner[0][1] - origin.y) +
                             n[2] * (corner[0][2] - origin.z);
        const double exact = plane / facing;
        t = exact < 0.0 ? 0.0f : exact > 1.0 ? 1.0f : (float)exact;
    }
    out->hit = true;
    out->t = t;
    out->triangle = world->triangle_index[stored];
    out->point = (skim_vec3){ origin.x + t * delta.x, origin.y + t * delta.y, origin.z + t * delta.z };
    /* The unit normal, turned toward the origin: against the ray, or, for
       a ray along the plane, to the origin's side. */
    if (facing == 0.0)
        facing = -(n[0] * (origin.x - corner[0][0]) + n[1] * (origin.y - corner[0][1]) +
                   n[2] * (origin.z - corner[0][2]));
    const double sign = facing > 0.0 ? -1.0 : 1.0;
    out->normal = (skim_vec3){ (float)(sign * n[0] / length), (float)(sign * n[1] / length),
                               (float)(sign * n[2] / length) };
}

/* The answer for one checked ray: the world's own triangles, then its
   bodies (body_rays.c). */
static void cast(const skim_world *world, skim_vec3 origin, skim_vec3 delta, const skim_query *query,
                 const skim_kernel_set *kernels, skim_hit *out)
{
    skim_ray_cast_static(world, origin, delta, query, kernels, out);
    if (world->bodies.count)
        skim_ray_cast_bodies(world, origin, delta, query, kernels, out);
}

skim_status skim_raycast(const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                         const skim_query *query, skim_hit *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_raycast: out is NULL");
    memset(out, 0, sizeof *out);
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_raycast: world is NULL");
    skim_status status = check_ray(origin, delta, "skim_raycast", 0, false);
    if (status == SKIM_OK)
        status = skim_check_query(query, "skim_raycast: query");
    if (status != SKIM_OK)
        return status;
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    const skim_query defaults = skim_query_default();
    cast(world, origin, delta, query ? query : &defaults, kernels, out);
    return SKIM_OK;
}

/* The checks every batch makes before casting anything: a bad ray fails
   the call, naming its index, with nothing half done. */
static skim_status check_batch(const skim_world *world, size_t count, const skim_vec3 *origins,
                               const skim_vec3 *deltas, const skim_query *query, const char *who,
                               const skim_kernel_set **kernels)
{
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    if (!origins || !deltas)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", who, origins ? "deltas" : "origins");
    char context[64];
    snprintf(context, sizeof context, "%s: query", who);
    skim_status status = skim_check_query(query, context);
    if (status != SKIM_OK)
        return status;
    *kernels = skim_kernels();
    if (!*kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    for (size_t i = 0; i < count; ++i) {
        status = check_ray(origins[i], deltas[i], who, i, true);
        if (status != SKIM_OK)
            return status;
    }
    return SKIM_OK;
}

skim_status skim_raycast_batch(const skim_world *world, size_t count, const skim_vec3 *origins,
                               const skim_vec3 *deltas, const skim_query *query, skim_hit *hits)
{
    if (count == 0)
        return SKIM_OK;
    if (!hits)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_raycast_batch: hits is NULL");
    memset(hits, 0, count * sizeof *hits);
    const skim_kernel_set *kernels = NULL;
    skim_status status = check_batch(world, count, origins, deltas, query, "skim_raycast_batch", &kernels);
    if (status != SKIM_OK)
        return status;
    const skim_query defaults = skim_query_default();
    const skim_query *q = query ? query : &defaults;
    /* Each ray's answer is its own: no reduction, so any thread count and
       any schedule give the same bits. */
#pragma omp parallel for schedule(dynamic, 256)
    for (long i = 0; i < (long)count; ++i)
        cast(world, origins[i], deltas[i], q, kernels, &hits[i]);
    return SKIM_OK;
}

/* Whether one checked ray meets anything. */
static bool blocked_by(const skim_world *world, skim_vec3 origin, skim_vec3 delta, const skim_query *query,
                       const skim_kernel_set *kernels)
{
    if (delta.x == 0.0f && delta.y == 0.0f && delta.z == 0.0f)
        return false; /* as in cast() */
    skim_ray ray;
    skim_ray_init(&ray, world, origin, delta, query);
    if (skim_ray_blocked(&ray, world, kernels))
        return true;
    if (!world->bodies.count)
        return false;
    skim_hit hit = { .hit = false, .t = 1.0f, .body = SKIM_STATIC };
    skim_ray_cast_bodies(world, origin, delta, query, kernels, &hit);
    return hit.hit;
}

skim_status skim_raycast_any(const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                             const skim_query *query, bool *blocked)
{
    if (!blocked)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_raycast_any: blocked is NULL");
    *blocked = false;
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_raycast_any: world is NULL");
    skim_status status = check_ray(origin, delta, "skim_raycast_any", 0, false);
    if (status == SKIM_OK)
        status = skim_check_query(query, "skim_raycast_any: query");
    if (status != SKIM_OK)
        return status;
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    const skim_query defaults = skim_query_default();
    *blocked = blocked_by(world, origin, delta, query ? query : &defaults, kernels);
    return SKIM_OK;
}

skim_status skim_raycast_any_batch(const skim_world *world, size_t count, const skim_vec3 *origins,
                                   const skim_vec3 *deltas, const skim_query *query, bool *blocked)
{
    if (count == 0)
        return SKIM_OK;
    if (!blocked)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_raycast_any_batch: blocked is NULL");
    memset(blocked, 0, count * sizeof *blocked);
    const skim_kernel_set *kernels = NULL;
    skim_status status = check_batch(world, count, origins, deltas, query, "skim_raycast_any_batch", &kernels);
    if (status != SKIM_OK)
        return status;
    const skim_query defaults = skim_query_default();
    const skim_query *q = query ? query : &defaults;
#pragma omp parallel for schedule(dynamic, 256)
    for (long i = 0; i < (long)count; ++i)
        blocked[i] = blocked_by(world, origins[i], deltas[i], q, kernels);
    return SKIM_OK;
}
