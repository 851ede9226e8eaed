/* skim_world_add_body / set_body_transform / remove_body /
   get_body_transform: the world's body table (body.h), its checks, and each
   body's placement (matrix and world-space box). */
#include "world/world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void skim_quat_matrix(const double q[4], double m[3][3])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1.0 - 2.0 * (y * y + z * z);
    m[0][1] = 2.0 * (x * y - w * z);
    m[0][2] = 2.0 * (x * z + w * y);
    m[1][0] = 2.0 * (x * y + w * z);
    m[1][1] = 1.0 - 2.0 * (x * x + z * z);
    m[1][2] = 2.0 * (y * z - w * x);
    m[2][0] = 2.0 * (x * z - w * y);
    m[2][1] = 2.0 * (y * z + w * x);
    m[2][2] = 1.0 - 2.0 * (x * x + y * y);
}

void skim_body_point_to_local(const skim_body *body, const double world[3], double local[3])
{
    const double d[3] = { world[0] - body->position[0], world[1] - body->position[1],
                          world[2] - body->position[2] };
    skim_body_vector_to_local(body, d, local);
}

void skim_body_vector_to_local(const skim_body *body, const double world[3], double local[3])
{
    /* The inverse of a rotation is its transpose. */
    for (int i = 0; i < 3; ++i)
        local[i] = body->rotation[0][i] * world[0] + body->rotation[1][i] * world[1] +
                   body->rotation[2][i] * world[2];
}

void skim_body_vector_to_world(const skim_body *body, const double local[3], double world[3])
{
    for (int i = 0; i < 3; ++i)
        world[i] = body->rotation[i][0] * local[0] + body->rotation[i][1] * local[1] +
                   body->rotation[i][2] * local[2];
}

void skim_body_point_to_world(const skim_body *body, const double local[3], double world[3])
{
    skim_body_vector_to_world(body, local, world);
    for (int i = 0; i < 3; ++i)
        world[i] += body->position[i];
}

/* A box turned by a rotation: its centre turned, its half extents through
   |rotation| (Arvo, "Transforming Axis-Aligned Bounding Boxes", Graphics
   Gems). Rounded outward by a relative 1e-6 and a float step, so the float
   box holds the exact one. */
static void turn_box(const double rotation[3][3], bool transpose, const double shift[3],
                     const float lo[3], const float hi[3], float out_lo[3], float out_hi[3])
{
    double centre[3], half[3];
    for (int i = 0; i < 3; ++i) {
        centre[i] = 0.5 * ((double)lo[i] + (double)hi[i]);
        half[i] = 0.5 * ((double)hi[i] - (double)lo[i]);
    }
    for (int i = 0; i < 3; ++i) {
        double c = 0.0, h = 0.0;
        for (int j = 0; j < 3; ++j) {
            const double r = transpose ? rotation[j][i] : rotation[i][j];
            c += r * centre[j];
            h += fabs(r) * half[j];
        }
        c += shift[i];
        const double margin = 1e-6 * (fabs(c) + h);
        out_lo[i] = skim_float_below((float)(c - h - margin));
        out_hi[i] = skim_float_above((float)(c + h + margin));
    }
}

void skim_body_box_to_local(const skim_body *body, const float lo[3], const float hi[3],
                            float local_lo[3], float local_hi[3])
{
    turn_box(body->rotation, true, body->local_origin, lo, hi, local_lo, local_hi);
}

void skim_body_place_triangle(const skim_body *body, uint32_t stored, skim_placed_triangle *out)
{
    double corner[3][3];
    skim_stored_corners(body->shape, stored, corner);
    for (int axis = 0; axis < 3; ++axis) {
        out->lo[axis] = INFINITY;
        out->hi[axis] = -INFINITY;
    }
    for (int c = 0; c < 3; ++c) {
        double *placed = out->corner[c];
        skim_body_point_to_world(body, corner[c], placed);
        for (int axis = 0; axis < 3; ++axis) {
            out->lo[axis] = placed[axis] < out->lo[axis] ? placed[axis] : out->lo[axis];
            out->hi[axis] = placed[axis] > out->hi[axis] ? placed[axis] : out->hi[axis];
        }
    }
}

/* A small body's triangles placed once per transform: the moves of a
   crowd gather the same few triangles of a body many times a step, and
   would place them again each time. */
static void place_triangles(skim_body *body)
{
    if (!body->placed)
        return;
    for (uint32_t stored = 0; stored < body->shape->triangle_count; ++stored)
        skim_body_place_triangle(body, stored, &body->placed[stored]);
}

