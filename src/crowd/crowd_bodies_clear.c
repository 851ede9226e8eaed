/* After the bodies' carries and pushes (crowd_bodies.c) and the pushes
   they hand on along rows of agents (crowd_bodies_chain.c), before the
   plan: no agent the bodies phase moved may end it closer to another agent
   than the pair allows (touching less a ten-thousandth of the touching
   distance, or, for a pair already deeper, as close as it stood: never
   deeper from step to step). A shift that would gives up part of itself,
   or all of it, as the check after the world move does (crowd_check.c),
   and the agent is marked squeezed: a row the push could not move (against
   the level, or agents that cannot be pushed) stays where it stood, and
   the agent the body pressed into it overlaps the body rather than the
   row. The phase's shifts are the only changes of place here, so starting
   every shift over from where the agents stood (which was allowed) always
   ends the rounds. docs/bodies.md says more. */
#include "crowd/crowd_bodies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rounds halve a shift that is not allowed; one cut below this
   fraction is cut to nothing. */
#define SMALLEST_FRACTION (1.0f / 64.0f)
/* Below these counts of agents (cells) or moved agents (rounds) one thread
   does the work: waking the others would cost more than it saves. */
#define PARALLEL_AGENTS 2048
#define PARALLEL_MOVED 256
/* Moved agents a chunk of a round covers. */
#define ROUND_CHUNK 32
/* A slot's mark for an agent the phase moved, before it is numbered. */
#define UNNUMBERED (UINT32_MAX - 1)

void crowd_clear_cell_of(const skim_crowd *c, const double p[3], double cell, int32_t out[2])
{
    const double a = p[0] * c->axis1[0] + p[1] * c->axis1[1] + p[2] * c->axis1[2];
    const double b = p[0] * c->axis2[0] + p[1] * c->axis2[1] + p[2] * c->axis2[2];
    /* Held within int32 for any radius and place (far cells share buckets). */
    /* Compared, not fmin and fmax (libm calls here); a NaN goes low. */
    const double ua = a / cell, ub = b / cell;
    const double ca = ua > -1e9 ? (ua < 1e9 ? ua : 1e9) : -1e9, cb = ub > -1e9 ? (ub < 1e9 ? ub : 1e9) : -1e9;
    out[0] = (int32_t)ca - (ca < (double)(int32_t)ca); /* floor, without a call */
    out[1] = (int32_t)cb - (cb < (double)(int32_t)cb);
}

/* Where agent id stands if it keeps the fraction f of its shift. */
static void place(const skim_crowd *c, uint32_t id, float f, double p[3])
{
    const skim_vec3 a = c->position[id], b = c->shifted[id];
    if (f == 1.0f) {
        p[0] = b.x, p[1] = b.y, p[2] = b.z;
    } else if (f == 0.0f) {
        p[0] = a.x, p[1] = a.y, p[2] = a.z;
    } else {
        p[0] = a.x + f * ((double)b.x - a.x);
        p[1] = a.y + f * ((double)b.y - a.y);
        p[2] = a.z + f * ((double)b.z - a.z);
    }
}

/* The cells (lo to hi, inclusive) that the agent's way from where it
   stood to where the bodies left it covers, grown by `grow` cells. */
static void cells_of_way(const skim_crowd *c, uint32_t id, double cell, int32_t grow, int32_t lo[2], int32_t hi[2])
{
    double a[3], b[3];
    int32_t ca[2], cb[2];
    place(c, id, 0.0f, a);
    crowd_clear_cell_of(c, a, cell, ca);
    if (c->clear.slot[id] == UINT32_MAX) { /* not moved: one point */
        cb[0] = ca[0];
        cb[1] = ca[1];
    } else {
        place(c, id, 1.0f, b);
        crowd_clear_cell_of(c, b, cell, cb);
    }
    for (int k = 0; k < 2; ++k) {
        lo[k] = (ca[k] < cb[k] ? ca[k] : cb[k]) - grow;
        hi[k] = (ca[k] > cb[k] ? ca[k] : cb[k]) + grow;
    }
}

