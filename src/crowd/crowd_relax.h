/* One Jacobi update of one agent of the agent-agent solver (the sweeps
   that make them, and why Jacobi projection and these constraints:
   crowd_solver.c). In a header, inlined into the sweeps: they call it
   for every listed agent, about 200 instructions a call, and the call
   itself cost 60 instructions per agent-step of 13,000 (604 agents with
   goals on oa_dm1, callgrind).

   The definition, one contact at a time in contact order:

       push = +0
       for each contact (other, n, target, share):
           gap = (q_i[0] - q_o[0]) * n[0] + (q_i[1] - q_o[1]) * n[1]
                 + (q_i[2] - q_o[2]) * n[2]
           v = target - gap
           push[k] += (share * (v * (v > 0 ? 1.0f : 0.0f))) * n[k]

   Here the gaps of four contacts at a time are worked out in the four
   lanes of an SSE2 register, each lane performing the IEEE operations of
   the definition in its order (the build contracts no multiply-add), and
   then the pushes are added one contact after another as the definition
   adds them (a sum of floats depends on its order). A contact's
   (n[0], n[1], n[2], target) is read as one vector as it lies in its
   record; positions are read as (x, y, z, 0) and the agent's own as
   (x, y, z, 1), so the fourth lane of (q_i - q_o) * (n, target) is
   exactly the target, and one transposition gives the gaps' terms and
   the targets in lanes. The last two contacts, or the last one, of an
   agent (which has five to seven in a crowd walking a level) take the
   low two lanes or the low one the same way.

   Without a branch on the violation (a quarter to a half of the contacts
   in a crowd, at random, which the branch predictor cannot learn): a
   satisfied contact adds a zero, which leaves the sum bitwise as it was
   (the sum starts at +0 and a sum of floats is -0 only when both terms
   are). v is multiplied by 1 or 0, as the definition does, rather than
   masked, so that a NaN spreads alike. */
#ifndef SKIM_CROWD_RELAX_H
#define SKIM_CROWD_RELAX_H

#include "crowd/crowd_internal.h"

#include <math.h>
#include <stddef.h>
#include <simde/x86/sse2.h>

/* Jacobi over-relaxation. Plain Jacobi (1.0) propagates a push one
   neighbour per sweep and leaves a dense, jammed crowd far from solved
   after 8 sweeps; pushing further than each constraint asks makes up for
   the neighbours' counter-pushes. Measured on 1,000 agents packed at 62%
   walking in random directions (agents kept at their start per step, of
   1,000): 1.0: 349, 1.4: 117, 1.6: 49, 1.8: 29. The overshoot only opens
   gaps, which the next step closes. */
#define CROWD_OVER_RELAXATION 1.8f

_Static_assert(offsetof(crowd_contact, target) == offsetof(crowd_contact, n) + 3 * sizeof(float),
               "a contact's n and target are read as one vector");

typedef simde__m128 relax_lanes;

/* Lane k of a in every lane (pshufd: one instruction, a kept). */
#define RELAX_LANE(a, k) simde_mm_castsi128_ps(simde_mm_shuffle_epi32(simde_mm_castps_si128(a), (k) * 0x55))

/* A contact's (n[0], n[1], n[2], target). */
static inline relax_lanes relax_normal_and_target(const crowd_contact *ct)
{
    return simde_mm_loadu_ps((const float *)((const char *)ct + offsetof(crowd_contact, n)));
}

/* Point j of xyz as (x, y, z, 0), reading no further than its z (the last
   agent's ends the buffer). */
static inline relax_lanes relax_point(const float *xyz, size_t j)
{
    const float *p = xyz + 3 * j;
    const relax_lanes xy = simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)p));
    return simde_mm_movelh_ps(xy, simde_mm_load_ss(p + 2));
}

