/* Regression tests named after the hardening findings about skim_move and the crowd;
   test_limits_*.c hold the others, and hardening.h says what they
   accept. */
#include "hardening.h"

#include <float.h>

static double distance_to_mesh_triangle(const float *positions, const uint32_t *indices, uint32_t t,
                                        const double p[3])
{
    double v[3][3];
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i)
            v[k][i] = positions[3 * indices[3 * t + k] + i];
    return point_triangle_distance(p, v[0], v[1], v[2]);
}

/* ---- skim_move: iterations ----
   skim.h: "`iterations` counts the sweeps of the pass that slid the
   displacement (at most max_iterations)". A move that starts touching a
   surface spends one loop iteration on the touching sweep and then
   skim_move_resolve_contacts (src/move/contacts.c) counts its push-out
   sweep on top, so max_iterations = 1 reports 2 (and sweeps twice). */
Test(limits, a_touching_start_counts_within_max_iterations)
{
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_ellipsoid shape = sphere_of(1);
    skim_move_def def = skim_move_def_default();
    def.max_iterations = 1;
    const float starts[] = { 0.5f, 0.9f, 1.0f, 1.005f };
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; ++i) {
        skim_move_result out;
        cr_assert_eq(skim_move(world, &shape, (skim_vec3){ -5, 0, starts[i] }, (skim_vec3){ 0, 0, -5 }, &def,
                               &out), SKIM_OK);
        cr_expect_leq(out.iterations, def.max_iterations, "start z = %g: %d iterations, max_iterations %d",
                      (double)starts[i], out.iterations, def.max_iterations);
    }
    skim_world_destroy(world);
}

/* ---- skim_move: a slide lengthens the move in world space ----
   The slide projects what is left of the displacement onto the sliding
   plane in the shape's unit-sphere space (move.c). A projection never
   lengthens a vector THERE, but the map back to the world stretches by up
   to r_max / r_min, so an elongated ellipsoid sliding along a slanted wall
   travels farther than it was asked to: here a 0.25 x 0.25 x 4 shape asked
   to move 40 units goes 55.7 (the fuzzer found a 0.25 x 0.25 x 15.6 needle
   going 3800 units for a 190-unit move). For a game server that is a speed
   exploit. Fix: project in world space with the world sliding normal
   (M^-T n, normalised), then map the slid vector to unit space: a world
   projection never lengthens the world move and stays in the same plane. */
Test(limits, an_elongated_slide_never_goes_farther_than_asked)
{
    /* The plane x + z = 10 (a 45-degree wall), as one big triangle. */
    const float positions[9] = { 10 - 200, -200, 200, 10 - 200, 200, 200, 10 + 200, 0, -200 };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    skim_ellipsoid shape = { { 0.25f, 0.25f, 4.0f }, { 0, 0, 0, 1 } };
    skim_move_def def = skim_move_def_default();
    def.up = (skim_vec3){ 0, 1, 0 };
    skim_vec3 from = { 5, 0, 0 }, by = { 40, 0, 0 };
    skim_move_result out;
    cr_assert_eq(skim_move(world, &shape, from, by, &def, &out), SKIM_OK);
    double dx = out.position.x - from.x, dy = out.position.y - from.y, dz = out.position.z - from.z;
    double moved = sqrt(dx * dx + dy * dy + dz * dz);
    /* Allowed: the displacement plus a few skins of the largest radius. */
    double allowed = 40.0 + 4.0 * def.skin_width * 4.0;
    cr_expect_leq(moved, allowed, "asked to move 40, moved %.4f to (%g %g %g)", moved, (double)out.position.x,
                  (double)out.position.y, (double)out.position.z);
    skim_world_destroy(world);
}

