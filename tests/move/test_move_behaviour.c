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

/* Axis-aligned box [lo, hi] as 12 triangles appended to positions (36
   floats a box; two-sided triangles, so the winding does not matter). */
static void push_box(float *positions, int *count, const float lo[3], const float hi[3])
{
    static const int quads[6][4][3] = {
        { { 0, 0, 0 }, { 0, 1, 0 }, { 0, 1, 1 }, { 0, 0, 1 } }, /* x = lo */
        { { 1, 0, 0 }, { 1, 0, 1 }, { 1, 1, 1 }, { 1, 1, 0 } }, /* x = hi */
        { { 0, 0, 0 }, { 0, 0, 1 }, { 1, 0, 1 }, { 1, 0, 0 } }, /* y = lo */
        { { 0, 1, 0 }, { 1, 1, 0 }, { 1, 1, 1 }, { 0, 1, 1 } }, /* y = hi */
        { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 } }, /* z = lo */
        { { 0, 0, 1 }, { 0, 1, 1 }, { 1, 1, 1 }, { 1, 0, 1 } }, /* z = hi */
    };
    static const int fan[6] = { 0, 1, 2, 0, 2, 3 };
    for (int q = 0; q < 6; ++q)
        for (int k = 0; k < 6; ++k)
            for (int a = 0; a < 3; ++a)
                positions[(*count)++] = quads[q][fan[k]][a] ? hi[a] : lo[a];
}

/* Steps met at an angle along a wall, and slowly. The step's raised move
   is abandoned once it cannot beat the plain move (move.c, goal_reachable:
   its bound is the rest of the path along the cone of the walls met so
   far): walking at an angle into a tall wall with a step along it, the
   raised move meets the wall first and only gets past the riser by sliding
   along it, which a bound of "no farther than the wall contact" would have
   thrown away. And at under 0.8 of the run speed the raised move ends over
   the step's edge, not its tread: the descent lands on the nosing, where
   the riser's face and the tread's are hit at the same t, and this mesh
   lists the riser first (contacts.c, skim_move_walkable_at). */
Test(move_behaviour, climbs_a_step_along_a_wall_and_slowly)
{
    enum { BOXES = 3, CORNERS = 36 * BOXES };
    float positions[3 * CORNERS];
    int count = 0;
    push_box(positions, &count, (const float[3]){ -512, -512, -16 }, (const float[3]){ 512, 512, 0 });
    push_box(positions, &count, (const float[3]){ 64, -512, 0 }, (const float[3]){ 96, 512, 256 });
    push_box(positions, &count, (const float[3]){ -512, 100, 0 }, (const float[3]){ 64, 512, 12 });
    cr_assert_eq(count, 3 * CORNERS);
    uint32_t indices[CORNERS];
    for (uint32_t i = 0; i < CORNERS; ++i)
        indices[i] = i;
    skim_mesh mesh = { positions, (uint32_t)count / 3, indices, (uint32_t)count / 9, NULL };
    skim_world *w = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &w), SKIM_OK, "%s", skim_last_error_message());
    skim_move_def def = walker_def();
    const struct {
        const char *what;
        float x, along, across;
    } walks[] = {
        /* Pressed into the wall at x = 64, 0.8 of the run toward it and
           0.6 along it: the plain move slides along the wall into the
           riser at y = 100. */
        { "at an angle along the wall", 64.0f - rest_z, 0.6f, 0.8f },
        { "straight at a quarter of the run", 0.0f, 0.25f, 0.0f },
    };
    /* A sphere, and an ellipsoid standing tall (the bound's cone is taken
       to the world through the shape's normal map). */
    const float heights[] = { RADIUS, 1.75f * RADIUS };
    for (size_t k = 0; k < sizeof walks / sizeof walks[0]; ++k)
        for (size_t e = 0; e < sizeof heights / sizeof heights[0]; ++e) {
            const skim_ellipsoid shape = { { RADIUS, RADIUS, heights[e] }, { 0, 0, 0, 1 } };
            const float rest = 1.01f * heights[e]; /* a skin above the floor */
            skim_vec3 p = { walks[k].x, 0, rest };
            const skim_vec3 d = { walks[k].across * RUN_PER_FRAME,
                                  walks[k].along * RUN_PER_FRAME, 0 };
            const int frames = (int)(140.0f / (walks[k].along * RUN_PER_FRAME));
            for (int f = 0; f < frames; ++f)
                p = move_or_fail(w, shape, p, d, &def).position;
            cr_expect(p.y > 130.0f, "%s, height %g: stopped at the riser: y = %g", walks[k].what,
                      heights[e], p.y);
            /* On the tread, at most a skin above it. */
            cr_expect(p.z > 12.0f + heights[e] && p.z < 12.0f + rest + 1e-3f,
                      "%s, height %g: z = %g, expected on the step at %g", walks[k].what,
                      heights[e], p.z, 12.0f + rest);
            cr_expect(fabsf(p.x - walks[k].x) < 1e-3f, "%s, height %g: x moved from %g to %g",
                      walks[k].what, heights[e], walks[k].x, p.x);
        }
    skim_world_destroy(w);
}

/* A floor and one block [-512, 512] x [100, 512] x [0, height], its
   triangles listed riser first (push_box's order) or reversed. */
