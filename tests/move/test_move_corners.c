/* Ellipsoids pushed into corners: whatever the shape and its rotation, a
   move never ends against the asked direction (world displacement . asked
   >= 0, within rounding) nor farther than asked, and never inside a wall.
   Deterministic generator: corners of 45 to 160 degrees between two
   vertical walls, shapes with radii from 6 to 32 in any rotation (about up
   only, and arbitrary), asked directions into the corner at any angle and
   speed, steady and wobbling. */
#include "move_test_util.h"

#ifndef SKIM_MOVE_TEST_SCALE
#define SKIM_MOVE_TEST_SCALE 1
#endif

static uint64_t rng_state;

static double next_unit(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * next_unit();
}

/* Two vertical walls from the z axis, 2000 long and 800 tall, at +- half
   the corner's angle from +x: the wedge between them opens along +x; and,
   for walkers, a floor at z = 0. */
typedef struct corner {
    float positions[3 * 12];
    uint32_t indices[3 * 6];
    skim_mesh mesh;
    skim_world *world;
} corner;

static void corner_make(corner *c, double angle_degrees, bool with_floor)
{
    const double half = angle_degrees * M_PI / 360.0;
    const double dir[2][2] = { { cos(half), sin(half) }, { cos(half), -sin(half) } };
    const float length = 2000.0f, height = 400.0f;
    int v = 0;
    for (int w = 0; w < 2; ++w) {
        const float ex = (float)dir[w][0] * length, ey = (float)dir[w][1] * length;
        const float quad[4][3] = { { 0, 0, -height }, { ex, ey, -height }, { ex, ey, height },
                                   { 0, 0, height } };
        for (int k = 0; k < 4; ++k, ++v)
            memcpy(&c->positions[3 * v], quad[k], sizeof quad[k]);
    }
    const float floor_quad[4][3] = { { -length, -length, 0 }, { length, -length, 0 },
                                     { length, length, 0 }, { -length, length, 0 } };
    for (int k = 0; k < 4; ++k, ++v)
        memcpy(&c->positions[3 * v], floor_quad[k], sizeof floor_quad[k]);
    const uint32_t idx[18] = { 0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6, 8, 9, 10, 8, 10, 11 };
    memcpy(c->indices, idx, sizeof idx);
    c->mesh = (skim_mesh){ c->positions, 12, c->indices, with_floor ? 6 : 4, NULL };
    cr_assert_eq(skim_world_create(&c->mesh, NULL, &c->world), SKIM_OK, "%s",
                 skim_last_error_message());
}

static skim_quat random_rotation(bool about_up_only)
{
    if (about_up_only) {
        double yaw = uniform(0, 2 * M_PI);
        return (skim_quat){ 0, 0, (float)sin(yaw / 2), (float)cos(yaw / 2) };
    }
    /* Shoemake's uniform quaternion. */
    double u1 = next_unit(), u2 = uniform(0, 2 * M_PI), u3 = uniform(0, 2 * M_PI);
    double a = sqrt(1 - u1), b = sqrt(u1);
    return (skim_quat){ (float)(a * sin(u2)), (float)(a * cos(u2)), (float)(b * sin(u3)),
                        (float)(b * cos(u3)) };
}

/* Distance in radii from the shape at p to the nearest wall (double). */
static double wall_distance(const corner *c, skim_ellipsoid shape, skim_vec3 p)
{
    d_space s = d_space_of(shape);
    double best = INFINITY;
    for (uint32_t t = 0; t < c->mesh.triangle_count; ++t) {
        float tri[9];
        for (int k = 0; k < 3; ++k)
            memcpy(&tri[3 * k], &c->positions[3 * c->indices[3 * t + k]], 3 * sizeof(float));
        double d = d_unit_distance(&s, p, tri);
        best = d < best ? d : best;
    }
    return best;
}

typedef struct worst {
    double against;   /* most negative (displacement . asked) / |asked|, world units */
    double overshoot; /* most |displacement| - |asked|, world units */
    double inside;    /* least distance to a wall, radii */
} worst;

