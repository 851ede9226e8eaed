/* Regression tests named after the findings of the hardening work (fuzzing
   and the bad-input table; docs/hardening.md lists each with its cause and
   fix). Each asserts what the headers promise, so it fails while the
   finding is open and guards the fix afterwards. Where the right answer
   could be either an error or a correct result (an input the API might
   choose to reject), both are accepted; what is never accepted is SKIM_OK
   with a wrong answer, a crash, or undefined behaviour. */
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

/* ---- skim_world_create ----
   check_mesh (src/world.c) tests positions for NULL only when there are
   triangles, then reads 3 * vertex_count floats from it: a mesh with
   vertices but no triangles and positions = NULL is a NULL dereference
   (SEGV) instead of SKIM_ERROR_INVALID_ARGUMENT. */
Test(findings, world_create_null_positions_without_triangles_crashes)
{
    skim_mesh mesh = { .positions = NULL, .vertex_count = 3, .indices = NULL, .triangle_count = 0 };
    skim_world *world = (skim_world *)&mesh;
    cr_expect_eq(skim_world_create(&mesh, NULL, &world), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_null(world);
    skim_world_destroy(world == (skim_world *)&mesh ? NULL : world);
}

/* ---- skim_move: iterations ----
   skim.h: "`iterations` counts the sweeps of the pass that slid the
   displacement (at most max_iterations)". A move that starts touching a
   surface spends one loop iteration on the touching sweep and then
   skim_move_resolve_contacts (src/move/contacts.c) counts its push-out
   sweep on top, so max_iterations = 1 reports 2 (and sweeps twice). */
Test(findings, move_iterations_exceed_max_on_touching_start)
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
Test(findings, move_slide_lengthens_displacement_for_elongated_ellipsoid)
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
Test(findings, move_zero_skin_touching_wall_penetrates)
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
   for move_zero_skin_touching_wall_penetrates: excluded contacts must stay
   hard constraints for every later sweep of the pass; or raise the skin
   internally to the kernel's rounding at the move's magnitude. */
Test(findings, move_small_skin_elongated_tunnels_through_touched_triangle)
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

/* ---- radii far from the world's scale ----
   skim.h accepts any finite radius > 0 (and ratios up to 1e6). The kernel
   works in float in unit-sphere space, where a 1e-12 radius makes the
   world's coordinates 1e13 and their squares lose every digit, and a 1e15
   radius makes the sweep box overflow: the answers are wrong with
   SKIM_OK. Measured on the default scene (4000 units across): radii 1e-9
   to 1e-17 report a contact at t = 0 in open air, 1e-18 and below miss
   everything (a move passes through the floor), 1e15 and above miss the
   floor they overlap. Fix: skim_check_ellipsoid rejects radii outside a
   documented range (e.g. [1e-6, 1e9]), or the sweep and move reject a
   query whose unit-space magnitudes (|delta| / r_min, distances to the
   gathered triangles / r_min) exceed what float can resolve. Either an
   error or a right answer passes these tests. */
Test(findings, sweep_tiny_radius_reports_contact_at_start)
{
    skim_mesh_data scene;
    cr_assert_eq(skim_scene_default(&scene), SKIM_OK);
    skim_mesh view = skim_mesh_data_view(&scene);
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&view, NULL, &world), SKIM_OK);
    skim_ellipsoid shape = sphere_of(1e-12f);
    skim_hit hit;
    /* 100 units above the floor at z = 0, open air: it touches nothing at t = 0. */
    skim_status status = skim_sweep(world, &shape, (skim_vec3){ 10, 0, 100 }, (skim_vec3){ 0, 0, -200 }, NULL, &hit);
    if (status == SKIM_OK)
        cr_expect(hit.hit && fabsf(hit.t - 0.5f) < 1e-3f, "hit %d at t %g, the floor is at t 0.5", hit.hit,
                  (double)hit.t);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    skim_world_destroy(world);
    skim_mesh_data_free(&scene);
}

Test(findings, sweep_huge_radius_misses_overlap)
{
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_ellipsoid shape = sphere_of(1e15f);
    skim_hit hit;
    /* The shape holds the whole world: it overlaps at the start, t = 0. */
    skim_status status = skim_sweep(world, &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -1 }, NULL, &hit);
    if (status == SKIM_OK)
        cr_expect(hit.hit && hit.t == 0.0f, "hit %d at t %g; the shape overlaps the floor at the start", hit.hit,
                  (double)hit.t);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    skim_world_destroy(world);
}

