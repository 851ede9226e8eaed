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
   above, up toward the eye) for a body width, ignoring avoidance, and lets
   the solver slide it along those in the way; the same convention as
   avoidance's passing side (crowd_avoid.c), so two agents stuck face to
   face step the same way round and pass. One held by a wall alone
   searches along the wall for its end instead (start_aside). One stuck
   half as long among others crossing its way stops pressing on toward its
   goal until then (crowd_goal_keeps_wish), and pushes aside the idle
   agents in its way rather than avoid them, as it does those standing on
   its point (crowd_goal_makes_room). Each agent
   decides from its own progress and what it met in the last step, so the
   step stays independent of order and threads. */
#include "crowd/crowd_internal.h"

#include <math.h>
#include <stdlib.h>

/* Seconds the slowing at the end of a path takes, about. */
#define SLOW_TIME 0.25f
/* The slowest it walks while not there yet, as a fraction of its speed:
   without a floor the slowing would never quite get there. */
#define SLOWEST 0.1f
/* What float rounding leaves of a walk that ends exactly on its point,
   as a fraction of the agent's radius: an arrival distance shorter than
   this counts as this, so a distance of 0 can be met. A longer one is met
   exactly: the slack would flag agents held just outside it as arrived,
   and they would stand there short of it for good. */
#define ARRIVAL_SLACK 1e-3f
/* Stuck: not STUCK_PROGRESS radii nearer the waypoint in STUCK_SECONDS;
   it then steps aside for a body width, at most ASIDE_SECONDS, or starts
   or goes on with a search along a wall, whose first step lasts
   ASIDE_SECONDS. */
#define STUCK_PROGRESS 0.5f
#define STUCK_SECONDS 1.0f
#define ASIDE_SECONDS 1.0f
/* Where streams cross from several sides (goals on the far sides of a
   room, say), agents that press on toward their goals pack into a block
   that drains only at its edges. Stuck for YIELD_SECONDS among at least
   CROSSING_LEAST neighbours whose ways cross its own, an agent stops
   pressing and takes the velocity that violates its half-planes least,
   which lets the block's agents slip past each other; until its step
   aside, which it still takes at STUCK_SECONDS. */
#define YIELD_SECONDS 0.5f
#define CROSSING_LEAST 3u
/* Stuck as long, it pushes aside the idle agents within about 46 degrees
   of its way (crowd_goal_makes_room). */
#define IDLE_AHEAD_COSINE 0.7f
/* The longest step of a search along a wall: ASIDE_SECONDS times
   2^(SEARCHES_MOST - 1). */
#define SEARCHES_MOST 6u
/* A step aside along a wall leans into it by 15 degrees, enough to keep
   touching it (the world slides it along) until the wall ends: the cosine
   and sine. */
#define SEARCH_ALONG 0.96592583f
#define SEARCH_LEAN 0.25881905f


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
    uint32_t slot = 0;
    skim_status status = crowd_agent_slot(c, id, what, &slot);
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
    crowd_goal *goal = &c->goal[slot];
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
    goal->from = c->position[slot];
    goal->speed = speed;
    goal->arrival = arrival_distance;
    goal->arrived = false;
    goal->nearest = INFINITY;
    goal->stuck = 0.0f;
    goal->aside = 0.0f;
    goal->best = INFINITY;
    goal->searches = 0;
    goal->searching = false;
    c->avoid_held[slot] = 0; /* a new wish is taken at once */
    c->state[slot] &= ~(uint32_t)SKIM_AGENT_ARRIVED;
    crowd_publish(c, slot);
    return SKIM_OK;
}

