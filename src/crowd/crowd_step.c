/* One crowd step: plan, agents (crowd_grid.c, crowd_solver.c), world
   (skim_move_batch), check, commit. The order of the phases is explained in
   skim_crowd.h. */
#include "crowd/crowd_bodies.h"
#include "crowd/crowd_internal.h"
#include "move/move_internal.h"

#include <math.h>
#include <string.h>

/* How far pushes may move an agent off its plan in one step, and the slack
   for what the world move adds across up (pushing a start out of a touching
   surface by the skin), both as fractions of the agent's radius. The
   broadphase reach is built from them, so a pair it leaves out cannot meet. */
#define PUSH_MARGIN 0.4f
#define WORLD_SLACK 0.05f

/* The active agents in id order: a fresh list's order is the user's, never
   where the records happen to sit. */
static void rebuild_active(skim_crowd *c)
{
    uint32_t n = 0, id = 0;
    for (; id < c->capacity && n < c->count; ++id)
        if (c->public_state[id] & SKIM_AGENT_ACTIVE)
            c->active[n++] = c->slot_of[id];
    c->active_id_end = id;
    c->active_dirty = false;
    c->lists_valid = false; /* the lists are in the old order */
}

static float length3(const float v[3])
{
    return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static bool falls(const skim_crowd *c, uint32_t slot)
{
    return c->def.gravity > 0.0f && !(c->body[slot].flags & SKIM_AGENT_NO_GRAVITY);
}

/* Asks for what the plan (here and crowd_targets.c) and the last
   phase read and write of agent slot. A hint: it changes no result. */
static inline void prefetch_agent(const skim_crowd *c, uint32_t slot)
{
    __builtin_prefetch(&c->position[slot], 1);
    __builtin_prefetch(&c->velocity[slot], 1);
    __builtin_prefetch(&c->state[slot], 1);
    __builtin_prefetch(&c->body[slot], 1);
    __builtin_prefetch(&c->goal[slot], 1);
    __builtin_prefetch((const char *)&c->goal[slot] + sizeof c->goal[slot] - 1, 1);
    __builtin_prefetch(&c->setting[slot]);
    __builtin_prefetch(&c->support[slot], 1);
}

/* Asks for the waypoint agent slot walks to, which its record points to:
   called a few agents after prefetch_agent asked for the record. */
static inline void prefetch_goal_point(const skim_crowd *c, uint32_t slot)
{
    const crowd_goal *goal = &c->goal[slot];
    if (goal->next < goal->count)
        __builtin_prefetch(&goal->points[goal->next]);
}

/* Asks for the records of the agents a pass over [.., last) reaches
   next (prefetch_agent). */
static inline void prefetch_ahead(const skim_crowd *c, size_t i, size_t last)
{
    if (i + CROWD_PREFETCH_AHEAD < last)
        prefetch_agent(c, c->active[i + CROWD_PREFETCH_AHEAD]);
    if (i + CROWD_PREFETCH_AHEAD / 2 < last)
        prefetch_goal_point(c, c->active[i + CROWD_PREFETCH_AHEAD / 2]);
}

/* Phase 1: the displacement of agents [first, last) before they meet anyone. */
static void plan(skim_crowd *c, uint32_t first, uint32_t last, float dt)
{
    const float g = c->def.gravity;
    const float fall = g * dt * dt;
    const bool avoid = c->def.avoidance && c->def.agent_collisions;
    for (size_t i = first; i < last; ++i) {
        uint32_t slot = c->active[i];
        prefetch_ahead(c, i, last);
        float *start = c->start + 3 * i, *d = c->planned + 3 * i;
        /* Where the moving bodies left it (crowd_bodies.c), or where it stood. */
        const skim_vec3 from = c->bodies_moved ? crowd_shifted(c, slot) : c->position[slot];
        start[0] = from.x;
        start[1] = from.y;
        start[2] = from.z;
        crowd_steer(c, slot, start, dt);
        float v[3] = { c->body[slot].desired.x, c->body[slot].desired.y, c->body[slot].desired.z };
        /* Standing on another agent: carried along with it, across up. */
        const uint32_t under = c->support[slot];
        if ((c->state[slot] & SKIM_AGENT_ON_AGENT) && under != UINT32_MAX && (c->state[under] & SKIM_AGENT_ACTIVE)) {
            const skim_vec3 w = c->velocity[under];
            float along = w.x * c->up[0] + w.y * c->up[1] + w.z * c->up[2];
            v[0] += w.x - along * c->up[0];
            v[1] += w.y - along * c->up[1];
            v[2] += w.z - along * c->up[2];
        }
        const float world_extra = crowd_world_reach(c, slot) + fall;
        bool on_floor = (c->state[slot] & SKIM_AGENT_ON_FLOOR) != 0 && falls(c, slot);
        c->grounded[i] = on_floor;
        /* Airborne: exact under constant gravity over the step; standing:
           across up only, the world move's gravity pass finds the floor. */
        float rise = 0.0f;
        if (falls(c, slot) && !on_floor)
            rise = c->body[slot].vertical_speed * dt - 0.5f * g * dt * dt;
        for (int k = 0; k < 3; ++k)
            d[k] = v[k] * dt + rise * c->up[k];
        crowd_clamp_far(start, d);
        float moved = length3(d);
        float r = c->body[slot].radius;
        c->sense[i] = 0.0f;
        if (avoid && !(c->body[slot].flags & SKIM_AGENT_GHOST))
            moved = fmaxf(moved, crowd_avoid_plan(c, i, slot, v, rise, dt));
        c->radius[i] = r;
        c->height[i] = c->body[slot].half_height;
        c->inverse_mass[i] = c->body[slot].inverse_mass;
        c->leaning[i] = (c->state[slot] & SKIM_AGENT_TOUCHED_WALL) != 0;
        c->margin[i] = PUSH_MARGIN * r;
        c->reach[i] = r + moved + c->margin[i] + WORLD_SLACK * r;
        c->vreach[i] = c->body[slot].half_height + moved + c->margin[i] + WORLD_SLACK * r + world_extra;
        for (int k = 0; k < 3; ++k)
            c->q[3 * i + k] = start[k] + d[k];
        crowd_project(c, start, c->proj + 3 * i);
        c->pushed[i] = 0;
    }
}

/* Phase 5: the new state of agent i, whose move ends at f. */
static void commit(skim_crowd *c, uint32_t i, float dt, const float *f, bool reverted, bool standing_on_agent,
                   crowd_chunk_stats *counts)
{
    const float g = c->def.gravity;
    uint32_t slot = c->active[i];
    const float *s = c->start + 3 * (size_t)i;
    uint32_t state = SKIM_AGENT_ACTIVE;
    if (c->def.agent_collisions && c->pushed[i])
        state |= SKIM_AGENT_TOUCHED_AGENT;
    if (reverted) {
        /* Kept its start: it keeps its footing and its vertical speed
           (gravity acts again next step). */
        state |= SKIM_AGENT_BLOCKED | (c->state[slot] & (SKIM_AGENT_ON_FLOOR | SKIM_AGENT_ON_AGENT));
        c->position[slot] = (skim_vec3){ s[0], s[1], s[2] }; /* where the bodies left it */
        c->velocity[slot] = (skim_vec3){ 0, 0, 0 };
        counts->blocked++;
    } else {
        const skim_move_result *r = &c->result[i];
        float vs = c->body[slot].vertical_speed;
        if (falls(c, slot)) {
            vs = c->grounded[i] ? -g * dt : vs - g * dt;
            if ((r->touched & SKIM_TOUCH_FLOOR) && vs <= 0.0f) {
                state |= SKIM_AGENT_ON_FLOOR;
                c->floor_normal[slot] = r->floor_normal;
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
                c->floor_normal[slot] = r->floor_normal;
            }
        }
        if (r->touched & SKIM_TOUCH_WALL)
            state |= SKIM_AGENT_TOUCHED_WALL;
        if (r->touched & SKIM_TOUCH_CEILING)
            state |= SKIM_AGENT_TOUCHED_CEILING;
        /* Falling for ever: held at the limit (see SKIM_CROWD_LIMIT). */
        c->body[slot].vertical_speed = fmaxf(-SKIM_CROWD_LIMIT, fminf(SKIM_CROWD_LIMIT, vs));
        c->position[slot] = (skim_vec3){ f[0], f[1], f[2] };
        c->velocity[slot] = (skim_vec3){ (f[0] - s[0]) / dt, (f[1] - s[1]) / dt, (f[2] - s[2]) / dt };
    }
    if (c->bodies_moved && c->squeezed[slot]) {
        state |= SKIM_AGENT_SQUEEZED;
        counts->squeezed++;
    }
    crowd_bodies_note_floor(c, slot, reverted, (state & SKIM_AGENT_ON_FLOOR) != 0,
                            reverted ? SKIM_STATIC : c->result[i].floor_body);
    if (state & SKIM_AGENT_ON_FLOOR)
        counts->on_floor++;
    else if (state & SKIM_AGENT_ON_AGENT)
        counts->on_agent++;
    c->state[slot] = state;
}

/* The phase before the last: the check's figures (moves kept in part or
   not at all, who stands on whom, the closest pair) and the new state, per
   chunk; the chunks' figures are combined after the region.
   stands_on_agent reads only final positions and cylinders, which nobody
   writes any more, and commit writes only agent i's own state, so one pass
   does both. */
static void finish_agents(skim_crowd *c, uint32_t n, float dt, team_cursor *cursor)
{
    const bool agents = c->def.agent_collisions;
    const uint32_t chunks = team_chunks(n, CROWD_COMMIT_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, CROWD_COMMIT_CHUNK, n, &first, &last);
        crowd_chunk_stats counts = { 0, 0, 0, 0, 0, INFINITY, 0 };
        for (uint32_t i = first; i < last; ++i) {
            prefetch_ahead(c, i, last);
            bool reverted = false, on_agent = false;
            if (agents) {
                reverted = c->lambda[i] == 0.0f;
                counts.shortened += c->lambda[i] > 0.0f && c->lambda[i] < 1.0f;
                on_agent = crowd_stands_on_agent(c, i, &counts.closest, &c->support[c->active[i]]);
            }
            const float *f = (agents ? c->final : c->world_end) + 3 * (size_t)i;
            commit(c, i, dt, f, reverted, on_agent, &counts);
            if (crowd_goal_after_move(c, c->active[i], f)) {
                c->state[c->active[i]] |= SKIM_AGENT_ARRIVED;
                counts.arrived++;
            }
        }
        c->chunk_stats[k] = counts;
    }
    team_wait(phase, chunks);
}