double crowd_clear_gap(const skim_crowd *c, uint32_t a, uint32_t b, const double pa[3], const double pb[3])
{
    const double d[3] = { pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2] };
    const double z = d[0] * c->up[0] + d[1] * c->up[1] + d[2] * c->up[2];
    const double h[3] = { d[0] - z * c->up[0], d[1] - z * c->up[1], d[2] - z * c->up[2] };
    const double across = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) -
                          ((double)c->body[a].radius + c->body[b].radius);
    const double along = fabs(z) - ((double)c->body[a].half_height + c->body[b].half_height);
    return across > along ? across : along;
}

double crowd_clear_allowed(const skim_crowd *c, uint32_t a, uint32_t b)
{
    double pa[3], pb[3];
    place(c, a, 0.0f, pa);
    place(c, b, 0.0f, pb);
    const double touching = (double)c->body[a].radius + c->body[b].radius;
    return fmin(crowd_clear_gap(c, a, b, pa, pb), -CROWD_CLEAR_TOLERANCE * touching);
}

/* How much rounding the two places to float (as they are stored) can
   change their gap: half a unit in the last place of each coordinate. The
   places at the start and end of a shift are floats already; a pair with
   one part way along is tested this much short, so the stored floats hold
   the bound. */
static double rounding(const double p[3], const double q[3])
{
    const double size = fabs(p[0]) + fabs(p[1]) + fabs(p[2]) + fabs(q[0]) + fabs(q[1]) + fabs(q[2]);
    return 0x1p-23 * size;
}

static bool collides(const skim_crowd *c, uint32_t id)
{
    return !(c->body[id].flags & SKIM_AGENT_GHOST);
}

/* Agents a chunk of the list and grid phases covers. */
#define LIST_CHUNK 256

/* Chunk k of the agents: marks in slot the colliding agents the phase
   moved, its widest radius and longest shift (summed over the axes) into
   its slot. */
static void mark_moved(skim_crowd *c, uint32_t n, uint32_t k, crowd_clear_chunk *out)
{
    crowd_clear *s = &c->clear;
    uint32_t first, last;
    crowd_chunk_range(k, LIST_CHUNK, n, &first, &last);
    float widest = 0.0f;
    double farthest = 0.0;
    for (uint32_t i = first; i < last; ++i) {
        const uint32_t id = c->active[i];
        const skim_vec3 a = c->position[id], b = c->shifted[id];
        s->slot[id] = UINT32_MAX;
        if (!collides(c, id))
            continue;
        const float r = c->body[id].radius;
        widest = r > widest ? r : widest;
        if (a.x != b.x || a.y != b.y || a.z != b.z) {
            s->slot[id] = UNNUMBERED;
            const double way = fabs((double)b.x - a.x) + fabs((double)b.y - a.y) + fabs((double)b.z - a.z);
            farthest = way > farthest ? way : farthest;
        }
    }
    out->widest = widest;
    out->longest = farthest;
}

/* The cells of the ways of chunk k's colliding agents into range, how
   many into its slot. */
static void range_chunk(skim_crowd *c, uint32_t n, uint32_t k, double cell, crowd_clear_chunk *out)
{
    crowd_clear *s = &c->clear;
    uint32_t first, last;
    crowd_chunk_range(k, LIST_CHUNK, n, &first, &last);
    size_t items = 0;
    for (uint32_t i = first; i < last; ++i) {
        const uint32_t id = c->active[i];
        int32_t *r = s->range + 4 * (size_t)i;
        if (!collides(c, id)) {
            r[0] = 1, r[1] = 1, r[2] = 0, r[3] = 0; /* no cells: lo above hi on both axes */
            continue;
        }
        cells_of_way(c, id, cell, 0, r, r + 2);
        items += (size_t)(r[2] - r[0] + 1) * (size_t)(r[3] - r[1] + 1);
    }
    out->items = items;
}

/* Every colliding agent counted into its buckets (fill false) or written
   to its places (fill true), in active order. On one thread: done by
   every thread at once with atomic counts, the buckets' cache lines went
   back and forth between the cores and the two threads took longer than
   one. */
