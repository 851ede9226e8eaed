/* Idle agents make room: a walker does not stop short of a point an idle
   agent (no target, or arrived at its own) stands on, nor stand for good
   before idle agents that fill its way; it pushes them aside. Walkers are
   still avoided: two with the same point do not shove each other off it.
   A group sent to one point with an arrival distance as wide as it needs
   all arrives and settles. */
#include "crowd_scenarios.h"

#include <math.h>

TestSuite(crowd_room);

#define DT (1.0f / 60.0f)
#define SPEED 160.0f

static float across(skim_vec3 a, skim_vec3 b)
{
    return hypotf(a.x - b.x, a.y - b.y);
}

/* Steps until agent id shows SKIM_AGENT_ARRIVED or frames pass; the
   frames it took, or -1. No two agents ever overlap by more than the
   check's tolerance. */
static int frames_to_arrive(const skim_world *world, skim_crowd *crowd, uint32_t id, uint32_t agents, int frames)
{
    overlap_entry scratch[8];
    cr_assert_leq(agents, 8u);
    for (int frame = 0; frame < frames; ++frame) {
        step_or_fail(world, crowd, DT);
        cr_assert_leq(worst_overlap_units(crowd, scratch), 0.1, "frame %d: agents overlap", frame);
        if (skim_crowd_states(crowd)[id] & SKIM_AGENT_ARRIVED)
            return frame + 1;
    }
    return -1;
}

Test(crowd_room, a_walker_pushes_an_idle_agent_off_its_point)
{
    skim_world *world = box_world(-1000, -1000, -32, 1000, 1000, 0);
    skim_crowd *crowd = goal_crowd(2);
    const skim_vec3 point = { 0, 0, AGENT_R + 0.5f };
    uint32_t idle = goal_agent(crowd, point);
    uint32_t walker = goal_agent(crowd, (skim_vec3){ -300, 10, AGENT_R + 0.5f });
    cr_assert_eq(skim_crowd_set_target(crowd, walker, point, SPEED, AGENT_R), SKIM_OK);
    /* The straight walk takes under 2 s. */
    int frames = frames_to_arrive(world, crowd, walker, 2, 600);
    const skim_vec3 *p = skim_crowd_positions(crowd);
    printf("walker %s after %d frames, %.1f from its point; the idle agent %.1f from it\n",
           frames > 0 ? "arrived" : "did not arrive", frames, (double)across(p[walker], point),
           (double)across(p[idle], point));
    cr_expect_gt(frames, 0, "the walker stood %.1f units from its point, the idle agent on it",
                 (double)across(p[walker], point));
    cr_expect_geq(across(p[idle], point), AGENT_R, "the idle agent was not pushed aside");
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

/* A corridor 100 wide along x, three idle agents abreast across it: no
   way round them. */
Test(crowd_room, a_stuck_walker_pushes_through_idle_agents_across_its_way)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -1000, -200, -32, 1000, 200, 0);
    soup_add_box(&soup, -1000, -200, 0, 1000, -50, 100);
    soup_add_box(&soup, -1000, 50, 0, 1000, 200, 100);
    skim_world *world = soup_world(&soup);
    skim_crowd *crowd = goal_crowd(4);
    for (int k = -1; k <= 1; ++k)
        goal_agent(crowd, (skim_vec3){ 0, 33.0f * (float)k, AGENT_R + 0.5f });
    const skim_vec3 point = { 400, 0, AGENT_R + 0.5f };
    uint32_t walker = goal_agent(crowd, (skim_vec3){ -300, 0, AGENT_R + 0.5f });
    cr_assert_eq(skim_crowd_set_target(crowd, walker, point, SPEED, AGENT_R), SKIM_OK);
    /* Straight, 4.4 s; allowed 12. */
    int frames = frames_to_arrive(world, crowd, walker, 4, 720);
    const skim_vec3 *p = skim_crowd_positions(crowd);
    printf("walker %s after %d frames, at x %.1f\n", frames > 0 ? "arrived" : "did not arrive", frames,
           (double)p[walker].x);
    cr_expect_gt(frames, 0, "the walker stood at x %.1f before the idle agents", (double)p[walker].x);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

/* Two walkers with the same point, one behind the other: the first
   arrives and stands, the second arrives too (the point is taken by an
   idle agent by then), and the first keeps its arrival. */
Test(crowd_room, walkers_with_one_point_both_arrive)
{
    skim_world *world = box_world(-1000, -1000, -32, 1000, 1000, 0);
    skim_crowd *crowd = goal_crowd(2);
    const skim_vec3 point = { 0, 0, AGENT_R + 0.5f };
    uint32_t first = goal_agent(crowd, (skim_vec3){ -200, 0, AGENT_R + 0.5f });
    uint32_t second = goal_agent(crowd, (skim_vec3){ -300, 5, AGENT_R + 0.5f });
    for (uint32_t id = first; id <= second; ++id)
        cr_assert_eq(skim_crowd_set_target(crowd, id, point, SPEED, AGENT_R), SKIM_OK);
    int frames = frames_to_arrive(world, crowd, second, 2, 600);
    const uint32_t *state = skim_crowd_states(crowd);
    printf("second walker %s after %d frames\n", frames > 0 ? "arrived" : "did not arrive", frames);
    cr_expect_gt(frames, 0, "the second walker never arrived at the point the first stands on");
    cr_expect(state[first] & SKIM_AGENT_ARRIVED, "the first walker lost its arrival");
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

/* A rally: 100 agents from a ring around one point, all sent to it with an
   arrival distance of about their radius times the square root of their
   number (docs/crowd.md): all arrive and then stand still. */
Test(crowd_room, a_group_sent_to_one_point_with_a_wide_arrival_all_arrive_and_stand)
{
    enum { GROUP = 100 };
    skim_world *world = box_world(-2000, -2000, -32, 2000, 2000, 0);
    skim_crowd *crowd = goal_crowd(GROUP);
    const skim_vec3 point = { 0, 0, AGENT_R + 0.5f };
    for (int k = 0; k < GROUP; ++k) {
        float angle = 6.2831853f * (float)k / GROUP, r = 600.0f + 40.0f * (float)(k % 5);
        uint32_t id = goal_agent(crowd, (skim_vec3){ r * cosf(angle), r * sinf(angle), AGENT_R + 0.5f });
        cr_assert_eq(skim_crowd_set_target(crowd, id, point, SPEED, 170.0f), SKIM_OK);
    }
    skim_crowd_stats stats = { 0 };
    int frame = 0;
    for (; frame < 900 && stats.arrived < GROUP; ++frame) {
        step_or_fail(world, crowd, DT);
        skim_crowd_get_stats(crowd, &stats);
    }
    printf("rally of %d: %u arrived after %d frames\n", GROUP, stats.arrived, frame);
    cr_expect_eq(stats.arrived, (uint32_t)GROUP, "only %u of %d arrived in 15 s", stats.arrived, GROUP);
    for (int settle = 0; settle < 120; ++settle)
        step_or_fail(world, crowd, DT);
    const skim_vec3 *v = skim_crowd_velocities(crowd);
    float fastest = 0.0f;
    for (int k = 0; k < GROUP; ++k)
        fastest = fmaxf(fastest, hypotf(v[k].x, v[k].y));
    cr_expect_lt(fastest, 1.0f, "two seconds after the last arrival an agent still moves at %.2f units/s",
                 (double)fastest);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}
