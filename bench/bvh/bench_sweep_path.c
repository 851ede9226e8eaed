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
    bench_sweep_options options = bench_sweep_defaults();
    for (int i = 1; i < argc; ++i)
        if (!bench_sweep_option(argc, argv, &i, &options))
            return bench_usage("bench_sweep_path", argv[i],
                               "usage: bench_sweep_path [--scene default|oa_dm1|oa_dm4_hull|terrain] [--queries N]\n"
                               "                        [--rounds R]\n"
                               "  skim_sweep alone on bench_bvh's queries (default oa_dm1, 20000 queries, 9 rounds);\n"
                               "  prints one JSON line with the median and best sweeps/s.\n");
    if (!bench_sweep_options_valid("bench_sweep_path", &options))
        return 2;
    const char *scene = options.scene;
    const int queries = options.queries, rounds = options.rounds;
    bench_scene loaded;
    skim_world *world;
    const int opened = bench_scene_open("sweep_path", scene, &loaded, &world);
    if (opened <= 0)
        return opened < 0;
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
