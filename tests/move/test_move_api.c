/* skim_move / skim_move_batch as an API: bad input is an error that writes
   nothing past the output, the batch equals one move at a time, options do
   what skim.h says, ellipsoids and other up vectors work. */
#include "move_test_util.h"

#include <omp.h>

static scene world;

static void setup(void)
{
    scene_default(&world);
}
static void teardown(void)
{
    scene_free(&world);
}

TestSuite(move_api, .init = setup, .fini = teardown, .timeout = 60);

static const float rest_z = RADIUS * 1.01f;

/* The result after out[0] must stay untouched by a failing call. */
static void expect_invalid(skim_status status, const skim_move_result out[2], const char *what)
{
    cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT, "%s: status %d", what, status);
    cr_expect(strlen(skim_last_error_message()) > 0, "%s: no error message", what);
    const unsigned char *guard = (const unsigned char *)&out[1];
    for (size_t i = 0; i < sizeof out[1]; ++i)
        cr_assert_eq(guard[i], 0xA5, "%s: wrote past the result", what);
}

Test(move_api, bad_input_is_an_error)
{
    skim_ellipsoid s = sphere(RADIUS);
    skim_vec3 p = { 0, -500, rest_z }, d = { 1, 0, 0 };
    skim_move_result out[2];
    memset(out, 0xA5, sizeof out);
    const float nan = NAN, inf = INFINITY;

    expect_invalid(skim_move(NULL, &s, p, d, NULL, out), out, "NULL world");
    expect_invalid(skim_move(world.world, NULL, p, d, NULL, out), out, "NULL shape");
    cr_expect_eq(skim_move(world.world, &s, p, d, NULL, NULL), SKIM_ERROR_INVALID_ARGUMENT);
    expect_invalid(skim_move(world.world, &s, (skim_vec3){ nan, 0, 0 }, d, NULL, out), out,
                   "NaN position");
    expect_invalid(skim_move(world.world, &s, p, (skim_vec3){ 0, inf, 0 }, NULL, out), out,
                   "Inf displacement");
    skim_ellipsoid bad = s;
    bad.radii.y = 0;
    expect_invalid(skim_move(world.world, &bad, p, d, NULL, out), out, "zero radius");
    bad = s;
    bad.radii.z = -3;
    expect_invalid(skim_move(world.world, &bad, p, d, NULL, out), out, "negative radius");
    bad = s;
    bad.rotation.w = 2;
    expect_invalid(skim_move(world.world, &bad, p, d, NULL, out), out, "non-unit quaternion");
    bad = s;
    bad.rotation.x = nan;
    expect_invalid(skim_move(world.world, &bad, p, d, NULL, out), out, "NaN quaternion");

    /* Every skim_move_def field out of range. */
#define BAD_DEF(what, field_assignment)                                                        \
    do {                                                                                       \
        skim_move_def def = skim_move_def_default();                                           \
        def.field_assignment;                                                                  \
        expect_invalid(skim_move(world.world, &s, p, d, &def, out), out, what);                \
        skim_move_result batch_out[2];                                                         \
        memset(batch_out, 0xA5, sizeof batch_out);                                             \
        expect_invalid(skim_move_batch(world.world, 1, &s, &p, &d, &def, batch_out), batch_out, \
                       what " (batch)");                                                       \
    } while (0)
    BAD_DEF("non-unit up", up = ((skim_vec3){ 0, 0, 2 }));
    BAD_DEF("zero up", up = ((skim_vec3){ 0, 0, 0 }));
    BAD_DEF("NaN up", up = ((skim_vec3){ nan, 0, 1 }));
    BAD_DEF("max_iterations 0", max_iterations = 0);
    BAD_DEF("max_iterations -3", max_iterations = -3);
    BAD_DEF("max_iterations absurd", max_iterations = 1000000);
    BAD_DEF("negative skin", skin_width = -0.01f);
    BAD_DEF("NaN skin", skin_width = nan);
    BAD_DEF("skin of a whole radius", skin_width = 1.0f);
    BAD_DEF("slope 0", max_slope_degrees = 0);
    BAD_DEF("slope 90", max_slope_degrees = 90);
    BAD_DEF("slope negative", max_slope_degrees = -10);
    BAD_DEF("slope NaN", max_slope_degrees = nan);
    BAD_DEF("negative step", step_height = -1);
    BAD_DEF("Inf step", step_height = inf);
    BAD_DEF("negative snap", snap_distance = -0.5f);
    BAD_DEF("NaN snap", snap_distance = nan);
    BAD_DEF("NaN gravity", gravity = ((skim_vec3){ 0, 0, nan }));
    BAD_DEF("friction count without table", material_friction_count = 3);
    static const float too_much[2] = { 0.5f, 1.5f };
    static const float negative[1] = { -0.1f };
    static const float not_a_number[1] = { NAN };
    BAD_DEF("friction above 1", material_friction = too_much; def.material_friction_count = 2);
    BAD_DEF("friction below 0", material_friction = negative; def.material_friction_count = 1);
    BAD_DEF("friction NaN", material_friction = not_a_number; def.material_friction_count = 1);
#undef BAD_DEF
}

