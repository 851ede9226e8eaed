/* What a run with goals measured, the same way for every engine: when each
   agent first came within SCENARIO_ARRIVAL of its goal, and the deepest
   overlap of two agents' cylinders (radius SCENARIO_RADIUS, height twice
   that) in any frame; then the JSON line. */
#ifndef CROWD_MEASURE_H
#define CROWD_MEASURE_H

#include "crowd_scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crowd_tracker {
    const crowd_scenario *scenario;
    double   *arrived_at;     /* agents: seconds, < 0 until it arrives */
    double    worst_overlap;  /* units, >= 0 */
    uint32_t  arrived;
    uint32_t *cell_start, *cell_agents; /* the overlap grid's scratch */
    uint32_t  cells;
} crowd_tracker;

bool crowd_tracker_init(crowd_tracker *t, const crowd_scenario *scenario);
void crowd_tracker_free(crowd_tracker *t);
/* After a frame: positions of every agent (z up), the time since the start. */
void crowd_tracker_frame(crowd_tracker *t, const skim_vec3 *positions, double seconds);
/* The walkers' deepest overlap in one frame: 0 when none. */
double crowd_worst_overlap(crowd_tracker *t, const skim_vec3 *positions);

/* A run's figures; the time ones are per frame (ms, medians over frames). */
typedef struct crowd_result {
    const char *engine;      /* "skim" or "detour" */
    const char *steer;       /* how agents were steered: "target", "velocity", "navmesh" */
    int         threads;
    bool        avoidance;
    uint32_t    avoidance_interval; /* skim's steps between an agent's plans; 0 for others */
    uint32_t    frames;
    double      seconds;     /* simulated */
    double      arrived_percent, ratio_median, ratio_worst, worst_overlap;
    double      ms_median, ms_mean, ms_agents_median, ms_world_median, check_rounds_mean;
    double      cpu_ms_median; /* the process's CPU time: on one thread, without the time
                                  other programs held the core */
    uint64_t    hash;        /* skim's state hash at the end; 0 for others */
} crowd_result;

/* Arrival figures from the tracker into r (time ratios: arrival time over
   the straight-line time, among the agents that arrived). */
void crowd_tracker_summary(const crowd_tracker *t, crowd_result *r);
/* Medians of n per-frame values (sorted in place). */
double crowd_median(double *values, uint32_t n);
/* One JSON line on stdout. */
void crowd_print(const crowd_scenario *s, const crowd_result *r);

#ifdef __cplusplus
}
#endif
#endif