static void bucket_agents(skim_crowd *c, uint32_t n, bool fill)
{
    crowd_clear *s = &c->clear;
    uint32_t *start = s->bucket_start, *slots = s->items;
    const uint32_t mask = s->bucket_mask;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t id = c->active[i];
        const int32_t *lo = s->range + 4 * (size_t)i, *hi = lo + 2;
        for (int32_t x = lo[0]; x <= hi[0]; ++x)
            for (int32_t y = lo[1]; y <= hi[1]; ++y) {
                const uint32_t b = crowd_hash_cell(x, y) & mask;
                if (!fill)
                    ++start[b + 1];
                else
                    slots[start[b]++] = id;
            }
    }
}

/* Sums the chunks' maxima and numbers the marked agents in active order
   (slot, moved, their fractions at 1); the grid's cell width: as wide as
   the widest pair's touching distance, so a pair that can meet is in
   neighbouring cells, and as the longest shift, so a way covers at most
   two cells a side. */
static void number_moved(skim_crowd *c, uint32_t n, uint32_t chunks, uint32_t *moved, double *cell)
{
    crowd_clear *s = &c->clear;
    float widest = 0.0f;
    double farthest = 0.0;
    for (uint32_t k = 0; k < chunks; ++k) {
        widest = s->chunk[k].widest > widest ? s->chunk[k].widest : widest;
        farthest = s->chunk[k].longest > farthest ? s->chunk[k].longest : farthest;
    }
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t id = c->active[i];
        if (s->slot[id] == UNNUMBERED) {
            s->slot[id] = count;
            s->moved[count] = id;
            s->fraction[count++] = 1.0f;
        }
    }
    *moved = count;
    *cell = fmax(2.0 * (double)widest, farthest);
}

/* Room for the buckets of the chunks' cells, cleared; false if out of memory. */
static bool size_buckets(skim_crowd *c, uint32_t chunks)
{
    crowd_clear *s = &c->clear;
    size_t items = 0;
    for (uint32_t k = 0; k < chunks; ++k)
        items += s->chunk[k].items;
    size_t buckets = 64;
    while (buckets < 2 * items)
        buckets *= 2;
    if (!crowd_reserve((void **)&s->bucket_start, &s->bucket_capacity, buckets + 1, sizeof *s->bucket_start) ||
        !crowd_reserve((void **)&s->items, &s->item_capacity, items, sizeof *s->items))
        return false;
    s->bucket_mask = (uint32_t)(buckets - 1);
    memset(s->bucket_start, 0, (buckets + 1) * sizeof *s->bucket_start);
    return true;
}

/* Counts summed into starts; after the fill, each start moved to its
   bucket's end: back by one. */
static void sum_buckets(crowd_clear *s, bool after_fill)
{
    const size_t buckets = (size_t)s->bucket_mask + 1;
    if (!after_fill) {
        for (size_t b = 1; b <= buckets; ++b)
            s->bucket_start[b] += s->bucket_start[b - 1];
        return;
    }
    for (size_t b = buckets; b > 0; --b)
        s->bucket_start[b] = s->bucket_start[b - 1];
    s->bucket_start[0] = 0;
}

/* Lists what the phase moved (slot, moved) and builds the hashed grid of
   every colliding agent's way, in one region of team phases
   (src/base/team.h): threads take chunks rather than meet at barriers, so
   one the system has not scheduled holds nobody up. The buckets are
   filled on one thread (bucket_agents). False if out of memory. */
