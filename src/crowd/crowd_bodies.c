/* Agents and moving bodies (the step's first phase): an agent standing on a
   body is carried from the transform it saw to the body's current one, and
   a body that moves into an agent pushes it along its motion; neither may
   put an agent into the world's own (static) triangles. An agent the push
   cannot clear of the body without entering static geometry stays clear of
   the static geometry, keeps what overlap the squeeze leaves and is marked
   SKIM_AGENT_SQUEEZED for the step. docs/bodies.md says how and why. */
#include "crowd/crowd_bodies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A push's goal is a skin off the body. One that static geometry stops
   short of it by more than that skin (and this fraction of the agent's
   largest radius, for rounding) leaves the agent overlapping the body:
   squeezed. */
#define SQUEEZE_TOLERANCE 1e-4f

static bool same_transform(const skim_transform *a, const skim_transform *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static void transform_matrix(const skim_transform *t, double m[3][3], double p[3])
{
    const double q[4] = { t->rotation.x, t->rotation.y, t->rotation.z, t->rotation.w };
    skim_quat_matrix(q, m);
    p[0] = t->position.x;
    p[1] = t->position.y;
    p[2] = t->position.z;
}

static void to_local(const double m[3][3], const double p[3], const double world[3], double local[3])
{
    const double d[3] = { world[0] - p[0], world[1] - p[1], world[2] - p[2] };
    for (int i = 0; i < 3; ++i)
        local[i] = m[0][i] * d[0] + m[1][i] * d[1] + m[2][i] * d[2];
}

static void to_world(const double m[3][3], const double p[3], const double local[3], double world[3])
{
    for (int i = 0; i < 3; ++i)
        world[i] = m[i][0] * local[0] + m[i][1] * local[1] + m[i][2] * local[2] + p[i];
}

/* The box a body sweeps from its old placement to its new one: the new box
   and the shape's bounds turned to the old placement (their centre turned,
   their half extents through |rotation|: Arvo, "Transforming Axis-Aligned
   Bounding Boxes", Graphics Gems), rounded outward. */
static void swept_box(const skim_body *body, const double m[3][3], const double p[3], float lo[3], float hi[3])
{
    const skim_vec3 a = body->shape->bounds_min, b = body->shape->bounds_max;
    const double centre[3] = { 0.5 * ((double)a.x + b.x), 0.5 * ((double)a.y + b.y), 0.5 * ((double)a.z + b.z) };
    const double half[3] = { 0.5 * ((double)b.x - a.x), 0.5 * ((double)b.y - a.y), 0.5 * ((double)b.z - a.z) };
    double old_centre[3];
    to_world(m, p, centre, old_centre);
    for (int k = 0; k < 3; ++k) {
        const double reach = (fabs(m[k][0]) * half[0] + fabs(m[k][1]) * half[1] + fabs(m[k][2]) * half[2]) *
                             (1.0 + 1e-6);
        /* Compared as fminf and fmaxf compare (the second when equal),
           stepped without nextafterf: no libm calls. */
        const float below = skim_float_below((float)(old_centre[k] - reach));
        const float above = skim_float_above((float)(old_centre[k] + reach));
        lo[k] = body->box_min[k] < below ? body->box_min[k] : below;
        hi[k] = body->box_max[k] > above ? body->box_max[k] : above;
    }
}

static crowd_world_identity identity_of(const skim_world *world)
{
    crowd_world_identity id;
    memset(&id, 0, sizeof id); /* padding too: identities are compared whole */
    if (!world)
        return id;
    id.storage = world->vertex[0][0];
    id.triangles = world->triangle_count;
    id.degenerate = world->degenerate_count;
    id.bounds_min = world->bounds_min;
    id.bounds_max = world->bounds_max;
    id.build_seconds = world->build_seconds;
    return id;
}

/* Whether world is the one the last step saw (the same address, and not
   another made there since: the same identity), with the same bodies
   (each where it stood then, or among the moved ones crowd_bodies_prepare
   lists). */
static bool same_world_and_bodies(const skim_world *world, const skim_crowd *c)
{
    if (!world || world != c->seen_world || world->bodies.count != c->seen_count)
        return false;
    const crowd_world_identity now = identity_of(world);
    if (memcmp(&now, &c->seen_identity, sizeof now) != 0)
        return false;
    for (uint32_t k = 0; k < c->seen_count; ++k)
        if (world->bodies.body[k].id != c->seen[k].id)
            return false;
    return true;
}

bool crowd_bodies_prepare(const skim_world *world, skim_crowd *c)
{
    c->moved_count = 0;
    c->bodies_moved = false;
    c->world_still = same_world_and_bodies(world, c);
    if (world != c->seen_world) {
        /* Another world: nothing of it was seen, and nobody rides its bodies. */
        c->seen_count = 0;
        c->seen_world = world;
        for (uint32_t id = 0; id < c->capacity; ++id)
            c->ride[id].body = SKIM_STATIC;
    }
    if (!world || !world->bodies.count || !c->seen_count)
        return true;
    const skim_body_table *table = &world->bodies;
    /* Both lists run in increasing id: a merge. Bodies added since the last
       step were not seen and push nobody; they appear where they stand. */
    uint32_t s = 0;
    for (uint32_t k = 0; k < table->count; ++k) {
        const skim_body *body = &table->body[k];
        while (s < c->seen_count && c->seen[s].id < body->id)
            ++s;
        if (s == c->seen_count)
            break;
        if (c->seen[s].id != body->id || same_transform(&c->seen[s].transform, &body->now))
            continue;
        if (!crowd_reserve((void **)&c->moved_bodies, &c->moved_capacity, c->moved_count + 1, sizeof *c->moved_bodies))
            return false;
        crowd_moved_body *m = &c->moved_bodies[c->moved_count++];
        m->body = body;
        transform_matrix(&c->seen[s].transform, m->old_rotation, m->old_position);
        swept_box(body, m->old_rotation, m->old_position, m->lo, m->hi);
    }
    if (!skim_box_index_reserve(&c->moved_boxes, c->moved_count))
        return false;
    for (uint32_t k = 0; k < c->moved_count; ++k)
        skim_box_index_set(&c->moved_boxes, k, c->moved_bodies[k].lo, c->moved_bodies[k].hi);
    skim_box_index_sort(&c->moved_boxes, c->moved_count);
    c->bodies_moved = c->moved_count > 0;
    return true;
}

bool crowd_bodies_remember(const skim_world *world, skim_crowd *c)
{
    c->seen_identity = identity_of(world);
    c->seen_count = 0;
    if (!world || !world->bodies.count)
        return true;
    const skim_body_table *table = &world->bodies;
    if (!crowd_reserve((void **)&c->seen, &c->seen_capacity, table->count, sizeof *c->seen))
        return false;
    for (uint32_t k = 0; k < table->count; ++k)
        c->seen[k] = (crowd_seen_body){ table->body[k].id, table->body[k].now };
    c->seen_count = table->count;
    return true;
}

void crowd_bodies_note_floor(skim_crowd *c, uint32_t id, bool reverted, bool on_floor, uint32_t floor_body)
{
    crowd_ride *ride = &c->ride[id];
    if (!reverted)
        ride->body = on_floor ? floor_body : SKIM_STATIC;
    if (ride->body == SKIM_STATIC)
        return;
    const skim_body *body = c->seen_world ? skim_body_find(c->seen_world, ride->body) : NULL;
    if (body)
        ride->seen = body->now;
    else
        ride->body = SKIM_STATIC;
}

skim_status crowd_move_clear_of_static(const skim_world *statics, const skim_crowd *c, uint32_t id, double x[3],
                                       const double d[3], bool *squeezed, int *moves)
{
    ++*moves;
    skim_move_def def = c->def.move;
    def.step_height = 0.0f;
    def.snap_distance = 0.0f;
    def.gravity = (skim_vec3){ 0, 0, 0 };
    def.threads = 1;
    const skim_vec3 from = { (float)x[0], (float)x[1], (float)x[2] };
    const skim_vec3 by = { (float)d[0], (float)d[1], (float)d[2] };
    /* Most pushes and carries meet nothing static: one sweep says so, and
       only the ones that meet something slide. */
    skim_hit hit;
    skim_status status = skim_sweep(statics, &c->shape[id], from, by, &def.query, &hit);
    if (status != SKIM_OK)
        return status;
    if (!hit.hit) {
        for (int k = 0; k < 3; ++k)
            x[k] += d[k];
        return SKIM_OK;
    }
    ++*moves; /* a slide: counts as bent */
    skim_move_result r;
    status = skim_move(statics, &c->shape[id], from, by, &def, &r);
    if (status != SKIM_OK)
        return status;
    /* The goal in double, as the contact is taken (see push). */
    const double goal[3] = { x[0] + d[0], x[1] + d[1], x[2] + d[2] };
    const double end[3] = { r.position.x, r.position.y, r.position.z };
    double short_sq = 0.0;
    for (int k = 0; k < 3; ++k) {
        short_sq += (goal[k] - end[k]) * (goal[k] - end[k]);
        x[k] = end[k];
    }
    const skim_vec3 r3 = c->shape[id].radii;
    const double largest = fmax(r3.x, fmax(r3.y, r3.z));
    const double tolerance = ((double)def.skin_width + (double)SQUEEZE_TOLERANCE) * largest;
    if (short_sq > tolerance * tolerance)
        *squeezed = true;
    return SKIM_OK;
}

/* The agent's shape as the body's mesh sees it at its current placement. */
static skim_ellipsoid shape_in_body(const skim_ellipsoid *shape, const skim_quat *body)
{
    const skim_quat a = { -body->x, -body->y, -body->z, body->w }, b = shape->rotation;
    skim_ellipsoid out = *shape;
    out.rotation = (skim_quat){ a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z };
    return out;
}

/* Body m's push on an agent that stood at x0 before the step and stands at
   x now: the agent's way relative to the body (old placement to new) swept
   against the body's own mesh; where that meets the surface while moving
   into it, the agent goes where the surface leaves it at the new placement,
   a skin off, by a move against static geometry. */
static skim_status push(const skim_world *statics, const skim_crowd *c, uint32_t id, const crowd_moved_body *m,
                        const double x0[3], double x[3], bool *squeezed, int *moves)
{
    const skim_body *body = m->body;
    double p0[3], p1[3];
    to_local(m->old_rotation, m->old_position, x0, p0);
    skim_body_point_to_local(body, x, p1);
    const skim_vec3 start = { (float)p0[0], (float)p0[1], (float)p0[2] };
    const skim_vec3 delta = { (float)(p1[0] - p0[0]), (float)(p1[1] - p0[1]), (float)(p1[2] - p0[2]) };
    if (delta.x == 0.0f && delta.y == 0.0f && delta.z == 0.0f)
        return SKIM_OK;
    const skim_ellipsoid local = shape_in_body(&c->shape[id], &body->now.rotation);
    skim_hit hit;
    skim_status status = skim_sweep(body->shape, &local, start, delta, NULL, &hit);
    if (status != SKIM_OK || !hit.hit)
        return status;
    /* Moving away from a surface it already touches: no push. */
    if (delta.x * hit.normal.x + delta.y * hit.normal.y + delta.z * hit.normal.z >= 0.0f)
        return SKIM_OK;
    const float largest = fmaxf(local.radii.x, fmaxf(local.radii.y, local.radii.z));
    if (hit.t == 0.0f) {
        /* It starts inside the body (an earlier squeeze left it there):
           swept again from a diameter further back along its way, the push
           takes it out of the body rather than keep the overlap. */
        const double way[3] = { p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2] };
        const double back = 2.0 * largest / sqrt(way[0] * way[0] + way[1] * way[1] + way[2] * way[2]);
        const double from[3] = { p0[0] - back * way[0], p0[1] - back * way[1], p0[2] - back * way[2] };
        const skim_vec3 again_start = { (float)from[0], (float)from[1], (float)from[2] };
        const skim_vec3 again_delta = { (float)(p1[0] - from[0]), (float)(p1[1] - from[1]), (float)(p1[2] - from[2]) };
        skim_hit again;
        status = skim_sweep(body->shape, &local, again_start, again_delta, NULL, &again);
        if (status != SKIM_OK)
            return status;
        if (again.hit && again.t > 0.0f) {
            hit = again;
            for (int k = 0; k < 3; ++k)
                p0[k] = from[k];
        }
    }
    const double skin = (double)c->def.move.skin_width * (double)largest;
    /* The contact is taken on the double way, not on the floats rounded for
       the sweep: GCC 12's straight-line vectoriser folds a float rounding
       widened straight back to double into nothing at -O2 and above (not at
       -O1), so widening those floats would give other bits per -O level. */
    const double t = hit.t;
    const double contact[3] = { p0[0] + t * (p1[0] - p0[0]) + skin * hit.normal.x,
                                p0[1] + t * (p1[1] - p0[1]) + skin * hit.normal.y,
                                p0[2] + t * (p1[2] - p0[2]) + skin * hit.normal.z };
    double goal[3];
    skim_body_point_to_world(body, contact, goal);
    const double d[3] = { goal[0] - x[0], goal[1] - x[1], goal[2] - x[2] };
    return crowd_move_clear_of_static(statics, c, id, x, d, squeezed, moves);
}

