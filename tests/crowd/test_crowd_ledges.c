/* SKIM_AGENT_STAYS_ON_FLOOR: an agent that stands on a floor never walks
   off a drop deeper than its snap distance, whether it walks there or is
   pushed; it still walks down a step within that distance, still jumps
   off, and without the flag walks off and falls. */
#include "crowd_scenarios.h"

TestSuite(crowd_ledges);

/* A ground floor (top at z 0) and a platform 64 high on it, its edge at
   x 200; beside the platform, at x 200 to 400, a step 10 lower. */
static skim_world *ledge_world(void)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -1000, -1000, -10, 1000, 1000, 0);
    soup_add_box(&soup, -400, -400, 0, 200, 400, 64);
    soup_add_box(&soup, 200, 200, 0, 400, 400, 54);
    return soup_world(&soup);
}

static uint32_t add_on_platform(skim_crowd *crowd, float x, float y, uint32_t flags)
{
    skim_agent_def a = skim_agent_def_default();
    a.position = (skim_vec3){ x, y, 64.0f + AGENT_R + 0.5f };
    a.flags = flags;
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    return id;
}

static skim_crowd *ledge_crowd_avoiding(bool avoidance)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = 8;
    def.avoidance = avoidance;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    return crowd;
}

static skim_crowd *ledge_crowd(void)
{
    return ledge_crowd_avoiding(true);
}

static void run(const skim_world *world, skim_crowd *crowd, int frames)
{
    for (int f = 0; f < frames; ++f)
        step_or_fail(world, crowd, 1.0f / 60.0f);
}

Test(crowd_ledges, an_agent_walking_at_a_ledge_stops_at_its_edge_and_one_without_the_flag_falls)
{
    skim_world *world = ledge_world();
    skim_crowd *crowd = ledge_crowd();
    uint32_t held = add_on_platform(crowd, 100, -100, SKIM_AGENT_STAYS_ON_FLOOR);
    uint32_t free_one = add_on_platform(crowd, 100, -250, 0);
    run(world, crowd, 30); /* settle on the platform */
    cr_assert(skim_crowd_states(crowd)[held] & SKIM_AGENT_ON_FLOOR);
    for (uint32_t id = held; id <= free_one; ++id)
        cr_assert_eq(skim_crowd_set_velocity(crowd, id, (skim_vec3){ 160, 0, 0 }), SKIM_OK);
    run(world, crowd, 120);
    const skim_vec3 *p = skim_crowd_positions(crowd);
    const uint32_t *state = skim_crowd_states(crowd);
    /* It may stand on the edge itself, its sphere a little over it, as
       long as the edge is a floor to it. */
    cr_expect_gt(p[held].z, 64.0f, "the flagged agent fell to z %g", (double)p[held].z);
    cr_expect_lt(p[held].x, 200.0f + AGENT_R, "the flagged agent went past the edge to x %g", (double)p[held].x);
    cr_expect_gt(p[held].x, 200.0f - AGENT_R, "the flagged agent stopped short of the edge, at x %g", (double)p[held].x);
    cr_expect(state[held] & SKIM_AGENT_ON_FLOOR, "the flagged agent is not on a floor (state 0x%x)", state[held]);
    cr_expect(state[held] & SKIM_AGENT_TOUCHED_WALL, "the edge does not hold it like a wall (state 0x%x)",
              state[held]);
    cr_expect_lt(p[free_one].z, AGENT_R + 1.0f, "the agent without the flag did not fall (z %g)",
                 (double)p[free_one].z);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

Test(crowd_ledges, an_agent_pushed_toward_a_ledge_stays_on_the_floor)
{
    skim_world *world = ledge_world();
    /* Without avoidance the walker does not steer round it but presses. */
    skim_crowd *crowd = ledge_crowd_avoiding(false);
    /* Standing at the edge, with another agent walking into it from
       behind: the push would carry it over. */
    uint32_t held = add_on_platform(crowd, 200.0f - AGENT_R - 2.0f, -100, SKIM_AGENT_STAYS_ON_FLOOR);
    uint32_t pusher = add_on_platform(crowd, 100, -100, 0);
    run(world, crowd, 30);
    cr_assert_eq(skim_crowd_set_velocity(crowd, pusher, (skim_vec3){ 160, 0, 0 }), SKIM_OK);
    run(world, crowd, 120);
    const skim_vec3 *p = skim_crowd_positions(crowd);
    cr_expect_gt(p[held].z, 64.0f, "the pushed agent fell to z %g", (double)p[held].z);
    cr_expect_lt(p[held].x, 200.0f + AGENT_R, "the pushed agent went past the edge to x %g", (double)p[held].x);
    skim_crowd_stats stats;
    skim_crowd_get_stats(crowd, &stats);
    cr_expect_geq(stats.closest_gap, -0.1f, "two agents overlap by %g", -(double)stats.closest_gap);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

Test(crowd_ledges, a_flagged_agent_walks_down_a_step_within_its_snap_distance_and_jumps_off_a_ledge)
{
    skim_world *world = ledge_world();
    skim_crowd *crowd = ledge_crowd();
    uint32_t stepper = add_on_platform(crowd, 100, 300, SKIM_AGENT_STAYS_ON_FLOOR);
    uint32_t jumper = add_on_platform(crowd, 150, -100, SKIM_AGENT_STAYS_ON_FLOOR);
    run(world, crowd, 30);
    cr_assert_eq(skim_crowd_set_velocity(crowd, stepper, (skim_vec3){ 160, 0, 0 }), SKIM_OK);
    cr_assert_eq(skim_crowd_set_velocity(crowd, jumper, (skim_vec3){ 160, 0, 0 }), SKIM_OK);
    cr_assert_eq(skim_crowd_jump(crowd, jumper, 40.0f, NULL), SKIM_OK, "%s", skim_last_error_message());
    /* A second: the stepper is halfway across the lower step (which ends
       in a drop of 54 at x 400, where it would be held). */
    run(world, crowd, 60);
    const skim_vec3 *p = skim_crowd_positions(crowd);
    cr_expect_gt(p[stepper].x, 230.0f, "the agent did not walk down the 10-unit step (x %g)", (double)p[stepper].x);
    cr_expect_lt(fabsf(p[stepper].z - (54.0f + AGENT_R)), 2.0f, "the agent is not on the lower step (z %g)",
                 (double)p[stepper].z);
    run(world, crowd, 60);
    /* The positions are valid until the crowd changes: read them again. */
    p = skim_crowd_positions(crowd);
    cr_expect_lt(p[jumper].z, AGENT_R + 1.0f, "the jumping agent did not come down beyond the ledge (z %g)",
                 (double)p[jumper].z);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

Test(crowd_ledges, an_unknown_flag_is_still_refused)
{
    skim_crowd *crowd = ledge_crowd();
    skim_agent_def a = skim_agent_def_default();
    a.flags = 8u;
    uint32_t id;
    cr_expect_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    skim_crowd_destroy(crowd);
}
