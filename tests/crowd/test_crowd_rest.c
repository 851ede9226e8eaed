/* Agents that stand still on an unchanged floor take their last world
   move again instead of moving (skim_crowd_stats.resting), and nothing
   else changes: two crowds, one resting and one moving every agent every
   step (skim_crowd_def.resting false), are given the same field of standing agents, walkers crossing it,
   a door sliding at its edge, a lift going up and down, teleports, adds
   and removes, a body added and removed, a change of dt and a change of
   world, and compared after every step. */
#include "crowd_scenarios.h"

#include "world/world.h" /* a world's contents, swapped under its address */

#include <math.h>
#include <omp.h>

TestSuite(crowd_rest, .timeout = 240);

enum { CAPACITY = 300, FIELD = 15, FRAMES = 300 };
static const skim_quat identity = { 0, 0, 0, 1 };

#define BOTH(call_a, call_b) cr_assert_eq(call_a, call_b, "%s", skim_last_error_message())

static uint32_t add_agent(skim_crowd *crowd, skim_vec3 at)
{
    skim_agent_def a = skim_agent_def_default();
    a.position = at;
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    return id;
}

static void populate(skim_crowd *crowd)
{
    /* A field of agents that stand, 48 units apart. */
    for (int k = 0; k < FIELD * FIELD; ++k)
        add_agent(crowd, (skim_vec3){ -360.0f + 48.0f * (float)(k % FIELD), -360.0f + 48.0f * (float)(k / FIELD),
                                      AGENT_R + 0.5f });
    /* Walkers crossing it, and riders of the lift. */
    for (int k = 0; k < 8; ++k) {
        uint32_t id = add_agent(crowd, (skim_vec3){ -600.0f, -300.0f + 80.0f * (float)k, AGENT_R + 0.5f });
        cr_assert_eq(skim_crowd_set_target(crowd, id, (skim_vec3){ 600.0f, -300.0f + 80.0f * (float)k, 0 }, 150.0f,
                                           4.0f),
                     SKIM_OK);
    }
    for (int k = 0; k < 4; ++k)
        add_agent(crowd, (skim_vec3){ 760.0f + 40.0f * (float)k, 600.0f, AGENT_R + 20.5f });
}

