/* The complaints users file most against character controllers:
   bumps and sticking on floors of many coplanar triangles and on the seams
   between touching boxes, a floor flag that flickers, and movers wedged for
   ever between steep slopes or in a narrow V. */
#include "move_test_util.h"

static scene world;

static void setup(void)
{
    scene_default(&world);
}
static void teardown(void)
{
    scene_free(&world);
}

TestSuite(move_surfaces, .init = setup, .fini = teardown, .timeout = 60);

static const float rest_z = RADIUS * 1.01f;

/* Walks frames by d from p and checks that the height stays within 1e-3 of
   the radius of z0 and that every frame goes the whole horizontal way. */
static skim_vec3 walk_flat(skim_vec3 p, skim_vec3 d, int frames, float z0, const skim_move_def *def,
                           const char *what)
{
    float horizontal = sqrtf(d.x * d.x + d.y * d.y);
    float lowest = p.z, highest = p.z;
    for (int f = 0; f < frames; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, d, def);
        float dx = r.position.x - p.x, dy = r.position.y - p.y;
        float advance = sqrtf(dx * dx + dy * dy);
        cr_assert(fabsf(advance - horizontal) <= 1e-3f * horizontal,
                  "%s frame %d at (%g, %g): advanced %g of %g (stuck on a seam?)", what, f, p.x,
                  p.y, advance, horizontal);
        cr_assert(fabsf(r.position.z - z0) <= 1e-3f * RADIUS,
                  "%s frame %d at (%g, %g): height %.6f, expected %.6f +- %g (a bump)", what, f,
                  r.position.x, r.position.y, r.position.z, z0, 1e-3 * RADIUS);
        cr_assert(r.touched & SKIM_TOUCH_FLOOR, "%s frame %d: floor flag off", what, f);
        lowest = fminf(lowest, r.position.z);
        highest = fmaxf(highest, r.position.z);
        p = r.position;
    }
    return p;
}

Test(move_surfaces, floor_of_many_coplanar_triangles_has_no_bumps)
{
    /* The floor is 2048 coplanar triangles (128-unit tiles, two triangles
       each): walk along the tile edges, across the diagonals and through
       the vertices, with gravity pressing down every frame. */
    skim_move_def def = skim_move_def_default();
    def.gravity = (skim_vec3){ 0, 0, -GRAVITY_PER_FRAME };
    const skim_vec3 runs[][2] = {
        { { -1900, -1920, 0 }, { 1, 0, 0 } },            /* along a row of tile edges (y = -1920) */
        { { -1920, -1900, 0 }, { 0, 1, 0 } },            /* along a column of tile edges */
        { { -1700, -1700, 0 }, { 0.70710678f, 0.70710678f, 0 } }, /* through tile corners */
        { { -1900, -1000, 0 }, { 0.70710678f, -0.70710678f, 0 } }, /* across the other diagonals */
        { { -1850, -1500, 0 }, { 0.96f, 0.28f, 0 } },   /* a shallow angle across many seams */
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        skim_vec3 p = { runs[i][0].x, runs[i][0].y, rest_z };
        skim_vec3 d = { runs[i][1].x * RUN_PER_FRAME, runs[i][1].y * RUN_PER_FRAME, 0 };
        char what[64];
        snprintf(what, sizeof what, "coplanar floor run %zu", i);
        /* 300 frames = 1600 units: a dozen tiles, avoiding the pillars. */
        walk_flat(p, d, i < 2 ? 300 : 150, rest_z, &def, what);
    }
}

Test(move_surfaces, floor_with_single_pass_gravity_has_no_bumps)
{
    /* The same with the fall added to the displacement (Nettle's original
       single pass): the downward part is spent on the floor. */
    skim_move_def def = skim_move_def_default();
    def.snap_distance = 4;
    skim_vec3 p = { -1700, -1700, rest_z };
    skim_vec3 d = { 0.70710678f * RUN_PER_FRAME, 0.70710678f * RUN_PER_FRAME, -GRAVITY_PER_FRAME };
    walk_flat(p, d, 150, rest_z, &def, "single pass");
}

Test(move_surfaces, seams_between_touching_boxes_have_no_bumps)
{
    /* 16 boxes 64 x 64 x 8 side by side along x in [-1800, -776] at y in
       [-1800, -1736]: their tops are coplanar, their touching sides are
       internal faces with edges at the top's height. */
    skim_move_def def = walker_def();
    float top = 8.0f + rest_z;
    skim_vec3 p = { -1790, -1768, top };
    p = walk_flat(p, (skim_vec3){ RUN_PER_FRAME, 0, 0 }, 180, top, &def, "seams +x");
    walk_flat(p, (skim_vec3){ -RUN_PER_FRAME, 0, 0 }, 180, top, &def, "seams -x");
    /* Diagonally across the seams, staying on the 64-wide path. */
    p = (skim_vec3){ -1790, -1790, top };
    for (int leg = 0; leg < 6; ++leg) {
        float sy = leg % 2 ? -1.0f : 1.0f;
        p = walk_flat(p, (skim_vec3){ 0.8f * RUN_PER_FRAME, sy * 0.6f * RUN_PER_FRAME, 0 }, 10, top,
                      &def, "seams diagonal");
    }
}

