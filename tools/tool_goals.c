/* Goals for skim crowd --goals: standing spots (tool_spots.c) 12 to 48
   radii away that an agent can walk to in a straight line, given to the
   crowd as targets (skim_crowd_set_target). */
#include "tool_goals.h"
#include "tool_spots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GOAL_NEAREST (12.0f * TOOL_AGENT_RADIUS)
#define GOAL_FARTHEST (48.0f * TOOL_AGENT_RADIUS)
#define GOAL_CLIMB 18.0f    /* the crowd's step height: goals no higher or lower than a step */
#define GOAL_TRIES 16       /* candidates per pick */
#define RETRY_SECONDS 1.0   /* an agent with no reachable goal stands this long before looking again */
/* An agent gives up on a goal it has not reached in GIVE_UP_TIMES its
   straight-line time and GIVE_UP_SECONDS: avoidance in a packed level
   takes a median five to seven times as long (docs/crowd.md). */
#define GIVE_UP_TIMES 8.0
#define GIVE_UP_SECONDS 2.0
/* The state bit the crowd reserves for an agent squeezed between others. */
#define AGENT_SQUEEZED 64u

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

bool tool_goals_init(tool_goals *g, const skim_vec3 *spots, uint32_t spot_count, uint32_t agents, float speed,
                     uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->spots = spots, g->spot_count = spot_count, g->agents = agents;
    g->speed = speed, g->arrival = TOOL_AGENT_RADIUS;
    g->random = seed ^ 0x676f616c73ull;
    g->goal = calloc(agents, sizeof *g->goal);
    g->deadline = calloc(agents, sizeof *g->deadline);
    g->next_try = calloc(agents, sizeof *g->next_try);
    g->reached = calloc(agents, sizeof *g->reached);
    g->gave_up = calloc(agents, sizeof *g->gave_up);
    if (!g->goal || !g->deadline || !g->next_try || !g->reached || !g->gave_up) {
        tool_goals_free(g);
        return false;
    }
    return true;
}

void tool_goals_free(tool_goals *g)
{
    free(g->goal);
    free(g->deadline);
    free(g->next_try);
    free(g->reached);
    free(g->gave_up);
    memset(g, 0, sizeof *g);
}

/* Walkable in a straight line: the agent's sphere, a step up, sweeps to
   the goal without meeting anything, and a sphere dropped at every
   radius along the way finds floor no more than a step below the line
   between the two ends: a ledge or a gap on the way, which the sweep
   above passes over, is no straight walk. */
static bool straight_walk(const skim_world *world, skim_vec3 from, skim_vec3 to)
{
    const skim_ellipsoid shape = { { TOOL_AGENT_RADIUS, TOOL_AGENT_RADIUS, TOOL_AGENT_RADIUS }, { 0, 0, 0, 1 } };
    float z = fmaxf(from.z, to.z) + GOAL_CLIMB;
    skim_vec3 start = { from.x, from.y, z }, across = { to.x - from.x, to.y - from.y, 0 };
    skim_hit hit;
    if (skim_sweep(world, &shape, start, across, NULL, &hit) != SKIM_OK || hit.hit)
        return false;
    const int probes = (int)ceilf(sqrtf(across.x * across.x + across.y * across.y) / TOOL_AGENT_RADIUS);
    const skim_vec3 down = { 0, 0, -(z - fminf(from.z, to.z) + 2.0f * GOAL_CLIMB) };
    for (int k = 1; k < probes; ++k) {
        float f = (float)k / (float)probes, line = from.z + f * (to.z - from.z);
        skim_vec3 above = { from.x + f * across.x, from.y + f * across.y, z };
        if (skim_sweep(world, &shape, above, down, NULL, &hit) != SKIM_OK || !hit.hit || hit.normal.z < 0.7f ||
            z + hit.t * down.z < line - GOAL_CLIMB)
            return false;
    }
    return true;
}

/* A goal for agent i at p, or false when none of the tries is reachable. */
static bool pick(tool_goals *g, const skim_world *world, skim_vec3 p, skim_vec3 *goal)
{
    for (int attempt = 0; attempt < GOAL_TRIES; ++attempt) {
        skim_vec3 s = g->spots[next_random(&g->random) % g->spot_count];
        float dx = s.x - p.x, dy = s.y - p.y, d = sqrtf(dx * dx + dy * dy);
        if (d < GOAL_NEAREST || d > GOAL_FARTHEST || fabsf(s.z - p.z) > GOAL_CLIMB)
            continue;
        if (straight_walk(world, p, s)) {
            *goal = s;
            return true;
        }
    }
    return false;
}

void tool_goals_update(tool_goals *g, const skim_world *world, skim_crowd *crowd, double seconds)
{
    const skim_vec3 *p = skim_crowd_positions(crowd);
    const uint32_t *state = skim_crowd_states(crowd);
    for (uint32_t i = 0; i < g->agents; ++i) {
        bool has_goal = g->deadline[i] > 0.0;
        if (has_goal && (state[i] & SKIM_AGENT_ARRIVED)) {
            g->reached[i]++, g->arrivals++;
            g->gave_up[i] = 0;
        } else if (has_goal && seconds > g->deadline[i]) {
            g->gave_up[i] = 1;
            g->give_ups++;
        } else if (has_goal || seconds < g->next_try[i]) {
            continue;
        }
        skim_vec3 goal;
        if (!pick(g, world, p[i], &goal)) {
            g->deadline[i] = 0.0;
            g->next_try[i] = seconds + RETRY_SECONDS;
            skim_crowd_set_velocity(crowd, i, (skim_vec3){ 0, 0, 0 });
            continue;
        }
        float dx = goal.x - p[i].x, dy = goal.y - p[i].y;
        g->goal[i] = goal;
        g->deadline[i] = seconds + GIVE_UP_TIMES * sqrt((double)dx * dx + (double)dy * dy) / g->speed + GIVE_UP_SECONDS;
        skim_crowd_set_target(crowd, i, goal, g->speed, g->arrival);
    }
}

void tool_goals_marks(const tool_goals *g, const skim_crowd *crowd, uint8_t *marks)
{
    const uint32_t *state = skim_crowd_states(crowd);
    for (uint32_t i = 0; i < g->agents; ++i) {
        if (state[i] & AGENT_SQUEEZED)
            marks[i] = MARK_SQUEEZED;
        else if (g->gave_up[i] || (state[i] & SKIM_AGENT_BLOCKED))
            marks[i] = MARK_STUCK;
        else if (g->reached[i] || (state[i] & SKIM_AGENT_ARRIVED))
            marks[i] = MARK_ARRIVED;
        else
            marks[i] = MARK_WALKING;
    }
}

void tool_wander_marks(const skim_crowd *crowd, uint32_t agents, uint8_t *marks)
{
    const uint32_t *state = skim_crowd_states(crowd);
    for (uint32_t i = 0; i < agents; ++i)
        marks[i] = (state[i] & AGENT_SQUEEZED) ? MARK_SQUEEZED
                   : (state[i] & SKIM_AGENT_BLOCKED) ? MARK_STUCK
                                                     : MARK_WALKING;
}
