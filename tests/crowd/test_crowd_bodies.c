/* Crowds on moving bodies: a lift carries the agents standing on it, a
   platform carries them sideways and turning without slipping, a door
   pushes an agent and squeezes it against a wall without pushing it into
   the wall, and a crowd among moving bodies gives the same bits for any
   thread count and kernel set. */
#include "crowd_scenarios.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#define DT (1.0f / 60.0f)

TestSuite(crowd_bodies, .timeout = 240);

static const skim_quat identity = { 0, 0, 0, 1 };

static skim_crowd *crowd_of(uint32_t capacity, int threads, float skin_width)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = capacity;
    def.move.threads = threads;
    def.move.skin_width = skin_width;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    return crowd;
}

Test(crowd_bodies, a_lift_carries_50_agents_up_900_units_in_5_seconds)
{
    /* A floor far below, and a 480 x 280 lift (top at z = 0 in its mesh). */
    skim_world *world = box_world(-4000, -4000, -2032, 4000, 4000, -2000);
    skim_world *lift_shape = box_world(-240, -140, -16, 240, 140, 0);
    uint32_t lift;
    cr_assert_eq(skim_world_add_body(world, lift_shape, (skim_transform){ { 0, 0, 0 }, identity }, &lift), SKIM_OK);
    skim_crowd *crowd = crowd_of(50, 0, skim_move_def_default().skin_width);
    for (int k = 0; k < 50; ++k)
        goal_agent(crowd, (skim_vec3){ -200.0f + 44.0f * (float)(k % 10), -100.0f + 50.0f * (float)(k / 10),
                                       AGENT_R + 0.5f });
    for (int frame = 0; frame < 10; ++frame) /* land on it */
        step_or_fail(world, crowd, DT);
    /* 900 units in 5 s, then a second at the top. */
    for (int frame = 1; frame <= 360; ++frame) {
        float z = 900.0f * fminf(1.0f, (float)frame / 300.0f);
        place_body(world, lift, (skim_vec3){ 0, 0, z }, identity);
        step_or_fail(world, crowd, DT);
        for (uint32_t id = 0; id < 50; ++id) {
            skim_agent_info info;
            skim_crowd_get_agent(crowd, id, &info);
            cr_assert_geq(info.position.z, z + AGENT_R - 0.5f, "frame %d: agent %u at z %.3f, lift top at %.3f", frame,
                          id, (double)info.position.z, (double)z);
        }
    }
    for (uint32_t id = 0; id < 50; ++id) {
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        cr_expect(info.state & SKIM_AGENT_ON_FLOOR, "agent %u does not stand (state %#x)", id, info.state);
        cr_expect_eq(info.floor_body, lift, "agent %u stands on %u, not the lift", id, info.floor_body);
        cr_expect(fabsf(info.position.z - (900.0f + AGENT_R)) < 0.5f, "agent %u at z %.3f", id,
                  (double)info.position.z);
        cr_expect(fabsf(info.position.x) < 240.0f && fabsf(info.position.y) < 140.0f, "agent %u off the lift at %.1f %.1f",
                  id, (double)info.position.x, (double)info.position.y);
        cr_expect_eq(info.state & SKIM_AGENT_SQUEEZED, 0u, "agent %u squeezed", id);
    }
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(lift_shape);
}

/* An agent standing on another agent that stands on a lift goes up with
   the lift: the stack is carried, not just the agent on the lift. */
