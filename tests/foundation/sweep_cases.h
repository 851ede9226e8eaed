/* The sweep property suite's cases: a small deterministic generator and
   the families of random and adversarial sweeps of an ellipsoid against
   one triangle (test_sweep_property.c checks them against the oracle). */
#ifndef SKIM_TEST_SWEEP_CASES_H
#define SKIM_TEST_SWEEP_CASES_H

#include "oracle.h"

#include <stdint.h>

typedef struct rng { uint64_t state; } rng;

/* One case: a shape sweeping from start by delta against a triangle. */
typedef struct sweep_case {
    skim_ellipsoid shape;
    float tri[3][3];
    skim_vec3 start, delta;
} sweep_case;

typedef void (*case_maker)(rng *r, sweep_case *sc);

double dot3d(const double a[3], const double b[3]);

/* The families; each draws one case from the generator. */
void make_random(rng *r, sweep_case *sc);
void make_sliver(rng *r, sweep_case *sc);
void make_near_miss(rng *r, sweep_case *sc);
void make_grazing_hit(rng *r, sweep_case *sc);
void make_start_touching(rng *r, sweep_case *sc);
void make_parallel(rng *r, sweep_case *sc);
void make_big_triangle(rng *r, sweep_case *sc);
void make_zero_motion(rng *r, sweep_case *sc);

#endif