Test(findings, move_tiny_radius_tunnels_through_floor)
{
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_ellipsoid shape = sphere_of(1e-19f);
    skim_move_result out;
    skim_status status = skim_move(world, &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, NULL, &out);
    if (status == SKIM_OK)
        cr_expect_geq(out.position.z, 0.0f, "fell through the floor to z = %g", (double)out.position.z);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    /* fuzz_sweep_move's wild mode: radii ~1e-38 (subnormal), even standing
       still, end at NaN with SKIM_OK. */
    skim_ellipsoid subnormal = { { 9.40395481e-38f, 8.22849418e-36f, 1.75778879e-41f }, { 0, 1, 0, 0 } };
    status = skim_move(world, &subnormal, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, 0 }, NULL, &out);
    if (status == SKIM_OK)
        cr_expect(isfinite(out.position.x) && isfinite(out.position.y) && isfinite(out.position.z),
                  "SKIM_OK with the end (%g %g %g)", (double)out.position.x, (double)out.position.y,
                  (double)out.position.z);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
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
Test(findings, move_huge_gravity_falls_through_floor)
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
    if (status == SKIM_OK)
        cr_expect(isfinite(out.position.x) && isfinite(out.position.y) && isfinite(out.position.z),
                  "SKIM_OK with the end (%g %g %g)", (double)out.position.x, (double)out.position.y,
                  (double)out.position.z);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
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
Test(findings, crowd_huge_agent_radius_overflows_grid_sum)
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
Test(findings, crowd_accepts_values_that_stop_every_step)
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
Test(findings, crowd_create_accepts_a_move_def_every_step_rejects)
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

/* ---- skim_sweep: the BVH and brute force disagree far from the start ----
   bvh/bvh_ordered.c promises "the answer must be bit-identical to the
   brute-force oracle". Found by fuzz_sweep_move: a 1016 x 16 x 16
   ellipsoid swept 11,600 units past one big triangle. Brute force reports
   a contact at t = 0.5929; the BVH world (any max_leaf_triangles) reports
   none. A double-precision check of the path puts the closest approach at
   1.0079 radii (unit-sphere space), so the shape never touches: brute
   force's kernel answer is a false contact, inside the kernel's stated
   accuracy at this magnitude (EPS = 64 u L^2 = 1.4 radii for L ~ 600), and
   the BVH path answers differently from the same kernel. Either the
   ordered traversal gives the kernel a different bound or lanes than the
   brute-force gather (bvh_ordered.c's flush relies on the kernel's
   max(1, bound) plane interval), or it drops the leaf. Fix: make both
   paths hand the kernel identical lanes and bounds, or document that the
   bit-identity holds only where EPS is small (and reject queries beyond
   it: see the radius findings above). */
Test(findings, sweep_bvh_differs_from_brute_force_far_from_start)
{
    const float positions[9] = { -4096.0f, -16.062746f, -1943.59216f, -16.062746f, 4111.93701f, 4096.0f,
                                 -4088.59619f, 2200.59619f, -4096.0f };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world_def def = skim_world_def_default();
    skim_world *bvh = NULL, *brute = NULL;
    cr_assert_eq(skim_world_create(&mesh, &def, &bvh), SKIM_OK);
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    cr_assert_eq(skim_world_create(&mesh, &def, &brute), SKIM_OK);
    skim_ellipsoid shape = { { 1016.09412f, 16.0f, 16.0f }, { 0, 0, 0, 1 } };
    skim_vec3 start = { -5119.5293f, 5008.78418f, 2750.74512f }, delta = { 0.0f, -8192.0f, -8192.0f };
    skim_hit a, b;
    cr_assert_eq(skim_sweep(bvh, &shape, start, delta, NULL, &a), SKIM_OK);
    cr_assert_eq(skim_sweep(brute, &shape, start, delta, NULL, &b), SKIM_OK);
    cr_expect(a.hit == b.hit && memcmp(&a.t, &b.t, sizeof a.t) == 0 && a.triangle == b.triangle,
              "BVH: hit %d t %.9g; brute force: hit %d t %.9g", a.hit, (double)a.t, b.hit, (double)b.t);
    skim_world_destroy(bvh);
    skim_world_destroy(brute);
}