Test(crowd_bodies, a_lift_carries_an_agent_standing_on_an_agent_on_it)
{
    skim_world *world = box_world(-4000, -4000, -2032, 4000, 4000, -2000);
    skim_world *lift_shape = box_world(-240, -140, -16, 240, 140, 0);
    uint32_t lift;
    cr_assert_eq(skim_world_add_body(world, lift_shape, (skim_transform){ { 0, 0, 0 }, identity }, &lift), SKIM_OK);
    skim_crowd *crowd = crowd_of(2, 0, skim_move_def_default().skin_width);
    uint32_t below = goal_agent(crowd, (skim_vec3){ 0, 0, AGENT_R + 0.5f });
    uint32_t above = goal_agent(crowd, (skim_vec3){ 0, 0, 3.0f * AGENT_R + 4.0f });
    for (int frame = 0; frame < 30; ++frame) /* land on the lift, and on the agent */
        step_or_fail(world, crowd, DT);
    skim_agent_info info;
    skim_crowd_get_agent(crowd, above, &info);
    cr_assert(info.state & SKIM_AGENT_ON_AGENT, "the upper agent does not stand on the lower one (state %#x)",
              info.state);
    for (int frame = 1; frame <= 200; ++frame) { /* 300 units in 2 s, then a third of a second at the top */
        float z = 300.0f * fminf(1.0f, (float)frame / 120.0f);
        place_body(world, lift, (skim_vec3){ 0, 0, z }, identity);
        step_or_fail(world, crowd, DT);
        skim_agent_info low, high;
        skim_crowd_get_agent(crowd, below, &low);
        skim_crowd_get_agent(crowd, above, &high);
        cr_assert_geq(low.position.z, z + AGENT_R - 0.5f, "frame %d: lower agent at z %.3f, lift top at %.3f", frame,
                      (double)low.position.z, (double)z);
        cr_assert_geq(high.position.z, low.position.z + 2.0f * AGENT_R - 0.5f,
                      "frame %d: upper agent at z %.3f, lower at %.3f: left behind", frame, (double)high.position.z,
                      (double)low.position.z);
    }
    skim_crowd_get_agent(crowd, above, &info);
    cr_expect(info.state & SKIM_AGENT_ON_AGENT, "the upper agent no longer stands on the lower one (state %#x)",
              info.state);
    cr_expect_eq(info.state & SKIM_AGENT_SQUEEZED, 0u, "the upper agent is squeezed");
    skim_crowd_get_agent(crowd, below, &info);
    cr_expect_eq(info.floor_body, lift, "the lower agent stands on %u, not the lift", info.floor_body);
    cr_expect_eq(info.state & SKIM_AGENT_SQUEEZED, 0u, "the lower agent is squeezed");
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(lift_shape);
}

/* Agents standing on a platform that moves sideways and turns keep where
   they stand on it: their positions in the platform's own space move by
   less than the tolerance. */
static void carried_without_slipping(double spin_per_second)
{
    skim_world *world = box_world(-4000, -4000, -2032, 4000, 4000, -2000);
    skim_world *shape = box_world(-200, -200, -16, 200, 200, 0);
    uint32_t platform;
    cr_assert_eq(skim_world_add_body(world, shape, (skim_transform){ { 0, 0, 0 }, identity }, &platform), SKIM_OK);
    skim_crowd *crowd = crowd_of(9, 0, skim_move_def_default().skin_width);
    for (int k = 0; k < 9; ++k)
        goal_agent(crowd, (skim_vec3){ -120.0f + 120.0f * (float)(k % 3), -120.0f + 120.0f * (float)(k / 3),
                                       AGENT_R + 0.5f });
    for (int frame = 0; frame < 10; ++frame)
        step_or_fail(world, crowd, DT);
    float local[9][2];
    for (uint32_t id = 0; id < 9; ++id) {
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        local[id][0] = info.position.x;
        local[id][1] = info.position.y;
    }
    /* 3 s: 200 units/s along x, then back along a diagonal. */
    for (int frame = 1; frame <= 180; ++frame) {
        double t = frame * (double)DT;
        double x = t < 1.5 ? 200.0 * t : 300.0 - 100.0 * (t - 1.5);
        double y = t < 1.5 ? 0.0 : 100.0 * (t - 1.5);
        double angle = spin_per_second * t;
        skim_quat turn = { 0, 0, (float)sin(0.5 * angle), (float)cos(0.5 * angle) };
        place_body(world, platform, (skim_vec3){ (float)x, (float)y, 0 }, turn);
        step_or_fail(world, crowd, DT);
        for (uint32_t id = 0; id < 9; ++id) {
            skim_agent_info info;
            skim_crowd_get_agent(crowd, id, &info);
            double dx = info.position.x - x, dy = info.position.y - y;
            double lx = cos(angle) * dx + sin(angle) * dy, ly = -sin(angle) * dx + cos(angle) * dy;
            double slip = hypot(lx - local[id][0], ly - local[id][1]);
            cr_assert_lt(slip, 0.5, "frame %d: agent %u slipped %.3f units on the platform", frame, id, slip);
            cr_assert_eq(info.floor_body, platform, "frame %d: agent %u is off the platform", frame, id);
        }
    }
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(shape);
}

