/* skim_raycast against Embree's rtcIntersect1, and skim_raycast_any (line
   of sight) against rtcOccluded1, one core each, the same rays in the same
   run.

   Rates are per CPU second of the calling thread. Two workloads a scene: "near", the segments of bench_bvh's sweeps
   (starting 1..4 player radii from a random triangle, up to 512 units
   long: a bullet, a probe under the feet), and "across", line of sight
   between two random points of the level's box. Rounds alternate the two
   libraries so both see the same machine load; rates are medians. Each
   line also counts how the answers agree: the same hit or miss, and t
   within 1e-5 relative (Embree's test is not watertight, so a ray through
   an edge may differ; those are counted, not hidden).

   Besides bench_bvh's scenes, the 548,288-triangle terrain of the move and
   crowd benchmarks (tools/terrain_scene.c, the same generator),
   reported as terrain_548k.

   Usage: bench_rays [--quick] [--only NAME] [--rounds R] */
#include "../bvh/bench_workload.h"
#include "../bench_usage.h"
#include "terrain_scene.h"

#include "../bvh/embree_world.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct ray_set {
    skim_vec3 *origin, *delta;
    int count;
} ray_set;

/* The calling thread's CPU seconds: both libraries run on it alone, and on
   a machine shared with other work wall time counts their time too. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void cast_embree(const embree_world *e, const ray_set *rays, float *t)
{
    struct RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    for (int i = 0; i < rays->count; ++i) {
        struct RTCRayHit ray __attribute__((aligned(16)));
        memset(&ray, 0, sizeof ray);
        ray.ray.org_x = rays->origin[i].x;
        ray.ray.org_y = rays->origin[i].y;
        ray.ray.org_z = rays->origin[i].z;
        ray.ray.dir_x = rays->delta[i].x;
        ray.ray.dir_y = rays->delta[i].y;
        ray.ray.dir_z = rays->delta[i].z;
        ray.ray.tnear = 0.0f;
        ray.ray.tfar = 1.0f;
        ray.ray.mask = 0xffffffffu;
        ray.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        ray.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(e->scene, &context, &ray);
        t[i] = ray.hit.geomID != RTC_INVALID_GEOMETRY_ID ? ray.ray.tfar : -1.0f;
    }
}

static void occluded_embree(const embree_world *e, const ray_set *rays, bool *blocked)
{
    struct RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    for (int i = 0; i < rays->count; ++i) {
        struct RTCRay ray __attribute__((aligned(16)));
        memset(&ray, 0, sizeof ray);
        ray.org_x = rays->origin[i].x;
        ray.org_y = rays->origin[i].y;
        ray.org_z = rays->origin[i].z;
        ray.dir_x = rays->delta[i].x;
        ray.dir_y = rays->delta[i].y;
        ray.dir_z = rays->delta[i].z;
        ray.tnear = 0.0f;
        ray.tfar = 1.0f;
        ray.mask = 0xffffffffu;
        rtcOccluded1(e->scene, &context, &ray);
        blocked[i] = ray.tfar < 0.0f; /* Embree marks an occluded ray with tfar = -inf */
    }
}

static void occluded_skim(const skim_world *world, const ray_set *rays, bool *blocked)
{
    for (int i = 0; i < rays->count; ++i)
        skim_raycast_any(world, rays->origin[i], rays->delta[i], NULL, &blocked[i]);
}

static void cast_skim(const skim_world *world, const ray_set *rays, float *t)
{
    for (int i = 0; i < rays->count; ++i) {
        skim_hit hit;
        skim_raycast(world, rays->origin[i], rays->delta[i], NULL, &hit);
        t[i] = hit.hit ? hit.t : -1.0f;
    }
}

