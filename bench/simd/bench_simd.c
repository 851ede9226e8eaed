/* Kernel-set benchmark: triangle tests per second per core for every set
   this CPU runs, on the same candidate buffers, as JSON lines.

   Workloads (the buffers are built once, then every set sweeps all of them):
     moves:<file>  exactly the buffers collide-and-slide hands the kernels:
                   players walking, jumping and falling through a real level
                   (SKIM_SCENES_DIR, else the build's scenes_dir) or
                   the default scene with skim_move's own code, recorded by a
                   kernel set that copies what it is given;
     sweeps:<file> what skim_sweep gathers for the game-like sweeps of
                   simd_scene.h (starts anywhere near a surface, many already
                   touching);
     full          1024-lane buffers in which every lane takes the longest
                   path (clear of its plane, reaching it in range, missing
                   the face, so all six quadratics run): the packets are full
                   of real work;
     random        the equivalence suite's random and adversarial mix.
   Each workload is thinned to about 40,000 candidates (2 MB) so it stays
   in L2, as a buffer just gathered does. One thread (per core); each
   (set, workload) is timed round-robin over 25
   rounds of >= 0.04 s and the fastest round is kept: the machine is shared
   and noisy, so the minimum is the least disturbed. Count instructions with
   callgrind.sh (valgrind) where timing is too noisy to trust.

   Usage: bench_simd [--workload NAME] [--set NAME] [--passes N]
   With --set, only that set runs, N passes, no timing rounds (for valgrind). */
#include "simd_cases.h"
#include "simd_scene.h"
#include "../bench_usage.h"

#include <time.h>

#if __has_include("move/move_internal.h")
#include "move/move_internal.h"
#define HAVE_MOVE_RUN 1
#endif

#ifndef SKIM_DEFAULT_SCENES_DIR
#define SKIM_DEFAULT_SCENES_DIR ""
#endif

typedef struct workload {
    char name[64];
    int count;
    skim_candidates *buffers;
    float (*delta)[3];
    bool *cull;
    long triangles; /* real lanes in one pass */
} workload;

static void workload_add(workload *w, const skim_candidates *c, const float delta[3], bool cull)
{
    w->buffers = realloc(w->buffers, (size_t)(w->count + 1) * sizeof *w->buffers);
    w->delta = realloc(w->delta, (size_t)(w->count + 1) * sizeof *w->delta);
    w->cull = realloc(w->cull, (size_t)(w->count + 1) * sizeof *w->cull);
    if (!w->buffers || !w->delta || !w->cull)
        abort();
    skim_candidates_init(&w->buffers[w->count]);
    candidates_copy(&w->buffers[w->count], c);
    memcpy(w->delta[w->count], delta, sizeof w->delta[0]);
    w->cull[w->count] = cull;
    w->triangles += c->count;
    w->count++;
}

#if HAVE_MOVE_RUN
static workload *recording;

static void record_sweep(const skim_candidates *c, const float delta[3], bool cull,
                         skim_unit_hit *best)
{
    workload_add(recording, c, delta, cull);
    skim_simd_sweep_portable(c, delta, cull, best); /* every set gives the same bits */
}

/* Moves start each slide iteration from a new origin over one gather
   (skim_sweep_candidates_from_fn): recorded as the re-based copy the
   kernel's contract says it is equivalent to, bit for bit. */
static void record_sweep_from(const skim_candidates *c, const float origin[3],
                              const float delta[3], bool cull, skim_unit_hit *best)
{
    skim_candidates rebased;
    skim_candidates_init(&rebased);
    if (skim_candidates_reserve(&rebased, c->count) != SKIM_OK) {
        fprintf(stderr, "bench_simd: out of memory\n");
        exit(1);
    }
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            for (uint32_t lane = 0; lane < c->count; ++lane)
                rebased.vertex[v][axis][lane] = c->vertex[v][axis][lane] - origin[axis];
    if (c->count) { /* an empty buffer may have no arrays: memcpy from NULL is undefined */
        memcpy(rebased.triangle, c->triangle, c->count * sizeof(uint32_t));
        memcpy(rebased.material, c->material, c->count * sizeof(uint16_t));
    }
    rebased.count = c->count;
    skim_candidates_pad(&rebased);
    record_sweep(&rebased, delta, cull, best);
    skim_candidates_free(&rebased);
}

/* Players on the level's floors, 20 ticks of running at 320 u/s (16 units
   a tick at 20 Hz), turning now and then, jumping sometimes, with gravity,
   step-up and snap-down: what a game server asks for. */