Test(move_api, bad_batch_input_is_an_error_before_anything_is_written)
{
    enum { N = 40 };
    skim_ellipsoid shapes[N];
    skim_vec3 positions[N], displacements[N];
    for (int i = 0; i < N; ++i) {
        shapes[i] = sphere(RADIUS);
        positions[i] = (skim_vec3){ -1000.0f + 40.0f * (float)i, -600, rest_z };
        displacements[i] = (skim_vec3){ 1, 2, 0 };
    }
    skim_move_result results[N + 1];
    memset(results, 0xA5, sizeof results);
    const unsigned char *bytes = (const unsigned char *)results;
    skim_move_def def = skim_move_def_default();

    cr_expect_eq(skim_move_batch(NULL, N, shapes, positions, displacements, &def, results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_move_batch(world.world, N, NULL, positions, displacements, &def, results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_move_batch(world.world, N, shapes, NULL, displacements, &def, results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_move_batch(world.world, N, shapes, positions, NULL, &def, results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def, NULL),
                 SKIM_ERROR_INVALID_ARGUMENT);
    displacements[27].y = NAN;
    cr_expect_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def, results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "27") != NULL, "message does not name mover 27: %s",
              skim_last_error_message());
    displacements[27].y = 2;
    shapes[31].radii.x = -1;
    cr_expect_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def, results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "31") != NULL, "message does not name mover 31: %s",
              skim_last_error_message());
    for (size_t i = 0; i < sizeof results; ++i)
        cr_assert_eq(bytes[i], 0xA5, "a failing batch wrote result byte %zu", i);
    shapes[31].radii.x = RADIUS;
    /* count 0 is fine and writes nothing; then a good call writes exactly N. */
    cr_expect_eq(skim_move_batch(world.world, 0, shapes, positions, displacements, &def, results),
                 SKIM_OK);
    cr_expect_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def, results),
                 SKIM_OK, "%s", skim_last_error_message());
    for (size_t i = N * sizeof results[0]; i < sizeof results; ++i)
        cr_assert_eq(bytes[i], 0xA5, "the batch wrote past results[N - 1]");
}

Test(move_api, batch_equals_one_move_at_a_time)
{
    enum { N = 3000 };
    skim_ellipsoid *shapes = malloc(N * sizeof *shapes);
    skim_vec3 *positions = malloc(N * sizeof *positions), *displacements = malloc(N * sizeof *displacements);
    skim_move_result *results = malloc(N * sizeof *results);
    uint64_t rng = 12345;
    for (int i = 0; i < N; ++i) {
        float r = 8.0f + 16.0f * (float)rng_uniform(&rng);
        shapes[i] = (skim_ellipsoid){ { r, r, r * (1.0f + (float)rng_uniform(&rng)) }, { 0, 0, 0, 1 } };
        positions[i] = (skim_vec3){ -1900.0f + 3800.0f * (float)rng_uniform(&rng),
                                    -1900.0f + 3800.0f * (float)rng_uniform(&rng),
                                    shapes[i].radii.z * 1.02f + 60.0f * (float)rng_uniform(&rng) };
        float a = 6.2831853f * (float)rng_uniform(&rng);
        float speed = 40.0f * (float)rng_uniform(&rng);
        displacements[i] = (skim_vec3){ speed * cosf(a), speed * sinf(a), -5.0f };
    }
    skim_move_def def = walker_def();
    cr_assert_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def, results),
                 SKIM_OK, "%s", skim_last_error_message());
    for (int i = 0; i < N; ++i) {
        skim_move_result one = move_or_fail(world.world, shapes[i], positions[i], displacements[i], &def);
        cr_assert(memcmp(&one, &results[i], sizeof one) == 0, "mover %d: batch and single differ", i);
        cr_assert(one.iterations >= 0 && one.iterations <= def.max_iterations,
                  "mover %d: %d iterations", i, one.iterations);
    }
    free(shapes);
    free(positions);
    free(displacements);
    free(results);
}

