/* Targets and paths: an agent given a point (or a list of waypoints) walks
   there at its speed. Each step its desired velocity points across up from
   where it stands to the waypoint it is heading for; on the last stretch
   it slows down (arrive steering: the speed falls with the distance left,
   reaching the point in about SLOW_TIME at the end) and never asks for more
   than the distance left in one step, so it does not overshoot. After the
   step, an agent that has passed a waypoint heads for the next: passed is
   within its radius of the point, or beyond the line through the point
   square to the way it came (from the waypoint before, or from where it
   stood when it was given the path), as a gate is passed, so an agent in a
   crowd need not stand on each point of the way. One
   within its arrival distance of the last has arrived: it stands and shows
   SKIM_AGENT_ARRIVED until it is given something else to do.

   Stuck agents step aside. A packed crowd whose agents all press toward
   goals on the far side of each other packs tighter still and locks: each
   agent is held by neighbours that are held by theirs. An agent that has
   not got nearer its waypoint for a while walks to its right (seen from
   above, up toward the eye) for a while, ignoring avoidance, and lets the
   solver slide it along those in the way; the same convention as
   avoidance's passing side (crowd_avoid.c), so two agents stuck face to
   face step the same way round and pass. Each agent decides from its own
   progress alone, so the step stays independent of order and threads. */
#include "crowd/crowd_internal.h"

#include <math.h>
#include <stdlib.h>

/* Seconds the slowing at the end of a path takes, about. */
#define SLOW_TIME 0.25f
/* The slowest it walks while not there yet, as a fraction of its speed:
   without a floor the slowing would never quite get there. */
#define SLOWEST 0.1f
/* What float rounding leaves of a walk that ends exactly on its point,
   as a fraction of the agent's radius: arrival counts within this too. */
#define ARRIVAL_SLACK 1e-3f
/* Stuck: not STUCK_PROGRESS radii nearer the waypoint in STUCK_SECONDS;
   it then steps aside for ASIDE_SECONDS. */
#define STUCK_PROGRESS 0.5f
#define STUCK_SECONDS 1.0f
#define ASIDE_SECONDS 1.0f

static skim_status check_agent(const skim_crowd *c, uint32_t id, const char *what)
{
    if (!c)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: crowd is NULL", what);
    if (id >= c->capacity || !(c->state[id] & SKIM_AGENT_ACTIVE))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: no agent with id %u", what, id);
    return SKIM_OK;
}

static bool within_limit(skim_vec3 v)
{
    return fabsf(v.x) <= SKIM_CROWD_LIMIT && fabsf(v.y) <= SKIM_CROWD_LIMIT && fabsf(v.z) <= SKIM_CROWD_LIMIT;
}

static skim_status check_walk(float speed, float arrival, const char *what)
{
    if (!(speed > 0.0f && speed <= SKIM_CROWD_LIMIT))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: speed must be in (0, %g] units per second (got %g)",
                         what, SKIM_CROWD_LIMIT, (double)speed);
    if (!(arrival >= 0.0f && arrival <= SKIM_CROWD_LIMIT))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: arrival_distance must be in [0, %g] (got %g)", what,
                         SKIM_CROWD_LIMIT, (double)arrival);
    return SKIM_OK;
}

skim_status skim_crowd_set_path(skim_crowd *c, uint32_t id, const skim_vec3 *waypoints, uint32_t count, float speed,
                                float arrival_distance)
{
    const char *what = "skim_crowd_set_path";
    skim_status status = check_agent(c, id, what);
    if (status != SKIM_OK)
        return status;
    if (!waypoints)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: waypoints is NULL", what);
    if (count == 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: a path needs at least one waypoint", what);
    for (uint32_t k = 0; k < count; ++k)
        if (!within_limit(waypoints[k]))
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "%s: waypoint %u must be finite and within %g of the origin", what, k,
                             SKIM_CROWD_LIMIT);
    status = check_walk(speed, arrival_distance, what);
    if (status != SKIM_OK)
        return status;
    crowd_goal *goal = &c->goal[id];
    if (count > goal->capacity) {
        skim_vec3 *grown = realloc(goal->points, (size_t)count * sizeof *grown);
        if (!grown)
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "%s: out of memory for %u waypoints", what, count);
        goal->points = grown;
        goal->capacity = count;
    }
    for (uint32_t k = 0; k < count; ++k)
        goal->points[k] = waypoints[k];
    goal->count = count;
    goal->next = 0;
    goal->from = c->position[id];
    goal->speed = speed;
    goal->arrival = arrival_distance;
    goal->arrived = false;
    goal->nearest = INFINITY;
    goal->stuck = 0.0f;
    goal->aside = 0.0f;
    c->state[id] &= ~(uint32_t)SKIM_AGENT_ARRIVED;
    return SKIM_OK;
}