/* Ids per chunk of the publishing phase. */
#define PUBLISH_CHUNK 1024
/* How many ids ahead the publishing asks for the records it will read. */
#define PUBLISH_AHEAD 16

/* What the public arrays say of every agent (crowd_publish), copied once
   the step is done, in id order: the writes to the id-indexed arrays then
   run through memory, and the reads of the agents' records, in slots that
   follow the grid's order, are the scattered ones: a scattered read can be
   asked for ahead and leaves its line clean, where a scattered write has
   to fetch its line and later write it back. */
static void publish_agents(skim_crowd *c, team_cursor *cursor)
{
    const uint32_t end = c->active_id_end, chunks = team_chunks(end, PUBLISH_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, PUBLISH_CHUNK, end, &first, &last);
        for (uint32_t id = first; id < last; ++id) {
            if (id + PUBLISH_AHEAD < last) {
                const uint32_t ahead = c->slot_of[id + PUBLISH_AHEAD];
                __builtin_prefetch(&c->position[ahead]);
                __builtin_prefetch(&c->velocity[ahead]);
                __builtin_prefetch(&c->state[ahead]);
            }
            if (c->public_state[id] & SKIM_AGENT_ACTIVE)
                crowd_publish_id(c, id, c->slot_of[id]);
        }
    }
    /* No wait: the region ends here. */
}

