/* Overlaps, closest points, floor drops and spawn places see bodies: on a
   world holding turned bodies they answer as on a static world built from
   the same triangles in place (the brute force over every triangle), with
   each triangle named by its body and its index in the body's mesh. */
#include "bodies_scenes.h"

/* A ground slab as the static world, three turned copies of a subdivided
   cube as bodies; and the same triangles built in place, the ground's
   first, then each body's. */
typedef struct scene {
    skim_mesh_data ground, cube, joined;
    skim_world *level, *shape, *built;
    uint32_t ids[3];
} scene;

static const skim_transform places[3] = {
    { { 0, 0, 70 }, { 0.0f, 0.0f, 0.38268343f, 0.92387953f } },
    { { 200, 40, 90 }, { 0.2f, 0.4f, 0.0f, 0.89442719f } },
    { { -150, -120, 60 }, { 0.0f, 0.0f, 0.0f, 1.0f } },
};

static void append(skim_mesh_data *into, const skim_mesh_data *more)
{
    const uint32_t v = into->vertex_count, t = into->triangle_count;
    into->positions = realloc(into->positions, 3 * sizeof(float) * (v + more->vertex_count));
    into->indices = realloc(into->indices, 3 * sizeof(uint32_t) * (t + more->triangle_count));
    into->materials = realloc(into->materials, sizeof(uint16_t) * (t + more->triangle_count));
    memcpy(into->positions + 3 * v, more->positions, 3 * sizeof(float) * more->vertex_count);
    for (uint32_t i = 0; i < 3 * more->triangle_count; ++i)
        into->indices[3 * t + i] = more->indices[i] + v;
    memset(into->materials + t, 0, sizeof(uint16_t) * more->triangle_count);
    into->vertex_count += more->vertex_count;
    into->triangle_count += more->triangle_count;
}

static void scene_make(scene *s)
{
    box_mesh((float[3]){ -400, -400, -16 }, (float[3]){ 400, 400, 0 }, &s->ground);
    query_subdivided_cube(3, &s->cube);
    for (uint32_t i = 0; i < 3 * s->cube.vertex_count; ++i)
        s->cube.positions[i] *= 48.0f;
    s->level = world_of(&s->ground);
    s->shape = world_of(&s->cube);
    memset(&s->joined, 0, sizeof s->joined);
    append(&s->joined, &s->ground);
    for (int k = 0; k < 3; ++k) {
        skim_mesh_data placed;
        placed_mesh(&s->cube, places[k], &placed);
        append(&s->joined, &placed);
        skim_mesh_data_free(&placed);
        cr_assert_eq(skim_world_add_body(s->level, s->shape, places[k], &s->ids[k]), SKIM_OK);
    }
    s->built = world_of(&s->joined);
}

static void scene_free(scene *s)
{
    skim_world_destroy(s->level);
    skim_world_destroy(s->shape);
    skim_world_destroy(s->built);
    skim_mesh_data_free(&s->ground);
    skim_mesh_data_free(&s->cube);
    skim_mesh_data_free(&s->joined);
}

/* The built world's index of a triangle the body world names. */
static uint32_t built_index(const scene *s, skim_triangle_ref ref)
{
    if (ref.body == SKIM_STATIC)
        return ref.triangle;
    for (int k = 0; k < 3; ++k)
        if (ref.body == s->ids[k])
            return s->ground.triangle_count + (uint32_t)k * s->cube.triangle_count + ref.triangle;
    return UINT32_MAX;
}

Test(bodies_queries, overlaps_list_static_then_each_body_as_the_brute_force, .timeout = 120)
{
    scene s;
    scene_make(&s);
    query_rng rng = { 3 };
    int queries = 0, differ = 0, found = 0;
    for (int i = 0; i < 1500; ++i) {
        const skim_ellipsoid shape = { { query_rng_range(&rng, 8, 30), query_rng_range(&rng, 8, 30), query_rng_range(&rng, 8, 30) },
                                       axis_angle(0.0, 0.6, 0.8, query_rng_range(&rng, 0, 6.28f)) };
        const skim_vec3 c = { query_rng_range(&rng, -250, 300), query_rng_range(&rng, -200, 150), query_rng_range(&rng, -20, 160) };
        skim_triangle_ref got[256], want[256];
        uint32_t n_got, n_want;
        cr_assert_eq(skim_overlap(s.level, &shape, c, NULL, got, 256, &n_got), SKIM_OK, "%s", skim_last_error_message());
        cr_assert_eq(skim_overlap(s.built, &shape, c, NULL, want, 256, &n_want), SKIM_OK);
        cr_assert_leq(n_got, 256u);
        queries++;
        found += n_got > 0;
        /* Order: static first, then bodies in increasing id, each in increasing index. */
        for (uint32_t k = 1; k < n_got; ++k) {
            const uint64_t before = (uint64_t)(got[k - 1].body == SKIM_STATIC ? 0 : got[k - 1].body + 1) << 32 | got[k - 1].triangle;
            const uint64_t after = (uint64_t)(got[k].body == SKIM_STATIC ? 0 : got[k].body + 1) << 32 | got[k].triangle;
            cr_expect_lt(before, after, "query %d: out of order at %u", i, k);
        }
        bool same = n_got == n_want;
        for (uint32_t k = 0; same && k < n_got; ++k)
            same = built_index(&s, got[k]) == want[k].triangle;
        differ += !same;
        /* A shorter buffer gives the same head. */
        uint32_t n_short;
        skim_triangle_ref head[3];
        cr_assert_eq(skim_overlap(s.level, &shape, c, NULL, head, 3, &n_short), SKIM_OK);
        cr_expect_eq(n_short, n_got);
        for (uint32_t k = 0; k < 3 && k < n_got; ++k)
            cr_expect(head[k].triangle == got[k].triangle && head[k].body == got[k].body);
    }
    cr_log_info("overlaps: %d queries, %d found something, %d differ", queries, found, differ);
    cr_expect_gt(found, queries / 5);
    /* A triangle within float rounding of touching may be in one list and
       not the other (the bodies' triangles are placed in double). */
    cr_expect_leq(differ * 100, queries, "%d of %d overlap lists differ", differ, queries);
    scene_free(&s);
}

