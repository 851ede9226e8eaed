/* Two groups swapping sides through a doorway three agents wide: at least
   90% get through and arrive within twice the time a single file would
   need, and no two ever overlap. And one agent walled off from its goal
   finds the wall's end. */
#include "crowd_scenarios.h"

#include <criterion/criterion.h>

TestSuite(crowd_door, .timeout = 240);

Test(crowd_door, two_groups_swap_sides_through_a_doorway)
{
    /* A wall along x = 0 with a doorway 100 units wide (three agents of
       radius 16 abreast); 100 agents on each side, in blocks of 10 by 10
       at 48 apart, each to the mirror of its place on the other side, by
       way of the doorway's far side. */
    enum { SIDE = 100, AGENTS = 2 * SIDE };
    const float speed = 160.0f, half_door = 50.0f, spacing = 48.0f;
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -2000, -2000, -32, 2000, 2000, 0);
    soup_add_box(&soup, -8, -2000, 0, 8, -half_door, 128);
    soup_add_box(&soup, -8, half_door, 0, 8, 2000, 128);
    skim_world *world = soup_world(&soup);
    skim_crowd *crowd = goal_crowd(AGENTS);
    double longest = 0.0;
    for (int side = 0; side < 2; ++side) {
        float sign = side ? 1.0f : -1.0f;
        for (int k = 0; k < SIDE; ++k) {
            float x = sign * (96.0f + spacing * (float)(k % 10)), y = spacing * ((float)(k / 10) - 4.5f);
            uint32_t id = goal_agent(crowd, (skim_vec3){ x, y, AGENT_R + 1.0f });
            const skim_vec3 path[2] = { { -sign * (8.0f + 2.0f * AGENT_R), 0, 0 }, { -x, y, 0 } };
            cr_assert_eq(skim_crowd_set_path(crowd, id, path, 2, speed, 1.0f), SKIM_OK);
            double way = hypot(x - path[0].x, y) + hypot(path[0].x + x, y);
            longest = fmax(longest, way);
        }
    }
    /* Single file: the longest way plus everyone through the door one
       diameter after the other. */
    const double single_file = (longest + AGENTS * 2.0 * AGENT_R) / speed;
    goal_run run;
    run_goals(world, crowd, 1.0f / 60.0f, 2.0 * single_file, &run);
    uint32_t within = 0;
    for (int k = 0; k < AGENTS; ++k)
        within += run.arrival[k] <= 2.0 * single_file;
    print_run("door 200", &run, within, 2.0);
    printf("door 200: single file %.1f s; the last arrived at %.1f s\n", single_file, run.seconds);
    cr_expect_geq(within, (uint32_t)(0.9 * AGENTS), "%u of %d through within twice the single-file time", within,
                  AGENTS);
    cr_expect_leq(run.worst_overlap, 0.1, "two agents overlapped by %.4f units", run.worst_overlap);
    free(run.arrival);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

/* A wall stands square across the straight way to the goal, its near end
   off to the agent's left: pressing at it gets nowhere (nothing to slide
   along), and stepping to its right, the way a crowd is passed, only takes
   it further from the end. It searches along the wall both ways, further
   each time, finds the end and arrives. */
Test(crowd_door, an_agent_walled_off_from_its_goal_searches_along_the_wall)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -2000, -2000, -32, 2000, 2000, 0);
    soup_add_box(&soup, -8, -400, 0, 8, 120, 128);
    skim_world *world = soup_world(&soup);
    skim_crowd *crowd = goal_crowd(1);
    uint32_t id = goal_agent(crowd, (skim_vec3){ -100, 50, AGENT_R + 1.0f });
    cr_assert_eq(skim_crowd_set_target(crowd, id, (skim_vec3){ 150, 50, 0 }, 160.0f, 4.0f), SKIM_OK);
    goal_run run;
    run_goals(world, crowd, 1.0f / 60.0f, 20.0, &run);
    const skim_vec3 at = skim_crowd_positions(crowd)[id];
    cr_expect_lt(run.arrival[id], 20.0, "still at (%.0f, %.0f) after 20 s", at.x, at.y);
    cr_expect_lt(hypotf(at.x - 150.0f, at.y - 50.0f), 4.01f, "arrived at (%.0f, %.0f)", at.x, at.y);
    printf("walled off: arrived after %.1f s\n", run.arrival[id]);
    free(run.arrival);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}