const skim_body *skim_body_find(const skim_world *world, uint32_t id)
{
    const skim_body_table *table = &world->bodies;
    uint32_t lo = 0, hi = table->count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (table->body[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < table->count && table->body[lo].id == id ? &table->body[lo] : NULL;
}

void skim_world_all_bounds(const skim_world *world, skim_vec3 *lo, skim_vec3 *hi)
{
    const bool bodies = world->bodies.count > 0;
    *lo = bodies ? world->bodies.all_min : world->bounds_min;
    *hi = bodies ? world->bodies.all_max : world->bounds_max;
}

/* The smaller and the larger of two bounds that are not NaN, as fminf and
   fmaxf give them (the second when they compare equal) without the libm
   call. */
static float lower(float a, float b)
{
    return a < b ? a : b;
}

static float higher(float a, float b)
{
    return a > b ? a : b;
}

/* The table's bounds again (and with the world's own, for
   skim_world_all_bounds, which every move asks), and its box index sorted
   anew (add, remove) or only body `moved` put in its place (a new
   transform). */
static void grow_bounds(skim_world *world, const skim_body *moved)
{
    skim_body_table *table = &world->bodies;
    for (int axis = 0; axis < 3; ++axis) {
        table->bounds_min[axis] = INFINITY;
        table->bounds_max[axis] = -INFINITY;
    }
    for (uint32_t i = 0; i < table->count; ++i) {
        const skim_body *b = &table->body[i];
        for (int axis = 0; axis < 3; ++axis) {
            table->bounds_min[axis] = lower(table->bounds_min[axis], b->box_min[axis]);
            table->bounds_max[axis] = higher(table->bounds_max[axis], b->box_max[axis]);
        }
        if (!moved)
            skim_box_index_set(&table->boxes, i, b->box_min, b->box_max);
    }
    const skim_vec3 lo = world->bounds_min, hi = world->bounds_max;
    table->all_min = (skim_vec3){ lower(lo.x, table->bounds_min[0]), lower(lo.y, table->bounds_min[1]),
                                  lower(lo.z, table->bounds_min[2]) };
    table->all_max = (skim_vec3){ higher(hi.x, table->bounds_max[0]), higher(hi.y, table->bounds_max[1]),
                                  higher(hi.z, table->bounds_max[2]) };
    if (moved)
        skim_box_index_update(&table->boxes, (uint32_t)(moved - table->body), moved->box_min, moved->box_max);
    else
        skim_box_index_sort(&table->boxes, table->count);
}

/* The transform checked and renormalised, its matrix and the body's box
   made; nothing is written to *body on failure. */
static skim_status place(skim_body *body, const skim_world *shape, skim_transform t, const char *who)
{
    const skim_quat q = t.rotation;
    if (!(isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w)))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: transform.rotation is not finite", who);
    const double norm = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z +
                             (double)q.w * q.w);
    if (!(fabs(norm - 1.0) <= 1e-3))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: transform.rotation is not a unit quaternion (length %.9g, allowed "
                         "1 +- 1e-3)", who, norm);
    if (!skim_within_coordinate_range(t.position))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: transform.position is not finite or beyond %g", who,
                         (double)SKIM_COORDINATE_MAX);
    const double unit[4] = { q.x / norm, q.y / norm, q.z / norm, q.w / norm };
    skim_body placed = *body;
    skim_quat_matrix(unit, placed.rotation);
    placed.position[0] = t.position.x;
    placed.position[1] = t.position.y;
    placed.position[2] = t.position.z;
    const double minus_position[3] = { -placed.position[0], -placed.position[1], -placed.position[2] };
    skim_body_vector_to_local(&placed, minus_position, placed.local_origin);
    const float shape_min[3] = { shape->bounds_min.x, shape->bounds_min.y, shape->bounds_min.z };
    const float shape_max[3] = { shape->bounds_max.x, shape->bounds_max.y, shape->bounds_max.z };
    turn_box(placed.rotation, false, placed.position, shape_min, shape_max, placed.box_min,
             placed.box_max);
    for (int axis = 0; axis < 3; ++axis)
        if (!(fabsf(placed.box_min[axis]) <= SKIM_COORDINATE_MAX &&
              fabsf(placed.box_max[axis]) <= SKIM_COORDINATE_MAX))
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "%s: at this transform the body reaches beyond %g", who,
                             (double)SKIM_COORDINATE_MAX);
    placed.now = (skim_transform){ t.position, { (float)unit[0], (float)unit[1], (float)unit[2],
                                                 (float)unit[3] } };
    *body = placed;
    place_triangles(body);
    return SKIM_OK;
}