/* ---- skim_move: skin_width 0 ----
   skim.h allows skin_width in [0, 0.25]. With 0, a move that begins within
   rounding of a wall (0.00089 radii here: the previous move's end) and is
   pushed into it ends 0.27 radii INSIDE it when the wall's material has
   friction, and ignores the wall without friction (the touching-start
   path in move.c's pass loop re-sweeps with the contact excluded; with no
   skin the exclusion is the only thing keeping it out). Found by
   fuzz_sweep_move. Fix: keep the excluded contacts as hard planes for the
   friction-shortened slide too, or clamp skin_width to a small positive
   floor internally (1e-4 radii) and document it. */
Test(limits, a_zero_skin_keeps_a_touching_mover_out_of_the_wall)
{
    const float positions[9] = { -64, -64, -64, -64, -63.8843155f, 34.3843155f, -63.8450966f, 24.3450985f,
                                 -57.4745102f };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    const float r = 2.65882349f;
    skim_ellipsoid shape = sphere_of(r);
    const float friction[1] = { 0.768627465f };
    skim_move_def def = skim_move_def_default();
    def.up = (skim_vec3){ 1, 0, 0 };
    def.max_iterations = 8;
    def.skin_width = 0;
    def.max_slope_degrees = 1;
    def.material_friction = friction;
    def.material_friction_count = 1;
    skim_vec3 from = { -61.3285217f, -56.7843132f, -63.5745544f };
    skim_vec3 by = { -32, -32, -31.9421577f };
    const double start[3] = { from.x, from.y, from.z };
    cr_assert_geq(distance_to_mesh_triangle(positions, indices, 0, start) / r, 1.0, "the start is clear");
    skim_move_result out;
    cr_assert_eq(skim_move(world, &shape, from, by, &def, &out), SKIM_OK);
    const double end[3] = { out.position.x, out.position.y, out.position.z };
    double gap = distance_to_mesh_triangle(positions, indices, 0, end) / r;
    cr_expect_geq(gap, 1.0 - 1e-3, "ends %.4f radii inside the wall", 1.0 - gap);
    skim_world_destroy(world);
}

/* The same class with a small positive skin (found by fuzz_sweep_move): a
   0.25 x 0.25 x 15.6 ellipsoid with skin_width 0.00098 radii first stops
   touching triangle C (0.0029 radii off), then slides along triangle B and
   ends 0.97 radii INSIDE C: it went through it. With skin 0.01 it stops
   properly, and a rounder shape never fails here. At this magnitude (the
   triangles 60 units away, 240 radii in unit space) the kernel's rounding
   (u L^2 ~ 4e-3 radii) exceeds the skin, so C is met as "touching at the
   start" and excluded, and the slide along B is not kept out of C. Fix as
   for a_zero_skin_keeps_a_touching_mover_out_of_the_wall: excluded contacts must stay
   hard constraints for every later sweep of the pass; or raise the skin
   internally to the kernel's rounding at the move's magnitude. */
