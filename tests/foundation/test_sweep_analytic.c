/* Analytic cases with answers worked out by hand (unit-sphere geometry). */
#include "test_helpers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A large floor: two triangles covering [-100, 100]^2 at z = 0, front up. */
static const float floor_soup[18] = {
    -100, -100, 0, 100, -100, 0, 100, 100, 0,
    -100, -100, 0, 100, 100, 0, -100, 100, 0,
};

/* One triangle in the plane z = 0 with an edge along x = 0 (from (0,-10) to
   (0,10)) and the rest at x > 0. */
static const float half_plane_soup[9] = { 0, -10, 0, 10, 0, 0, 0, 10, 0 };

Test(sweep_analytic, sphere_falls_on_plane)
{
    skim_world *world = world_from_soup(floor_soup, 2, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    /* Radius 1 at height 5 falling 10: touches at height 1, t = 4/10. */
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 3, 7, 5 }, (skim_vec3){ 0, 0, -10 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.4, 1e-6);
    expect_near(hit.point.x, 3, 1e-5);
    expect_near(hit.point.y, 7, 1e-5);
    expect_near(hit.point.z, 0, 1e-5);
    expect_near(hit.normal.z, 1, 1e-6);
    /* Falling only 3 stops short. */
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 3, 7, 5 }, (skim_vec3){ 0, 0, -3 }, NULL);
    cr_expect_not(hit.hit);
    skim_world_destroy(world);
}

Test(sweep_analytic, sphere_hits_plane_from_below_two_sided)
{
    skim_world *world = world_from_soup(floor_soup, 2, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    skim_hit hit = sweep_or_fail(world, sphere(2), (skim_vec3){ 0, 0, -10 }, (skim_vec3){ 0, 0, 16 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.5, 1e-6);          /* centre reaches z = -2 after 8 of 16 */
    expect_near(hit.normal.z, -1, 1e-6);    /* from the contact toward the centre: down */
    skim_world_destroy(world);
}

Test(sweep_analytic, back_face_culling_is_a_query_option)
{
    skim_world *world = world_from_soup(floor_soup, 2, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    skim_query query = skim_query_default();
    query.cull_back_faces = true;
    /* Starting behind (below) the front face: culled. */
    skim_hit hit = sweep_or_fail(world, sphere(2), (skim_vec3){ 0, 0, -10 }, (skim_vec3){ 0, 0, 16 }, &query);
    cr_expect_not(hit.hit);
    /* From the front it still collides. */
    hit = sweep_or_fail(world, sphere(2), (skim_vec3){ 0, 0, 10 }, (skim_vec3){ 0, 0, -16 }, &query);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.5, 1e-6);
    skim_world_destroy(world);
}

Test(sweep_analytic, sphere_hits_an_edge)
{
    skim_world *world = world_from_soup(half_plane_soup, 1, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    /* In the triangle's plane, moving +x toward the edge x = 0 from x = -5:
       contact when the centre is at x = -1, t = 4/8. */
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ -5, 1, 0 }, (skim_vec3){ 8, 0, 0 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.5, 1e-6);
    expect_near(hit.point.x, 0, 1e-5);
    expect_near(hit.point.y, 1, 1e-5);
    expect_near(hit.normal.x, -1, 1e-5);
    /* Above the plane at height 0.6: contact when the horizontal distance is
       sqrt(1 - 0.36) = 0.8, i.e. the centre at x = -0.8, t = 4.2/8. */
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ -5, 1, 0.6f }, (skim_vec3){ 8, 0, 0 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, 4.2 / 8.0, 1e-6);
    expect_near(hit.normal.x, -0.8, 1e-5);
    expect_near(hit.normal.z, 0.6, 1e-5);
    skim_world_destroy(world);
}

Test(sweep_analytic, sphere_hits_a_vertex)
{
    skim_world *world = world_from_soup(half_plane_soup, 1, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    /* Straight at the vertex (10, 0, 0) along -x from x = 20: contact at
       x = 11, t = 9/20. */
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 20, 0, 0 }, (skim_vec3){ -20, 0, 0 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, 9.0 / 20.0, 1e-6);
    expect_near(hit.point.x, 10, 1e-5);
    expect_near(hit.point.y, 0, 1e-5);
    expect_near(hit.normal.x, 1, 1e-5);
    skim_world_destroy(world);
}

Test(sweep_analytic, grazing_an_edge)
{
    skim_world *world = world_from_soup(half_plane_soup, 1, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    /* Moving along y beside the edge x = 0 (y in [-10, 10]) at horizontal
       distance 1 - 1e-3 (just touching) and 1 + 1e-3 (just missing). The
       centre is in the plane, beside the segment: only the edge can be met. */
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ -0.999f, -20, 0 }, (skim_vec3){ 0, 40, 0 }, NULL);
    cr_expect(hit.hit, "passing 1e-3 inside the edge must touch it");
    /* It first touches the end vertex (0, -10): distance 1 when
       y = -10 - sqrt(1 - 0.999^2). */
    expect_near(hit.t, (20.0 - 10.0 - sqrt(1.0 - 0.999 * 0.999)) / 40.0, 1e-5);
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ -1.001f, -20, 0 }, (skim_vec3){ 0, 40, 0 }, NULL);
    cr_expect_not(hit.hit, "passing 1e-3 outside the edge must miss");
    /* Above the edge, over its middle: tangent at the top of the sphere. */
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ -3, 0, 0.999f }, (skim_vec3){ 6, 0, 0 }, NULL);
    cr_expect(hit.hit);
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ -3, 0, 1.001f }, (skim_vec3){ 6, 0, 0 }, NULL);
    cr_expect_not(hit.hit);
    skim_world_destroy(world);
}

