/* Chains of agents pressed by moving bodies: a door closing on a row of
   agents in a corridor narrower than the row, and a platform carrying
   riders into a standing crowd while its side pushes the agents in its way.
   However long a body keeps pressing, no two agents overlap by more than
   the suites' tolerance (checked by the test's own pass over all pairs),
   nobody is pushed into the level, and the chain's shortfall is taken by
   the body. */
#include "crowd_scenarios.h"

#include <math.h>

#define DT (1.0f / 60.0f)

TestSuite(crowd_bodies_chains, .timeout = 240);

static const skim_quat identity = { 0, 0, 0, 1 };

/* The deepest overlap between two agents now, in units of the touching
   distance, held to the suites' tolerance. */
static void assert_apart(const skim_crowd *crowd, int frame)
{
    uint32_t a = 0, b = 0;
    double deepest = deepest_overlap(crowd, &a, &b);
    cr_assert_leq(deepest, OVERLAP_TOLERANCE, "frame %d: agents %u and %u overlap by %.4f units", frame, a, b,
                  deepest * 2.0 * AGENT_R);
}

/* A corridor 34 units wide (agents are 32 across) ending in a wall whose
   face is x = 100; three agents stand in a row against the wall, 1 unit
   apart; a door filling the corridor slides along +x at 90 units/s and
   stops 80 units from the wall, 16 units short of the row's 96: it keeps
   pressing the row for over 10 steps. */
Test(crowd_bodies_chains, a_door_closing_on_a_row_of_agents_overlaps_the_door_not_each_other)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -1000, -1000, -32, 1000, 1000, 0);
    soup_add_box(&soup, 100, -100, 0, 132, 100, 200); /* the end wall */
    soup_add_box(&soup, -1000, 17, 0, 100, 49, 200); /* the corridor's sides */
    soup_add_box(&soup, -1000, -49, 0, 100, -17, 200);
    skim_world *world = soup_world(&soup);
    skim_world *door_shape = box_world(-16, -16.5f, 0, 0, 16.5f, 150); /* face at local x = 0 */
    uint32_t door;
    cr_assert_eq(skim_world_add_body(world, door_shape, (skim_transform){ { -100, 0, 0 }, identity }, &door),
                 SKIM_OK);
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = 3;
    def.move.threads = 1;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    for (int k = 0; k < 3; ++k) { /* leaning toward the wall */
        uint32_t id = goal_agent(crowd, (skim_vec3){ 100.0f - AGENT_R - 1.0f - 33.0f * (float)k, 0, AGENT_R + 0.5f });
        skim_crowd_set_velocity(crowd, id, (skim_vec3){ 50, 0, 0 });
    }
    for (int frame = 0; frame < 20; ++frame)
        step_or_fail(world, crowd, DT);
    const float stop = 20.0f;
    uint32_t squeezed = 0;
    float x = -100.0f;
    for (int frame = 0, rest = 0; rest < 60; rest += x == stop, ++frame) {
        x = fminf(x + 1.5f, stop);
        slide_body(world, door, (skim_vec3){ x, 0, 0 });
        step_or_fail(world, crowd, DT);
        assert_apart(crowd, frame);
        for (uint32_t id = 0; id < 3; ++id) {
            skim_agent_info info;
            skim_crowd_get_agent(crowd, id, &info);
            squeezed += (info.state & SKIM_AGENT_SQUEEZED) != 0;
            cr_assert_leq(info.position.x + AGENT_R, 100.0f + 0.1f, "frame %d: agent %u into the wall at x %.3f",
                          frame, id, (double)info.position.x);
            cr_assert_leq(fabsf(info.position.y), 1.0f + 0.1f, "frame %d: agent %u into the corridor's side at y %.3f",
                          frame, id, (double)info.position.y);
        }
    }
    /* The row is 16 units longer than the gap: the door, not the agents,
       takes it. It pushes the row up against the wall and then overlaps
       the agent it meets by the row's 16, and no other agent. */
    skim_agent_info last, middle;
    skim_crowd_get_agent(crowd, 2, &last);
    skim_crowd_get_agent(crowd, 1, &middle);
    const float into_door = stop - (last.position.x - AGENT_R);
    printf("the door overlaps the last agent by %.3f\n", (double)into_door);
    cr_expect_gt(squeezed, 0u, "nobody was flagged squeezed");
    cr_expect_geq(into_door, 16.0f - 0.1f, "the door overlaps the last agent by only %.3f of the row's 16",
                  (double)into_door);
    cr_expect_geq(middle.position.x - AGENT_R, stop, "the door reaches the middle agent at x %.3f",
                  (double)middle.position.x);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(door_shape);
}