Test(crowd_bodies, a_platform_moving_sideways_carries_agents_without_slipping)
{
    carried_without_slipping(0.0);
}

Test(crowd_bodies, a_turning_platform_carries_agents_without_slipping)
{
    carried_without_slipping(0.5);
}

/* A floor, a wall whose face is x = 100, and a door (a 16-thick slab)
   sliding along +x from x = -200 toward the wall; an agent stands against
   the wall. The door stops when its face is `gap` from the wall. Returns
   the agent; *squeezed says whether a step flagged it. */
static skim_agent_info door_closes_on_agent(float gap, float skin_width, bool *squeezed)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -1000, -1000, -32, 1000, 1000, 0);
    soup_add_box(&soup, 100, -1000, 0, 132, 1000, 200);
    skim_world *world = soup_world(&soup);
    skim_world *door_shape = box_world(-16, -100, 0, 0, 100, 150); /* face at local x = 0 */
    uint32_t door;
    cr_assert_eq(skim_world_add_body(world, door_shape, (skim_transform){ { -200, 0, 0 }, identity }, &door), SKIM_OK);
    skim_crowd *crowd = crowd_of(1, 0, skin_width);
    uint32_t id = goal_agent(crowd, (skim_vec3){ 100.0f - AGENT_R - 1.0f, 0, AGENT_R + 0.5f });
    skim_crowd_set_velocity(crowd, id, (skim_vec3){ 50, 0, 0 }); /* leans on the wall */
    for (int frame = 0; frame < 20; ++frame)
        step_or_fail(world, crowd, DT);
    *squeezed = false;
    const float stop = 100.0f - gap;
    float x = -200.0f;
    for (int rest = 0; rest < 30; rest += x == stop) {
        x = fminf(x + 4.0f, stop);
        place_body(world, door, (skim_vec3){ x, 0, 0 }, identity);
        step_or_fail(world, crowd, DT);
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        *squeezed |= (info.state & SKIM_AGENT_SQUEEZED) != 0;
        /* Never into the wall, whatever the door does. */
        cr_assert_leq(info.position.x + AGENT_R, 100.0f + 0.1f, "door at %.2f: agent at %.3f, into the wall",
                      (double)x, (double)info.position.x);
    }
    for (int frame = 0; frame < 10; ++frame)
        step_or_fail(world, crowd, DT);
    skim_agent_info info;
    skim_crowd_get_agent(crowd, id, &info);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(door_shape);
    return info;
}

Test(crowd_bodies, a_door_closing_on_an_agent_against_a_wall_squeezes_it_overlapping_neither_by_over_0_1)
{
    /* The gap 0.05 narrower than the agent; a skin of 0.002 radii (0.032
       units) kept from the wall, so the squeeze leaves under 0.1. */
    bool squeezed;
    skim_agent_info info = door_closes_on_agent(2.0f * AGENT_R - 0.05f, 0.002f, &squeezed);
    const float door_face = 100.0f - (2.0f * AGENT_R - 0.05f);
    float into_wall = info.position.x + AGENT_R - 100.0f, into_door = door_face - (info.position.x - AGENT_R);
    cr_expect(squeezed, "the agent was never flagged squeezed");
    cr_expect_leq(into_wall, 0.1f, "into the wall by %.4f", (double)into_wall);
    cr_expect_leq(into_door, 0.1f, "into the door by %.4f", (double)into_door);
    cr_expect_gt(into_door, 0.0f, "the gap is narrower than the agent: it must overlap the door (%.4f)",
                 (double)into_door);
}

