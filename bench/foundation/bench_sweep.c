/* Sweeps per second on the built-in default scene: the brute-force world
   (every triangle tested: the oracle) against the BVH world, in one run, with
   the kernel set chosen at start-up (SKIM_ISA to force one).

   Queries: player-sized spheres (radius 16) starting near surfaces (a random
   point in the scene pushed to 1..4 radii above the surface below it) and
   displacements up to 32 radii in random directions, as a server's movers
   produce them. Output: JSON lines on stdout; with --human a readable summary
   on stdout instead. */
#include "../bench_usage.h"
#include <skim/skim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static double uniform(double lo, double hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return lo + (hi - lo) * (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct query { skim_vec3 start, delta; } query;

/* Starts near surfaces: drop a probe onto whatever is below a random point
   and start 1..4 radii above where it lands. */
static void make_queries(const skim_world *world, const skim_world_stats *stats, float radius,
                         query *queries, int count)
{
    skim_ellipsoid probe = { { radius, radius, radius }, { 0, 0, 0, 1 } };
    for (int i = 0; i < count; ++i) {
        skim_vec3 top = { (float)uniform(stats->bounds_min.x, stats->bounds_max.x),
                          (float)uniform(stats->bounds_min.y, stats->bounds_max.y),
                          stats->bounds_max.z + 2 * radius };
        skim_vec3 down = { 0, 0, stats->bounds_min.z - stats->bounds_max.z - 4 * radius };
        skim_hit hit;
        skim_vec3 start = top;
        if (skim_sweep(world, &probe, top, down, NULL, &hit) == SKIM_OK && hit.hit)
            start = (skim_vec3){ top.x, top.y,
                                 top.z + hit.t * down.z + (float)uniform(1.0, 4.0) * radius };
        double length = uniform(0.0, 32.0) * radius;
        double z = uniform(-1, 1), phi = uniform(0, 2 * M_PI), s = sqrt(1 - z * z);
        queries[i].start = start;
        queries[i].delta = (skim_vec3){ (float)(length * s * cos(phi)),
                                        (float)(length * s * sin(phi)), (float)(length * z) };
    }
}

static double run_sweeps(const skim_world *world, float radius, const query *queries, int count,
                         int *hits_out)
{
    skim_ellipsoid shape = { { radius, radius, radius }, { 0, 0, 0, 1 } };
    int hits = 0;
    double started = seconds_now();
    for (int i = 0; i < count; ++i) {
        skim_hit hit;
        if (skim_sweep(world, &shape, queries[i].start, queries[i].delta, NULL, &hit) != SKIM_OK) {
            fprintf(stderr, "bench_sweep: %s\n", skim_last_error_message());
            exit(1);
        }
        hits += hit.hit;
    }
    *hits_out = hits;
    return seconds_now() - started;
}

int main(int argc, char **argv)
{
    bool human = argc > 1 && strcmp(argv[1], "--human") == 0;
    if (argc > 2 || (argc == 2 && !human)) {
        return bench_usage("bench_sweep", argv[argc > 2 && human ? 2 : 1],
                           "usage: bench_sweep [--human]\n"
                           "  Sweeps spheres of radius 16 through the default scene, brute force and BVH,\n"
                           "  and prints JSON lines (--human: a readable summary instead).\n");
    }
    int count = 20000;
    const float radius = 16.0f;
    if (skim_isa_status() != SKIM_OK) {
        fprintf(stderr, "bench_sweep: %s\n", skim_last_error_message());
        return 2;
    }
    skim_mesh_data scene;
    if (skim_scene_default(&scene) != SKIM_OK)
        return 1;
    skim_mesh mesh = skim_mesh_data_view(&scene);
    skim_world *brute = NULL, *bvh = NULL;
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    if (skim_world_create(&mesh, &def, &brute) != SKIM_OK ||
        skim_world_create(&mesh, NULL, &bvh) != SKIM_OK) {
        fprintf(stderr, "bench_sweep: %s\n", skim_last_error_message());
        return 1;
    }
    skim_world_stats stats;
    skim_world_get_stats(bvh, &stats);
    query *queries = malloc(sizeof *queries * (size_t)count);
    make_queries(bvh, &stats, radius, queries, count);

    int brute_count = count / 10; /* brute force is slow: fewer, same queries */
    int brute_hits, bvh_hits;
    double brute_seconds = run_sweeps(brute, radius, queries, brute_count, &brute_hits);
    double bvh_seconds = run_sweeps(bvh, radius, queries, count, &bvh_hits);
    double brute_rate = brute_count / brute_seconds, bvh_rate = count / bvh_seconds;
    if (human) {
        printf("skim sweep benchmark: default scene, %u triangles, sphere radius %g, kernel set %s\n",
               stats.triangles, radius, skim_isa_name());
        printf("  brute force: %6d sweeps in %.3f s = %10.0f sweeps/s (%d hits)\n", brute_count,
               brute_seconds, brute_rate, brute_hits);
        printf("  BVH:         %6d sweeps in %.3f s = %10.0f sweeps/s (%d hits)\n", count,
               bvh_seconds, bvh_rate, bvh_hits);
        printf("  BVH / brute force: %.1fx\n", bvh_rate / brute_rate);
    } else {
        printf("{\"bench\":\"sweep\",\"scene\":\"default\",\"triangles\":%u,\"radius\":%g,"
               "\"isa\":\"%s\",\"accelerator\":\"brute_force\",\"sweeps\":%d,\"hits\":%d,"
               "\"seconds\":%.6f,\"sweeps_per_second\":%.0f}\n",
               stats.triangles, radius, skim_isa_name(), brute_count, brute_hits, brute_seconds,
               brute_rate);
        printf("{\"bench\":\"sweep\",\"scene\":\"default\",\"triangles\":%u,\"radius\":%g,"
               "\"isa\":\"%s\",\"accelerator\":\"bvh\",\"sweeps\":%d,\"hits\":%d,"
               "\"seconds\":%.6f,\"sweeps_per_second\":%.0f,\"speedup_vs_brute_force\":%.2f}\n",
               stats.triangles, radius, skim_isa_name(), count, bvh_hits, bvh_seconds, bvh_rate,
               bvh_rate / brute_rate);
    }
    free(queries);
    skim_world_destroy(brute);
    skim_world_destroy(bvh);
    skim_mesh_data_free(&scene);
    return 0;
}