/* Most moved bodies an agent's search marks in a bitset on the stack. */
#define MARKED_BODIES 4096

/* How many agents standing on each other a body's carry goes up through. */
#define STACK_DEPTH 8

/* The ride that carries agent id: its own, or, when it stands on another
   agent (as the last step left them), the first ride down the stack, so a
   stack on a lift rises with it. Reads only the last step's state. */
static const crowd_ride *carrying_ride(const skim_crowd *c, uint32_t id)
{
    const crowd_ride *own = &c->ride[id];
    uint32_t at = id;
    for (int depth = 0; own->body == SKIM_STATIC && depth < STACK_DEPTH; ++depth) {
        if (!(c->state[at] & SKIM_AGENT_ON_AGENT))
            break;
        at = c->support[at];
        if (at >= c->capacity || !(c->state[at] & SKIM_AGENT_ACTIVE))
            break;
        if (c->ride[at].body != SKIM_STATIC)
            return &c->ride[at];
    }
    return own;
}

/* Where agent id starts the step, whether squeezed and whether its shift
   is bent. Only what changes is written: writing the place and zeros of
   the many agents no body reaches would dirty lines that the plan, in
   the crowd's grid order, then reads on the other threads. */
static void note_shift(skim_crowd *c, uint32_t id, const double x[3], bool squeezed, int moves)
{
    const skim_vec3 to = { (float)x[0], (float)x[1], (float)x[2] }, from = c->position[id];
    const uint8_t away = to.x != from.x || to.y != from.y || to.z != from.z;
    if (away)
        c->shifted[id] = to;
    if (c->clear.away[id] != away)
        c->clear.away[id] = away;
    const uint8_t squeeze = squeezed ? CROWD_SQUEEZED_BY_LEVEL : 0, bent = moves > 1;
    if (c->squeezed[id] != squeeze)
        c->squeezed[id] = squeeze;
    if (c->clear.bent[id] != bent)
        c->clear.bent[id] = bent;
}