/* ---- skim_world_load on a directory ----
   skim.h: SKIM_ERROR_IO when "a file could not be opened, read or
   written". skim_world_load (src/bvh/bake.c) opens a directory fine, then
   decides by its st_size: on ext4 (4096 bytes) mmap fails and the answer
   is SKIM_ERROR_IO with "cannot map: No such device"; on tmpfs (40 bytes)
   it is SKIM_ERROR_FORMAT "too short to be a skim baked world". Fix: after
   fstat, `if (!S_ISREG(info.st_mode))` fail with SKIM_ERROR_IO "not a
   regular file" (skim_mesh_load_obj already says IO: "Is a directory"). */
Test(findings, world_load_directory_status_depends_on_filesystem)
{
    const char *bases[] = { "/dev/shm", "/tmp" };
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; ++i) {
        char path[64];
        snprintf(path, sizeof path, "%s/skim_hardening_dir_XXXXXX", bases[i]);
        if (!mkdtemp(path))
            continue; /* no such file system here */
        skim_world *world = NULL;
        skim_status status = skim_world_load(path, &world);
        cr_expect_eq(status, SKIM_ERROR_IO, "%s (a directory): status %d, %s", path, (int)status,
                     skim_last_error_message());
        cr_expect_null(world);
        rmdir(path);
    }
}

/* ---- coordinates beyond what float can square ----
   skim_world_create takes any finite vertex. Found by fuzz_sweep_move's
   wild mode: a needle triangle along the z axis from z = -64 to 6.2e26
   (length_sq of its normal is a finite 6.7e7, so it is kept). A sweep
   that starts on it returns hit at t = 0 with a NaN normal, and a unit
   sphere at the origin, which overlaps it, reports no hit at all: SKIM_OK
   with a wrong or non-finite answer. The move bounds positions to 1e18 for
   this reason; vertices are not bounded. Fix: skim_world_create rejects
   |coordinate| > 1e18 (documented next to the move's bound), and the sweep
   and move reject queries whose unit-space magnitudes would overflow
   (see the radius findings). */
Test(findings, world_create_accepts_coordinates_beyond_float_range)
{
    const float positions[9] = { 0, 0, 6.20169501e+26f, 0, -1.32219651e-23f, -63.6469345f,
                                 1.19390041e-38f, 1.17090258e-38f, 2.83763826e+20f };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world = NULL;
    skim_status status = skim_world_create(&mesh, NULL, &world);
    if (status != SKIM_OK) {
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
        return;
    }
    skim_ellipsoid shape = { { 6.48823547f, 0.25f, 0.25f }, { 0, 1, 0, 2.77555756e-17f } };
    skim_hit hit;
    status = skim_sweep(world, &shape, (skim_vec3){ 1.16632019e-38f, 2.31971302e-15f, 2.31971302e-15f },
                        (skim_vec3){ -9.40396938e-38f, -1.40129846e-45f, 1.24220264f }, NULL, &hit);
    if (status == SKIM_OK && hit.hit)
        cr_expect(isfinite(hit.normal.x) && isfinite(hit.normal.y) && isfinite(hit.normal.z) &&
                      isfinite(hit.point.x),
                  "SKIM_OK with the normal (%g %g %g)", (double)hit.normal.x, (double)hit.normal.y,
                  (double)hit.normal.z);
    else if (status != SKIM_OK)
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    skim_ellipsoid sphere = sphere_of(1);
    status = skim_sweep(world, &sphere, (skim_vec3){ 0, 0, 0 }, (skim_vec3){ 0, 0, 1 }, NULL, &hit);
    if (status == SKIM_OK)
        cr_expect(hit.hit && hit.t == 0.0f, "a unit sphere on the needle: hit %d t %g", hit.hit, (double)hit.t);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    skim_world_destroy(world);
}

/* ---- OBJ coordinates the world does not take ----
   skim_mesh_io.h: SKIM_ERROR_FORMAT for "a coordinate beyond float range",
   with "FILE:LINE: reason". Since skim_world_create takes only |x| <=
   SKIM_COORDINATE_MAX (1e18, 7e91ace, after finding 15), a level with a
   vertex at 1e30 parses fine and then fails in skim_world_create with
   INVALID_ARGUMENT and no file or line. Found by fuzz_obj (whose invariant
   is that a parsed mesh makes a world). Fix: parse_float
   (src/mesh/obj_parse.c) rejects |value| > SKIM_COORDINATE_MAX for vertex
   coordinates, as FORMAT "FILE:LINE: coordinate beyond 1e18"; or
   document the two-step failure. Either passes: a parse that succeeds must
   give a mesh skim_world_create accepts. */
