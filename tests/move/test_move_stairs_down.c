/* Walking down stairs with snapping: whatever the step (up to step_height),
   its depth, the walker's radius, speed and angle to the stairs, the mover
   is on the floor every frame, never goes up, never drops more than a step
   at once, and rides the stairs' surface: its height is the lowest the
   sphere can have over the stairs there (computed here in double), never
   below it and never more than a skin or two above (a frame in the air
   would be a fall step above it). Deterministic generator. */
#include "move_test_util.h"

#ifndef SKIM_MOVE_TEST_SCALE
#define SKIM_MOVE_TEST_SCALE 1
#endif

enum { STEPS = 4 };

static uint64_t rng_state;

static double uniform(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * ((double)(rng_state >> 11) * (1.0 / 9007199254740992.0));
}

/* Stairs going down toward +y: tread n (0..STEPS) at z = (STEPS - n) rise
   for y in [n depth, (n + 1) depth] (the top landing from y = -1000, the
   bottom one to y = (STEPS + 1) depth + 1000), risers between them; 4000
   wide. */
typedef struct stairs {
    float positions[3 * 4 * (2 * STEPS + 1)];
    uint32_t indices[6 * (2 * STEPS + 1)];
    skim_world *world;
    double rise, depth;
} stairs;

static void stairs_make(stairs *s, double rise, double depth)
{
    s->rise = rise;
    s->depth = depth;
    int v = 0, t = 0;
    for (int n = 0; n <= STEPS; ++n) {
        const float z = (float)((STEPS - n) * rise);
        const float y0 = n == 0 ? -1000.0f : (float)(n * depth);
        const float y1 = n == STEPS ? (float)((n + 1) * depth + 1000.0) : (float)((n + 1) * depth);
        const float tread[4][3] = { { -2000, y0, z }, { 2000, y0, z }, { 2000, y1, z },
                                    { -2000, y1, z } };
        const float riser[4][3] = { { -2000, y1, z }, { 2000, y1, z }, { 2000, y1, z - (float)rise },
                                    { -2000, y1, z - (float)rise } };
        for (int quad = 0; quad < (n < STEPS ? 2 : 1); ++quad) {
            const float(*q)[3] = quad == 0 ? tread : riser;
            const uint32_t b = (uint32_t)v;
            for (int k = 0; k < 4; ++k, ++v)
                memcpy(&s->positions[3 * v], q[k], sizeof q[k]);
            const uint32_t tri[6] = { b, b + 1, b + 2, b, b + 2, b + 3 };
            memcpy(&s->indices[6 * t++], tri, sizeof tri);
        }
    }
    skim_mesh mesh = { s->positions, (uint32_t)v, s->indices, (uint32_t)(2 * t), NULL };
    cr_assert_eq(skim_world_create(&mesh, NULL, &s->world), SKIM_OK, "%s",
                 skim_last_error_message());
}

/* The lowest center height of a sphere of radius r over the stairs at y:
   each tread holds it at its height + r over the tread, or through its
   edges at the height + sqrt(r^2 - d^2) within d < r of them. */
static double support(const stairs *s, double r, double y)
{
    double best = -INFINITY;
    for (int n = 0; n <= STEPS; ++n) {
        const double z = (STEPS - n) * s->rise;
        const double y0 = n == 0 ? -1000.0 : n * s->depth;
        const double y1 = n == STEPS ? (n + 1) * s->depth + 1000.0 : (n + 1) * s->depth;
        const double d = y < y0 ? y0 - y : y > y1 ? y - y1 : 0.0;
        if (d < r) {
            const double h = z + sqrt(r * r - d * d);
            best = h > best ? h : best;
        }
    }
    return best;
}

typedef struct walk_case {
    double rise, depth, radius, speed, angle, phase;
} walk_case;

static void walk_down(const walk_case *w, double *worst_air)
{
    stairs s;
    stairs_make(&s, w->rise, w->depth);
    const float r = (float)w->radius;
    const skim_ellipsoid shape = sphere(r);
    skim_move_def def = walker_def(); /* step_height and snap_distance 18, gravity */
    const float skin = def.skin_width * r;
    skim_vec3 p = { 0, (float)(-w->phase), (float)(STEPS * w->rise) + r + skin };
    const float per_frame = (float)(w->speed / 60.0);
    const skim_vec3 d = { per_frame * (float)sin(w->angle), per_frame * (float)cos(w->angle), 0 };
    const double end_y = (STEPS + 1) * w->depth + w->radius;
    char what[200];
    snprintf(what, sizeof what, "rise %g, depth %g, radius %g, %g u/s at %g degrees",
             w->rise, w->depth, w->radius, w->speed, w->angle * 180.0 / M_PI);
    for (int f = 0; p.y < end_y; ++f) {
        cr_assert(f < 2000, "%s: stuck at y = %g", what, p.y);
        skim_move_result m = move_or_fail(s.world, shape, p, d, &def);
        const skim_vec3 q = m.position;
        cr_assert(m.touched & SKIM_TOUCH_FLOOR, "%s, frame %d: not on the floor at (%g, %g)", what,
                  f, q.y, q.z);
        cr_assert(q.z <= p.z + 1e-3f, "%s, frame %d: went up from %g to %g", what, f, p.z, q.z);
        cr_assert(p.z - q.z <= w->rise + 0.5, "%s, frame %d: dropped %g at once", what, f,
                  p.z - q.z);
        const double h = support(&s, w->radius, q.y);
        const double air = q.z - h;
        cr_assert(air >= -1e-3 * w->radius, "%s, frame %d: %g below the stairs' surface", what, f,
                  -air);
        /* Resting a skin off along the contact normal, within the slope
           limit: at most skin / cos(45 degrees), and the ground probe's two
           skins. */
        cr_assert(air <= 3.0 * skin / cos(M_PI / 4), "%s, frame %d: %g above the stairs' surface "
                  "at y = %g", what, f, air, q.y);
        if (air > *worst_air)
            *worst_air = air;
        p = q;
    }
    skim_world_destroy(s.world);
}

TestSuite(move_stairs_down, .timeout = 120);

/* Steps as tall as the radius: steps 16 high and 32 deep, radius 16, 320 and 120 u/s. */
Test(move_stairs_down, rides_steps_as_tall_as_its_radius_on_the_floor_every_frame)
{
    double worst = -INFINITY;
    for (int k = 0; k < 8; ++k) {
        walk_case w = { 16, 32, 16, k % 2 ? 120 : 320, 0, 4.0 * k };
        walk_down(&w, &worst);
    }
}

Test(move_stairs_down, rides_any_stairs_within_step_height_on_the_floor_every_frame)
{
    rng_state = 0x57a1e5d0ull;
    double worst = -INFINITY;
    const int cases = 160 / SKIM_MOVE_TEST_SCALE;
    for (int i = 0; i < cases; ++i) {
        walk_case w = {
            .rise = uniform(2, STEP),
            .depth = uniform(20, 64),
            .radius = uniform(10, 22),
            .speed = uniform(60, 420),
            .angle = uniform(-40, 40) * M_PI / 180.0,
        };
        w.phase = uniform(0, w.depth);
        walk_down(&w, &worst);
    }
    cr_log_info("%d stairs walked down: highest above the surface %g", cases, worst);
}