skim_status skim_crowd_set_target(skim_crowd *c, uint32_t id, skim_vec3 target, float speed, float arrival_distance)
{
    uint32_t slot = 0;
    skim_status status = crowd_agent_slot(c, id, "skim_crowd_set_target", &slot);
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

void crowd_goal_clear(skim_crowd *c, uint32_t slot)
{
    c->goal[slot].count = 0;
    c->goal[slot].next = 0;
    c->goal[slot].arrived = false;
    c->state[slot] &= ~(uint32_t)SKIM_AGENT_ARRIVED;
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

/* v x up: to the right of v, as long as v (v is across up). */
static void right_of(const skim_crowd *c, const float v[3], float out[3])
{
    const float *u = c->up;
    out[0] = v[1] * u[2] - v[2] * u[1];
    out[1] = v[2] * u[0] - v[0] * u[2];
    out[2] = v[0] * u[1] - v[1] * u[0];
}

/* A stuck agent steps aside. Held by the crowd, it steps to its right
   for as long as a body width takes (at most ASIDE_SECONDS): the crowd
   moves on, and the convention makes two agents stuck face to face pass;
   longer would carry it far off its line, through openings and behind
   walls. Held by a wall alone, which will not move, it takes a step of a
   search for the wall's end: each further step that has not brought it
   nearer its waypoint than ever goes to the other side for twice as long,
   the doubling search for a door in a wall of unknown length
   (Baeza-Yates, Culberson, Rawlins, "Searching in the Plane", 1993,
   section 2), which walks at most nine times the way to the nearer end. */
static void start_aside(const skim_crowd *c, uint32_t slot, crowd_goal *goal, const float toward[3])
{
    goal->aside_started = false;
    /* Held by a wall alone: one that others press may be held by them. */
    goal->searching = (c->state[slot] & (SKIM_AGENT_TOUCHED_WALL | SKIM_AGENT_TOUCHED_AGENT)) == SKIM_AGENT_TOUCHED_WALL;
    if (!goal->searching) {
        goal->aside = fminf(ASIDE_SECONDS, 2.0f * c->body[slot].radius / goal->speed);
        return;
    }
    goal->searches = goal->searches < SEARCHES_MOST ? goal->searches + 1 : goal->searches;
    goal->aside = ASIDE_SECONDS * (float)(1u << (goal->searches - 1));
    /* The way it sets out: to its right on odd steps, its left on even
       ones, fixed for the step (the wall does not turn as the waypoint's
       bearing does), leaning toward the waypoint. */
    const float side = goal->searches & 1u ? 1.0f : -1.0f;
    float right[3];
    right_of(c, toward, right);
    for (int k = 0; k < 3; ++k)
        goal->search_way[k] = side * right[k] * SEARCH_ALONG + toward[k] * SEARCH_LEAN;
}

/* The aside is over: progress counts from here. */
static void end_aside(crowd_goal *goal, float left)
{
    goal->aside = 0.0f;
    goal->nearest = left;
    goal->stuck = 0.0f;
}

void crowd_steer(skim_crowd *c, uint32_t slot, const float start[3], float dt)
{
    crowd_goal *goal = &c->goal[slot];
    if (goal->count == 0)
        return;
    if (goal->arrived) {
        c->body[slot].desired = (skim_vec3){ 0, 0, 0 };
        return;
    }
    float to[3];
    float left = across_to(c, start, goal->points[goal->next], to);
    float speed = goal->speed;
    if (goal->next + 1 == goal->count) {
        speed = fminf(speed, fmaxf(left / SLOW_TIME, SLOWEST * speed));
        speed = fminf(speed, left / dt);
    }
    float scale = left > 0.0f ? speed / left : 0.0f, unit = left > 0.0f ? 1.0f / left : 0.0f;
    float v[3] = { to[0] * scale, to[1] * scale, to[2] * scale };
    const float toward[3] = { to[0] * unit, to[1] * unit, to[2] * unit };
    const float progress = STUCK_PROGRESS * c->body[slot].radius;
    if (left < goal->best - progress) {
        /* Nearer than ever: whatever wall held it is behind it. */
        goal->best = left;
        goal->searches = 0;
    }
    if (goal->aside > 0.0f) {
        if (goal->searching) {
            /* Along a wall until the wall ends (it no longer touches one). */
            for (int k = 0; k < 3; ++k)
                v[k] = goal->search_way[k] * goal->speed;
            if (goal->aside_started && !(c->state[slot] & SKIM_AGENT_TOUCHED_WALL))
                goal->aside = 0.0f;
            goal->aside_started = true;
        } else {
            float right[3];
            right_of(c, v, right);
            for (int k = 0; k < 3; ++k)
                v[k] = right[k];
        }
        goal->aside -= dt;
        if (goal->aside <= 0.0f)
            end_aside(goal, left);
    } else if (left < goal->nearest - progress) {
        goal->nearest = left;
        goal->stuck = 0.0f;
    } else {
        goal->stuck += dt;
        if (goal->stuck >= STUCK_SECONDS)
            start_aside(c, slot, goal, toward);
    }
    c->body[slot].desired = (skim_vec3){ v[0], v[1], v[2] };
}

bool crowd_goal_keeps_wish(const skim_crowd *c, uint32_t slot, bool infeasible, uint32_t crossing)
{
    /* Only agents with somewhere to go: their stepping aside is what
       unlocks a crowd that pushes; agents steered by velocity keep the
       least violation (crowd_avoid.c). */
    const crowd_goal *goal = &c->goal[slot];
    if (goal->count == 0 || goal->arrived)
        return false;
    if (goal->aside > 0.0f)
        return true;
    /* Caught where streams cross: pressing on only packs the block. */
    return infeasible && !(goal->stuck >= YIELD_SECONDS && crossing >= CROSSING_LEAST);
}

/* Agent j wishes for nothing: it stands, or has arrived. */
static inline bool idle(const skim_crowd *c, uint32_t j)
{
    const float *wish = c->avoid_pref + 2 * (size_t)j;
    return wish[0] == 0.0f && wish[1] == 0.0f;
}

/* Idle agents make room. A walker whose point is taken by an agent that
   wishes for nothing (one without a target, or one that has arrived at
   its own) would otherwise stop short of it for good: its half-plane
   against a standing neighbour keeps it from walking in, and the
   standing one, whose velocity is nothing, sees nobody coming and stays
   (the reciprocity of van den Berg, Guy, Lin, Manocha, "Reciprocal
   n-Body Collision Avoidance", section 4, assumes both move). The same
   holds a walker in front of a standing crowd it cannot go round. So a
   walker leaves out of its avoidance, and walks on into, the idle
   neighbours
   - within its radius, theirs and its arrival distance of its last
     point, on its last stretch (those that can keep it from arriving);
   - within IDLE_AHEAD_COSINE of the way to its waypoint, once it has
     been stuck for YIELD_SECONDS;
   and the solver pushes them aside. Walkers are still avoided, so two
   with the same point queue rather than shove. */
uint32_t crowd_goal_makes_room(const skim_crowd *c, uint32_t i, uint32_t slot, uint32_t *near, uint32_t count)
{
    const crowd_goal *goal = &c->goal[slot];
    if (goal->count == 0 || goal->arrived)
        return count;
    const bool last = goal->next + 1 == goal->count, stuck = goal->stuck >= YIELD_SECONDS;
    if (!last && !stuck)
        return count;
    /* Most neighbours walk: find the first idle one before any geometry. */
    uint32_t first = 0;
    while (first < count && !idle(c, near[first]))
        ++first;
    if (first == count)
        return count;
    const skim_vec3 point = goal->points[goal->next];
    const float at[3] = { point.x, point.y, point.z };
    const float *pi = c->proj + 3 * (size_t)i;
    float projected[3];
    crowd_project(c, at, projected);
    const float px = projected[0], py = projected[1], pz = projected[2];
    const float wx = px - pi[0], wy = py - pi[1], way_sq = wx * wx + wy * wy;
    uint32_t kept = first;
    for (uint32_t k = first; k < count; ++k) {
        const uint32_t j = near[k];
        if (idle(c, j)) {
            const float *pj = c->proj + 3 * (size_t)j;
            const float dx = pj[0] - px, dy = pj[1] - py, reach = c->radius[i] + c->radius[j] + goal->arrival;
            const float ox = pj[0] - pi[0], oy = pj[1] - pi[1], ahead = wx * ox + wy * oy;
            const bool on_point = last && dx * dx + dy * dy < reach * reach &&
                                  fabsf(pj[2] - pz) < c->height[i] + c->height[j];
            const bool in_way = stuck && ahead > 0.0f &&
                                ahead * ahead > IDLE_AHEAD_COSINE * IDLE_AHEAD_COSINE * way_sq * (ox * ox + oy * oy);
            if (on_point || in_way)
                continue;
        }
        near[kept++] = j;
    }
    return kept;
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

bool crowd_goal_after_move(skim_crowd *c, uint32_t slot, const float f[3])
{
    crowd_goal *goal = &c->goal[slot];
    if (goal->count == 0)
        return false;
    if (goal->arrived)
        return true;
    float to[3];
    const float radius = c->body[slot].radius;
    while (goal->next + 1 < goal->count && passed(c, goal, f, radius)) {
        goal->next++;
        goal->nearest = INFINITY; /* progress counts toward the new waypoint */
        goal->best = INFINITY;
        goal->stuck = 0.0f;
        goal->searches = 0;
    }
    if (goal->next + 1 == goal->count &&
        across_to(c, f, goal->points[goal->next], to) <= fmaxf(goal->arrival, ARRIVAL_SLACK * radius)) {
        goal->arrived = true;
        c->body[slot].desired = (skim_vec3){ 0, 0, 0 };
    }
    return goal->arrived;
}