Test(sweep_analytic, moving_parallel_to_the_plane)
{
    skim_world *world = world_from_soup(floor_soup, 2, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    /* Clear of the plane: never hits however far it goes. */
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 0, 0, 1.5f }, (skim_vec3){ 50, 0, 0 }, NULL);
    cr_expect_not(hit.hit);
    /* Resting exactly on it: touching at the start, t = 0. */
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 0, 0, 1 }, (skim_vec3){ 50, 0, 0 }, NULL);
    cr_expect(hit.hit);
    cr_expect_eq(hit.t, 0.0f);
    expect_near(hit.normal.z, 1, 1e-6);
    skim_world_destroy(world);
}

Test(sweep_analytic, starting_embedded_reports_t0)
{
    skim_world *world = world_from_soup(floor_soup, 2, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 5, 5, 0.25f }, (skim_vec3){ 0, 0, 3 }, NULL);
    cr_expect(hit.hit);
    cr_expect_eq(hit.t, 0.0f);
    expect_near(hit.point.x, 5, 1e-5);
    expect_near(hit.point.z, 0, 1e-5);
    expect_near(hit.normal.z, 1, 1e-6);
    /* Centre exactly on the triangle: the face normal, on the front side. */
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 5, 5, 0 }, (skim_vec3){ 1, 0, 0 }, NULL);
    cr_expect(hit.hit);
    cr_expect_eq(hit.t, 0.0f);
    expect_near(fabs(hit.normal.z), 1, 1e-6);
    /* Zero displacement: a pure overlap test. */
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 5, 5, 0.5f }, (skim_vec3){ 0, 0, 0 }, NULL);
    cr_expect(hit.hit);
    cr_expect_eq(hit.t, 0.0f);
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 5, 5, 1.5f }, (skim_vec3){ 0, 0, 0 }, NULL);
    cr_expect_not(hit.hit);
    skim_world_destroy(world);
}