/* The phases before the world move (plan, the lists if they no longer
   hold, contacts, solver, the world move's inputs), run by every thread of
   the region. lists_valid is what the master read before the region (the
   caller sets it after: nothing in the region writes it). Sets *rebuilt
   when the lists were rebuilt, *refreshed when only the half lists were
   made again, and *groups to the world move's groups. Returns the
   solver's buffer (crowd_solve), or UINT32_MAX if out of memory. */
static uint32_t before_world(skim_crowd *c, uint32_t n, float dt, bool lists_valid, bool world, bool *rebuilt,
                             bool *refreshed, crowd_world_groups *groups, team_cursor *cursor)
{
    const bool agents = c->def.agent_collisions;
    /* Whether the lists still hold is asked of each agent as it is
       planned: an AND over agents, the same for any thread count. */
    const uint32_t chunks = team_chunks(n, CROWD_AGENT_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, CROWD_AGENT_CHUNK, n, &first, &last);
        plan(c, first, last, dt);
        uint32_t bad = agents ? crowd_check_lists(c, first, last, lists_valid, &c->chunk_drift[k]) : 0;
        if (bad & CROWD_ORDER_BAD)
            atomic_store_explicit(&c->shared.lists_bad, 1, memory_order_relaxed);
        if (bad & CROWD_CONTACTS_BAD)
            atomic_store_explicit(&c->shared.contacts_bad, 1, memory_order_relaxed);
    }
    team_wait(phase, chunks);
    *rebuilt = agents && (!lists_valid || atomic_load_explicit(&c->shared.lists_bad, memory_order_relaxed));
    /* The rebuild also puts the agents in the grid's order, which keeps
       agents that are near each other near in every working array. When
       only the half lists no longer hold, they are made again in the
       order the agents have. */
    if (*rebuilt && !crowd_build_neighbours(c, n, cursor))
        return UINT32_MAX;
    *refreshed = agents && !*rebuilt && atomic_load_explicit(&c->shared.contacts_bad, memory_order_relaxed);
    if (*refreshed && !crowd_refresh_neighbours(c, n, chunks, cursor))
        return UINT32_MAX;
    const bool avoid = agents && c->def.avoidance;
    if (avoid && !crowd_build_sense_grid(c, n, cursor))
        return UINT32_MAX;
    if (avoid)
        crowd_avoid(c, n, dt, cursor);
    uint32_t which = 0;
    if (agents) {
        if (!crowd_find_contacts(c, n, cursor))
            return UINT32_MAX;
        which = crowd_solve(c, n, cursor);
    }
    if (world)
        *groups = crowd_gather_world(c, n, which ? c->q_next : c->q, dt, cursor);
    return which;
}

