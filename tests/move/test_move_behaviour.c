/* Collide-and-slide behaviour on the default scene ("What it must
   show"): stairs, ramps, the acute corner, walls, gravity, the low ceiling,
   the thin wall, embedded starts. Quake units: sphere radius 16, step 18,
   run 320 u/s at 60 Hz. */
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

TestSuite(move_behaviour, .init = setup, .fini = teardown, .timeout = 60);

static const float rest_z = RADIUS * 1.01f; /* on the floor at one skin (default 0.01 radii) */

/* Fails the test if the shape at p overlaps the scene (double precision,
   the suite's own code). */
static void expect_clear(skim_ellipsoid shape, skim_vec3 p, const char *what, int frame)
{
    uint32_t triangle = UINT32_MAX;
    double d = min_unit_distance(&world.data, shape, p, &triangle);
    cr_assert(d >= 1.0 - 1e-4, "%s frame %d: inside geometry at (%g, %g, %g): distance %.6f radii "
              "to triangle %u", what, frame, p.x, p.y, p.z, d, triangle);
}

/* Walks a sphere for frames by a constant displacement; returns the end. */
static skim_vec3 walk(skim_vec3 p, skim_vec3 d, int frames, const skim_move_def *def,
                      bool check_clear, const char *what)
{
    for (int f = 0; f < frames; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, d, def);
        p = r.position;
        if (check_clear)
            expect_clear(sphere(RADIUS), p, what, f);
    }
    return p;
}

/* Staircase i: step 8 (i + 1), x in [-1900 + 220 i, +128], steps from y = 200. */
static float stair_x(int i) { return -1900.0f + 220.0f * (float)i + 64.0f; }

Test(move_behaviour, climbs_stairs_lower_than_step_height)
{
    skim_move_def def = walker_def();
    for (int i = 0; i < 2; ++i) { /* steps 8 and 16 < 18 */
        float step = 8.0f * (float)(i + 1);
        skim_vec3 p = walk((skim_vec3){ stair_x(i), 150, rest_z }, (skim_vec3){ 0, RUN_PER_FRAME, 0 },
                           70, &def, true, "stairs up");
        cr_expect(p.y > 456.0f, "staircase of step %g: stopped at y = %g before the landing", step,
                  p.y);
        cr_expect(fabsf(p.z - (8.0f * step + rest_z)) < 0.05f,
                  "staircase of step %g: z = %g, expected on the landing at %g", step, p.z,
                  8.0f * step + rest_z);
    }
}

Test(move_behaviour, stopped_by_stairs_higher_than_step_height)
{
    skim_move_def def = walker_def();
    for (int i = 2; i < 4; ++i) { /* steps 24 and 32 > 18 */
        skim_vec3 p = walk((skim_vec3){ stair_x(i), 150, rest_z }, (skim_vec3){ 0, RUN_PER_FRAME, 0 },
                           60, &def, true, "stairs too high");
        cr_expect(p.y < 200.0f - RADIUS + 0.01f && p.y > 200.0f - RADIUS - 0.5f,
                  "staircase of step %d: y = %g, expected stopped against the first riser",
                  8 * (i + 1), p.y);
        cr_expect(fabsf(p.z - rest_z) < 0.01f, "staircase of step %d: z = %g, climbed", 8 * (i + 1),
                  p.z);
    }
}

/* Ramp i: 20/40/50/70 degrees, x in [-900 + 220 i, +128], rising toward +y
   from y = 200 to height 128, then a plateau 128 deep. */
static float ramp_x(int i) { return -900.0f + 220.0f * (float)i + 64.0f; }

Test(move_behaviour, walks_up_40_degree_ramp)
{
    skim_move_def def = walker_def();
    skim_vec3 p = walk((skim_vec3){ ramp_x(1), 150, rest_z }, (skim_vec3){ 0, RUN_PER_FRAME, 0 },
                       72, &def, true, "40 degree ramp");
    float top = 200.0f + 128.0f / tanf(40.0f * (float)M_PI / 180.0f);
    cr_expect(p.y > top && p.y < top + 128.0f,
              "at y = %g after 72 frames, expected on the plateau [%g, %g]", p.y, top, top + 128.0f);
    cr_expect(fabsf(p.z - (128.0f + rest_z)) < 0.05f, "z = %g, expected on the plateau", p.z);
}

