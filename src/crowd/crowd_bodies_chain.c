/* Pushes handed on along rows of agents (the bodies phase, after the
   bodies' carries and pushes of crowd_bodies.c, before the clearing's
   rounds of crowd_bodies_clear.c). An agent the phase moved into another
   agent pushes that one out of its way: across up, straight away from it,
   to touching, by a move against the level's own triangles. The agent
   pushed so pushes the ones it now meets in the next round, and so on, so
   a door shoves a queue and a platform a crowd, as a kinematic body does.
   An agent is pushed along at most once a step, in the first round that
   reaches it, by every agent of the round before that it meets (round 0:
   the agents the bodies moved, which push each other apart half each);
   each round reads only where the rounds before left the agents and
   writes only the agents it pushes, so the result is the same for any
   thread count. What a round
   leaves too close (a row against the level, a chain longer than the
   rounds, agents that cannot be pushed, two agents pushed into each other
   in one round) is the clearing's to give up, which squeezes the agents
   pressed. docs/bodies.md says more. */
#include "crowd/crowd_bodies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The longest row a push travels along in one step. */
#define CHAIN_ROUNDS CROWD_CHAIN_ROUNDS
/* Passes over one agent's pushers: each pass moves it out of each in
   turn (a projection per pusher), which settles an agent pushed by two
   agents of a lattice at 60 degrees in a few passes. */
#define CHAIN_PASSES 8
/* Below this many agents in a round (pushing, pushed) one thread does
   the work: waking the others would cost more than it saves. */
#define PARALLEL_FRONTIER 256
#define PARALLEL_PUSHED 64

static void stored(skim_vec3 v, double p[3])
{
    p[0] = v.x;
    p[1] = v.y;
    p[2] = v.z;
}

/* Whether agent id may be pushed in round `round`: one a body moved only
   by the others a body moved (the body holds it after). */
static bool may_push(const skim_crowd *c, uint32_t id, uint8_t round)
{
    return c->body[id].inverse_mass > 0.0f && (round == 1 || c->clear.depth[id] != 0);
}

/* Whether the cylinders at pa and pb overlap at all: a test without a
   root that rules out nearly every pair the search meets. */
static bool cylinders_meet(const skim_crowd *c, uint32_t a, uint32_t b, const double pa[3], const double pb[3])
{
    const double d[3] = { pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2] };
    const double z = d[0] * c->up[0] + d[1] * c->up[1] + d[2] * c->up[2];
    if (fabs(z) >= (double)c->body[a].half_height + c->body[b].half_height)
        return false;
    const double touching = (double)c->body[a].radius + c->body[b].radius;
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - z * z < touching * touching;
}

/* The pairs (pushed, pusher) of frontier agent a in round `round` into
   out, the first `limit` of them, when out is not NULL; returns how many. Its partners are the agents it
   now stands closer to than the pair allows: each one it may push, or,
   when it may not, pushes a. The grid holds every agent where it stood
   and along the way a body moved it: in the first round a search a cell
   out finds every partner; later ones reach two cells out, which finds an
   agent an earlier round pushed by up to a cell (one they miss is the
   clearing's). */
static uint32_t pairs_of(const skim_crowd *c, uint32_t a, double cell, uint8_t round, uint32_t *out, uint32_t limit)
{
    const crowd_clear *s = &c->clear;
    double pa[3];
    stored(crowd_shifted(c, a), pa);
    int32_t at[2];
    crowd_clear_cell_of(c, pa, cell, at);
    const int32_t reach = round == 1 ? 1 : 2;
    uint32_t count = 0;
    for (int32_t x = at[0] - reach; x <= at[0] + reach; ++x)
        for (int32_t y = at[1] - reach; y <= at[1] + reach; ++y) {
            const uint32_t b = crowd_hash_cell(x, y) & s->bucket_mask;
            for (uint32_t e = s->bucket_start[b]; e < s->bucket_start[b + 1]; ++e) {
                const uint32_t other = s->items[e];
                double pb[3];
                stored(crowd_shifted(c, other), pb);
                if (other == a || !cylinders_meet(c, a, other, pa, pb) || !crowd_layers_meet(c, a, other) ||
                    crowd_clear_gap(c, a, other, pa, pb) >= crowd_clear_allowed(c, a, other))
                    continue;
                const bool pushed = may_push(c, other, round);
                if (!pushed && !may_push(c, a, round))
                    continue;
                if (out && count < limit) {
                    out[2 * count] = pushed ? other : a;
                    out[2 * count + 1] = pushed ? a : other;
                }
                ++count;
            }
        }
    return count;
}

