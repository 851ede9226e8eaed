/* skim_closest_point: the nearest point of the world within a distance. */
#include "query/query_internal.h"
#include "bvh/bvh.h"

#include <math.h>
#include <string.h>

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Ericson, Real-Time Collision Detection, 5.1.5: the Voronoi regions of
   the corners, then the edges, then the face. */
void skim_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                              const double c[3], double out[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int i = 0; i < 3; ++i) {
        ab[i] = b[i] - a[i], ac[i] = c[i] - a[i], ap[i] = p[i] - a[i];
        bp[i] = p[i] - b[i], cp[i] = p[i] - c[i];
    }
    const double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        memcpy(out, a, 3 * sizeof *out);
        return;
    }
    const double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        memcpy(out, b, 3 * sizeof *out);
        return;
    }
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        const double v = d1 / (d1 - d3);
        for (int i = 0; i < 3; ++i)
            out[i] = a[i] + v * ab[i];
        return;
    }
    const double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        memcpy(out, c, 3 * sizeof *out);
        return;
    }
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        const double w = d2 / (d2 - d6);
        for (int i = 0; i < 3; ++i)
            out[i] = a[i] + w * ac[i];
        return;
    }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int i = 0; i < 3; ++i)
            out[i] = b[i] + w * (c[i] - b[i]);
        return;
    }
    const double denom = 1.0 / (va + vb + vc);
    const double v = vb * denom, w = vc * denom;
    for (int i = 0; i < 3; ++i)
        out[i] = a[i] + ab[i] * v + ac[i] * w;
}

typedef struct closest_search {
    const skim_world *world;
    double   p[3];
    uint64_t mask;
    bool     cull_back_faces;
    double   best_squared;   /* the bound: max_distance squared, then the best found */
    uint32_t caller;         /* UINT32_MAX: none yet */
    double   point[3];
} closest_search;

static void test_run(closest_search *s, uint32_t first, uint32_t count)
{
    const skim_world *world = s->world;
    for (uint32_t i = first; i < first + count; ++i) {
        if (!skim_query_material_collides(world, i, s->mask))
            continue;
        double c[3][3], q[3];
        skim_stored_corners(world, i, c);
        if (s->cull_back_faces) {
            /* A point behind the triangle's plane sees only its back. */
            const double e1[3] = { c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2] };
            const double e2[3] = { c[2][0] - c[0][0], c[2][1] - c[0][1], c[2][2] - c[0][2] };
            const double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                  e1[0] * e2[1] - e1[1] * e2[0] };
            const double to_p[3] = { s->p[0] - c[0][0], s->p[1] - c[0][1], s->p[2] - c[0][2] };
            if (dot3(n, to_p) < 0.0)
                continue;
        }
        skim_closest_on_triangle(s->p, c[0], c[1], c[2], q);
        const double d[3] = { q[0] - s->p[0], q[1] - s->p[1], q[2] - s->p[2] };
        const double squared = dot3(d, d);
        const uint32_t caller = world->triangle_index[i];
        if (squared < s->best_squared ||
            (squared == s->best_squared && (s->caller == UINT32_MAX || caller < s->caller))) {
            s->best_squared = squared;
            s->caller = caller;
            memcpy(s->point, q, sizeof s->point);
        }
    }
}

/* The box around p that holds every point within sqrt(squared), grown by
   more than the rounding of p +- the distance in float. */
static void search_box(const closest_search *s, float lo[3], float hi[3])
{
    const double distance = sqrt(s->best_squared);
    for (int axis = 0; axis < 3; ++axis) {
        const double margin = distance * (1.0 + 1e-6) + 1e-6 * fabs(s->p[axis]) + 1e-30;
        lo[axis] = (float)(s->p[axis] - margin);
        hi[axis] = (float)(s->p[axis] + margin);
    }
}

/* The BVH's resumable box walk, a few leaves at a time, with the box shrunk
   to the best distance found so far between batches. */