Test(limits, a_small_skin_keeps_an_elongated_mover_out_of_a_touched_triangle)
{
    const float positions[27] = {
        -40.4078445f, -40.4078445f, -0.156862751f, -64.0f, -0.0960784331f, -64.0f, 24.3450985f, -63.9058838f,
        -0.250980407f, 40.0f, -63.8843155f, 34.3843155f, -63.8450966f, 24.3450985f, -63.8450966f, 24.3450985f,
        -13.8039217f, -63.9627457f, -64.0f, -64.0f, -64.0f, -64.0f, -0.250980407f, 3.28039217f, 15.0f, 1.5f,
        -0.752941191f,
    };
    const uint32_t indices[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    skim_mesh mesh = { positions, 9, indices, 3, NULL };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    skim_ellipsoid shape = { { 0.25f, 0.251688868f, 15.567647f }, { 0, 0, 0, 1 } };
    skim_move_def def = skim_move_def_default();
    def.up = (skim_vec3){ 1, 0, 0 };
    def.skin_width = 0.000980392215f;
    def.max_slope_degrees = 21;
    skim_vec3 from = { -0.313725501f, 1.57107842f, 0.313725501f }, by = { -18.5725498f, -18.5725498f, -18.5725498f };
    skim_move_result out;
    cr_assert_eq(skim_move(world, &shape, from, by, &def, &out), SKIM_OK);
    /* The end's distance to C in the shape's unit-sphere space: the shape
       is axis-aligned, so divide each axis by its radius. */
    const double radii[3] = { shape.radii.x, shape.radii.y, shape.radii.z };
    const double center[3] = { out.position.x, out.position.y, out.position.z };
    double corner[3][3], origin[3] = { 0, 0, 0 };
    for (int v = 0; v < 3; ++v)
        for (int k = 0; k < 3; ++k)
            corner[v][k] = ((double)positions[18 + 3 * v + k] - center[k]) / radii[k];
    double gap = point_triangle_distance(origin, corner[0], corner[1], corner[2]);
    cr_expect_geq(gap, 1.0 - 1e-2, "ends %.3f radii inside triangle C (unit-sphere space)", 1 - gap);
    skim_world_destroy(world);
}

/* ---- skim_move: a huge finite gravity ----
   skim_move_check_mover bounds position and displacement to 1e18 "to keep
   every coordinate the move computes finite in float", but
   skim_move_check_def only asks gravity (and step_height, snap_distance)
   to be finite: gravity (0, 0, -3e38) drops the mover straight through
   the floor to z = -3e38, and gravity -1.7e38 with step_height 1.7e38
   returns SKIM_OK with a NaN position. Fix: the same 1e18 bound on gravity, step_height
   and snap_distance in skim_move_check_def (src/move/move.c). */
Test(limits, gravity_beyond_the_coordinate_limit_is_refused)
{
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_ellipsoid shape = sphere_of(1);
    skim_move_def def = skim_move_def_default();
    def.gravity = (skim_vec3){ 0, 0, -3e38f };
    skim_move_result out;
    skim_status status = skim_move(world, &shape, (skim_vec3){ -5, 0, 5 }, (skim_vec3){ 1, 0, 0 }, &def, &out);
    if (status == SKIM_OK)
        cr_expect_geq(out.position.z, 0.99f, "fell through the floor to z = %g", (double)out.position.z);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    /* fuzz_sweep_move's wild mode: an ellipsoid, up = +y, gravity -1.7e38
       along z and step_height 1.7e38 give SKIM_OK and a NaN end. */
    skim_ellipsoid flat = { { 8.09411812f, 4.38823509f, 0.25f }, { 0, 0, 0, 1 } };
    def.up = (skim_vec3){ 0, 1, 0 };
    def.gravity = (skim_vec3){ 0, 0, -1.70141183e38f };
    def.step_height = 1.70141183e38f;
    status = skim_move(world, &flat, (skim_vec3){ 0, 0, 1 }, (skim_vec3){ 0, 0, 1.9e-6f }, &def, &out);
    expect_finite_or_refused(status, &out);
    skim_world_destroy(world);
}

/* ---- crowds ---- */
static skim_crowd *crowd_of(uint32_t capacity)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = capacity;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK);
    return crowd;
}

/* skim_crowd_add accepts any finite radius >= 0. build_grid
   (src/crowd/crowd_grid.c) sums llround(reach * 1024) into an int64: a
   reach of 1e30 makes llround return LLONG_MIN (out of range) and the sum
   overflows, which is undefined behaviour (UBSan: "signed integer
   overflow" at crowd_grid.c:87); the step then fails for every agent.
   Fix: reject radius and half_height above a documented bound in
   skim_crowd_add (like the move's 1e18 on positions), and sum the reaches
   in double or saturate. Either a rejection at add or a working step
   passes. */