/* The first three lanes of a to point j of xyz. */
static inline void relax_store_point(float *xyz, size_t j, relax_lanes a)
{
    float *p = xyz + 3 * j;
    simde_mm_storel_epi64((simde__m128i *)p, simde_mm_castps_si128(a));
    simde_mm_store_ss(p + 2, RELAX_LANE(a, 2));
}

/* (q_i - q_other) * (n, target), lane by lane. */
static inline relax_lanes relax_products(const crowd_contact *ct, const float *q, relax_lanes self)
{
    return simde_mm_mul_ps(simde_mm_sub_ps(self, relax_point(q, ct->other)), relax_normal_and_target(ct));
}

/* push + s * (n, target): the definition's push[k] += s * n[k] in the
   first three lanes; the fourth is never read. */
static inline relax_lanes relax_add_push(relax_lanes push, relax_lanes s, const crowd_contact *ct)
{
    return simde_mm_add_ps(push, simde_mm_mul_ps(s, relax_normal_and_target(ct)));
}

/* The definition's s = share * (v * (v > 0)) of each lane, and in
   *violation whether v > 0. */
static inline relax_lanes relax_push_scale(relax_lanes v, relax_lanes share, relax_lanes *violation)
{
    *violation = simde_mm_cmpgt_ps(v, simde_mm_setzero_ps());
    return simde_mm_mul_ps(share, simde_mm_mul_ps(v, simde_mm_and_ps(*violation, simde_mm_set1_ps(1.0f))));
}

/* The sum of the pushes of contacts [ct, ct + count) on the agent at self
   (x, y, z, 1) into *push (its first three lanes); whether any of them is
   violated. */
static inline bool relax_sum_pushes(const crowd_contact *ct, size_t count, const float *q, relax_lanes self,
                                    relax_lanes *push_out)
{
    /* Whether a lane was violated, of the four lanes of the groups of
       four, the two of the pair, the one of the last contact (the other
       lanes of a pair and a last contact hold no contact). */
    relax_lanes push = simde_mm_setzero_ps(), violated4 = push, violated2 = push, violated1 = push, violation;
    for (const crowd_contact *groups_end = ct + (count & ~(size_t)3); ct < groups_end; ct += 4) {
        const relax_lanes m0 = relax_products(ct, q, self), m1 = relax_products(ct + 1, q, self);
        const relax_lanes m2 = relax_products(ct + 2, q, self), m3 = relax_products(ct + 3, q, self);
        /* Rows (d0 n0, d1 n1, d2 n2, target) to columns. */
        const relax_lanes lo01 = simde_mm_unpacklo_ps(m0, m1), lo23 = simde_mm_unpacklo_ps(m2, m3);
        const relax_lanes hi01 = simde_mm_unpackhi_ps(m0, m1), hi23 = simde_mm_unpackhi_ps(m2, m3);
        const relax_lanes gap = simde_mm_add_ps(
            simde_mm_add_ps(simde_mm_movelh_ps(lo01, lo23), simde_mm_movehl_ps(lo23, lo01)), simde_mm_movelh_ps(hi01, hi23));
        const relax_lanes v = simde_mm_sub_ps(simde_mm_movehl_ps(hi23, hi01), gap);
        const relax_lanes share = simde_mm_setr_ps(ct[0].share, ct[1].share, ct[2].share, ct[3].share);
        const relax_lanes s = relax_push_scale(v, share, &violation);
        violated4 = simde_mm_or_ps(violated4, violation);
        push = relax_add_push(push, RELAX_LANE(s, 0), ct);
        push = relax_add_push(push, RELAX_LANE(s, 1), ct + 1);
        push = relax_add_push(push, RELAX_LANE(s, 2), ct + 2);
        push = relax_add_push(push, RELAX_LANE(s, 3), ct + 3);
    }
    if (count & 2) {
        const relax_lanes m0 = relax_products(ct, q, self), m1 = relax_products(ct + 1, q, self);
        /* (d0 n0, d1 n1, d2 n2, target) of both in the low two lanes. */
        const relax_lanes lo = simde_mm_unpacklo_ps(m0, m1), hi = simde_mm_unpackhi_ps(m0, m1);
        const relax_lanes gap = simde_mm_add_ps(simde_mm_add_ps(lo, simde_mm_movehl_ps(lo, lo)), hi);
        const relax_lanes v = simde_mm_sub_ps(simde_mm_movehl_ps(hi, hi), gap);
        const relax_lanes share = simde_mm_unpacklo_ps(simde_mm_load_ss(&ct[0].share), simde_mm_load_ss(&ct[1].share));
        const relax_lanes s = relax_push_scale(v, share, &violation);
        violated2 = violation;
        push = relax_add_push(push, RELAX_LANE(s, 0), ct);
        push = relax_add_push(push, RELAX_LANE(s, 1), ct + 1);
        ct += 2;
    }
    if (count & 1) {
        const relax_lanes m = relax_products(ct, q, self);
        const relax_lanes gap = simde_mm_add_ss(simde_mm_add_ss(m, RELAX_LANE(m, 1)), RELAX_LANE(m, 2));
        const relax_lanes v = simde_mm_sub_ss(RELAX_LANE(m, 3), gap);
        const relax_lanes s = relax_push_scale(v, simde_mm_load_ss(&ct->share), &violation);
        violated1 = violation;
        push = relax_add_push(push, RELAX_LANE(s, 0), ct);
    }
    *push_out = push;
    return (simde_mm_movemask_ps(violated4) | (simde_mm_movemask_ps(violated2) & 3) |
            (simde_mm_movemask_ps(violated1) & 1)) != 0;
}