/* One agent's carry and pushes: where it starts the step, into shifted[id], and squeezed[id]. */
static skim_status shift_agent(const skim_world *world, const skim_world *statics, skim_crowd *c, uint32_t id)
{
    const double x0[3] = { c->position[id].x, c->position[id].y, c->position[id].z };
    double x[3] = { x0[0], x0[1], x0[2] };
    bool squeezed = false;
    int moves = 0; /* straight moves, a slide counting as two */
    uint32_t carried_by = SKIM_STATIC;
    const crowd_ride *ride = carrying_ride(c, id);
    if (ride->body != SKIM_STATIC) {
        const skim_body *body = skim_body_find(world, ride->body);
        if (body && !same_transform(&ride->seen, &body->now)) {
            double m[3][3], p[3], local[3], goal[3];
            transform_matrix(&ride->seen, m, p);
            to_local(m, p, x0, local);
            skim_body_point_to_world(body, local, goal);
            const double d[3] = { goal[0] - x0[0], goal[1] - x0[1], goal[2] - x0[2] };
            skim_status status = crowd_move_clear_of_static(statics, c, id, x, d, &squeezed, &moves);
            if (status != SKIM_OK)
                return status;
            carried_by = ride->body;
        }
    }
    const skim_ellipsoid *shape = &c->shape[id];
    /* Comparisons rather than fmin and fmax, which GCC calls in libm
       unless it may ignore NaNs (none here: places are finite). */
    const skim_vec3 r = shape->radii;
    const float reach = 1.01f * (r.x > r.y ? (r.x > r.z ? r.x : r.z) : (r.y > r.z ? r.y : r.z));
    float lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        lo[a] = (float)(x0[a] < x[a] ? x0[a] : x[a]) - reach;
        hi[a] = (float)(x0[a] > x[a] ? x0[a] : x[a]) + reach;
    }
    /* The bodies whose swept boxes meet the agent's box, in increasing id
       (the index finds them); a push grows the box, so the ones after it
       are tested again against the grown box. Beyond MARKED_BODIES moved
       bodies every one is tested. */
    uint64_t meets[MARKED_BODIES / 64];
    const bool marked = c->moved_count <= MARKED_BODIES;
    if (marked && !skim_box_index_query(&c->moved_boxes, lo, hi, meets)) {
        note_shift(c, id, x, squeezed, moves);
        return SKIM_OK;
    }
    bool grown = false;
    for (uint32_t k = 0; k < c->moved_count; ++k) {
        if (marked && !grown) { /* straight to the next listed body */
            uint64_t word = meets[k / 64] >> (k % 64);
            while (!word && (k | 63u) + 1u < c->moved_count) {
                k = (k | 63u) + 1u;
                word = meets[k / 64];
            }
            if (!word)
                break;
            k += (uint32_t)__builtin_ctzll(word);
        }
        const crowd_moved_body *m = &c->moved_bodies[k];
        const bool listed = marked && (meets[k / 64] >> (k % 64) & 1u);
        if (!(listed || ((grown || !marked) && crowd_boxes_meet(m->lo, m->hi, lo, hi))) || m->body->id == carried_by)
            continue;
        skim_status status = push(statics, c, id, m, x0, x, &squeezed, &moves);
        if (status != SKIM_OK)
            return status;
        for (int a = 0; a < 3; ++a) { /* the box of where it has been pushed to */
            const float below = (float)x[a] - reach, above = (float)x[a] + reach;
            lo[a] = below < lo[a] ? below : lo[a];
            hi[a] = above > hi[a] ? above : hi[a];
        }
        grown = true;
    }
    note_shift(c, id, x, squeezed, moves);
    return SKIM_OK;
}

