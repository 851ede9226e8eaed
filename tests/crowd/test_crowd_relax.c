/* The solver's update of one agent, four contacts at a time in lanes
   (crowd_relax.h), is bit for bit the definition below, one contact at a
   time: on random agents with zero to nineteen contacts (every count of
   groups of four, pairs and last ones), violated or not, some exactly at
   their target, with shares of none, some and all, normals across and
   along up, partners up to the last agent of the buffer, and moves that
   stay within the margin or are cut to it. */
#include "crowd/crowd_relax.h"
#include "crowd_check.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

TestSuite(crowd_relax, .timeout = 60);

/* The definition: contact after contact, in contact order. */
static bool relax_definition(const skim_crowd *c, const float *q, float *next, size_t i)
{
    const float *qi = q + 3 * i;
    const crowd_contact *ct = c->contacts + c->contact_begin[i], *end = c->contacts + c->contact_begin[i + 1];
    float push[3] = { 0, 0, 0 };
    uint32_t violated = 0;
    for (; ct < end; ++ct) {
        const float *qj = q + 3 * (size_t)ct->other;
        float gap = (qi[0] - qj[0]) * ct->n[0] + (qi[1] - qj[1]) * ct->n[1] + (qi[2] - qj[2]) * ct->n[2];
        float v = ct->target - gap;
        bool violation = v > 0.0f;
        float s = ct->share * (v * (float)violation);
        for (int k = 0; k < 3; ++k)
            push[k] += s * ct->n[k];
        violated += violation;
    }
    if (!violated) {
        for (int k = 0; k < 3; ++k)
            next[3 * i + k] = qi[k];
        return false;
    }
    float out[3], offset[3], offset_sq = 0.0f;
    for (int k = 0; k < 3; ++k) {
        out[k] = qi[k] + CROWD_OVER_RELAXATION * push[k];
        offset[k] = out[k] - (c->start[3 * i + k] + c->planned[3 * i + k]);
        offset_sq += offset[k] * offset[k];
    }
    float limit = c->margin[i];
    if (offset_sq > limit * limit) {
        float scale = limit / sqrtf(offset_sq);
        for (int k = 0; k < 3; ++k)
            out[k] = c->start[3 * i + k] + c->planned[3 * i + k] + offset[k] * scale;
    }
    for (int k = 0; k < 3; ++k)
        next[3 * i + k] = out[k];
    return true;
}

#define AGENTS 48
#define MOST_CONTACTS 19

/* The buffers of one draw, each of its exact size, so that a sanitizer
   build sees any read past the last agent. */
typedef struct draw {
    float *q, *start, *planned, *margin, *next_lanes, *next_definition;
    size_t *contact_begin;
    crowd_contact *contacts;
} draw;

static void draw_alloc(draw *d)
{
    d->q = malloc(3 * AGENTS * sizeof *d->q);
    d->start = malloc(3 * AGENTS * sizeof *d->start);
    d->planned = malloc(3 * AGENTS * sizeof *d->planned);
    d->margin = malloc(AGENTS * sizeof *d->margin);
    d->next_lanes = malloc(3 * AGENTS * sizeof *d->next_lanes);
    d->next_definition = malloc(3 * AGENTS * sizeof *d->next_definition);
    d->contact_begin = malloc((AGENTS + 1) * sizeof *d->contact_begin);
    d->contacts = malloc(AGENTS * MOST_CONTACTS * sizeof *d->contacts);
    cr_assert(d->q && d->start && d->planned && d->margin && d->next_lanes && d->next_definition &&
              d->contact_begin && d->contacts);
}

static void draw_free(draw *d)
{
    free(d->q);
    free(d->start);
    free(d->planned);
    free(d->margin);
    free(d->next_lanes);
    free(d->next_definition);
    free(d->contact_begin);
    free(d->contacts);
}

/* A unit normal: across up mostly, exactly +-up now and then. */
static void draw_normal(rng *state, float n[3])
{
    if (rng_next(state) % 8 == 0) {
        n[0] = n[1] = 0.0f;
        n[2] = rng_next(state) & 1 ? 1.0f : -1.0f;
        return;
    }
    double angle = rng_uniform(state, 0.0, 6.283185307179586), tilt = rng_uniform(state, -1e-6, 1e-6);
    n[0] = (float)cos(angle);
    n[1] = (float)sin(angle);
    n[2] = (float)tilt;
}

/* Agents within a few units of each other, every agent's contacts with
   random partners (the last agent among them often), each agent with its
   own lean toward violated or satisfied contacts. */