Test(move_api, zero_displacement_stays_bitwise)
{
    skim_move_def def = skim_move_def_default();
    skim_vec3 p = { 123.25f, -777.5f, 40.0f }; /* in the air, nothing near */
    skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ 0, 0, 0 }, &def);
    cr_expect(memcmp(&r.position, &p, sizeof p) == 0, "moved to (%g, %g, %g)", r.position.x,
              r.position.y, r.position.z);
    cr_expect_eq(r.touched, 0u);
    cr_expect_eq(r.floor_triangle, UINT32_MAX);
}

Test(move_api, material_mask_and_back_faces)
{
    /* Materials: 0 floor, 1 walls. With the walls masked out the mover goes
       through the outer wall; with back faces culled it leaves the room's
       floor from below... here: a mover under the floor rising through it. */
    skim_move_def def = skim_move_def_default();
    def.query.material_mask = ~(uint64_t)2; /* no material 1 */
    skim_move_result r = move_or_fail(world.world, sphere(RADIUS), (skim_vec3){ 2000, -500, rest_z },
                                      (skim_vec3){ 200, 0, 0 }, &def);
    expect_near(r.position.x, 2200.0, 1e-3);
    def = skim_move_def_default();
    def.query.cull_back_faces = true;
    r = move_or_fail(world.world, sphere(RADIUS), (skim_vec3){ 100, -500, -40 },
                     (skim_vec3){ 0, 0, 100 }, &def);
    expect_near(r.position.z, 60.0, 1e-3);
    def.query.cull_back_faces = false;
    r = move_or_fail(world.world, sphere(RADIUS), (skim_vec3){ 100, -500, -40 },
                     (skim_vec3){ 0, 0, 100 }, &def);
    cr_expect(r.position.z <= -RADIUS, "two-sided floor passed from below to z = %g", r.position.z);
}

Test(move_api, ellipsoids_climb_and_rest)
{
    /* The README's player ellipsoid 15 x 15 x 28: rests 28 (plus the skin
       in its own radii) over the floor, climbs the 16-unit stairs with an
       18-unit step, never overlaps (checked in its own unit space). */
    skim_ellipsoid e = { { 15, 15, 28 }, { 0, 0, 0, 1 } };
    skim_move_def def = walker_def();
    skim_vec3 p = { -1616, 100, 40 };
    for (int f = 0; f < 85; ++f) { /* 85 frames: onto the landing, not off its back */
        skim_move_result r = move_or_fail(world.world, e, p, (skim_vec3){ 0, RUN_PER_FRAME, 0 }, &def);
        p = r.position;
        double d = min_unit_distance(&world.data, e, p, NULL);
        cr_assert(d >= 1.0 - 1e-4, "frame %d: ellipsoid overlaps (%.6f radii)", f, d);
        if (f == 5)
            expect_near(p.z, 28.0 * 1.01, 0.01);
    }
    expect_near(p.z, 128.0 + 28.0 * 1.01, 0.05);
    /* A rotated ellipsoid (lying on its side, turned about z) falls and rests
       without overlapping, with the floor reported. */
    float half = 0.5f * 1.1f;
    skim_ellipsoid lying = { { 10, 20, 30 }, { sinf(half) * 0.6f, 0, sinf(half) * 0.8f, cosf(half) } };
    p = (skim_vec3){ 300, -900, 80 };
    skim_move_result r;
    for (int f = 0; f < 60; ++f) {
        r = move_or_fail(world.world, lying, p, (skim_vec3){ 1, 0.5f, 0 }, &def);
        p = r.position;
        double d = min_unit_distance(&world.data, lying, p, NULL);
        cr_assert(d >= 1.0 - 1e-4, "frame %d: rotated ellipsoid overlaps (%.6f radii)", f, d);
    }
    cr_expect(r.touched & SKIM_TOUCH_FLOOR, "rotated ellipsoid not on the floor");
    double d = min_unit_distance(&world.data, lying, p, NULL);
    cr_expect(d < 1.02, "rotated ellipsoid floats %g radii from the floor", d);
}

