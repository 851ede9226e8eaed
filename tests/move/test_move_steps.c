/* Steps on small built worlds: a step along a wall met at an angle, and
   walkers slower than the run speed climbing a step or stopped by a block
   taller than one. Quake units: sphere radius 16, step 18, run 320 u/s at
   60 Hz. */
#include "move_test_util.h"

TestSuite(move_steps, .timeout = 60);

static const float rest_z = RADIUS * 1.01f; /* on the floor at one skin (default 0.01 radii) */

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
Test(move_steps, climbs_a_step_along_a_wall_and_slowly)
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
Test(move_steps, slow_walkers_climb_a_step)
{
    walk_slow_walkers(12.0f, true);
}

/* The same slow walkers against a block taller than step_height (24 > 18)
   stay on the floor against it: the forward test finds no floor within a
   step, and a nosing is held only when the step itself was allowed. */
Test(move_steps, slow_walkers_stopped_by_a_block_taller_than_a_step)
{
    walk_slow_walkers(24.0f, false);
}