static bool make_moves(workload *w, const char *level, int movers, int ticks)
{
    scene s;
    char why[512];
    if (!scene_open(level, SKIM_ACCELERATOR_BVH, &s, why, sizeof why))
        return false;
    snprintf(w->name, sizeof w->name, "moves:%s", level);
    recording = w;
    const skim_kernel_set recorder = { .name = "recorder", .width = 4, .sweep = record_sweep,
                                       .sweep_from = record_sweep_from };
    rng r = { 0x94d049bb133111ebull };
    skim_move_def def = skim_move_def_default();
    def.step_height = 18.0f;
    def.snap_distance = 4.0f;
    def.gravity = (skim_vec3){ 0, 0, -10 };
    for (int m = 0; m < movers; ++m) {
        const bool ellipsoid = rng_below(&r, 2);
        skim_ellipsoid shape = { { 16, 16, 16 }, { 0, 0, 0, 1 } };
        if (ellipsoid)
            shape.radii = (skim_vec3){ 15, 15, 28 };
        skim_vec3 pos;
        for (;;) { /* a floor: normal within 45 degrees of up */
            const uint32_t *t = s.mesh.indices + 3 * (size_t)rng_below(&r, s.mesh.triangle_count);
            const float *p[3] = { s.mesh.positions + 3 * (size_t)t[0],
                                  s.mesh.positions + 3 * (size_t)t[1],
                                  s.mesh.positions + 3 * (size_t)t[2] };
            double ab[3], ac[3], n[3];
            for (int k = 0; k < 3; ++k) {
                ab[k] = (double)p[1][k] - p[0][k];
                ac[k] = (double)p[2][k] - p[0][k];
            }
            cross3d(ab, ac, n);
            double length = sqrt(dot3d(n, n));
            if (!(length > 1e-6) || n[2] / length < 0.7)
                continue;
            pos = (skim_vec3){ (p[0][0] + p[1][0] + p[2][0]) / 3.0f,
                               (p[0][1] + p[1][1] + p[2][1]) / 3.0f,
                               (p[0][2] + p[1][2] + p[2][2]) / 3.0f + shape.radii.z + 1.0f };
            break;
        }
        double heading = rng_uniform(&r, 0, 6.283185307179586);
        for (int tick = 0; tick < ticks; ++tick) {
            if (rng_below(&r, 4) == 0)
                heading += rng_uniform(&r, -1.5, 1.5);
            skim_vec3 run = { (float)(16 * cos(heading)), (float)(16 * sin(heading)),
                              rng_below(&r, 10) == 0 ? 12.0f : 0.0f };
            skim_move_result out;
            if (skim_move_run(&recorder, s.world, &shape, pos, run, &def, &out) != SKIM_OK)
                break;
            pos = out.position;
        }
    }
    recording = NULL;
    scene_free(&s);
    return true;
}
#endif

static bool make_level(workload *w, const char *level, int sweeps)
{
    scene s;
    char why[512];
    if (!scene_open(level, SKIM_ACCELERATOR_BVH, &s, why, sizeof why))
        return false;
    snprintf(w->name, sizeof w->name, "sweeps:%s", level);
    rng r = { 0x853c49e6748fea9bull };
    skim_candidates c;
    skim_candidates_init(&c);
    for (int i = 0; i < sweeps; ++i) {
        scene_sweep sw;
        scene_sweep_make(&r, &s.mesh, &sw);
        float delta[3];
        if (scene_gather(s.world, &sw, &c, delta) == SKIM_OK && c.count)
            workload_add(w, &c, delta, sw.cull);
    }
    skim_candidates_free(&c);
    scene_free(&s);
    return true;
}

/* Every lane: plane at distance h > 1 ahead, first touched at t1 in
   [0.05, 0.9], the touching point 0.2..3 outside one edge. */