static void draw_agents(rng *state, draw *d, skim_crowd *c)
{
    for (size_t k = 0; k < 3 * AGENTS; ++k) {
        d->q[k] = (float)rng_uniform(state, -3.0, 3.0);
        d->start[k] = d->q[k] + (float)rng_uniform(state, -0.5, 0.5);
        d->planned[k] = (float)rng_uniform(state, -0.5, 0.5);
    }
    size_t e = 0;
    for (uint32_t i = 0; i < AGENTS; ++i) {
        d->margin[i] = rng_next(state) % 4 == 0 ? (float)rng_uniform(state, 0.0, 0.3) : (float)rng_uniform(state, 1.0, 8.0);
        d->contact_begin[i] = e;
        /* Some agents have most contacts violated, some few or none. */
        const double lean = rng_uniform(state, -1.5, 0.8);
        const uint32_t count = (uint32_t)(rng_next(state) % (MOST_CONTACTS + 1));
        for (uint32_t k = 0; k < count; ++k, ++e) {
            crowd_contact *ct = &d->contacts[e];
            do
                ct->other = rng_next(state) % 4 == 0 ? AGENTS - 1 : (uint32_t)(rng_next(state) % AGENTS);
            while (ct->other == i);
            draw_normal(state, ct->n);
            const float *qi = d->q + 3 * (size_t)i, *qj = d->q + 3 * (size_t)ct->other;
            const float gap = (qi[0] - qj[0]) * ct->n[0] + (qi[1] - qj[1]) * ct->n[1] + (qi[2] - qj[2]) * ct->n[2];
            /* v = target - gap about uniform around the agent's lean, or
               exactly +0 now and then (not violated). */
            ct->target = rng_next(state) % 16 == 0 ? gap : gap + (float)(lean + rng_uniform(state, -1.0, 1.0));
            ct->allowed = ct->target * 0.9f;
            switch (rng_next(state) % 4) {
            case 0:
                ct->share = 0.0f; /* the other is pushed alone */
                break;
            case 1:
                ct->share = 1.0f;
                break;
            default:
                ct->share = (float)rng_uniform(state, 0.0, 1.0);
            }
        }
    }
    d->contact_begin[AGENTS] = e;
    memset(c, 0, sizeof *c);
    c->contacts = d->contacts;
    c->contact_begin = d->contact_begin;
    c->start = d->start;
    c->planned = d->planned;
    c->margin = d->margin;
}

Test(crowd_relax, four_contacts_at_a_time_give_the_definitions_positions_bit_for_bit)
{
    static skim_crowd c;
    draw d;
    draw_alloc(&d);
    rng state = { 0x5e1a7ed5eedull };
    uint32_t moved = 0, kept = 0, kept_many = 0, cut = 0, violated_contacts = 0, contacts = 0, at_target = 0;
    uint32_t by_rest[4] = { 0 };
    for (int round = 0; round < 2000; ++round) {
        draw_agents(&state, &d, &c);
        for (uint32_t i = 0; i < AGENTS; ++i) {
            memset(d.next_lanes + 3 * i, 0xa5, 3 * sizeof *d.next_lanes);
            memset(d.next_definition + 3 * i, 0x5a, 3 * sizeof *d.next_definition);
            const bool lanes = crowd_relax_agent(&c, d.q, d.next_lanes, i);
            const bool definition = relax_definition(&c, d.q, d.next_definition, i);
            const float *a = d.next_lanes + 3 * i, *b = d.next_definition + 3 * i;
            const size_t count = d.contact_begin[i + 1] - d.contact_begin[i];
            cr_assert_eq(lanes, definition, "round %d, agent %u (%zu contacts): violated %d, not %d", round, i, count,
                         lanes, definition);
            cr_assert(memcmp(a, b, 3 * sizeof *a) == 0,
                      "round %d, agent %u (%zu contacts): (%a %a %a) in lanes, (%a %a %a) by the definition", round, i,
                      count, a[0], a[1], a[2], b[0], b[1], b[2]);
            /* What was covered. */
            moved += definition;
            kept += !definition;
            kept_many += !definition && count >= 4;
            by_rest[count % 4] += definition;
            float offset_sq = 0.0f;
            for (int k = 0; k < 3; ++k) {
                const float offset = b[k] - (d.start[3 * i + k] + d.planned[3 * i + k]);
                offset_sq += offset * offset;
            }
            cut += definition && offset_sq >= 0.99f * d.margin[i] * d.margin[i] && count > 0;
            for (size_t e = d.contact_begin[i]; e < d.contact_begin[i + 1]; ++e) {
                const crowd_contact *ct = &d.contacts[e];
                const float *qi = d.q + 3 * (size_t)i, *qj = d.q + 3 * (size_t)ct->other;
                const float gap = (qi[0] - qj[0]) * ct->n[0] + (qi[1] - qj[1]) * ct->n[1] + (qi[2] - qj[2]) * ct->n[2];
                violated_contacts += ct->target - gap > 0.0f;
                at_target += ct->target - gap == 0.0f;
                ++contacts;
            }
        }
    }
    draw_free(&d);
    cr_assert(moved > 10000 && kept > 10000, "moved %u, kept %u", moved, kept);
    cr_assert_gt(kept_many, 2000, "%u agents with four contacts or more kept", kept_many);
    for (int rest = 0; rest < 4; ++rest)
        cr_assert_gt(by_rest[rest], 2000, "%u agents moved with a multiple of four contacts plus %d", by_rest[rest], rest);
    cr_assert_gt(cut, 2000, "%u moves cut to the margin", cut);
    cr_assert(violated_contacts > contacts / 10 && violated_contacts < contacts - contacts / 10, "violated %u of %u",
              violated_contacts, contacts);
    cr_assert_gt(at_target, 1000, "%u contacts exactly at their target", at_target);
}
