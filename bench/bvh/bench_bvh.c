/* BVH benchmark: one JSON object per line per scene.

   For the default scene, the real levels (SKIM_SCENES_DIR, default
   the one the build was configured with) and a generated terrain of
   2+ million triangles:
     build   million triangles/s at 1 and 2 threads, best and median of
             15 builds (5 for the terrain), and at 1 thread the median
             over the thread's CPU time (steadier on a shared machine:
             page faults count, other processes' time does not), whether
             the two trees are
             bit-identical, bytes/triangle, nodes, depth, SAH
             cost of the tree, of the binned binary tree and of a full-sweep
             binary tree built with the same leaf rules (the yardstick)
     sweep   sweeps/s through the BVH and through brute force in the same
             run, spheres of radius 16 starting near surfaces with
             displacements up to 32 radii; candidates per sweep; gathers/s;
             the same sweeps with the swept gather; leaves a box walk
             returns against leaves whose exact box overlaps (the cost of
             the 8-bit child bounds)
     load    save size and the median time to skim_world_load the bake

   Usage: bench_bvh [--quick] [--only NAME] [--bvh-only] [--build-only]
   (NAME: default, oa_dm1, oa_dm4_hull, terrain). --quick shrinks the
   terrain and query counts; --bvh-only skips brute force and the
   yardstick, for profilers; --build-only stops after the build line (the
   build's figures without the sweeps and loads).
   The scenes and queries are bench_workload.c's; bench_embree (built when
   Embree is installed) casts the same queries as rays through Embree. */
#include "bvh/bvh.h"
#include "bvh/bvh_binary.h"
#include "bench_workload.h"
#include "swept_sweep.h"
#include "../bench_usage.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The calling thread's CPU time: a one-thread build runs on it (page
   faults included), and time the machine gave to other processes is not
   counted, which wall time on a shared machine is. */
static double thread_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static skim_world *build_timed(const skim_mesh *mesh, skim_accelerator accelerator, int threads,
                               double *seconds, double *cpu_seconds)
{
    skim_world_def def = skim_world_def_default();
    def.accelerator = accelerator;
    def.build_threads = threads;
    skim_world *world = NULL;
    double started = bench_now(), cpu_started = thread_cpu_now();
    if (skim_world_create(mesh, &def, &world) != SKIM_OK) {
        fprintf(stderr, "build failed: %s\n", skim_last_error_message());
        exit(1);
    }
    if (seconds)
        *seconds = bench_now() - started;
    if (cpu_seconds)
        *cpu_seconds = thread_cpu_now() - cpu_started;
    return world;
}

static skim_world *build(const skim_mesh *mesh, skim_accelerator accelerator, int threads,
                         double *seconds)
{
    return build_timed(mesh, accelerator, threads, seconds, NULL);
}

/* Block by block: byte by byte through fgetc, comparing the terrain's two
   95 MB bakes took longer than its ten builds. */
