/* The step's world phase (skim_crowd_step, phase 3): every agent's move
   against the world gathered into the batch arrays, one skim_move_batch
   call for the standing and the airborne agents, and the results scattered
   back to the agents. */
#include "crowd/crowd_internal.h"
#include "move/move_internal.h"

#include <math.h>
#include <string.h>

/* Moved bodies beyond this many move every agent: an agent that could
   rest asks the index of their swept boxes (crowd_bodies.c) for one that
   meets its own, into a bitset of this many bits. Up to
   REST_LISTED_BODIES it tests each box instead, which costs less than a
   query (a few hundred instructions for a box as large as an agent's
   reach). */
#define REST_MOVED_BODIES 4096
#define REST_LISTED_BODIES 64

/* Whether agent i's move from start by displacement may reach a body
   that moved since the last step: a box around start that holds every
   box the move gathers in (move_gather.c), against each moved body's
   swept box. On every side that box reaches the largest radius times
   the unit-space path (at most the world path over the least radius),
   push-outs (an eighth) and four skins (a quarter each at most), plus the
   radius itself; along up the larger of the step height and the snap
   distance, and the snap distance down; and where the snap widens it,
   the largest radius times the snap's drop in unit space (the snap
   distance over the least radius and two skins) stretched by at most 4
   (1 / sin of the slope limit, held to 4). So, with room to spare: the
   radii's ratio times the path and four snap distances, 4.5 radii, the
   step height and two snap distances. */
static bool meets_moved_body(const skim_crowd *c, uint32_t slot, const skim_vec3 *start, const skim_vec3 *d,
                             float drop)
{
    const skim_vec3 r = c->shape[slot].radii;
    const float largest = r.x > r.y ? (r.x > r.z ? r.x : r.z) : (r.y > r.z ? r.y : r.z);
    const float least = r.x < r.y ? (r.x < r.z ? r.x : r.z) : (r.y < r.z ? r.y : r.z);
    const crowd_setting *s = &c->settings[c->setting[slot]];
    const float step = s->overrides & SKIM_AGENT_SET_STEP_HEIGHT ? s->step_height : c->def.move.step_height;
    const float snap = s->overrides & SKIM_AGENT_SET_SNAP ? s->snap_distance : c->def.move.snap_distance;
    const float path = sqrtf(d->x * d->x + d->y * d->y + d->z * d->z) + drop;
    const float reach = 1.01f * (largest / least * (path + 4.0f * snap) + 4.5f * largest + step + 2.0f * snap) + 1.0f;
    const float lo[3] = { start->x - reach, start->y - reach, start->z - reach };
    const float hi[3] = { start->x + reach, start->y + reach, start->z + reach };
    if (c->moved_count > REST_LISTED_BODIES) {
        uint64_t meets[REST_MOVED_BODIES / 64];
        return skim_box_index_query(&c->moved_boxes, lo, hi, meets) > 0;
    }
    for (uint32_t k = 0; k < c->moved_count; ++k)
        if (crowd_boxes_meet(c->moved_bodies[k].lo, c->moved_bodies[k].hi, lo, hi))
            return true;
    return false;
}

/* An agent a moved body kept from resting asks again only every this
   many steps (in turns by id): a door or lift it stands by goes on moving
   most of the time, and each ask tests the moved bodies' boxes. Moving
   an agent that could have rested changes nothing but the time taken. */
#define REST_RETRY_STEPS 8u

/* Whether agent i (slot its slot) rests: its last world move ended where
   it started, and this one would be the same move (start, displacement,
   definition, dt) in the same world, with the same bodies, none of those
   that moved since within its reach. A move is a function of those alone
   (its results are bitwise the same for any thread count, kernel set and
   cache), so its result would be the last one again. Compared bit for
   bit: a -0 where a +0 was moves. Returns a crowd_rest_now. */
