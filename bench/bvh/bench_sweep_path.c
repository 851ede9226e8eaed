/* skim_sweep alone, for profilers and for wall-clock medians on a shared
   machine: the queries of bench_bvh (spheres of radius 16 starting 1..4
   radii from a random triangle, displacements up to 32 radii, seed
   0x5eed0001) on one scene, run `rounds` times; prints one JSON line with
   the median and best sweeps/s over the rounds. Nothing else runs between
   the world's build and the sweeps, so under
   `valgrind --tool=callgrind --toggle-collect=skim_sweep` the collected
   instructions divided by rounds * queries are the instructions per sweep.

   Usage: bench_sweep_path [--scene default|oa_dm1|oa_dm4_hull]
                           [--queries N] [--rounds R] */
#include "bvh_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *scene = "oa_dm1";
    int queries = 20000, rounds = 9;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--scene") == 0)
            scene = argv[i + 1];
        else if (strcmp(argv[i], "--queries") == 0)
            queries = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--rounds") == 0)
            rounds = atoi(argv[i + 1]);
    }
    if (queries < 1 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "bench_sweep_path: bad --queries or --rounds\n");
        return 2;
    }
    skim_mesh_data data;
    if (strcmp(scene, "default") == 0) {
        if (skim_scene_default(&data) != SKIM_OK)
            return 1;
    } else {
        if (!getenv("SKIM_SCENES_DIR"))
            setenv("SKIM_SCENES_DIR", SKIM_DEFAULT_SCENES_DIR, 0);
        char file[256], path[1024];
        snprintf(file, sizeof file, "%s.obj", scene);
        if (!scene_path(file, path, sizeof path) || !scene_read_obj(path, &data)) {
            printf("{\"bench\":\"sweep_path\",\"scene\":\"%s\",\"skipped\":\"not found\"}\n", scene);
            return 0;
        }
    }
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *world = NULL;
    if (skim_world_create(&mesh, NULL, &world) != SKIM_OK) {
        fprintf(stderr, "bench_sweep_path: %s\n", skim_last_error_message());
        return 1;
    }
    float level = scene_level_size(world);
    scene_query_mix mix = { .radius = 16.0f, .max_radii = 32.0f };
    scene_query *q = malloc((size_t)queries * sizeof *q);
    double *rate = malloc((size_t)rounds * sizeof *rate);
    if (!q || !rate)
        return 1;
    scene_rng rng = { 0x5eed0001 };
    for (int i = 0; i < queries; ++i)
        q[i] = scene_make_query(&rng, &mesh, level, &mix);
    uint64_t hits = 0;
    for (int r = 0; r < rounds; ++r) {
        skim_hit hit;
        hits = 0;
        double started = now();
        for (int i = 0; i < queries; ++i) {
            skim_sweep(world, &q[i].shape, q[i].start, q[i].delta, &q[i].query, &hit);
            hits += hit.hit;
        }
        rate[r] = queries / (now() - started);
    }
    qsort(rate, (size_t)rounds, sizeof *rate, compare_doubles);
    printf("{\"bench\":\"sweep_path\",\"scene\":\"%s\",\"kernels\":\"%s\",\"queries\":%d,\"rounds\":%d,"
           "\"hit_fraction\":%.3f,\"sweeps_per_s_median\":%.0f,\"sweeps_per_s_best\":%.0f}\n",
           scene, skim_isa_name(), queries, rounds, (double)hits / queries, rate[rounds / 2],
           rate[rounds - 1]);
    free(rate);
    free(q);
    skim_world_destroy(world);
    skim_mesh_data_free(&data);
    return 0;
}