static void lockstep(int threads)
{
    omp_set_num_threads(threads);
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -2000, -2000, -32, 2000, 2000, 0);
    soup_add_box(&soup, -420, 420, 0, 420, 440, 120); /* a wall along the field's far side */
    skim_world *world = soup_world(&soup);
    skim_world *lower = box_world(-2000, -2000, -40, 2000, 2000, -8); /* the same floor, 8 units down */
    skim_world *door = box_world(-60, -8, 0, 60, 8, 120);
    skim_world *lift = box_world(-100, -60, 0, 100, 60, 20);
    skim_world *crate = box_world(-20, -20, 0, 20, 20, 40);
    uint32_t door_id, lift_id, crate_id = 0, lower_door, lower_lift;
    cr_assert_eq(skim_world_add_body(world, door, (skim_transform){ { -300, -400, 0 }, identity }, &door_id), SKIM_OK);
    cr_assert_eq(skim_world_add_body(world, lift, (skim_transform){ { 820, 600, 0 }, identity }, &lift_id), SKIM_OK);
    /* The lower world has the same bodies with the same ids, moved alike:
       only that it is another world tells it apart. */
    cr_assert_eq(skim_world_add_body(lower, door, (skim_transform){ { -300, -400, 0 }, identity }, &lower_door),
                 SKIM_OK);
    cr_assert_eq(skim_world_add_body(lower, lift, (skim_transform){ { 820, 600, 0 }, identity }, &lower_lift),
                 SKIM_OK);
    cr_assert_eq(lower_door, door_id);
    cr_assert_eq(lower_lift, lift_id);
    skim_crowd_def moving_everyone = skim_crowd_def_default();
    moving_everyone.capacity = CAPACITY;
    moving_everyone.resting = false;
    skim_crowd *a = goal_crowd(CAPACITY), *b = NULL;
    cr_assert_eq(skim_crowd_create(&moving_everyone, &b), SKIM_OK);
    populate(a);
    populate(b);
    uint64_t rested = 0, rested_after_switch = 0, calls_a = 0, calls_b = 0, moves_b = 0;
    const skim_world *stepping = world;
    for (int frame = 0; frame < FRAMES; ++frame) {
        float dt = frame >= 120 && frame < 130 ? 1.0f / 30.0f : 1.0f / 60.0f;
        /* The door slides along the field's near edge; the lift rises and falls. */
        for (int w = 0; w < 2; ++w) {
            skim_world *moving = w ? lower : world;
            slide_body(moving, door_id, (skim_vec3){ -300.0f + 150.0f * sinf(0.05f * (float)frame), -400, 0 });
            slide_body(moving, lift_id, (skim_vec3){ 820, 600, 60.0f + 60.0f * sinf(0.03f * (float)frame) });
        }
        if (frame == 60) { /* a teleport, a removal, an addition */
            BOTH(skim_crowd_teleport(a, 7, (skim_vec3){ 0, -600, AGENT_R + 0.5f }),
                 skim_crowd_teleport(b, 7, (skim_vec3){ 0, -600, AGENT_R + 0.5f }));
            BOTH(skim_crowd_remove(a, 30), skim_crowd_remove(b, 30));
            cr_assert_eq(add_agent(a, (skim_vec3){ 1200, 0, AGENT_R + 0.5f }),
                         add_agent(b, (skim_vec3){ 1200, 0, AGENT_R + 0.5f }));
        }
        if (frame == 90) /* a crate appears next to the field, and goes at 150 */
            cr_assert_eq(skim_world_add_body(world, crate, (skim_transform){ { 400, 0, 0 }, identity }, &crate_id),
                         SKIM_OK);
        if (frame == 150)
            cr_assert_eq(skim_world_remove_body(world, crate_id), SKIM_OK);
        if (frame == 240) /* another world: the floor drops under everyone */
            stepping = lower;
        step_or_fail(stepping, a, dt);
        step_or_fail(stepping, b, dt);
        expect_same_crowds(a, b, CAPACITY, frame);
        skim_crowd_stats sa, sb;
        skim_crowd_get_stats(a, &sa);
        skim_crowd_get_stats(b, &sb);
        cr_assert_eq(sb.resting, 0u, "frame %d: the crowd told not to rest rested", frame);
        /* What the world moves cost: a resting agent takes none, and each
           move walks the tree at most once. */
        cr_assert_eq(sa.world_moves + sa.resting, sa.agents, "frame %d", frame);
        cr_assert_eq(sb.world_moves, sb.agents, "frame %d", frame);
        cr_assert(sa.world_walks <= sa.world_moves && sb.world_walks <= sb.world_moves, "frame %d", frame);
        calls_a += sa.world_kernel_calls;
        calls_b += sb.world_kernel_calls;
        moves_b += sb.world_moves;
        rested += sa.resting;
        if (frame == 240)
            rested_after_switch = sa.resting;
        if (frame == 90 || frame == 120 || frame == 150)
            cr_expect_eq(sa.resting, 0u, "frame %d: %u agents rested through a change of bodies or dt", frame,
                         sa.resting);
    }
    printf("%d threads: %llu agent-steps rested of %d\n", threads, (unsigned long long)rested,
           FRAMES * (FIELD * FIELD + 12));
    cr_expect_gt(rested, (uint64_t)FRAMES * FIELD * FIELD / 2, "too few agents rested: the test tests too little");
    cr_expect_eq(rested_after_switch, 0u, "agents rested in a world they had not stood in");
    /* Standing agents sweep down to their floor at least once a move;
       resting ones save those calls. */
    cr_expect_geq(calls_b, moves_b, "%llu kernel calls for %llu moves", (unsigned long long)calls_b,
                  (unsigned long long)moves_b);
    cr_expect_lt(calls_a, calls_b, "resting saved no kernel call (%llu against %llu)", (unsigned long long)calls_a,
                 (unsigned long long)calls_b);
    skim_crowd_destroy(a);
    skim_crowd_destroy(b);
    skim_world_destroy(world);
    skim_world_destroy(lower);
    skim_world_destroy(door);
    skim_world_destroy(lift);
    skim_world_destroy(crate);
}