Test(findings, obj_accepts_coordinates_the_world_rejects)
{
    const char text[] = "v 0 0 0\nv 1 0 0\nv 0 1e30 0\nf 1 2 3\n";
    skim_mesh_data mesh;
    skim_status status = skim_mesh_parse_obj(text, sizeof text - 1, "far.obj", &mesh);
    if (status != SKIM_OK) {
        cr_expect_eq(status, SKIM_ERROR_FORMAT);
        cr_expect(strncmp(skim_last_error_message(), "far.obj:3:", 10) == 0, "message '%s'",
                  skim_last_error_message());
        return;
    }
    skim_mesh view = skim_mesh_data_view(&mesh);
    skim_world *world = NULL;
    cr_expect_eq(skim_world_create(&view, NULL, &world), SKIM_OK, "a parsed mesh is rejected: %s",
                 skim_last_error_message());
    skim_world_destroy(world);
    skim_mesh_data_free(&mesh);
}

/* ---- baked worlds whose triangles skim_world_create would refuse ----
   skim_world_load (src/bvh/bake.c) checks the header, the checksum and the
   tree's structure, then uses the triangle arrays as they are. A file with
   a correct checksum (a modder's tool, a corrupted build pipeline that
   recomputes it) whose vertex is 1e30 or NaN loads with SKIM_OK, and
   sweeps through it return non-finite hits (fuzz_bake, checksum fix-up
   mode: 514,758 executions in). skim_world_create refuses exactly these
   (|x| <= SKIM_COORDINATE_MAX, finite). Fix: in check_layout or after it,
   one pass over the kept triangles' coordinates (the checksum already
   reads every byte) rejecting non-finite or |x| > SKIM_COORDINATE_MAX as
   SKIM_ERROR_FORMAT; the padding lanes being zero and the degenerate test
   of world.c could be checked in the same pass. The test edits a saved
   file in place (format version 1: header 128 bytes, section table of 4
   entries {kind u32, reserved u32, offset u64, bytes u64}, vertices =
   kind 1) and recomputes the checksum as bake.c does. */
static void fix_baked_checksum(unsigned char *file, size_t size)
{
    uint64_t sum = 0, fletcher = 0;
    for (size_t i = 0, index = 0; i + 8 <= size; i += 8, ++index) {
        uint64_t word;
        memcpy(&word, file + i, 8);
        if (index == 3 || index == 4)
            word = 0;
        sum += word;
        fletcher += sum;
    }
    memcpy(file + 24, &sum, 8);
    memcpy(file + 32, &fletcher, 8);
}

