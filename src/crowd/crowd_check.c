/* The check after the world move (step 4 in skim_crowd.h): no pair of
   agents may end closer than its contact allows; agents in a pair that
   does give up part of their moves, or all of it (the collision chapter, "revert to its
   previous location"), until none is left.

   Why shorten rather than revert at once: in a dense crowd, putting one
   agent back at its start can break a pair with a neighbour that moved up
   behind it, and reverting that one breaks the next: whole crowds froze
   that way. An agent whose world move went straight can stop anywhere
   along it (every point of a straight unobstructed move is free), so it
   keeps the largest part that fits, and only an agent the world turned
   (a wall, a step) must go all the way back. */
#include "crowd/crowd_internal.h"
#include "crowd/crowd_lanes.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>

static double dot3d(const double a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The separation along n of agent i from agent j where they end, in
   double. */
static double separation_along(const skim_crowd *c, uint32_t i, uint32_t j, const float n[3])
{
    const float *fi = c->final + 3 * (size_t)i, *fj = c->final + 3 * (size_t)j;
    double d[3] = { (double)fi[0] - fj[0], (double)fi[1] - fj[1], (double)fi[2] - fj[2] };
    return dot3d(d, n);
}

static double separation(const skim_crowd *c, uint32_t i, const crowd_contact *ct)
{
    return separation_along(c, i, ct->other, ct->n);
}

/* Whether the constraint (n, allowed, target) holds between agents i and
   j: first in float, which decides almost every pair; only a pair within a
   ten-thousandth of the touching distance of the bound is measured again
   in double. The float separation is off by a few units in the last place
   of the two agents' offset (at most a few reaches long), far below that
   margin. The same answer from both sides of a pair: swapping i and j and
   negating n negates every difference and product exactly. */
static inline bool holds_along(const skim_crowd *c, uint32_t i, uint32_t j, const float n[3], float allowed,
                               float target)
{
    const float *fi = c->final + 3 * (size_t)i, *fj = c->final + 3 * (size_t)j;
    float quick = (fi[0] - fj[0]) * n[0] + (fi[1] - fj[1]) * n[1] + (fi[2] - fj[2]) * n[2];
    if (quick >= allowed + 1e-4f * fabsf(target))
        return true;
    return separation_along(c, i, j, n) >= (double)allowed;
}

static bool holds(const skim_crowd *c, uint32_t i, const crowd_contact *ct)
{
    return holds_along(c, i, ct->other, ct->n, ct->allowed, ct->target);
}

/* Gap between two cylinders: they overlap exactly when both the gap across
   up and the gap along up are negative, so the larger of the two is a
   signed separation (exact when one axis overlaps). */
static double cylinder_gap(const skim_crowd *c, uint32_t i, uint32_t j)
{
    const float *fi = c->final + 3 * (size_t)i, *fj = c->final + 3 * (size_t)j;
    double d[3] = { (double)fi[0] - fj[0], (double)fi[1] - fj[1], (double)fi[2] - fj[2] };
    double z = dot3d(d, c->up);
    double hx = d[0] - z * c->up[0], hy = d[1] - z * c->up[1], hz = d[2] - z * c->up[2];
    double across = sqrt(hx * hx + hy * hy + hz * hz) - ((double)c->radius[i] + c->radius[j]);
    double along = fabs(z) - ((double)c->height[i] + c->height[j]);
    return across > along ? across : along;
}

/* cylinder_gap in float, with a bound on how far it can be from the double
   value: each float step of it is off by a few units in the last place of
   the pair's offset (L1 length L) or of the sums of radii and half heights
   (R, H), under 25 u (L + R + H) in all with u = 2^-24; the bound allows
   about seven times that. */
static float cylinder_gap_estimate(const skim_crowd *c, uint32_t i, uint32_t j, float *error)
{
    const float *fi = c->final + 3 * (size_t)i, *fj = c->final + 3 * (size_t)j;
    const float *up = c->up;
    float d[3] = { fi[0] - fj[0], fi[1] - fj[1], fi[2] - fj[2] };
    float z = d[0] * up[0] + d[1] * up[1] + d[2] * up[2];
    float hx = d[0] - z * up[0], hy = d[1] - z * up[1], hz = d[2] - z * up[2];
    float radii = c->radius[i] + c->radius[j], heights = c->height[i] + c->height[j];
    float across = sqrtf(hx * hx + hy * hy + hz * hz) - radii;
    float along = fabsf(z) - heights;
    *error = 1e-5f * (fabsf(d[0]) + fabsf(d[1]) + fabsf(d[2]) + radii + heights);
    return across > along ? across : along;
}

/* The most rounds of shortening before every agent still in a violated pair
   is simply put back at its start (which always ends the check). */
#define SHORTEN_ROUNDS 32

/* Where the check aims when it shortens moves: a thousandth of the
   touching distance past what is allowed, far more than the float rounding
   of the new positions, so the next round finds the pair satisfied. */
static double aim_of(const crowd_contact *ct)
{
    return (double)ct->allowed + 1e-3 * fabs((double)ct->target);
}

/* How much of its move agent i can keep for the contact to hold with the
   other agent where it is now: the separation is linear in the fraction,
   (start_i - final_j) . n + lambda (end_i - start_i) . n. */
static float fraction_alone(const skim_crowd *c, uint32_t i, const crowd_contact *ct)
{
    const float *s = c->start + 3 * (size_t)i, *w = c->world_end + 3 * (size_t)i;
    const float *fj = c->final + 3 * (size_t)ct->other;
    double at_start = 0.0, along = 0.0;
    for (int k = 0; k < 3; ++k) {
        at_start += ((double)s[k] - fj[k]) * ct->n[k];
        along += ((double)w[k] - s[k]) * ct->n[k];
    }
    double aim = aim_of(ct);
    if (at_start < aim || along >= 0.0)
        return 0.0f; /* only going back to the start can help */
    double fraction = (at_start - aim) / -along;
    return fraction < 1.0 ? (float)fraction : 1.0f;
}

/* When both agents of a pair can give way: the factor mu by which both
   scale what they keep of their moves so the pair holds. The separation is
   s0 + mu (s - s0) with s0 at both starts (which the pair allows) and s
   now, and both sides compute the same mu. */
static float joint_factor(const skim_crowd *c, uint32_t i, const crowd_contact *ct)
{
    const float *si = c->start + 3 * (size_t)i, *sj = c->start + 3 * (size_t)ct->other;
    double s0 = 0.0;
    for (int k = 0; k < 3; ++k)
        s0 += ((double)si[k] - sj[k]) * ct->n[k];
    double now = separation(c, i, ct), aim = aim_of(ct);
    /* A pair that started just inside the aim (it ended the last step
       shortened to it) aims halfway between allowed and its start. */
    if (s0 < aim)
        aim = 0.5 * ((double)ct->allowed + s0);
    if (s0 <= aim || s0 <= now)
        return 0.0f;
    double mu = (s0 - aim) / (s0 - now);
    return mu < 1.0 ? (float)mu : 1.0f;
}

/* Whether the cylinders of agent i and its partner in contact ct (nu the
   product of the contact's axis n with up) surely end at least g apart,
   cheaply: the offset across up, h = d - (d . up) up, is at least as long
   as its projection on n, and h . n = d . n - (d . up) nu, with |d . up| at
   most the L1 length of d, so the gap across, |h| - R, is at least
   |d . n| - L1 |nu| - R. For a contact across up (|nu| under 1e-6) that is
   about the gap itself, and most pairs are farther apart than the closest;
   along up the bound is useless and the full estimate decides. The error
   allowed is cylinder_gap_estimate's, which covers the float rounding of
   every term. */
static inline bool surely_apart(const float *final, const float *radius, uint32_t i, const crowd_contact *ct,
                                float nu, float g)
{
    const float *fi = final + 3 * (size_t)i, *fj = final + 3 * (size_t)ct->other;
    float d[3] = { fi[0] - fj[0], fi[1] - fj[1], fi[2] - fj[2] };
    float along_n = fabsf(d[0] * ct->n[0] + d[1] * ct->n[1] + d[2] * ct->n[2]);
    float l1 = fabsf(d[0]) + fabsf(d[1]) + fabsf(d[2]);
    float radii = radius[i] + radius[ct->other];
    return along_n - l1 * fabsf(nu) - radii - 1e-5f * (l1 + radii) >= g;
}

/* Whether agent i, ending at separation along its contact ct's axis n
   (nu its product with up), ends on the other's head: a vertical contact
   from above (n is exactly up), touching within twice the skin. */
static inline bool on_head(const skim_crowd *c, uint32_t i, const crowd_contact *ct, float nu)
{
    return nu > 0.5f && separation(c, i, ct) <= (double)ct->target * (1.0 + c->def.agent_skin) + 1e-3;
}

/* crowd_stands_on_agent for an agent with contacts: whether agent i ends
   on another's head (on_head with any partner, the first in contact order
   named in *under). On the way, lowers *closest to the gap of each of its
   pairs with a higher index that may be below it: only those are measured
   in double, so the result is the same exact minimum in any order, so for
   any thread count. Its contacts hold its lower partners first, then the
   higher ones, which alone need the gap: two loops, with no test of the
   partner's index. */
static __attribute__((noinline)) uint8_t stands_among_contacts(const skim_crowd *c, uint32_t i, float *closest,
                                                                uint32_t *under)
{
    /* In locals: the stores through closest and under could otherwise be
       to the crowd's own floats, which would be read again per contact. */
    const float up[3] = { c->up[0], c->up[1], c->up[2] };
    const float *final = c->final, *radius = c->radius;
    const crowd_contact *ct = c->contacts + c->contact_begin[i], *end = c->contacts + c->contact_begin[i + 1];
    const crowd_contact *higher = ct + c->contact_fill[i];
    float nearest = *closest;
    uint32_t below = UINT32_MAX;
    uint8_t standing = 0;
    for (; ct < higher; ++ct) {
        const float nu = ct->n[0] * up[0] + ct->n[1] * up[1] + ct->n[2] * up[2];
        if (on_head(c, i, ct, nu)) {
            if (!standing)
                below = c->active[ct->other];
            standing = 1;
        }
    }
    for (; ct < end; ++ct) {
        const float nu = ct->n[0] * up[0] + ct->n[1] * up[1] + ct->n[2] * up[2];
        if (!surely_apart(final, radius, i, ct, nu, nearest)) {
            float error, estimate = cylinder_gap_estimate(c, i, ct->other, &error);
            if (estimate - error < nearest) {
                float gap = (float)cylinder_gap(c, i, ct->other);
                if (gap < nearest)
                    nearest = gap;
            }
        }
        if (on_head(c, i, ct, nu)) {
            if (!standing)
                below = c->active[ct->other];
            standing = 1;
        }
    }
    *closest = nearest;
    *under = below;
    return standing;
}

uint8_t crowd_stands_on_agent(const skim_crowd *c, uint32_t i, float *closest, uint32_t *under)
{
    /* Apart, so that an agent without contacts (most of a sparse crowd:
       10,000 agents on the terrain scene have a pair for every five) pays
       for none of the set-up. */
    if (c->contact_begin[i] == c->contact_begin[i + 1]) {
        *under = UINT32_MAX;
        return 0;
    }
    return stands_among_contacts(c, i, closest, under);
}

/* What agent i keeps of its move after this round: its fraction, cut by
   every pair closer than allowed (bad is set if there is one). The cuts
   read the last round's fractions alone, and their minimum does not
   depend on the order of the contacts. */
static float fraction_this_round(const skim_crowd *c, uint32_t i, bool last, uint8_t *bad)
{
    float lambda = c->lambda[i];
    for (size_t e = c->contact_begin[i]; e < c->contact_begin[i + 1] && lambda > 0.0f; ++e) {
        const crowd_contact *ct = &c->contacts[e];
        if (holds(c, i, ct))
            continue;
        *bad = 1;
        uint32_t j = ct->other;
        bool other_gives = c->free_path[j] && c->lambda[j] > 0.0f;
        float keep = lambda;
        if (last)
            keep = 0.0f;
        else if (c->free_path[i])
            keep = other_gives ? joint_factor(c, i, ct) * c->lambda[i] : fraction_alone(c, i, ct);
        else if (!other_gives)
            keep = 0.0f;
        lambda = keep < lambda ? keep : lambda;
    }
    return lambda;
}

/* Round items per chunk, and the fewest agents on a round's list for the
   round to be shared: after the first rounds a list holds a few hundred
   agents, then a handful, microseconds of work, less than a phase costs. */
#define ROUND_CHUNK 128
#define ROUND_PARALLEL_MIN 2048

/* Agent i's decision this round, into lambda_next and violated; whether it
   found a violated pair. */
static bool decide(skim_crowd *c, uint32_t i, bool last)
{
    uint8_t bad = 0;
    c->lambda_next[i] = fraction_this_round(c, i, last, &bad);
    c->moved[i] = bad; /* the solver's moved array, free by now */
    return bad;
}

/* Agent i takes its new fraction, if it changed. */
static void apply(skim_crowd *c, uint32_t i)
{
    float lambda = c->lambda_next[i];
    c->check_changed[i] = lambda != c->lambda[i];
    if (!c->check_changed[i])
        return;
    c->lambda[i] = lambda;
    const float *s = c->start + 3 * (size_t)i, *w = c->world_end + 3 * (size_t)i;
    for (int a = 0; a < 3; ++a)
        c->final[3 * (size_t)i + a] = lambda == 0.0f ? s[a] : s[a] + lambda * (w[a] - s[a]);
}

/* The next round's list, into next, from this round's; returns its length. */
static uint32_t next_list(skim_crowd *c, const uint32_t *list, uint32_t listed, uint32_t *next, uint32_t stamp)
{
    uint32_t count = 0;
    for (uint32_t k = 0; k < listed; ++k) {
        uint32_t i = list[k];
        if (!c->moved[i] && !c->check_changed[i])
            continue;
        if (c->check_stamp[i] != stamp) {
            c->check_stamp[i] = stamp;
            next[count++] = i;
        }
        if (c->check_changed[i])
            for (size_t e = c->contact_begin[i]; e < c->contact_begin[i + 1]; ++e) {
                uint32_t j = c->contacts[e].other;
                if (c->check_stamp[j] != stamp) {
                    c->check_stamp[j] = stamp;
                    next[count++] = j;
                }
            }
    }
    return count;
}

/* Rounds from round on, one thread; the list of round r is lists[r & 1].
   Returns the number of rounds. */
static uint32_t rounds_alone(skim_crowd *c, uint32_t *const lists[2], uint32_t round, uint32_t listed)
{
    for (;; ++round) {
        const bool last = round > SHORTEN_ROUNDS;
        if (round > 2 * SHORTEN_ROUNDS)
            return round; /* cannot happen (all starts pass); a guard, not a path */
        const uint32_t *list = lists[round & 1];
        bool any = false;
        for (uint32_t k = 0; k < listed; ++k)
            any |= decide(c, list[k], last);
        if (!any)
            return round;
        for (uint32_t k = 0; k < listed; ++k)
            apply(c, list[k]);
        listed = next_list(c, list, listed, lists[(round + 1) & 1], round);
    }
}

/* A near pair's (n[0], n[1], n[2], target). */
static inline simde__m128 n_and_target(const crowd_near_pair *near)
{
    static_assert(offsetof(crowd_pair, target) == 3 * sizeof(float), "n and the target are read as one vector");
    return simde_mm_loadu_ps((const float *)(const void *)&near->pair);
}

/* Which of the pairs near[0 .. 4) surely hold (bit k for near + k):
   holds_along's float test, each lane doing its float operations in their
   order. */
static inline int four_surely_hold(const float *final, const crowd_near_pair *near)
{
    const uint32_t a[4] = { near[0].a, near[1].a, near[2].a, near[3].a };
    const uint32_t b[4] = { near[0].b, near[1].b, near[2].b, near[3].b };
    simde__m128 n_target[4];
    crowd_rows_to_columns(n_and_target(near), n_and_target(near + 1), n_and_target(near + 2), n_and_target(near + 3),
                          n_target);
    const simde__m128 allowed = simde_mm_setr_ps(near[0].pair.allowed, near[1].pair.allowed, near[2].pair.allowed,
                                                 near[3].pair.allowed);
    simde__m128 quick = simde_mm_setzero_ps();
    for (int k = 0; k < 3; ++k) {
        const simde__m128 d = simde_mm_sub_ps(crowd_four_of(final + k, 3, a), crowd_four_of(final + k, 3, b));
        const simde__m128 term = simde_mm_mul_ps(d, n_target[k]);
        quick = k == 0 ? term : simde_mm_add_ps(quick, term);
    }
    const simde__m128 abs_target = simde_mm_andnot_ps(simde_mm_set1_ps(-0.0f), n_target[3]);
    const simde__m128 bound = simde_mm_add_ps(allowed, simde_mm_mul_ps(simde_mm_set1_ps(1e-4f), abs_target));
    return simde_mm_movemask_ps(simde_mm_cmpge_ps(quick, bound));
}

/* Marks the agents of a near pair that fails with FAILED; whether it
   fails. Threads may mark one agent at once, always with the same value:
   relaxed atomic stores. */
#define FAILED UINT32_MAX /* never a round's stamp */
static bool mark_failing(skim_crowd *c, const crowd_near_pair *near)
{
    const crowd_pair *p = &near->pair;
    if (holds_along(c, near->a, near->b, p->n, p->allowed, p->target))
        return false;
    __atomic_store_n(&c->check_stamp[near->a], FAILED, __ATOMIC_RELAXED);
    __atomic_store_n(&c->check_stamp[near->b], FAILED, __ATOMIC_RELAXED);
    return true;
}

/* Marks the agents of the failing pairs of near-pair chunk k (in
   crowd_find_contacts' buffers, every pair once, from its lower side);
   whether it found one. Four pairs at a time are tested in float, and
   only those that test does not settle (a few) go through holds_along. */
static bool mark_failing_pairs(skim_crowd *c, uint32_t k)
{
    const crowd_near_pair *near = c->near_buffers[k].items, *end = near + c->near_buffers[k].count;
    const float *final = c->final;
    bool any = false;
    for (; end - near >= 4; near += 4)
        for (int unsure = ~four_surely_hold(final, near) & 15, lane = 0; unsure; unsure >>= 1, ++lane)
            if (unsure & 1)
                any |= mark_failing(c, near + lane);
    for (; near < end; ++near)
        any |= mark_failing(c, near);
    return any;
}

/* The first round's list: the agents in a failing pair, in index order. */
static uint32_t list_failing(const skim_crowd *c, uint32_t n, uint32_t *list)
{
    uint32_t listed = 0;
    for (uint32_t i = 0; i < n; ++i) {
        list[listed] = i;
        listed += c->check_stamp[i] == FAILED;
    }
    return listed;
}

uint32_t crowd_check(skim_crowd *c, uint32_t n, team_cursor *cursor)
{
    /* The world move's scatter (crowd_step.c) set lambda to 1, final to
       world_end and the stamps to 0. Rounds, each from the previous round's
       positions alone (so the result is the same for any thread count).
       An agent in a pair closer than allowed gives up part of its move: if
       its world move went straight, any point back along it is free of
       geometry, so it keeps the largest fraction that fits; if the world
       bent its move, only its start is known to be free, so it goes back
       there, unless the other agent can still give way. Fractions only
       shrink, and with everyone at the start nothing is violated, so the
       rounds end. */
    /* After the first round, an agent is looked at again only if it was
       in a violated pair last round or its fraction or a neighbour's
       changed: any other would see the same positions as last round, where
       it found nothing to do. The list of those is made from the last
       round's list alone (a stamp per agent keeps each in once); its order
       does not matter, since every agent's decision reads the last round
       only. Round r's list is in lists[r & 1]. */
    /* The first round looks at every pair once, from its lower side (a
       pair holds or fails alike from both sides), and only the agents of
       a failing pair decide: any other would find every contact holding
       and keep its whole move. In a walking crowd that is almost every
       agent, and no pair fails in most steps. */
    crowd_shared *shared = &c->shared;
    const uint32_t pair_chunks = team_chunks(n, CROWD_NEAR_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, pair_chunks, &k); team_finish(phase))
        if (mark_failing_pairs(c, k))
            atomic_store_explicit(&shared->violated[1], 1, memory_order_relaxed);
    team_wait(phase, pair_chunks);
    if (!atomic_load_explicit(&shared->violated[1], memory_order_relaxed))
        return 1;
    uint32_t *const lists[2] = { c->check_next, c->work };
    phase = team_phase_next(cursor);
    if (team_serial(phase)) {
        shared->listed[1] = list_failing(c, n, lists[1]);
        team_finish(phase);
    }
    team_wait(phase, 1);
    for (uint32_t round = 1;; ++round) {
        const uint32_t listed = shared->listed[round];
        const uint32_t *list = lists[round & 1];
        if (listed < ROUND_PARALLEL_MIN || round > SHORTEN_ROUNDS) {
            phase = team_phase_next(cursor);
            if (team_serial(phase)) {
                shared->rest_ended = rounds_alone(c, lists, round, listed);
                team_finish(phase);
            }
            team_wait(phase, 1);
            return shared->rest_ended;
        }
        const uint32_t chunks = team_chunks(listed, ROUND_CHUNK);
        phase = team_phase_next(cursor);
        for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
            uint32_t first, last;
            crowd_chunk_range(k, ROUND_CHUNK, listed, &first, &last);
            bool any = false;
            for (uint32_t e = first; e < last; ++e)
                any |= decide(c, list[e], false);
            if (any)
                atomic_store_explicit(&shared->violated[round], 1, memory_order_relaxed);
        }
        team_wait(phase, chunks);
        if (!atomic_load_explicit(&shared->violated[round], memory_order_relaxed))
            return round;
        phase = team_phase_next(cursor);
        for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
            uint32_t first, last;
            crowd_chunk_range(k, ROUND_CHUNK, listed, &first, &last);
            for (uint32_t e = first; e < last; ++e)
                apply(c, list[e]);
        }
        team_wait(phase, chunks);
        phase = team_phase_next(cursor);
        if (team_serial(phase)) {
            shared->listed[round + 1] = next_list(c, list, listed, lists[(round + 1) & 1], round);
            team_finish(phase);
        }
        team_wait(phase, 1);
    }
}