static uint8_t rests(const skim_crowd *c, uint32_t i, uint32_t slot, const float *q, bool still, float drop)
{
    if (!still || c->rest_kept[slot] == CROWD_REST_NONE)
        return CROWD_MOVES;
    const crowd_rest *r = &c->rest[slot];
    const float *s = c->start + 3 * (size_t)i, *p = q + 3 * (size_t)i;
    const skim_vec3 start = { s[0], s[1], s[2] }, displacement = { p[0] - s[0], p[1] - s[1], p[2] - s[2] };
    if (r->def_of != 2 * c->setting[slot] + !c->grounded[i] || memcmp(&r->start, &start, sizeof start) != 0 ||
        memcmp(&r->displacement, &displacement, sizeof displacement) != 0)
        return CROWD_MOVES;
    if (!c->bodies_moved)
        return CROWD_RESTS;
    if (c->rest_kept[slot] == CROWD_REST_BY_BODY && (c->id_of[slot] + c->rest_round) % REST_RETRY_STEPS != 0)
        return CROWD_MOVES_BY_BODY;
    return meets_moved_body(c, slot, &start, &displacement, drop) ? CROWD_MOVES_BY_BODY : CROWD_RESTS;
}

/* Phase 3: the world. Standing agents move with Nettle's two-pass gravity
   (one step's fall as the second pass keeps them on the floor and reports
   it) and the crowd's steps and snapping; airborne ones carry their fall in
   the displacement and neither step nor snap. The standing agents come
   first in the batch arrays, then the airborne ones, then those that rest
   (rests, above: idle agents standing on an unchanged floor), each group
   in index order; one batch call moves the first two groups, each with
   its own definition (crowd_move_world). Each chunk of agents counts its
   standing and resting ones, then puts its agents at their places, which
   the counts of the chunks before it give: the same places for any thread
   count. Every thread returns the groups. */
crowd_world_groups crowd_gather_world(skim_crowd *c, uint32_t n, const float *q, float dt, team_cursor *cursor)
{
    const bool still = c->def.resting && c->world_still && dt == c->rest_dt &&
                       (!c->bodies_moved || c->moved_count <= REST_MOVED_BODIES);
    const float drop = c->def.gravity * dt * dt;
    const uint32_t chunks = team_chunks(n, CROWD_AGENT_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last, standing = 0, resting = 0;
        crowd_chunk_range(k, CROWD_AGENT_CHUNK, n, &first, &last);
        for (uint32_t i = first; i < last; ++i) {
            const uint32_t slot = c->active[i];
            const uint8_t now = rests(c, i, slot, q, still, drop);
            const bool rest = now == CROWD_RESTS;
            c->rest_now[i] = now;
            if (rest) /* asked again and no body near: it asks every step again */
                c->rest_kept[slot] = CROWD_REST_KEPT;
            resting += rest;
            standing += c->grounded[i] && !rest;
        }
        c->chunk_standing[k] = standing;
        c->chunk_resting[k] = resting;
    }
    team_wait(phase, chunks);
    /* A few hundred counts: each thread adds them up rather than wait for
       one thread to. */
    uint32_t standing = 0, resting = 0;
    for (uint32_t k = 0; k < chunks; ++k) {
        standing += c->chunk_standing[k];
        resting += c->chunk_resting[k];
    }
    const uint32_t moving = n - resting;
    /* A thread claims chunks in increasing order, so it carries the counts
       of the chunks before its last one forward instead of adding them up
       again for each chunk. */
    uint32_t counted = 0, standing_before = 0, resting_before = 0;
    phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, CROWD_AGENT_CHUNK, n, &first, &last);
        for (; counted < k; ++counted) {
            standing_before += c->chunk_standing[counted];
            resting_before += c->chunk_resting[counted];
        }
        const uint32_t airborne_before = first - resting_before - standing_before;
        uint32_t next_standing = standing_before, next_airborne = standing + airborne_before,
                 next_resting = moving + resting_before;
        for (uint32_t i = first; i < last; ++i) {
            const uint32_t slot = c->active[i];
            const bool rest = c->rest_now[i] == CROWD_RESTS;
            const uint32_t e = rest ? next_resting++ : c->grounded[i] ? next_standing++ : next_airborne++;
            const float *s = c->start + 3 * (size_t)i, *p = q + 3 * (size_t)i;
            c->group_index[e] = i;
            c->batch_def_of[e] = 2 * c->setting[slot] + !c->grounded[i];
            c->batch_agent[e] = slot;
            c->batch_position[e] = (skim_vec3){ s[0], s[1], s[2] };
            c->batch_displacement[e] = (skim_vec3){ p[0] - s[0], p[1] - s[1], p[2] - s[2] };
            if (rest)
                c->batch_result[e] = c->rest[slot].result;
            else
                c->batch_shape[e] = c->shape[slot];
        }
    }
    /* No wait: the region ends here. */
    return (crowd_world_groups){ standing, moving };
}

