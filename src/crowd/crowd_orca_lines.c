/* The ORCA half-plane of each of an agent's neighbours (van den Berg, Guy,
   Lin, Manocha, "Reciprocal n-Body Collision Avoidance", 2011, section 4):
   the velocities the agent may take to stay clear of that neighbour for the
   horizon, moved by its share of the smallest change u that leaves the
   truncated velocity obstacle.

   crowd_orca_line is the one-neighbour definition. crowd_orca_lines
   computes the same lines for two neighbours at once, a lane each: every
   lane performs the same IEEE operations in the same order (the build
   contracts no multiply-add), and the three choices of the definition
   (touching or apart, the cut-off disc or a leg, which leg) become
   selects between both sides. A neighbour's line then no longer waits on
   the division and square root chains of the one before it, nor on a
   mispredicted branch, and the answer is the same bits. */
#include "crowd/crowd_orca_lines.h"

#include <math.h>
#include <simde/x86/sse2.h>

/* Passing side: two agents on a collision course pass each other on the
   right (seen from above, up toward the eye) unless the left is clearly
   nearer: the sine of the angle by which the relative velocity must point
   left of the other before the left is taken. Each agent of the pair sees
   the other's position and the relative velocity negated, so both make
   the same choice; a convention shared by everyone makes opposite streams
   settle into lanes and a symmetric crowd turn one way round instead of
   meeting head on, where plain ORCA can deadlock. */
#define PASS_RIGHT_SINE 0.6

void crowd_orca_line(const double rel_pos[2], const double rel_vel[2], const double vel[2], double combined,
                     double horizon, double dt, double share, crowd_line *out)
{
    double dist_sq = rel_pos[0] * rel_pos[0] + rel_pos[1] * rel_pos[1], combined_sq = combined * combined;
    double u[2];
    if (dist_sq > combined_sq) {
        /* Apart: the obstacle is a cone cut off by a disc at 1 / horizon. */
        double inv = 1.0 / horizon;
        double w[2] = { rel_vel[0] - inv * rel_pos[0], rel_vel[1] - inv * rel_pos[1] };
        double w_sq = w[0] * w[0] + w[1] * w[1], along = w[0] * rel_pos[0] + w[1] * rel_pos[1];
        if (along < 0.0 && along * along > combined_sq * w_sq) {
            /* Nearest the cut-off disc. */
            double w_len = sqrt(w_sq);
            double unit[2] = { w[0] / w_len, w[1] / w_len };
            out->direction[0] = unit[1];
            out->direction[1] = -unit[0];
            u[0] = (combined * inv - w_len) * unit[0];
            u[1] = (combined * inv - w_len) * unit[1];
        } else {
            /* Along a leg of the cone: the left one, or by convention the
               right one unless the left is clearly nearer. */
            double leg = sqrt(dist_sq - combined_sq);
            if (rel_pos[0] * w[1] - rel_pos[1] * w[0] > PASS_RIGHT_SINE * sqrt(dist_sq * w_sq)) {
                out->direction[0] = (rel_pos[0] * leg - rel_pos[1] * combined) / dist_sq;
                out->direction[1] = (rel_pos[0] * combined + rel_pos[1] * leg) / dist_sq;
            } else {
                out->direction[0] = -(rel_pos[0] * leg + rel_pos[1] * combined) / dist_sq;
                out->direction[1] = -(-rel_pos[0] * combined + rel_pos[1] * leg) / dist_sq;
            }
            double on = rel_vel[0] * out->direction[0] + rel_vel[1] * out->direction[1];
            u[0] = on * out->direction[0] - rel_vel[0];
            u[1] = on * out->direction[1] - rel_vel[1];
        }
    } else {
        /* Already touching: get apart within this step. */
        double inv = 1.0 / dt;
        double w[2] = { rel_vel[0] - inv * rel_pos[0], rel_vel[1] - inv * rel_pos[1] };
        double w_len = sqrt(w[0] * w[0] + w[1] * w[1]);
        double unit[2] = { 1.0, 0.0 };
        if (w_len > 0.0) {
            unit[0] = w[0] / w_len;
            unit[1] = w[1] / w_len;
        }
        out->direction[0] = unit[1];
        out->direction[1] = -unit[0];
        u[0] = (combined * inv - w_len) * unit[0];
        u[1] = (combined * inv - w_len) * unit[1];
    }
    out->point[0] = vel[0] + share * u[0];
    out->point[1] = vel[1] + share * u[1];
}

typedef simde__m128d lanes;

/* a where mask is set, else b. */
static inline lanes pick(lanes mask, lanes a, lanes b)
{
    return simde_mm_or_pd(simde_mm_and_pd(mask, a), simde_mm_andnot_pd(mask, b));
}

static inline lanes negate(lanes a)
{
    return simde_mm_xor_pd(a, simde_mm_set1_pd(-0.0));
}

#define ADD simde_mm_add_pd
#define SUB simde_mm_sub_pd
#define MUL simde_mm_mul_pd
#define DIV simde_mm_div_pd

/* Columns k and k + 1 of a row; only k when it is the last. */
static inline lanes pair_of(const double *row, uint32_t k, bool single)
{
    return single ? simde_mm_load_sd(row + k) : simde_mm_loadu_pd(row + k);
}

