/* Agents with goals get there without ever overlapping: a circle of
   agents each crossing to the opposite point. */
#include "crowd_scenarios.h"

#include <criterion/criterion.h>

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
    /* 500 agents of radius 16, two diameters apart on the circle, radius
       jittered by 1%, each walking at 320 units/s to the point opposite
       its own through the centre. */
    enum { AGENTS = 500 };
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
    print_run("circle 500", &run, within, 2.0);
    cr_expect_geq(within, (uint32_t)(0.98 * AGENTS), "%u of %d arrived within twice the straight-line time", within,
                  AGENTS);
    cr_expect_leq(run.worst_overlap, 0.1, "two agents overlapped by %.4f units", run.worst_overlap);
    free(run.arrival);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}