/* A platform 192 x 192 x 16 glides along +x at 175 units/s (as the default
   scene's) with four riders on it into 25 agents placed in a triangular
   lattice 1 unit apart, all crowding toward a point 100 units short of a
   wall beyond them, and stops 64 units short of that wall: the riders are
   carried into the crowd's cylinders and the platform's side presses the
   agents in its way into the ones behind, across its motion as well as
   along it, and against the wall (about 40 agent-steps squeezed). */
Test(crowd_bodies_chains, a_platform_carrying_riders_into_a_standing_crowd_overlaps_no_two)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -2000, -2000, -32, 2000, 2000, 0);
    soup_add_box(&soup, 260, -2000, 0, 300, 2000, 200); /* a wall ahead */
    skim_world *world = soup_world(&soup);
    skim_world *platform_shape = box_world(-96, -96, 0, 96, 96, 16);
    uint32_t platform;
    float x = -400.0f;
    cr_assert_eq(skim_world_add_body(world, platform_shape, (skim_transform){ { x, 0, 0 }, identity }, &platform),
                 SKIM_OK);
    enum { RIDERS = 4, SIDE = 5, AGENTS = RIDERS + SIDE * SIDE };
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = AGENTS;
    def.move.threads = 1;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    for (int k = 0; k < RIDERS; ++k)
        goal_agent(crowd, (skim_vec3){ x + 60.0f, -60.0f + 40.0f * (float)k, 16.0f + AGENT_R + 0.5f });
    for (int k = 0; k < SIDE * SIDE; ++k) {
        uint32_t id = goal_agent(crowd, (skim_vec3){ 33.0f * (float)(k % SIDE) + 16.5f * (float)(k / SIDE % 2),
                                                     -66.0f + 28.58f * (float)(k / SIDE), AGENT_R + 0.5f });
        skim_crowd_set_target(crowd, id, (skim_vec3){ 160.0f, 0.0f, AGENT_R }, 150.0f, 0.0f);
    }
    for (int frame = 0; frame < 20; ++frame)
        step_or_fail(world, crowd, DT);
    uint32_t squeezed = 0, riding = 0;
    for (int frame = 0; frame < 240; ++frame) {
        x = fminf(x + 175.0f * DT, 100.0f);
        slide_body(world, platform, (skim_vec3){ x, 0, 0 });
        step_or_fail(world, crowd, DT);
        assert_apart(crowd, frame);
        for (uint32_t id = 0; id < AGENTS; ++id) {
            skim_agent_info info;
            skim_crowd_get_agent(crowd, id, &info);
            squeezed += (info.state & SKIM_AGENT_SQUEEZED) != 0;
            riding += info.floor_body == platform;
            cr_assert_geq(info.position.z, AGENT_R - 0.5f, "frame %d: agent %u pushed into the floor: z %.3f", frame,
                          id, (double)info.position.z);
        }
    }
    printf("agent-steps squeezed %u, riding %u\n", squeezed, riding);
    cr_expect_gt(squeezed, 0u, "the platform pressed nobody against another agent");
    cr_expect_gt(riding, 240u * RIDERS / 2, "the riders were not carried (%u agent-steps riding)", riding);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(platform_shape);
}

/* Agents that other agents cannot push (inverse mass 0) stand in a row,
   touching, 6 units from a wall; a door slides into them at 60 units/s
   and stops 24 units into the first row and 8 into the second. Neither the solver nor the check can move a
   pair apart here, so whatever the door's pushes let the agents sink into
   each other would stay, and add up from step to step. */