static void make_full(workload *w, int buffers, uint32_t lanes)
{
    snprintf(w->name, sizeof w->name, "full");
    rng r = { 0xda3e39cb94b95bdbull };
    skim_candidates c;
    skim_candidates_init(&c);
    if (skim_candidates_reserve(&c, lanes) != SKIM_OK)
        abort();
    for (int b = 0; b < buffers; ++b) {
        double dir[3];
        rng_unit_vector(&r, dir);
        const float delta[3] = { (float)(10 * dir[0]), (float)(10 * dir[1]), (float)(10 * dir[2]) };
        for (uint32_t lane = 0; lane < lanes; ++lane) {
            double m[3], e1[3], e2[3], p[3];
            do
                rng_unit_vector(&r, m);
            while (dot3d(m, dir) > -0.3);
            const double t1 = rng_uniform(&r, 0.05, 0.9), out = rng_uniform(&r, 0.2, 3.0);
            perpendicular(&r, m, e1);
            cross3d(m, e1, e2);
            float tri[3][3];
            for (int k = 0; k < 3; ++k) {
                p[k] = t1 * 10 * dir[k] - m[k] + out * e2[k]; /* on the edge's line */
                tri[0][k] = (float)(p[k] - 2.0 * e1[k]);
                tri[1][k] = (float)(p[k] + 2.0 * e1[k]);
                tri[2][k] = (float)(p[k] + 3.0 * e2[k]);
            }
            candidates_set(&c, lane, (const float(*)[3])tri, lane);
        }
        c.count = lanes;
        skim_candidates_pad(&c);
        workload_add(w, &c, delta, false);
    }
    skim_candidates_free(&c);
}

