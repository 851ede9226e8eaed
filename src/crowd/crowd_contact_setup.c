/* The constraint of each near pair of agents (why a linear constraint
   along the axis that separated the pair at the start: crowd_solver.c),
   and whether the plan already violates it.

   crowd_contact_setup is the definition, one pair at a time.
   crowd_contact_setup_near works out a chunk's near pairs two at a time
   in the common case, agents on one floor apart across up alone (most
   pairs of a crowd walking a level, nearly all on flat ground): each
   pair a lane of SSE2 doubles, every lane performing the IEEE
   operations of the definition in its order (the build contracts no
   multiply-add), its choices (which agent gives way to a wall, which
   target) made by masks. A pair then no longer waits on the division and
   square root chains of the one before it, and the record is the same
   bits. A lane that takes another branch of the definition (overlapping,
   apart along up, apart both ways, one spot, or starting inside touching
   along its float axis) is worked out by it alone. */
#include "crowd/crowd_internal.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <simde/x86/sse2.h>

static double dot3d(const double a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The tolerance the check allows below the touching distance. The check
   runs in double on float positions, so this only has to cover the float
   rounding of the positions themselves, far below it. */
#define CHECK_TOLERANCE 1e-4

/* How far an overlapping pair is asked to open per step, as a fraction of
   its touching distance. */
#define DEPENETRATION 0.2

/* How much deeper the check lets a pair that starts overlapping get in one
   step, as a fraction of its touching distance. */
#define OVERLAP_SLACK 0.1

/* Overlap, as a fraction of the touching distance, from which a pair counts
   as placed overlapping: far beyond the check's tolerance, so no pair
   that was apart can reach it by rounding and then creep deeper. */
#define DEEP_OVERLAP 0.01

/* Fraction of the way along the straight relative move at which a gap that
   is g0 >= 0 at the start and g1 < 0 at the end closes. */
static double closing_time(double g0, double g1)
{
    return g0 / (g0 - g1);
}

/* When the time the horizontal distance falls to r along the straight move
   of the offset from h0 to h1 (both across up). */
static double horizontal_closing_time(const double h0[3], const double h1[3], double r)
{
    double dv[3] = { h1[0] - h0[0], h1[1] - h0[1], h1[2] - h0[2] };
    double a = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
    double b = 2.0 * (h0[0] * dv[0] + h0[1] * dv[1] + h0[2] * dv[2]);
    double c = h0[0] * h0[0] + h0[1] * h0[1] + h0[2] * h0[2] - r * r;
    if (a <= 0.0)
        return 1.0;
    double disc = b * b - 4.0 * a * c;
    if (disc < 0.0)
        return 1.0;
    double t = (-b - sqrt(disc)) / (2.0 * a);
    return t < 0.0 ? 0.0 : t;
}

void crowd_contact_setup(const skim_crowd *c, uint32_t a, uint32_t b, crowd_pair *out)
{
    /* Computed for the pair in canonical order (a = lower index); the other
       side is its mirror (crowd_contacts.c), so both sides hold bitwise
       opposite constraints. */
    uint32_t ida = c->active[a], idb = c->active[b];
    const float *pa = c->start + 3 * (size_t)a, *pb = c->start + 3 * (size_t)b;
    const float *da = c->planned + 3 * (size_t)a, *db = c->planned + 3 * (size_t)b;
    double d0[3];
    for (int k = 0; k < 3; ++k)
        d0[k] = (double)pa[k] - (double)pb[k];
    double z0 = dot3d(d0, c->up);
    double h0[3];
    for (int k = 0; k < 3; ++k)
        h0[k] = d0[k] - z0 * c->up[k];
    double dist0 = sqrt(h0[0] * h0[0] + h0[1] * h0[1] + h0[2] * h0[2]);
    double r = (double)c->radius[a] + c->radius[b];
    double h = (double)c->height[a] + c->height[b];
    bool sep_h = dist0 >= r, sep_v = fabs(z0) >= h;

    bool vertical;
    if (sep_h != sep_v) {
        vertical = sep_v;            /* the one axis that separates them */
    } else if (!sep_h) {
        /* Overlapping on both axes: the axis of least overlap, as a
           separating-axis test would pick (one agent standing on another's
           head a hair inside from rounding keeps the vertical axis). */
        vertical = (h - fabs(z0)) / h < (r - dist0) / r;
    } else {
        /* Both axes separate at the start: keep the one that still
           separates at the planned end, or, if both or neither do, the one
           that would close last along the straight move, which is the face
           the cylinders would meet on. */
        /* (Only here is the planned end needed: most pairs, agents on
           one floor, are apart across up alone.) */
        double d1[3], h1[3];
        for (int k = 0; k < 3; ++k)
            d1[k] = d0[k] + (double)da[k] - (double)db[k];
        double z1 = dot3d(d1, c->up);
        for (int k = 0; k < 3; ++k)
            h1[k] = d1[k] - z1 * c->up[k];
        double dist1 = sqrt(h1[0] * h1[0] + h1[1] * h1[1] + h1[2] * h1[2]);
        bool end_h = dist1 >= r, end_v = fabs(z1) >= h && z1 * z0 > 0.0;
        if (end_h != end_v) {
            vertical = end_v;
        } else if (end_h) {
            vertical = (fabs(z1) - h) / h > (dist1 - r) / r;
        } else {
            double t_h = horizontal_closing_time(h0, h1, r);
            double g1 = z0 > 0.0 ? z1 - h : -z1 - h;
            double t_v = closing_time(fabs(z0) - h, g1);
            vertical = t_v > t_h;
        }
    }

    float n[3];
    double axis_length, start_separation;
    if (vertical) {
        float sign = z0 > 0.0 ? 1.0f : -1.0f;
        for (int k = 0; k < 3; ++k)
            n[k] = sign * c->up[k];
        axis_length = h;
        start_separation = fabs(z0);
    } else if (dist0 > 1e-6 * r) {
        for (int k = 0; k < 3; ++k)
            n[k] = (float)(h0[k] / dist0);
        axis_length = r;
        start_separation = dist0;
    } else {
        /* Same spot across up: a direction from the ids alone, so it is the
           same on every run and thread count. */
        uint64_t mix = ((uint64_t)ida << 32 | idb) * 0x9E3779B97F4A7C15ull;
        double angle = (double)(mix >> 11) * (6.283185307179586 / 9007199254740992.0);
        for (int k = 0; k < 3; ++k)
            n[k] = (float)(cos(angle) * c->axis1[k] + sin(angle) * c->axis2[k]);
        axis_length = r;
        start_separation = 0.0;
    }

    /* Shares of a push: by inverse mass; along up, an agent standing on
       the floor under another takes none (the floor holds it). */
    double wa = c->inverse_mass[a], wb = c->inverse_mass[b];
    /* An agent that met a wall in the last step most likely still leans on
       it, and the world would stop a push into it and leave the pair
       overlapping for the check to undo: the other agent gives way. */
    bool wall_a = c->leaning[a], wall_b = c->leaning[b];
    if (wall_a != wall_b && wa > 0.0 && wb > 0.0) {
        if (wall_a)
            wa = 0.0;
        else
            wb = 0.0;
    }
    if (vertical) {
        if (z0 > 0.0 && c->grounded[b])
            wb = 0.0;
        if (z0 < 0.0 && c->grounded[a])
            wa = 0.0;
    }
    float share_a, share_b;
    if (wa == wb && wa > 0.0) {
        share_a = share_b = 0.5f; /* what wa / (wa + wb) gives, exactly, without dividing */
    } else {
        double sum = wa + wb;
        share_a = sum > 0.0 ? (float)(wa / sum) : 0.0f;
        share_b = sum > 0.0 ? (float)(wb / sum) : 0.0f;
    }

    for (int k = 0; k < 3; ++k)
        out->n[k] = n[k];
    /* A pair that starts overlapping (placed so, or pushed in by the
       world) is asked to open by at most a fifth of the touching distance a
       step: asking for all of it at once, with dozens of such pairs on one
       spot, saturates every push and jams the clump. */
    double target = axis_length * (1.0 + c->def.agent_skin);
    if (start_separation + DEPENETRATION * axis_length < target)
        target = start_separation + DEPENETRATION * axis_length;
    out->target = (float)target;
    /* A pair apart at the start never ends closer than touching less the
       tolerance (which does not add up over steps: the bound is touching,
       not the start), and one a hair inside (float rounding) never deeper
       than it started. A pair that starts overlapping by more than
       DEEP_OVERLAP (placed so) may end up to OVERLAP_SLACK deeper: dozens of agents placed on
       one spot push each other every which way, and holding every such
       pair to its start would freeze the clump; the solver's target opens
       it step by step. */
    /* The start separation exactly as the check measures it (double, on
       the float axis), so a pair put back at its starts always passes. */
    start_separation = dot3d(d0, n);
    double touching = axis_length * (1.0 - CHECK_TOLERANCE);
    double allowed = touching;
    if (start_separation < (1.0 - DEEP_OVERLAP) * axis_length)
        allowed = start_separation - OVERLAP_SLACK * axis_length;
    else if (start_separation < touching)
        allowed = start_separation; /* slightly inside: no deeper, not even by a rounding */
    /* Stored as float rounded down, never above the double value. */
    float allowed_f = (float)allowed;
    if ((double)allowed_f > allowed)
        allowed_f = nextafterf(allowed_f, -INFINITY);
    out->allowed = allowed_f;
    out->share_lower = share_a;
    out->share_higher = share_b;
}


/* Whether the plan already violates the pair's constraint: exactly the
   test of the solver's first sweep (crowd_relax.h), which gives the same
   answer from both sides (the offset and the axis are both negated,
   exactly), so that sweep need only visit the agents in such a pair. */
static uint32_t plan_violates(const float *q, uint32_t i, uint32_t j, const crowd_pair *p)
{
    const float *qi = q + 3 * (size_t)i, *qj = q + 3 * (size_t)j;
    float gap = (qi[0] - qj[0]) * p->n[0] + (qi[1] - qj[1]) * p->n[1] + (qi[2] - qj[2]) * p->n[2];
    return p->target - gap > 0.0f;
}

/* One near pair by the definition, and its violation by the plan. */
static void setup_alone(const skim_crowd *c, crowd_near_pair *near)
{
    crowd_contact_setup(c, near->a, near->b, &near->pair);
    near->violated = plan_violates(c->q, near->a, near->b, &near->pair);
}

typedef simde__m128d lanes;

#define ADD simde_mm_add_pd
#define SUB simde_mm_sub_pd
#define MUL simde_mm_mul_pd
#define DIV simde_mm_div_pd

/* A per-agent float of agents i (lane 0) and j (lane 1), in double. */
static inline lanes two_of(const float *field, uint32_t i, uint32_t j)
{
    return simde_mm_set_pd((double)field[j], (double)field[i]);
}

/* The third coordinates of agents i (lane 0) and j (lane 1), in double. */
static inline lanes two_z(const float *position, uint32_t i, uint32_t j)
{
    return simde_mm_set_pd((double)position[3 * (size_t)j + 2], (double)position[3 * (size_t)i + 2]);
}

/* Agent a's position minus b's, in double: x and y, then z. */
static inline lanes offset_xy(const float *start, uint32_t a, uint32_t b)
{
    const float *pa = start + 3 * (size_t)a, *pb = start + 3 * (size_t)b;
    const lanes xa = simde_mm_cvtps_pd(simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)pa)));
    const lanes xb = simde_mm_cvtps_pd(simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)pb)));
    return SUB(xa, xb);
}