/* The lines of neighbours k and k + 1, each lane as crowd_orca_line
   computes it. Where the definition divides or takes a square root on one
   side of a choice only, the lanes divide or take the root of the operand
   of the side they take, one operation for both sides. */
static void pair_lines(const crowd_orca_input *in, uint32_t k, bool single, const double vel[2], lanes inv_horizon,
                       lanes inv_dt, crowd_line *out)
{
    const lanes zero = simde_mm_setzero_pd();
    const lanes rpx = pair_of(in->rel_pos_x, k, single), rpy = pair_of(in->rel_pos_y, k, single);
    const lanes rvx = pair_of(in->rel_vel_x, k, single), rvy = pair_of(in->rel_vel_y, k, single);
    const lanes combined = pair_of(in->combined, k, single), share = pair_of(in->share, k, single);

    const lanes dist_sq = ADD(MUL(rpx, rpx), MUL(rpy, rpy)), combined_sq = MUL(combined, combined);
    const lanes apart = simde_mm_cmpgt_pd(dist_sq, combined_sq);
    const lanes inv = pick(apart, inv_horizon, inv_dt);
    const lanes wx = SUB(rvx, MUL(inv, rpx)), wy = SUB(rvy, MUL(inv, rpy));
    const lanes w_sq = ADD(MUL(wx, wx), MUL(wy, wy)), along = ADD(MUL(wx, rpx), MUL(wy, rpy));
    /* Touching, or apart and nearest the cut-off disc: the line is across w. */
    const lanes disc = simde_mm_and_pd(simde_mm_cmplt_pd(along, zero),
                                       simde_mm_cmpgt_pd(MUL(along, along), MUL(combined_sq, w_sq)));
    const lanes across_w = simde_mm_or_pd(simde_mm_cmpngt_pd(dist_sq, combined_sq), disc);
    const lanes w_len_or_leg = simde_mm_sqrt_pd(pick(across_w, w_sq, SUB(dist_sq, combined_sq)));

    /* Along a leg: which one, and its direction's numerators over dist_sq. */
    const lanes left = simde_mm_cmpgt_pd(SUB(MUL(rpx, wy), MUL(rpy, wx)),
                                         MUL(simde_mm_set1_pd(PASS_RIGHT_SINE), simde_mm_sqrt_pd(MUL(dist_sq, w_sq))));
    const lanes leg = w_len_or_leg;
    const lanes leg_x = pick(left, SUB(MUL(rpx, leg), MUL(rpy, combined)), negate(ADD(MUL(rpx, leg), MUL(rpy, combined))));
    const lanes leg_y = pick(left, ADD(MUL(rpx, combined), MUL(rpy, leg)),
                             negate(ADD(MUL(negate(rpx), combined), MUL(rpy, leg))));

    /* One division each for w's unit and the leg's direction. */
    const lanes qx = DIV(pick(across_w, wx, leg_x), pick(across_w, w_len_or_leg, dist_sq));
    const lanes qy = DIV(pick(across_w, wy, leg_y), pick(across_w, w_len_or_leg, dist_sq));

    /* Across w: a touching pair with no w takes the unit (1, 0). */
    const lanes has_unit = simde_mm_or_pd(apart, simde_mm_cmpgt_pd(w_len_or_leg, zero));
    const lanes ux = pick(has_unit, qx, simde_mm_set1_pd(1.0)), uy = pick(has_unit, qy, zero);
    const lanes scale = SUB(MUL(combined, inv), w_len_or_leg);
    /* Along the leg: u is the relative velocity's way to the leg. */
    const lanes on = ADD(MUL(rvx, qx), MUL(rvy, qy));

    const lanes dir_x = pick(across_w, uy, qx), dir_y = pick(across_w, negate(ux), qy);
    const lanes u_x = pick(across_w, MUL(scale, ux), SUB(MUL(on, qx), rvx));
    const lanes u_y = pick(across_w, MUL(scale, uy), SUB(MUL(on, qy), rvy));
    const lanes point_x = ADD(simde_mm_set1_pd(vel[0]), MUL(share, u_x));
    const lanes point_y = ADD(simde_mm_set1_pd(vel[1]), MUL(share, u_y));

    simde_mm_storeu_pd(out[k].point, simde_mm_unpacklo_pd(point_x, point_y));
    simde_mm_storeu_pd(out[k].direction, simde_mm_unpacklo_pd(dir_x, dir_y));
    if (!single) {
        simde_mm_storeu_pd(out[k + 1].point, simde_mm_unpackhi_pd(point_x, point_y));
        simde_mm_storeu_pd(out[k + 1].direction, simde_mm_unpackhi_pd(dir_x, dir_y));
    }
}

void crowd_orca_lines(const crowd_orca_input *in, uint32_t count, const double vel[2], double horizon, double dt,
                      crowd_line *out)
{
    const lanes inv_horizon = simde_mm_set1_pd(1.0 / horizon), inv_dt = simde_mm_set1_pd(1.0 / dt);
    for (uint32_t k = 0; k < count; k += 2)
        pair_lines(in, k, k + 1 == count, vel, inv_horizon, inv_dt, out);
}
