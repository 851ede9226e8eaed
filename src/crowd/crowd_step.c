/* One crowd step: plan, agents (crowd_grid.c, crowd_solver.c), world
   (skim_move_batch), check, commit. The order of the phases is explained in
   skim_crowd.h. */
#include "crowd_internal.h"

#include <math.h>

/* How far pushes may move an agent off its plan in one step, and the slack
   for what the world move adds across up (pushing a start out of a touching
   surface by the skin), both as fractions of the agent's radius. The
   broadphase reach is built from them, so a pair it leaves out cannot meet. */
#define PUSH_MARGIN 0.4f
#define WORLD_SLACK 0.05f

static void rebuild_active(skim_crowd *c)
{
    uint32_t n = 0;
    for (uint32_t id = 0; id < c->capacity && n < c->count; ++id)
        if (c->state[id] & SKIM_AGENT_ACTIVE)
            c->active[n++] = id;
    c->active_dirty = false;
    c->lists_valid = false; /* the lists are in the old order */
}

static float length3(const float v[3])
{
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static bool falls(const skim_crowd *c, uint32_t id)
{
    return c->def.gravity > 0.0f && !(c->body[id].flags & SKIM_AGENT_NO_GRAVITY);
}

/* Phase 1: every agent's displacement before it meets anyone. */
static void plan(skim_crowd *c, uint32_t n, float dt)
{
    const float g = c->def.gravity;
    const float world_extra = c->def.move.step_height + c->def.move.snap_distance + g * dt * dt;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; ++i) {
        uint32_t id = c->active[i];
        float *start = c->start + 3 * i, *d = c->planned + 3 * i;
        start[0] = c->position[id].x;
        start[1] = c->position[id].y;
        start[2] = c->position[id].z;
        const float v[3] = { c->body[id].desired.x, c->body[id].desired.y, c->body[id].desired.z };
        bool on_floor = (c->state[id] & SKIM_AGENT_ON_FLOOR) != 0 && falls(c, id);
        c->grounded[i] = on_floor;
        /* Airborne: exact under constant gravity over the step; standing:
           across up only, the world move's gravity pass finds the floor. */
        float rise = 0.0f;
        if (falls(c, id) && !on_floor)
            rise = c->body[id].vertical_speed * dt - 0.5f * g * dt * dt;
        for (int k = 0; k < 3; ++k) {
            d[k] = v[k] * dt + rise * c->up[k];
            /* Nobody is sent beyond 100 times the crowd's limit (an agent
               that walks or falls for ever): the move would refuse it. */
            const float far = 100.0f * SKIM_CROWD_LIMIT;
            if (start[k] + d[k] > far)
                d[k] = far - start[k];
            else if (start[k] + d[k] < -far)
                d[k] = -far - start[k];
        }
        float moved = length3(d);
        float r = c->body[id].radius;
        c->radius[i] = r;
        c->margin[i] = PUSH_MARGIN * r;
        c->reach[i] = r + moved + c->margin[i] + WORLD_SLACK * r;
        c->vreach[i] = c->body[id].half_height + moved + c->margin[i] + WORLD_SLACK * r + world_extra;
        for (int k = 0; k < 3; ++k)
            c->q[3 * i + k] = start[k] + d[k];
        float *proj = c->proj + 3 * i;
        proj[0] = start[0] * c->axis1[0] + start[1] * c->axis1[1] + start[2] * c->axis1[2];
        proj[1] = start[0] * c->axis2[0] + start[1] * c->axis2[1] + start[2] * c->axis2[2];
        proj[2] = start[0] * c->up[0] + start[1] * c->up[1] + start[2] * c->up[2];
        c->pushed[i] = 0;
    }
}

void crowd_apply_order(skim_crowd *c, uint32_t n, const uint32_t *order)
{
    /* What plan() wrote, and the ids. */
    c->active = crowd_permute(c, c->active, sizeof *c->active, n, order);
    c->start = crowd_permute(c, c->start, 3 * sizeof *c->start, n, order);
    c->planned = crowd_permute(c, c->planned, 3 * sizeof *c->planned, n, order);
    c->q = crowd_permute(c, c->q, 3 * sizeof *c->q, n, order);
    c->proj = crowd_permute(c, c->proj, 3 * sizeof *c->proj, n, order);
    c->reach = crowd_permute(c, c->reach, sizeof *c->reach, n, order);
    c->vreach = crowd_permute(c, c->vreach, sizeof *c->vreach, n, order);
    c->margin = crowd_permute(c, c->margin, sizeof *c->margin, n, order);
    c->radius = crowd_permute(c, c->radius, sizeof *c->radius, n, order);
    c->grounded = crowd_permute(c, c->grounded, sizeof *c->grounded, n, order);
    /* pushed is all zero until the solver runs. */
}

