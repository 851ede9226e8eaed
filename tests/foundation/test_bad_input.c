/* Bad input: every kind returns SKIM_ERROR_INVALID_ARGUMENT with a message,
   and nothing is written past the output struct. One test per kind. */
#include "test_helpers.h"

#include <math.h>
#include <string.h>

/* The output struct sits in a buffer followed by canary bytes. */
typedef struct guarded_hit {
    skim_hit hit;
    unsigned char canary[64];
} guarded_hit;

static const float floor_soup[9] = { -10, -10, 0, 10, -10, 0, 0, 10, 0 };

static skim_world *small_world(void)
{
    return world_from_soup(floor_soup, 1, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
}

static void expect_sweep_rejected(const skim_world *world, const skim_ellipsoid *shape,
                                  skim_vec3 start, skim_vec3 delta, const char *what)
{
    guarded_hit out;
    memset(&out, 0xA5, sizeof out);
    skim_status status = skim_sweep(world, shape, start, delta, NULL, &out.hit);
    cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT, "%s: status %d", what, status);
    cr_expect_neq(skim_last_error_message()[0], '\0', "%s: no message", what);
    for (size_t i = 0; i < sizeof out.canary; ++i)
        cr_assert_eq(out.canary[i], 0xA5, "%s: wrote past the output struct", what);
    cr_expect_not(out.hit.hit, "%s: reported a hit", what);
}

Test(bad_input, null_pointers)
{
    skim_world *world = small_world();
    skim_ellipsoid shape = sphere(1);
    skim_hit hit;
    cr_expect_eq(skim_sweep(NULL, &shape, (skim_vec3){ 0 }, (skim_vec3){ 0 }, NULL, &hit), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_sweep(world, NULL, (skim_vec3){ 0 }, (skim_vec3){ 0 }, NULL, &hit), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_sweep(world, &shape, (skim_vec3){ 0 }, (skim_vec3){ 0 }, NULL, NULL), SKIM_ERROR_INVALID_ARGUMENT);
    skim_world *out = (skim_world *)&shape; /* must be overwritten with NULL */
    cr_expect_eq(skim_world_create(NULL, NULL, &out), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_null(out);
    skim_mesh mesh = { .positions = NULL, .vertex_count = 3, .indices = NULL, .triangle_count = 1 };
    cr_expect_eq(skim_world_create(&mesh, NULL, &out), SKIM_ERROR_INVALID_ARGUMENT);
    skim_mesh ok_mesh = { .positions = floor_soup, .vertex_count = 3,
                          .indices = (const uint32_t[]){ 0, 1, 2 }, .triangle_count = 1 };
    cr_expect_eq(skim_world_create(&ok_mesh, NULL, NULL), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_world_get_stats(NULL, &(skim_world_stats){ 0 }), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_world_get_stats(world, NULL), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_scene_default(NULL), SKIM_ERROR_INVALID_ARGUMENT);
    skim_world_destroy(world);
}

Test(bad_input, nan_anywhere)
{
    skim_world *world = small_world();
    const float nan = NAN;
    skim_ellipsoid shape = sphere(1);
    expect_sweep_rejected(world, &shape, (skim_vec3){ nan, 0, 0 }, (skim_vec3){ 0, 0, 1 }, "NaN start");
    expect_sweep_rejected(world, &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, nan, 1 }, "NaN delta");
    skim_ellipsoid bad = shape;
    bad.radii.z = nan;
    expect_sweep_rejected(world, &bad, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, "NaN radius");
    bad = shape;
    bad.rotation.w = nan;
    expect_sweep_rejected(world, &bad, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, "NaN rotation");
    float positions[9];
    memcpy(positions, floor_soup, sizeof positions);
    positions[4] = nan;
    skim_mesh mesh = { .positions = positions, .vertex_count = 3,
                       .indices = (const uint32_t[]){ 0, 1, 2 }, .triangle_count = 1 };
    skim_world *out = NULL;
    cr_expect_eq(skim_world_create(&mesh, NULL, &out), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_null(out);
    skim_world_destroy(world);
}

Test(bad_input, infinity_anywhere)
{
    skim_world *world = small_world();
    const float inf = INFINITY;
    skim_ellipsoid shape = sphere(1);
    expect_sweep_rejected(world, &shape, (skim_vec3){ 0, -inf, 0 }, (skim_vec3){ 0, 0, 1 }, "Inf start");
    expect_sweep_rejected(world, &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -inf }, "Inf delta");
    skim_ellipsoid bad = shape;
    bad.radii.x = inf;
    expect_sweep_rejected(world, &bad, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, "Inf radius");
    bad = shape;
    bad.rotation.x = -inf;
    expect_sweep_rejected(world, &bad, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, "Inf rotation");
    float positions[9];
    memcpy(positions, floor_soup, sizeof positions);
    positions[0] = -inf;
    skim_mesh mesh = { .positions = positions, .vertex_count = 3,
                       .indices = (const uint32_t[]){ 0, 1, 2 }, .triangle_count = 1 };
    skim_world *out = NULL;
    cr_expect_eq(skim_world_create(&mesh, NULL, &out), SKIM_ERROR_INVALID_ARGUMENT);
    skim_world_destroy(world);
}

