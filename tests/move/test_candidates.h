/* Candidate lanes from triangles given in double, for the move suites that
   call the move's internal tests directly (test_move_touching.c,
   test_move_sweep_clear.c). */
#ifndef SKIM_TEST_CANDIDATES_H
#define SKIM_TEST_CANDIDATES_H

#include "move/move_internal.h"

#include <criterion/criterion.h>

/* Lanes [0, count) of c: triangle t[lane] (corners x, y, z in a row)
   less shift, numbered from 1000, material 0, the packet padded. */
static inline void fill_candidates(skim_candidates *c, const double (*t)[9], uint32_t count, const float shift[3])
{
    cr_assert_eq(skim_candidates_reserve(c, count + SKIM_MAX_PACKET_WIDTH), SKIM_OK);
    c->count = count;
    for (uint32_t lane = 0; lane < count; ++lane) {
        for (int corner = 0; corner < 3; ++corner)
            for (int k = 0; k < 3; ++k)
                c->vertex[corner][k][lane] = (float)t[lane][3 * corner + k] - shift[k];
        c->triangle[lane] = 1000 + lane;
        c->material[lane] = 0;
    }
    skim_candidates_pad(c);
}

#endif