/* Phase 3: the world. Standing agents move with Nettle's two-pass gravity
   (one step's fall as the second pass keeps them on the floor and reports
   it) and the crowd's steps and snapping; airborne ones carry their fall in
   the displacement and neither step nor snap. skim_move_batch takes one
   definition per call, so the two groups are two calls. */
static skim_status move_group(const skim_world *world, skim_crowd *c, uint32_t n, bool standing, float dt)
{
    skim_move_def def = c->def.move;
    if (standing) {
        float drop = c->def.gravity * dt * dt;
        def.gravity = (skim_vec3){ -drop * c->up[0], -drop * c->up[1], -drop * c->up[2] };
    } else {
        def.gravity = (skim_vec3){ 0, 0, 0 };
        def.step_height = 0.0f;
        def.snap_distance = 0.0f;
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; ++i)
        if ((c->grounded[i] != 0) == standing)
            c->group_index[m++] = i;
    if (m == 0)
        return SKIM_OK;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < (long)m; ++k) {
        uint32_t i = c->group_index[k];
        const float *s = c->start + 3 * (size_t)i, *q = c->q + 3 * (size_t)i;
        c->batch_shape[k] = c->shape[c->active[i]];
        c->batch_position[k] = (skim_vec3){ s[0], s[1], s[2] };
        c->batch_displacement[k] = (skim_vec3){ q[0] - s[0], q[1] - s[1], q[2] - s[2] };
    }
    skim_status status = skim_move_batch(world, m, c->batch_shape, c->batch_position,
                                         c->batch_displacement, &def, c->batch_result);
    if (status != SKIM_OK)
        return status;
    /* Straight: the world neither stopped nor turned it (no wall or
       ceiling met, across up it ended where it was sent, and along up it
       moved no more than the gravity pass drops), so every point between
       start and end is as free as the swept path was. */
    const float drop = standing ? c->def.gravity * dt * dt : 0.0f;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < (long)m; ++k) {
        uint32_t i = c->group_index[k];
        const skim_move_result *r = &c->batch_result[k];
        c->result[i] = *r;
        float *w = c->world_end + 3 * (size_t)i;
        w[0] = r->position.x;
        w[1] = r->position.y;
        w[2] = r->position.z;
        const float *q = c->q + 3 * (size_t)i, *s = c->start + 3 * (size_t)i;
        float off[3] = { w[0] - q[0], w[1] - q[1], w[2] - q[2] };
        float along = off[0] * c->up[0] + off[1] * c->up[1] + off[2] * c->up[2];
        float across_sq = 0.0f;
        for (int a = 0; a < 3; ++a) {
            float h = off[a] - along * c->up[a];
            across_sq += h * h;
        }
        float rise = (w[0] - s[0]) * c->up[0] + (w[1] - s[1]) * c->up[1] + (w[2] - s[2]) * c->up[2];
        float planned_rise = (q[0] - s[0]) * c->up[0] + (q[1] - s[1]) * c->up[1] + (q[2] - s[2]) * c->up[2];
        float slack = 1e-3f * c->radius[i];
        c->free_path[i] = !(r->touched & (SKIM_TOUCH_WALL | SKIM_TOUCH_CEILING)) && across_sq <= slack * slack &&
                          rise <= planned_rise + slack && rise >= planned_rise - drop - slack;
    }
    return SKIM_OK;
}

static skim_status move_world(const skim_world *world, skim_crowd *c, uint32_t n, float dt)
{
    if (!world) {
        /* Empty space: the solver's positions stand. */
#pragma omp parallel for schedule(static)
        for (long i = 0; i < (long)n; ++i) {
            for (int k = 0; k < 3; ++k)
                c->world_end[3 * i + k] = c->final[3 * i + k] = c->q[3 * i + k];
            c->result[i] = (skim_move_result){ 0 };
            c->free_path[i] = 1;
        }
        return SKIM_OK;
    }
    skim_status status = move_group(world, c, n, true, dt);
    if (status == SKIM_OK)
        status = move_group(world, c, n, false, dt);
    return status;
}