skim_status skim_crowd_step(const skim_world *world, skim_crowd *c, float dt)
{
    if (!c)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_step: crowd is NULL");
    if (!isfinite(dt) || !(dt > 0.0f) || dt > 1.0f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_step: dt must be in (0, 1] seconds (got %.9g)",
                         (double)dt);
    double t0 = crowd_seconds();
    if (c->active_dirty)
        rebuild_active(c);
    const uint32_t n = c->count;
    crowd_slots_follow_order(c, n);
    const bool agents = c->def.agent_collisions;
    skim_crowd_stats stats = { 0 };
    stats.closest_gap = INFINITY;
    c->stats = stats;
    if (n == 0)
        return crowd_bodies_remember(world, c)
                   ? SKIM_OK
                   : skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the bodies");
    if (agents && !crowd_reserve_near_buffers(c, n))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory");

    /* The team size and wait of the crowd's move def, as its batch uses. */
#ifdef _OPENMP
    const int threads = c->def.move.threads > 0 ? c->def.move.threads : omp_get_max_threads();
#else
    const int threads = 1;
#endif
    (void)threads;
    /* Bodies moved since the last step carry their riders and push the
       agents in their way, before anyone plans. */
    if (!crowd_bodies_prepare(world, c))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the bodies");
    crowd_bodies_work bodies;
    const bool bodies_moved = c->bodies_moved;
    if (bodies_moved) {
        skim_status status = crowd_bodies_begin(world, c, n, &bodies);
        if (status != SKIM_OK) {
            c->bodies_moved = false;
            return status;
        }
    }
    const bool passive = c->def.move.wait == SKIM_WAIT_PASSIVE;
    /* The bodies' phase and what comes before the world: one region. */
    uint32_t which = 0, used = 0;
    crowd_world_groups groups = { 0, 0 };
    bool rebuilt = false, refreshed = false, bodies_done = true;
    const bool lists_valid = c->lists_valid;
#pragma omp parallel num_threads(threads)
    {
        team_enter_region(passive);
        team_cursor cursor = { c->phases, 0 };
        bool mine_rebuilt = false, mine_refreshed = false;
        crowd_world_groups mine_groups = { 0, 0 };
        const bool go = !bodies_moved || crowd_bodies_phases(c, &cursor, &bodies);
        uint32_t mine = go ? before_world(c, n, dt, lists_valid, world != NULL, &mine_rebuilt, &mine_refreshed,
                                          &mine_groups, &cursor)
                           : 0;
#ifdef _OPENMP
        if (omp_get_thread_num() == 0)
#endif
        {
            bodies_done = go;
            which = mine;
            rebuilt = mine_rebuilt;
            refreshed = mine_refreshed;
            used = cursor.at;
            groups = mine_groups;
        }
        team_leave_region(&c->shared.left);
    }
    if (!bodies_done) {
        crowd_clear_region(c, TEAM_PHASES);
        c->bodies_moved = false;
        return crowd_bodies_end(&bodies);
    }
    c->list_refreshes += refreshed;
    if (rebuilt) {
        c->list_builds++;
        c->lists_valid = which != UINT32_MAX;
    }
    if (which == UINT32_MAX) {
        crowd_clear_region(c, TEAM_PHASES);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the agents' contacts");
    }
    crowd_clear_region(c, used);
    if (agents)
        crowd_solve_settle(c, which);
    c->avoid_turn = (c->avoid_turn + 1) % c->def.avoidance_interval;
    c->rest_round++;
    double t1 = crowd_seconds();
    const uint64_t calls_before = c->world_cache.kernel_calls, walks_before = c->world_cache.walks;
    if (world) {
        skim_status status = crowd_move_world(world, c, groups, dt);
        if (status != SKIM_OK) {
            c->bodies_moved = false;
            return status;
        }
    }
    double t2 = crowd_seconds();
    uint32_t rounds = 0;
#pragma omp parallel num_threads(threads)
    {
        team_enter_region(passive);
        team_cursor cursor = { c->phases, 0 };
        crowd_scatter_world(c, n, world != NULL, groups, dt, &cursor);
        uint32_t mine = agents ? crowd_check(c, n, &cursor) : 0;
        finish_agents(c, n, dt, &cursor);
        publish_agents(c, &cursor);
#ifdef _OPENMP
        if (omp_get_thread_num() == 0)
#endif
        {
            rounds = mine;
            used = cursor.at;
        }
        team_leave_region(&c->shared.left);
    }
    crowd_clear_region(c, used);
    crowd_chunk_stats sum = { 0, 0, 0, 0, 0, INFINITY, 0 };
    for (uint32_t k = 0; k < team_chunks(n, CROWD_COMMIT_CHUNK); ++k) {
        const crowd_chunk_stats *s = &c->chunk_stats[k];
        sum.on_floor += s->on_floor;
        sum.on_agent += s->on_agent;
        sum.blocked += s->blocked;
        sum.shortened += s->shortened;
        sum.arrived += s->arrived;
        if (s->closest < sum.closest)
            sum.closest = s->closest;
        sum.squeezed += s->squeezed;
    }
    c->bodies_moved = false;
    if (!crowd_bodies_remember(world, c))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the bodies");
    double t3 = crowd_seconds();
    c->stats.agents = n;
    c->stats.on_floor = sum.on_floor;
    c->stats.on_agent = sum.on_agent;
    c->stats.in_air = n - sum.on_floor - sum.on_agent;
    c->stats.blocked = sum.blocked;
    c->stats.pairs = agents ? c->pair_count : 0;
    c->stats.shortened = agents ? sum.shortened : 0;
    c->stats.check_rounds = rounds;
    c->stats.arrived = sum.arrived;
    c->stats.squeezed = sum.squeezed;
    c->stats.resting = world ? n - groups.moving : 0;
    c->stats.world_moves = world ? groups.moving : 0;
    c->stats.world_kernel_calls = (uint32_t)(c->world_cache.kernel_calls - calls_before);
    c->stats.world_walks = (uint32_t)(c->world_cache.walks - walks_before);
    c->stats.closest_gap = agents ? sum.closest : INFINITY;
    /* Everything but the world move counts as the agents' now: the plan
       and the world move's inputs and results share the agents' regions. */
    c->stats.seconds_agents = (t1 - t0) + (t3 - t2);
    c->stats.seconds_world = t2 - t1;
    c->stats.seconds_total = t3 - t0;
    return SKIM_OK;
}