static void run_workload(const bench_scene *scene, const char *workload, const skim_world *world,
                         const embree_world *embree, const ray_set *rays, int rounds)
{
    float *ours = malloc(rays->count * sizeof *ours), *theirs = malloc(rays->count * sizeof *theirs);
    bool *ours_blocked = malloc(rays->count * sizeof *ours_blocked);
    bool *theirs_blocked = malloc(rays->count * sizeof *theirs_blocked);
    double *rate = malloc(4 * rounds * sizeof *rate);
    if (!ours || !theirs || !ours_blocked || !theirs_blocked || !rate) {
        fprintf(stderr, "bench_rays: no memory for %d rays\n", rays->count);
        exit(1);
    }
    /* rate: skim first hit, Embree first hit, skim any hit, Embree any hit,
       rounds values each; the four alternate within a round. */
    for (int r = 0; r < rounds; ++r) {
        double started = cpu_now();
        cast_skim(world, rays, ours);
        rate[r] = rays->count / (cpu_now() - started);
        started = cpu_now();
        cast_embree(embree, rays, theirs);
        rate[rounds + r] = rays->count / (cpu_now() - started);
        started = cpu_now();
        occluded_skim(world, rays, ours_blocked);
        rate[2 * rounds + r] = rays->count / (cpu_now() - started);
        started = cpu_now();
        occluded_embree(embree, rays, theirs_blocked);
        rate[3 * rounds + r] = rays->count / (cpu_now() - started);
    }
    int hits = 0, same = 0, t_close = 0, same_blocked = 0, blocked_is_hit = 0;
    for (int i = 0; i < rays->count; ++i) {
        hits += ours[i] >= 0.0f;
        same_blocked += ours_blocked[i] == theirs_blocked[i];
        blocked_is_hit += ours_blocked[i] == (ours[i] >= 0.0f);
        if ((ours[i] >= 0.0f) != (theirs[i] >= 0.0f))
            continue;
        ++same;
        t_close += ours[i] < 0.0f || fabsf(ours[i] - theirs[i]) <= 1e-5f * theirs[i] + 1e-7f;
    }
    if (blocked_is_hit != rays->count) {
        fprintf(stderr, "bench_rays: skim_raycast_any differs from skim_raycast's hit on %d rays\n",
                rays->count - blocked_is_hit);
        exit(1);
    }
    const double skim_rate = bench_median(rate, rounds), embree_rate = bench_median(rate + rounds, rounds);
    const double any_rate = bench_median(rate + 2 * rounds, rounds);
    const double occluded_rate = bench_median(rate + 3 * rounds, rounds);
    printf("{\"bench\":\"query_rays\",\"scene\":\"%s\",\"workload\":\"%s\",\"triangles\":%u,\"rays\":%d,"
           "\"rounds\":%d,\"threads\":1,\"isa\":\"%s\",\"skim_rays_per_s\":%.0f,\"embree_rays_per_s\":%.0f,"
           "\"skim_over_embree\":%.3f,\"hit_fraction\":%.3f,\"same_hit_or_miss\":%d,\"t_within_1e-5\":%d,"
           "\"skim_any_rays_per_s\":%.0f,\"embree_occluded_rays_per_s\":%.0f,\"any_over_occluded\":%.3f,"
           "\"same_blocked\":%d}\n",
           scene->name, workload, scene->mesh.triangle_count, rays->count, rounds, skim_isa_name(), skim_rate,
           embree_rate, skim_rate / embree_rate, (double)hits / rays->count, same, t_close, any_rate,
           occluded_rate, any_rate / occluded_rate, same_blocked);
    fflush(stdout);
    free(ours), free(theirs), free(ours_blocked), free(theirs_blocked), free(rate);
}

static void run_scene(const bench_scene *scene, int queries, void *context)
{
    const int rounds = *(const int *)context;
    skim_world *world = NULL;
    if (skim_world_create(&scene->mesh, NULL, &world) != SKIM_OK) {
        fprintf(stderr, "bench_rays: %s\n", skim_last_error_message());
        exit(1);
    }
    embree_world embree = embree_build(&scene->mesh);
    scene_query *q = bench_sweep_queries(&scene->mesh, world, queries);
    ray_set rays = { malloc(queries * sizeof(skim_vec3)), malloc(queries * sizeof(skim_vec3)), queries };
    if (!q || !rays.origin || !rays.delta) {
        fprintf(stderr, "bench_rays: no memory for %d rays\n", queries);
        exit(1);
    }
    for (int i = 0; i < queries; ++i)
        rays.origin[i] = q[i].start, rays.delta[i] = q[i].delta;
    run_workload(scene, "near", world, &embree, &rays, rounds);
    skim_world_stats s;
    skim_world_get_stats(world, &s);
    scene_rng rng = { 0x5eed0002 };
    for (int i = 0; i < queries; ++i) {
        skim_vec3 a = { scene_rng_range(&rng, s.bounds_min.x, s.bounds_max.x),
                        scene_rng_range(&rng, s.bounds_min.y, s.bounds_max.y),
                        scene_rng_range(&rng, s.bounds_min.z, s.bounds_max.z) };
        skim_vec3 b = { scene_rng_range(&rng, s.bounds_min.x, s.bounds_max.x),
                        scene_rng_range(&rng, s.bounds_min.y, s.bounds_max.y),
                        scene_rng_range(&rng, s.bounds_min.z, s.bounds_max.z) };
        rays.origin[i] = a;
        rays.delta[i] = (skim_vec3){ b.x - a.x, b.y - a.y, b.z - a.z };
    }
    run_workload(scene, "across", world, &embree, &rays, rounds);
    free(rays.origin), free(rays.delta), free(q);
    embree_release(&embree);
    skim_world_destroy(world);
}

int main(int argc, char **argv)
{
    bool quick = false;
    const char *only = NULL;
    int rounds = 5;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else
            return bench_usage("bench_rays", argv[i],
                               "usage: bench_rays [--quick] [--only NAME] [--rounds R]\n"
                               "  skim_raycast against Embree's rtcIntersect1 and skim_raycast_any against\n"
                               "  rtcOccluded1 on the same rays, one core each, alternating rounds; one JSON\n"
                               "  line per scene and workload (near, across).\n"
                               "  --quick      smaller terrain and fewer rays\n"
                               "  --only NAME  one scene: default, oa_dm1, oa_dm4_hull, terrain (2M, or\n"
                               "               131k with --quick), terrain_548k\n"
                               "  --rounds R   alternating rounds (default 5)\n");
    }
    if (rounds < 1 || rounds > 1000) {
        fprintf(stderr, "bench_rays: --rounds must be in 1..1000\n");
        return 2;
    }
    bench_for_each_scene("query_rays", only, quick, run_scene, &rounds);
    if (!only || strcmp(only, "terrain_548k") == 0) {
        bench_scene scene = { .name = "terrain_548k", .query_divisor = 4 };
        if (!terrain_scene_generate(&scene.data)) {
            fprintf(stderr, "bench_rays: no memory for terrain_548k\n");
            return 1;
        }
        scene.mesh = skim_mesh_data_view(&scene.data);
        run_scene(&scene, bench_query_count(&scene, quick), &rounds);
        bench_scene_free(&scene);
    }
    return 0;
}