static void make_random(workload *w, int buffers)
{
    snprintf(w->name, sizeof w->name, "random");
    rng r = { 0x9e3779b97f4a7c15ull };
    case_buffer b;
    memset(&b, 0, sizeof b);
    skim_candidates_init(&b.c);
    for (int i = 0; i < buffers; ++i) {
        make_buffer(&r, &b, 64);
        workload_add(w, &b.c, b.delta, b.cull);
    }
    skim_candidates_free(&b.c);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile uint32_t sink;

static void one_pass(const workload *w, skim_sweep_candidates_fn sweep)
{
    uint32_t acc = 0;
    for (int i = 0; i < w->count; ++i) {
        skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
        sweep(&w->buffers[i], w->delta[i], w->cull[i], &best);
        acc += best.triangle;
    }
    sink += acc;
}

/* The pass callgrind.sh counts (--toggle-collect): a function of its own,
   so recording a workload (which runs kernels too) is not counted. */
__attribute__((noinline)) static void measured_pass(const workload *w,
                                                    skim_sweep_candidates_fn sweep)
{
    one_pass(w, sweep);
}

/* Seconds per pass for one round of at least min_seconds. */
static double time_round(const workload *w, skim_sweep_candidates_fn sweep, double min_seconds)
{
    long passes = 0;
    double start = now(), elapsed;
    do {
        one_pass(w, sweep);
        passes++;
        elapsed = now() - start;
    } while (elapsed < min_seconds);
    return elapsed / (double)passes;
}

static const char *const set_names[] = { "reference", "portable", "sse41", "avx2", "avx512",
                                         "avx512vl", "neon" };
enum { set_count = sizeof set_names / sizeof set_names[0], rounds = 25 };

static void bench_workload(const workload *w)
{
    double best[set_count];
    const skim_kernel_set *sets[set_count];
    for (int s = 0; s < set_count; ++s) {
        sets[s] = skim_kernel_set_by_name(set_names[s]);
        best[s] = INFINITY;
        if (sets[s])
            one_pass(w, sets[s]->sweep); /* warm up */
    }
    for (int round = 0; round < rounds; ++round)
        for (int s = 0; s < set_count; ++s)
            if (sets[s])
                best[s] = fmin(best[s], time_round(w, sets[s]->sweep, 0.04));
    for (int s = 0; s < set_count; ++s) {
        if (!sets[s]) {
            printf("{\"bench\":\"simd_kernels\",\"workload\":\"%s\",\"set\":\"%s\","
                   "\"skipped\":\"this CPU cannot run it\"}\n",
                   w->name, set_names[s]);
            continue;
        }
        const double per_triangle = best[s] / (double)w->triangles;
        printf("{\"bench\":\"simd_kernels\",\"workload\":\"%s\",\"set\":\"%s\",\"width\":%u,"
               "\"buffers\":%d,\"candidates_per_buffer\":%.1f,\"ns_per_triangle\":%.3f,"
               "\"triangle_tests_per_second\":%.4g,\"speedup_vs_reference\":%.2f,"
               "\"speedup_vs_portable\":%.2f,\"threads\":1}\n",
               w->name, set_names[s], sets[s]->width, w->count,
               (double)w->triangles / (double)w->count, 1e9 * per_triangle, 1.0 / per_triangle,
               best[0] / best[s], best[1] / best[s]);
    }
    fflush(stdout);
}

/* Keeps every k-th buffer so the workload's candidates fit in L2 (about
   2 MB): in use the kernels read a buffer just gathered or reused by a
   move's slide iterations, so cache-cold timings would measure memory,
   not the kernels. */
static void workload_fit_cache(workload *w, long max_lanes)
{
    if (w->triangles <= max_lanes)
        return;
    const int step = (int)((w->triangles + max_lanes - 1) / max_lanes);
    int kept = 0;
    long triangles = 0;
    for (int i = 0; i < w->count; ++i) {
        if (i % step != 0) {
            skim_candidates_free(&w->buffers[i]);
            continue;
        }
        w->buffers[kept] = w->buffers[i];
        memcpy(w->delta[kept], w->delta[i], sizeof w->delta[0]);
        w->cull[kept] = w->cull[i];
        triangles += w->buffers[kept].count;
        kept++;
    }
    w->count = kept;
    w->triangles = triangles;
}

static void workload_free(workload *w)
{
    for (int i = 0; i < w->count; ++i)
        skim_candidates_free(&w->buffers[i]);
    free(w->buffers), free(w->delta), free(w->cull);
    memset(w, 0, sizeof *w);
}

int main(int argc, char **argv)
{
    const char *only_workload = NULL, *only_set = NULL;
    long passes = 1;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 < argc && strcmp(argv[i], "--workload") == 0)
            only_workload = argv[i + 1];
        else if (i + 1 < argc && strcmp(argv[i], "--set") == 0)
            only_set = argv[i + 1];
        else if (i + 1 < argc && strcmp(argv[i], "--passes") == 0)
            passes = strtol(argv[i + 1], NULL, 10);
        else {
            return bench_usage("bench_simd", argv[i],
                               "usage: bench_simd [--workload NAME] [--set NAME] [--passes N]\n"
                               "  Times every kernel set on recorded candidate buffers and prints JSON lines.\n"
                               "  workloads: moves:oa_dm4_hull.obj moves:oa_dm1.obj moves:default\n"
                               "             sweeps:oa_dm4_hull.obj sweeps:oa_dm1.obj sweeps:default full random\n"
                               "  sets: reference portable neon sse41 avx2 avx512 avx512vl\n");
        }
    }
    static const char default_scenes[] = SKIM_DEFAULT_SCENES_DIR;
    if (!getenv("SKIM_SCENES_DIR") && default_scenes[0])
        setenv("SKIM_SCENES_DIR", default_scenes, 0);

    const char *names[] = { "moves:oa_dm4_hull.obj", "moves:oa_dm1.obj", "moves:default",
                            "sweeps:oa_dm4_hull.obj", "sweeps:oa_dm1.obj", "sweeps:default",
                            "full", "random" };
    for (size_t n = 0; n < sizeof names / sizeof names[0]; ++n) {
        if (only_workload && strcmp(only_workload, names[n]) != 0)
            continue;
        workload w = { 0 };
        bool made = true;
        if (strncmp(names[n], "sweeps:", 7) == 0) {
            made = make_level(&w, names[n] + 7, 4000);
        } else if (strncmp(names[n], "moves:", 6) == 0) {
#if HAVE_MOVE_RUN
            made = make_moves(&w, names[n] + 6, 200, 20);
#else
            made = false;
#endif
        }
        if (!made) {
            printf("{\"bench\":\"simd_kernels\",\"workload\":\"%s\",\"skipped\":\"level "
                   "absent (or no collide-and-slide in this tree)\"}\n", names[n]);
            continue;
        }
        if (strcmp(names[n], "full") == 0)
            make_full(&w, 36, 1024);
        else if (strcmp(names[n], "random") == 0)
            make_random(&w, 4000);
        workload_fit_cache(&w, 40000);
        if (only_set) {
            const skim_kernel_set *set = skim_kernel_set_by_name(only_set);
            if (!set) {
                fprintf(stderr, "set %s: unknown or not runnable here (%s)\n", only_set,
                        skim_isa_available());
                return 1;
            }
            for (long p = 0; p < passes; ++p)
                measured_pass(&w, set->sweep);
            printf("{\"bench\":\"simd_kernels_count\",\"workload\":\"%s\",\"set\":\"%s\","
                   "\"triangles\":%ld,\"calls\":%ld}\n",
                   w.name, only_set, w.triangles * passes, (long)w.count * passes);
        } else {
            bench_workload(&w);
        }
        workload_free(&w);
    }
    return 0;
}