/* One lane's floats into its record: n and the target in one store. */
static_assert(offsetof(crowd_pair, target) == 3 * sizeof(float), "the target follows n");
static_assert(offsetof(crowd_pair, share_higher) == offsetof(crowd_pair, allowed) + 2 * sizeof(float),
              "allowed, then the shares");
static inline void store_pair(simde__m128 n_target, simde__m128 allowed_shares, crowd_pair *out)
{
    simde_mm_storeu_ps((float *)(void *)out, n_target);
    simde_mm_storel_pi((simde__m64 *)&out->allowed, allowed_shares);
    simde_mm_store_ss(&out->share_higher, simde_mm_movehl_ps(allowed_shares, allowed_shares));
}

/* What every pair reads, read once: the loop stores floats, which the
   compiler cannot tell apart from the crowd's. */
typedef struct setup_inputs {
    const float *start, *radius, *height, *inverse_mass, *q;
    const uint8_t *leaning;
    lanes up[3], skin_target;
} setup_inputs;

/* In float, agent a0's position minus b0's, x and y, then a1's minus
   b1's. */
static inline simde__m128 float_offsets_xy(const float *position, uint32_t a0, uint32_t b0, uint32_t a1, uint32_t b1)
{
    const float *pa0 = position + 3 * (size_t)a0, *pb0 = position + 3 * (size_t)b0;
    const float *pa1 = position + 3 * (size_t)a1, *pb1 = position + 3 * (size_t)b1;
    const simde__m128 d0 = simde_mm_sub_ps(simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)pa0)),
                                           simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)pb0)));
    const simde__m128 d1 = simde_mm_sub_ps(simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)pa1)),
                                           simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)pb1)));
    return simde_mm_movelh_ps(d0, d1);
}