Test(findings, world_load_accepts_vertices_world_create_rejects)
{
    scratch_dir d;
    scratch_make(&d);
    char path[128];
    scratch_file(&d, "far.skim", path, sizeof path);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    cr_assert_eq(skim_world_save(world, path), SKIM_OK);
    skim_world_destroy(world);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    unsigned char file[65536];
    size_t size = fread(file, 1, sizeof file, f);
    fclose(f);
    uint32_t version;
    memcpy(&version, file + 8, 4);
    cr_assert(memcmp(file, "SKIMBAKE", 8) == 0 && version == 1,
              "the baked format changed (version %u): update this test's layout", version);
    /* k = 0, 1: corner a's x of the first stored triangle made 1e30, NaN;
       k = 2: corners b and c of that triangle made equal to a (zero area:
       world.c drops such triangles; the kernel divides by its normal). */
    const float values[2] = { 1e30f, NAN };
    for (int k = 0; k < 3; ++k) {
        unsigned char edited[65536];
        memcpy(edited, file, size);
        for (int s = 0; s < 4; ++s) {
            uint32_t kind;
            uint64_t offset;
            memcpy(&kind, edited + 128 + 24 * s, 4);
            memcpy(&offset, edited + 128 + 24 * s + 8, 8);
            if (kind != 1)
                continue;
            if (k < 2) { /* vertex[0][x][0] */
                memcpy(edited + offset, &values[k], 4);
            } else {
                /* 9 arrays vertex[v][axis] of stride lanes, each padded to 64
                   bytes: copy lane 0 of a's arrays into b's and c's. */
                uint32_t stride;
                memcpy(&stride, edited + 56, 4); /* header field "stride" */
                size_t array = ((size_t)stride * 4 + 63) / 64 * 64;
                for (int v = 1; v < 3; ++v)
                    for (int axis = 0; axis < 3; ++axis)
                        memcpy(edited + offset + (size_t)(3 * v + axis) * array,
                               edited + offset + (size_t)axis * array, 4);
            }
        }
        fix_baked_checksum(edited, size);
        scratch_write(&d, "edited.skim", edited, size);
        char edited_path[128];
        scratch_file(&d, "edited.skim", edited_path, sizeof edited_path);
        skim_world *loaded = NULL;
        skim_status status = skim_world_load(edited_path, &loaded);
        if (status != SKIM_OK) {
            cr_expect_eq(status, SKIM_ERROR_FORMAT, "case %d", k);
            continue;
        }
        /* Loaded: every sweep through it must still be well formed. */
        skim_ellipsoid shape = sphere_of(1);
        bool finite = true;
        for (int i = 0; i < 8; ++i) {
            skim_hit hit;
            skim_vec3 start = { -15.0f + 4.0f * (float)i, -5, 3 };
            if (skim_sweep(loaded, &shape, start, (skim_vec3){ 0, 0, -10 }, NULL, &hit) == SKIM_OK && hit.hit)
                finite = finite && isfinite(hit.point.x) && isfinite(hit.normal.x) && isfinite(hit.normal.z);
        }
        static const char *const what[3] = { "a vertex at 1e30", "a NaN vertex", "a zero-area triangle" };
        cr_expect(finite, "a world loaded with %s answers non-finite hits", what[k]);
        cr_expect(false, "a baked file with %s loads (SKIM_OK); skim_world_create would refuse it", what[k]);
        skim_world_destroy(loaded);
    }
    scratch_remove(&d);
}

/* ---- a huge triangle and a small shape: NaN ----
   Found by fuzz_bake (the probe of a loaded world, then reproduced with
   skim_world_create alone): one triangle 5.4e16 long, inside
   SKIM_COORDINATE_MAX, and a 0.05-radius sphere swept from 1 unit away.
   In unit-sphere space the far vertex is 1.1e18 radii out, and the
   kernel's products of such numbers overflow float: skim_sweep reports a
   contact at t = 0 with a NaN normal, where a radius-1 sphere correctly
   reports none. The world bound (1e18 world units) does not bound the
   unit-space magnitudes (1e18 / radius). Fix: clip gathered triangles to
   the sweep's box before the transform (the far part cannot be met), or
   compute far vertices in double, or reject queries whose gathered
   triangles reach beyond ~1e9 radii; a NaN must never come with SKIM_OK. */
Test(findings, sweep_nan_normal_near_huge_triangle)
{
    skim_world *world = finding_18_world();
    skim_ellipsoid shape = sphere_of(0.05f);
    skim_hit hit;
    /* Fixed by clipping far triangles to the sweep's reach in double
       before the move to unit space (src/gather_clip.c): the answer is
       now required. The path passes ~9 units (180 radii) from the
       triangle (edge AC; test_far_triangles.c bounds it in double), so:
       SKIM_OK and no hit. */
    skim_status status = skim_sweep(world, &shape, (skim_vec3){ 0.1f, -1, 0.03f }, (skim_vec3){ 0, 2.5f, 0 }, NULL, &hit);
    cr_expect_eq(status, SKIM_OK, "%s", skim_last_error_message());
    cr_expect(!hit.hit, "hit at t %g with the normal (%g %g %g)", (double)hit.t, (double)hit.normal.x,
              (double)hit.normal.y, (double)hit.normal.z);
    skim_world_destroy(world);
}

/* ---- a sweep misses a triangle its centre passes through ----
   Found by fuzz_sweep_move after 1,276,757 executions (sane mode, every
   input valid): a 0.25 x 0.744 x 11.94 ellipsoid (ratio 48, inside
   SKIM_RADIUS_RATIO_MAX) swept 200 units (about 470 radii in unit space,
   inside SKIM_SWEEP_MAX_RADII) across one 150-unit triangle. In double the
   path first touches the triangle at t = 0.713 and its centre passes
   within 0.00006 radii of it at t = 0.746: the shape goes through it.
   skim_sweep reports no hit with every kernel set (reference, portable,
   avx2, avx512) and both accelerators, and skim_move with the same
   displacement ends on the far side, 2.16 radii clear: tunnelling. Even
   the EPS stated then (64 u (P^2 + L) = 0.84 radii here) allowed a miss
   only if the path stayed farther than 1 - EPS = 0.16 radii. */
