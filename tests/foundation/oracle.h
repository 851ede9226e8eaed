/* An independent double-precision oracle for swept ellipsoids, written for
   the tests only: it shares no code with the library. The swept shape is
   taken to unit-sphere space (Rouwé 4) in double, and the first contact is
   the first t at which the distance from the centre to the triangle reaches
   1, found by minimising the (convex) distance along the path and bisecting
   before the minimum. */
#ifndef SKIM_TEST_ORACLE_H
#define SKIM_TEST_ORACLE_H

#include <skim/skim.h>

typedef struct oracle_case {
    double tri[3][3];        /* triangle, unit-sphere space, relative to start */
    double delta[3];         /* displacement, unit-sphere space */
    double to_world[3][3];   /* M: unit space -> world offsets */
    double normal_to_world[3][3]; /* M^-T */
    double scale;            /* L = max(1, |delta|, max |vertex|): magnitude the kernel works at */
} oracle_case;

/* Builds the unit-space case from world-space float inputs (in double). */
void oracle_prepare(oracle_case *c, const skim_ellipsoid *shape, const float (*world_tri)[3],
                    skim_vec3 start, skim_vec3 delta);

/* Distance from the centre at t to the triangle, and the closest point. */
double oracle_distance(const oracle_case *c, double t, double closest[3]);
/* Minimum distance over t in [0, 1] and where it is reached. */
double oracle_min_distance(const oracle_case *c, double *t_at_min);
/* First t in [0, 1] at which the distance reaches `level` (<= level at t);
   returns -1 if it never does. */
double oracle_first_reach(const oracle_case *c, double level);

/* Unit-space position of a world point relative to the start. */
void oracle_world_to_unit(const skim_ellipsoid *shape, skim_vec3 start, skim_vec3 world,
                          double unit[3]);

#endif