/* Frontier agents a chunk of a pair search covers. */
#define PAIR_CHUNK 32
/* Pushed agents a chunk of a round's pushes covers. */
#define PUSH_CHUNK 8
/* Pairs a chunk of a pair search gathers before it hands them on. */
#define LOCAL_PAIRS 256

/* Pairs the shared buffer holds with room left for where each pushed
   agent's start (sort_pairs): three words a pair and one more. */
static size_t pair_room(const crowd_clear *s)
{
    return s->pair_capacity ? (s->pair_capacity - 1) / 3 : 0;
}

/* count pairs from `from` into the shared buffer, at a place taken from
   *fill; past its room only counted, for the serial phase after to make
   the room and search again. */
static void hand_on(crowd_clear *s, atomic_size_t *fill, const uint32_t *from, uint32_t count)
{
    if (!count)
        return;
    const size_t at = atomic_fetch_add_explicit(fill, count, memory_order_relaxed);
    if (at + count <= pair_room(s))
        memcpy(s->pairs + 2 * at, from, 2 * (size_t)count * sizeof *from);
}

/* Chunk k of the frontier's pairs of round `round`, in one pass: into the
   shared buffer in whatever order the threads come, which the round's
   sort makes the same for any (sort_pairs). */
static void pairs_of_chunk(skim_crowd *c, const uint32_t *frontier, uint32_t count, uint32_t k, double cell,
                           uint8_t round, atomic_size_t *fill)
{
    crowd_clear *s = &c->clear;
    uint32_t first, last, local[2 * LOCAL_PAIRS], held = 0;
    crowd_chunk_range(k, PAIR_CHUNK, count, &first, &last);
    for (uint32_t f = first; f < last; ++f) {
        const uint32_t got = pairs_of(c, frontier[f], cell, round, local + 2 * held, LOCAL_PAIRS - held);
        if (held + got <= LOCAL_PAIRS) {
            held += got;
            continue;
        }
        /* Too many for what is left: the ones held go on, and this
           agent's again, straight into the shared buffer when they fit. */
        hand_on(s, fill, local, held);
        held = 0;
        if (got <= LOCAL_PAIRS) {
            held = pairs_of(c, frontier[f], cell, round, local, LOCAL_PAIRS);
            continue;
        }
        const size_t at = atomic_fetch_add_explicit(fill, got, memory_order_relaxed);
        if (at + got <= pair_room(s))
            pairs_of(c, frontier[f], cell, round, s->pairs + 2 * at, got);
    }
    hand_on(s, fill, local, held);
}

/* The pairs of frontier agents [0, count) by the calling thread alone,
   counted, then written with room for them; false if out of memory. */
static bool serial_pairs(skim_crowd *c, const uint32_t *frontier, uint32_t count, double cell, uint8_t round,
                         size_t *pairs)
{
    crowd_clear *s = &c->clear;
    size_t total = 0;
    for (uint32_t f = 0; f < count; ++f)
        total += pairs_of(c, frontier[f], cell, round, NULL, 0);
    *pairs = total;
    if (!total)
        return true;
    if (!crowd_reserve((void **)&s->pairs, &s->pair_capacity, 3 * total + 1, sizeof *s->pairs))
        return false;
    size_t at = 0;
    for (uint32_t f = 0; f < count; ++f)
        at += pairs_of(c, frontier[f], cell, round, s->pairs + 2 * at, UINT32_MAX);
    return true;
}

