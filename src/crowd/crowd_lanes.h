/* Per-agent floats of four agents in the four lanes of an SSE2 register,
   for the loops that test four agents or pairs at a time (crowd_grid.c,
   crowd_contacts.c, crowd_check.c). */
#ifndef SKIM_CROWD_LANES_H
#define SKIM_CROWD_LANES_H

#include <stddef.h>
#include <stdint.h>
#include <simde/x86/sse2.h>

/* field[stride * j[k]] in lane k. */
static inline simde__m128 crowd_four_of(const float *field, size_t stride, const uint32_t *j)
{
    return simde_mm_movelh_ps(
        simde_mm_unpacklo_ps(simde_mm_load_ss(field + stride * j[0]), simde_mm_load_ss(field + stride * j[1])),
        simde_mm_unpacklo_ps(simde_mm_load_ss(field + stride * j[2]), simde_mm_load_ss(field + stride * j[3])));
}

/* Four rows of four floats as columns: lane k of column c is row k's
   element c. */
static inline void crowd_rows_to_columns(simde__m128 r0, simde__m128 r1, simde__m128 r2, simde__m128 r3,
                                         simde__m128 column[4])
{
    const simde__m128 lo01 = simde_mm_unpacklo_ps(r0, r1), lo23 = simde_mm_unpacklo_ps(r2, r3);
    const simde__m128 hi01 = simde_mm_unpackhi_ps(r0, r1), hi23 = simde_mm_unpackhi_ps(r2, r3);
    column[0] = simde_mm_movelh_ps(lo01, lo23);
    column[1] = simde_mm_movehl_ps(lo23, lo01);
    column[2] = simde_mm_movelh_ps(hi01, hi23);
    column[3] = simde_mm_movehl_ps(hi23, hi01);
}

/* Three floats of each of four agents in a row, (x0 y0 z0 x1) (y1 z1 x2
   y2) (z2 x3 y3 z3), as columns: the first two, or the third alone. */
static inline void crowd_columns_xy(const float *p, simde__m128 *x, simde__m128 *y)
{
    const simde__m128 v0 = simde_mm_loadu_ps(p), v1 = simde_mm_loadu_ps(p + 4), v2 = simde_mm_loadu_ps(p + 8);
    const simde__m128 x23 = simde_mm_shuffle_ps(v1, v2, SIMDE_MM_SHUFFLE(1, 1, 2, 2));
    *x = simde_mm_shuffle_ps(v0, x23, SIMDE_MM_SHUFFLE(2, 0, 3, 0));
    const simde__m128 y01 = simde_mm_shuffle_ps(v0, v1, SIMDE_MM_SHUFFLE(0, 0, 1, 1));
    const simde__m128 y23 = simde_mm_shuffle_ps(v1, v2, SIMDE_MM_SHUFFLE(2, 2, 3, 3));
    *y = simde_mm_shuffle_ps(y01, y23, SIMDE_MM_SHUFFLE(2, 0, 2, 0));
}

static inline simde__m128 crowd_column_z(const float *p)
{
    const simde__m128 v0 = simde_mm_loadu_ps(p), v1 = simde_mm_loadu_ps(p + 4), v2 = simde_mm_loadu_ps(p + 8);
    const simde__m128 z01 = simde_mm_shuffle_ps(v0, v1, SIMDE_MM_SHUFFLE(1, 1, 2, 2));
    return simde_mm_shuffle_ps(z01, v2, SIMDE_MM_SHUFFLE(3, 0, 2, 0));
}

#endif