typedef struct step_world {
    float positions[3 * 72];
    uint32_t indices[72];
    skim_world *world;
    skim_mesh_data data; /* a view, for the overlap check */
} step_world;

static void step_world_make(step_world *s, float height, bool reversed)
{
    float listed[3 * 72];
    int count = 0;
    push_box(listed, &count, (const float[3]){ -512, -512, -16 }, (const float[3]){ 512, 512, 0 });
    push_box(listed, &count, (const float[3]){ -512, 100, 0 }, (const float[3]){ 512, 512, height });
    cr_assert_eq(count, 3 * 72);
    for (int t = 0; t < 24; ++t)
        memcpy(s->positions + 9 * t, listed + 9 * (reversed ? 23 - t : t), 9 * sizeof(float));
    for (uint32_t i = 0; i < 72; ++i)
        s->indices[i] = i;
    skim_mesh mesh = { s->positions, 72, s->indices, 24, NULL };
    cr_assert_eq(skim_world_create(&mesh, NULL, &s->world), SKIM_OK, "%s",
                 skim_last_error_message());
    s->data = (skim_mesh_data){ s->positions, 72, s->indices, 24, NULL, NULL, 0 };
}

/* Walks shape from (0, 0, rest) at speed (fractions of the run) and angle
   (degrees from +y, the riser's normal) until it has gone 150 units along
   y, checking every frame that it is clear of the block and the floor. */
static skim_vec3 walk_at_the_step(step_world *s, skim_ellipsoid shape, float speed, float angle,
                                  const char *what)
{
    const skim_move_def def = walker_def();
    const float a = angle * (float)M_PI / 180.0f;
    const skim_vec3 d = { speed * RUN_PER_FRAME * sinf(a), speed * RUN_PER_FRAME * cosf(a), 0 };
    skim_vec3 p = { 0, 0, 1.01f * shape.radii.z };
    const int frames = (int)(150.0f / d.y);
    for (int f = 0; f < frames; ++f) {
        p = move_or_fail(s->world, shape, p, d, &def).position;
        double distance = min_unit_distance(&s->data, shape, p, NULL);
        cr_assert(distance >= 1.0 - 1e-4, "%s frame %d: inside geometry at (%g, %g, %g): %.6f "
                  "radii", what, f, p.x, p.y, p.z, distance);
    }
    return p;
}

static const struct {
    float speed, angle;
} slow_walks[] = { { 0.05f, 0.0f }, { 0.05f, 30.0f }, { 0.1f, 0.0f }, { 0.1f, 60.0f } };

/* Every walk of slow_walks, a sphere and a tall ellipsoid, both triangle
   orders, at a block of the given height: on it (climbs) or stopped on the
   floor in front of it. */
static void walk_slow_walkers(float height, bool climbs)
{
    const float heights[] = { RADIUS, 1.75f * RADIUS };
    for (int order = 0; order < 2; ++order) {
        step_world s;
        step_world_make(&s, height, order == 1);
        for (size_t e = 0; e < sizeof heights / sizeof heights[0]; ++e)
            for (size_t k = 0; k < sizeof slow_walks / sizeof slow_walks[0]; ++k) {
                const skim_ellipsoid shape = { { RADIUS, RADIUS, heights[e] }, { 0, 0, 0, 1 } };
                char what[96];
                snprintf(what, sizeof what, "order %d, height %g, speed %g, angle %g", order,
                         heights[e], slow_walks[k].speed, slow_walks[k].angle);
                skim_vec3 p = walk_at_the_step(&s, shape, slow_walks[k].speed,
                                               slow_walks[k].angle, what);
                if (climbs) {
                    cr_expect(p.y > 110.0f, "%s: stopped at the riser: y = %g", what, p.y);
                    cr_expect(p.z > height + heights[e] && p.z < height + 1.01f * heights[e] + 1e-3f,
                              "%s: z = %g, expected on the step at %g", what, p.z,
                              height + 1.01f * heights[e]);
                } else {
                    cr_expect(p.y < 100.0f, "%s: passed the block to y = %g", what, p.y);
                    cr_expect(fabsf(p.z - 1.01f * heights[e]) < 0.01f, "%s: z = %g, climbed", what,
                              p.z);
                }
            }
        skim_world_destroy(s.world);
    }
}

/* Walkers that get less than about 0.03 radii past the riser in one move
   (0.05 and 0.1 of the run speed, 0.27 and 0.53 units a frame, and at a
   grazing angle): the step's descent lands on the nosing with the center
   still out over the riser, where gravity rolled them back off the edge
   every move. Jolt's WalkStairs forward test sees the tread just ahead
   and holds them on the nosing (step_and_snap.c). A sphere and an
   ellipsoid standing 1.75 times as tall, both triangle orders. */
Test(move_behaviour, slow_walkers_climb_a_step)
{
    walk_slow_walkers(12.0f, true);
}

/* The same slow walkers against a block taller than step_height (24 > 18)
   stay on the floor against it: the forward test finds no floor within a
   step, and a nosing is held only when the step itself was allowed. */
Test(move_behaviour, slow_walkers_stopped_by_a_block_taller_than_a_step)
{
    walk_slow_walkers(24.0f, false);
}
