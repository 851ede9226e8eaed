/* How fast a sweep could be if only the exact tests cost anything: a floor
   for the 4 M sweeps/s target, measured rather than argued.

   For each of bench_bvh's queries on one scene (spheres of radius 16
   starting 1..4 radii from a surface, displacements up to 32 radii):
   1. skim_sweep through the BVH gives the answer t* (1 for a miss);
   2. the swept gather (brute force's candidates) is thinned to the
      triangles whose bounding box, grown by the unit sphere, the path
      enters at some t <= t* (an exact slab test in double): the triangles
      a perfect front-to-back order at triangle granularity must still
      test exactly, since any of them could hold a contact before t*
      (docs/performance.md, "How many triangles a sweep must test");
   3. that set, packed into one buffer per query with no padding between
      packets, goes through one kernel call, which must give skim_sweep's
      hit bit for bit (else the set is wrong and the bench fails).
   The timed part is those kernel calls alone, each buffer run REPEAT (4)
   times in a row so it is in L1 as a just-gathered buffer would be: no
   traversal, no gather, no shape set-up, perfect packing. Its rate is an
   upper bound for any sweep built on these kernels; a traversal costs
   more on top (a zero-radius Embree ray through the same level:
   bench_embree). skim_sweep itself runs in alternating rounds for the
   ratio in the same run.

   Usage: bench_sweep_floor [--scene NAME] [--queries N] [--rounds R]
                            [--set NAME]
   Prints one JSON line per kernel set (every set but reference and
   portable, or the one named). */
#include "bench_workload.h"
#include "../bench_usage.h"
#include "gather/gather.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPEAT = 4 };

/* One query's minimal set, in unit space relative to its start. */
typedef struct floor_query {
    skim_candidates set;
    float delta[3];
    bool cull;
    skim_unit_hit answer; /* skim_sweep's, in unit-space t and triangle */
} floor_query;

/* Whether the segment t * delta, t in [0, t_end], enters the box [lo, hi]
   (double precision, closed intervals). */
static bool path_enters_box(const float delta[3], double t_end, const double lo[3],
                            const double hi[3])
{
    double enter = 0.0, leave = t_end;
    for (int axis = 0; axis < 3; ++axis) {
        const double d = delta[axis];
        if (d == 0.0) {
            if (lo[axis] > 0.0 || hi[axis] < 0.0)
                return false;
            continue;
        }
        double a = lo[axis] / d, b = hi[axis] / d;
        if (a > b) {
            const double swap = a;
            a = b;
            b = swap;
        }
        enter = a > enter ? a : enter;
        leave = b < leave ? b : leave;
        if (enter > leave)
            return false;
    }
    return true;
}

/* Builds query q's minimal set; false (with a message) on failure. */
static bool make_floor_query(const skim_world *world, const scene_query *q, floor_query *out,
                             skim_candidates *gathered)
{
    skim_hit hit;
    if (skim_sweep(world, &q->shape, q->start, q->delta, &q->query, &hit) != SKIM_OK) {
        fprintf(stderr, "bench_sweep_floor: skim_sweep: %s\n", skim_last_error_message());
        return false;
    }
    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, &q->shape);
    const float start[3] = { q->start.x, q->start.y, q->start.z };
    const float delta[3] = { q->delta.x, q->delta.y, q->delta.z };
    if (skim_gather_candidates_swept(world, &space, start, delta, q->query.material_mask,
                                     gathered) != SKIM_OK) {
        fprintf(stderr, "bench_sweep_floor: gather: %s\n", skim_last_error_message());
        return false;
    }
    skim_mat3_mul_vec(space.to_unit, delta, out->delta);
    out->cull = q->query.cull_back_faces;
    out->answer = (skim_unit_hit){ .hit = hit.hit, .t = hit.hit ? hit.t : 1.0f,
                                   .triangle = hit.hit ? hit.triangle : UINT32_MAX };
    /* A hair of slack so the answer's own triangle, met exactly at t*,
       is not lost to rounding; it can only add triangles. */
    const double t_end = out->answer.t * (1.0 + 1e-6) + 1e-9;
    skim_candidates_init(&out->set);
    if (skim_candidates_reserve(&out->set, gathered->count ? gathered->count : 1) != SKIM_OK) {
        fprintf(stderr, "bench_sweep_floor: out of memory\n");
        return false;
    }
    uint32_t kept = 0;
    for (uint32_t lane = 0; lane < gathered->count; ++lane) {
        double lo[3], hi[3];
        for (int axis = 0; axis < 3; ++axis) {
            lo[axis] = hi[axis] = gathered->vertex[0][axis][lane];
            for (int v = 1; v < 3; ++v) {
                const double x = gathered->vertex[v][axis][lane];
                lo[axis] = x < lo[axis] ? x : lo[axis];
                hi[axis] = x > hi[axis] ? x : hi[axis];
            }
            lo[axis] -= 1.0;
            hi[axis] += 1.0;
        }
        if (!path_enters_box(out->delta, t_end, lo, hi))
            continue;
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                out->set.vertex[v][axis][kept] = gathered->vertex[v][axis][lane];
        out->set.triangle[kept] = gathered->triangle[lane];
        out->set.material[kept] = gathered->material[lane];
        ++kept;
    }
    out->set.count = kept;
    skim_candidates_pad(&out->set);
    return true;
}