Test(limits, an_agent_radius_beyond_the_crowd_limit_is_refused)
{
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_crowd *crowd = crowd_of(8);
    skim_agent_def agent = skim_agent_def_default();
    agent.shape = sphere_of(1);
    agent.radius = 1e30f;
    uint32_t id;
    bool accepted = true;
    for (int i = 0; i < 2 && accepted; ++i) {
        agent.position = (skim_vec3){ -5.0f + 10.0f * (float)i, 0, 1.2f };
        skim_status status = skim_crowd_add(crowd, &agent, &id);
        if (status != SKIM_OK) {
            cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
            accepted = false;
        }
    }
    if (accepted)
        cr_expect_eq(skim_crowd_step(world, crowd, 0.02f), SKIM_OK, "accepted agents cannot step: %s",
                     skim_last_error_message());
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

/* The crowd takes finite values that make every later step fail: a jump
   height whose speed sqrt(2 g h) is infinite, a velocity or a position
   beyond the 1e18 that skim_move_batch accepts. Each call returns SKIM_OK;
   from then on skim_crowd_step fails ("displacements[0] is not finite",
   "position or displacement beyond 1e18") and the whole crowd is stuck
   until the agent is removed. Fix: skim_crowd_jump, _set_velocity,
   _teleport and _add reject what the step cannot move (non-finite speed,
   |position| or |velocity| * 1 s beyond 1e18), or the step clamps. */
Test(limits, values_that_would_stop_every_step_are_refused)
{
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    for (int which = 0; which < 4; ++which) {
        skim_crowd *crowd = crowd_of(4);
        skim_agent_def agent = skim_agent_def_default();
        agent.shape = sphere_of(1);
        agent.position = (skim_vec3){ -5, 0, 1.2f };
        uint32_t id;
        cr_assert_eq(skim_crowd_add(crowd, &agent, &id), SKIM_OK);
        for (int i = 0; i < 10; ++i)
            cr_assert_eq(skim_crowd_step(world, crowd, 0.02f), SKIM_OK);
        skim_status status = SKIM_OK;
        const char *what = "";
        bool jumped = false;
        switch (which) {
        case 0: what = "jump 3e38"; status = skim_crowd_jump(crowd, id, 3e38f, &jumped); break;
        case 1: what = "velocity 3e38"; status = skim_crowd_set_velocity(crowd, id, (skim_vec3){ 3e38f, 0, 0 }); break;
        case 2: what = "teleport 1e30"; status = skim_crowd_teleport(crowd, id, (skim_vec3){ 0, 1e30f, 0 }); break;
        case 3: {
            what = "add at 1e30";
            skim_agent_def far = agent;
            far.position.x = 1e30f;
            status = skim_crowd_add(crowd, &far, &id);
            break;
        }
        }
        if (status == SKIM_OK)
            cr_expect_eq(skim_crowd_step(world, crowd, 0.02f), SKIM_OK, "%s accepted, then the step fails: %s", what,
                         skim_last_error_message());
        else
            cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT, "%s", what);
        skim_crowd_destroy(crowd);
    }
    skim_world_destroy(world);
}

/* skim_crowd_create checks only move.up, step_height and snap_distance of
   def->move; a max_iterations, skin_width or slope that skim_move rejects
   is accepted and every skim_crowd_step then fails with the move's error.
   Fix: call the move's own def check (skim_move_check_def) from the
   crowd's check_def (src/crowd/crowd.c). */
Test(limits, a_crowd_takes_only_move_defs_a_move_takes)
{
    for (int which = 0; which < 3; ++which) {
        skim_crowd_def def = skim_crowd_def_default();
        if (which == 0) def.move.max_iterations = 0;
        if (which == 1) def.move.skin_width = 0.5f;
        if (which == 2) def.move.max_slope_degrees = 95;
        skim_crowd *crowd = NULL;
        cr_expect_eq(skim_crowd_create(&def, &crowd), SKIM_ERROR_INVALID_ARGUMENT,
                     "case %d: a move def skim_move rejects is accepted", which);
        skim_crowd_destroy(crowd);
    }
}
