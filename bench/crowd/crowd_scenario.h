/* Crowd scenarios with goals (circle, door, level): the world's triangles,
   every agent's start, its way (waypoints ending at its goal) and the time
   it would need alone, generated deterministically from the arguments.
   Shared by skim's run (crowd_goals.c) and the DetourCrowd comparison, so
   both walk the same agents to the same goals. z is up. */
#ifndef CROWD_SCENARIO_H
#define CROWD_SCENARIO_H

#include <skim/skim.h>

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCENARIO_RADIUS 16.0f  /* every agent: a sphere of radius 16, a cylinder of 16 across */
#define SCENARIO_SPEED 320.0f  /* units/s */
#define SCENARIO_ARRIVAL 16.0f /* arrived within this distance of the goal, across up */
#define SCENARIO_MAX_WAY 3     /* waypoints per agent, the goal last */

typedef struct crowd_scenario {
    char      name[32];
    float    *positions;      /* vertex_count x, y, z */
    uint32_t *indices;        /* triangle_count * 3 */
    uint32_t  vertex_count, triangle_count;
    uint32_t  agents;
    skim_vec3 *starts;        /* agents */
    skim_vec3 *way;           /* agents * SCENARIO_MAX_WAY: the waypoints, the goal last */
    uint8_t   *way_count;     /* agents: 1..SCENARIO_MAX_WAY */
    double    *straight_seconds; /* agents: the way's length / SCENARIO_SPEED */
    double     time_limit;    /* seconds the run may take: what the scenario's target allows */
    uint32_t   agent_flags;   /* skim_agent_def.flags of every agent (the level: also when its goals are picked) */
    skim_world *world;        /* made from the triangles (or the level's own) */
} crowd_scenario;

/* agents on a circle spaced 4 radii apart along it, each to the opposite
   point. Limit: twice the straight-line time. */
bool scenario_circle(uint32_t agents, uint64_t seed, crowd_scenario *out);
/* two groups of agents / 2 swapping sides of a wall through a doorway
   three agents wide. Limit: twice the time a single file would need. */
bool scenario_door(uint32_t agents, uint64_t seed, crowd_scenario *out);
/* agents (0 = as many as the level has standing spots, the densest
   placement `skim crowd` allows) on the level SCENE.obj from
   SKIM_SCENES_DIR, each with a goal a lone agent reaches walking straight
   at it; agents with no such goal stand (way_count 0) and are not counted.
   Returns false with *missing set when the level is not there. Limit: 20 s.
   Every agent, the lone walkers too, has agent_flags
   (SKIM_AGENT_STAYS_ON_FLOOR: goals below a ledge are then out of reach). */
bool scenario_level(const char *scene, uint32_t agents, uint64_t seed, uint32_t agent_flags, crowd_scenario *out,
                    bool *missing);
void scenario_free(crowd_scenario *scenario);

/* The world made from the scenario's triangles; false with a message. */
bool scenario_make_world(crowd_scenario *scenario);
/* Agents with a goal (way_count > 0). */
uint32_t scenario_walkers(const crowd_scenario *scenario);

/* Deterministic random numbers (splitmix64). */
uint64_t scenario_random(uint64_t *state);
double   scenario_unit(uint64_t *state); /* [0, 1) */

#ifdef __cplusplus
}
#endif
#endif