Test(bad_input, index_out_of_range)
{
    skim_mesh mesh = { .positions = floor_soup, .vertex_count = 3,
                       .indices = (const uint32_t[]){ 0, 1, 3 }, .triangle_count = 1 };
    skim_world *out = NULL;
    cr_expect_eq(skim_world_create(&mesh, NULL, &out), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_null(out);
    cr_expect(strstr(skim_last_error_message(), "vertex 3") != NULL, "message: %s", skim_last_error_message());
    mesh.indices = (const uint32_t[]){ 0, 1, UINT32_MAX };
    cr_expect_eq(skim_world_create(&mesh, NULL, &out), SKIM_ERROR_INVALID_ARGUMENT);
}

Test(bad_input, radius_not_positive)
{
    skim_world *world = small_world();
    skim_ellipsoid shape = sphere(0);
    expect_sweep_rejected(world, &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, "zero radius");
    shape = sphere(1);
    shape.radii.y = -1;
    expect_sweep_rejected(world, &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, "negative radius");
    skim_world_destroy(world);
}

Test(bad_input, quaternion_not_unit)
{
    skim_world *world = small_world();
    skim_ellipsoid shape = sphere(1);
    shape.rotation = (skim_quat){ 0, 0, 0, 1.002f };
    expect_sweep_rejected(world, &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, "|q| = 1.002");
    shape.rotation = (skim_quat){ 0, 0, 0, 0 };
    expect_sweep_rejected(world, &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, "|q| = 0");
    /* Within 1e-3 is accepted (and renormalised). */
    shape.rotation = (skim_quat){ 0, 0, 0, 1.0005f };
    skim_hit hit = sweep_or_fail(world, shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, NULL);
    cr_expect(hit.hit);
    skim_world_destroy(world);
}

Test(bad_input, world_def_out_of_range)
{
    skim_mesh mesh = { .positions = floor_soup, .vertex_count = 3,
                       .indices = (const uint32_t[]){ 0, 1, 2 }, .triangle_count = 1 };
    skim_world *out = NULL;
    skim_world_def def = skim_world_def_default();
    def.sah_bins = 2;
    cr_expect_eq(skim_world_create(&mesh, &def, &out), SKIM_ERROR_INVALID_ARGUMENT);
    def = skim_world_def_default();
    def.max_leaf_triangles = 0;
    cr_expect_eq(skim_world_create(&mesh, &def, &out), SKIM_ERROR_INVALID_ARGUMENT);
    def = skim_world_def_default();
    def.degenerate_area = NAN;
    cr_expect_eq(skim_world_create(&mesh, &def, &out), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_null(out);
}

Test(bad_input, status_strings)
{
    const skim_status all[] = { SKIM_OK, SKIM_ERROR_INVALID_ARGUMENT, SKIM_ERROR_OUT_OF_MEMORY,
                                SKIM_ERROR_IO, SKIM_ERROR_FORMAT };
    for (size_t i = 0; i < 5; ++i) {
        cr_assert_not_null(skim_status_string(all[i]));
        for (size_t j = 0; j < i; ++j)
            cr_expect_str_neq(skim_status_string(all[i]), skim_status_string(all[j]));
    }
    cr_expect_not_null(skim_status_string((skim_status)99));
}
