/* The constraint of each near pair of agents (why a linear constraint
   along the axis that separated the pair at the start: crowd_solver.c). */
#include "crowd/crowd_internal.h"

#include <math.h>

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
