/* The ORCA half-planes of several neighbours at once are, bit for bit, the
   half-planes of each neighbour alone: on random neighbours apart (nearest
   the cut-off disc, along the left leg, along the right leg), touching,
   at the very touching distance, with no relative velocity, and on the
   agent's own center, mixed in every batch of one to ten neighbours. */
#include "crowd/crowd_orca_lines.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

TestSuite(crowd_orca_lines, .timeout = 60);

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static double uniform(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * (double)(next_random(state) >> 11) * 0x1p-53;
}

enum kind { APART_DISC, APART_LEFT, APART_RIGHT, TOUCHING, TOUCHING_NO_W, KINDS };

/* Which case of the definition a neighbour falls in, worked out apart from it. */
static enum kind kind_of(const crowd_orca_input *in, uint32_t k, double horizon, double dt)
{
    double px = in->rel_pos_x[k], py = in->rel_pos_y[k], r = in->combined[k];
    double dist_sq = px * px + py * py;
    double inv = dist_sq > r * r ? 1.0 / horizon : 1.0 / dt;
    double wx = in->rel_vel_x[k] - inv * px, wy = in->rel_vel_y[k] - inv * py;
    double w_sq = wx * wx + wy * wy, along = wx * px + wy * py;
    if (!(dist_sq > r * r))
        return w_sq > 0.0 ? TOUCHING : TOUCHING_NO_W;
    if (along < 0.0 && along * along > r * r * w_sq)
        return APART_DISC;
    return px * wy - py * wx > 0.6 * sqrt(dist_sq * w_sq) ? APART_LEFT : APART_RIGHT;
}

/* Neighbour k drawn from one of the cases, the rarer ones on purpose. */
static void draw_neighbour(uint64_t *state, crowd_orca_input *in, uint32_t k)
{
    double combined = uniform(state, 0.5, 3.0), angle = uniform(state, 0.0, 6.283185307179586);
    double dist = combined * uniform(state, 1.01, 8.0);
    double vx = uniform(state, -6.0, 6.0), vy = uniform(state, -6.0, 6.0);
    bool exact = false;
    switch (next_random(state) % 6) {
    case 0: /* touching: inside the distance to keep */
        dist = combined * uniform(state, 0.0, 0.999);
        break;
    case 1: /* at the very distance to keep, (3, 4) away */
        combined = 5.0;
        exact = true;
        break;
    case 2: /* no relative velocity */
        vx = vy = 0.0;
        break;
    case 3: /* on the agent's own center */
        dist = 0.0;
        if (next_random(state) & 1)
            vx = vy = 0.0;
        break;
    default: /* apart, moving at random */
        break;
    }
    in->rel_pos_x[k] = exact ? 3.0 : dist * cos(angle);
    in->rel_pos_y[k] = exact ? 4.0 : dist * sin(angle);
    in->rel_vel_x[k] = vx;
    in->rel_vel_y[k] = vy;
    in->combined[k] = combined;
    in->share[k] = next_random(state) & 1 ? 0.5 : uniform(state, 0.0, 1.0);
}

Test(crowd_orca_lines, neighbours_at_once_give_each_ones_line_bit_for_bit)
{
    uint64_t state = 0x5eed0f0cafull;
    uint32_t seen[KINDS] = { 0 };
    const double horizon = 2.0, dt = 1.0 / 60.0;
    for (int batch = 0; batch < 20000; ++batch) {
        crowd_orca_input in;
        memset(&in, 0, sizeof in);
        const uint32_t count = 1 + (uint32_t)(next_random(&state) % CROWD_AVOID_NEIGHBOURS);
        for (uint32_t k = 0; k < count; ++k) {
            draw_neighbour(&state, &in, k);
            seen[kind_of(&in, k, horizon, dt)]++;
        }
        const double vel[2] = { uniform(&state, -5.0, 5.0), uniform(&state, -5.0, 5.0) };
        crowd_line at_once[CROWD_ORCA_LANES + 1];
        memset(at_once, 0xa5, sizeof at_once);
        crowd_orca_lines(&in, count, vel, horizon, dt, at_once);
        for (uint32_t k = 0; k < count; ++k) {
            const double rel_pos[2] = { in.rel_pos_x[k], in.rel_pos_y[k] };
            const double rel_vel[2] = { in.rel_vel_x[k], in.rel_vel_y[k] };
            crowd_line alone;
            crowd_orca_line(rel_pos, rel_vel, vel, in.combined[k], horizon, dt, in.share[k], &alone);
            cr_assert(memcmp(&alone, &at_once[k], sizeof alone) == 0,
                      "batch %d, neighbour %u of %u (case %d): (%a %a | %a %a) alone, (%a %a | %a %a) at once", batch,
                      k, count, (int)kind_of(&in, k, horizon, dt), alone.point[0], alone.point[1],
                      alone.direction[0], alone.direction[1], at_once[k].point[0], at_once[k].point[1],
                      at_once[k].direction[0], at_once[k].direction[1]);
        }
        /* Only the lines asked for are written. */
        for (uint32_t k = count; k < CROWD_ORCA_LANES + 1; ++k) {
            const unsigned char *bytes = (const unsigned char *)&at_once[k];
            for (size_t b = 0; b < sizeof at_once[k]; ++b)
                cr_assert_eq(bytes[b], 0xa5, "line %u of %u written", k, count);
        }
    }
    for (int kind = 0; kind < KINDS; ++kind)
        cr_assert_gt(seen[kind], 100, "case %d drawn %u times only", kind, seen[kind]);
}
