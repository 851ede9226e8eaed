/* skim_overlap: every triangle an ellipsoid at a place overlaps or touches.
   A triangle is in when its nearest point to the centre, in the shape's
   unit-sphere space (Rouwé, "Swept Spheres and Ellipsoids", section 4:
   the ellipsoid becomes the unit sphere), is at most 1 away; in double, so
   the answer is the geometry's and not float's. */
#include "query/query_internal.h"
#include "gather/gather.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct overlap_search {
    const skim_world *world;
    double   center[3];
    double   to_unit[3][3];
    uint64_t mask;
    bool     cull_back_faces;
    uint32_t *found;
    uint32_t count, capacity;
    bool     out_of_memory;
} overlap_search;

static bool overlaps(const overlap_search *s, uint32_t stored)
{
    double c[3][3], u[3][3];
    skim_stored_corners(s->world, stored, c);
    for (int v = 0; v < 3; ++v) {
        const double rel[3] = { c[v][0] - s->center[0], c[v][1] - s->center[1], c[v][2] - s->center[2] };
        for (int row = 0; row < 3; ++row)
            u[v][row] = s->to_unit[row][0] * rel[0] + s->to_unit[row][1] * rel[1] +
                        s->to_unit[row][2] * rel[2];
    }
    if (s->cull_back_faces) {
        /* The centre behind the plane sees only the back: culled. Unit
           space keeps which side of a plane a point is on. */
        const double e1[3] = { u[1][0] - u[0][0], u[1][1] - u[0][1], u[1][2] - u[0][2] };
        const double e2[3] = { u[2][0] - u[0][0], u[2][1] - u[0][1], u[2][2] - u[0][2] };
        const double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                              e1[0] * e2[1] - e1[1] * e2[0] };
        if (-(n[0] * u[0][0] + n[1] * u[0][1] + n[2] * u[0][2]) < 0.0)
            return false;
    }
    const double origin[3] = { 0.0, 0.0, 0.0 };
    double q[3];
    skim_closest_on_triangle(origin, u[0], u[1], u[2], q);
    return q[0] * q[0] + q[1] * q[1] + q[2] * q[2] <= 1.0;
}

static void visit_run(void *context, uint32_t first, uint32_t count)
{
    overlap_search *s = context;
    for (uint32_t i = first; i < first + count && !s->out_of_memory; ++i) {
        if (!skim_query_material_collides(s->world, i, s->mask) || !overlaps(s, i))
            continue;
        if (s->count == s->capacity) {
            const uint32_t grown = s->capacity ? 2 * s->capacity : 64;
            uint32_t *bigger = realloc(s->found, grown * sizeof *bigger);
            if (!bigger) {
                s->out_of_memory = true;
                return;
            }
            s->found = bigger;
            s->capacity = grown;
        }
        s->found[s->count++] = s->world->triangle_index[i];
    }
}

static int compare_indices(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The triangles found, in increasing index, written from out[at] on as
   far as capacity goes; how many there were. */
static uint32_t sort_and_write(overlap_search *s, skim_triangle_ref *out, uint32_t capacity,
                               uint32_t at, uint32_t body)
{
    if (s->out_of_memory)
        return 0;
    if (s->count > 1) /* found is NULL when nothing was */
        qsort(s->found, s->count, sizeof *s->found, compare_indices);
    for (uint32_t i = 0; i < s->count && at + i < capacity; ++i)
        out[at + i] = (skim_triangle_ref){ s->found[i], body };
    return s->count;
}

skim_status skim_overlap(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 center,
                         const skim_query *query, skim_triangle_ref *out, uint32_t capacity,
                         uint32_t *count)
{
    if (!count)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_overlap: count is NULL");
    *count = 0;
    if (!out && capacity > 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_overlap: out is NULL with a capacity of %u", capacity);
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_overlap: world is NULL");
    skim_status status = skim_check_ellipsoid(shape, "skim_overlap: shape");
    if (status != SKIM_OK)
        return status;
    if (!skim_within_coordinate_range(center))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_overlap: center is not finite or beyond %g",
                         (double)SKIM_COORDINATE_MAX);
    status = skim_check_query(query, "skim_overlap: query");
    if (status != SKIM_OK)
        return status;
    const skim_query defaults = skim_query_default();
    if (!query)
        query = &defaults;
    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, shape);
    overlap_search s = { .world = world, .center = { center.x, center.y, center.z },
                         .mask = query->material_mask, .cull_back_faces = query->cull_back_faces };
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col)
            s.to_unit[row][col] = space.to_unit[row][col];
    /* The box around the bounding sphere, grown past float's rounding of
       center +- radius (the to_unit matrix is the shape's own, so its
       unit sphere lies inside the bounding radius up to that rounding). */
    float lo[3], hi[3];
    for (int axis = 0; axis < 3; ++axis) {
        const double margin = (double)space.bounding_radius * (1.0 + 1e-5) + 1e-6 * fabs(s.center[axis]);
        lo[axis] = (float)(s.center[axis] - margin);
        hi[axis] = (float)(s.center[axis] + margin);
    }
    if (world->triangle_count > 0)
        skim_world_visit_box(world, lo, hi, visit_run, &s);
    uint32_t total = sort_and_write(&s, out, capacity, 0, SKIM_STATIC);
    /* Then each body the box meets, in increasing id: the centre and the
       unit-sphere map taken into the body's space (unit = M^-1 (R p + t - c)
       = (M^-1 R) (p - R^T (c - t)) for a point p of the body's mesh). */
    const skim_body_table *table = &world->bodies;
    for (uint32_t b = 0; b < table->count && !s.out_of_memory; ++b) {
        const skim_body *body = &table->body[b];
        if (!skim_body_box_overlaps(body, lo, hi))
            continue;
        const double c[3] = { center.x, center.y, center.z };
        skim_body_point_to_local(body, c, s.center);
        for (int row = 0; row < 3; ++row)
            for (int col = 0; col < 3; ++col)
                s.to_unit[row][col] = space.to_unit[row][0] * body->rotation[0][col] +
                                      space.to_unit[row][1] * body->rotation[1][col] +
                                      space.to_unit[row][2] * body->rotation[2][col];
        float local_lo[3], local_hi[3];
        skim_body_box_to_local(body, lo, hi, local_lo, local_hi);
        s.world = body->shape;
        s.count = 0;
        if (body->shape->triangle_count > 0)
            skim_world_visit_box(body->shape, local_lo, local_hi, visit_run, &s);
        total += sort_and_write(&s, out, capacity, total, body->id);
    }
    if (s.out_of_memory) {
        free(s.found);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_overlap: no memory for the triangles found");
    }
    *count = total;
    free(s.found);
    return SKIM_OK;
}
