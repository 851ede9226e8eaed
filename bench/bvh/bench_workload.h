/* The scenes and the sweep workload of the BVH benchmarks, in one place so
   that every benchmark comparing against bench_bvh's "bvh_sweeps_per_s"
   (bench_sweep_path, bench_embree) runs exactly its queries: the default
   scene, the real levels (SKIM_SCENES_DIR, default the one the build was
   configured with) and a generated terrain; spheres of radius 16
   starting 1..4 radii from a random triangle, displacements up to 32 radii,
   seed 0x5eed0001 (tests/bvh/bvh_scenes.h makes each query). */
#ifndef SKIM_BENCH_WORKLOAD_H
#define SKIM_BENCH_WORKLOAD_H

#include "bvh_scenes.h"

/* The scenes, in the order the benchmarks report them. */
#define BENCH_SCENE_COUNT 4
extern const char *const bench_scene_names[BENCH_SCENE_COUNT]; /* default, oa_dm1, oa_dm4_hull, terrain */

typedef struct bench_scene {
    char           name[32];      /* as reported: "terrain" becomes terrain_2m or terrain_131k */
    skim_mesh_data data;
    skim_mesh      mesh;          /* a view of data */
    int            query_divisor; /* the terrain runs a quarter of the queries */
    bool           yardstick;     /* whether bench_bvh builds the full-sweep yardstick (slow on 2M) */
} bench_scene;

/* Loads a scene by name (one of bench_scene_names; "terrain" is 2.1 million
   triangles, or 131 thousand when quick). False when it is not available
   (a shared level without SKIM_SCENES_DIR's file) or cannot be made. */
bool bench_scene_load(const char *name, bool quick, bench_scene *out);
void bench_scene_free(bench_scene *scene);

/* The options of the one-scene sweep benchmarks (bench_sweep_path,
   bench_sweep_floor): --scene NAME, --queries N, --rounds R. */
typedef struct bench_sweep_options {
    const char *scene;
    int queries, rounds;
} bench_sweep_options;
/* oa_dm1, 20,000 queries, 9 rounds. */
bench_sweep_options bench_sweep_defaults(void);
/* Takes argv[*i] and its value when it is one of those options, leaving
   *i on the value; false when it is not one of them or has no value. */
bool bench_sweep_option(int argc, char **argv, int *i, bench_sweep_options *o);
/* Whether the counts are usable; if not, says so on stderr for program. */
bool bench_sweep_options_valid(const char *program, const bench_sweep_options *o);

/* Loads scene `name` and builds its world (default accelerator) for the
   one-scene benchmark `bench`: 1 with both ready (free them with
   skim_world_destroy and bench_scene_free), 0 when the scene is not
   available ({"bench":BENCH,"scene":...,"skipped":"not found"} printed),
   -1 when the world cannot be built (the reason on stderr). */
int bench_scene_open(const char *bench, const char *name, bench_scene *loaded, skim_world **world);

/* bench_bvh's sweep queries on mesh, whose world (any accelerator) gives
   the level size. count queries, malloc'd; NULL without memory. */
scene_query *bench_sweep_queries(const skim_mesh *mesh, const skim_world *world, int count);

/* Queries per scene: 200000 (20000 when quick), divided by the scene's divisor. */
int bench_query_count(const bench_scene *scene, bool quick);

/* Runs run(scene, its query count, context) on every scene in order, or
   only on the one named only (unless NULL); a scene that is not available
   prints {"bench":BENCH,"scene":...,"skipped":"not found"}. */
typedef void (*bench_scene_fn)(const bench_scene *scene, int queries, void *context);
void bench_for_each_scene(const char *bench, const char *only, bool quick, bench_scene_fn run,
                          void *context);

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);
/* Median of count values (sorts them). */
double bench_median(double *values, int count);

#endif