Test(crowd_rest, resting_agents_give_the_same_crowd_as_moving_everyone_on_1_thread)
{
    lockstep(1);
}

Test(crowd_rest, resting_agents_give_the_same_crowd_as_moving_everyone_on_3_threads)
{
    lockstep(3);
}

Test(crowd_rest, an_agent_rests_only_where_no_moved_body_can_reach)
{
    /* Two agents standing, one beside a door that slides to and fro and one
       far from it: the far one rests once it has landed, the near one
       never does. */
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -2000, -2000, -32, 2000, 2000, 0);
    skim_world *world = soup_world(&soup);
    skim_world *door = box_world(-60, -8, 0, 60, 8, 120);
    uint32_t door_id;
    cr_assert_eq(skim_world_add_body(world, door, (skim_transform){ { 0, 40, 0 }, identity }, &door_id), SKIM_OK);
    skim_crowd *crowd = goal_crowd(2);
    uint32_t near = add_agent(crowd, (skim_vec3){ 0, 0, AGENT_R + 0.5f });
    uint32_t far = add_agent(crowd, (skim_vec3){ 1000, 0, AGENT_R + 0.5f });
    cr_assert_eq(near, 0);
    cr_assert_eq(far, 1);
    uint32_t rested = 0;
    for (int frame = 0; frame < 120; ++frame) {
        slide_body(world, door_id, (skim_vec3){ 30.0f * sinf(0.1f * (float)frame), 40, 0 });
        step_or_fail(world, crowd, 1.0f / 60.0f);
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        cr_assert_leq(stats.resting, 1u, "frame %d: the agent beside the moving door rested", frame);
        rested += stats.resting;
    }
    cr_expect_gt(rested, 100u, "the far agent rested in only %u of 120 steps", rested);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(door);
}

Test(crowd_rest, a_world_made_again_where_the_last_one_was_is_another_world)
{
    /* Agents at rest on a floor; then the world at the same address holds
       another, its floor 8 units lower, as when a level is destroyed and
       the next one made takes its memory (here its contents are swapped
       in, which the allocator cannot be made to do on demand). A resting
       crowd and one that moves every agent must both see the agents fall. */
    skim_crowd_def moving_everyone = skim_crowd_def_default();
    moving_everyone.capacity = 16;
    moving_everyone.resting = false;
    skim_crowd *a = goal_crowd(16), *b = NULL;
    cr_assert_eq(skim_crowd_create(&moving_everyone, &b), SKIM_OK);
    for (int k = 0; k < 16; ++k) {
        const skim_vec3 at = { 60.0f * (float)(k % 4), 60.0f * (float)(k / 4), AGENT_R + 0.5f };
        cr_assert_eq(add_agent(a, at), add_agent(b, at));
    }
    skim_world *world = box_world(-500, -500, -32, 500, 500, 0);
    skim_world *lower = box_world(-500, -500, -40, 500, 500, -8);
    for (int frame = 0; frame < 60; ++frame) {
        step_or_fail(world, a, 1.0f / 60.0f);
        step_or_fail(world, b, 1.0f / 60.0f);
    }
    skim_crowd_stats stats;
    skim_crowd_get_stats(a, &stats);
    cr_assert_eq(stats.resting, 16u, "only %u of 16 agents rested on the first floor", stats.resting);
    const float before = skim_crowd_positions(a)[0].z;
    const skim_world first = *world;
    *world = *lower;
    for (int frame = 0; frame < 30; ++frame) {
        step_or_fail(world, a, 1.0f / 60.0f);
        step_or_fail(world, b, 1.0f / 60.0f);
        expect_same_crowds(a, b, 16, frame);
    }
    cr_expect_lt(skim_crowd_positions(a)[0].z, before - 7.0f, "the agents did not fall to the new floor");
    *world = first;
    skim_crowd_destroy(a);
    skim_crowd_destroy(b);
    skim_world_destroy(world);
    skim_world_destroy(lower);
}
