/* A small body keeps its triangles placed in the world (body.h): they
   follow every transform and removal, and moves against a body too large
   to keep them, placed per gather instead, give the same bits as moves
   against the same triangles in a small body. */
#include "bodies_scenes.h"
#include "world/world.h"

#include <string.h>

static const skim_ellipsoid player = { { 16, 16, 16 }, { 0, 0, 0, 1 } };

/* Every kept triangle of body `id` as a fresh placement gives it. */
static void expect_placed_current(const skim_world *level, uint32_t id)
{
    const skim_body *body = skim_body_find(level, id);
    cr_assert(body);
    cr_assert(body->placed, "a 12-triangle body keeps its triangles placed");
    for (uint32_t stored = 0; stored < body->shape->triangle_count; ++stored) {
        skim_placed_triangle fresh;
        skim_body_place_triangle(body, stored, &fresh);
        cr_expect_eq(memcmp(&fresh, &body->placed[stored], sizeof fresh), 0, "body %u, stored triangle %u", id,
                     stored);
    }
}

Test(bodies_placed, placed_triangles_follow_every_transform_and_removal)
{
    skim_mesh_data ground, slab;
    box_mesh((float[3]){ -512, -512, -16 }, (float[3]){ 512, 512, 0 }, &ground);
    box_mesh((float[3]){ -64, -32, -8 }, (float[3]){ 64, 32, 0 }, &slab);
    skim_world *level = world_of(&ground), *shape = world_of(&slab);
    uint32_t ids[3];
    for (int k = 0; k < 3; ++k) {
        const skim_transform t = { { 100.0f * (float)k, 0, 50 }, axis_angle(0, 0, 1, 0.3 * k) };
        cr_assert_eq(skim_world_add_body(level, shape, t, &ids[k]), SKIM_OK, "%s", skim_last_error_message());
    }
    for (int step = 0; step < 5; ++step)
        for (int k = 0; k < 3; ++k) {
            const skim_transform t = { { 100.0f * (float)k + 3.5f * (float)step, -7.25f * (float)step, 50 },
                                       axis_angle(0.6, 0, 0.8, 0.3 * k + 0.11 * step) };
            cr_assert_eq(skim_world_set_body_transform(level, ids[k], t), SKIM_OK);
            expect_placed_current(level, ids[k]);
        }
    /* The bodies after a removed one move down the table: theirs go along. */
    cr_assert_eq(skim_world_remove_body(level, ids[0]), SKIM_OK);
    expect_placed_current(level, ids[1]);
    expect_placed_current(level, ids[2]);
    skim_world_destroy(level);
    skim_world_destroy(shape);
    skim_mesh_data_free(&ground);
    skim_mesh_data_free(&slab);
}

/* The box's 12 triangles first, then `extra` small triangles 2000 units
   below it (far from every mover), so the shape has more triangles than a
   body keeps placed and the box's triangles keep their indices. */
static void box_and_far_triangles(const skim_mesh_data *box, uint32_t extra, skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    out->vertex_count = box->vertex_count + 3 * extra;
    out->triangle_count = box->triangle_count + extra;
    out->positions = malloc(3 * sizeof(float) * out->vertex_count);
    out->indices = malloc(3 * sizeof(uint32_t) * out->triangle_count);
    out->materials = calloc(out->triangle_count, sizeof(uint16_t));
    memcpy(out->positions, box->positions, 3 * sizeof(float) * box->vertex_count);
    memcpy(out->indices, box->indices, 3 * sizeof(uint32_t) * box->triangle_count);
    for (uint32_t k = 0; k < extra; ++k) {
        float *p = out->positions + 3 * (box->vertex_count + 3 * k);
        const float x = 4.0f * (float)(k % 40) - 80.0f, y = 4.0f * (float)(k / 40) - 60.0f;
        const float corners[9] = { x, y, -2000, x + 2, y, -2000, x, y + 2, -2000 };
        memcpy(p, corners, sizeof corners);
        uint32_t *t = out->indices + 3 * (box->triangle_count + k);
        for (int v = 0; v < 3; ++v)
            t[v] = box->vertex_count + 3 * k + (uint32_t)v;
    }
}

Test(bodies_placed, moves_against_a_large_body_match_the_same_triangles_in_a_small_one)
{
    skim_mesh_data ground, slab, large;
    box_mesh((float[3]){ -512, -512, -16 }, (float[3]){ 512, 512, 0 }, &ground);
    box_mesh((float[3]){ -80, -40, 0 }, (float[3]){ 80, 40, 24 }, &slab);
    box_and_far_triangles(&slab, SKIM_BODY_PLACED_MAX + 76, &large);
    skim_world *small_level = world_of(&ground), *large_level = world_of(&ground);
    skim_world *small_shape = world_of(&slab), *large_shape = world_of(&large);
    uint32_t small_id, large_id;
    const skim_transform start = { { 0, 0, 0 }, axis_angle(0, 0, 1, 0.5) };
    cr_assert_eq(skim_world_add_body(small_level, small_shape, start, &small_id), SKIM_OK);
    cr_assert_eq(skim_world_add_body(large_level, large_shape, start, &large_id), SKIM_OK);
    cr_assert(skim_body_find(small_level, small_id)->placed);
    cr_assert_null(skim_body_find(large_level, large_id)->placed, "too many triangles to keep placed");
    skim_move_def def = skim_move_def_default();
    def.step_height = 18;
    def.gravity = (skim_vec3){ 0, 0, -6 };
    int touched = 0;
    for (int frame = 0; frame < 12; ++frame) {
        const skim_transform t = { { 4.0f * (float)frame, -3.0f * (float)frame, 0 },
                                   axis_angle(0.1, 0, 0.995, 0.5 + 0.07 * frame) };
        cr_assert_eq(skim_world_set_body_transform(small_level, small_id, t), SKIM_OK);
        cr_assert_eq(skim_world_set_body_transform(large_level, large_id, t), SKIM_OK);
        for (int i = 0; i < 24; ++i) {
            const double angle = 0.2618 * i;
            const skim_vec3 from = { (float)(140.0 * cos(angle)), (float)(140.0 * sin(angle)), 17.0f + (float)(i % 3) * 20.0f };
            const skim_vec3 by = { -from.x * 0.9f, -from.y * 0.9f, 0 };
            skim_move_result a, b;
            cr_assert_eq(skim_move(small_level, &player, from, by, &def, &a), SKIM_OK);
            cr_assert_eq(skim_move(large_level, &player, from, by, &def, &b), SKIM_OK);
            cr_expect_eq(memcmp(&a.position, &b.position, sizeof a.position), 0,
                         "frame %d, mover %d: (%.9g %.9g %.9g) against (%.9g %.9g %.9g)", frame, i, a.position.x,
                         a.position.y, a.position.z, b.position.x, b.position.y, b.position.z);
            cr_expect_eq(a.touched, b.touched, "frame %d, mover %d", frame, i);
            cr_expect_eq(a.floor_triangle, b.floor_triangle, "frame %d, mover %d", frame, i);
            touched += a.floor_body == small_id || (a.touched & SKIM_TOUCH_WALL);
        }
    }
    cr_expect_gt(touched, 100, "the movers meet the body (%d moves)", touched);
    skim_world_destroy(small_level);
    skim_world_destroy(large_level);
    skim_world_destroy(small_shape);
    skim_world_destroy(large_shape);
    skim_mesh_data_free(&ground);
    skim_mesh_data_free(&slab);
    skim_mesh_data_free(&large);
}