static bool list_and_grid(skim_crowd *c, uint32_t n, int threads, uint32_t *moved, double *cell)
{
    crowd_clear *s = &c->clear;
    const uint32_t chunks = team_chunks(n, LIST_CHUNK);
    if (!crowd_reserve((void **)&s->moved, &s->moved_capacity, n, sizeof *s->moved) ||
        !crowd_reserve((void **)&s->fraction, &s->fraction_capacity, 2 * (size_t)n, sizeof *s->fraction) ||
        !crowd_reserve((void **)&s->range, &s->range_capacity, 4 * (size_t)n, sizeof *s->range) ||
        !crowd_reserve((void **)&s->chunk, &s->chunk_capacity, chunks, sizeof *s->chunk))
        return false;
    const bool passive = c->def.move.wait == SKIM_WAIT_PASSIVE;
    uint32_t count = 0, used = 0;
    double width = 0.0;
    bool room = true;
#pragma omp parallel num_threads(threads) if (n >= PARALLEL_AGENTS)
    {
        team_enter_region(passive);
        team_cursor cursor = { c->phases, 0 };
        CHUNK_PHASE(&cursor, chunks, mark_moved(c, n, k, &s->chunk[k]));
        SERIAL_PHASE(&cursor, number_moved(c, n, chunks, &count, &width));
        if (count) {
            CHUNK_PHASE(&cursor, chunks, range_chunk(c, n, k, width, &s->chunk[k]));
            SERIAL_PHASE(&cursor, room = size_buckets(c, chunks));
            if (room) {
                SERIAL_PHASE(&cursor, {
                    bucket_agents(c, n, false);
                    sum_buckets(s, false);
                    bucket_agents(c, n, true);
                    sum_buckets(s, true);
                });
            }
        }
#ifdef _OPENMP
        if (omp_get_thread_num() == 0)
#endif
            used = cursor.at;
        team_leave_region(&c->shared.left);
    }
    (void)threads;
    crowd_clear_region(c, used);
    *moved = count;
    *cell = width;
    return room;
}

/* Whether moved agent id, keeping fraction[slot of id], stands closer to
   any agent than the pair allows, everyone at this round's fractions. */
static bool too_close(const skim_crowd *c, uint32_t id, double cell, const float *fraction)
{
    const crowd_clear *s = &c->clear;
    double p[3], p0[3];
    const float own = fraction[s->slot[id]];
    place(c, id, own, p);
    place(c, id, 0.0f, p0);
    int32_t lo[2], hi[2];
    cells_of_way(c, id, cell, 1, lo, hi);
    for (int32_t x = lo[0]; x <= hi[0]; ++x)
        for (int32_t y = lo[1]; y <= hi[1]; ++y) {
            const uint32_t b = crowd_hash_cell(x, y) & s->bucket_mask;
            for (uint32_t e = s->bucket_start[b]; e < s->bucket_start[b + 1]; ++e) {
                const uint32_t other = s->items[e];
                if (other == id || !crowd_layers_meet(c, id, other))
                    continue;
                const uint32_t slot = s->slot[other];
                double q[3], q0[3];
                const float theirs = slot == UINT32_MAX ? 1.0f : fraction[slot];
                place(c, other, theirs, q);
                place(c, other, 0.0f, q0);
                const double touching = (double)c->body[id].radius + c->body[other].radius;
                const double before = crowd_clear_gap(c, id, other, p0, q0);
                const double allowed = fmin(before, -CROWD_CLEAR_TOLERANCE * touching);
                const bool part_way = (own != 1.0f && own != 0.0f) || (theirs != 1.0f && theirs != 0.0f);
                if (crowd_clear_gap(c, id, other, p, q) - (part_way ? rounding(p, q) : 0.0) < allowed)
                    return true;
            }
        }
    return false;
}

/* The moved agents m of chunk k of the rounds: next[m] from the round's
   fractions now; whether any gave up part of its shift. A bent shift
   (slid along static geometry, or pushed more than once) is free of it
   only at its ends, so it is kept whole or not at all. */
static bool give_up_chunk(const skim_crowd *c, uint32_t moved, uint32_t k, double cell, const float *now,
                          float *next)
{
    const crowd_clear *s = &c->clear;
    uint32_t first, last;
    crowd_chunk_range(k, ROUND_CHUNK, moved, &first, &last);
    bool again = false;
    for (uint32_t m = first; m < last; ++m) {
        const uint32_t id = s->moved[m];
        next[m] = now[m];
        if (now[m] == 0.0f || !too_close(c, id, cell, now))
            continue;
        again = true;
        const bool halve = !s->bent[id] && now[m] > SMALLEST_FRACTION;
        next[m] = halve ? 0.5f * now[m] : 0.0f;
    }
    return again;
}

