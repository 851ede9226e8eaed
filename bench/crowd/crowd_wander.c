/* The wander scenario: crowd steps per second, with and without
   agent-agent collisions, for 1,000, 10,000 and 100,000 agents on 1 and 2
   threads. One JSON object per line; after each with/without pair, a line
   with the overhead.

   Scenes:
     plaza    a flat floor of 128-unit tiles with walls around and a pillar
              every 512 units, sized to the crowd so that agents cover 15% of
              the floor (a busy square, not a jam): the same density at
              every count, so the counts compare;
     default  the built-in level (1,000 and 10,000 only: 10,000 agents cover
              about half its floor, a jam);
     terrain  the generated open world of rolling hills and boxes
              (tools/terrain_scene.h), agents spread evenly over the spots
              `skim crowd` would use (10,000 and 100,000).
   Agents: spheres of radius 16 walking at 320/s, turning once a second,
   5% jumping at each turn (bench/move's crowd). Each run steps
   WARMUP frames, then times FRAMES frames; figures are medians over frames
   (the machine is shared: medians, not means).

   usage: bench_crowd [--scenario wander] [--quick] [--threads 1|2]
                      [--only plaza|default|terrain AGENTS on|off] [--frames F]
   (--quick: 1,000 and 10,000 only; --threads: only that count; --only: one
   scene, count and collision setting, for a profiler such as callgrind
   --toggle-collect=skim_crowd_step; --frames: frames timed per run) */
#include "crowd_wander.h"
#include "terrain_scene.h"
#include "tool_spots.h"

#include <skim/skim.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RADIUS 16.0f
#define COVER 0.15 /* fraction of the plaza's floor the agents cover */
#define WARMUP 10

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of the whole process (all threads). On one thread it leaves out
   the time another process held the core, which wall-clock medians on a
   shared machine do not; on two it also counts OpenMP's waiting. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- the plaza ---- */
typedef struct builder { float *p; uint32_t *t; uint32_t nv, nt, cv, ct; } builder;

static uint32_t vertex(builder *b, float x, float y, float z)
{
    if (b->nv == b->cv) {
        b->cv = b->cv ? 2 * b->cv : 4096;
        b->p = realloc(b->p, (size_t)b->cv * 3 * sizeof *b->p);
    }
    b->p[3 * b->nv] = x, b->p[3 * b->nv + 1] = y, b->p[3 * b->nv + 2] = z;
    return b->nv++;
}

static void quad(builder *b, const float q[4][3])
{
    uint32_t v[4];
    for (int i = 0; i < 4; ++i)
        v[i] = vertex(b, q[i][0], q[i][1], q[i][2]);
    if (b->nt + 2 > b->ct) {
        b->ct = b->ct ? 2 * b->ct : 4096;
        b->t = realloc(b->t, (size_t)b->ct * 3 * sizeof *b->t);
    }
    uint32_t tri[6] = { v[0], v[1], v[2], v[0], v[2], v[3] };
    memcpy(b->t + 3 * (size_t)b->nt, tri, sizeof tri);
    b->nt += 2;
}

static void box(builder *b, float x0, float y0, float z0, float x1, float y1, float z1)
{
    const float f[6][4][3] = {
        { { x0, y0, z1 }, { x1, y0, z1 }, { x1, y1, z1 }, { x0, y1, z1 } },
        { { x0, y0, z0 }, { x0, y1, z0 }, { x1, y1, z0 }, { x1, y0, z0 } },
        { { x0, y0, z0 }, { x1, y0, z0 }, { x1, y0, z1 }, { x0, y0, z1 } },
        { { x1, y1, z0 }, { x0, y1, z0 }, { x0, y1, z1 }, { x1, y1, z1 } },
        { { x0, y1, z0 }, { x0, y0, z0 }, { x0, y0, z1 }, { x0, y1, z1 } },
        { { x1, y0, z0 }, { x1, y1, z0 }, { x1, y1, z1 }, { x1, y0, z1 } },
    };
    for (int i = 0; i < 6; ++i)
        quad(b, f[i]);
}