Test(findings, sweep_misses_triangle_its_centre_crosses)
{
    /* Finding 19: the edge quadratic's discriminant, formed as b^2 - 4ac,
       cancelled to rounding noise when the path grazed the edge's line
       from ~200 radii away; the face test had just missed the same edge,
       so nothing caught the sphere. Fixed by the Lagrange forms of Rouwé
       3.4/3.5 (src/scalar/sweep_sphere_triangle.c). */
    const float positions[9] = { 40, -63.8843155f, 34.3843155f, -63.8450966f, 61.4901962f, -63.8450966f,
                                 24.3450985f, -13.8039217f, -63.9627457f };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    skim_ellipsoid shape = { { 0.25f, 0.744117618f, 11.9399357f }, { 0, 0, 0, 1 } };
    skim_vec3 start = { -80, -79.9828415f, 76.8995132f }, delta = { 113.094116f, 88.8470612f, -128 };
    skim_hit hit;
    skim_status status = skim_sweep(world, &shape, start, delta, NULL, &hit);
    if (status == SKIM_OK)
        cr_expect(hit.hit && hit.t <= 0.7134f + 0.05f, "hit %d at t %g; the shape touches at t 0.713 and its centre "
                  "crosses the triangle at t 0.746", hit.hit, (double)hit.t);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    /* The move must not end on the far side: the centre's side of the
       triangle's plane stays that of the start. */
    skim_move_result out;
    status = skim_move(world, &shape, start, delta, NULL, &out);
    if (status == SKIM_OK) {
        double e1[3], e2[3], n[3];
        for (int k = 0; k < 3; ++k) {
            e1[k] = (double)positions[3 + k] - positions[k];
            e2[k] = (double)positions[6 + k] - positions[k];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        const double from[3] = { start.x, start.y, start.z }, to[3] = { out.position.x, out.position.y, out.position.z };
        double side_from = 0, side_to = 0;
        for (int k = 0; k < 3; ++k) {
            side_from += n[k] * (from[k] - positions[k]);
            side_to += n[k] * (to[k] - positions[k]);
        }
        cr_expect(side_from * side_to > 0, "the move went through the triangle to (%g %g %g)", (double)out.position.x,
                  (double)out.position.y, (double)out.position.z);
    } else {
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    }
    skim_world_destroy(world);
}

/* ---- a face contact on a needle is off by 0.006 radii ----
   Found by fuzz_sweep_move within a minute of finding 19's fix, once the
   fuzzer held the kernels to the tightened 64 u (P + L): a 0.25 sphere
   swept 615 radii straight at the far end of a needle (one 0.7-radii edge,
   two 505-radii edges) reported its face contact at t = 0.0913081 where
   double precision says 0.0912846: 0.0058 radii short of touching, 92 u
   (P + L). The plane normal was the cross product of the two long, nearly
   parallel edges, whose rounding turns its direction by u L / width. Fixed
   by forming it at the corner opposite the longest edge (reference,
   packet kernels and finish together). */
Test(findings, sweep_face_contact_off_on_needle)
{
    const float positions[9] = { -0.250980407f, 40, -31.8745098f, -64, -63.8450966f, -63.9058838f,
                                 -64, -64, -64 };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    skim_ellipsoid shape = { { 0.25f, 0.25f, 0.25f }, { 0, 0, 0, 1 } };
    skim_vec3 start = { -55.5294113f, -55.5294113f, -55.5294113f };
    skim_vec3 delta = { -88.8470612f, -88.8470612f, -88.8470612f };
    skim_hit hit;
    cr_assert_eq(skim_sweep(world, &shape, start, delta, NULL, &hit), SKIM_OK);
    cr_assert(hit.hit);
    /* The double-precision first contact (closest point + bisection). */
    const double expected = 0.09128464614595444;
    const double path = 4.0 * sqrt(3.0) * 88.8470612; /* unit-space path, radii */
    cr_expect(fabs((double)hit.t - expected) * path < 1e-4,
              "t %.9g, double %.9g: %.3g radii along the path", (double)hit.t, expected,
              fabs((double)hit.t - expected) * path);
    skim_world_destroy(world);
}
