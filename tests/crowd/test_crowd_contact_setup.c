/* The constraints of a chunk's near pairs worked out two at a time are, bit
   for bit, each pair's constraint alone (crowd_contact_setup) and its
   plan's violation: on random pairs apart across up, at the very touching
   distance, overlapping, one on another's head, apart both ways, on one
   spot and a hair beside it, tall and thin just apart (whose separation
   along the float axis falls below touching), with equal, different and
   no masses, agents leaning on walls or standing on the floor, under a
   plain and a tilted up, mixed in every batch of one to a hundred
   pairs. */
#include "crowd/crowd_internal.h"
#include "crowd_check.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

TestSuite(crowd_contact_setup, .timeout = 60);

enum kind { ACROSS, OVERLAPPING, ON_HEAD, APART_BOTH_WAYS, ONE_SPOT, KINDS };

/* Which branch of the definition a pair takes, worked out apart from it. */
static enum kind kind_of(const skim_crowd *c, uint32_t a, uint32_t b)
{
    double d[3], z = 0.0, h[3], dist_sq = 0.0;
    for (int k = 0; k < 3; ++k) {
        d[k] = (double)c->start[3 * a + k] - (double)c->start[3 * b + k];
        z += d[k] * c->up[k];
    }
    for (int k = 0; k < 3; ++k) {
        h[k] = d[k] - z * c->up[k];
        dist_sq += h[k] * h[k];
    }
    double r = (double)c->radius[a] + c->radius[b], height = (double)c->height[a] + c->height[b];
    bool apart_across = sqrt(dist_sq) >= r, apart_along = fabs(z) >= height;
    if (apart_across && apart_along)
        return APART_BOTH_WAYS;
    if (apart_along)
        return ON_HEAD;
    /* Overlapping both ways, the axis of least overlap: across up only
       when on one level exactly, which leaves one spot for a pair with no
       offset at all. */
    if (!apart_across && (height - fabs(z)) / height < (r - sqrt(dist_sq)) / r)
        return OVERLAPPING;
    if (sqrt(dist_sq) <= 1e-6 * r)
        return ONE_SPOT;
    return apart_across ? ACROSS : OVERLAPPING;
}

#define PAIRS 100

/* Two agents per pair, a below b. */
typedef struct agents {
    uint32_t active[2 * PAIRS];
    float start[6 * PAIRS], planned[6 * PAIRS], q[6 * PAIRS];
    float radius[2 * PAIRS], height[2 * PAIRS], inverse_mass[2 * PAIRS];
    uint8_t leaning[2 * PAIRS], grounded[2 * PAIRS];
} agents;

static float inverse_mass(rng *state)
{
    switch (rng_next(state) % 4) {
    case 0:
        return 0.0f; /* immovable */
    case 1:
        return (float)rng_uniform(state, 0.1, 4.0);
    default:
        return 1.0f;
    }
}

/* Agent b of pair p placed from agent a in one of the cases, rarer ones on
   purpose; with a plain up, some at the exact touching distance. */
static void draw_pair(rng *state, skim_crowd *c, bool plain_up, uint32_t p)
{
    const uint32_t a = 2 * p, b = a + 1;
    for (uint32_t i = a; i <= b; ++i) {
        c->active[i] = (uint32_t)rng_next(state);
        c->radius[i] = (float)rng_uniform(state, 0.2, 1.0);
        c->height[i] = (float)rng_uniform(state, 0.5, 1.2);
        c->inverse_mass[i] = inverse_mass(state);
        c->leaning[i] = rng_next(state) % 4 == 0;
        c->grounded[i] = rng_next(state) % 2;
        for (int k = 0; k < 3; ++k)
            c->planned[3 * i + k] = (float)rng_uniform(state, -1.0, 1.0);
    }
    double r = (double)c->radius[a] + c->radius[b], h = (double)c->height[a] + c->height[b];
    double across = r * rng_uniform(state, 1.0, 3.0), along = h * rng_uniform(state, -0.99, 0.99);
    bool exact = false;
    switch (rng_next(state) % 12) {
    case 0: /* overlapping */
        across = r * rng_uniform(state, 0.0, 0.999);
        break;
    case 1: /* on another's head, or under its feet */
        across = r * rng_uniform(state, 0.0, 0.9);
        along = h * rng_uniform(state, 1.0, 2.0) * (rng_next(state) & 1 ? 1.0 : -1.0);
        break;
    case 2: /* apart both ways */
        along = h * rng_uniform(state, 1.0, 2.0) * (rng_next(state) & 1 ? 1.0 : -1.0);
        break;
    case 3: /* on one spot, or a hair beside it */
        across = rng_next(state) & 1 ? 0.0 : r * 1e-6 * rng_uniform(state, 0.0, 2.0);
        along = rng_next(state) & 1 ? 0.0 : along;
        break;
    case 4: /* at the very touching distance: (3, 4) apart, radii 2.5 */
        exact = plain_up;
        break;
    case 5: /* tall and thin, just apart across a tilted up: the float
               axis's tilt times the offset along up is a fair part of the
               touching distance, and the start separation along it can
               fall below touching */
        if (!plain_up) {
            c->radius[a] = c->radius[b] = 0.001f;
            c->height[a] = c->height[b] = 200.0f;
            r = 0.002;
            h = 400.0;
            across = r * rng_uniform(state, 1.0, 1.0001);
            along = h * rng_uniform(state, -0.99, 0.99);
        }
        break;
    default: /* apart across up */
        break;
    }
    const float *pa = c->start + 3 * (size_t)a;
    float *pb = c->start + 3 * (size_t)b;
    double angle = rng_uniform(state, 0.0, 6.283185307179586);
    for (int k = 0; k < 3; ++k) {
        c->start[3 * a + k] = exact ? (float)(rng_next(state) % 64) : (float)rng_uniform(state, -50.0, 50.0);
        pb[k] = (float)(pa[k] - across * (cos(angle) * c->axis1[k] + sin(angle) * c->axis2[k]) - along * c->up[k]);
    }
    if (exact) {
        c->radius[a] = c->radius[b] = 2.5f;
        pb[0] = pa[0] - 3.0f;
        pb[1] = pa[1] - 4.0f;
        pb[2] = pa[2] - 0.25f;
    }
    /* The plan with some more pushed in or out: violated or not. */
    for (uint32_t i = a; i <= b; ++i)
        for (int k = 0; k < 3; ++k)
            c->q[3 * i + k] = c->start[3 * i + k] + c->planned[3 * i + k] + (float)rng_uniform(state, -0.2, 0.2);
}