Test(sweep_analytic, ellipsoid_falls_on_plane)
{
    skim_world *world = world_from_soup(floor_soup, 2, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    /* Tall ellipsoid, half-height 3: touches when the centre is at z = 3. */
    skim_ellipsoid tall = { { 1, 1, 3 }, { 0, 0, 0, 1 } };
    skim_hit hit = sweep_or_fail(world, tall, (skim_vec3){ 0, 0, 10 }, (skim_vec3){ 0, 0, -10 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.7, 1e-6);
    expect_near(hit.normal.z, 1, 1e-6);
    /* The same ellipsoid lying on its side (90 degrees about x): its 3 goes
       along y, so it touches at z = 1. */
    const float s = sqrtf(0.5f);
    skim_ellipsoid lying = { { 1, 1, 3 }, { s, 0, 0, s } };
    hit = sweep_or_fail(world, lying, (skim_vec3){ 0, 0, 10 }, (skim_vec3){ 0, 0, -10 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.9, 1e-6);
    skim_world_destroy(world);
}

Test(sweep_analytic, ellipsoid_normal_is_the_surface_normal)
{
    /* A wide ellipsoid (4, 1, 1) tilted 45 degrees about y lands on the
       floor: the contact normal is the floor's normal, not the direction
       from the contact to the centre. */
    skim_world *world = world_from_soup(floor_soup, 2, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    const float s = sinf((float)M_PI / 8), c = cosf((float)M_PI / 8);
    skim_ellipsoid tilted = { { 4, 1, 1 }, { 0, s, 0, c } };
    skim_hit hit = sweep_or_fail(world, tilted, (skim_vec3){ 0, 0, 10 }, (skim_vec3){ 0, 0, -10 }, NULL);
    cr_expect(hit.hit);
    /* Support height of the ellipsoid along z: sqrt((4 sin 45)^2 + (1 cos 45)^2). */
    double support = sqrt(16 * 0.5 + 0.5);
    expect_near(hit.t, (10 - support) / 10, 1e-5);
    expect_near(hit.normal.z, 1, 1e-5);
    expect_near(hit.point.z, 0, 1e-4);
    skim_world_destroy(world);
}

/* radii (1, 2, 3) turned 90 degrees about z is radii (2, 1, 3). */
Test(sweep_analytic, rotated_ellipsoid_equals_swapped_radii)
{
    srand(7);
    float soup[9 * 64];
    for (int i = 0; i < 9 * 64; ++i)
        soup[i] = (float)(rand() % 2000 - 1000) / 50.0f;
    skim_world *world = world_from_soup(soup, 64, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    const float s = sqrtf(0.5f);
    skim_ellipsoid turned = { { 1, 2, 3 }, { 0, 0, s, s } };
    skim_ellipsoid swapped = { { 2, 1, 3 }, { 0, 0, 0, 1 } };
    int hits = 0;
    for (int i = 0; i < 500; ++i) {
        skim_vec3 start = { (float)(rand() % 4000 - 2000) / 50.0f, (float)(rand() % 4000 - 2000) / 50.0f,
                            (float)(rand() % 4000 - 2000) / 50.0f };
        skim_vec3 delta = { -start.x * 1.5f, -start.y * 1.5f, -start.z * 1.5f };
        skim_hit a = sweep_or_fail(world, turned, start, delta, NULL);
        skim_hit b = sweep_or_fail(world, swapped, start, delta, NULL);
        cr_assert_eq(a.hit, b.hit, "case %d", i);
        if (!a.hit)
            continue;
        hits++;
        expect_near(a.t, b.t, 1e-5);
        cr_expect_eq(a.triangle, b.triangle);
        expect_near(a.point.x, b.point.x, 1e-3);
        expect_near(a.point.y, b.point.y, 1e-3);
        expect_near(a.point.z, b.point.z, 1e-3);
        expect_near(a.normal.x, b.normal.x, 1e-4);
        expect_near(a.normal.y, b.normal.y, 1e-4);
        expect_near(a.normal.z, b.normal.z, 1e-4);
    }
    cr_expect_gt(hits, 100, "too few hits (%d) to compare", hits);
    skim_world_destroy(world);
}

Test(sweep_analytic, far_from_the_origin)
{
    /* The same fall 1e5 away from the origin gives the same answer: the
       kernel works relative to the start. */
    float soup[18];
    for (int i = 0; i < 18; ++i)
        soup[i] = floor_soup[i] + (i % 3 == 2 ? 0.0f : 1e5f);
    skim_world *world = world_from_soup(soup, 2, NULL, SKIM_ACCELERATOR_BRUTE_FORCE);
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 1e5f + 3, 1e5f + 7, 5 }, (skim_vec3){ 0, 0, -10 }, NULL);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.4, 1e-6);
    skim_world_destroy(world);
}

Test(sweep_analytic, material_mask_filters_triangles)
{
    /* Two floors: material 3 at z = 0, material 5 at z = -4. */
    float soup[36];
    for (int i = 0; i < 18; ++i) {
        soup[i] = floor_soup[i];
        soup[18 + i] = floor_soup[i] - (i % 3 == 2 ? 4.0f : 0.0f);
    }
    const uint16_t materials[4] = { 3, 3, 5, 5 };
    skim_world *world = world_from_soup(soup, 4, materials, SKIM_ACCELERATOR_BRUTE_FORCE);
    skim_query query = skim_query_default();
    skim_hit hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, &query);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.4, 1e-6);
    cr_expect(hit.triangle < 2);
    query.material_mask = ~(UINT64_C(1) << 3);
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, &query);
    cr_expect(hit.hit);
    expect_near(hit.t, 0.8, 1e-6);
    cr_expect(hit.triangle >= 2);
    /* Bits of materials the world does not use: nothing collides. */
    query.material_mask = ~((UINT64_C(1) << 3) | (UINT64_C(1) << 5));
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, &query);
    cr_expect_not(hit.hit);
    /* A mask of 0 in a query from the defaults means what it says:
       nothing of materials 0..63 collides. */
    query.material_mask = 0;
    hit = sweep_or_fail(world, sphere(1), (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, &query);
    cr_expect_not(hit.hit);
    /* The same mask in a zero-initialised query is refused, not silently a
       sweep through everything. */
    const skim_query zeroed = { 0 };
    const skim_ellipsoid unit = sphere(1);
    cr_expect_eq(skim_sweep(world, &unit, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, &zeroed, &hit),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "skim_query_default()") != NULL, "%s",
              skim_last_error_message());
    skim_world_destroy(world);
}

