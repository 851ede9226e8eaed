/* Every multi-threaded path of the library, run with 1, 2 and 4 OpenMP
   threads and compared: the BVH build (def.build_threads), skim_move_batch
   and skim_move_batch_contacts,
   concurrent skim_sweep on one world from many threads, and crowd steps.
   The API promises the same bits for any thread count (skim.h).

   A plain program, not a Criterion suite, on purpose: Criterion cannot
   start under ThreadSanitizer ("Could not initialize inheritable arena",
   a Criterion limitation), and this is the program scripts/tsan.sh runs
   under TSan with LLVM's libomp and its Archer tool. In the ordinary
   builds it runs as the test hardening_threads (plain and ASan+UBSan).

   Exit status 0 when every comparison holds, 1 otherwise (with what
   differed on stderr). SKIM_THREADS_SCALE=N multiplies the work (default
   1, small enough for TSan's 5-15x slowdown); SKIM_THREADS_RACE=1 runs a
   deliberate race instead (scripts/tsan.sh's negative control). */
#include <skim/skim.h>

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(condition, ...)                                      \
    do {                                                            \
        if (!(condition)) {                                         \
            fprintf(stderr, "threads: FAILED %s: ", #condition);    \
            fprintf(stderr, __VA_ARGS__);                           \
            fprintf(stderr, "\n");                                  \
            failures++;                                             \
        }                                                           \
    } while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return lo + (hi - lo) * (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static const int thread_counts[] = { 1, 2, 4 };
#define THREAD_RUNS (int)(sizeof thread_counts / sizeof thread_counts[0])

static skim_world *build(const skim_mesh *mesh, int threads)
{
    skim_world_def def = skim_world_def_default();
    def.build_threads = threads;
    skim_world *world = NULL;
    skim_status status = skim_world_create(mesh, &def, &world);
    EXPECT(status == SKIM_OK, "skim_world_create with %d threads: %s", threads, skim_last_error_message());
    return world;
}

static void check_build(const skim_mesh *mesh)
{
    skim_world_stats first = { 0 };
    for (int i = 0; i < THREAD_RUNS; ++i) {
        skim_world *world = build(mesh, thread_counts[i]);
        if (!world)
            return;
        skim_world_stats stats;
        skim_world_get_stats(world, &stats);
        if (i == 0)
            first = stats;
        EXPECT(stats.nodes == first.nodes && stats.leaves == first.leaves && stats.depth == first.depth &&
                   stats.sah_cost == first.sah_cost,
               "the BVH built with %d threads differs from 1 thread (%u vs %u nodes, SAH %.9g vs %.9g)",
               thread_counts[i], stats.nodes, first.nodes, stats.sah_cost, first.sah_cost);
        skim_world_destroy(world);
    }
}

static void check_batch(const skim_world *world, const skim_world_stats *stats, size_t count)
{
    skim_ellipsoid *shapes = malloc(count * sizeof *shapes);
    skim_vec3 *positions = malloc(count * sizeof *positions);
    skim_vec3 *displacements = malloc(count * sizeof *displacements);
    skim_move_result *first = malloc(count * sizeof *first);
    skim_move_result *results = malloc(count * sizeof *results);
    enum { PER_MOVER = 4 };
    skim_contact *contacts = malloc(2 * count * PER_MOVER * sizeof *contacts);
    uint32_t *counts = malloc(2 * count * sizeof *counts);
    if (!shapes || !positions || !displacements || !first || !results || !contacts || !counts) {
        EXPECT(0, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < count; ++i) {
        float r = (float)uniform(8, 24);
        shapes[i] = (skim_ellipsoid){ { r, r, (float)(r * uniform(1, 2)) }, { 0, 0, 0, 1 } };
        positions[i] = (skim_vec3){ (float)uniform(stats->bounds_min.x, stats->bounds_max.x),
                                    (float)uniform(stats->bounds_min.y, stats->bounds_max.y),
                                    (float)uniform(stats->bounds_min.z + 20, stats->bounds_max.z) };
        displacements[i] = (skim_vec3){ (float)uniform(-40, 40), (float)uniform(-40, 40), (float)uniform(-30, 5) };
    }
    skim_move_def def = skim_move_def_default();
    def.step_height = 18;
    def.snap_distance = 18;
    def.gravity = (skim_vec3){ 0, 0, -4 };
    for (int i = 0; i < THREAD_RUNS; ++i) {
        omp_set_num_threads(thread_counts[i]);
        skim_move_result *out = i == 0 ? first : results;
        skim_status status = skim_move_batch(world, count, shapes, positions, displacements, &def, out);
        EXPECT(status == SKIM_OK, "skim_move_batch with %d threads: %s", thread_counts[i], skim_last_error_message());
        if (i > 0)
            for (size_t k = 0; k < count; ++k)
                if (memcmp(&out[k].position, &first[k].position, sizeof out[k].position) != 0 ||
                    out[k].touched != first[k].touched || out[k].iterations != first[k].iterations) {
                    EXPECT(0, "skim_move_batch mover %zu differs between 1 and %d threads", k, thread_counts[i]);
                    break;
                }
        /* With contacts: the same results, and the same contacts as with 1 thread. */
        skim_contact *met = contacts + (i == 0 ? 0 : count * PER_MOVER);
        uint32_t *met_count = counts + (i == 0 ? 0 : count);
        status = skim_move_batch_contacts(world, count, shapes, positions, displacements, &def, results, met,
                                          PER_MOVER, met_count);
        EXPECT(status == SKIM_OK, "skim_move_batch_contacts with %d threads: %s", thread_counts[i],
               skim_last_error_message());
        EXPECT(memcmp(results, first, count * sizeof *results) == 0,
               "skim_move_batch_contacts' results differ from skim_move_batch's with %d threads", thread_counts[i]);
        if (i > 0)
            for (size_t k = 0; k < count; ++k) {
                const uint32_t kept = counts[k] < PER_MOVER ? counts[k] : PER_MOVER;
                if (met_count[k] != counts[k] ||
                    memcmp(met + k * PER_MOVER, contacts + k * PER_MOVER, kept * sizeof *met) != 0) {
                    EXPECT(0, "skim_move_batch_contacts mover %zu differs between 1 and %d threads", k,
                           thread_counts[i]);
                    break;
                }
            }
    }
done:
    free(contacts);
    free(counts);
    free(shapes);
    free(positions);
    free(displacements);
    free(first);
    free(results);
}

/* One world, many threads sweeping at once ("safe to query from many
   threads"), against the same sweeps made one at a time. */
static void check_concurrent_sweeps(const skim_world *world, const skim_world_stats *stats, int count)
{
    skim_hit *serial = malloc((size_t)count * sizeof *serial);
    skim_hit *parallel = malloc((size_t)count * sizeof *parallel);
    skim_vec3 *starts = malloc((size_t)count * sizeof *starts);
    skim_vec3 *deltas = malloc((size_t)count * sizeof *deltas);
    if (!serial || !parallel || !starts || !deltas) {
        EXPECT(0, "out of memory");
        goto done;
    }
    for (int i = 0; i < count; ++i) {
        starts[i] = (skim_vec3){ (float)uniform(stats->bounds_min.x, stats->bounds_max.x),
                                 (float)uniform(stats->bounds_min.y, stats->bounds_max.y),
                                 (float)uniform(stats->bounds_min.z, stats->bounds_max.z) };
        deltas[i] = (skim_vec3){ (float)uniform(-300, 300), (float)uniform(-300, 300), (float)uniform(-300, 300) };
    }
    const skim_ellipsoid shape = { { 16, 16, 28 }, { 0, 0, 0.38268343f, 0.92387953f } };
    for (int i = 0; i < count; ++i)
        skim_sweep(world, &shape, starts[i], deltas[i], NULL, &serial[i]);
    int bad = 0;
    omp_set_num_threads(4);
#pragma omp parallel for schedule(dynamic, 7) reduction(+ : bad)
    for (int i = 0; i < count; ++i) {
        skim_status status = skim_sweep(world, &shape, starts[i], deltas[i], NULL, &parallel[i]);
        if (status != SKIM_OK)
            bad++;
    }
    EXPECT(bad == 0, "%d concurrent sweeps failed", bad);
    for (int i = 0; i < count; ++i)
        if (serial[i].hit != parallel[i].hit || memcmp(&serial[i].t, &parallel[i].t, sizeof serial[i].t) != 0 ||
            serial[i].triangle != parallel[i].triangle) {
            EXPECT(0, "sweep %d differs when made from 4 threads at once", i);
            break;
        }
done:
    free(serial);
    free(parallel);
    free(starts);
    free(deltas);
}

static uint64_t run_crowd(const skim_world *world, const skim_world_stats *stats, uint32_t agents, int frames,
                          int threads)
{
    omp_set_num_threads(threads);
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = agents;
    skim_crowd *crowd = NULL;
    if (skim_crowd_create(&def, &crowd) != SKIM_OK) {
        EXPECT(0, "skim_crowd_create: %s", skim_last_error_message());
        return 0;
    }
    uint64_t saved = rng_state;
    rng_state = 12345;
    /* Agents packed into the middle of the scene so they meet. */
    double cx = 0.5 * (stats->bounds_min.x + stats->bounds_max.x), cy = 0.5 * (stats->bounds_min.y + stats->bounds_max.y);
    for (uint32_t i = 0; i < agents; ++i) {
        skim_agent_def agent = skim_agent_def_default();
        agent.position = (skim_vec3){ (float)(cx + uniform(-600, 600)), (float)(cy + uniform(-600, 600)),
                                      (float)uniform(20, 120) };
        uint32_t id;
        if (skim_crowd_add(crowd, &agent, &id) != SKIM_OK)
            continue;
        skim_crowd_set_velocity(crowd, id, (skim_vec3){ (float)uniform(-320, 320), (float)uniform(-320, 320), 0 });
    }
    rng_state = saved;
    for (int f = 0; f < frames; ++f) {
        skim_status status = skim_crowd_step(world, crowd, 1.0f / 60.0f);
        EXPECT(status == SKIM_OK, "skim_crowd_step frame %d, %d threads: %s", f, threads, skim_last_error_message());
        if (f % 10 == 5)
            for (uint32_t id = 0; id < agents; id += 7) {
                bool jumped;
                skim_crowd_jump(crowd, id, 40, &jumped);
            }
    }
    uint64_t hash = skim_crowd_hash(crowd);
    skim_crowd_destroy(crowd);
    return hash;
}

/* SKIM_THREADS_RACE=1: a deliberate data race (an unsynchronised
   counter in an OpenMP loop), the negative control that shows the TSan
   set-up of scripts/tsan.sh does see races in OpenMP code. */
static int deliberate_race(void)
{
    volatile int counter = 0;
    omp_set_num_threads(2);
#pragma omp parallel for
    for (int i = 0; i < 1000; ++i)
        counter = counter + 1;
    return counter;
}

int main(void)
{
    const char *race = getenv("SKIM_THREADS_RACE");
    if (race && *race == '1') {
        printf("threads: deliberate race, counter %d\n", deliberate_race());
        return 0;
    }
    const char *scale_text = getenv("SKIM_THREADS_SCALE");
    int scale = scale_text ? atoi(scale_text) : 1;
    if (scale < 1)
        scale = 1;
    skim_mesh_data scene;
    if (skim_scene_default(&scene) != SKIM_OK) {
        fprintf(stderr, "threads: no default scene: %s\n", skim_last_error_message());
        return 1;
    }
    skim_mesh mesh = skim_mesh_data_view(&scene);
    check_build(&mesh);
    skim_world *world = build(&mesh, 0);
    if (!world)
        return 1;
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    check_batch(world, &stats, 600 * (size_t)scale);
    check_concurrent_sweeps(world, &stats, 400 * scale);
    uint64_t first = 0;
    for (int i = 0; i < THREAD_RUNS; ++i) {
        uint64_t hash = run_crowd(world, &stats, 150 * (uint32_t)scale, 12, thread_counts[i]);
        if (i == 0)
            first = hash;
        EXPECT(hash == first, "crowd hash with %d threads %016llx, with 1 thread %016llx", thread_counts[i],
               (unsigned long long)hash, (unsigned long long)first);
    }
    skim_world_destroy(world);
    skim_mesh_data_free(&scene);
    if (failures) {
        fprintf(stderr, "threads: %d comparison(s) failed\n", failures);
        return 1;
    }
    printf("threads: BVH build, move batch (with contacts), concurrent sweeps and crowd steps agree for 1, 2 "
           "and 4 threads\n");
    return 0;
}