Test(move_behaviour, cannot_walk_up_50_degree_ramp)
{
    skim_move_def def = walker_def();
    skim_vec3 p = walk((skim_vec3){ ramp_x(2), 150, rest_z }, (skim_vec3){ 0, RUN_PER_FRAME, 0 },
                       100, &def, true, "50 degree ramp");
    cr_expect(p.z < rest_z + 2.0f, "climbed the 50 degree ramp to z = %g", p.z);
    cr_expect(p.y < 200.0f + 8.0f, "advanced up the 50 degree ramp to y = %g", p.y);
}

Test(move_behaviour, slides_back_down_70_degree_ramp)
{
    /* Start resting against the 70 degree slope halfway up, pushing uphill. */
    float a = 70.0f * (float)M_PI / 180.0f;
    float height = 64.0f;
    skim_vec3 n = { 0, -sinf(a), cosf(a) };
    skim_vec3 on = { ramp_x(3), 200.0f + height / tanf(a), height };
    skim_vec3 p = { on.x + n.x * 16.5f, on.y + n.y * 16.5f, on.z + n.z * 16.5f };
    skim_move_def def = walker_def();
    float last_z = p.z;
    int descending = 0;
    for (int f = 0; f < 200; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p,
                                          (skim_vec3){ 0, RUN_PER_FRAME, 0 }, &def);
        p = r.position;
        expect_clear(sphere(RADIUS), p, "70 degree ramp", f);
        if (f < 40) {
            cr_expect(!(r.touched & SKIM_TOUCH_FLOOR), "frame %d: the 70 degree slope reported as "
                      "a floor", f);
            descending += p.z < last_z - 0.1f;
        }
        last_z = p.z;
    }
    cr_expect(descending >= 35, "slid down on only %d of the first 40 frames", descending);
    cr_expect(fabsf(p.z - rest_z) < 0.05f, "ended at z = %g, expected back on the floor", p.z);
    cr_expect(p.y < 200.0f, "ended at y = %g, expected below the ramp's foot", p.y);
}

Test(move_behaviour, comes_down_stairs_on_the_floor_every_frame)
{
    skim_move_def def = walker_def();
    for (int i = 0; i < 2; ++i) {
        float step = 8.0f * (float)(i + 1);
        skim_vec3 p = { stair_x(i), 520, 8.0f * step + rest_z };
        float last_z = p.z;
        for (int f = 0; f < 90; ++f) {
            skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p,
                                              (skim_vec3){ 0, -RUN_PER_FRAME, 0 }, &def);
            cr_assert(r.touched & SKIM_TOUCH_FLOOR, "step %g, frame %d at (%g, %g, %g): not on the "
                      "floor", step, f, r.position.x, r.position.y, r.position.z);
            cr_assert(r.position.z <= last_z + 1e-3f, "step %g, frame %d: bounced up from %g to %g",
                      step, f, last_z, r.position.z);
            cr_assert(last_z - r.position.z <= step + 0.5f, "step %g, frame %d: dropped %g at once",
                      step, f, last_z - r.position.z);
            expect_clear(sphere(RADIUS), r.position, "stairs down", f);
            last_z = r.position.z;
            p = r.position;
        }
        cr_expect(fabsf(p.z - rest_z) < 0.05f && p.y < 200.0f,
                  "step %g: ended at (%g, %g), expected on the floor below", step, p.y, p.z);
    }
}

/* The V corner: walls 30 degrees apart meeting at (400, 900), opening to -y. */
static void push_into_corner(skim_vec3 direction, const char *what)
{
    skim_move_def def = walker_def();
    skim_vec3 p = { 400, 700, rest_z };
    skim_vec3 history[600];
    for (int f = 0; f < 600; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, direction, &def);
        p = history[f] = r.position;
        cr_assert(p.y < 900.0f && p.y > 600.0f, "%s frame %d: escaped the V to y = %g", what, f,
                  p.y);
        float half_width = (900.0f - p.y) * tanf(15.0f * (float)M_PI / 180.0f);
        cr_assert(fabsf(p.x - 400.0f) < half_width, "%s frame %d: outside the V at x = %g", what,
                  f, p.x);
        if (f % 50 == 0 || f > 590)
            expect_clear(sphere(RADIUS), p, what, f);
    }
    for (int f = 500; f < 600; ++f) {
        float dx = history[f].x - history[599].x, dy = history[f].y - history[599].y,
              dz = history[f].z - history[599].z;
        cr_assert(sqrtf(dx * dx + dy * dy + dz * dz) < 1e-3f,
                  "%s: still moving at frame %d (%g, %g, %g) vs (%g, %g, %g)", what, f,
                  history[f].x, history[f].y, history[f].z, history[599].x, history[599].y,
                  history[599].z);
    }
    /* Wedged in the apex: the sphere touches both walls' inner faces, which
       are 4 (half the walls' thickness) inside their center lines. */
    float apex_distance = (RADIUS * 1.01f + 4.0f) / sinf(15.0f * (float)M_PI / 180.0f);
    cr_expect(fabsf((900.0f - history[599].y) - apex_distance) < 1.0f,
              "%s: settled %g from the apex, expected about %g", what, 900.0f - history[599].y,
              apex_distance);
}