static bool same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* skim_sweep keeps the last shape's check and ellipsoid space per thread
   (src/query/sweep.c): a different shape in the next call, an invalid one, or
   the first one again must each be seen. Every answer of the shapes taken
   in turn equals, bit for bit, its answer when that shape is swept alone;
   a kept space used for the wrong shape would change t or the normal. */
Test(sweep_analytic, shape_changes_between_calls_are_seen)
{
    skim_world *world = world_from_soup(floor_soup, 2, NULL, SKIM_ACCELERATOR_BVH);
    const float s = sqrtf(0.5f);
    const skim_ellipsoid shapes[3] = {
        { { 1, 2, 3 }, { 0, 0, 0, 1 } },
        { { 1, 2, 3 }, { s, 0, 0, s } },     /* the same radii, turned about x */
        { { 2.5f, 2.5f, 2.5f }, { 0, 0, 0, 1 } },
    };
    enum { CASES = 40 };
    skim_hit alone[3][CASES];
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < CASES; ++i)
            alone[k][i] = sweep_or_fail(world, shapes[k], (skim_vec3){ (float)i - 20.0f, 0.5f * (float)i, 12 },
                                        (skim_vec3){ 1, -2, -20 }, NULL);
    cr_assert(alone[0][0].t != alone[1][0].t && alone[1][0].t != alone[2][0].t,
              "the shapes must give different answers for the test to mean anything");
    const skim_ellipsoid bad = { { -1, 2, 3 }, { 0, 0, 0, 1 } };
    for (int i = 0; i < CASES; ++i)
        for (int k = 0; k < 3; ++k) {
            const int shape = (k + i) % 3;
            skim_hit hit = sweep_or_fail(world, shapes[shape], (skim_vec3){ (float)i - 20.0f, 0.5f * (float)i, 12 },
                                         (skim_vec3){ 1, -2, -20 }, NULL);
            const skim_hit *was = &alone[shape][i];
            cr_assert(hit.hit == was->hit && same_bits(hit.t, was->t) && hit.triangle == was->triangle &&
                          same_bits(hit.point.x, was->point.x) && same_bits(hit.point.y, was->point.y) &&
                          same_bits(hit.point.z, was->point.z) && same_bits(hit.normal.x, was->normal.x) &&
                          same_bits(hit.normal.y, was->normal.y) && same_bits(hit.normal.z, was->normal.z),
                      "case %d, shape %d differs in turn", i, shape);
            /* An invalid shape between two valid ones is refused. */
            if (i % 7 == 0) {
                skim_hit refused;
                cr_assert_eq(skim_sweep(world, &bad, (skim_vec3){ 0, 0, 12 }, (skim_vec3){ 0, 0, -20 }, NULL,
                                        &refused),
                             SKIM_ERROR_INVALID_ARGUMENT);
                cr_assert_eq(skim_sweep(world, NULL, (skim_vec3){ 0, 0, 12 }, (skim_vec3){ 0, 0, -20 }, NULL,
                                        &refused),
                             SKIM_ERROR_INVALID_ARGUMENT);
            }
        }
    skim_world_destroy(world);
}
