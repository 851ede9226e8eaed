/* Agents with goals and avoidance give the same bits for any thread count
   and kernel set: a crowd walking paths through a doorway in both
   directions ends with a pinned hash on 1, 2 and 3 threads. meson runs
   this once per kernel set (SKIM_ISA); a set the CPU lacks is skipped. */
#include "crowd_scenarios.h"

#include <omp.h>
#include <string.h>

/* The pinned state after FRAMES frames. */
#define PINNED_HASH 0xe1e88e2e2aefb56aull
enum { SIDE = 60, FRAMES = 480 };

TestSuite(crowd_determinism, .timeout = 240);

static uint64_t doorway_hash(const skim_world *world, int threads)
{
    omp_set_num_threads(threads);
    skim_crowd *crowd = goal_crowd(2 * SIDE + 2);
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

Test(crowd_determinism, pinned_hash_for_1_2_and_3_threads)
{
    SKIP_UNLESS_BITWISE_KERNELS();
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -1000, -1000, -32, 1000, 1000, 0);
    soup_add_box(&soup, -8, -1000, 0, 8, -50, 128);
    soup_add_box(&soup, -8, 50, 0, 8, 1000, 128);
    skim_world *world = soup_world(&soup);
    for (int threads = 1; threads <= 3; ++threads) {
        uint64_t hash = doorway_hash(world, threads);
        printf("%s, %d threads: %016llx\n", skim_isa_name(), threads, (unsigned long long)hash);
        cr_expect_eq(hash, PINNED_HASH, "%s, %d threads: hash %016llx, pinned %016llx", skim_isa_name(), threads,
                     (unsigned long long)hash, (unsigned long long)PINNED_HASH);
    }
    skim_world_destroy(world);
}