skim_status skim_world_add_body(skim_world *world, const skim_world *shape, skim_transform transform,
                                uint32_t *out_id)
{
    static const char who[] = "skim_world_add_body";
    if (!out_id)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: out_id is NULL", who);
    *out_id = SKIM_STATIC;
    if (!world || !shape)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", who, world ? "shape" : "world");
    if (shape == world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: shape is the world itself", who);
    if (shape->bodies.count > 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: shape has %u bodies of its own; bodies do not nest", who,
                         shape->bodies.count);
    if (__atomic_load_n(&world->shape_uses, __ATOMIC_ACQUIRE) > 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: world is the shape of another world's body; bodies do not nest", who);
    skim_body_table *table = &world->bodies;
    if (table->next_id == SKIM_STATIC)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: every body id has been used", who);
    skim_body body = { .id = table->next_id, .shape = shape };
    if (shape->triangle_count <= SKIM_BODY_PLACED_MAX && shape->triangle_count > 0) {
        body.placed = malloc((size_t)shape->triangle_count * sizeof *body.placed);
        if (!body.placed)
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "%s: no memory for the body's %u placed triangles", who,
                             shape->triangle_count);
    }
    skim_status status = place(&body, shape, transform, who);
    if (status != SKIM_OK) {
        free(body.placed);
        return status;
    }
    body.before = body.now;
    if (table->count == table->capacity) {
        const uint32_t capacity = table->capacity ? 2 * table->capacity : 8;
        skim_body *grown = realloc(table->body, (size_t)capacity * sizeof *grown);
        if (grown)
            table->body = grown;
        if (!grown || !skim_box_index_reserve(&table->boxes, capacity)) {
            free(body.placed);
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "%s: no memory for %u bodies", who, capacity);
        }
        table->capacity = capacity;
    }
    /* Ids only grow, so appending keeps the table in increasing id. */
    table->body[table->count++] = body;
    table->next_id++;
    __atomic_add_fetch(&((skim_world *)shape)->shape_uses, 1u, __ATOMIC_ACQ_REL);
    grow_bounds(world, NULL);
    *out_id = body.id;
    return SKIM_OK;
}

static skim_status unknown_id(const skim_world *world, uint32_t id, const char *who)
{
    if (id < world->bodies.next_id)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: body %u was removed", who, id);
    return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: no body has id %u (ids given so far: %u)",
                     who, id, world->bodies.next_id);
}

skim_status skim_world_set_body_transform(skim_world *world, uint32_t id, skim_transform transform)
{
    static const char who[] = "skim_world_set_body_transform";
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    skim_body *body = (skim_body *)skim_body_find(world, id);
    if (!body)
        return unknown_id(world, id, who);
    const skim_transform before = body->now;
    skim_status status = place(body, body->shape, transform, who);
    if (status != SKIM_OK)
        return status;
    body->before = before;
    grow_bounds(world, body);
    return SKIM_OK;
}

skim_status skim_world_remove_body(skim_world *world, uint32_t id)
{
    static const char who[] = "skim_world_remove_body";
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    skim_body *body = (skim_body *)skim_body_find(world, id);
    if (!body)
        return unknown_id(world, id, who);
    skim_body_table *table = &world->bodies;
    __atomic_sub_fetch(&((skim_world *)body->shape)->shape_uses, 1u, __ATOMIC_ACQ_REL);
    const size_t at = (size_t)(body - table->body);
    free(body->placed);
    memmove(body, body + 1, (table->count - at - 1) * sizeof *body);
    table->count--;
    grow_bounds(world, NULL);
    return SKIM_OK;
}

skim_status skim_world_get_body_transform(const skim_world *world, uint32_t id, skim_transform *now,
                                          skim_transform *before)
{
    static const char who[] = "skim_world_get_body_transform";
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    const skim_body *body = skim_body_find(world, id);
    if (!body)
        return unknown_id(world, id, who);
    if (now)
        *now = body->now;
    if (before)
        *before = body->before;
    return SKIM_OK;
}

void skim_bodies_release(skim_world *world)
{
    skim_body_table *table = &world->bodies;
    for (uint32_t i = 0; i < table->count; ++i) {
        __atomic_sub_fetch(&((skim_world *)table->body[i].shape)->shape_uses, 1u, __ATOMIC_ACQ_REL);
        free(table->body[i].placed);
    }
    free(table->body);
    skim_box_index_free(&table->boxes);
    memset(table, 0, sizeof *table);
}