static skim_world *plaza(uint32_t agents, float *half_out)
{
    double area = agents * 3.14159265 * RADIUS * RADIUS / COVER;
    int tiles = (int)ceil(sqrt(area) / 128.0);
    float half = 64.0f * (float)tiles;
    builder b = { 0 };
    for (int i = 0; i < tiles; ++i)
        for (int j = 0; j < tiles; ++j) {
            float x0 = -half + 128.0f * (float)i, y0 = -half + 128.0f * (float)j;
            const float q[4][3] = { { x0, y0, 0 }, { x0 + 128, y0, 0 }, { x0 + 128, y0 + 128, 0 }, { x0, y0 + 128, 0 } };
            quad(&b, q);
        }
    box(&b, -half - 32, -half - 32, 0, half + 32, -half, 256);
    box(&b, -half - 32, half, 0, half + 32, half + 32, 256);
    box(&b, -half - 32, -half, 0, -half, half, 256);
    box(&b, half, -half, 0, half + 32, half, 256);
    for (float x = -half + 256; x < half - 128; x += 512)
        for (float y = -half + 256; y < half - 128; y += 512)
            box(&b, x, y, 0, x + 32, y + 32, 200);
    skim_mesh mesh = { b.p, b.nv, b.t, b.nt, NULL };
    skim_world *world = NULL;
    if (skim_world_create(&mesh, NULL, &world) != SKIM_OK) {
        fprintf(stderr, "plaza: %s\n", skim_last_error_message());
        exit(1);
    }
    free(b.p);
    free(b.t);
    *half_out = half;
    return world;
}

