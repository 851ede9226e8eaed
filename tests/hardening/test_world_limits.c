/* What skim_world_create accepts at the edges: triangles whose normal's
   squared length overflows float are kept and collided with (built, and
   baked then loaded); build_threads is bounded. */
#include "hardening.h"

#include <limits.h>

/* A square wall in the plane x = 0, `half` units to each side in y and z,
   split into two triangles facing -x. */
static skim_world *square_wall(float half, skim_accelerator accelerator)
{
    const float positions[12] = { 0, -half, -half, 0, half, -half, 0, half, half, 0, -half, half };
    static const uint32_t indices[6] = { 0, 2, 1, 0, 3, 2 };
    skim_mesh mesh = { positions, 4, indices, 2, NULL };
    skim_world_def def = skim_world_def_default();
    def.accelerator = accelerator;
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    return world;
}

/* A sphere of radius 16 pushed at the wall from 100 units away must stop
   on it: the wall is kept and collided with, from near its middle and
   from far out toward a corner. */
static void expect_wall_stops_sphere(const skim_world *world, float half)
{
    skim_world_stats stats;
    cr_assert_eq(skim_world_get_stats(world, &stats), SKIM_OK);
    cr_expect_eq(stats.triangles, 2, "a wall %g across keeps %u of its 2 triangles", 2.0 * half,
                 stats.triangles);
    cr_expect_eq(stats.degenerate_triangles, 0);
    const skim_ellipsoid sphere = { { 16, 16, 16 }, { 0, 0, 0, 1 } };
    /* Far out, but inside the precision rule for a radius of 16. */
    const float offsets[3] = { 0.0f, 12345.0f, fminf(0.5f * half, 1e7f) };
    for (int i = 0; i < 3; ++i) {
        skim_hit hit;
        skim_vec3 start = { -100, offsets[i], -offsets[i] };
        cr_assert_eq(skim_sweep(world, &sphere, start, (skim_vec3){ 200, 0, 0 }, NULL, &hit), SKIM_OK,
                     "%s", skim_last_error_message());
        cr_expect(hit.hit, "a sweep at (%g, %g) passes through a wall %g across", (double)start.y,
                  (double)start.z, 2.0 * half);
        if (hit.hit)
            cr_expect(fabsf(hit.t - 84.0f / 200.0f) < 1e-3f, "t = %.9g", (double)hit.t);
    }
}

Test(world_limits, triangles_whose_normal_overflows_float_are_kept_and_collide)
{
    const float halves[3] = { 2.2e9f, 1e12f, 1e18f };
    for (int i = 0; i < 3; ++i)
        for (int a = 0; a < 2; ++a) {
            skim_world *world = square_wall(halves[i], a ? SKIM_ACCELERATOR_BRUTE_FORCE : SKIM_ACCELERATOR_BVH);
            expect_wall_stops_sphere(world, halves[i]);
            skim_world_destroy(world);
        }
}

Test(world_limits, a_baked_world_with_huge_triangles_loads_and_collides)
{
    scratch_dir dir;
    scratch_make(&dir);
    char path[128];
    scratch_file(&dir, "wall.bake", path, sizeof path);
    skim_world *world = square_wall(2.2e9f, SKIM_ACCELERATOR_BVH);
    cr_assert_eq(skim_world_save(world, path), SKIM_OK, "%s", skim_last_error_message());
    skim_world_destroy(world);
    skim_world *loaded = NULL;
    cr_assert_eq(skim_world_load(path, &loaded), SKIM_OK, "%s", skim_last_error_message());
    expect_wall_stops_sphere(loaded, 2.2e9f);
    skim_world_destroy(loaded);
    scratch_remove(&dir);
}

/* Any build_threads the header allows builds the same tree; beyond its
   bound the def is refused with a message naming it (not a process that
   libgomp exits while it tries to start millions of threads). */
Test(world_limits, build_threads_beyond_the_bound_is_refused_and_any_allowed_count_builds_the_same_tree)
{
    skim_mesh mesh = small_mesh();
    skim_world_def def = skim_world_def_default();
    const int refused[3] = { INT_MAX, SKIM_BUILD_THREADS_MAX + 1, -1 };
    for (int i = 0; i < 3; ++i) {
        def.build_threads = refused[i];
        skim_world *world = (skim_world *)&def;
        cr_expect_eq(skim_world_create(&mesh, &def, &world), SKIM_ERROR_INVALID_ARGUMENT,
                     "build_threads %d", refused[i]);
        cr_expect_null(world);
        if (refused[i] > 0)
            cr_expect(strstr(skim_last_error_message(), "build_threads must be 0..1024") != NULL, "%s",
                      skim_last_error_message());
    }
    skim_world_stats first = { 0 };
    const int allowed[4] = { 1, 0, 2, SKIM_BUILD_THREADS_MAX };
    for (int i = 0; i < 4; ++i) {
        def.build_threads = allowed[i];
        skim_world *world = NULL;
        cr_assert_eq(skim_world_create(&mesh, &def, &world), SKIM_OK, "build_threads %d: %s", allowed[i],
                     skim_last_error_message());
        skim_world_stats stats;
        cr_assert_eq(skim_world_get_stats(world, &stats), SKIM_OK);
        if (i == 0)
            first = stats;
        cr_expect(stats.nodes == first.nodes && stats.leaves == first.leaves && stats.depth == first.depth &&
                      stats.sah_cost == first.sah_cost && stats.triangles == first.triangles,
                  "build_threads %d builds another tree", allowed[i]);
        skim_world_destroy(world);
    }
}