skim_status skim_crowd_set_target(skim_crowd *c, uint32_t id, skim_vec3 target, float speed, float arrival_distance)
{
    skim_status status = check_agent(c, id, "skim_crowd_set_target");
    if (status != SKIM_OK)
        return status;
    if (!within_limit(target))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_crowd_set_target: target must be finite and within %g of the origin",
                         SKIM_CROWD_LIMIT);
    status = check_walk(speed, arrival_distance, "skim_crowd_set_target");
    if (status != SKIM_OK)
        return status;
    return skim_crowd_set_path(c, id, &target, 1, speed, arrival_distance);
}

void crowd_goal_clear(skim_crowd *c, uint32_t id)
{
    c->goal[id].count = 0;
    c->goal[id].next = 0;
    c->goal[id].arrived = false;
    c->state[id] &= ~(uint32_t)SKIM_AGENT_ARRIVED;
}

/* The offset from p to point across up, and its length. */
static float across_to(const skim_crowd *c, const float p[3], skim_vec3 point, float out[3])
{
    float d[3] = { point.x - p[0], point.y - p[1], point.z - p[2] };
    float along = d[0] * c->up[0] + d[1] * c->up[1] + d[2] * c->up[2];
    for (int k = 0; k < 3; ++k)
        out[k] = d[k] - along * c->up[k];
    return sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
}

void crowd_steer(skim_crowd *c, uint32_t id, const float start[3], float dt)
{
    crowd_goal *goal = &c->goal[id];
    if (goal->count == 0)
        return;
    if (goal->arrived) {
        c->body[id].desired = (skim_vec3){ 0, 0, 0 };
        return;
    }
    float to[3];
    float left = across_to(c, start, goal->points[goal->next], to);
    float speed = goal->speed;
    if (goal->next + 1 == goal->count) {
        speed = fminf(speed, fmaxf(left / SLOW_TIME, SLOWEST * speed));
        speed = fminf(speed, left / dt);
    }
    float scale = left > 0.0f ? speed / left : 0.0f;
    float v[3] = { to[0] * scale, to[1] * scale, to[2] * scale };
    if (goal->aside > 0.0f) {
        /* Its right: v x up, as long as v (v is across up). */
        const float *u = c->up;
        const float right[3] = { v[1] * u[2] - v[2] * u[1], v[2] * u[0] - v[0] * u[2], v[0] * u[1] - v[1] * u[0] };
        for (int k = 0; k < 3; ++k)
            v[k] = right[k];
        goal->aside -= dt;
        if (goal->aside <= 0.0f) {
            goal->aside = 0.0f;
            goal->nearest = left;
            goal->stuck = 0.0f;
        }
    } else if (left < goal->nearest - STUCK_PROGRESS * c->body[id].radius) {
        goal->nearest = left;
        goal->stuck = 0.0f;
    } else {
        goal->stuck += dt;
        if (goal->stuck >= STUCK_SECONDS)
            goal->aside = ASIDE_SECONDS;
    }
    c->body[id].desired = (skim_vec3){ v[0], v[1], v[2] };
}

bool crowd_goal_keeps_wish(const skim_crowd *c, uint32_t id, bool infeasible)
{
    /* Only agents with somewhere to go: their stepping aside is what
       unlocks a crowd that pushes; agents steered by velocity keep the
       least violation (crowd_avoid.c). */
    const crowd_goal *goal = &c->goal[id];
    return goal->count > 0 && !goal->arrived && (infeasible || goal->aside > 0.0f);
}

/* Whether an agent at f has passed its next waypoint (not the last). */
static bool passed(const skim_crowd *c, const crowd_goal *goal, const float f[3], float radius)
{
    float to[3], way[3];
    if (across_to(c, f, goal->points[goal->next], to) <= fmaxf(radius, goal->arrival))
        return true;
    skim_vec3 came = goal->next ? goal->points[goal->next - 1] : goal->from;
    const float from[3] = { came.x, came.y, came.z };
    across_to(c, from, goal->points[goal->next], way);
    /* to points from f to the waypoint, way from the last one to it:
       beyond the gate when they point apart. */
    return to[0] * way[0] + to[1] * way[1] + to[2] * way[2] < 0.0f;
}

bool crowd_goal_after_move(skim_crowd *c, uint32_t id, const float f[3])
{
    crowd_goal *goal = &c->goal[id];
    if (goal->count == 0)
        return false;
    if (goal->arrived)
        return true;
    float to[3];
    const float radius = c->body[id].radius;
    while (goal->next + 1 < goal->count && passed(c, goal, f, radius)) {
        goal->next++;
        goal->nearest = INFINITY; /* progress counts toward the new waypoint */
        goal->stuck = 0.0f;
    }
    if (goal->next + 1 == goal->count &&
        across_to(c, f, goal->points[goal->next], to) <= goal->arrival + ARRIVAL_SLACK * radius) {
        goal->arrived = true;
        c->body[id].desired = (skim_vec3){ 0, 0, 0 };
    }
    return goal->arrived;
}
