/* The BVH benchmarks' scenes and sweep workload (see bench_workload.h). */
#include "bench_workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const bench_scene_names[BENCH_SCENE_COUNT] = { "default", "oa_dm1", "oa_dm4_hull", "terrain" };

bool bench_scene_load(const char *name, bool quick, bench_scene *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->query_divisor = 1;
    out->yardstick = true;
    bool loaded = false;
    if (strcmp(name, "default") == 0) {
        loaded = skim_scene_default(&out->data) == SKIM_OK;
    } else if (strcmp(name, "terrain") == 0) {
        uint32_t cells = quick ? 256 : 1024; /* 1024^2 * 2 = 2.1 million triangles */
        loaded = scene_generate_terrain(cells, 32.0f, 7, &out->data);
        snprintf(out->name, sizeof out->name, "%s", quick ? "terrain_131k" : "terrain_2m");
        out->query_divisor = 4;
        out->yardstick = quick;
    } else {
        if (!getenv("SKIM_SCENES_DIR"))
            setenv("SKIM_SCENES_DIR", SKIM_DEFAULT_SCENES_DIR, 0);
        char file[64], path[1024];
        snprintf(file, sizeof file, "%s.obj", name);
        loaded = scene_path(file, path, sizeof path) && scene_read_obj(path, &out->data);
    }
    if (loaded)
        out->mesh = skim_mesh_data_view(&out->data);
    return loaded;
}

void bench_scene_free(bench_scene *scene)
{
    skim_mesh_data_free(&scene->data);
    memset(scene, 0, sizeof *scene);
}

scene_query *bench_sweep_queries(const skim_mesh *mesh, const skim_world *world, int count)
{
    scene_query *q = malloc((size_t)count * sizeof *q);
    if (!q)
        return NULL;
    float level = scene_level_size(world);
    scene_query_mix mix = { .radius = 16.0f, .max_radii = 32.0f };
    scene_rng rng = { 0x5eed0001 };
    for (int i = 0; i < count; ++i)
        q[i] = scene_make_query(&rng, mesh, level, &mix);
    return q;
}

int bench_query_count(const bench_scene *scene, bool quick)
{
    return (quick ? 20000 : 200000) / scene->query_divisor;
}

void bench_for_each_scene(const char *bench, const char *only, bool quick, bench_scene_fn run,
                          void *context)
{
    for (int k = 0; k < BENCH_SCENE_COUNT; ++k) {
        const char *name = bench_scene_names[k];
        if (only && strcmp(only, name) != 0)
            continue;
        bench_scene scene;
        if (!bench_scene_load(name, quick, &scene)) {
            printf("{\"bench\":\"%s\",\"scene\":\"%s\",\"skipped\":\"not found\"}\n", bench, name);
            fflush(stdout);
            continue;
        }
        run(&scene, bench_query_count(&scene, quick), context);
        bench_scene_free(&scene);
    }
}

bench_sweep_options bench_sweep_defaults(void)
{
    return (bench_sweep_options){ .scene = "oa_dm1", .queries = 20000, .rounds = 9 };
}

bool bench_sweep_option(int argc, char **argv, int *i, bench_sweep_options *o)
{
    if (*i + 1 >= argc)
        return false;
    const char *option = argv[*i], *value = argv[*i + 1];
    if (strcmp(option, "--scene") == 0)
        o->scene = value;
    else if (strcmp(option, "--queries") == 0)
        o->queries = atoi(value);
    else if (strcmp(option, "--rounds") == 0)
        o->rounds = atoi(value);
    else
        return false;
    ++*i;
    return true;
}

bool bench_sweep_options_valid(const char *program, const bench_sweep_options *o)
{
    if (o->queries >= 1 && o->rounds >= 1 && o->rounds <= 1000)
        return true;
    fprintf(stderr, "%s: bad --queries or --rounds\n", program);
    return false;
}

int bench_scene_open(const char *bench, const char *name, bench_scene *loaded, skim_world **world)
{
    *world = NULL;
    if (!bench_scene_load(name, false, loaded)) {
        printf("{\"bench\":\"%s\",\"scene\":\"%s\",\"skipped\":\"not found\"}\n", bench, name);
        return 0;
    }
    if (skim_world_create(&loaded->mesh, NULL, world) != SKIM_OK) {
        fprintf(stderr, "bench %s: %s\n", bench, skim_last_error_message());
        bench_scene_free(loaded);
        return -1;
    }
    return 1;
}

double bench_now(void)
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

double bench_median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}