/* Phase 5: the new state. */
static void commit(skim_crowd *c, uint32_t n, float dt, bool agents)
{
    const float g = c->def.gravity;
    uint32_t on_floor = 0, on_agent = 0, blocked = 0;
#pragma omp parallel for schedule(static) reduction(+ : on_floor, on_agent, blocked)
    for (long i = 0; i < (long)n; ++i) {
        uint32_t id = c->active[i];
        const float *s = c->start + 3 * i, *f = (agents ? c->final : c->world_end) + 3 * i;
        uint32_t state = SKIM_AGENT_ACTIVE;
        bool reverted = agents && c->reverted[i];
        bool standing_on_agent = agents && c->on_agent[i];
        if (agents && c->pushed[i])
            state |= SKIM_AGENT_TOUCHED_AGENT;
        if (reverted) {
            /* Kept its start: it keeps its footing and its vertical speed
               (gravity acts again next step). */
            state |= SKIM_AGENT_BLOCKED | (c->state[id] & (SKIM_AGENT_ON_FLOOR | SKIM_AGENT_ON_AGENT));
            c->velocity[id] = (skim_vec3){ 0, 0, 0 };
            blocked++;
        } else {
            const skim_move_result *r = &c->result[i];
            float vs = c->body[id].vertical_speed;
            if (falls(c, id)) {
                vs = c->grounded[i] ? -g * dt : vs - g * dt;
                if ((r->touched & SKIM_TOUCH_FLOOR) && vs <= 0.0f) {
                    state |= SKIM_AGENT_ON_FLOOR;
                    c->floor_normal[id] = r->floor_normal;
                    vs = 0.0f;
                } else if (standing_on_agent && vs <= 0.0f) {
                    state |= SKIM_AGENT_ON_AGENT;
                    vs = 0.0f;
                }
                if ((r->touched & SKIM_TOUCH_CEILING) && vs > 0.0f)
                    vs = 0.0f;
            } else {
                vs = 0.0f;
                if (r->touched & SKIM_TOUCH_FLOOR) {
                    state |= SKIM_AGENT_ON_FLOOR;
                    c->floor_normal[id] = r->floor_normal;
                }
            }
            if (r->touched & SKIM_TOUCH_WALL)
                state |= SKIM_AGENT_TOUCHED_WALL;
            if (r->touched & SKIM_TOUCH_CEILING)
                state |= SKIM_AGENT_TOUCHED_CEILING;
            /* Falling for ever: held at the limit (see SKIM_CROWD_LIMIT). */
            c->body[id].vertical_speed = fmaxf(-SKIM_CROWD_LIMIT, fminf(SKIM_CROWD_LIMIT, vs));
            c->position[id] = (skim_vec3){ f[0], f[1], f[2] };
            c->velocity[id] = (skim_vec3){ (f[0] - s[0]) / dt, (f[1] - s[1]) / dt, (f[2] - s[2]) / dt };
        }
        if (state & SKIM_AGENT_ON_FLOOR)
            on_floor++;
        else if (state & SKIM_AGENT_ON_AGENT)
            on_agent++;
        c->state[id] = state;
    }
    c->stats.agents = n;
    c->stats.on_floor = on_floor;
    c->stats.on_agent = on_agent;
    c->stats.in_air = n - on_floor - on_agent;
    c->stats.blocked = blocked;
}

skim_status skim_crowd_step(const skim_world *world, skim_crowd *c, float dt)
{
    if (!c)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_step: crowd is NULL");
    if (!isfinite(dt) || !(dt > 0.0f) || dt > 1.0f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_step: dt must be in (0, 1] seconds (got %g)",
                         (double)dt);
    double t0 = crowd_seconds();
    if (c->active_dirty)
        rebuild_active(c);
    const uint32_t n = c->count;
    const bool agents = c->def.agent_collisions;
    skim_crowd_stats stats = { 0 };
    stats.closest_gap = INFINITY;
    c->stats = stats;
    if (n == 0)
        return SKIM_OK;

    plan(c, n, dt);
    /* When the lists are rebuilt, crowd_find_contacts also puts the agents
       in the grid's order, which keeps agents that are near each other near
       in every working array. */
    bool lists_good = agents && crowd_lists_still_good(c, n);
    skim_status status = SKIM_OK;
    double t1 = crowd_seconds();
    if (agents) {
        status = crowd_find_contacts(c, n, lists_good);
        if (status != SKIM_OK)
            return status;
        crowd_solve(c, n);
    }
    double t2 = crowd_seconds();
    status = move_world(world, c, n, dt);
    if (status != SKIM_OK)
        return status;
    double t3 = crowd_seconds();
    uint32_t rounds = 0;
    float closest = INFINITY;
    if (agents) {
        rounds = crowd_check(c, n);
        closest = c->stats.closest_gap;
    }
    commit(c, n, dt, agents);
    double t4 = crowd_seconds();
    c->stats.pairs = agents ? c->pair_count : 0;
    c->stats.check_rounds = rounds;
    c->stats.closest_gap = closest;
    c->stats.seconds_agents = (t2 - t1) + (t4 - t3);
    c->stats.seconds_world = t3 - t2;
    c->stats.seconds_total = t4 - t0;
    return SKIM_OK;
}