Test(crowd_bodies_chains, a_door_pressing_agents_that_cannot_be_pushed_sinks_none_into_another)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -1000, -1000, -32, 1000, 1000, 0);
    soup_add_box(&soup, 100, -100, 0, 132, 100, 200);
    skim_world *world = soup_world(&soup);
    skim_world *door_shape = box_world(-16, -100, 0, 0, 100, 150);
    uint32_t door;
    cr_assert_eq(skim_world_add_body(world, door_shape, (skim_transform){ { -100, 0, 0 }, identity }, &door),
                 SKIM_OK);
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = 4;
    def.move.threads = 1;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    /* Two rows: one straight along the door's motion, one at 60 degrees to it. */
    const skim_vec3 at[4] = { { 78, -60, AGENT_R + 0.5f }, { 46, -60, AGENT_R + 0.5f },
                              { 78, 60, AGENT_R + 0.5f }, { 62, 60 - 27.7128f, AGENT_R + 0.5f } };
    for (int k = 0; k < 4; ++k) {
        skim_agent_def a = skim_agent_def_default();
        a.position = at[k];
        a.inverse_mass = 0.0f;
        uint32_t id;
        cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    }
    for (int frame = 0; frame < 10; ++frame)
        step_or_fail(world, crowd, DT);
    uint32_t squeezed = 0;
    float x = -100.0f;
    for (int frame = 0; frame < 200; ++frame) {
        x = fminf(x + 1.0f, 54.0f);
        slide_body(world, door, (skim_vec3){ x, 0, 0 });
        step_or_fail(world, crowd, DT);
        assert_apart(crowd, frame);
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        squeezed += stats.squeezed;
    }
    cr_expect_gt(squeezed, 0u, "nobody was flagged squeezed");
    /* The door, not the agents, overlaps: each agent it met is where it stood. */
    for (uint32_t id = 0; id < 4; ++id) {
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        cr_expect_leq(fabsf(info.position.x - at[id].x), 0.1f, "agent %u moved from x %.1f to %.3f", id,
                      (double)at[id].x, (double)info.position.x);
    }
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(door_shape);
}

/* Ghosts (agents that pass through other agents) taking the slots that
   colliding agents held at the last body push: the clearing after the
   next push must leave the ghosts out without reading what their slots
   held before (the sanitizer pass catches a read past the clearing's
   buffers), and the ghosts must not hold back the one colliding agent the
   body pushes. Far from the origin, so a leftover cell range would be
   wide. */
Test(crowd_bodies_chains, ghosts_in_the_slots_of_pushed_agents_do_not_hold_back_a_push)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, 2000, 2000, -32, 4000, 4000, 0);
    skim_world *world = soup_world(&soup);
    skim_world *pusher_shape = box_world(-16, -64, 0, 0, 64, 100); /* face at local x = 0 */
    float x = 2900.0f;
    uint32_t pusher;
    cr_assert_eq(skim_world_add_body(world, pusher_shape, (skim_transform){ { x, 3000, 0 }, identity }, &pusher),
                 SKIM_OK);
    enum { AGENTS = 8 };
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = AGENTS;
    def.move.threads = 1;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    uint32_t id[AGENTS];
    for (int k = 0; k < AGENTS; ++k) /* a row along +x ahead of the pusher, 1 unit apart */
        id[k] = goal_agent(crowd, (skim_vec3){ 2940.0f + 33.0f * (float)k, 3000.0f, AGENT_R + 0.5f });
    int frame = 0;
    for (; frame < 20; ++frame)
        step_or_fail(world, crowd, DT);
    /* The pusher meets the first agent and moves it less than the gap to
       the second: every colliding agent's slot gets its cells. */
    skim_agent_info first, now;
    skim_crowd_get_agent(crowd, id[0], &first);
    const float meet = first.position.x - AGENT_R;
    while (x < meet + 0.5f) {
        x = fminf(x + 2.0f, meet + 0.5f);
        slide_body(world, pusher, (skim_vec3){ x, 3000, 0 });
        step_or_fail(world, crowd, DT);
        assert_apart(crowd, frame++);
    }
    skim_crowd_get_agent(crowd, id[0], &now);
    cr_assert_gt(now.position.x, first.position.x, "the pusher did not move the first agent");
    /* Every agent but the first becomes a ghost where it stands. */
    for (int k = 1; k < AGENTS; ++k) {
        skim_agent_info info;
        cr_assert_eq(skim_crowd_get_agent(crowd, id[k], &info), SKIM_OK);
        cr_assert_eq(skim_crowd_remove(crowd, id[k]), SKIM_OK, "%s", skim_last_error_message());
        skim_agent_def ghost = skim_agent_def_default();
        ghost.position = info.position;
        ghost.flags = SKIM_AGENT_GHOST;
        cr_assert_eq(skim_crowd_add(crowd, &ghost, &id[k]), SKIM_OK, "%s", skim_last_error_message());
    }
    for (int f = 0; f < 40; ++f, ++frame) {
        x += 2.0f;
        slide_body(world, pusher, (skim_vec3){ x, 3000, 0 });
        step_or_fail(world, crowd, DT);
        skim_crowd_get_agent(crowd, id[0], &now);
        cr_assert_geq(now.position.x - AGENT_R, x - 0.1f, "frame %d: the pusher at %.3f is into the agent at %.3f",
                      frame, (double)x, (double)now.position.x);
    }
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(pusher_shape);
}