/* The world move of both groups: [0, standing) of the batch arrays with
   Nettle's gravity pass, steps and snapping, the rest (airborne) with
   neither. One batch call, not one per group: each call is an OpenMP
   region whose end waits for every thread, and on a busy machine one of
   them is often set aside by the scheduler. Each agent keeps the world's
   leaves near it from step to step in its entry of the crowd's cache (by
   slot): the same results, fewer tree walks. */
skim_status crowd_move_world(const skim_world *world, skim_crowd *c, crowd_world_groups groups, float dt)
{
    const uint32_t n = groups.moving, standing = groups.standing;
    c->rest_dt = dt;
    if (n == 0)
        return SKIM_OK;
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    skim_move_def on_floor = c->def.move, in_air = c->def.move;
    const float drop = c->def.gravity * dt * dt;
    on_floor.gravity = (skim_vec3){ -drop * c->up[0], -drop * c->up[1], -drop * c->up[2] };
    in_air.gravity = (skim_vec3){ 0, 0, 0 };
    in_air.step_height = 0.0f;
    in_air.snap_distance = 0.0f;
    skim_status status;
    if (c->setting_count > 1) {
        crowd_setting_defs(c, &on_floor, &in_air);
        status = skim_move_batch_indexed_cached(kernels, world, n, c->batch_shape, c->batch_position,
                                                c->batch_displacement, c->setting_defs, 2 * c->setting_count,
                                                c->batch_def_of, &c->world_cache, c->batch_agent, c->capacity,
                                                c->batch_result);
    } else {
        status = skim_move_batch_split_cached(kernels, world, n, c->batch_shape, c->batch_position,
                                              c->batch_displacement, &on_floor, standing, &in_air,
                                              &c->world_cache, c->batch_agent, c->capacity, c->batch_result);
    }
    if (status != SKIM_OK || !c->bodies_moved)
        return status;
    /* An agent squeezed against static geometry overlaps the body that
       pressed it: its own move this step is against the static triangles
       alone, so that the move's push-out cannot take it out of the body
       into static geometry. One squeezed against agents moves against the
       whole world, so that nothing (the agents' own pushes included)
       takes it deeper into the body. */
    skim_world statics;
    crowd_static_view(world, &statics);
    for (uint32_t e = 0; e < n && status == SKIM_OK; ++e) {
        if (c->squeezed[c->active[c->group_index[e]]] != CROWD_SQUEEZED_BY_LEVEL)
            continue;
        const skim_move_def *def = c->setting_count > 1 ? &c->setting_defs[c->batch_def_of[e]]
                                   : e < standing        ? &on_floor
                                                         : &in_air;
        status = skim_move(&statics, &c->batch_shape[e], c->batch_position[e], c->batch_displacement[e], def,
                           &c->batch_result[e]);
    }
    return status;
}