/* The records of the pairs near[0] (lane 0) and near[1] (lane 1) where
   they are apart across up alone, as crowd_contact_setup writes them, and
   their violations by the plan; which lanes those are (bit 0, bit 1). The
   others' records are left to it. */
static int setup_two_across(const setup_inputs *in, crowd_near_pair *near)
{
    const uint32_t a0 = near[0].a, b0 = near[0].b, a1 = near[1].a, b1 = near[1].b;
    const lanes zero = simde_mm_setzero_pd();
    const lanes off0 = offset_xy(in->start, a0, b0), off1 = offset_xy(in->start, a1, b1);
    const lanes dx = simde_mm_unpacklo_pd(off0, off1), dy = simde_mm_unpackhi_pd(off0, off1);
    const lanes dz = SUB(two_z(in->start, a0, a1), two_z(in->start, b0, b1));
    const lanes upx = in->up[0], upy = in->up[1], upz = in->up[2];
    const lanes z0 = ADD(ADD(MUL(dx, upx), MUL(dy, upy)), MUL(dz, upz));
    const lanes hx = SUB(dx, MUL(z0, upx)), hy = SUB(dy, MUL(z0, upy)), hz = SUB(dz, MUL(z0, upz));
    const lanes dist0 = simde_mm_sqrt_pd(ADD(ADD(MUL(hx, hx), MUL(hy, hy)), MUL(hz, hz)));
    const lanes r = ADD(two_of(in->radius, a0, a1), two_of(in->radius, b0, b1));
    const lanes h = ADD(two_of(in->height, a0, a1), two_of(in->height, b0, b1));
    const lanes abs_z0 = simde_mm_andnot_pd(simde_mm_set1_pd(-0.0), z0);
    /* Apart across up, not along it, and not on one spot. */
    lanes across = simde_mm_and_pd(simde_mm_cmpge_pd(dist0, r), simde_mm_cmpnge_pd(abs_z0, h));
    across = simde_mm_and_pd(across, simde_mm_cmpgt_pd(dist0, MUL(simde_mm_set1_pd(1e-6), r)));

    const simde__m128 nx = simde_mm_cvtpd_ps(DIV(hx, dist0)), ny = simde_mm_cvtpd_ps(DIV(hy, dist0));
    const simde__m128 nz = simde_mm_cvtpd_ps(DIV(hz, dist0));

    /* Shares: by inverse mass, the agent leaning on a wall giving none to
       one that is not. */
    lanes wa = two_of(in->inverse_mass, a0, a1), wb = two_of(in->inverse_mass, b0, b1);
    const lanes wall_a = simde_mm_cmpneq_pd(simde_mm_set_pd(in->leaning[a1], in->leaning[a0]), zero);
    const lanes wall_b = simde_mm_cmpneq_pd(simde_mm_set_pd(in->leaning[b1], in->leaning[b0]), zero);
    const lanes one_leans = simde_mm_and_pd(simde_mm_xor_pd(wall_a, wall_b),
                                            simde_mm_and_pd(simde_mm_cmpgt_pd(wa, zero), simde_mm_cmpgt_pd(wb, zero)));
    wa = simde_mm_andnot_pd(simde_mm_and_pd(one_leans, wall_a), wa);
    wb = simde_mm_andnot_pd(simde_mm_andnot_pd(wall_a, one_leans), wb);
    /* Equal positive masses need not be told apart: w / (w + w) is 0.5
       exactly, the half the definition gives them without dividing. */
    const lanes sum = ADD(wa, wb), some = simde_mm_cmpgt_pd(sum, zero);
    const simde__m128 share_a = simde_mm_cvtpd_ps(simde_mm_and_pd(some, DIV(wa, sum)));
    const simde__m128 share_b = simde_mm_cvtpd_ps(simde_mm_and_pd(some, DIV(wb, sum)));

    /* The target: touching plus the skin, or for a pair that starts
       closer, a fifth of the touching distance further than it starts. */
    const lanes opened = ADD(dist0, MUL(simde_mm_set1_pd(DEPENETRATION), r));
    const simde__m128 target = simde_mm_cvtpd_ps(simde_mm_min_pd(opened, MUL(r, in->skin_target)));

    /* The bound: touching less the tolerance, for a pair that starts
       no closer, measured along the float axis (which is all of them apart
       across up but for a rounding; the others are left to the
       definition). Rounded down to float: where rounding went up, the
       next float below, which for a positive float is its bits less one
       (the bound is never negative, and a zero does not round up). */
    const lanes start_separation = ADD(ADD(MUL(dx, simde_mm_cvtps_pd(nx)), MUL(dy, simde_mm_cvtps_pd(ny))),
                                       MUL(dz, simde_mm_cvtps_pd(nz)));
    const lanes touching = MUL(r, simde_mm_set1_pd(1.0 - CHECK_TOLERANCE));
    across = simde_mm_and_pd(across, simde_mm_cmpge_pd(start_separation, touching));
    const simde__m128 allowed_near = simde_mm_cvtpd_ps(touching);
    const lanes went_up_wide = simde_mm_cmpgt_pd(simde_mm_cvtps_pd(allowed_near), touching);
    const simde__m128i went_up =
        simde_mm_shuffle_epi32(simde_mm_castpd_si128(went_up_wide), SIMDE_MM_SHUFFLE(3, 3, 2, 0));
    const simde__m128 allowed_f =
        simde_mm_castsi128_ps(simde_mm_add_epi32(simde_mm_castps_si128(allowed_near), went_up));

    /* Lane k's floats to record k. */
    const simde__m128 n_xy = simde_mm_unpacklo_ps(nx, ny), z_target = simde_mm_unpacklo_ps(nz, target);
    const simde__m128 allowed_share = simde_mm_unpacklo_ps(allowed_f, share_a);
    const simde__m128 share_other = simde_mm_unpacklo_ps(share_b, share_b);
    store_pair(simde_mm_movelh_ps(n_xy, z_target), simde_mm_movelh_ps(allowed_share, share_other), &near[0].pair);
    store_pair(simde_mm_movehl_ps(z_target, n_xy), simde_mm_movehl_ps(share_other, allowed_share), &near[1].pair);

    /* The plan's violation, plan_violates in float lanes: x and y of both
       lanes side by side, then z. */
    const simde__m128 q_xy = float_offsets_xy(in->q, a0, b0, a1, b1);
    const simde__m128 n_along_xy = simde_mm_movelh_ps(nx, ny);
    const simde__m128 q_x_then_y = simde_mm_shuffle_ps(q_xy, q_xy, SIMDE_MM_SHUFFLE(3, 1, 2, 0));
    const simde__m128 products = simde_mm_mul_ps(q_x_then_y, n_along_xy);
    const float *q = in->q;
    const simde__m128 q_z = simde_mm_sub_ps(
        simde_mm_unpacklo_ps(simde_mm_load_ss(q + 3 * (size_t)a0 + 2), simde_mm_load_ss(q + 3 * (size_t)a1 + 2)),
        simde_mm_unpacklo_ps(simde_mm_load_ss(q + 3 * (size_t)b0 + 2), simde_mm_load_ss(q + 3 * (size_t)b1 + 2)));
    const simde__m128 gap = simde_mm_add_ps(simde_mm_add_ps(products, simde_mm_movehl_ps(products, products)),
                                            simde_mm_mul_ps(q_z, nz));
    const int violated = simde_mm_movemask_ps(simde_mm_cmpgt_ps(simde_mm_sub_ps(target, gap), simde_mm_setzero_ps()));
    near[0].violated = (uint32_t)violated & 1;
    near[1].violated = (uint32_t)violated >> 1 & 1;
    return simde_mm_movemask_pd(across);
}

void crowd_contact_setup_near(const skim_crowd *c, crowd_near_pair *near, size_t count)
{
    setup_inputs in = { .start = c->start, .radius = c->radius, .height = c->height,
                        .inverse_mass = c->inverse_mass, .q = c->q, .leaning = c->leaning,
                        .skin_target = simde_mm_set1_pd(1.0 + c->def.agent_skin) };
    for (int k = 0; k < 3; ++k)
        in.up[k] = simde_mm_set1_pd(c->up[k]);
    size_t k = 0;
    for (; k + 1 < count; k += 2) {
        const int across = setup_two_across(&in, near + k);
        for (size_t lane = k; lane < k + 2; ++lane)
            if (!(across >> (lane - k) & 1))
                setup_alone(c, &near[lane]);
    }
    if (k < count)
        setup_alone(c, &near[k]);
}
