/* Arrivals and overlaps of a run with goals, and its JSON line. */
#include "crowd_measure.h"

#include "../bench_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool crowd_tracker_init(crowd_tracker *t, const crowd_scenario *scenario)
{
    memset(t, 0, sizeof *t);
    t->scenario = scenario;
    uint32_t n = scenario->agents;
    t->cells = 64;
    while (t->cells < 2 * n)
        t->cells *= 2;
    t->arrived_at = malloc((size_t)n * sizeof *t->arrived_at);
    t->cell_start = malloc(((size_t)t->cells + 1) * sizeof *t->cell_start);
    /* cell_agents holds the sorted agents, then each agent's cell, then
       each cell's fill count. */
    t->cell_agents = malloc(((size_t)2 * n + t->cells) * sizeof *t->cell_agents);
    if (!t->arrived_at || !t->cell_start || !t->cell_agents) {
        crowd_tracker_free(t);
        return false;
    }
    for (uint32_t i = 0; i < n; ++i)
        t->arrived_at[i] = -1.0;
    return true;
}

void crowd_tracker_free(crowd_tracker *t)
{
    free(t->arrived_at);
    free(t->cell_start);
    free(t->cell_agents);
    memset(t, 0, sizeof *t);
}

static uint32_t cell_key(int64_t x, int64_t y, uint32_t cells)
{
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)y * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(h >> 32) & (cells - 1);
}

/* The deepest overlap of two agents' upright cylinders, by a uniform grid
   of cells one touching distance wide (hashed into
   t->cells buckets): each pair that can overlap shares a cell or a
   neighbouring one. */
double crowd_worst_overlap(crowd_tracker *t, const skim_vec3 *p)
{
    const uint32_t n = t->scenario->agents, cells = t->cells;
    const double touch = 2.0 * SCENARIO_RADIUS, tall = 2.0 * SCENARIO_RADIUS;
    uint32_t *sorted = t->cell_agents, *cell_of = sorted + n, *fill = cell_of + n;
    memset(t->cell_start, 0, ((size_t)cells + 1) * sizeof *t->cell_start);
    for (uint32_t i = 0; i < n; ++i) {
        cell_of[i] = cell_key((int64_t)floor(p[i].x / touch), (int64_t)floor(p[i].y / touch), cells);
        t->cell_start[cell_of[i] + 1]++;
    }
    for (uint32_t c = 0; c < cells; ++c)
        t->cell_start[c + 1] += t->cell_start[c];
    memcpy(fill, t->cell_start, (size_t)cells * sizeof *fill);
    for (uint32_t i = 0; i < n; ++i)
        sorted[fill[cell_of[i]]++] = i;
    double worst = 0.0;
    for (uint32_t i = 0; i < n; ++i) {
        int64_t cx = (int64_t)floor(p[i].x / touch), cy = (int64_t)floor(p[i].y / touch);
        for (int64_t dx = -1; dx <= 1; ++dx)
            for (int64_t dy = -1; dy <= 1; ++dy) {
                uint32_t c = cell_key(cx + dx, cy + dy, cells);
                for (uint32_t k = t->cell_start[c]; k < t->cell_start[c + 1]; ++k) {
                    uint32_t j = sorted[k];
                    if (j <= i || fabs((double)p[j].z - p[i].z) >= tall)
                        continue;
                    /* Cylinders overlap as deep as the shallower of the
                       two ways out: across, or along up (one standing on
                       the other's head a hair low). */
                    double d = hypot((double)p[j].x - p[i].x, (double)p[j].y - p[i].y);
                    worst = fmax(worst, fmin(touch - d, tall - fabs((double)p[j].z - p[i].z)));
                }
            }
    }
    return worst;
}

void crowd_tracker_frame(crowd_tracker *t, const skim_vec3 *p, double seconds)
{
    const crowd_scenario *s = t->scenario;
    for (uint32_t i = 0; i < s->agents; ++i) {
        if (!s->way_count[i] || t->arrived_at[i] >= 0.0)
            continue;
        skim_vec3 goal = s->way[(size_t)i * SCENARIO_MAX_WAY + s->way_count[i] - 1];
        /* A float position within the distance, give or take its rounding. */
        if (hypot((double)p[i].x - goal.x, (double)p[i].y - goal.y) <= SCENARIO_ARRIVAL * (1.0 + 1e-5) &&
            fabs((double)p[i].z - goal.z) <= 2.0 * SCENARIO_RADIUS) {
            t->arrived_at[i] = seconds;
            t->arrived++;
        }
    }
    t->worst_overlap = fmax(t->worst_overlap, crowd_worst_overlap(t, p));
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double crowd_median(double *values, uint32_t n)
{
    if (!n)
        return 0.0;
    qsort(values, n, sizeof *values, by_value);
    return values[n / 2];
}

void crowd_tracker_summary(const crowd_tracker *t, crowd_result *r)
{
    const crowd_scenario *s = t->scenario;
    uint32_t walkers = scenario_walkers(s), arrived = 0;
    double *ratios = malloc(((size_t)t->arrived + 1) * sizeof *ratios);
    for (uint32_t i = 0; i < s->agents && ratios; ++i)
        if (t->arrived_at[i] >= 0.0)
            ratios[arrived++] = t->arrived_at[i] / fmax(s->straight_seconds[i], 1e-9);
    r->arrived_percent = walkers ? 100.0 * t->arrived / walkers : 0.0;
    r->ratio_worst = 0.0;
    for (uint32_t k = 0; k < arrived; ++k)
        r->ratio_worst = fmax(r->ratio_worst, ratios[k]);
    r->ratio_median = arrived ? crowd_median(ratios, arrived) : 0.0;
    r->worst_overlap = t->worst_overlap;
    free(ratios);
}


void crowd_print(const crowd_scenario *s, const crowd_result *r)
{
    printf("{\"bench\":\"crowd_goals\",\"scenario\":\"%s\",\"engine\":\"%s\",\"steer\":\"%s\",\"agents\":%u,"
           "\"walkers\":%u,\"threads\":%d,\"avoidance\":%s,\"avoidance_interval\":%u,\"agent_flags\":%u,\"time_limit_s\":%.3f,\"frames\":%u,\"seconds\":%.3f,"
           "\"arrived_percent\":%.2f,\"arrival_ratio_median\":%.3f,\"arrival_ratio_worst\":%.3f,"
           "\"worst_overlap\":%.4f,\"ms_per_frame_median\":%.4f,\"ms_per_frame_mean\":%.4f,"
           "\"cpu_ms_per_frame_median\":%.4f,\"ms_agents_median\":%.4f,\"ms_world_median\":%.4f,\"check_rounds_mean\":%.3f,"
           "\"state_hash\":\"%016llx\",\"kernel_set\":\"%s\",\"load_1min\":%.2f}\n",
           s->name, r->engine, r->steer, s->agents, scenario_walkers(s), r->threads, r->avoidance ? "true" : "false",
           r->avoidance_interval, s->agent_flags, s->time_limit, r->frames, r->seconds, r->arrived_percent, r->ratio_median, r->ratio_worst,
           r->worst_overlap, r->ms_median, r->ms_mean, r->cpu_ms_median, r->ms_agents_median, r->ms_world_median,
           r->check_rounds_mean, (unsigned long long)r->hash, skim_isa_name(), bench_load_average());
    fflush(stdout);
}
