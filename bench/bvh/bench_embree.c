/* Speed-of-light reference: bench_bvh's sweep workload against Embree.

   Built only when Embree 3 is installed (Debian: libembree-dev). For each
   scene of bench_bvh (bench_workload.h) it builds our world and an Embree
   scene from the same mesh, then casts the same queries both ways in the
   same run: skim_sweep with the query's sphere (radius 16), and a
   zero-radius Embree ray with the same start and the same displacement
   (origin = start, direction = delta, t in [0, 1], rtcIntersect1: closest
   hit). A ray is the cheapest query a swept sphere can be compared with: it
   tests no radius, no ellipsoid transform and no edges or vertices, so the
   ratio says how far our sweep is from what a tuned ray tracer needs for
   the bare traversal and triangle tests along the same segments.

   One JSON line per scene: sweeps/s and rays/s as medians over rounds that
   alternate the two (so both see the same machine load), their ratio
   (bvh_over_embree: our sweeps/s as a fraction of Embree's rays/s),
   each side's hit fraction, and both builds at one thread (best of a few).

   Usage: bench_embree [--quick] [--only NAME] [--rounds R] */
#include "bench_workload.h"
#include "../bench_usage.h"

#include "embree_world.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Every query as a zero-radius ray: how many hit something. */
static uint64_t cast_rays(const embree_world *e, const scene_query *q, int count)
{
    struct RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    uint64_t hits = 0;
    for (int i = 0; i < count; ++i) {
        struct RTCRayHit ray __attribute__((aligned(16)));
        memset(&ray, 0, sizeof ray);
        ray.ray.org_x = q[i].start.x;
        ray.ray.org_y = q[i].start.y;
        ray.ray.org_z = q[i].start.z;
        ray.ray.dir_x = q[i].delta.x;
        ray.ray.dir_y = q[i].delta.y;
        ray.ray.dir_z = q[i].delta.z;
        ray.ray.tnear = 0.0f;
        ray.ray.tfar = 1.0f;
        ray.ray.mask = 0xffffffffu;
        ray.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        ray.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(e->scene, &context, &ray);
        hits += ray.hit.geomID != RTC_INVALID_GEOMETRY_ID;
    }
    return hits;
}

static uint64_t sweep_all(const skim_world *world, const scene_query *q, int count)
{
    uint64_t hits = 0;
    for (int i = 0; i < count; ++i) {
        skim_hit hit;
        skim_sweep(world, &q[i].shape, q[i].start, q[i].delta, &q[i].query, &hit);
        hits += hit.hit;
    }
    return hits;
}

static skim_world *build_ours(const skim_mesh *mesh, double *seconds)
{
    skim_world_def def = skim_world_def_default();
    def.build_threads = 1;
    skim_world *world = NULL;
    double started = bench_now();
    if (skim_world_create(mesh, &def, &world) != SKIM_OK) {
        fprintf(stderr, "bench_embree: %s\n", skim_last_error_message());
        exit(1);
    }
    *seconds = bench_now() - started;
    return world;
}

static void run_scene(const bench_scene *scene, int queries, void *context)
{
    const int rounds = *(const int *)context;
    const skim_mesh *mesh = &scene->mesh;
    /* Builds: best of a few, each side at one thread. */
    int builds = mesh->triangle_count > 1000000 ? 2 : 5;
    double ours_best = 1e30, embree_best = 1e30;
    skim_world *world = NULL;
    embree_world embree = { 0 };
    for (int b = 0; b < builds; ++b) {
        double seconds;
        if (world)
            skim_world_destroy(world);
        world = build_ours(mesh, &seconds);
        ours_best = seconds < ours_best ? seconds : ours_best;
        if (embree.device)
            embree_release(&embree);
        double started = bench_now();
        embree = embree_build(mesh);
        seconds = bench_now() - started;
        embree_best = seconds < embree_best ? seconds : embree_best;
    }
    scene_query *q = bench_sweep_queries(mesh, world, queries);
    double *sweep_rate = malloc((size_t)rounds * sizeof *sweep_rate);
    double *ray_rate = malloc((size_t)rounds * sizeof *ray_rate);
    if (!q || !sweep_rate || !ray_rate) {
        fprintf(stderr, "bench_embree: no memory for %d queries\n", queries);
        exit(1);
    }
    uint64_t sweep_hits = 0, ray_hits = 0;
    for (int r = 0; r < rounds; ++r) {
        double started = bench_now();
        sweep_hits = sweep_all(world, q, queries);
        sweep_rate[r] = queries / (bench_now() - started);
        started = bench_now();
        ray_hits = cast_rays(&embree, q, queries);
        ray_rate[r] = queries / (bench_now() - started);
    }
    double sweeps = bench_median(sweep_rate, rounds), rays = bench_median(ray_rate, rounds);
    printf("{\"bench\":\"bvh_embree\",\"scene\":\"%s\",\"triangles\":%u,\"kernels\":\"%s\","
           "\"embree_version\":%ld,\"queries\":%d,\"rounds\":%d,"
           "\"bvh_sweeps_per_s\":%.0f,\"embree_rays_per_s\":%.0f,\"bvh_over_embree\":%.3f,"
           "\"bvh_hit_fraction\":%.3f,\"embree_hit_fraction\":%.3f,"
           "\"bvh_build_mtri_per_s_1_thread\":%.3f,\"embree_build_mtri_per_s_1_thread\":%.3f}\n",
           scene->name, mesh->triangle_count, skim_isa_name(),
           (long)rtcGetDeviceProperty(embree.device, RTC_DEVICE_PROPERTY_VERSION), queries, rounds,
           sweeps, rays, sweeps / rays, (double)sweep_hits / queries, (double)ray_hits / queries,
           mesh->triangle_count / ours_best * 1e-6, mesh->triangle_count / embree_best * 1e-6);
    fflush(stdout);
    free(sweep_rate);
    free(ray_rate);
    free(q);
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
        else {
            return bench_usage("bench_embree", argv[i],
                               "usage: bench_embree [--quick] [--only NAME] [--rounds R]\n"
                               "  Casts bench_bvh's sweep queries both as skim_sweep (radius 16) and as zero-radius\n"
                               "  Embree rays, alternating rounds, and prints one JSON line per scene.\n"
                               "  --quick      smaller terrain and fewer queries\n"
                               "  --only NAME  one scene: default, oa_dm1, oa_dm4_hull, terrain\n"
                               "  --rounds R   alternating rounds (default 5)\n");
        }
    }
    if (rounds < 1 || rounds > 1000) {
        fprintf(stderr, "bench_embree: bad --rounds\n");
        return 2;
    }
    bench_for_each_scene("bvh_embree", only, quick, run_scene, &rounds);
    return 0;
}