Test(move_api, any_up_vector)
{
    /* The same small world in y-up: a floor at y = 0 and a wall at x = 100.
       Gravity along -y lands on the floor, which is reported as a floor;
       the wall is a wall; stepping goes along +y. */
    const float soup[] = {
        -500, 0, -500, -500, 0, 500, 500, 0, 500, /* floor, normal +y */
        -500, 0, -500, 500, 0, 500, 500, 0, -500,
        100, 0, -500, 100, 300, -500, 100, 300, 500, /* wall x = 100, normal -x */
        100, 0, -500, 100, 300, 500, 100, 0, 500,
        20, 0, -500, 20, 10, -500, 20, 10, 500, /* a 10-high step's riser at x = 20 */
        20, 0, -500, 20, 10, 500, 20, 0, 500,
        20, 10, -500, 20, 10, 500, 100, 10, 500, /* its top, up to the wall */
        20, 10, -500, 100, 10, 500, 100, 10, -500,
    };
    uint32_t indices[24];
    for (int i = 0; i < 24; ++i)
        indices[i] = (uint32_t)i;
    skim_mesh mesh = { soup, 24, indices, 8, NULL };
    skim_world *w = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &w), SKIM_OK, "%s", skim_last_error_message());
    skim_move_def def = skim_move_def_default();
    def.up = (skim_vec3){ 0, 1, 0 };
    def.gravity = (skim_vec3){ 0, -3, 0 };
    def.step_height = 12;
    skim_vec3 p = { -100, 50, 0 };
    skim_move_result r = { 0 };
    for (int f = 0; f < 30; ++f) {
        r = move_or_fail(w, sphere(RADIUS), p, (skim_vec3){ 0, 0, 1 }, &def);
        p = r.position;
    }
    cr_expect(r.touched & SKIM_TOUCH_FLOOR, "y-up floor not reported");
    expect_near(p.y, rest_z, 0.01);
    expect_near(r.floor_normal.y, 1.0, 1e-5);
    /* Walk +x: up the step (10 < 12), then against the wall. */
    for (int f = 0; f < 60; ++f) {
        r = move_or_fail(w, sphere(RADIUS), p, (skim_vec3){ 4, 0, 0 }, &def);
        p = r.position;
    }
    /* On the step, between half a skin and a skin above it (a floor
       contact closer than half a skin is restored to a skin, move.c): it
       now comes onto the step over the nosing, held there by the stair
       walk (step_and_snap.c) instead of rolled back by gravity, and rolls
       over the edge with 0.71 of a skin left (26.114; 26.16 before). */
    cr_expect(p.y >= 10.0f + RADIUS * 1.005f - 1e-3f && p.y <= 10.0f + rest_z + 1e-3f,
              "y = %g, expected on the step at %g..%g", p.y, 10.0f + RADIUS * 1.005f,
              10.0f + rest_z);
    expect_near(p.x, 100.0 - rest_z, 0.01);
    cr_expect(r.touched & SKIM_TOUCH_WALL, "y-up wall not reported");
    skim_world_destroy(w);
}