Test(bodies_queries, closest_points_find_the_nearest_static_or_body_triangle, .timeout = 120)
{
    scene s;
    scene_make(&s);
    query_rng rng = { 9 };
    int queries = 0, differ = 0, misnamed = 0, on_body = 0;
    for (int i = 0; i < 2000; ++i) {
        const skim_vec3 p = { query_rng_range(&rng, -300, 350), query_rng_range(&rng, -250, 200), query_rng_range(&rng, -40, 200) };
        const float reach = query_rng_range(&rng, 5, 200);
        skim_closest got, want;
        cr_assert_eq(skim_closest_point(s.level, p, reach, NULL, &got), SKIM_OK);
        cr_assert_eq(skim_closest_point(s.built, p, reach, NULL, &want), SKIM_OK);
        queries++;
        if (got.found != want.found || (got.found && fabsf(got.distance - want.distance) > 1e-3f)) {
            differ++;
            continue;
        }
        if (!got.found)
            continue;
        on_body += got.body != SKIM_STATIC;
        misnamed += built_index(&s, (skim_triangle_ref){ got.triangle, got.body }) != want.triangle;
        const float dx = got.point.x - want.point.x, dy = got.point.y - want.point.y, dz = got.point.z - want.point.z;
        cr_expect_leq(sqrtf(dx * dx + dy * dy + dz * dz), 1e-2f, "query %d: points apart", i);
    }
    cr_log_info("closest: %d queries, %d on bodies, %d differ, %d named otherwise", queries, on_body, differ, misnamed);
    cr_expect_gt(on_body, queries / 10);
    cr_expect_leq(differ * 100, queries);
    /* Nearest points on an edge or corner shared by two triangles tie. */
    cr_expect_leq(misnamed * 10, queries);
    scene_free(&s);
}

Test(bodies_queries, a_shape_drops_onto_a_body, .timeout = 120)
{
    scene s;
    scene_make(&s);
    const skim_ellipsoid player = { { 16, 16, 16 }, identity_rotation };
    skim_move_result rest;
    /* Onto the unturned cube (body 2, top at z = 108). */
    cr_assert_eq(skim_drop_to_floor(s.level, &player, (skim_vec3){ -150, -120, 300 }, 400, NULL, &rest), SKIM_OK);
    cr_expect(rest.touched & SKIM_TOUCH_FLOOR);
    cr_expect_eq(rest.floor_body, s.ids[2]);
    cr_expect_float_eq(rest.position.z, 108.0f + 16.0f + 0.16f, 0.05f, "%g", rest.position.z);
    cr_assert_eq(skim_drop_to_floor(s.level, &player, (skim_vec3){ 350, 350, 300 }, 400, NULL, &rest), SKIM_OK);
    cr_expect_eq(rest.floor_body, SKIM_STATIC);
    scene_free(&s);
}

Test(bodies_queries, spawn_places_stand_on_bodies_as_on_the_level_built_in_place, .timeout = 200)
{
    skim_mesh_data level_mesh, slab, placed, joined = { 0 };
    cr_assert_eq(skim_scene_default(&level_mesh), SKIM_OK);
    box_mesh((float[3]){ -160, -160, -8 }, (float[3]){ 160, 160, 0 }, &slab);
    const skim_transform where = { { -1000, -1000, 60 }, axis_angle(0, 0, 1, 0.3) };
    placed_mesh(&slab, where, &placed);
    append(&joined, &level_mesh);
    append(&joined, &placed);
    skim_world *level = world_of(&level_mesh), *shape = world_of(&slab), *built = world_of(&joined);
    uint32_t id;
    cr_assert_eq(skim_world_add_body(level, shape, where, &id), SKIM_OK);
    const skim_ellipsoid player = { { 16, 16, 16 }, identity_rotation };
    enum { MOST = 8192 };
    skim_vec3 *got = malloc(MOST * sizeof *got), *want = malloc(MOST * sizeof *want);
    uint32_t n_got, n_want;
    cr_assert_eq(skim_find_spawn_places(level, &player, NULL, got, MOST, &n_got), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_eq(skim_find_spawn_places(built, &player, NULL, want, MOST, &n_want), SKIM_OK);
    int on_body = 0, built_on_body = 0;
    for (uint32_t k = 0; k < n_got && k < MOST; ++k)
        on_body += got[k].z > 55.0f && got[k].z < 80.0f && fabsf(got[k].x + 1000) < 240 && fabsf(got[k].y + 1000) < 240;
    for (uint32_t k = 0; k < n_want && k < MOST; ++k)
        built_on_body += want[k].z > 55.0f && want[k].z < 80.0f && fabsf(want[k].x + 1000) < 240 && fabsf(want[k].y + 1000) < 240;
    cr_log_info("spawn: %u spots (%d on the body), built in place %u (%d)", n_got, on_body, n_want, built_on_body);
    cr_expect_gt(on_body, 0, "no spot stands on the body");
    cr_expect_eq(on_body, built_on_body);
    cr_expect_eq(n_got, n_want);
    free(got);
    free(want);
    skim_world_destroy(level);
    skim_world_destroy(shape);
    skim_world_destroy(built);
    skim_mesh_data_free(&level_mesh);
    skim_mesh_data_free(&slab);
    skim_mesh_data_free(&placed);
    skim_mesh_data_free(&joined);
}