/* The frontier's pairs of round `round` by every thread, in one pass. */
static void pair_phase(skim_crowd *c, team_cursor *cursor, const uint32_t *frontier, uint32_t count, double cell,
                       uint8_t round, crowd_chain_run *run)
{
    atomic_size_t *fill = &run->round[round].fill;
    CHUNK_PHASE(cursor, team_chunks(count, PAIR_CHUNK), pairs_of_chunk(c, frontier, count, k, cell, round, fill));
}


static int by_pushed_then_pusher(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Pushes agent pair[0] out of the way of its `count` pushers (pair[1],
   pair[3], ..., in increasing id) and moves it there against the static
   triangles: where it ends into *to (shifted changes only after the whole
   round), whether the level stopped it into squeezed. Two agents the
   last round moved push each other, and each takes half. */
static skim_status push_on(const skim_world *statics, skim_crowd *c, const uint32_t *pair, uint32_t count,
                           uint8_t round, skim_vec3 *to)
{
    const uint32_t id = pair[0];
    const crowd_clear *s = &c->clear;
    double start[3], v[3] = { 0, 0, 0 };
    stored(crowd_shifted(c, id), start);
    *to = crowd_shifted(c, id);
    for (int pass = 0; pass < CHAIN_PASSES; ++pass) {
        bool moved = false;
        for (uint32_t k = 0; k < count; ++k) {
            const uint32_t a = pair[2 * k + 1];
            double pa[3], d[3];
            stored(crowd_shifted(c, a), pa);
            for (int i = 0; i < 3; ++i)
                d[i] = start[i] + v[i] - pa[i];
            const double z = d[0] * c->up[0] + d[1] * c->up[1] + d[2] * c->up[2];
            double h[3] = { d[0] - z * c->up[0], d[1] - z * c->up[1], d[2] - z * c->up[2] };
            const double apart = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
            const double touching = (double)c->body[a].radius + c->body[id].radius;
            const double across = apart - touching;
            const double along = fabs(z) - ((double)c->body[a].half_height + c->body[id].half_height);
            /* They meet as much along up as across: one stands on the
               other, which a push across would not part by a step's way. */
            if (along >= across)
                continue;
            /* To the gap the crowd keeps between agents (its solver's
               target), or, for a pair placed deeper, no deeper than it
               stood. */
            const double allowed = crowd_clear_allowed(c, a, id);
            const double target = allowed < -CROWD_CLEAR_TOLERANCE * touching
                                      ? allowed + CROWD_CLEAR_TOLERANCE * touching
                                      : (double)c->def.agent_skin * touching;
            if (across >= target)
                continue;
            const double share = s->depth[id] == round - 1 && may_push(c, a, round) ? 0.5 : 1.0;
            if (!(apart > 1e-9 * touching)) { /* centres in line: along the pusher's own shift across up */
                double p0[3];
                stored(c->position[a], p0);
                for (int i = 0; i < 3; ++i)
                    d[i] = pa[i] - p0[i];
                const double w = d[0] * c->up[0] + d[1] * c->up[1] + d[2] * c->up[2];
                for (int i = 0; i < 3; ++i)
                    h[i] = d[i] - w * c->up[i];
                const double length = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
                if (!(length > 0.0))
                    continue;
                for (int i = 0; i < 3; ++i)
                    v[i] += share * (target - across) * h[i] / length;
            } else {
                for (int i = 0; i < 3; ++i)
                    v[i] += share * (target - across) * h[i] / apart;
            }
            moved = true;
        }
        if (!moved)
            break;
    }
    if (v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0)
        return SKIM_OK;
    double x[3] = { start[0], start[1], start[2] };
    bool squeezed = false;
    int moves = 0;
    skim_status status = crowd_move_clear_of_static(statics, c, id, x, v, &squeezed, &moves);
    if (status != SKIM_OK)
        return status;
    /* Pushes one after the other, or a slide, are not a straight way: the
       clearing keeps such a shift whole or not at all. */
    const skim_vec3 p = c->position[id];
    const bool moved_before = p.x != start[0] || p.y != start[1] || p.z != start[2];
    *to = (skim_vec3){ (float)x[0], (float)x[1], (float)x[2] };
    if (squeezed)
        c->squeezed[id] = CROWD_SQUEEZED_BY_LEVEL;
    c->clear.bent[id] = c->clear.bent[id] || moves > 1 || moved_before;
    return SKIM_OK;
}

/* The round's pairs in increasing ids, once each (two cells can share a
   bucket), and where each pushed agent's start (run->first); returns how
   many agents are pushed. */
static uint32_t sort_pairs(skim_crowd *c, size_t pairs, crowd_chain_run *run)
{
    crowd_clear *s = &c->clear;
    /* Sorted by the agents' ids, which a reordering of the slots keeps. */
    for (size_t p = 0; p < 2 * pairs; ++p)
        s->pairs[p] = c->id_of[s->pairs[p]];
    qsort(s->pairs, pairs, 2 * sizeof *s->pairs, by_pushed_then_pusher);
    size_t kept = 1;
    for (size_t p = 1; p < pairs; ++p)
        if (s->pairs[2 * p] != s->pairs[2 * kept - 2] || s->pairs[2 * p + 1] != s->pairs[2 * kept - 1]) {
            s->pairs[2 * kept] = s->pairs[2 * p];
            s->pairs[2 * kept + 1] = s->pairs[2 * p + 1];
            ++kept;
        }
    for (size_t p = 0; p < 2 * kept; ++p)
        s->pairs[p] = c->slot_of[s->pairs[p]];
    uint32_t *first = s->pairs + 2 * kept, unique = 0;
    for (size_t p = 0; p < kept; ++p)
        if (p == 0 || s->pairs[2 * p] != s->pairs[2 * p - 2])
            first[unique++] = (uint32_t)p;
    first[unique] = (uint32_t)kept;
    run->first = first;
    return unique;
}

/* The pushes of the round's pushed agents [from, to), each from where
   the rounds before left the agents, into pushed_to. */
static void push_range(const skim_world *statics, skim_crowd *c, crowd_chain_run *run, uint32_t from, uint32_t to,
                       uint8_t round)
{
    const uint32_t *first = run->first;
    for (uint32_t u = from; u < to; ++u) {
        const skim_status status = push_on(statics, c, c->clear.pairs + 2 * (size_t)first[u], first[u + 1] - first[u],
                                           round, &c->clear.pushed_to[u]);
        crowd_note_failure(&run->failed, status);
    }
}

static void push_chunk(const skim_world *statics, skim_crowd *c, crowd_chain_run *run, uint32_t k, uint8_t round)
{
    uint32_t from, to;
    crowd_chunk_range(k, PUSH_CHUNK, run->round[round].unique, &from, &to);
    push_range(statics, c, run, from, to, round);
}

/* After the round's pushes, unless one failed: the agents that moved go
   where they were pushed and become the next round's frontier. */
static void apply_round(skim_crowd *c, crowd_chain_run *run, uint8_t round)
{
    crowd_clear *s = &c->clear;
    uint32_t moved = 0;
    for (uint32_t u = 0; u < run->round[round].unique && atomic_load(&run->failed) == SKIM_OK; ++u) {
        const uint32_t id = s->pairs[2 * (size_t)run->first[u]];
        const skim_vec3 to = s->pushed_to[u], was = crowd_shifted(c, id);
        if (to.x == was.x && to.y == was.y && to.z == was.z)
            continue;
        c->shifted[id] = to;
        s->away[id] = 1;
        if (s->depth[id] == 0 || s->depth[id] == CROWD_NOT_PUSHED) /* its first push this step */
            s->changed[s->changed_count++] = id;
        s->depth[id] = round;
        s->frontier[moved++] = id;
    }
    run->round[round + 1].count = moved;
    run->pushed += moved;
}

/* A sorted round's pushes and their apply, by the calling thread alone. */
static void serial_round_sorted(const skim_world *statics, skim_crowd *c, crowd_chain_run *run, uint8_t round)
{
    push_range(statics, c, run, 0, run->round[round].unique, round);
    apply_round(c, run, round);
}

/* The frontier of round `round`: the agents the bodies moved, then the
   ones the round before moved. */
static const uint32_t *frontier_of(const skim_crowd *c, uint8_t round)
{
    return round == 1 ? c->clear.moved : c->clear.frontier;
}

/* Rounds from `round` on, by the calling thread alone: the same pushes;
   false if out of memory. */
static bool serial_rounds(const skim_world *statics, skim_crowd *c, const crowd_clear_listed *listed,
                          crowd_chain_run *run, uint8_t round)
{
    for (uint8_t r = round; r <= CHAIN_ROUNDS; ++r) {
        const uint32_t count = r == 1 ? listed->moved : run->round[r].count;
        size_t pairs;
        if (!count || atomic_load(&run->failed) != SKIM_OK)
            break;
        if (!serial_pairs(c, frontier_of(c, r), count, listed->cell, r, &pairs))
            return false;
        if (!pairs)
            break;
        run->round[r].unique = sort_pairs(c, pairs, run);
        serial_round_sorted(statics, c, run, r);
    }
    return true;
}

/* The serial step of a round: its pairs (gathered by every thread, unless
   `searched` is false; searched again here, on this thread, when they
   outgrew the room), sorted, and, when they are few, pushed and applied. */
static void settle_round(const skim_world *statics, skim_crowd *c, const crowd_clear_listed *listed,
                         crowd_chain_run *run, uint8_t round, uint32_t count, bool searched)
{
    crowd_chain_round *at = &run->round[round];
    const size_t gathered = atomic_load_explicit(&at->fill, memory_order_relaxed);
    at->room = true;
    at->pairs = gathered;
    if (!searched || gathered > pair_room(&c->clear))
        at->room = serial_pairs(c, frontier_of(c, round), count, listed->cell, round, &at->pairs);
    if (!at->room || !at->pairs)
        return;
    at->unique = sort_pairs(c, at->pairs, run);
    at->split = at->unique >= PARALLEL_PUSHED;
    if (!at->split)
        serial_round_sorted(statics, c, run, round);
}

/* Phases a parallel round takes at most: the pair search, the serial
   step, the pushes and their apply. */
#define ROUND_PHASES 4

bool crowd_bodies_chain_phases(const skim_world *statics, skim_crowd *c, team_cursor *cursor,
                               const crowd_clear_listed *listed, uint32_t spare, crowd_chain_run *run)
{
    /* Every thread decides its way from values made for this round alone
       (run->round[round]), published before its last wait: a thread that
       runs late reads what the others read, not what a later round
       wrote. */
    for (uint8_t round = 1; round <= CHAIN_ROUNDS; ++round) {
        crowd_chain_round *at = &run->round[round];
        const uint32_t count = round == 1 ? listed->moved : at->count;
        if (!count || atomic_load(&run->failed) != SKIM_OK)
            return true;
        if (cursor->at + ROUND_PHASES + spare > CROWD_BODIES_PHASES) {
            /* Out of phases: the rest of the rounds on one thread. */
            SERIAL_PHASE(cursor, run->tail_room = serial_rounds(statics, c, listed, run, round));
            return run->tail_room;
        }
        /* The first round searches around every agent the bodies moved;
           later ones around few, mostly, which one thread does alone. */
        const bool searched = round == 1 || count >= PARALLEL_FRONTIER;
        if (searched)
            pair_phase(c, cursor, frontier_of(c, round), count, listed->cell, round, run);
        SERIAL_PHASE(cursor, settle_round(statics, c, listed, run, round, count, searched));
        if (!at->room)
            return false;
        if (!at->pairs)
            return true;
        if (at->split) {
            CHUNK_PHASE(cursor, team_chunks(at->unique, PUSH_CHUNK), push_chunk(statics, c, run, k, round));
            SERIAL_PHASE(cursor, apply_round(c, run, round));
        }
    }
    return true;
}
