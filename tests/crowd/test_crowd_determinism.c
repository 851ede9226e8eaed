/* Agents with goals and avoidance give the same bits for any thread count
   and kernel set: a crowd walking paths through a doorway in both
   directions ends with a pinned hash on 1, 2 and 3 threads, and so do
   walkers pressing into a field of agents that stand. Each is pinned with
   the default avoidance interval, where agents take turns to plan, and
   with every agent planning every step. meson runs this once per kernel
   set (SKIM_ISA); a set the CPU lacks is skipped. */
#include "crowd_scenarios.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* The pinned states after FRAMES frames: agents taking turns to plan
   (the default), and planning every step. */
#define PINNED_HASH 0x32dc2e538c49703dull
#define PINNED_EVERY_STEP_HASH 0x9d8ef922602233deull
enum { SIDE = 60, FRAMES = 480 };

TestSuite(crowd_determinism, .timeout = 240);

static uint64_t doorway_hash(const skim_world *world, int threads, uint32_t interval)
{
    omp_set_num_threads(threads);
    skim_crowd *crowd = goal_crowd_planning_every(2 * SIDE + 2, interval);
    rng r = { 77 };
    for (int side = 0; side < 2; ++side) {
        float sign = side ? 1.0f : -1.0f;
        for (int k = 0; k < SIDE; ++k) {
            float x = sign * (80.0f + 40.0f * (float)(k % 6)) + (float)rng_uniform(&r, -2, 2);
            float y = 40.0f * ((float)(k / 6) - 4.5f) + (float)rng_uniform(&r, -2, 2);
            uint32_t id = goal_agent(crowd, (skim_vec3){ x, y, AGENT_R + 1.0f });
            const skim_vec3 path[2] = { { -sign * 40.0f, 0, 0 }, { -x, y, 0 } };
            cr_assert_eq(skim_crowd_set_path(crowd, id, path, 2, 200.0f, 4.0f), SKIM_OK);
        }
    }
    /* And two that only walk at a velocity, one of them a ghost. */
    uint32_t walker = goal_agent(crowd, (skim_vec3){ 0, -300, AGENT_R + 1.0f });
    skim_crowd_set_velocity(crowd, walker, (skim_vec3){ 0, 150, 0 });
    skim_agent_def ghost = skim_agent_def_default();
    ghost.position = (skim_vec3){ -200, -300, AGENT_R + 1.0f };
    ghost.flags = SKIM_AGENT_GHOST;
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &ghost, &id), SKIM_OK);
    skim_crowd_set_target(crowd, id, (skim_vec3){ 200, 300, 0 }, 150, 1);
    for (int frame = 0; frame < FRAMES; ++frame)
        cr_assert_eq(skim_crowd_step(world, crowd, 1.0f / 60.0f), SKIM_OK, "%s", skim_last_error_message());
    skim_crowd_stats stats;
    skim_crowd_get_stats(crowd, &stats);
    cr_assert_gt(stats.arrived, 0, "nobody arrived: the scenario tests too little");
    uint64_t hash = skim_crowd_hash(crowd);
    skim_crowd_destroy(crowd);
    return hash;
}

static skim_world *doorway_world(void)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -1000, -1000, -32, 1000, 1000, 0);
    soup_add_box(&soup, -8, -1000, 0, 8, -50, 128);
    soup_add_box(&soup, -8, 50, 0, 8, 1000, 128);
    return soup_world(&soup);
}

/* A scenario's end state on 1, 2 and 3 threads against its pin; takes world. */
typedef uint64_t (*scenario_hash)(const skim_world *world, int threads, uint32_t interval);

static void expect_pinned(const char *scenario, skim_world *world, scenario_hash run, uint32_t interval,
                          uint64_t pinned)
{
    for (int threads = 1; threads <= 3; ++threads) {
        uint64_t hash = run(world, threads, interval);
        printf("%s, %d threads, planning every %u steps: %s %016llx\n", skim_isa_name(), threads, interval,
               scenario, (unsigned long long)hash);
        cr_expect_eq(hash, pinned, "%s, %d threads, planning every %u steps: %s hash %016llx, pinned %016llx",
                     skim_isa_name(), threads, interval, scenario, (unsigned long long)hash,
                     (unsigned long long)pinned);
    }
    skim_world_destroy(world);
}

Test(crowd_determinism, pinned_hash_for_1_2_and_3_threads)
{
    SKIP_UNLESS_BITWISE_KERNELS();
    expect_pinned("doorway", doorway_world(), doorway_hash, skim_crowd_def_default().avoidance_interval, PINNED_HASH);
}