Test(crowd_bodies, a_door_shut_against_the_wall_leaves_the_agent_clear_of_the_wall)
{
    bool squeezed;
    skim_agent_info info = door_closes_on_agent(0.0f, skim_move_def_default().skin_width, &squeezed);
    cr_expect(squeezed, "the agent was never flagged squeezed");
    cr_expect_leq(info.position.x + AGENT_R, 100.0f, "into the wall: agent at %.4f", (double)info.position.x);
    cr_expect_geq(info.position.x + AGENT_R, 99.0f, "not against the wall: agent at %.4f", (double)info.position.x);
    cr_expect_geq(info.position.z, AGENT_R - 0.1f, "fell through the floor: z %.4f", (double)info.position.z);
}

Test(crowd_bodies, a_door_that_stops_short_pushes_the_agent_without_squeezing_it)
{
    bool squeezed;
    skim_agent_info info = door_closes_on_agent(2.0f * AGENT_R + 20.0f, skim_move_def_default().skin_width, &squeezed);
    cr_expect(!squeezed, "flagged squeezed with room to spare");
    (void)info;
}

/* A block sliding at 240 units/s through a group of standing agents
   pushes the ones in its way into the ones behind, which pass the push on:
   no two agents ever overlap by more than 0.1 units, nobody is squeezed
   (there is room ahead), and the group is driven ahead of the block. */
Test(crowd_bodies, a_block_pushing_agents_into_others_drives_them_ahead_overlapping_no_two_by_over_0_1)
{
    skim_world *world = box_world(-2000, -2000, -32, 2000, 2000, 0);
    skim_world *block = box_world(-20, -150, 0, 20, 150, 60);
    uint32_t body;
    cr_assert_eq(skim_world_add_body(world, block, (skim_transform){ { -300, 0, 0 }, identity }, &body), SKIM_OK);
    enum { COLUMNS = 8, ROWS = 6, AGENTS = COLUMNS * ROWS };
    skim_crowd *crowd = crowd_of(AGENTS, 0, skim_move_def_default().skin_width);
    for (int k = 0; k < AGENTS; ++k)
        goal_agent(crowd, (skim_vec3){ -140.0f + 40.0f * (float)(k % COLUMNS), -100.0f + 40.0f * (float)(k / COLUMNS),
                                       AGENT_R + 0.5f });
    for (int frame = 0; frame < 10; ++frame)
        step_or_fail(world, crowd, DT);
    uint32_t squeezed = 0;
    float closest = INFINITY;
    for (int frame = 1; frame <= 150; ++frame) {
        place_body(world, body, (skim_vec3){ -300.0f + 4.0f * (float)frame, 0, 0 }, identity);
        step_or_fail(world, crowd, DT);
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        squeezed += stats.squeezed;
        closest = fminf(closest, stats.closest_gap);
        cr_assert_geq(stats.closest_gap, -0.1f, "frame %d: two agents overlap by %.3f", frame,
                      -(double)stats.closest_gap);
    }
    float ahead = -INFINITY;
    for (uint32_t id = 0; id < AGENTS; ++id) {
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        ahead = fmaxf(ahead, info.position.x);
        cr_expect_geq(info.position.z, AGENT_R - 0.5f, "agent %u pushed into the floor: z %.3f", id,
                      (double)info.position.z);
    }
    printf("closest gap %.4f, agent-steps squeezed %u, leading agent at x %.1f\n", (double)closest, squeezed,
           (double)ahead);
    cr_expect_eq(squeezed, 0u, "%u agent-steps squeezed with room ahead", squeezed);
    cr_expect_gt(ahead, 300.0f, "the block did not drive the group ahead of it (leading agent at %.1f)", (double)ahead);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(block);
}