/* One kernel call on query q's set from a fresh bound. */
static skim_unit_hit sweep_set(const skim_kernel_set *set, const floor_query *q)
{
    skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
    set->sweep(&q->set, q->delta, q->cull, &best);
    return best;
}

int main(int argc, char **argv)
{
    bench_sweep_options options = bench_sweep_defaults();
    const char *only_set = NULL;
    for (int i = 1; i < argc; ++i) {
        if (bench_sweep_option(argc, argv, &i, &options))
            continue;
        if (i + 1 < argc && strcmp(argv[i], "--set") == 0)
            only_set = argv[++i];
        else
            return bench_usage(
                "bench_sweep_floor", argv[i],
                "usage: bench_sweep_floor [--scene default|oa_dm1|oa_dm4_hull|terrain] [--queries N]\n"
                "                         [--rounds R] [--set NAME]\n"
                "  The kernel calls alone on the triangles each of bench_bvh's sweeps must test\n"
                "  exactly (no traversal, no gather, perfect packing): an upper bound for any\n"
                "  sweep built on these kernels, beside skim_sweep in alternating rounds.\n"
                "  Defaults: oa_dm1, 20000 queries, 9 rounds, every set but reference and portable.\n");
    }
    if (!bench_sweep_options_valid("bench_sweep_floor", &options))
        return 2;
    const char *scene = options.scene;
    const int queries = options.queries, rounds = options.rounds;
    bench_scene loaded;
    skim_world *world;
    const int opened = bench_scene_open("sweep_floor", scene, &loaded, &world);
    if (opened <= 0)
        return opened < 0;
    scene_query *q = bench_sweep_queries(&loaded.mesh, world, queries);
    floor_query *fq = calloc((size_t)queries, sizeof *fq);
    double *floor_rate = malloc((size_t)rounds * sizeof *floor_rate);
    double *sweep_rate = malloc((size_t)rounds * sizeof *sweep_rate);
    if (!q || !fq || !floor_rate || !sweep_rate) {
        fprintf(stderr, "bench_sweep_floor: out of memory\n");
        return 1;
    }
    skim_candidates gathered;
    skim_candidates_init(&gathered);
    uint64_t must_test = 0, swept = 0;
    for (int i = 0; i < queries; ++i) {
        if (!make_floor_query(world, &q[i], &fq[i], &gathered))
            return 1;
        must_test += fq[i].set.count;
        swept += gathered.count;
    }
    skim_candidates_free(&gathered);

    static const char *const sets[] = { "sse41", "avx2", "avx512vl", "avx512", "neon" };
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; ++s) {
        if (only_set && strcmp(only_set, sets[s]) != 0)
            continue;
        const skim_kernel_set *set = skim_kernel_set_by_name(sets[s]);
        if (!set)
            continue;
        /* The set must find skim_sweep's answer, bit for bit, on every query. */
        int wrong = 0;
        for (int i = 0; i < queries; ++i) {
            const skim_unit_hit got = sweep_set(set, &fq[i]);
            const skim_unit_hit *want = &fq[i].answer;
            if (got.hit != want->hit ||
                (got.hit && (memcmp(&got.t, &want->t, sizeof got.t) != 0 ||
                             got.triangle != want->triangle)))
                ++wrong;
        }
        if (wrong) {
            fprintf(stderr,
                    "bench_sweep_floor: %s on the minimal sets differs from skim_sweep on %d of %d "
                    "queries: the sets miss a triangle that matters\n",
                    set->name, wrong, queries);
            return 1;
        }
        for (int r = 0; r < rounds; ++r) {
            skim_hit hit;
            double started = bench_now();
            for (int i = 0; i < queries; ++i)
                skim_sweep(world, &q[i].shape, q[i].start, q[i].delta, &q[i].query, &hit);
            sweep_rate[r] = queries / (bench_now() - started);
            float sink = 0.0f;
            started = bench_now();
            for (int i = 0; i < queries; ++i)
                for (int k = 0; k < REPEAT; ++k)
                    sink += sweep_set(set, &fq[i]).t;
            floor_rate[r] = (double)queries * REPEAT / (bench_now() - started);
            if (sink < 0.0f) /* never: keeps the calls */
                puts("");
        }
        const double floor_median = bench_median(floor_rate, rounds);
        const double sweep_median = bench_median(sweep_rate, rounds);
        printf("{\"bench\":\"sweep_floor\",\"scene\":\"%s\",\"set\":\"%s\",\"width\":%u,"
               "\"queries\":%d,\"rounds\":%d,\"swept_candidates_per_sweep\":%.1f,"
               "\"must_test_per_sweep\":%.1f,\"kernel_only_sweeps_per_s\":%.0f,"
               "\"kernel_only_ns_per_sweep\":%.1f,\"skim_sweep_per_s\":%.0f,"
               "\"skim_sweep_over_kernel_only\":%.3f,\"target_sweeps_per_s\":4000000}\n",
               loaded.name, set->name, set->width, queries, rounds, (double)swept / queries,
               (double)must_test / queries, floor_median, 1e9 / floor_median, sweep_median,
               sweep_median / floor_median);
        fflush(stdout);
    }
    for (int i = 0; i < queries; ++i)
        skim_candidates_free(&fq[i].set);
    free(fq);
    free(floor_rate);
    free(sweep_rate);
    free(q);
    skim_world_destroy(world);
    bench_scene_free(&loaded);
    return 0;
}
