/* skim_sweep alone, for profilers and for wall-clock medians on a shared
   machine: the queries of bench_bvh (spheres of radius 16 starting 1..4
   radii from a random triangle, displacements up to 32 radii, seed
   0x5eed0001) on one scene, run `rounds` times; prints one JSON line with
   the median and best sweeps/s over the rounds. Nothing else runs between
   the world's build and the sweeps, so under
   `valgrind --tool=callgrind --toggle-collect=skim_sweep` the collected
   instructions divided by rounds * queries are the instructions per sweep.

   Usage: bench_sweep_path [--scene default|oa_dm1|oa_dm4_hull|terrain]
                           [--queries N] [--rounds R] */
#include "bench_workload.h"
#include "../bench_usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *scene = "oa_dm1";
    int queries = 20000, rounds = 9;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 < argc && strcmp(argv[i], "--scene") == 0)
            scene = argv[i + 1];
        else if (i + 1 < argc && strcmp(argv[i], "--queries") == 0)
            queries = atoi(argv[i + 1]);
        else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0)
            rounds = atoi(argv[i + 1]);
        else {
            return bench_usage("bench_sweep_path", argv[i],
                               "usage: bench_sweep_path [--scene default|oa_dm1|oa_dm4_hull|terrain] [--queries N]\n"
                               "                        [--rounds R]\n"
                               "  skim_sweep alone on bench_bvh's queries (default oa_dm1, 20000 queries, 9 rounds);\n"
                               "  prints one JSON line with the median and best sweeps/s.\n");
        }
    }
    if (queries < 1 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "bench_sweep_path: bad --queries or --rounds\n");
        return 2;
    }
    bench_scene loaded;
    if (!bench_scene_load(scene, false, &loaded)) {
        printf("{\"bench\":\"sweep_path\",\"scene\":\"%s\",\"skipped\":\"not found\"}\n", scene);
        return 0;
    }
    skim_world *world = NULL;
    if (skim_world_create(&loaded.mesh, NULL, &world) != SKIM_OK) {
        fprintf(stderr, "bench_sweep_path: %s\n", skim_last_error_message());
        return 1;
    }
    scene_query *q = bench_sweep_queries(&loaded.mesh, world, queries);
    double *rate = malloc((size_t)rounds * sizeof *rate);
    if (!q || !rate)
        return 1;
    uint64_t hits = 0;
    for (int r = 0; r < rounds; ++r) {
        skim_hit hit;
        hits = 0;
        double started = bench_now();
        for (int i = 0; i < queries; ++i) {
            skim_sweep(world, &q[i].shape, q[i].start, q[i].delta, &q[i].query, &hit);
            hits += hit.hit;
        }
        rate[r] = queries / (bench_now() - started);
    }
    double median_rate = bench_median(rate, rounds); /* sorts rate */
    printf("{\"bench\":\"sweep_path\",\"scene\":\"%s\",\"kernels\":\"%s\",\"queries\":%d,\"rounds\":%d,"
           "\"hit_fraction\":%.3f,\"sweeps_per_s_median\":%.0f,\"sweeps_per_s_best\":%.0f}\n",
           scene, skim_isa_name(), queries, rounds, (double)hits / queries, median_rate,
           rate[rounds - 1]);
    free(rate);
    free(q);
    skim_world_destroy(world);
    bench_scene_free(&loaded);
    return 0;
}