Test(move_behaviour, acute_corner_settles_and_holds)
{
    push_into_corner((skim_vec3){ 0, RUN_PER_FRAME, 0 }, "straight in");
    push_into_corner((skim_vec3){ 0.6f * RUN_PER_FRAME, 0.8f * RUN_PER_FRAME, 0 }, "at an angle");
    push_into_corner((skim_vec3){ -0.28f * RUN_PER_FRAME, 0.96f * RUN_PER_FRAME, -3.0f },
                     "at an angle, falling");
}

Test(move_behaviour, slides_along_a_wall_at_the_tangential_speed)
{
    /* The outer wall's inner face is x = 2048; push into it with 3 u/frame
       and along it with 4. */
    skim_move_def def = walker_def();
    skim_vec3 d = { 3, 4, 0 };
    skim_vec3 p = walk((skim_vec3){ 2000, -500, rest_z }, d, 20, &def, false, "");
    for (int f = 0; f < 50; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, d, &def);
        cr_assert(r.touched & SKIM_TOUCH_WALL, "frame %d: lost the wall", f);
        expect_near(r.position.y - p.y, 4.0, 1e-3);
        expect_near(r.position.x, 2048.0 - RADIUS * 1.01, 0.02);
        p = r.position;
    }
}

Test(move_behaviour, friction_shortens_the_slide)
{
    /* Nettle's friction note: a slide along material 1 (the outer walls)
       with friction 0.5 goes half as far. */
    skim_move_def def = walker_def();
    const float friction[2] = { 0.0f, 0.5f };
    def.material_friction = friction;
    def.material_friction_count = 2;
    skim_vec3 d = { 3, 4, 0 };
    skim_vec3 p = walk((skim_vec3){ 2000, -500, rest_z }, d, 20, &def, false, "");
    for (int f = 0; f < 20; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, d, &def);
        expect_near(r.position.y - p.y, 2.0, 1e-3);
        p = r.position;
    }
    /* Material 0 (the floor) is frictionless: walking on it is not slowed. */
    skim_move_result r = move_or_fail(world.world, sphere(RADIUS), (skim_vec3){ 0, -500, rest_z },
                                      (skim_vec3){ 4, 0, -1 }, &def);
    expect_near(r.position.x, 4.0, 1e-4);
}

static void fall_and_land(bool two_pass)
{
    skim_move_def def = skim_move_def_default();
    def.snap_distance = 4;
    skim_vec3 p = { 10, -600, 300 };
    float velocity = 0;
    int landed = -1;
    for (int f = 0; f < 120 && landed < 0; ++f) {
        velocity -= 800.0f / 60.0f;
        skim_vec3 fall = { 0, 0, velocity / 60.0f };
        skim_move_result r;
        if (two_pass) {
            def.gravity = fall;
            r = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ 0, 0, 0 }, &def);
        } else {
            r = move_or_fail(world.world, sphere(RADIUS), p, fall, &def);
        }
        expect_clear(sphere(RADIUS), r.position, "falling", f);
        if (r.touched & SKIM_TOUCH_FLOOR) {
            landed = f;
            expect_near(r.position.z, rest_z, 0.02);
            expect_near(r.floor_normal.z, 1.0, 1e-5);
            cr_expect(r.floor_triangle < 2048, "floor triangle %u is not a floor tile",
                      r.floor_triangle);
            float t[9];
            mesh_triangle(&world.data, r.floor_triangle, t);
            cr_expect(t[2] == 0.0f && t[5] == 0.0f && t[8] == 0.0f, "floor triangle not at z = 0");
        } else {
            cr_expect(r.position.z > rest_z, "frame %d: below the floor without touching it", f);
        }
        p = r.position;
    }
    /* 284 units under 800 u/s^2 take about 0.84 s. */
    cr_expect(landed >= 48 && landed <= 54, "landed at frame %d, expected about 51", landed);
}