static void set_up(skim_crowd *c, bool plain_up)
{
    float up[3] = { 0.0f, 0.0f, 1.0f }, axis1[3] = { 1.0f, 0.0f, 0.0f };
    if (!plain_up) {
        /* Tilted: up and axis1 unit and at right angles. */
        double u[3] = { 0.3, -0.2, 0.93 }, l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        double v[3] = { u[2], 0.0, -u[0] }, m = sqrt(v[0] * v[0] + v[2] * v[2]);
        for (int k = 0; k < 3; ++k) {
            up[k] = (float)(u[k] / l);
            axis1[k] = (float)(v[k] / m);
        }
    }
    memcpy(c->up, up, sizeof up);
    memcpy(c->axis1, axis1, sizeof axis1);
    c->axis2[0] = up[1] * axis1[2] - up[2] * axis1[1];
    c->axis2[1] = up[2] * axis1[0] - up[0] * axis1[2];
    c->axis2[2] = up[0] * axis1[1] - up[1] * axis1[0];
    c->def.agent_skin = 0.05f;
}

static void use_agents(skim_crowd *c, agents *s)
{
    c->active = s->active;
    c->start = s->start;
    c->planned = s->planned;
    c->q = s->q;
    c->radius = s->radius;
    c->height = s->height;
    c->inverse_mass = s->inverse_mass;
    c->leaning = s->leaning;
    c->grounded = s->grounded;
}

static void check_batches(bool plain_up, uint64_t seed)
{
    static agents store;
    static skim_crowd c;
    memset(&c, 0, sizeof c);
    set_up(&c, plain_up);
    use_agents(&c, &store);
    rng state = { seed };
    uint32_t seen[KINDS] = { 0 }, violated = 0, checked = 0;
    for (int batch = 0; batch < 4000; ++batch) {
        const uint32_t count = 1 + (uint32_t)(rng_next(&state) % PAIRS);
        crowd_near_pair near[PAIRS];
        memset(near, 0xa5, sizeof near);
        for (uint32_t p = 0; p < count; ++p) {
            draw_pair(&state, &c, plain_up, p);
            near[p].a = 2 * p;
            near[p].b = 2 * p + 1;
        }
        crowd_contact_setup_near(&c, near, count);
        for (uint32_t p = 0; p < count; ++p) {
            const uint32_t a = near[p].a, b = near[p].b;
            crowd_pair alone;
            crowd_contact_setup(&c, a, b, &alone);
            const enum kind kind = kind_of(&c, a, b);
            seen[kind]++;
            const crowd_pair *two = &near[p].pair;
            cr_assert(memcmp(&alone, two, sizeof alone) == 0,
                      "batch %d, pair %u of %u (case %d): n (%a %a %a) target %a allowed %a shares %a %a alone, "
                      "n (%a %a %a) target %a allowed %a shares %a %a two at a time",
                      batch, p, count, (int)kind, alone.n[0], alone.n[1], alone.n[2], alone.target, alone.allowed,
                      alone.share_lower, alone.share_higher, two->n[0], two->n[1], two->n[2], two->target,
                      two->allowed, two->share_lower, two->share_higher);
            /* The solver's first sweep's test, from the lower agent's side. */
            const float *qa = c.q + 3 * (size_t)a, *qb = c.q + 3 * (size_t)b;
            float gap = (qa[0] - qb[0]) * alone.n[0] + (qa[1] - qb[1]) * alone.n[1] + (qa[2] - qb[2]) * alone.n[2];
            const uint32_t plan_violates = alone.target - gap > 0.0f;
            cr_assert_eq(near[p].violated, plan_violates, "batch %d, pair %u of %u (case %d): violated %u, not %u",
                         batch, p, count, (int)kind, near[p].violated, plan_violates);
            violated += plan_violates;
            ++checked;
        }
    }
    for (int kind = 0; kind < KINDS; ++kind)
        cr_assert_gt(seen[kind], 1000, "case %d drawn %u times only", kind, seen[kind]);
    cr_assert(violated > checked / 10 && violated < checked - checked / 10, "violated %u of %u", violated, checked);
}

Test(crowd_contact_setup, pairs_two_at_a_time_give_each_ones_constraint_bit_for_bit)
{
    check_batches(true, 0xc0ffee5eedull);
}

Test(crowd_contact_setup, under_a_tilted_up_too)
{
    check_batches(false, 0x7117ed0b5eedull);
}
