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
/* Below this count of moved agents one thread runs the rounds: waking
   the others would cost more than it saves. */
#define PARALLEL_MOVED 256
/* Moved agents a chunk of a round covers. */
#define ROUND_CHUNK 32

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
    crowd_clear_place(c, a, 0.0f, pa);
    crowd_clear_place(c, b, 0.0f, pb);
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

/* Whether moved agent id at p (p0 where it stood, keeping fraction own)
   stands closer to agent other than the pair allows, other at this
   round's fraction. */
static inline bool pair_too_close(const skim_crowd *c, uint32_t id, uint32_t other, const double p[3],
                                  const double p0[3], float own, const float *fraction)
{
    if (other == id || !crowd_layers_meet(c, id, other))
        return false;
    const uint32_t slot = c->clear.slot[other];
    double q[3], q0[3];
    const float theirs = slot == UINT32_MAX ? 1.0f : fraction[slot];
    crowd_clear_place(c, other, theirs, q);
    const double touching = (double)c->body[id].radius + c->body[other].radius;
    const bool part_way = (own != 1.0f && own != 0.0f) || (theirs != 1.0f && theirs != 0.0f);
    const double gap = crowd_clear_gap(c, id, other, p, q) - (part_way ? rounding(p, q) : 0.0);
    /* The bound is at most the tolerance inside touching: a pair at least
       that far apart (most the grid meets) passes without the gap it
       stood at. */
    if (gap >= -CROWD_CLEAR_TOLERANCE * touching)
        return false;
    crowd_clear_place(c, other, 0.0f, q0);
    const double before = crowd_clear_gap(c, id, other, p0, q0);
    return gap < fmin(before, -CROWD_CLEAR_TOLERANCE * touching);
}

/* Whether moved agent id, keeping fraction[slot of id], stands closer to
   any agent than the pair allows, everyone at this round's fractions: the
   grid of every agent and the small grid of the chains' new ways. */
static bool too_close(const skim_crowd *c, uint32_t id, double cell, const float *fraction)
{
    const crowd_clear *s = &c->clear;
    double p[3], p0[3];
    const float own = fraction[s->slot[id]];
    crowd_clear_place(c, id, own, p);
    crowd_clear_place(c, id, 0.0f, p0);
    int32_t lo[2], hi[2];
    crowd_clear_cells_of_way(c, id, cell, 1, lo, hi);
    for (int32_t x = lo[0]; x <= hi[0]; ++x)
        for (int32_t y = lo[1]; y <= hi[1]; ++y) {
            const uint32_t h = crowd_hash_cell(x, y), b = h & s->bucket_mask;
            for (uint32_t e = s->bucket_start[b]; e < s->bucket_start[b + 1]; ++e)
                if (pair_too_close(c, id, s->items[e], p, p0, own, fraction))
                    return true;
            if (!s->extra_count)
                continue;
            const uint32_t x_b = h & s->extra_mask;
            for (uint32_t e = s->extra_start[x_b]; e < s->extra_start[x_b + 1]; ++e)
                if (pair_too_close(c, id, s->extra_items[e], p, p0, own, fraction))
                    return true;
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
   end with. A round a team phase (src/base/team.h), each round's news in
   a flag of its own; rounds past the flags, or all of them for few moved
   agents (waking the others would cost more than it saves), on one
   thread. */
static const float *give_up_phases(skim_crowd *c, team_cursor *cursor, uint32_t moved, double cell,
                                   crowd_chain_run *run)
{
    crowd_clear *s = &c->clear;
    const uint32_t chunks = team_chunks(moved, ROUND_CHUNK);
    float *buffer[2] = { s->fraction, s->fraction + moved };
    for (uint32_t round = 0;; ++round) {
        const float *now = buffer[round % 2];
        float *next = buffer[(round + 1) % 2];
        if (moved < PARALLEL_MOVED || round + 1 == CROWD_ROUNDS || cursor->at + 2 >= CROWD_BODIES_PHASES) {
            SERIAL_PHASE(cursor, {
                uint32_t r = round;
                for (bool again = true; again; ++r) {
                    again = false;
                    for (uint32_t k = 0; k < chunks; ++k)
                        again |= give_up_chunk(c, moved, k, cell, buffer[r % 2], buffer[(r + 1) % 2]);
                }
                run->serial_kept = buffer[r % 2];
            });
            return run->serial_kept;
        }
        CHUNK_PHASE(cursor, chunks, {
            if (give_up_chunk(c, moved, k, cell, now, next))
                atomic_store_explicit(&c->shared.gave_up[round], 1, memory_order_relaxed);
        });
        if (!atomic_load_explicit(&c->shared.gave_up[round], memory_order_relaxed))
            return next;
    }
}

/* Phases the clearing keeps for itself past the chains': the relist, at
   least one round and giving up. */
#define CLEAR_SPARE 4

/* The shifts given up as the rounds decided (fractions kept), those
   agents marked squeezed. */
static void give_up_shifts(skim_crowd *c, uint32_t moved, const float *kept)
{
    crowd_clear *s = &c->clear;
    for (uint32_t m = 0; m < moved; ++m) {
        const uint32_t id = s->moved[m];
        if (kept[m] == 1.0f)
            continue;
        double p[3];
        crowd_clear_place(c, id, kept[m], p);
        c->shifted[id] = (skim_vec3){ (float)p[0], (float)p[1], (float)p[2] }; /* a moved agent: away */
        if (!c->squeezed[id])
            c->squeezed[id] = CROWD_SQUEEZED_BY_AGENTS;
    }
}

bool crowd_bodies_clear_phases(const skim_world *statics, skim_crowd *c, team_cursor *cursor,
                               crowd_clear_listed *listed, crowd_chain_run *run)
{
    bool room = crowd_bodies_chain_phases(statics, c, cursor, listed, CLEAR_SPARE, run);
    const bool failed = atomic_load(&run->failed) != SKIM_OK;
    if (room && !failed) {
        /* The agents the chains moved have ways of their own. */
        uint32_t moved = listed->moved;
        if (run->pushed) {
            SERIAL_PHASE(cursor, {
                uint32_t relisted = listed->moved;
                run->relist_room = crowd_clear_relist(c, listed->cell, &relisted);
                run->moved = relisted;
            });
            room = run->relist_room;
            moved = run->moved;
        }
        if (room) {
            const float *kept = give_up_phases(c, cursor, moved, listed->cell, run);
            SERIAL_PHASE(cursor, give_up_shifts(c, moved, kept));
        }
    }
#ifdef _OPENMP
    if (omp_get_thread_num() == 0)
#endif
        run->room = room; /* for after the region */
    return room && !failed;
}

void crowd_clear_release(crowd_clear *s)
{
    free(s->slot);
    free(s->bent);
    free(s->away);
    free(s->moved);
    free(s->fraction);
    free(s->bucket_start);
    free(s->items);
    free(s->range);
    free(s->depth);
    free(s->pairs);
    free(s->frontier);
    free(s->pushed_to);
    free(s->chunk);
    free(s->changed);
    free(s->extra_start);
    free(s->extra_items);
    free(s->keys);
}