Test(move_behaviour, falls_and_reports_the_floor_on_landing)
{
    fall_and_land(false);
    fall_and_land(true);
}

Test(move_behaviour, low_ceiling)
{
    skim_move_def def = walker_def();
    /* The slab's underside is z = 40 over x [800, 1000], y [200, 400]: a
       jump under it stops at the ceiling (no gravity pass here: it would
       take the mover back down a little). */
    skim_move_def jump = walker_def();
    jump.gravity = (skim_vec3){ 0, 0, 0 };
    skim_move_result r = move_or_fail(world.world, sphere(RADIUS), (skim_vec3){ 900, 300, rest_z },
                                      (skim_vec3){ 0, 0, 30 }, &jump);
    cr_expect(r.touched & SKIM_TOUCH_CEILING, "no ceiling reported (touched %u)", r.touched);
    cr_expect(r.position.z <= 40.0f - RADIUS && r.position.z > 40.0f - RADIUS - 1.0f,
              "z = %g under a ceiling at 40", r.position.z);
    /* Walking under it: 40 > 32 leaves room, nothing blocks. */
    skim_vec3 p = walk((skim_vec3){ 700, 300, rest_z }, (skim_vec3){ RUN_PER_FRAME, 0, 0 }, 60, &def,
                       true, "under the ceiling");
    expect_near(p.x, 700.0 + 60.0 * RUN_PER_FRAME, 0.01);
    expect_near(p.z, rest_z, 0.01);
}

Test(move_behaviour, thin_wall_stops_fast_movers)
{
    /* The wall x in [1200, 1202] is 2 thick: displacements of 1 to 100 radii
       at several angles never pass it (the tunnelling Gomez and the collision chapter warn of). */
    skim_move_def def = walker_def();
    for (int k = 0; k < 40; ++k) {
        float length = RADIUS * powf(100.0f, (float)k / 39.0f);
        float angle = -1.2f + 2.4f * (float)(k % 7) / 6.0f;
        skim_vec3 start = { 1150, 450, rest_z };
        skim_vec3 d = { length * cosf(angle), length * sinf(angle), 0 };
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), start, d, &def);
        if (r.position.y > 200.0f + RADIUS && r.position.y < 700.0f - RADIUS)
            cr_expect(r.position.x <= 1200.0f - RADIUS + 1e-3f,
                      "length %g angle %g: passed the thin wall to x = %g", length, angle,
                      r.position.x);
        expect_clear(sphere(RADIUS), r.position, "thin wall", k);
    }
}

Test(move_behaviour, embedded_start_is_pushed_out)
{
    skim_move_def def = skim_move_def_default();
    /* 4 units into the floor: pushed up along the separating direction, at
       most 1/8 radius per move (2 units here). */
    skim_vec3 p = { 100, -700, 12 };
    for (int f = 0; f < 4; ++f) {
        skim_move_result r = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ 1, 0, 0 }, &def);
        cr_expect(r.position.z > p.z || r.position.z >= RADIUS, "move %d did not push out (z %g)",
                  f, r.position.z);
        cr_expect(r.touched & SKIM_TOUCH_FLOOR, "move %d: the embedding floor not reported", f);
        p = r.position;
    }
    expect_clear(sphere(RADIUS), p, "pushed out of the floor", 4);
    expect_near(p.x, 104.0, 1e-3); /* the move itself went on */
    /* Into the corner of the closed room's floor and wall (x = 1508): out
       along both normals. */
    p = (skim_vec3){ 1512, 400, 13 };
    for (int f = 0; f < 8; ++f)
        p = move_or_fail(world.world, sphere(RADIUS), p, (skim_vec3){ 0, 0, 0 }, &def).position;
    expect_clear(sphere(RADIUS), p, "pushed out of a corner", 8);
    cr_expect(p.x >= 1508.0f + RADIUS && p.z >= RADIUS, "corner: at (%g, %g)", p.x, p.z);
}