/* Walks and requires the floor flag on every frame. */
static skim_vec3 walk_on_floor(skim_vec3 p, skim_vec3 d, int frames, const skim_move_def *def,
                               const char *what)
{
    for (int f = 0; f < frames; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, d, def);
        cr_assert(r.touched & SKIM_TOUCH_FLOOR, "%s frame %d at (%g, %g, %g): floor flag off", what,
                  f, r.position.x, r.position.y, r.position.z);
        cr_assert(r.floor_normal.z >= cosf(45.0f * (float)M_PI / 180.0f) - 1e-5f,
                  "%s frame %d: floor normal z = %g steeper than the limit", what, f,
                  r.floor_normal.z);
        p = r.position;
    }
    return p;
}

Test(move_surfaces, floor_flag_does_not_flicker)
{
    skim_move_def def = walker_def();
    /* Flat ground. */
    walk_on_floor((skim_vec3){ -1000, -600, rest_z }, (skim_vec3){ RUN_PER_FRAME, 0, 0 }, 200, &def,
                  "flat");
    /* The 20 degree ramp (x [-900, -772]) up onto its plateau and back down. */
    skim_vec3 p = walk_on_floor((skim_vec3){ -836, 150, rest_z }, (skim_vec3){ 0, RUN_PER_FRAME, 0 },
                                100, &def, "20 degree ramp up");
    cr_expect(p.z > 128.0f, "did not reach the 20 degree ramp's plateau (z %g)", p.z);
    p = walk_on_floor(p, (skim_vec3){ 0, -RUN_PER_FRAME, 0 }, 110, &def, "20 degree ramp down");
    cr_expect(fabsf(p.z - rest_z) < 0.05f, "not back on the floor (z %g)", p.z);
    /* Stair edges: the 8-unit staircase up and down. */
    p = walk_on_floor((skim_vec3){ -1836, 150, rest_z }, (skim_vec3){ 0, RUN_PER_FRAME, 0 }, 60,
                      &def, "8-unit stairs up");
    cr_expect(p.z > 64.0f, "did not climb the 8-unit stairs (z %g)", p.z);
    p = walk_on_floor(p, (skim_vec3){ 0, -RUN_PER_FRAME, 0 }, 70, &def, "8-unit stairs down");
    cr_expect(fabsf(p.z - rest_z) < 0.05f, "not back on the floor (z %g)", p.z);
}

Test(move_surfaces, wedged_between_steep_slopes_walks_out)
{
    /* The trough: 70-degree slopes meeting at y = 1500, z = 0, along x in
       [200, 600]. Dropped in, the sphere slides down both and wedges at
       z = 16 / cos 70 (plus the skin) with no floor under it. */
    skim_move_def def = walker_def();
    skim_vec3 p = { 300, 1500, 80 };
    for (int f = 0; f < 120; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ 0, 0, 0 }, &def);
        p = r.position;
    }
    float wedged = RADIUS * 1.01f / cosf(70.0f * (float)M_PI / 180.0f);
    cr_expect(fabsf(p.z - wedged) < 0.5f && fabsf(p.y - 1500.0f) < 0.5f,
              "did not wedge: at (%g, %g), expected z about %g", p.y, p.z, wedged);
    double d = min_unit_distance(&world.data, sphere(RADIUS), p, NULL);
    cr_expect(d >= 1.0 - 1e-4 && d < 1.02, "wedged sphere at distance %g radii", d);
    /* Pushing uphill into a steep side goes nowhere ... */
    skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ 0, RUN_PER_FRAME, 0 },
                                      &def);
    cr_expect(fabsf(r.position.y - p.y) < 0.5f, "climbed a 70 degree side to y = %g", r.position.y);
    /* ... but along the trough, out of the wedge, it moves at full speed
       every frame (with the wedge still around it). */
    for (int f = 0; f < 60; ++f) {
        r = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ RUN_PER_FRAME, 0.2f, 0 }, &def);
        cr_assert(r.position.x - p.x > 0.99f * RUN_PER_FRAME,
                  "frame %d: stuck in the wedge, moved %g along x", f, r.position.x - p.x);
        p = r.position;
    }
    /* Past its end (x = 600) it falls to the floor and walks on. */
    for (int f = 0; f < 60; ++f)
        p = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ RUN_PER_FRAME, 0, 0 }, &def)
                .position;
    cr_expect(p.x > 600.0f + RADIUS && fabsf(p.z - rest_z) < 0.05f, "after the trough at (%g, %g)",
              p.x, p.z);
}

Test(move_surfaces, narrow_v_walks_out)
{
    /* Pushed into the V corner's apex, then told to walk out of it. */
    skim_move_def def = walker_def();
    skim_vec3 p = { 400, 700, rest_z };
    for (int f = 0; f < 60; ++f)
        p = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ 0.3f, RUN_PER_FRAME, 0 }, &def)
                .position;
    float wedged_y = p.y;
    for (int f = 0; f < 30; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p,
                                          (skim_vec3){ 0.5f, -RUN_PER_FRAME, 0 }, &def);
        cr_assert(p.y - r.position.y > 0.99f * RUN_PER_FRAME, "frame %d: stuck in the V (moved %g)",
                  f, p.y - r.position.y);
        p = r.position;
    }
    cr_expect(wedged_y - p.y > 29.0f * RUN_PER_FRAME, "walked out only %g", wedged_y - p.y);
}
