/* The crowd keeps each agent's records in a slot it moves into the step's
   order now and then; the user's ids, what the public arrays and
   skim_crowd_get_agent say, and every result stay as they would be with
   the records left where the ids put them. Two crowds, one reordering at
   every rebuild of the grid's order and one never, are given the same
   adds, removes, targets, jumps and moving platform, and compared after
   every step. */
#include "crowd_scenarios.h"

#include "crowd/crowd_internal.h" /* slot_of: that the slots really moved */
#include "crowd/crowd_slots.h"

#include <math.h>
#include <omp.h>

TestSuite(crowd_slots, .timeout = 240);

enum { CAPACITY = 400, FIRST = 300, FRAMES = 240 };
static const float DT = 1.0f / 60.0f;
static const skim_quat identity = { 0, 0, 0, 1 };

/* Where the k-th added agent stands: the ids are scattered over the grid
   (97 is prime to the 300 places), so the id order is not the grid's. */
static skim_vec3 place_of(uint32_t k)
{
    const uint32_t p = (k * 97u) % FIRST;
    return (skim_vec3){ -600.0f + 40.0f * (float)(p % 20), -300.0f + 40.0f * (float)(p / 20), AGENT_R + 0.5f };
}

static uint32_t add_agent(skim_crowd *crowd, skim_vec3 at, float radius)
{
    skim_agent_def a = skim_agent_def_default();
    a.position = at;
    a.radius = radius;
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    return id;
}

static bool active(const skim_crowd *crowd, uint32_t id)
{
    return (skim_crowd_states(crowd)[id] & SKIM_AGENT_ACTIVE) != 0;
}

/* The same thing done to both crowds; each call must give the same status. */
#define BOTH(call_a, call_b) cr_assert_eq(call_a, call_b, "%s", skim_last_error_message())

static void populate(skim_crowd *crowd)
{
    for (uint32_t k = 0; k < FIRST; ++k) {
        uint32_t id = add_agent(crowd, place_of(k), 12.0f + 0.01f * (float)k);
        cr_assert_eq(id, k);
        skim_vec3 at = place_of(k);
        cr_assert_eq(skim_crowd_set_target(crowd, id, (skim_vec3){ -at.x, at.y, 0 }, 120.0f, 4.0f), SKIM_OK);
    }
    /* Stacks: agents dropped on the heads of others, carried along. */
    for (uint32_t k = 0; k < 20; ++k) {
        skim_vec3 at = place_of(15 * k);
        at.z += 3.0f * AGENT_R;
        add_agent(crowd, at, 12.0f);
    }
    /* Riders of the platform. */
    for (uint32_t k = 0; k < 10; ++k)
        add_agent(crowd,
                  (skim_vec3){ 860.0f + 40.0f * (float)(k % 5), -40.0f + 40.0f * (float)(k / 5), AGENT_R + 20.5f },
                  12.0f);
}

static void expect_same(const skim_crowd *a, const skim_crowd *b, int frame)
{
    expect_same_crowds(a, b, CAPACITY, frame);
    for (uint32_t id = 0; id < CAPACITY; ++id) {
        if (!active(a, id))
            continue;
        skim_agent_info ia;
        cr_assert_eq(skim_crowd_get_agent(a, id, &ia), SKIM_OK);
        cr_assert_eq(memcmp(&ia.position, &skim_crowd_positions(a)[id], sizeof ia.position), 0,
                     "frame %d: agent %u is not where the positions say", frame, id);
        cr_assert_eq(ia.state, skim_crowd_states(a)[id], "frame %d: agent %u's state", frame, id);
    }
}

/* Between steps: a few removed, as many added (the lowest free ids come
   back), new targets and paths, a jump. */
static void churn(skim_crowd *a, skim_crowd *b, int frame)
{
    const uint32_t round = (uint32_t)frame / 30u;
    for (uint32_t j = 0; j < 5; ++j) {
        uint32_t id = (round * 13u + j * 29u) % FIRST;
        if (active(a, id))
            BOTH(skim_crowd_remove(a, id), skim_crowd_remove(b, id));
    }
    for (uint32_t j = 0; j < 5; ++j) {
        skim_vec3 at = place_of(round * 7u + j * 41u);
        at.z += 4.0f * AGENT_R;
        uint32_t ia = add_agent(a, at, 10.0f), ib = add_agent(b, at, 10.0f);
        cr_assert_eq(ia, ib, "the crowds gave different ids");
    }
    for (uint32_t j = 0; j < 10; ++j) {
        uint32_t id = ((uint32_t)frame * 7u + j * 31u) % FIRST;
        if (!active(a, id))
            continue;
        const skim_vec3 path[2] = { { 0, 400.0f, 0 }, { (float)j * 30.0f - 150.0f, -400.0f, 0 } };
        if (j % 2)
            BOTH(skim_crowd_set_path(a, id, path, 2, 150.0f, 4.0f), skim_crowd_set_path(b, id, path, 2, 150.0f, 4.0f));
        else
            BOTH(skim_crowd_set_target(a, id, path[1], 100.0f, 4.0f),
                 skim_crowd_set_target(b, id, path[1], 100.0f, 4.0f));
    }
    uint32_t jumper = (round * 11u) % FIRST;
    if (active(a, jumper)) {
        bool ja, jb;
        BOTH(skim_crowd_jump(a, jumper, 40.0f, &ja), skim_crowd_jump(b, jumper, 40.0f, &jb));
        cr_assert_eq(ja, jb);
    }
}

