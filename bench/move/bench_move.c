/* Collide-and-slide throughput: the wandering crowd of
   move_workload.h on the default scene and on the real levels, mover-steps
   per second on 1 and 2 threads, and the thread scaling. JSON lines on
   stdout.

   Each crowd line carries the best and the median of the timed runs, and
   what else ran meanwhile: "others_cpu" is the cores other processes kept
   busy on average ("steal" those the hypervisor took), so a 2-thread
   number says whether the second core was free. The median rate per CPU
   second (this process's CPU time in the batch calls) is what a core does
   when it runs the crowd, whoever else wanted it: at 1 thread the figure
   to read on a shared machine (at 2, OpenMP's waiting spins count too). And "state_hash", an
   FNV-1a hash of every result's position and contact flags over the whole
   run: an optimisation that claims to change no result must leave it alone
   (it is the same for any thread count and any kernel set but the
   reference; a run that ends in another state fails the bench). The
   scaling line gives the ratio of the best runs, of the medians, and the
   median of the ratios of runs made one after the other
   ("paired_speedup", the steadiest on a noisy machine).

   The crowd moves through skim_move_batch_cached, one cache per run (each
   mover keeps the world's leaves near it from frame to frame), as a game
   server steps its agents; --no-cache moves it through skim_move_batch
   (the same state hash). Each line also gives the kernel calls, the
   gathers and the tree walks per move (the cache's counts; 0 without).

   Usage: bench_move [--movers N] [--frames N] [--scene default|oa_dm1|oa_dm4_hull|terrain|all]
                     [--threads 1,2] [--reps N] [--scenes-dir DIR] [--no-cache]
   --reps: timed runs per thread count, the counts taking turns (default 3;
   1 for callgrind, e.g.
   valgrind --tool=callgrind --toggle-collect='batch_run._omp_fn.0'
   with SKIM_ISA=avx2). SKIM_SCENES_DIR (or --scenes-dir) points at
   the real levels; levels that are not found are reported as skipped. */
#include "move_workload.h"
#include "move/move_internal.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct run_stats {
    double seconds, cpu_seconds, others, steal;
    uint64_t hash;
    double on_floor; /* share of mover-steps that ended on a floor */
    double kernel_calls, gathers, walks; /* per move, from the cache */
} run_stats;

static bool use_cache = true;

/* CPU time of the process, or of the calling thread alone for a run on
   one thread: the thread counts take turns, and the idle OpenMP worker of
   the run before spins for a while (GOMP_SPINCOUNT) before it sleeps,
   which is no part of a one-thread batch. */
