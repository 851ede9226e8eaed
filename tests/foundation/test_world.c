/* World building: degenerate triangles, caller's indices, ties, empty worlds. */
#include "test_helpers.h"

#include <math.h>
#include <stdlib.h>

Test(world, degenerate_triangles_are_dropped_and_counted)
{
    const float positions[] = { 0, 0, 0, 10, 0, 0, 0, 10, 0, 20, 0, 0, 5, 5, 5 };
    const uint32_t indices[] = {
        0, 1, 1,  /* repeated vertex */
        0, 1, 3,  /* collinear */
        0, 1, 2,  /* the real one: caller's index 2 */
        2, 2, 2,  /* a point */
    };
    skim_mesh mesh = { .positions = positions, .vertex_count = 5, .indices = indices, .triangle_count = 4 };
    for (int accel = 0; accel < 2; ++accel) {
        skim_world_def def = skim_world_def_default();
        def.accelerator = accel ? SKIM_ACCELERATOR_BRUTE_FORCE : SKIM_ACCELERATOR_BVH;
        skim_world *world = NULL;
        cr_assert_eq(skim_world_create(&mesh, &def, &world), SKIM_OK);
        skim_world_stats stats;
        cr_assert_eq(skim_world_get_stats(world, &stats), SKIM_OK);
        cr_expect_eq(stats.triangles, 1);
        cr_expect_eq(stats.degenerate_triangles, 3);
        skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 2, 2, 5 }, (skim_vec3){ 0, 0, -10 }, NULL);
        cr_expect(hit.hit);
        cr_expect_eq(hit.triangle, 2, "the caller's index, not the kept one");
        skim_world_destroy(world);
    }
}

Test(world, ties_go_to_the_lower_triangle_index)
{
    /* The same floor three times over: every sweep ties; the lowest index wins
       whatever order the world stores them in. */
    float soup[27];
    const float tri[9] = { -50, -50, 0, 50, -50, 0, 0, 50, 0 };
    for (int i = 0; i < 27; ++i)
        soup[i] = tri[i % 9];
    skim_world *world = world_from_soup(soup, 3, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, NULL);
    cr_expect(hit.hit);
    cr_expect_eq(hit.triangle, 0);
    skim_world_destroy(world);
}

Test(world, empty_world_never_hits)
{
    skim_mesh mesh = { 0 };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 0, 0, 0 }, (skim_vec3){ 5, 5, 5 }, NULL);
    cr_expect_not(hit.hit);
    skim_world_destroy(world);
    skim_world_destroy(NULL); /* allowed, like free(NULL) */
}

Test(world, default_scene_builds)
{
    skim_mesh_data scene;
    cr_assert_eq(skim_scene_default(&scene), SKIM_OK);
    cr_expect_gt(scene.triangle_count, 2000);
    skim_mesh mesh = skim_mesh_data_view(&scene);
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    cr_expect_eq(stats.triangles + stats.degenerate_triangles, scene.triangle_count);
    cr_expect_eq(stats.degenerate_triangles, 0, "the default scene has no degenerate triangles");
    /* A player-sized sphere dropped onto the open floor lands on it. */
    skim_hit hit = sweep_or_fail(world, sphere(16), (skim_vec3){ 0, -500, 100 }, (skim_vec3){ 0, 0, -200 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, (100.0 - 16.0) / 200.0, 1e-5);
    expect_near(hit.normal.z, 1, 1e-6);
    skim_world_destroy(world);
    skim_mesh_data_free(&scene);
}