/* Agent i's position from the previous sweep's positions q, written to
   next: q_i plus CROWD_OVER_RELAXATION times the sum of its pushes, its
   offset from its plan (start + planned) then cut to its margin; q_i
   itself when none of its contacts is violated. Returns whether any was. */
static inline __attribute__((always_inline)) bool crowd_relax_agent(const skim_crowd *c, const float *q, float *next, size_t i)
{
    const size_t begin = c->contact_begin[i];
    /* (x, y, z, 0) with 1 in the last lane: the bits of 1.0f. */
    const relax_lanes self = simde_mm_or_ps(relax_point(q, i), simde_mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f));
    relax_lanes push;
    if (!relax_sum_pushes(c->contacts + begin, c->contact_begin[i + 1] - begin, q, self, &push)) {
        relax_store_point(next, i, self);
        return false;
    }
    /* Lane by lane, in the first three: out = q_i + w push, offset = out -
       (start + planned), and offset_sq = ((0 + offset_0^2) + offset_1^2) +
       offset_2^2 in the low lane, as the sum over k in order from 0. */
    const relax_lanes out = simde_mm_add_ps(self, simde_mm_mul_ps(simde_mm_set1_ps(CROWD_OVER_RELAXATION), push));
    const relax_lanes plan = simde_mm_add_ps(relax_point(c->start, i), relax_point(c->planned, i));
    const relax_lanes offset = simde_mm_sub_ps(out, plan), square = simde_mm_mul_ps(offset, offset);
    const float offset_sq = simde_mm_cvtss_f32(simde_mm_add_ss(
        simde_mm_add_ss(simde_mm_add_ss(simde_mm_setzero_ps(), square), RELAX_LANE(square, 1)), RELAX_LANE(square, 2)));
    /* How far the pushes have taken it from its plan: limited to the
       margin the broadphase allowed for. */
    const float limit = c->margin[i];
    if (offset_sq > limit * limit) {
        const float scale = limit / sqrtf(offset_sq);
        relax_store_point(next, i, simde_mm_add_ps(plan, simde_mm_mul_ps(offset, simde_mm_set1_ps(scale))));
    } else {
        relax_store_point(next, i, out);
    }
    return true;
}

#endif