skim_status crowd_bodies_begin(const skim_world *world, skim_crowd *c, uint32_t n, crowd_bodies_work *w)
{
    const bool collide = c->def.agent_collisions;
    if (!crowd_reserve_filled((void **)&c->clear.bent, &c->clear.bent_capacity, c->capacity, sizeof *c->clear.bent, 0) ||
        !crowd_reserve_filled((void **)&c->clear.away, &c->clear.away_capacity, c->capacity, sizeof *c->clear.away, 0) ||
        (collide && !crowd_clear_reserve(c, n)))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the bodies");
    memset(w, 0, sizeof *w);
    crowd_static_view(world, &w->statics);
    w->world = world;
    w->n = n;
    atomic_init(&w->failed, SKIM_OK);
    w->listed.room = true;
    atomic_init(&w->run.failed, SKIM_OK);
    w->run.room = true;
    c->clear.extra_count = 0;
    c->clear.changed_count = 0;
    return SKIM_OK;
}

bool crowd_bodies_phases(skim_crowd *c, team_cursor *cursor, crowd_bodies_work *w)
{
    /* Threads take chunks of agents rather than meet at a barrier, so one
       the system has not scheduled holds nobody up. The worst failure (the
       lowest status) does not depend on which thread met it. A chunk is
       a run of slots, not of the crowd's grid order, which the slots
       follow only since their last reordering: the records every agent's
       shift reads then come in memory order, and each agent's shift reads
       only the bodies and that agent, so the order changes nothing else. */
    const bool collide = c->def.agent_collisions;
    const uint32_t n = c->capacity, chunks = team_chunks(n, CROWD_BODIES_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t from, to;
        crowd_chunk_range(k, CROWD_BODIES_CHUNK, n, &from, &to);
        for (uint32_t id = from; id < to; ++id) {
            if (!(c->state[id] & SKIM_AGENT_ACTIVE))
                continue;
            crowd_note_failure(&w->failed, shift_agent(w->world, &w->statics, c, id));
        }
        if (collide) /* the clearing's marks, while the chunk's agents are at hand */
            crowd_clear_mark_chunk(c, n, k);
    }
    team_wait(phase, chunks);
    /* Every thread reads the same failure once every chunk is done. */
    if (atomic_load(&w->failed) != SKIM_OK)
        return false;
    if (!collide)
        return true;
    crowd_clear_listed *listed = &w->listed;
    crowd_clear_list_and_grid(c, n, cursor, listed);
    if (!listed->moved || !listed->room)
        return listed->room;
    return crowd_bodies_clear_phases(&w->statics, c, cursor, listed, &w->run);
}

skim_status crowd_bodies_end(const crowd_bodies_work *w)
{
    const skim_status failed = (skim_status)atomic_load(&w->failed);
    if (failed != SKIM_OK)
        return skim_fail(failed, "skim_crowd_step: carrying or pushing an agent by a moving body failed (%s)",
                         skim_status_string(failed));
    const skim_status chained = (skim_status)atomic_load(&w->run.failed);
    if (chained != SKIM_OK)
        return skim_fail(chained, "skim_crowd_step: a push handed on along a row of agents failed (%s)",
                         skim_status_string(chained));
    if (!w->listed.room || !w->run.room)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the bodies");
    return SKIM_OK;
}

void crowd_static_view(const skim_world *world, skim_world *out)
{
    *out = *world;
    memset(&out->bodies, 0, sizeof out->bodies);
}
