/* A crowd among moving bodies against the same crowd with the bodies
   frozen as static geometry: one JSON line with both frame times, measured
   in the same run, frame by frame in turn (so load on the machine falls on
   both alike), and their ratio.

   The level: a floor 5120 units square with 100 slabs (160 x 160, 16 high:
   agents step onto them) on a 10 x 10 grid; agents (spheres of radius 16)
   on a 100 x 100 grid, each walking at 160 units/s in a direction it picks
   anew every second. "moving": the slabs are bodies, each circling a point
   with radius 64 once every 4 s (riders carried, walkers pushed);
   "frozen": the slabs, where they start, built into the world.
   `--only moving` (or `frozen`) steps one crowd alone, for a profiler:
   the ratio then means nothing. `--resting off` moves every agent through
   the world every step (skim_crowd_def.resting): agents pressing into a
   frozen slab rest, those near a moving one cannot, so resting lowers the
   frozen crowd's time more than the moving one's. */
#include <skim/skim.h>

#include "../bench_common.h"
#include "../bench_usage.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT (1.0f / 60.0f)
#define SLABS 100
#define SLAB_SPACING 512.0f
#define CIRCLE 64.0f

/* Boxes as one mesh: 8 corners and 12 triangles each. */
typedef struct boxes {
    float *positions;
    uint32_t *indices;
    uint32_t count;
} boxes;

static void add_box(boxes *b, const float lo[3], const float hi[3])
{
    float *p = b->positions + 24 * (size_t)b->count;
    for (uint32_t v = 0; v < 8; ++v)
        for (int axis = 0; axis < 3; ++axis)
            p[3 * v + axis] = (v >> axis) & 1u ? hi[axis] : lo[axis];
    static const uint32_t faces[12][3] = {
        { 0, 2, 3 }, { 0, 3, 1 }, { 4, 5, 7 }, { 4, 7, 6 }, { 0, 1, 5 }, { 0, 5, 4 },
        { 2, 6, 7 }, { 2, 7, 3 }, { 0, 4, 6 }, { 0, 6, 2 }, { 1, 3, 7 }, { 1, 7, 5 },
    };
    uint32_t *t = b->indices + 36 * (size_t)b->count;
    for (int f = 0; f < 12; ++f)
        for (int v = 0; v < 3; ++v)
            t[3 * f + v] = 8 * b->count + faces[f][v];
    b->count++;
}

static skim_world *build(const boxes *b)
{
    skim_mesh mesh = { b->positions, 8 * b->count, b->indices, 12 * b->count, NULL };
    skim_world *world = NULL;
    if (skim_world_create(&mesh, NULL, &world) != SKIM_OK) {
        fprintf(stderr, "bench_crowd_bodies: %s\n", skim_last_error_message());
        exit(1);
    }
    return world;
}

static skim_vec3 slab_centre(int k)
{
    return (skim_vec3){ SLAB_SPACING * ((float)(k % 10) - 4.5f), SLAB_SPACING * ((float)(k / 10) - 4.5f), 0.0f };
}

/* Slab k at time t: circling its centre, each a phase of its own. */
static skim_transform slab_at(int k, double t)
{
    const double angle = 1.5707963267948966 * t + 0.7 * k;
    skim_vec3 c = slab_centre(k);
    return (skim_transform){ { c.x + (float)(CIRCLE * (cos(angle) - 1.0)), c.y + (float)(CIRCLE * sin(angle)), 0.0f },
                             { 0, 0, 0, 1 } };
}