/* Ids whose records are not in the slot of the same number. */
static uint32_t moved_ids(const skim_crowd *crowd)
{
    uint32_t moved = 0;
    for (uint32_t id = 0; id < crowd->capacity; ++id)
        moved += crowd->slot_of[id] != id;
    return moved;
}

static void lockstep(int threads)
{
    omp_set_num_threads(threads);
    skim_world *world = box_world(-2000, -2000, -32, 2000, 2000, 0);
    skim_world *platform = box_world(-150, -100, 0, 150, 100, 20);
    uint32_t body;
    cr_assert_eq(skim_world_add_body(world, platform, (skim_transform){ { 950, 0, 0 }, identity }, &body), SKIM_OK);
    skim_crowd *a = goal_crowd(CAPACITY), *b = goal_crowd(CAPACITY);
    crowd_set_slot_period(a, 1);
    crowd_set_slot_period(b, CROWD_SLOTS_NEVER);
    populate(a);
    populate(b);
    uint32_t most_moved = 0, riders = 0, on_agents = 0;
    for (int frame = 0; frame < FRAMES; ++frame) {
        if (frame > 0 && frame % 30 == 0)
            churn(a, b, frame);
        slide_body(world, body, (skim_vec3){ 950.0f, 200.0f * sinf((float)frame * DT), 0 });
        step_or_fail(world, a, DT);
        step_or_fail(world, b, DT);
        expect_same(a, b, frame);
        uint32_t moved = moved_ids(a);
        most_moved = moved > most_moved ? moved : most_moved;
        for (uint32_t id = 0; id < CAPACITY; ++id) {
            skim_agent_info info;
            if (!active(a, id) || skim_crowd_get_agent(a, id, &info) != SKIM_OK)
                continue;
            riders += info.floor_body == body;
            on_agents += (info.state & SKIM_AGENT_ON_AGENT) != 0;
        }
    }
    printf("%d threads: at most %u ids away from their own slot; agent-steps riding %u, on agents %u\n", threads,
           most_moved, riders, on_agents);
    cr_assert_gt(most_moved, FIRST / 2, "the slots hardly moved: the test tests too little");
    cr_assert_eq(moved_ids(b), 0u, "the crowd that never reorders moved its slots");
    cr_assert_gt(riders, 100u, "the scenario tests too little riding");
    cr_assert_gt(on_agents, 100u, "the scenario tests too little standing on agents");
    skim_crowd_destroy(a);
    skim_crowd_destroy(b);
    skim_world_destroy(world);
    skim_world_destroy(platform);
}

Test(crowd_slots, reordered_records_give_the_same_agents_and_hash_as_records_by_id_on_1_thread)
{
    lockstep(1);
}

Test(crowd_slots, reordered_records_give_the_same_agents_and_hash_as_records_by_id_on_3_threads)
{
    lockstep(3);
}

Test(crowd_slots, an_id_keeps_its_agent_and_target_across_many_reorderings)
{
    skim_world *world = box_world(-2000, -2000, -32, 2000, 2000, 0);
    skim_crowd *crowd = goal_crowd(CAPACITY);
    crowd_set_slot_period(crowd, 1);
    for (uint32_t k = 0; k < FIRST; ++k)
        add_agent(crowd, place_of(k), 12.0f + 0.01f * (float)k);
    for (int frame = 0; frame < 120; ++frame) {
        /* Everyone heads for a place of its own, so the grid's order changes. */
        if (frame % 40 == 0)
            for (uint32_t id = 0; id < FIRST; ++id) {
                skim_vec3 to = place_of((id + 150u + (uint32_t)frame) % FIRST);
                cr_assert_eq(skim_crowd_set_target(crowd, id, to, 200.0f, 2.0f), SKIM_OK);
            }
        step_or_fail(world, crowd, DT);
    }
    cr_assert_gt(moved_ids(crowd), FIRST / 2, "the slots hardly moved: the test tests too little");
    /* One agent, late: sent alone across an empty stretch, it gets there. */
    const uint32_t id = 123;
    cr_assert_eq(skim_crowd_teleport(crowd, id, (skim_vec3){ 1500, 1500, AGENT_R + 0.5f }), SKIM_OK);
    cr_assert_eq(skim_crowd_set_target(crowd, id, (skim_vec3){ 1500, 1200, 0 }, 200.0f, 2.0f), SKIM_OK);
    for (int frame = 0; frame < 150; ++frame)
        step_or_fail(world, crowd, DT);
    for (uint32_t k = 0; k < FIRST; ++k) {
        skim_agent_info info;
        cr_assert_eq(skim_crowd_get_agent(crowd, k, &info), SKIM_OK);
        cr_assert_eq(info.radius, 12.0f + 0.01f * (float)k, "id %u has the radius %g of another agent", k,
                     (double)info.radius);
    }
    skim_agent_info info;
    cr_assert_eq(skim_crowd_get_agent(crowd, id, &info), SKIM_OK);
    cr_assert(info.state & SKIM_AGENT_ARRIVED, "agent %u did not arrive (state %#x)", id, info.state);
    cr_assert_lt(fabsf(info.position.y - 1200.0f), 3.0f, "agent %u at y %.2f", id, (double)info.position.y);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}