Test(move_api, elongated_ellipsoid_slides_stay_in_the_gather_box)
{
    /* Found by the property suite: slides are projections in unit-sphere
       space, so a 4.7 x 12.6 x 31.5 ellipsoid's world path can be several
       times its displacement; the one gather's box must hold that, or the
       move tunnels out of the closed room (x >= 1508 inside). */
    skim_ellipsoid e = { { 4.65713215f, 12.5631342f, 31.5002022f },
                         { 0.0384028442f, -0.671804667f, -0.0787121132f, -0.735532522f } };
    skim_move_def def = walker_def();
    skim_move_result r = move_or_fail(world.world, e, (skim_vec3){ 1860.67578f, 221.52182f, 133.527161f },
                                      (skim_vec3){ -76.2830658f, 196.202606f, 192.441116f }, &def);
    cr_expect(r.position.x > 1508.0f, "left the closed room to x = %g", r.position.x);
    double d = min_unit_distance(&world.data, e, r.position, NULL);
    cr_expect(d >= 1.0 - 1e-4, "overlaps by %g radii", 1.0 - d);
}

Test(move_api, snap_sliding_down_a_steep_slope_stays_in_the_gather_box)
{
    /* A sphere in the air just off the default scene's 70 degree ramp,
       not moving, snapping down up to 48 units: the snap meets the slope
       and slides down it to the floor, sideways at about a third of the
       path (14 units). The move's one gather covers a standing mover's push-out and
       skins sideways, not the snap's sliding (move_gather.c): the snap must
       stop at the edge of what was gathered, never go on with triangles it
       cannot see. */
    const float a = 70.0f * (float)M_PI / 180.0f, height = 50.0f;
    const skim_vec3 n = { 0, -sinf(a), cosf(a) };
    const skim_vec3 on = { -900.0f + 220.0f * 3 + 64.0f, 200.0f + height / tanf(a), height };
    const float off = RADIUS * 1.05f;
    const skim_vec3 p = { on.x + n.x * off, on.y + n.y * off, on.z + n.z * off };
    skim_move_def def = skim_move_def_default();
    def.snap_distance = 48.0f;
    skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ 0, 0, 0 }, &def);
    /* Sideways: the push-out allowance and four skins (and the box's
       rounding margins); along up, the snap too. */
    const double sideways = RADIUS * (0.125 + 4.0 * def.skin_width) + 1e-3 * RADIUS;
    cr_expect(fabs((double)r.position.x - p.x) <= sideways, "x moved %g",
              (double)r.position.x - p.x);
    cr_expect(fabs((double)r.position.y - p.y) <= sideways, "y moved %g (snapped down the slope "
              "out of the gathered box)", (double)r.position.y - p.y);
    cr_expect((double)r.position.z >= p.z - sideways - def.snap_distance, "z moved %g",
              (double)r.position.z - p.z);
    double d = min_unit_distance(&world.data, sphere(RADIUS), r.position, NULL);
    cr_expect(d >= 1.0 - 1e-4, "overlaps by %g radii", 1.0 - d);
}

Test(move_api, batch_reports_its_lowest_bad_mover_whatever_the_thread_count)
{
    /* The movers are all checked before any moves (a shape repeating the
       one before it only once): the error names the lowest bad mover
       whatever the thread count, and nothing is written. */
    enum { N = 300 };
    static skim_ellipsoid shapes[N];
    static skim_vec3 positions[N], displacements[N];
    static skim_move_result results[N];
    for (int i = 0; i < N; ++i) {
        shapes[i] = sphere(RADIUS);
        positions[i] = (skim_vec3){ -1000.0f + 5.0f * (float)i, -600, rest_z };
        displacements[i] = (skim_vec3){ 1, 0, 0 };
    }
    shapes[271].radii.y = 0;          /* in the last thread's share */
    positions[140].z = NAN;           /* in the middle */
    displacements[9].x = INFINITY;    /* in the first */
    skim_move_def def = skim_move_def_default();
    const int max_threads = omp_get_max_threads();
    for (int threads = 1; threads <= 3; ++threads) {
        omp_set_num_threads(threads);
        for (int lowest = 0; lowest < 3; ++lowest) {
            memset(results, 0xA5, sizeof results);
            cr_expect_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def,
                                         results),
                         SKIM_ERROR_INVALID_ARGUMENT);
            const char *names[3] = { "[9]", "[140]", "[271]" };
            cr_expect(strstr(skim_last_error_message(), names[lowest]) != NULL,
                      "%d threads: message does not name mover %s: %s", threads, names[lowest],
                      skim_last_error_message());
            const unsigned char *bytes = (const unsigned char *)results;
            for (size_t i = 0; i < sizeof results; ++i)
                cr_assert_eq(bytes[i], 0xA5, "%d threads: a failing batch wrote byte %zu",
                             threads, i);
            /* Mend the lowest: the next one is reported. */
            if (lowest == 0)
                displacements[9].x = 1;
            else if (lowest == 1)
                positions[140].z = rest_z;
        }
        displacements[9].x = INFINITY;
        positions[140].z = NAN;
    }
    omp_set_num_threads(max_threads);
}