/* Pushes one shape into the corner for frames; records the worst frame. */
static void push_into(const corner *c, skim_ellipsoid shape, double heading, double speed,
                      double wobble, int frames, const skim_move_def *def, worst *w,
                      const char *what)
{
    /* Start on the bisector, two largest radii out of the corner; a walker
       just above the floor (its lowest point is |M^T up| below the center). */
    const float reach = fmaxf(shape.radii.x, fmaxf(shape.radii.y, shape.radii.z));
    skim_vec3 p = { 3.0f * reach, 0.0f, 0.0f };
    if (def) {
        const d_space s = d_space_of(shape);
        /* rows of to_unit are R^T columns over radii: M^T up = radii * (R^T up). */
        double foot = 0.0;
        for (int i = 0; i < 3; ++i) {
            const double radius = i == 0 ? shape.radii.x : i == 1 ? shape.radii.y : shape.radii.z;
            const double along = s.to_unit[i][2] * radius * radius;
            foot += along * along;
        }
        p.z = (float)(1.02 * sqrt(foot));
    }
    for (int f = 0; f < frames; ++f) {
        /* Toward the corner: the wedge opens along +x, so the asked
           direction points back along -x, turned by heading (+- wobble). */
        double a = M_PI + heading + wobble * sin(1.7 * f);
        skim_vec3 asked = { (float)(speed * cos(a)), (float)(speed * sin(a)), 0.0f };
        skim_move_result r;
        skim_status status = skim_move(c->world, &shape, p, asked, def, &r);
        cr_assert_eq(status, SKIM_OK, "%s: %s", what, skim_last_error_message());
        /* A walker also falls and snaps: its motion across up is what was asked. */
        const double d[3] = { (double)r.position.x - p.x, (double)r.position.y - p.y,
                              def ? 0.0 : (double)r.position.z - p.z };
        const double asked_length = sqrt((double)asked.x * asked.x + (double)asked.y * asked.y);
        const double along = (d[0] * asked.x + d[1] * asked.y + d[2] * asked.z) / asked_length;
        const double moved = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        /* Rounding: of the world coordinates (|p| ~ 100) and of the slide
           (u r_max / r_min of the step). */
        const double tolerance = 1e-4 * (1.0 + asked_length);
        cr_assert(along >= -tolerance,
                  "%s, frame %d: moved (%g %g %g), %g against the asked (%g %g), from (%g %g %g)",
                  what, f, d[0], d[1], d[2], -along, asked.x, asked.y, p.x, p.y, p.z);
        cr_assert(moved <= asked_length + tolerance,
                  "%s, frame %d: moved %g, asked %g", what, f, moved, asked_length);
        double clear = wall_distance(c, shape, r.position);
        cr_assert(clear >= 1.0 - 1e-4, "%s, frame %d: inside a wall (%g radii)", what, f, clear);
        if (-along > w->against)
            w->against = -along;
        if (moved - asked_length > w->overshoot)
            w->overshoot = moved - asked_length;
        if (clear < w->inside)
            w->inside = clear;
        p = r.position;
    }
}

static void run_corners(bool about_up_only, const skim_move_def *def, uint64_t seed,
                        const char *family)
{
    rng_state = seed;
    const double angles[] = { 45, 60, 75, 90, 105, 120, 160 };
    worst w = { -INFINITY, -INFINITY, INFINITY };
    int pushes = 0;
    for (size_t k = 0; k < sizeof angles / sizeof angles[0]; ++k) {
        corner c;
        corner_make(&c, angles[k], def != NULL);
        const double half = angles[k] * M_PI / 360.0;
        for (int i = 0; i < 60 / SKIM_MOVE_TEST_SCALE; ++i) {
            skim_ellipsoid shape = {
                { (float)uniform(6, 32), (float)uniform(6, 32), (float)uniform(6, 32) },
                random_rotation(about_up_only),
            };
            /* Into the wedge: up to 20 degrees past either wall's direction. */
            double heading = uniform(-half - 0.35, half + 0.35);
            double speed = uniform(0.5, 12.0);
            double wobble = i % 2 ? uniform(0.05, 0.6) : 0.0;
            char what[256];
            snprintf(what, sizeof what,
                     "%s: corner %g deg, radii (%g %g %g) rotation (%g %g %g %g), heading %g, "
                     "speed %g, wobble %g",
                     family, angles[k], shape.radii.x, shape.radii.y, shape.radii.z,
                     shape.rotation.x, shape.rotation.y, shape.rotation.z, shape.rotation.w,
                     heading, speed, wobble);
            push_into(&c, shape, heading, speed, wobble, 40, def, &w, what);
            pushes++;
        }
        skim_world_destroy(c.world);
    }
    cr_log_info("%s: %d pushes of 40 moves: worst against the asked %g, overshoot %g, nearest "
                "wall %g radii", family, pushes, w.against, w.overshoot, w.inside);
}

TestSuite(move_corners, .timeout = 120);

/* A right corner: radii (16, 10, 28) turned 30 degrees about up, asked
   for 5.33 units a frame at 75 degrees into a 90-degree corner. */
Test(move_corners, turned_ellipsoid_in_a_right_corner_never_slides_back)
{
    corner c;
    corner_make(&c, 90, false);
    /* Walls here run at +-45 degrees from +x, there along the axes: the
       same shape and motion relative to the walls is 135 degrees on. */
    const double yaw = (30.0 + 135.0) * M_PI / 180.0;
    skim_ellipsoid shape = { { 16, 10, 28 },
                             { 0, 0, (float)sin(yaw / 2), (float)cos(yaw / 2) } };
    worst w = { -INFINITY, -INFINITY, INFINITY };
    /* 75 degrees from one wall: 30 degrees off the bisector. */
    push_into(&c, shape, 30.0 * M_PI / 180.0, 5.33, 0.0, 60, NULL, &w, "steady");
    push_into(&c, shape, 30.0 * M_PI / 180.0, 5.33, 0.35, 60, NULL, &w, "wobbling");
    skim_world_destroy(c.world);
}

Test(move_corners, ellipsoids_turned_about_up_never_move_against_the_asked_direction)
{
    run_corners(true, NULL, 0x5eedc0de12345ull, "about up");
}

Test(move_corners, ellipsoids_in_any_rotation_never_move_against_the_asked_direction)
{
    run_corners(false, NULL, 0xc0a1e5cedull, "any rotation");
}

Test(move_corners, walking_ellipsoids_never_move_against_the_asked_direction)
{
    /* On a floor, with gravity, steps and snapping: the motion across up. */
    const skim_move_def def = walker_def();
    run_corners(true, &def, 0xf1005eedull, "walking");
}