static skim_crowd *make_crowd(uint32_t agents, bool resting, uint32_t interval)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = agents;
    def.resting = resting;
    def.avoidance_interval = interval;
    skim_crowd *crowd = NULL;
    if (skim_crowd_create(&def, &crowd) != SKIM_OK)
        exit(1);
    const uint32_t side = (uint32_t)ceil(sqrt((double)agents));
    const float spacing = 5000.0f / (float)side;
    for (uint32_t i = 0; i < agents; ++i) {
        skim_agent_def a = skim_agent_def_default();
        a.position = (skim_vec3){ spacing * ((float)(i % side) - 0.5f * (float)side + 0.5f),
                                  spacing * ((float)(i / side) - 0.5f * (float)side + 0.5f), 40.0f };
        uint32_t id;
        if (skim_crowd_add(crowd, &a, &id) != SKIM_OK)
            exit(1);
    }
    return crowd;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    uint32_t agents = 10000, frames = 240;
    int threads = 0;
    int only = 0; /* 1: step the moving crowd alone, 2: the frozen one (for a profiler) */
    bool resting = true;
    uint32_t interval = skim_crowd_def_default().avoidance_interval;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--agents") == 0 && i + 1 < argc)
            agents = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
            frames = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc && strcmp(argv[i + 1], "moving") == 0)
            only = 1, ++i;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc && strcmp(argv[i + 1], "frozen") == 0)
            only = 2, ++i;
        else if (strcmp(argv[i], "--resting") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "on") == 0 || strcmp(argv[i + 1], "off") == 0))
            resting = strcmp(argv[++i], "on") == 0;
        else if (strcmp(argv[i], "--avoidance-interval") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 1 &&
                 atoi(argv[i + 1]) <= 16)
            interval = (uint32_t)atoi(argv[++i]);
        else
            return bench_usage("bench_crowd_bodies", argv[i],
                               "usage: bench_crowd_bodies [--agents N] [--frames F] [--threads T]"
                               " [--only moving|frozen] [--resting on|off]\n"
                               "       [--avoidance-interval K]\n");
    }
    if (agents < 1 || frames < 1) {
        fprintf(stderr, "bench_crowd_bodies: --agents and --frames must be at least 1\n");
        return 2;
    }
    if (threads > 0)
        omp_set_num_threads(threads);
    boxes level = { malloc(24 * sizeof(float) * (SLABS + 1)), malloc(36 * sizeof(uint32_t) * (SLABS + 1)), 0 },
          frozen = { malloc(24 * sizeof(float) * (SLABS + 1)), malloc(36 * sizeof(uint32_t) * (SLABS + 1)), 0 },
          slab = { malloc(24 * sizeof(float)), malloc(36 * sizeof(uint32_t)), 0 };
    const float floor_lo[3] = { -2560, -2560, -32 }, floor_hi[3] = { 2560, 2560, 0 };
    add_box(&level, floor_lo, floor_hi);
    add_box(&frozen, floor_lo, floor_hi);
    const float slab_lo[3] = { -80, -80, 0 }, slab_hi[3] = { 80, 80, 16 };
    add_box(&slab, slab_lo, slab_hi);
    for (int k = 0; k < SLABS; ++k) {
        skim_vec3 p = slab_at(k, 0.0).position;
        const float lo[3] = { p.x - 80, p.y - 80, 0 }, hi[3] = { p.x + 80, p.y + 80, 16 };
        add_box(&frozen, lo, hi);
    }
    skim_world *moving_world = build(&level), *frozen_world = build(&frozen), *slab_shape = build(&slab);
    uint32_t ids[SLABS];
    for (int k = 0; k < SLABS; ++k)
        if (skim_world_add_body(moving_world, slab_shape, slab_at(k, 0.0), &ids[k]) != SKIM_OK)
            return 1;
    skim_crowd *moving = make_crowd(agents, resting, interval), *still = make_crowd(agents, resting, interval);
    double *ms_moving = malloc(frames * sizeof(double)), *ms_frozen = malloc(frames * sizeof(double));
    uint64_t random = 12345, squeezed = 0;
    double world_ms[2] = { 0, 0 }, agents_ms[2] = { 0, 0 };
    /* Per frame, means: what the agents' part does, moving and frozen. */
    double pairs[2] = { 0, 0 }, contacts[2] = { 0, 0 }, rounds[2] = { 0, 0 }, shortened[2] = { 0, 0 }, rested[2] = { 0, 0 };
    for (uint32_t frame = 0; frame < frames; ++frame) {
        for (uint32_t i = 0; i < agents; ++i)
            if ((frame + i) % 60 == 0) {
                double angle = 6.283185307179586 * (double)(bench_random(&random) >> 11) * (1.0 / 9007199254740992.0);
                skim_vec3 v = { 160.0f * (float)cos(angle), 160.0f * (float)sin(angle), 0 };
                skim_crowd_set_velocity(moving, i, v);
                skim_crowd_set_velocity(still, i, v);
            }
        for (int k = 0; k < SLABS; ++k)
            skim_world_set_body_transform(moving_world, ids[k], slab_at(k, (double)(frame + 1) * DT));
        double t0 = bench_seconds();
        if (only != 2 && skim_crowd_step(moving_world, moving, DT) != SKIM_OK)
            return 1;
        double t1 = bench_seconds();
        if (only != 1 && skim_crowd_step(frozen_world, still, DT) != SKIM_OK)
            return 1;
        double t2 = bench_seconds();
        ms_moving[frame] = 1e3 * (t1 - t0);
        ms_frozen[frame] = 1e3 * (t2 - t1);
        skim_crowd_stats stats;
        skim_crowd_get_stats(still, &stats);
        for (int k = 1; k >= 0; --k) {
            if (k == 0)
                skim_crowd_get_stats(moving, &stats);
            world_ms[k] += 1e3 * stats.seconds_world / frames;
            agents_ms[k] += 1e3 * stats.seconds_agents / frames;
            pairs[k] += (double)stats.pairs / frames;
            contacts[k] += (double)stats.contacts / frames;
            rounds[k] += (double)stats.check_rounds / frames;
            shortened[k] += (double)(stats.shortened + stats.blocked) / frames;
            rested[k] += (double)stats.resting / frames;
        }
        squeezed += stats.squeezed;
    }
    uint32_t riding = 0;
    for (uint32_t i = 0; i < agents; ++i) {
        skim_agent_info info;
        skim_crowd_get_agent(moving, i, &info);
        riding += info.floor_body != SKIM_STATIC;
    }
    qsort(ms_moving, frames, sizeof(double), compare_doubles);
    qsort(ms_frozen, frames, sizeof(double), compare_doubles);
    const double moving_median = ms_moving[frames / 2], frozen_median = ms_frozen[frames / 2];
    const double load = bench_load_average();
    printf("{\"bench\":\"crowd_bodies\",\"agents\":%u,\"bodies\":%d,\"frames\":%u,\"threads\":%d,\"isa\":\"%s\","
           "\"ms_per_frame_moving_median\":%.4f,\"ms_per_frame_frozen_median\":%.4f,\"ratio_moving_to_frozen\":%.4f,"
           "\"ms_world_mean\":[%.4f,%.4f],\"ms_agents_mean\":[%.4f,%.4f],\"pairs_mean\":[%.1f,%.1f],"
           "\"contacts_mean\":[%.1f,%.1f],\"check_rounds_mean\":[%.2f,%.2f],\"cut_moves_mean\":[%.1f,%.1f],"
           "\"resting\":%s,\"resting_mean\":[%.1f,%.1f],\"riding_at_end\":%u,\"squeezed_agent_steps\":%llu,\"moving_hash\":\"%016llx\",\"load_average\":%.2f}\n",
           agents, SLABS, frames, omp_get_max_threads(), skim_isa_name(), moving_median, frozen_median,
           moving_median / frozen_median, world_ms[0], world_ms[1], agents_ms[0], agents_ms[1], pairs[0], pairs[1],
           contacts[0], contacts[1], rounds[0], rounds[1], shortened[0], shortened[1], resting ? "true" : "false", rested[0], rested[1], riding, (unsigned long long)squeezed,
           (unsigned long long)skim_crowd_hash(moving), load);
    skim_crowd_destroy(moving);
    skim_crowd_destroy(still);
    skim_world_destroy(moving_world);
    skim_world_destroy(frozen_world);
    skim_world_destroy(slab_shape);
    free(level.positions), free(level.indices), free(frozen.positions), free(frozen.indices);
    free(slab.positions), free(slab.indices);
    free(ms_moving), free(ms_frozen);
    return 0;
}