/* Free spots on the floor (z = 0) of a world, on a shuffled grid. */
static uint32_t place(const skim_world *world, float half, uint32_t want, uint64_t seed, skim_vec3 *out)
{
    const float spacing = 2.0f * RADIUS + 4.0f;
    int n = (int)floorf((2.0f * half - 2.0f * RADIUS) / spacing);
    uint32_t total = (uint32_t)n * (uint32_t)n, found = 0;
    uint32_t *order = malloc((size_t)total * sizeof *order);
    for (uint32_t i = 0; i < total; ++i)
        order[i] = i;
    for (uint32_t i = total - 1; i > 0; --i) {
        uint32_t j = (uint32_t)(mix(&seed) % (i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    const skim_ellipsoid shape = { { RADIUS, RADIUS, RADIUS }, { 0, 0, 0, 1 } };
    for (uint32_t k = 0; k < total && found < want; ++k) {
        skim_vec3 p = { -half + RADIUS + 2 + spacing * (float)(order[k] % (uint32_t)n),
                        -half + RADIUS + 2 + spacing * (float)(order[k] / (uint32_t)n), RADIUS + 1.0f };
        skim_hit hit;
        if (skim_sweep(world, &shape, p, (skim_vec3){ 0, 0, -2.0f }, NULL, &hit) == SKIM_OK && hit.hit &&
            hit.t > 0.0f && hit.normal.z > 0.9f)
            out[found++] = p;
    }
    free(order);
    return found;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Medians over the timed frames (of the whole step, its CPU time, and its
   world and agent phases), the crowd's figures (means per frame: what the
   agent-agent work scales with) and the final state hash
   (equal hashes = the same crowd, for checking that an optimisation left
   the behaviour bitwise as it was). */
typedef struct result {
    double median_ms, cpu_median_ms, world_ms, agents_ms;
    double pairs, contacts, shortened, blocked, check_rounds;
    double kernel_calls_per_move, walks_per_move; /* the world moves' */
    uint64_t hash;
} result;

static result run(const skim_world *world, const skim_vec3 *spots, uint32_t agents, int threads, bool collide,
                  int frames)
{
    omp_set_num_threads(threads);
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = agents;
    def.agent_collisions = collide;
    skim_crowd *crowd = NULL;
    if (skim_crowd_create(&def, &crowd) != SKIM_OK)
        exit(1);
    for (uint32_t i = 0; i < agents; ++i) {
        skim_agent_def a = skim_agent_def_default();
        a.position = spots[i];
        uint32_t id;
        skim_crowd_add(crowd, &a, &id);
    }
    uint64_t seed = 77;
    double *ms = malloc((size_t)frames * sizeof *ms), *cpu_ms = malloc((size_t)frames * sizeof *cpu_ms);
    double *world_ms = malloc((size_t)frames * sizeof *world_ms), *agents_ms = malloc((size_t)frames * sizeof *agents_ms);
    result r = { 0 };
    uint64_t moves = 0, calls = 0, walks = 0;
    for (int frame = -WARMUP; frame < frames; ++frame) {
        for (uint32_t i = 0; i < agents; ++i)
            if ((uint32_t)(frame + WARMUP + (int)i) % 60 == 0) {
                double angle = (double)(mix(&seed) >> 11) * (6.283185307179586 / 9007199254740992.0);
                skim_crowd_set_velocity(crowd, i, (skim_vec3){ 320 * (float)cos(angle), 320 * (float)sin(angle), 0 });
                if (mix(&seed) % 20 == 0)
                    skim_crowd_jump(crowd, i, 40.0f, NULL);
            }
        double t0 = now(), c0 = cpu_now();
        if (skim_crowd_step(world, crowd, 1.0f / 60.0f) != SKIM_OK) {
            fprintf(stderr, "step: %s\n", skim_last_error_message());
            exit(1);
        }
        double t1 = now(), c1 = cpu_now();
        if (frame >= 0) {
            ms[frame] = (t1 - t0) * 1e3;
            cpu_ms[frame] = (c1 - c0) * 1e3;
            skim_crowd_stats s;
            skim_crowd_get_stats(crowd, &s);
            world_ms[frame] = s.seconds_world * 1e3;
            agents_ms[frame] = s.seconds_agents * 1e3;
            r.pairs += (double)s.pairs / frames;
            r.contacts += (double)s.contacts / frames;
            r.shortened += (double)s.shortened / frames;
            r.blocked += (double)s.blocked / frames;
            r.check_rounds += (double)s.check_rounds / frames;
            moves += s.world_moves;
            calls += s.world_kernel_calls;
            walks += s.world_walks;
        }
    }
    qsort(ms, (size_t)frames, sizeof *ms, by_value);
    qsort(cpu_ms, (size_t)frames, sizeof *cpu_ms, by_value);
    qsort(world_ms, (size_t)frames, sizeof *world_ms, by_value);
    qsort(agents_ms, (size_t)frames, sizeof *agents_ms, by_value);
    r.median_ms = ms[frames / 2];
    r.cpu_median_ms = cpu_ms[frames / 2];
    r.world_ms = world_ms[frames / 2];
    r.agents_ms = agents_ms[frames / 2];
    r.hash = skim_crowd_hash(crowd);
    r.kernel_calls_per_move = moves ? (double)calls / (double)moves : 0.0;
    r.walks_per_move = moves ? (double)walks / (double)moves : 0.0;
    free(ms);
    free(cpu_ms);
    free(world_ms);
    free(agents_ms);
    skim_crowd_destroy(crowd);
    return r;
}

static int only_threads; /* --threads T: just that count */
static int frames_asked;  /* --frames F: instead of the default per count */
static const char *only_scene; /* --only SCENE AGENTS on|off: one run */
static uint32_t only_agents;
static int only_collide = -1;

static void bench(const char *scene, const skim_world *world, const skim_vec3 *spots, uint32_t agents)
{
    int frames = frames_asked ? frames_asked : agents >= 100000 ? 20 : agents >= 10000 ? 60 : 300;
    for (int threads = 1; threads <= 2; ++threads) {
        if (only_threads && threads != only_threads)
            continue;
        result with = { 0 }, without = { 0 };
        for (int collide = 1; collide >= 0; --collide) {
            if (only_collide >= 0 && collide != only_collide)
                continue;
            result r = run(world, spots, agents, threads, collide, frames);
            printf("{\"bench\":\"crowd\",\"scenario\":\"wander\",\"scene\":\"%s\",\"agents\":%u,\"threads\":%d,\"agent_collisions\":%s,"
                   "\"frames\":%d,\"ms_per_frame_median\":%.3f,\"cpu_ms_per_frame_median\":%.3f,\"crowd_steps_per_second\":%.1f,"
                   "\"mover_steps_per_second\":%.0f,\"ms_world_median\":%.3f,\"ms_agents_median\":%.3f,"
                   "\"pairs_mean\":%.0f,\"contacts_mean\":%.0f,\"shortened_mean\":%.1f,\"blocked_mean\":%.1f,"
                   "\"check_rounds_mean\":%.2f,\"kernel_calls_per_move\":%.3f,\"walks_per_move\":%.4f,"
                   "\"state_hash\":\"%016llx\"}\n",
                   scene, agents, threads, collide ? "true" : "false", frames, r.median_ms, r.cpu_median_ms, 1e3 / r.median_ms,
                   agents * 1e3 / r.median_ms, r.world_ms, r.agents_ms, r.pairs, r.contacts, r.shortened, r.blocked,
                   r.check_rounds, r.kernel_calls_per_move, r.walks_per_move, (unsigned long long)r.hash);
            fflush(stdout);
            if (collide)
                with = r;
            else
                without = r;
        }
        if (only_collide >= 0)
            continue;
        printf("{\"bench\":\"crowd_overhead\",\"scenario\":\"wander\",\"scene\":\"%s\",\"agents\":%u,\"threads\":%d,"
               "\"agent_collision_overhead_percent\":%.1f,\"cpu_overhead_percent\":%.1f,\"target_percent\":30}\n",
               scene, agents, threads, 100.0 * (with.median_ms / without.median_ms - 1.0),
               100.0 * (with.cpu_median_ms / without.cpu_median_ms - 1.0));
        fflush(stdout);
    }
}

/* The plaza sized for agents; 0 when it ran. */
static int bench_plaza(uint32_t agents)
{
    float half;
    skim_world *world = plaza(agents, &half);
    skim_vec3 *spots = malloc(agents * sizeof *spots);
    if (place(world, half, agents, 5, spots) < agents) {
        fprintf(stderr, "plaza too small\n");
        return 1;
    }
    bench("plaza", world, spots, agents);
    free(spots);
    skim_world_destroy(world);
    return 0;
}

/* The default level with each of the count_number counts; 0 when it ran. */
static int bench_default(const uint32_t *counts, int count_number)
{
    skim_mesh_data scene;
    skim_scene_default(&scene);
    skim_mesh mesh = skim_mesh_data_view(&scene);
    skim_world *world = NULL;
    skim_world_create(&mesh, NULL, &world);
    int failed = 0;
    for (int k = 0; k < count_number && !failed; ++k) {
        /* The level's ground floor, away from its props: spots on the plaza
           grid within the outer walls that stand free on z = 0. */
        skim_vec3 *spots = malloc(counts[k] * sizeof *spots);
        if (place(world, 2048.0f, counts[k], 9, spots) < counts[k]) {
            fprintf(stderr, "default scene too small for %u\n", counts[k]);
            failed = 1;
        } else {
            bench("default", world, spots, counts[k]);
        }
        free(spots);
    }
    skim_world_destroy(world);
    skim_mesh_data_free(&scene);
    return failed;
}

/* The generated terrain with each of the count_number counts, the agents
   on every (spots / count)-th standing spot, so spread over the whole
   world; 0 when it ran. */
static int bench_terrain(const uint32_t *counts, int count_number)
{
    skim_mesh_data scene;
    if (!terrain_scene_generate(&scene)) {
        fprintf(stderr, "out of memory generating the terrain\n");
        return 1;
    }
    skim_mesh mesh = skim_mesh_data_view(&scene);
    skim_world *world = NULL;
    uint32_t available = 0;
    skim_vec3 *spots = NULL;
    int failed = skim_world_create(&mesh, NULL, &world) != SKIM_OK ||
                 !(spots = tool_find_spots(world, &available));
    for (int k = 0; k < count_number && !failed; ++k) {
        if (available < counts[k]) {
            fprintf(stderr, "terrain too small for %u\n", counts[k]);
            failed = 1;
            break;
        }
        skim_vec3 *spread = malloc(counts[k] * sizeof *spread);
        if (!spread) {
            failed = 1;
            break;
        }
        for (uint32_t i = 0; i < counts[k]; ++i)
            spread[i] = spots[(uint64_t)i * available / counts[k]];
        bench("terrain", world, spread, counts[k]);
        free(spread);
    }
    free(spots);
    skim_world_destroy(world);
    skim_mesh_data_free(&scene);
    return failed;
}

int crowd_wander_main(int argc, char **argv)
{
    bool quick = false;
    for (int i = 0; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            only_threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            frames_asked = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 3 < argc &&
                 (strcmp(argv[i + 1], "plaza") == 0 || strcmp(argv[i + 1], "default") == 0 ||
                  strcmp(argv[i + 1], "terrain") == 0) &&
                 (strcmp(argv[i + 3], "on") == 0 || strcmp(argv[i + 3], "off") == 0)) {
            only_scene = argv[i + 1];
            only_agents = (uint32_t)strtoul(argv[i + 2], NULL, 10);
            only_collide = strcmp(argv[i + 3], "on") == 0;
            i += 3;
        } else {
            fprintf(stderr, "usage: bench_crowd [--scenario wander] [--quick] [--threads 1|2] [--only plaza|default|terrain AGENTS on|off] "
                            "[--frames F]\n");
            return 2;
        }
    }
    const uint32_t counts[3] = { 1000, 10000, 100000 };
    if (only_scene && strcmp(only_scene, "plaza") == 0)
        return bench_plaza(only_agents);
    if (only_scene && strcmp(only_scene, "terrain") == 0)
        return bench_terrain(&only_agents, 1);
    if (only_scene)
        return bench_default(&only_agents, 1);
    for (int k = 0; k < (quick ? 2 : 3); ++k)
        if (bench_plaza(counts[k]))
            return 1;
    if (bench_default(counts, 2))
        return 1;
    return bench_terrain(counts + 1, quick ? 1 : 2);
}