Test(move_api, long_batch_reports_its_lowest_bad_mover)
{
    /* skim_move_batch checks blocks of movers at once when they repeat
       their shapes and keep every coordinate within 1e18, and mover by
       mover otherwise: a bad mover anywhere, right after a shape change
       or at a block's edge, is still the one reported. */
    enum { N = 2000 };
    static skim_ellipsoid shapes[N];
    static skim_vec3 positions[N], displacements[N];
    static skim_move_result results[N];
    for (int i = 0; i < N; ++i) {
        /* Valid shapes that change now and then, one at a block's start. */
        shapes[i] = i >= 512 && i < 700 ? (skim_ellipsoid){ { 15, 15, 28 }, { 0, 0, 0, 1 } }
                                        : sphere(RADIUS);
        positions[i] = (skim_vec3){ -1000.0f + 1.0f * (float)i, -600, rest_z };
        displacements[i] = (skim_vec3){ 1, 0, 0 };
    }
    skim_move_def def = skim_move_def_default();
    cr_assert_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def, results),
                 SKIM_OK, "%s", skim_last_error_message());
    /* Each spoiled alone, then mended. */
    const int movers[] = { 256, 512, 767, 1000, 1500, 1999 };
    for (int k = 0; k < 6; ++k) {
        const int i = movers[k];
        const skim_vec3 saved_p = positions[i], saved_d = displacements[i];
        const skim_ellipsoid saved_s = shapes[i];
        switch (k) {
        case 0: positions[i].x = 2e18f; break;          /* a block's first mover */
        case 1: shapes[i].radii.z = -1.0f; break;       /* where the shape changes */
        case 2: displacements[i].z = NAN; break;        /* a block's last mover */
        case 3: shapes[i].rotation.w = 0.5f; break;     /* not a unit quaternion */
        case 4: positions[i].y = -INFINITY; break;
        case 5: displacements[i].x = -3e18f; break;     /* the batch's last mover */
        }
        memset(results, 0xA5, sizeof results);
        cr_expect_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def,
                                     results),
                     SKIM_ERROR_INVALID_ARGUMENT, "mover %d spoiled: accepted", i);
        char name[16], named[24];
        snprintf(name, sizeof name, "[%d]", i);
        snprintf(named, sizeof named, "mover %d", i);
        cr_expect(strstr(skim_last_error_message(), name) != NULL ||
                      strstr(skim_last_error_message(), named) != NULL,
                  "message does not name mover %d: %s", i, skim_last_error_message());
        const unsigned char *bytes = (const unsigned char *)results;
        for (size_t b = 0; b < sizeof results; ++b)
            cr_assert_eq(bytes[b], 0xA5, "mover %d spoiled: the batch wrote byte %zu", i, b);
        positions[i] = saved_p;
        displacements[i] = saved_d;
        shapes[i] = saved_s;
    }
    /* Two bad movers in different check chunks (the batch checks 1,024 at
       a time, on any of its threads): the lower one is named, whichever
       chunk was checked first. */
    displacements[1900].y = NAN;
    positions[700].z = INFINITY;
    memset(results, 0xA5, sizeof results);
    cr_expect_eq(skim_move_batch(world.world, N, shapes, positions, displacements, &def, results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "700") != NULL &&
                  strstr(skim_last_error_message(), "1900") == NULL,
              "message does not name mover 700 alone: %s", skim_last_error_message());
    const unsigned char *bytes = (const unsigned char *)results;
    for (size_t b = 0; b < sizeof results; ++b)
        cr_assert_eq(bytes[b], 0xA5, "two movers spoiled: the batch wrote byte %zu", b);
}