Test(crowd_determinism, planning_every_step_pinned_hash_for_1_2_and_3_threads)
{
    SKIP_UNLESS_BITWISE_KERNELS();
    expect_pinned("doorway", doorway_world(), doorway_hash, 1, PINNED_EVERY_STEP_HASH);
}

/* The pinned state of walkers pressing into a field of agents that stand
   (no velocity, no target), which avoidance has nothing to steer: the
   standing agents are found by the walkers' searches and make no search
   of their own, and move only when pushed. */
#define PINNED_STANDING_HASH 0xf7e2a525720d6fc0ull
#define PINNED_STANDING_EVERY_STEP_HASH 0x7217f9eba9aa1166ull
enum { FIELD = 12, WALKERS = 16, STANDING_FRAMES = 240 };

static uint64_t standing_field_hash(const skim_world *world, int threads, uint32_t interval)
{
    omp_set_num_threads(threads);
    skim_crowd *crowd = goal_crowd_planning_every(FIELD * FIELD + 2 * WALKERS, interval);
    rng r = { 91 };
    for (int k = 0; k < FIELD * FIELD; ++k) {
        float x = 72.0f * ((float)(k % FIELD) - 0.5f * FIELD) + (float)rng_uniform(&r, -4, 4);
        float y = 72.0f * ((float)(k / FIELD) - 0.5f * FIELD) + (float)rng_uniform(&r, -4, 4);
        goal_agent(crowd, (skim_vec3){ x, y, AGENT_R + 1.0f });
    }
    for (int k = 0; k < WALKERS; ++k) {
        /* Across the field both ways, and one that stops in its middle. */
        float lane = 48.0f * ((float)k - 0.5f * WALKERS) + 24.0f;
        uint32_t east = goal_agent(crowd, (skim_vec3){ -520.0f, lane, AGENT_R + 1.0f });
        skim_crowd_set_velocity(crowd, east, (skim_vec3){ 160.0f + (float)k, 0, 0 });
        uint32_t north = goal_agent(crowd, (skim_vec3){ lane, -520.0f, AGENT_R + 1.0f });
        if (k == WALKERS / 2)
            skim_crowd_set_target(crowd, north, (skim_vec3){ lane, 0, 0 }, 150.0f, 2.0f);
        else
            skim_crowd_set_velocity(crowd, north, (skim_vec3){ 0, 140.0f - (float)k, 0 });
    }
    skim_vec3 before[FIELD * FIELD];
    memcpy(before, skim_crowd_positions(crowd), sizeof before);
    for (int frame = 0; frame < STANDING_FRAMES; ++frame)
        cr_assert_eq(skim_crowd_step(world, crowd, 1.0f / 60.0f), SKIM_OK, "%s", skim_last_error_message());
    /* The walkers walked into the field and pushed some of it: the
       scenario tests what it says. */
    const skim_vec3 *after = skim_crowd_positions(crowd);
    uint32_t pushed = 0, walked = 0;
    for (int k = 0; k < FIELD * FIELD; ++k)
        pushed += fabsf(after[k].x - before[k].x) + fabsf(after[k].y - before[k].y) > 1.0f;
    for (int k = 0; k < WALKERS; ++k)
        walked += (after[FIELD * FIELD + 2 * k].x > -480.0f) + (after[FIELD * FIELD + 2 * k + 1].y > -480.0f);
    cr_expect_gt(pushed, 0, "no standing agent was pushed");
    cr_expect_geq(walked, WALKERS, "only %u of %d walkers walked 40 units", walked, 2 * WALKERS);
    uint64_t hash = skim_crowd_hash(crowd);
    skim_crowd_destroy(crowd);
    return hash;
}

Test(crowd_determinism, standing_field_pinned_hash_for_1_2_and_3_threads)
{
    SKIP_UNLESS_BITWISE_KERNELS();
    expect_pinned("standing field", box_world(-1000, -1000, -32, 1000, 1000, 0), standing_field_hash,
                  skim_crowd_def_default().avoidance_interval, PINNED_STANDING_HASH);
}

Test(crowd_determinism, standing_field_planning_every_step_pinned_hash_for_1_2_and_3_threads)
{
    SKIP_UNLESS_BITWISE_KERNELS();
    expect_pinned("standing field", box_world(-1000, -1000, -32, 1000, 1000, 0), standing_field_hash, 1,
                  PINNED_STANDING_EVERY_STEP_HASH);
}