/* Agents walking across moving slabs and a lift among walls. */
static uint64_t moving_bodies_hash(int threads)
{
    omp_set_num_threads(threads);
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -1000, -1000, -32, 1000, 1000, 0);
    soup_add_box(&soup, -1000, 300, 0, 1000, 332, 128);
    skim_world *world = soup_world(&soup);
    skim_world *slab = box_world(-100, -60, -8, 100, 60, 8);
    uint32_t bodies[3];
    for (int b = 0; b < 3; ++b)
        cr_assert_eq(skim_world_add_body(world, slab, (skim_transform){ { -300.0f + 300.0f * (float)b, 0, 0 }, identity },
                                         &bodies[b]),
                     SKIM_OK);
    skim_crowd *crowd = crowd_of(120, threads, skim_move_def_default().skin_width);
    rng r = { 5 };
    uint32_t riding = 0, squeezed = 0;
    for (int k = 0; k < 120; ++k) {
        uint32_t id = goal_agent(crowd, (skim_vec3){ (float)rng_uniform(&r, -600, 600), (float)rng_uniform(&r, -250, 250),
                                                     AGENT_R + 20.0f });
        skim_crowd_set_target(crowd, id, (skim_vec3){ (float)rng_uniform(&r, -600, 600), (float)rng_uniform(&r, -250, 250), 0 },
                              150.0f, 4.0f);
    }
    for (int frame = 0; frame < 240; ++frame) {
        double t = frame * (double)DT;
        place_body(world, bodies[0], (skim_vec3){ -300, (float)(200.0 * sin(2.0 * t)), 0 }, identity);
        place_body(world, bodies[1], (skim_vec3){ 0, 0, (float)(60.0 * (1.0 - cos(1.5 * t))) }, identity);
        place_body(world, bodies[2], (skim_vec3){ 300, 0, 8 }, (skim_quat){ 0, 0, (float)sin(0.4 * t), (float)cos(0.4 * t) });
        step_or_fail(world, crowd, DT);
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        squeezed += stats.squeezed;
        /* Placed overlapping at random: apart within the first half second. */
        if (frame >= 30)
            cr_assert_geq(stats.closest_gap, -0.1f, "frame %d: two agents overlap by %.3f", frame,
                          -(double)stats.closest_gap);
        for (uint32_t id = 0; id < 120; ++id) {
            skim_agent_info info;
            skim_crowd_get_agent(crowd, id, &info);
            riding += info.floor_body != SKIM_STATIC;
        }
    }
    printf("agent-steps riding a body: %u, squeezed: %u\n", riding, squeezed);
    cr_assert_gt(riding, 1000, "the scenario tests too little riding");
    cr_assert_gt(squeezed, 0, "the scenario squeezes nobody");
    uint64_t hash = skim_crowd_hash(crowd);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(slab);
    return hash;
}

#define PINNED_BODIES_HASH 0x203c3be1f3e9c59bull

Test(crowd_bodies, agents_among_moving_bodies_end_with_a_pinned_hash_for_1_2_and_3_threads)
{
    SKIP_UNLESS_BITWISE_KERNELS();
    uint64_t first = 0;
    for (int threads = 1; threads <= 3; ++threads) {
        uint64_t hash = moving_bodies_hash(threads);
        printf("%s, %d threads: %016llx\n", skim_isa_name(), threads, (unsigned long long)hash);
        if (threads == 1)
            first = hash;
        cr_expect_eq(hash, first, "%s: %d threads give %016llx, 1 thread %016llx", skim_isa_name(), threads,
                     (unsigned long long)hash, (unsigned long long)first);
        /* The same at every optimisation level, sanitizers included. */
        cr_expect_eq(hash, PINNED_BODIES_HASH, "%s, %d threads: hash %016llx, pinned %016llx", skim_isa_name(), threads,
                     (unsigned long long)hash, (unsigned long long)PINNED_BODIES_HASH);
    }
}