static void search_bvh(closest_search *s)
{
    skim_bvh_walk walk;
    float lo[3], hi[3];
    search_box(s, lo, hi);
    skim_bvh_walk_begin(&walk, s->world->bvh, s->world->bounds_min, s->world->bounds_max, lo, hi);
    uint32_t refs[SKIM_BVH_WIDTH];
    uint32_t count;
    while ((count = skim_bvh_walk_leaves(&walk, refs, SKIM_BVH_WIDTH)) != 0) {
        for (uint32_t i = 0; i < count; ++i)
            test_run(s, skim_bvh_leaf_first(refs[i]), skim_bvh_leaf_count(refs[i]));
        search_box(s, walk.query_min, walk.query_max);
    }
}

skim_status skim_closest_point(const skim_world *world, skim_vec3 point, float max_distance,
                               const skim_query *query, skim_closest *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_closest_point: out is NULL");
    memset(out, 0, sizeof *out);
    out->triangle = UINT32_MAX;
    out->body = SKIM_STATIC;
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_closest_point: world is NULL");
    if (!skim_within_coordinate_range(point))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_closest_point: point is not finite or beyond %g",
                         (double)SKIM_COORDINATE_MAX);
    if (!(max_distance >= 0.0f && max_distance <= SKIM_COORDINATE_MAX))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_closest_point: max_distance must be finite, >= 0 and at most %g "
                         "(got %g)", (double)SKIM_COORDINATE_MAX, (double)max_distance);
    skim_status query_status = skim_check_query(query, "skim_closest_point: query");
    if (query_status != SKIM_OK)
        return query_status;
    const skim_query defaults = skim_query_default();
    if (!query)
        query = &defaults;
    closest_search s = { .world = world, .p = { point.x, point.y, point.z },
                         .mask = query->material_mask, .cull_back_faces = query->cull_back_faces,
                         .best_squared = (double)max_distance * (double)max_distance,
                         .caller = UINT32_MAX };
    if (world->triangle_count > 0) {
        if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh)
            search_bvh(&s);
        else
            test_run(&s, 0, world->triangle_count);
    }
    uint32_t body_id = SKIM_STATIC;
    /* Then the bodies whose box lies within the best distance so far, in
       increasing id, each searched in its own space (a rigid transform
       keeps distances); only a strictly nearer point replaces the answer,
       so a tie keeps the static triangle, then the lower body id. */
    const skim_body_table *table = &world->bodies;
    for (uint32_t b = 0; b < table->count; ++b) {
        const skim_body *body = &table->body[b];
        float lo[3], hi[3];
        search_box(&s, lo, hi);
        if (!skim_body_box_overlaps(body, lo, hi) || body->shape->triangle_count == 0)
            continue;
        closest_search local = { .world = body->shape, .mask = s.mask,
                                 .cull_back_faces = s.cull_back_faces,
                                 .best_squared = s.best_squared, .caller = UINT32_MAX };
        skim_body_point_to_local(body, s.p, local.p);
        if (body->shape->accelerator == SKIM_ACCELERATOR_BVH && body->shape->bvh)
            search_bvh(&local);
        else
            test_run(&local, 0, body->shape->triangle_count);
        if (local.caller == UINT32_MAX || !(local.best_squared < s.best_squared || s.caller == UINT32_MAX))
            continue;
        s.best_squared = local.best_squared;
        s.caller = local.caller;
        skim_body_point_to_world(body, local.point, s.point);
        body_id = body->id;
    }
    if (s.caller == UINT32_MAX)
        return SKIM_OK;
    out->found = true;
    out->distance = (float)sqrt(s.best_squared);
    out->point = (skim_vec3){ (float)s.point[0], (float)s.point[1], (float)s.point[2] };
    out->triangle = s.caller;
    out->body = body_id;
    return SKIM_OK;
}