static bool same_file_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    static char block_a[1 << 16], block_b[1 << 16];
    while (same) {
        size_t na = fread(block_a, 1, sizeof block_a, fa), nb = fread(block_b, 1, sizeof block_b, fb);
        same = na == nb && memcmp(block_a, block_b, na) == 0;
        if (na < sizeof block_a || nb < sizeof block_b)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* SAH cost of a binary tree built with method, and of its 8-wide collapse. */
static void sah_of(const skim_world *world, skim_bvh_split_method method, double *binary, double *wide)
{
    skim_world_def def = skim_world_def_default();
    def.build_threads = 1;
    skim_bvh_binary_tree tree;
    struct skim_bvh bvh;
    if (skim_bvh_build_binary(world->vertex, world->triangle_count, &def, method, &tree) != SKIM_OK ||
        skim_bvh_collapse(&tree, &bvh) != SKIM_OK) {
        fprintf(stderr, "SAH yardstick failed: %s\n", skim_last_error_message());
        exit(1);
    }
    *binary = tree.sah_cost;
    *wide = bvh.sah_cost;
    free(bvh.owned_nodes);
    skim_bvh_binary_free(&tree);
}

static bool bvh_only, build_only;

static void bench_scene_run(const bench_scene *scene, int queries, void *context)
{
    (void)context;
    const char *name = scene->name;
    const skim_mesh *mesh = &scene->mesh;
    const bool yardstick = scene->yardstick;
    /* Build: 1 and 2 threads, best of a few to see through the noise of a
       shared machine. With OpenMP's default (active) wait policy, on a
       loaded 2-core machine the spinning worker competes with the build's
       serial parts and 2-thread builds can take ten times longer: the
       policy is printed beside the figure (OMP_WAIT_POLICY=passive to
       measure the build rather than the spinning). */
    const char *wait_policy = getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "default";
    /* The median is printed beside the best: on a loaded machine the best
       of a few is luck, the median of more is steadier. */
    enum { MAX_ROUNDS = 15 };
    int rounds = mesh->triangle_count > 1000000 ? 5 : MAX_ROUNDS;
    double best1 = 1e30, best2 = 1e30, seconds1[MAX_ROUNDS], seconds2[MAX_ROUNDS], cpu1[MAX_ROUNDS];
    skim_world *one = NULL, *two = NULL;
    for (int r = 0; r < rounds; ++r) {
        double s;
        skim_world *w = build_timed(mesh, SKIM_ACCELERATOR_BVH, 1, &s, &cpu1[r]);
        best1 = s < best1 ? s : best1;
        seconds1[r] = s;
        if (one)
            skim_world_destroy(one);
        one = w;
        w = build(mesh, SKIM_ACCELERATOR_BVH, 2, &s);
        best2 = s < best2 ? s : best2;
        seconds2[r] = s;
        if (two)
            skim_world_destroy(two);
        two = w;
    }
    char path1[256], path2[256];
    snprintf(path1, sizeof path1, "/tmp/skim_bench_%d_1.skim", (int)getpid());
    snprintf(path2, sizeof path2, "/tmp/skim_bench_%d_2.skim", (int)getpid());
    if (skim_world_save(one, path1) != SKIM_OK || skim_world_save(two, path2) != SKIM_OK) {
        fprintf(stderr, "save failed: %s\n", skim_last_error_message());
        exit(1);
    }
    bool identical = same_file_bytes(path1, path2);
    remove(path2);
    skim_world_destroy(two);

    skim_world_stats stats;
    skim_world_get_stats(one, &stats);
    /* The yardstick is built over the triangles in mesh order, as the
       production build sees them: a brute-force world keeps the mesh order
       (and drops the same degenerate triangles). Built over the BVH
       world's leaf order instead, the full sweep broke its centroid ties
       differently, and its wide cost moved by up to 1% on the levels with
       nothing but the production tree changed. binary_sah_binned is then
       the production tree's own binary cost, and wide_sah_binned (checked
       against sah_cost below) its wide cost. */
    double binned_binary = 0, binned_wide = 0, sweep_binary = 0, sweep_wide = 0;
    if (yardstick && !bvh_only) {
        skim_world *in_mesh_order = build(mesh, SKIM_ACCELERATOR_BRUTE_FORCE, 1, NULL);
        sah_of(in_mesh_order, SKIM_BVH_SPLIT_BINNED, &binned_binary, &binned_wide);
        sah_of(in_mesh_order, SKIM_BVH_SPLIT_FULL_SWEEP, &sweep_binary, &sweep_wide);
        skim_world_destroy(in_mesh_order);
        if (fabs(binned_wide - stats.sah_cost) > 1e-9 * stats.sah_cost)
            fprintf(stderr, "%s: the binned tree over the mesh order costs %.6f, the world's %.6f\n", name,
                    binned_wide, stats.sah_cost);
    }
    printf("{\"bench\":\"bvh_build\",\"scene\":\"%s\",\"triangles\":%u,\"degenerate\":%u,"
           "\"mtri_per_s_1_thread\":%.3f,\"mtri_per_s_2_threads\":%.3f,"
           "\"mtri_per_s_1_thread_median\":%.3f,\"mtri_per_s_2_threads_median\":%.3f,"
           "\"mtri_per_s_1_thread_cpu_median\":%.3f,\"builds\":%d,"
           "\"omp_wait_policy\":\"%s\","
           "\"identical_1_vs_2_threads\":%s,"
           "\"bytes_per_triangle\":%.2f,\"nodes\":%u,\"leaves\":%u,\"depth\":%u,"
           "\"triangles_per_leaf\":%.2f,\"sah_cost\":%.3f",
           name, stats.triangles, stats.degenerate_triangles, mesh->triangle_count / best1 * 1e-6,
           mesh->triangle_count / best2 * 1e-6, mesh->triangle_count / bench_median(seconds1, rounds) * 1e-6,
           mesh->triangle_count / bench_median(seconds2, rounds) * 1e-6,
           mesh->triangle_count / bench_median(cpu1, rounds) * 1e-6, rounds, wait_policy,
           identical ? "true" : "false",
           (double)stats.bytes / stats.triangles, stats.nodes, stats.leaves, stats.depth,
           (double)stats.triangles / stats.leaves, stats.sah_cost);
    if (yardstick && !bvh_only)
        printf(",\"binary_sah_binned\":%.3f,\"binary_sah_full_sweep\":%.3f,"
               "\"wide_sah_full_sweep\":%.3f,\"wide_vs_full_sweep\":%.4f",
               binned_binary, sweep_binary, sweep_wide, stats.sah_cost / sweep_wide);
    printf("}\n");
    fflush(stdout);
    if (build_only) {
        remove(path1);
        skim_world_destroy(one);
        return;
    }

    /* Sweeps: the same queries through the BVH and brute force. */
    skim_world *brute = build(mesh, SKIM_ACCELERATOR_BRUTE_FORCE, 1, NULL);
    scene_query *q = bench_sweep_queries(mesh, one, queries);
    if (!q) {
        fprintf(stderr, "no memory for %d queries\n", queries);
        exit(1);
    }
    skim_hit hit;
    uint64_t hits = 0;
    double started = bench_now();
    for (int i = 0; i < queries; ++i) {
        skim_sweep(one, &q[i].shape, q[i].start, q[i].delta, &q[i].query, &hit);
        hits += hit.hit;
    }
    double bvh_seconds = bench_now() - started;
    /* Brute force is slow on big worlds: time a slice of the same queries. */
    int brute_queries = bvh_only ? 16 : queries;
    double budget = 2.0;
    started = bench_now();
    int done = 0;
    for (; done < brute_queries; ++done) {
        skim_sweep(brute, &q[done].shape, q[done].start, q[done].delta, &q[done].query, &hit);
        if ((done & 15) == 15 && bench_now() - started > budget) {
            ++done;
            break;
        }
    }
    double brute_seconds = bench_now() - started;
    /* Where the time goes: the gather alone, and how much it gathers. */
    skim_candidates candidates;
    skim_candidates_init(&candidates);
    uint64_t gathered = 0;
    started = bench_now();
    for (int i = 0; i < queries; ++i) {
        skim_ellipsoid_space space;
        skim_ellipsoid_space_init(&space, &q[i].shape);
        float start[3] = { q[i].start.x, q[i].start.y, q[i].start.z };
        float delta[3] = { q[i].delta.x, q[i].delta.y, q[i].delta.z };
        float lo[3], hi[3];
        skim_sweep_box(start, delta, space.bounding_radius, lo, hi);
        skim_gather_candidates(one, &space, start, lo, hi, q[i].query.material_mask, &candidates);
        gathered += candidates.count;
    }
    double gather_seconds = bench_now() - started;
    /* The same sweeps with the swept gather (skim_sweep's steps with
       skim_gather_candidates_swept), and what that gathers. */
    uint64_t swept_hits = 0;
    started = bench_now();
    for (int i = 0; i < queries; ++i) {
        swept_sweep(one, &q[i].shape, q[i].start, q[i].delta, &q[i].query, &candidates, &hit);
        swept_hits += hit.hit;
    }
    double swept_seconds = bench_now() - started;
    uint64_t swept_gathered = 0;
    for (int i = 0; i < queries; ++i) {
        skim_ellipsoid_space space;
        skim_ellipsoid_space_init(&space, &q[i].shape);
        float start[3] = { q[i].start.x, q[i].start.y, q[i].start.z };
        float delta[3] = { q[i].delta.x, q[i].delta.y, q[i].delta.z };
        skim_gather_candidates_swept(one, &space, start, delta, q[i].query.material_mask, &candidates);
        swept_gathered += candidates.count;
    }
    /* What the 8-bit child bounds cost: leaves the box walk returns against
       leaves whose exact box (from their triangles) overlaps the query. */
    uint64_t leaves_walked = 0, leaves_exact = 0;
    for (int i = 0; i < queries && one->bvh; ++i) {
        float start[3] = { q[i].start.x, q[i].start.y, q[i].start.z };
        float delta[3] = { q[i].delta.x, q[i].delta.y, q[i].delta.z };
        float lo[3], hi[3];
        skim_ellipsoid_space space;
        skim_ellipsoid_space_init(&space, &q[i].shape);
        skim_sweep_box(start, delta, space.bounding_radius, lo, hi);
        skim_bvh_walk walk;
        skim_bvh_walk_begin(&walk, one->bvh, one->bounds_min, one->bounds_max, lo, hi);
        uint32_t refs[64], count;
        while ((count = skim_bvh_walk_leaves(&walk, refs, 64)) != 0)
            for (uint32_t k = 0; k < count; ++k) {
                leaves_walked++;
                uint32_t first = skim_bvh_leaf_first(refs[k]), n = skim_bvh_leaf_count(refs[k]);
                bool overlaps = true;
                for (int axis = 0; axis < 3 && overlaps; ++axis) {
                    float l = INFINITY, h = -INFINITY;
                    for (uint32_t t = first; t < first + n; ++t)
                        for (int v = 0; v < 3; ++v) {
                            float x = one->vertex[v][axis][t];
                            l = x < l ? x : l;
                            h = x > h ? x : h;
                        }
                    overlaps = l <= hi[axis] && h >= lo[axis];
                }
                leaves_exact += overlaps;
            }
    }
    if (swept_hits != hits)
        fprintf(stderr, "%s: swept gather hit %llu times, box gather %llu\n", name,
                (unsigned long long)swept_hits, (unsigned long long)hits);
    skim_candidates_free(&candidates);
    printf("{\"bench\":\"bvh_sweep\",\"scene\":\"%s\",\"kernels\":\"%s\",\"radius\":16,\"max_radii\":32,"
           "\"queries\":%d,\"hit_fraction\":%.3f,\"bvh_sweeps_per_s\":%.0f,"
           "\"brute_force_queries\":%d,\"brute_force_sweeps_per_s\":%.0f,\"speedup\":%.1f,"
           "\"candidates_per_sweep\":%.2f,\"gathers_per_s\":%.0f,"
           "\"swept_gather_sweeps_per_s\":%.0f,\"swept_candidates_per_sweep\":%.2f,"
           "\"leaves_walked_per_box\":%.2f,\"leaves_overlapping_exactly\":%.2f}\n",
           name, skim_isa_name(), queries, (double)hits / queries, queries / bvh_seconds, done,
           done / brute_seconds, (queries / bvh_seconds) / (done / brute_seconds),
           (double)gathered / queries, queries / gather_seconds, queries / swept_seconds,
           (double)swept_gathered / queries, (double)leaves_walked / queries,
           (double)leaves_exact / queries);
    fflush(stdout);

    /* Load: map the bake, median of several (the file is in the page cache,
       as it would be on a server that restarts). */
    double load[9];
    for (int r = 0; r < 9; ++r) {
        skim_world *loaded = NULL;
        started = bench_now();
        if (skim_world_load(path1, &loaded) != SKIM_OK) {
            fprintf(stderr, "load failed: %s\n", skim_last_error_message());
            exit(1);
        }
        load[r] = bench_now() - started;
        skim_world_destroy(loaded);
    }
    FILE *file = fopen(path1, "rb");
    fseek(file, 0, SEEK_END);
    long file_bytes = ftell(file);
    fclose(file);
    printf("{\"bench\":\"bvh_load\",\"scene\":\"%s\",\"file_bytes\":%ld,\"load_ms_median\":%.3f,"
           "\"build_ms_1_thread\":%.3f}\n",
           name, file_bytes, 1e3 * bench_median(load, 9), 1e3 * best1);
    fflush(stdout);
    remove(path1);
    free(q);
    skim_world_destroy(brute);
    skim_world_destroy(one);
}

int main(int argc, char **argv)
{
    bool quick = false;
    const char *only = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--bvh-only") == 0)
            bvh_only = true;
        else if (strcmp(argv[i], "--build-only") == 0)
            build_only = true;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            return bench_usage("bench_bvh", argv[i],
                               "usage: bench_bvh [--quick] [--only NAME] [--bvh-only] [--build-only]\n"
                               "  Builds, sweeps and loads each scene and prints JSON lines (bvh_build, bvh_sweep,\n"
                               "  bvh_load). NAME: default, oa_dm1, oa_dm4_hull, terrain (the levels are read from\n"
                               "  SKIM_SCENES_DIR, else the build's default). --quick shrinks the terrain and the query\n"
                               "  counts; --bvh-only skips brute force and the yardstick, for profilers;\n"
                               "  --build-only stops after the bvh_build line.\n");
        }
    }
    bench_for_each_scene("bvh_build", only, quick, bench_scene_run, NULL);
    return 0;
}
