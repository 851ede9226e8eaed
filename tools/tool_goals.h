/* skim crowd --goals (tool_goals.c): every agent walks to a standing spot
   it can reach in a straight line, and picks another when it gets there or
   gives up. */
#ifndef SKIM_TOOL_GOALS_H
#define SKIM_TOOL_GOALS_H

#include <skim/skim.h>

#include <stdbool.h>
#include <stdint.h>

/* What the picture marks an agent as at the end (tool_svg.c's legend). */
enum { MARK_WALKING = 0, MARK_ARRIVED = 1, MARK_STUCK = 2, MARK_SQUEEZED = 3 };

typedef struct tool_goals {
    const skim_vec3 *spots;   /* where goals are picked from */
    uint32_t spot_count, agents;
    float    speed, arrival;  /* units/s, units */
    skim_vec3 *goal;          /* agents: the current goal */
    double  *deadline;        /* agents: seconds by which it should be there */
    double  *next_try;        /* agents: when it looks for a goal again (none reachable yet) */
    uint32_t *reached;        /* agents: goals reached */
    uint8_t *gave_up;         /* agents: 1 if it gave up on its last goal */
    uint64_t arrivals, give_ups, random;
} tool_goals;

bool tool_goals_init(tool_goals *g, const skim_vec3 *spots, uint32_t spot_count, uint32_t agents, float speed,
                     uint64_t seed);
void tool_goals_free(tool_goals *g);
/* Before a step at time seconds: new goals for the agents that arrived,
   gave up (twice the straight-line time and a second more) or have none. */
void tool_goals_update(tool_goals *g, const skim_world *world, skim_crowd *crowd, double seconds);
/* Each agent's mark at the end (agents entries). */
void tool_goals_marks(const tool_goals *g, const skim_crowd *crowd, uint8_t *marks);
/* The same for wandering agents: stuck = kept at its start in the last step. */
void tool_wander_marks(const skim_crowd *crowd, uint32_t agents, uint8_t *marks);

#endif