static double cpu_now(bool whole_process)
{
    struct timespec t;
    clock_gettime(whole_process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs the crowd from its spawn points through skim_move_batch. */
static run_stats crowd_run(move_crowd *c, const skim_world *world, int frames, int threads)
{
    omp_set_num_threads(threads);
    move_crowd_reset(c);
    const skim_move_def def = move_crowd_def();
    run_stats stats = { 0 };
    skim_move_cache *cache = NULL;
    if (use_cache && skim_move_cache_create(&cache) != SKIM_OK) {
        fprintf(stderr, "bench_move: %s\n", skim_last_error_message());
        exit(1);
    }
    move_cpu_sample before, after;
    move_cpu_sample_now(&before);
    for (int frame = 0; frame < frames; ++frame) {
        move_crowd_steer(c, frame);
        double t0 = move_now(), c0 = cpu_now(threads > 1);
        skim_status status =
            cache ? skim_move_batch_cached(world, cache, (size_t)c->count, c->shapes, c->positions,
                                           c->displacements, &def, c->results)
                  : skim_move_batch(world, (size_t)c->count, c->shapes, c->positions,
                                    c->displacements, &def, c->results);
        stats.seconds += move_now() - t0;
        stats.cpu_seconds += cpu_now(threads > 1) - c0;
        if (status != SKIM_OK) {
            fprintf(stderr, "bench_move: %s\n", skim_last_error_message());
            exit(1);
        }
        move_crowd_advance(c);
    }
    move_cpu_sample_now(&after);
    move_cpu_others(&before, &after, &stats.others, &stats.steal);
    stats.hash = c->hash;
    if (cache && cache->moves) {
        stats.kernel_calls = (double)cache->kernel_calls / (double)cache->moves;
        stats.gathers = (double)cache->gathers / (double)cache->moves;
        stats.walks = (double)cache->walks / (double)cache->moves;
    }
    skim_move_cache_destroy(cache);
    stats.on_floor = (double)c->on_floor / ((double)c->count * frames);
    return stats;
}

static int by_seconds(const void *a, const void *b)
{
    double x = ((const run_stats *)a)->seconds, y = ((const run_stats *)b)->seconds;
    return (x > y) - (x < y);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int reps = 3, exit_code = 0;
    move_bench_options options = move_bench_defaults();
    int thread_counts[8] = { 1, 2 }, thread_count_n = 2;
    for (int i = 1; i < argc; ++i) {
        if (move_bench_option(argc, argv, &i, &options))
            continue;
        if (!strcmp(argv[i], "--no-cache"))
            use_cache = false;
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            thread_count_n = 0;
            for (char *t = strtok(argv[++i], ","); t && thread_count_n < 8; t = strtok(NULL, ","))
                thread_counts[thread_count_n++] = atoi(t);
        } else {
            fprintf(stderr, "usage: bench_move [--movers N] [--frames N] [--scene NAME|all] "
                            "[--threads 1,2] [--reps N] [--scenes-dir DIR] [--no-cache]\n");
            return 2;
        }
    }
    const int movers = options.movers, frames = options.frames;
    if (movers < 1 || frames < 1 || reps < 1 || reps > 99 || thread_count_n < 1)
        return 2;
    for (int s = 0; s < MOVE_SCENES; ++s) {
        const char *name = move_scene_names[s];
        move_scene scene;
        move_crowd c;
        if (!move_bench_open("move_crowd", s, &options, &scene, &c))
            continue;
        /* The thread counts take turns, rep by rep (1, 2, 1, 2, ...), so
           a slow spell of the shared machine falls on both, and each
           rep's ratio compares runs made seconds apart: the scaling line
           gives the median of those paired ratios beside the ratio of the
           medians. */
        static run_stats runs[8][99];
        for (int rep = 0; rep < reps; ++rep)
            for (int k = 0; k < thread_count_n; ++k)
                runs[k][rep] = crowd_run(&c, scene.world, frames, thread_counts[k]);
        /* Every run of a scene must end in the same state, whatever its
           thread count: a bench that saw otherwise says so and
           fails. */
        for (int k = 0; k < thread_count_n; ++k)
            for (int rep = 0; rep < reps; ++rep)
                if (runs[k][rep].hash != runs[0][0].hash) {
                    fprintf(stderr, "bench_move: %s: %d threads, run %d: state hash %016llx, not %016llx\n",
                            name, thread_counts[k], rep + 1, (unsigned long long)runs[k][rep].hash,
                            (unsigned long long)runs[0][0].hash);
                    exit_code = 1;
                }
        double rate[8] = { 0 }, median_rate[8] = { 0 };
        const double steps = (double)movers * frames;
        for (int k = 0; k < thread_count_n; ++k) {
            run_stats sorted[99];
            memcpy(sorted, runs[k], (size_t)reps * sizeof sorted[0]);
            /* the median (the best too: the machine is shared) */
            qsort(sorted, (size_t)reps, sizeof sorted[0], by_seconds);
            const run_stats median = sorted[reps / 2];
            double others = 0, steal = 0, cpu[99];
            for (int rep = 0; rep < reps; ++rep) {
                others += runs[k][rep].others / reps;
                steal += runs[k][rep].steal / reps;
                cpu[rep] = runs[k][rep].cpu_seconds;
            }
            qsort(cpu, (size_t)reps, sizeof cpu[0], by_value);
            rate[k] = steps / sorted[0].seconds;
            median_rate[k] = steps / median.seconds;
            printf("{\"bench\":\"move_crowd\",\"scene\":\"%s\",\"triangles\":%u,\"isa\":\"%s\","
                   "\"threads\":%d,\"movers\":%d,\"frames\":%d,\"reps\":%d,\"seconds\":%.4f,"
                   "\"mover_steps_per_second\":%.0f,\"median_mover_steps_per_second\":%.0f,"
                   "\"per_thread\":%.0f,\"median_mover_steps_per_cpu_second\":%.0f,"
                   "\"others_cpu\":%.2f,\"steal\":%.2f,\"on_floor\":%.3f,\"cache\":%s,"
                   "\"kernel_calls_per_move\":%.3f,\"gathers_per_move\":%.3f,\"walks_per_move\":%.3f,"
                   "\"state_hash\":\"%016llx\"}\n",
                   name, scene.stats.triangles, skim_isa_name(), thread_counts[k], movers, frames,
                   reps, sorted[0].seconds, rate[k], median_rate[k], rate[k] / thread_counts[k],
                   steps / cpu[reps / 2], others, steal, median.on_floor,
                   use_cache ? "true" : "false", median.kernel_calls, median.gathers, median.walks,
                   (unsigned long long)median.hash);
            fflush(stdout);
        }
        for (int k = 1; k < thread_count_n; ++k) {
            double paired[99];
            for (int rep = 0; rep < reps; ++rep)
                paired[rep] = runs[0][rep].seconds / runs[k][rep].seconds;
            qsort(paired, (size_t)reps, sizeof paired[0], by_value);
            printf("{\"bench\":\"move_scaling\",\"scene\":\"%s\",\"threads\":%d,\"over_threads\":%d,"
                   "\"speedup\":%.3f,\"median_speedup\":%.3f,\"paired_speedup\":%.3f}\n",
                   name, thread_counts[k], thread_counts[0], rate[k] / rate[0],
                   median_rate[k] / median_rate[0], paired[reps / 2]);
        }
        move_crowd_free(&c);
        move_scene_free(&scene);
    }
    return exit_code;
}
