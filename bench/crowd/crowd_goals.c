/* A scenario with goals through skim's crowd: steered by the crowd itself
   (targets and paths, avoidance) or by the program (desired velocities). */
#include "crowd_goals.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAME_DT (1.0f / 60.0f)

static double clock_seconds(clockid_t which)
{
    struct timespec t;
    clock_gettime(which, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now(void)
{
    return clock_seconds(CLOCK_MONOTONIC);
}

/* The program's steering: toward the next waypoint, which it leaves for the
   one after once within two radii of it or past it; at the goal, no faster
   than reaches it in a frame, and standing once within the arrival
   distance. */
static void steer_by_velocity(const crowd_scenario *s, skim_crowd *crowd, uint8_t *next)
{
    const skim_vec3 *p = skim_crowd_positions(crowd);
    for (uint32_t i = 0; i < s->agents; ++i) {
        if (!s->way_count[i])
            continue;
        const skim_vec3 *way = s->way + (size_t)i * SCENARIO_MAX_WAY;
        while (next[i] + 1u < s->way_count[i]) {
            skim_vec3 w = way[next[i]], after = way[next[i] + 1];
            float dx = p[i].x - w.x, dy = p[i].y - w.y;
            bool near = dx * dx + dy * dy < 4.0f * SCENARIO_RADIUS * SCENARIO_RADIUS;
            bool past = dx * (after.x - w.x) + dy * (after.y - w.y) > 0.0f;
            if (!near && !past)
                break;
            next[i]++;
        }
        skim_vec3 w = way[next[i]];
        float dx = w.x - p[i].x, dy = w.y - p[i].y, d = sqrtf(dx * dx + dy * dy);
        bool last = next[i] + 1u == s->way_count[i];
        float speed = SCENARIO_SPEED;
        if (last && d <= SCENARIO_ARRIVAL)
            speed = 0.0f;
        else if (last)
            speed = fminf(speed, d / FRAME_DT);
        skim_vec3 v = d > 0.0f ? (skim_vec3){ dx / d * speed, dy / d * speed, 0 } : (skim_vec3){ 0, 0, 0 };
        skim_crowd_set_velocity(crowd, i, v);
    }
}

static skim_crowd *make_crowd(const crowd_scenario *s, const crowd_goals_options *o)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = s->agents;
    def.avoidance = o->avoidance;
    def.avoidance_interval = o->avoidance_interval;
    skim_crowd *crowd = NULL;
    if (skim_crowd_create(&def, &crowd) != SKIM_OK)
        return NULL;
    for (uint32_t i = 0; i < s->agents; ++i) {
        skim_agent_def a = skim_agent_def_default();
        a.position = s->starts[i];
        a.flags = s->agent_flags;
        uint32_t id;
        if (skim_crowd_add(crowd, &a, &id) != SKIM_OK || id != i) {
            skim_crowd_destroy(crowd);
            return NULL;
        }
        if (o->steer == STEER_TARGET && s->way_count[i] &&
            skim_crowd_set_path(crowd, i, s->way + (size_t)i * SCENARIO_MAX_WAY, s->way_count[i], SCENARIO_SPEED,
                                SCENARIO_ARRIVAL) != SKIM_OK) {
            skim_crowd_destroy(crowd);
            return NULL;
        }
    }
    return crowd;
}

bool crowd_goals_run(crowd_scenario *s, const crowd_goals_options *o, crowd_result *r)
{
    memset(r, 0, sizeof *r);
    r->engine = "skim";
    r->steer = o->steer == STEER_TARGET ? "target" : "velocity";
    r->threads = o->threads;
    r->avoidance = o->avoidance;
    r->avoidance_interval = o->avoidance_interval;
    omp_set_num_threads(o->threads);
    if (!scenario_make_world(s))
        return false;
    skim_crowd *crowd = make_crowd(s, o);
    crowd_tracker tracker;
    const uint32_t most = (uint32_t)ceil(s->time_limit / FRAME_DT);
    double *ms = malloc((size_t)most * sizeof *ms), *agents_ms = malloc((size_t)most * sizeof *agents_ms);
    double *world_ms = malloc((size_t)most * sizeof *world_ms), *cpu_ms = malloc((size_t)most * sizeof *cpu_ms);
    uint8_t *next = calloc(s->agents, 1);
    bool ok = crowd && ms && agents_ms && world_ms && cpu_ms && next && crowd_tracker_init(&tracker, s);
    if (!ok) {
        fprintf(stderr, "%s: cannot set up the crowd: %s\n", s->name, skim_last_error_message());
        goto done;
    }
    const uint32_t walkers = scenario_walkers(s);
    double rounds = 0.0, total_ms = 0.0, last_report = now();
    uint32_t frame = 0;
    while (frame < most && tracker.arrived < walkers) {
        if (o->steer == STEER_VELOCITY)
            steer_by_velocity(s, crowd, next);
        double t0 = now(), c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        if (skim_crowd_step(s->world, crowd, FRAME_DT) != SKIM_OK) {
            fprintf(stderr, "%s: step %u: %s\n", s->name, frame, skim_last_error_message());
            ok = false;
            break;
        }
        double t1 = now();
        cpu_ms[frame] = (clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3;
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        ms[frame] = (t1 - t0) * 1e3;
        total_ms += ms[frame];
        agents_ms[frame] = stats.seconds_agents * 1e3;
        world_ms[frame] = stats.seconds_world * 1e3;
        rounds += stats.check_rounds;
        ++frame;
        crowd_tracker_frame(&tracker, skim_crowd_positions(crowd), frame * (double)FRAME_DT);
        if (o->progress && t1 - last_report > 5.0) {
            fprintf(stderr, "  %s %u skim, %d thread%s: %.1f of %.1f s, %u of %u arrived, %.2f ms/frame\n", s->name,
                    s->agents, o->threads, o->threads == 1 ? "" : "s", frame * (double)FRAME_DT, s->time_limit,
                    tracker.arrived, walkers, total_ms / frame);
            last_report = t1;
        }
    }
    if (ok) {
        crowd_tracker_summary(&tracker, r);
        r->frames = frame;
        r->seconds = frame * (double)FRAME_DT;
        r->ms_mean = frame ? total_ms / frame : 0.0;
        r->ms_median = crowd_median(ms, frame);
        r->cpu_ms_median = crowd_median(cpu_ms, frame);
        r->ms_agents_median = crowd_median(agents_ms, frame);
        r->ms_world_median = crowd_median(world_ms, frame);
        r->check_rounds_mean = frame ? rounds / frame : 0.0;
        r->hash = skim_crowd_hash(crowd);
    }
    crowd_tracker_free(&tracker);
done:
    free(ms);
    free(agents_ms);
    free(world_ms);
    free(cpu_ms);
    free(next);
    skim_crowd_destroy(crowd);
    return ok;
}
