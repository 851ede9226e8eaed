/* Agents with goals get there without ever overlapping: a circle of
   agents each crossing to the opposite point, and two meeting head on,
   who pass each other on the right. */
#include "crowd_scenarios.h"

#include <criterion/criterion.h>

/* Sanitizer builds cross a quarter of the circle's agents at the same
   spacing, for memory and undefined-behaviour errors, which show at any
   size. Arriving within twice the straight-line time is a property of the
   full circle (a small circle's jam at the centre is long next to its
   short crossing), so only the plain build asserts it. */
#ifndef SKIM_CROWD_TEST_SCALE
#define SKIM_CROWD_TEST_SCALE 1
#endif

TestSuite(crowd_goals, .timeout = 240);

/* A floor from -extent to extent, its top at z = 0. */
static skim_world *flat_floor(float extent)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -extent, -extent, -32, extent, extent, 0);
    return soup_world(&soup);
}

Test(crowd_goals, a_circle_of_500_crosses_to_the_opposite_points)
{
    /* 500 agents (fewer in sanitizer builds) of radius 16, two diameters apart on the circle, radius
       jittered by 1%, each walking at 320 units/s to the point opposite
       its own through the centre. */
    enum { AGENTS = 500 / SKIM_CROWD_TEST_SCALE };
    const float speed = 320.0f, spacing = 4.0f * AGENT_R;
    const double radius = AGENTS * spacing / 6.283185307179586;
    skim_world *world = flat_floor((float)radius + 1000.0f);
    skim_crowd *crowd = goal_crowd(AGENTS);
    rng r = { 0x5EED };
    double straight[AGENTS];
    for (int k = 0; k < AGENTS; ++k) {
        double angle = 6.283185307179586 * k / AGENTS;
        double at = radius * (1.0 + rng_uniform(&r, -0.01, 0.01));
        skim_vec3 p = { (float)(at * cos(angle)), (float)(at * sin(angle)), AGENT_R + 1.0f };
        uint32_t id = goal_agent(crowd, p);
        cr_assert_eq(id, (uint32_t)k);
        cr_assert_eq(skim_crowd_set_target(crowd, id, (skim_vec3){ -p.x, -p.y, 0 }, speed, 1.0f), SKIM_OK);
        straight[k] = 2.0 * at / speed;
    }
    goal_run run;
    run_goals(world, crowd, 1.0f / 60.0f, 2.0 * 2.0 * radius * 1.01 / speed, &run);
    uint32_t within = 0;
    for (int k = 0; k < AGENTS; ++k)
        within += run.arrival[k] <= 2.0 * straight[k];
    print_run(AGENTS == 500 ? "circle 500" : "circle (sanitizer size)", &run, within, 2.0);
    if (SKIM_CROWD_TEST_SCALE == 1)
        cr_expect_geq(within, (uint32_t)(0.98 * AGENTS), "%u of %d arrived within twice the straight-line time",
                      within, AGENTS);
    cr_expect_leq(run.worst_overlap, 0.1, "two agents overlapped by %.4f units", run.worst_overlap);
    free(run.arrival);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

Test(crowd_goals, two_agents_meeting_head_on_pass_each_other_on_the_right)
{
    /* A walks along +x, B along -x a little to A's right (-y, up being
       +z): left alone, A would step to its left, the nearer way round.
       By the crowd's convention each keeps to its right instead, so when
       they draw level A is on the -y side of B, and both still arrive. */
    skim_world *world = flat_floor(2000.0f);
    skim_crowd *crowd = goal_crowd(2);
    const skim_vec3 a_start = { -300, 0, AGENT_R + 1.0f }, b_start = { 300, -4, AGENT_R + 1.0f };
    uint32_t a = goal_agent(crowd, a_start), b = goal_agent(crowd, b_start);
    cr_assert_eq(skim_crowd_set_target(crowd, a, (skim_vec3){ 300, 0, 0 }, 320.0f, 1.0f), SKIM_OK);
    cr_assert_eq(skim_crowd_set_target(crowd, b, (skim_vec3){ -300, -4, 0 }, 320.0f, 1.0f), SKIM_OK);
    bool level = false;
    float a_side = 0.0f;
    int frame = 0;
    for (; frame < 240; ++frame) {
        cr_assert_eq(skim_crowd_step(world, crowd, 1.0f / 60.0f), SKIM_OK, "%s", skim_last_error_message());
        const skim_vec3 *p = skim_crowd_positions(crowd);
        if (!level && p[a].x >= p[b].x) {
            level = true;
            a_side = p[a].y - p[b].y;
        }
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        if (stats.arrived == 2)
            break;
    }
    cr_assert(level, "the two never drew level");
    cr_expect_lt(a_side, -2.0f * AGENT_R, "A passed %.1f units to B's side (its right is negative)", a_side);
    const uint32_t *state = skim_crowd_states(crowd);
    cr_expect(state[a] & SKIM_AGENT_ARRIVED, "A did not arrive in %d frames", frame);
    cr_expect(state[b] & SKIM_AGENT_ARRIVED, "B did not arrive in %d frames", frame);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}