/* Whether agent i, standing on a floor at the step's start and flagged
   SKIM_AGENT_STAYS_ON_FLOOR, would end its move r with no floor under it:
   it walked (or was pushed) off a drop deeper than its snap distance. A
   jump has left the floor before the move, so it is not held. */
static bool walks_off_floor(const skim_crowd *c, uint32_t i, const skim_move_result *r)
{
    return c->grounded[i] && (c->body[c->active[i]].flags & SKIM_AGENT_STAYS_ON_FLOOR) &&
           !(r->touched & SKIM_TOUCH_FLOOR);
}

/* The world move's results of batch entry e, agent i (moved when moved,
   else resting). Straight: the world
   neither stopped nor turned it (no wall or ceiling met, across up it
   ended where it was sent, and along up it moved no more than the gravity
   pass drops), so every point between start and end is as free as the
   swept path was. */
static void take_world_result(skim_crowd *c, uint32_t e, uint32_t i, float drop, bool moved)
{
    const skim_move_result *r = &c->batch_result[e];
    c->result[i] = *r;
    if (moved) {
        /* Kept for the next step when it ended where it started (rests). */
        const uint32_t slot = c->batch_agent[e];
        const bool fixed = memcmp(&r->position, &c->batch_position[e], sizeof r->position) == 0;
        c->rest_kept[slot] = !fixed                                    ? CROWD_REST_NONE
                             : c->rest_now[i] == CROWD_MOVES_BY_BODY ? CROWD_REST_BY_BODY
                                                                       : CROWD_REST_KEPT;
        if (fixed)
            c->rest[slot] = (crowd_rest){ c->batch_position[e], c->batch_displacement[e], c->batch_def_of[e], *r };
    }
    float *w = c->world_end + 3 * (size_t)i;
    const float *q = c->q + 3 * (size_t)i, *s = c->start + 3 * (size_t)i;
    if (walks_off_floor(c, i, r)) {
        /* Kept at its start, on the floor it stood on, as if a wall stood
           at the edge: a stuck agent with a target then searches along it
           (crowd_targets.c). The check treats it as one the world turned. */
        w[0] = s[0], w[1] = s[1], w[2] = s[2];
        c->result[i].position = (skim_vec3){ s[0], s[1], s[2] };
        c->result[i].touched = r->touched | SKIM_TOUCH_FLOOR | SKIM_TOUCH_WALL;
        c->result[i].floor_normal = c->floor_normal[c->active[i]];
        c->result[i].floor_body = c->ride[c->active[i]].body;
        c->free_path[i] = 0;
        return;
    }
    w[0] = r->position.x;
    w[1] = r->position.y;
    w[2] = r->position.z;
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

/* The world's results (or, with no world, the solver's positions: empty
   space) to every agent, and what the check starts from. */
void crowd_scatter_world(skim_crowd *c, uint32_t n, bool world, crowd_world_groups groups, float dt,
                         team_cursor *cursor)
{
    const bool agents = c->def.agent_collisions;
    const float drop = c->def.gravity * dt * dt;
    const uint32_t chunks = team_chunks(n, CROWD_AGENT_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, CROWD_AGENT_CHUNK, n, &first, &last);
        for (uint32_t e = first; e < last; ++e) {
            uint32_t i = e;
            if (world) {
                i = c->group_index[e];
                take_world_result(c, e, i, c->grounded[i] ? drop : 0.0f, e < groups.moving);
            } else {
                for (int a = 0; a < 3; ++a)
                    c->world_end[3 * (size_t)i + a] = c->q[3 * (size_t)i + a];
                c->result[i] = (skim_move_result){ 0 };
                c->free_path[i] = 1;
            }
            if (agents) {
                c->lambda[i] = 1.0f;
                for (int a = 0; a < 3; ++a)
                    c->final[3 * (size_t)i + a] = c->world_end[3 * (size_t)i + a];
                c->work[i] = i; /* the check's first list: everyone, in order */
                c->check_stamp[i] = 0;
            }
        }
    }
    team_wait(phase, chunks);
}
