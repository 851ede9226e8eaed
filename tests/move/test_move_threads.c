/* The thread count and wait policy of skim_move_def: a batch and a crowd
   step give bitwise the same results for def.threads 1, 2 and 0 (OpenMP's
   default) and for either wait policy, and out-of-range values are refused. */
#include <skim/skim.h>

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

enum { MOVERS = 2000, FRAMES = 20, AGENTS = 300, STEPS = 30 };

static skim_world *default_world(void)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
    skim_mesh_data_free(&data);
    return world;
}

/* Movers on a grid over the open half walking in turning directions: the
   final positions and flags of every mover, hashed (FNV-1a over the bits). */
static uint64_t batch_hash(const skim_world *world, int threads, skim_wait_policy wait)
{
    skim_ellipsoid *shapes = malloc(MOVERS * sizeof *shapes);
    skim_vec3 *positions = malloc(MOVERS * sizeof *positions);
    skim_vec3 *displacements = malloc(MOVERS * sizeof *displacements);
    skim_move_result *results = malloc(MOVERS * sizeof *results);
    cr_assert(shapes && positions && displacements && results);
    for (uint32_t i = 0; i < MOVERS; ++i) {
        shapes[i] = (skim_ellipsoid){ { 16, 16, 16 }, { 0, 0, 0, 1 } };
        positions[i] = (skim_vec3){ -1900.0f + 40.0f * (float)(i % 90), -1700.0f + 40.0f * (float)(i / 90), 20 };
    }
    skim_move_def def = skim_move_def_default();
    def.step_height = 18;
    def.snap_distance = 18;
    def.gravity = (skim_vec3){ 0, 0, -4 };
    def.threads = threads;
    def.wait = wait;
    uint64_t hash = 1469598103934665603ull;
    for (int frame = 0; frame < FRAMES; ++frame) {
        for (uint32_t i = 0; i < MOVERS; ++i) {
            float turn = (float)((i * 7 + (uint32_t)frame / 5) % 8) * 0.785398f;
            displacements[i] = (skim_vec3){ 5.0f * __builtin_cosf(turn), 5.0f * __builtin_sinf(turn), 0 };
        }
        cr_assert_eq(skim_move_batch(world, MOVERS, shapes, positions, displacements, &def, results), SKIM_OK,
                     "%s", skim_last_error_message());
        for (uint32_t i = 0; i < MOVERS; ++i) {
            positions[i] = results[i].position;
            const unsigned char *bytes = (const unsigned char *)&results[i].position;
            for (size_t b = 0; b < sizeof results[i].position; ++b)
                hash = (hash ^ bytes[b]) * 1099511628211ull;
            hash = (hash ^ results[i].touched) * 1099511628211ull;
        }
    }
    free(shapes);
    free(positions);
    free(displacements);
    free(results);
    return hash;
}

static uint64_t crowd_run_hash(const skim_world *world, int threads, skim_wait_policy wait)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = AGENTS;
    def.move.threads = threads;
    def.move.wait = wait;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    for (uint32_t i = 0; i < AGENTS; ++i) {
        skim_agent_def agent = skim_agent_def_default();
        agent.position = (skim_vec3){ -800.0f + 36.0f * (float)(i % 20), -1000.0f + 36.0f * (float)(i / 20), 40 };
        uint32_t id;
        cr_assert_eq(skim_crowd_add(crowd, &agent, &id), SKIM_OK);
        /* Half walk toward the middle of the group, so agents meet. */
        skim_vec3 velocity = { (i % 2 ? 1.0f : -1.0f) * 200.0f, (float)(i % 3) * 60.0f - 60.0f, 0 };
        cr_assert_eq(skim_crowd_set_velocity(crowd, id, velocity), SKIM_OK);
    }
    for (int step = 0; step < STEPS; ++step)
        cr_assert_eq(skim_crowd_step(world, crowd, 1.0f / 60), SKIM_OK, "%s", skim_last_error_message());
    uint64_t hash = skim_crowd_hash(crowd);
    skim_crowd_destroy(crowd);
    return hash;
}

Test(move_threads, batch_results_do_not_depend_on_threads_or_wait_policy, .timeout = 120)
{
    skim_world *world = default_world();
    const uint64_t one = batch_hash(world, 1, SKIM_WAIT_SPIN_BRIEFLY);
    cr_expect_eq(batch_hash(world, 2, SKIM_WAIT_SPIN_BRIEFLY), one);
    cr_expect_eq(batch_hash(world, 2, SKIM_WAIT_PASSIVE), one);
    cr_expect_eq(batch_hash(world, 0, SKIM_WAIT_PASSIVE), one);
    skim_world_destroy(world);
}

Test(move_threads, crowd_steps_do_not_depend_on_threads_or_wait_policy, .timeout = 120)
{
    skim_world *world = default_world();
    const uint64_t one = crowd_run_hash(world, 1, SKIM_WAIT_SPIN_BRIEFLY);
    cr_expect_eq(crowd_run_hash(world, 2, SKIM_WAIT_SPIN_BRIEFLY), one);
    cr_expect_eq(crowd_run_hash(world, 2, SKIM_WAIT_PASSIVE), one);
    cr_expect_eq(crowd_run_hash(world, 0, SKIM_WAIT_PASSIVE), one);
    skim_world_destroy(world);
}

Test(move_threads, out_of_range_thread_counts_and_policies_are_refused)
{
    skim_world *world = default_world();
    const skim_ellipsoid sphere = { { 16, 16, 16 }, { 0, 0, 0, 1 } };
    const skim_vec3 position = { 0, 0, 40 }, displacement = { 1, 0, 0 };
    skim_move_result result;
    skim_move_def def = skim_move_def_default();
    def.threads = -1;
    cr_expect_eq(skim_move_batch(world, 1, &sphere, &position, &displacement, &def, &result),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "threads") != NULL, "%s", skim_last_error_message());
    def.threads = SKIM_THREADS_MAX + 1;
    cr_expect_eq(skim_move_batch(world, 1, &sphere, &position, &displacement, &def, &result),
                 SKIM_ERROR_INVALID_ARGUMENT);
    def.threads = SKIM_THREADS_MAX;
    cr_expect_eq(skim_move_batch(world, 1, &sphere, &position, &displacement, &def, &result), SKIM_OK,
                 "%s", skim_last_error_message());
    def = skim_move_def_default();
    def.wait = (skim_wait_policy)7;
    cr_expect_eq(skim_move(world, &sphere, position, displacement, &def, &result), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "wait") != NULL, "%s", skim_last_error_message());
    skim_world_destroy(world);
}
