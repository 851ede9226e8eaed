/* Sweeps against a world's bodies: the sweep goes into each body's own
   space the way Embree and Jolt trace an instance. There the ellipsoid keeps
   its radii and turns by conj(q_body) * q_shape, start and delta are turned
   and shifted, and the body's BVH is walked front to back with the first
   contact ending the walk, as for the static world (Rouwé, Swept Spheres
   and Ellipsoids, 4: the shape's unit-sphere space is then the body's).
   A rigid transform keeps the sweep's t; the contact's point and normal are
   turned back. */
#include "query/query_internal.h"
#include "gather/gather.h"
#include "gather/bvh_ordered.h"

#include <math.h>

/* Most bodies a sweep's search marks in a bitset on the stack. */
#define MARKED_BODIES 4096

/* a * b for quaternions (x, y, z, w), in double. */
static void quat_mul(const double a[4], const double b[4], double out[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

static skim_status sweep_body(const skim_body *body, const skim_ellipsoid *shape, const double start[3],
                              const double delta[3], const skim_query *query,
                              const skim_kernel_set *kernels, skim_candidates *candidates,
                              skim_hit *out)
{
    const skim_world *mesh = body->shape;
    if (mesh->triangle_count == 0)
        return SKIM_OK;
    const double body_conj[4] = { -body->now.rotation.x, -body->now.rotation.y, -body->now.rotation.z,
                                  body->now.rotation.w };
    const double shape_q[4] = { shape->rotation.x, shape->rotation.y, shape->rotation.z, shape->rotation.w };
    double turned[4];
    quat_mul(body_conj, shape_q, turned);
    const skim_ellipsoid local_shape = { shape->radii, { (float)turned[0], (float)turned[1],
                                                         (float)turned[2], (float)turned[3] } };
    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, &local_shape);
    double local_start[3], local_delta[3];
    skim_body_point_to_local(body, start, local_start);
    skim_body_vector_to_local(body, delta, local_delta);
    const float from[3] = { (float)local_start[0], (float)local_start[1], (float)local_start[2] };
    const float along[3] = { (float)local_delta[0], (float)local_delta[1], (float)local_delta[2] };
    float delta_unit[3];
    skim_mat3_mul_vec(space.to_unit, along, delta_unit);
    skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
    skim_status status;
    if (mesh->accelerator == SKIM_ACCELERATOR_BVH && mesh->bvh) {
        skim_path_gather path;
        skim_path_gather_init(&path, mesh, &space, from, along, query->material_mask);
        status = skim_bvh_sweep_ordered(mesh, &path, delta_unit, query->cull_back_faces, kernels,
                                        candidates, false, &best);
    } else {
        status = skim_gather_candidates_swept(mesh, &space, from, along, query->material_mask,
                                              candidates);
        if (status == SKIM_OK)
            kernels->sweep(candidates, delta_unit, query->cull_back_faces, &best);
    }
    if (status != SKIM_OK || !best.hit || (out->hit && !(best.t < out->t)))
        return status;
    skim_hit local;
    skim_unit_hit_to_world(&space, from, &best, &local);
    const double point[3] = { local.point.x, local.point.y, local.point.z };
    const double normal[3] = { local.normal.x, local.normal.y, local.normal.z };
    double world_point[3], world_normal[3];
    skim_body_point_to_world(body, point, world_point);
    skim_body_vector_to_world(body, normal, world_normal);
    out->hit = true;
    out->t = best.t;
    out->point = (skim_vec3){ (float)world_point[0], (float)world_point[1], (float)world_point[2] };
    out->normal = (skim_vec3){ (float)world_normal[0], (float)world_normal[1], (float)world_normal[2] };
    out->triangle = best.triangle;
    out->body = body->id;
    return SKIM_OK;
}

skim_status skim_sweep_bodies(const skim_world *world, const skim_ellipsoid *shape,
                              const float start[3], const float delta[3], const skim_query *query,
                              const skim_kernel_set *kernels, skim_candidates *candidates,
                              skim_hit *out)
{
    const float radius = fmaxf(shape->radii.x, fmaxf(shape->radii.y, shape->radii.z));
    /* Only bodies the path can reach before the static contact. */
    const float reach = out->hit ? out->t : 1.0f;
    const float short_delta[3] = { delta[0] * reach, delta[1] * reach, delta[2] * reach };
    float box_min[3], box_max[3];
    skim_sweep_box(start, short_delta, radius, box_min, box_max);
    const double from[3] = { start[0], start[1], start[2] };
    const double along[3] = { delta[0], delta[1], delta[2] };
    const skim_body_table *table = &world->bodies;
    /* The bodies whose boxes meet, in increasing table index (as a scan of
       every box visits them), found through the boxes sorted along x;
       beyond MARKED_BODIES bodies every box is tested. */
    if (table->count > MARKED_BODIES) {
        for (uint32_t i = 0; i < table->count; ++i) {
            const skim_body *body = &table->body[i];
            if (!skim_body_box_overlaps(body, box_min, box_max))
                continue;
            skim_status status = sweep_body(body, shape, from, along, query, kernels, candidates, out);
            if (status != SKIM_OK)
                return status;
        }
        return SKIM_OK;
    }
    uint64_t meets[MARKED_BODIES / 64];
    if (!skim_box_index_query(&table->boxes, box_min, box_max, meets))
        return SKIM_OK;
    for (size_t w = 0; w < skim_box_words(table->count); ++w)
        for (uint64_t bits = meets[w]; bits; bits &= bits - 1) {
            const skim_body *body = &table->body[64 * w + (size_t)__builtin_ctzll(bits)];
            skim_status status = sweep_body(body, shape, from, along, query, kernels, candidates, out);
            if (status != SKIM_OK)
                return status;
        }
    return SKIM_OK;
}
