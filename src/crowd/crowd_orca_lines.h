/* The ORCA half-planes of an agent's neighbours (crowd_orca_lines.c). */
#ifndef SKIM_CROWD_ORCA_LINES_H
#define SKIM_CROWD_ORCA_LINES_H

#include "crowd/crowd_internal.h"

/* An agent's neighbours in lanes, rounded up to whole pairs. */
#define CROWD_ORCA_LANES ((CROWD_AVOID_NEIGHBOURS + 1) & ~1)

typedef struct crowd_line {
    double point[2], direction[2]; /* allowed: left of direction through point */
} crowd_line;

/* What one agent knows of each neighbour k, a column per quantity. */
typedef struct crowd_orca_input {
    double rel_pos_x[CROWD_ORCA_LANES], rel_pos_y[CROWD_ORCA_LANES]; /* the neighbour's center minus the agent's, units */
    double rel_vel_x[CROWD_ORCA_LANES], rel_vel_y[CROWD_ORCA_LANES]; /* the agent's velocity minus the neighbour's, units/s */
    double combined[CROWD_ORCA_LANES]; /* distance to keep between centers, units, > 0 */
    double share[CROWD_ORCA_LANES];    /* the agent's share of the change, [0, 1] */
} crowd_orca_input;

/* The half-plane of velocities an agent with velocity vel may take to stay
   clear of one neighbour for horizon seconds (touching ones: within dt),
   with its share of the change: one neighbour at a time. */
void crowd_orca_line(const double rel_pos[2], const double rel_vel[2], const double vel[2], double combined,
                     double horizon, double dt, double share, crowd_line *out);
/* The same half-planes, the same bits, for neighbours [0, count) at once. */
void crowd_orca_lines(const crowd_orca_input *in, uint32_t count, const double vel[2], double horizon, double dt,
                      crowd_line *out);

#endif