/* Rounds, each deciding from the last round's fractions alone (so the same
   for any order), until one gives up nothing; returns the fractions they
   end with. One region of team phases (src/base/team.h), a round a phase,
   each round's news in a flag of its own; rounds past the flags run on
   one thread. */
static const float *give_up(skim_crowd *c, uint32_t moved, double cell, int threads)
{
    crowd_clear *s = &c->clear;
    const uint32_t chunks = team_chunks(moved, ROUND_CHUNK);
    const bool passive = c->def.move.wait == SKIM_WAIT_PASSIVE;
    float *buffer[2] = { s->fraction, s->fraction + moved };
    uint32_t rounds = 0, used = 0;
#pragma omp parallel num_threads(threads) if (moved >= PARALLEL_MOVED)
    {
        team_enter_region(passive);
        team_cursor cursor = { c->phases, 0 };
        uint32_t round = 0;
        for (;; ++round) {
            const float *now = buffer[round % 2];
            float *next = buffer[(round + 1) % 2];
            if (round + 1 == CROWD_ROUNDS) {
                SERIAL_PHASE(&cursor, {
                    for (bool again = true; again; ++round) {
                        again = false;
                        for (uint32_t k = 0; k < chunks; ++k)
                            again |= give_up_chunk(c, moved, k, cell, buffer[round % 2], buffer[(round + 1) % 2]);
                    }
                    rounds = round;
                });
                break;
            }
            CHUNK_PHASE(&cursor, chunks, {
                if (give_up_chunk(c, moved, k, cell, now, next))
                    atomic_store_explicit(&c->shared.violated[round], 1, memory_order_relaxed);
            });
            if (!atomic_load_explicit(&c->shared.violated[round], memory_order_relaxed)) {
                rounds = round + 1;
                break;
            }
        }
#ifdef _OPENMP
        if (omp_get_thread_num() == 0)
#endif
            used = cursor.at;
        team_leave_region(&c->shared.left);
    }
    (void)threads;
    crowd_clear_region(c, used);
    return buffer[rounds % 2];
}

skim_status crowd_bodies_clear_agents(const skim_world *statics, skim_crowd *c, uint32_t n, int threads)
{
    crowd_clear *s = &c->clear;
    if (!c->def.agent_collisions)
        return SKIM_OK;
    if (!crowd_reserve((void **)&s->slot, &s->slot_capacity, c->capacity, sizeof *s->slot))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the bodies");
    uint32_t moved, pushed = 0;
    double cell;
    if (!list_and_grid(c, n, threads, &moved, &cell))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the bodies");
    if (!moved)
        return SKIM_OK;
    skim_status status = crowd_bodies_push_chains(statics, c, n, moved, cell, threads, &pushed);
    if (status != SKIM_OK)
        return status;
    /* The agents the chains moved have ways of their own. */
    if (pushed && !list_and_grid(c, n, threads, &moved, &cell))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for the bodies");
    const float *now = give_up(c, moved, cell, threads);
    for (uint32_t m = 0; m < moved; ++m) {
        const uint32_t id = s->moved[m];
        if (now[m] == 1.0f)
            continue;
        double p[3];
        place(c, id, now[m], p);
        c->shifted[id] = (skim_vec3){ (float)p[0], (float)p[1], (float)p[2] };
        if (!c->squeezed[id])
            c->squeezed[id] = CROWD_SQUEEZED_BY_AGENTS;
    }
    return SKIM_OK;
}

void crowd_clear_release(crowd_clear *s)
{
    free(s->slot);
    free(s->bent);
    free(s->moved);
    free(s->fraction);
    free(s->bucket_start);
    free(s->items);
    free(s->range);
    free(s->depth);
    free(s->pairs);
    free(s->frontier);
    free(s->pushed_to);
    free(s->pair_start);
    free(s->chunk);
}
