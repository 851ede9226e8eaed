/* The parts of the fuzz_sweep_move target share this: the scene a fuzz
   input decodes to, the switches for known findings, and what each part
   gives the others.
     fuzz_sweep_move.c        the entry point: the input's layout, the
                              queries on both worlds (BVH and brute force)
                              and the comparisons between their answers;
     fuzz_sweep_move_input.c  decoding the input (shapes, vectors, the move
                              def), building the worlds, printing a scene;
     fuzz_sweep_move_check.c  the checks of one answer in double precision
                              and their tolerance;
     fuzz_sweep_move_contacts.c  the contacts of each move and of the batch. */
#ifndef SKIM_FUZZ_SWEEP_MOVE_H
#define SKIM_FUZZ_SWEEP_MOVE_H

#include "fuzz_common.h"

#define MAX_TRIANGLES 16

/* Switches for known findings (docs/hardening.md): 1 keeps a finding's
   inputs out of the checks so the fuzzer looks for other faults, 0 checks
   them. Each names its regression test in tests/hardening/test_limits_*.c.

   a_touching_start_counts_within_max_iterations: the push-out sweep was
   counted on top of max_iterations (1 allowed one extra). Fixed (a761e41). */
#define ITERATIONS_SLACK 0
/* an_elongated_slide_never_goes_farther_than_asked: the slide
   projected in unit space lengthened moves in the world by up to
   r_max / r_min (a needle asked to move 190 units went 3800). 1 checks
   only the move's own gather box; 0 also checks the world-space bound
   users expect. Fixed (a761e41: each slide clamped to what is left). */
#define SLIDE_BOUND_IN_UNIT_SPACE 0
/* a_zero_skin_keeps_a_touching_mover_out_of_the_wall and
   a_small_skin_keeps_an_elongated_mover_out_of_a_touched_triangle: skins below
   the kernel's rounding let a touched triangle be passed through. 1 draws
   no zero skin and skips the no-overlap check for skins below EPS. Both
   regression tests pass since a761e41. */
#define AVOID_ZERO_SKIN 0
#define SKIN_BELOW_ROUNDING_KNOWN 0
/* coordinates_beyond_the_limit_are_refused: worlds with a
   vertex beyond 1e18 gave NaN normals and missed overlaps. Fixed
   (7e91ace: SKIM_COORDINATE_MAX). */
#define HUGE_VERTICES_KNOWN 0
/* radii_below_the_minimum_are_refused and neighbours: radii far
   from the world's scale gave wrong or NaN answers. Fixed (af6e38b: radii
   in [1e-6, 1e9], ratio <= 1e3, a sweep <= 1e6 radii, else an error). */
#define RADIUS_RANGE_KNOWN 0
/* gravity_beyond_the_coordinate_limit_is_refused: gravity, step and snap were only
   required finite. Fixed (a761e41: bounded to 1e18). */
#define HUGE_DEF_KNOWN 0
/* a_huge_triangle_gives_a_finite_normal: a triangle reaching more than ~1e9
   radii from the start gives NaN normals even in a world skim_world_create
   built (the kernel's products overflow in unit space). Since 252fb14 such
   a sweep is refused (INVALID_ARGUMENT, which the wild mode accepts), so
   0: answers given with SKIM_OK are checked. */
#define FAR_TRIANGLES_KNOWN 0

/* Below this EPS (radii) the BVH and brute force must agree bit for bit;
   see check_sweep. Finding bvh_and_brute_force_agree_far_from_the_start
   is fixed (brute force applies the leaves' box test per triangle,
   2a9a037), so the identity is now required everywhere. */
#define BVH_EXACT_BELOW INFINITY

typedef struct scene {
    bool     wild, cull, masked, rotated, rich_def;
    double   scale;
    uint32_t triangle_count;
    float    positions[MAX_TRIANGLES * 9];
    uint16_t materials[MAX_TRIANGLES];
    bool     degenerate[MAX_TRIANGLES];
    bool     huge_vertices; /* some |coordinate| > 1e18 */
    skim_query query;
    skim_move_def def;
    float    friction[4];
    skim_world *bvh, *brute;
} scene;

/* ---- fuzz_sweep_move_input.c ---- */
void print_scene(const scene *s);
void print_query(const char *op, const skim_ellipsoid *e, skim_vec3 p, skim_vec3 d);
bool float_degenerate(const float *a, const float *b, const float *c);
float coordinate(fuzz_reader *r, const scene *s, double lo, double hi);
skim_ellipsoid read_shape(fuzz_reader *r, const scene *s);
skim_vec3 read_vec(fuzz_reader *r, const scene *s, double lo, double hi);
void read_def(fuzz_reader *r, scene *s);
bool build_worlds(scene *s);

/* ---- fuzz_sweep_move_check.c ---- */
void print_stats(void);
double tolerance_of(const scene *s, const dspace *space, const dvec3 *origins, int count,
                    double path_unit);
void check_sweep_hit(const scene *s, const skim_ellipsoid *shape, skim_vec3 start, skim_vec3 delta,
                     skim_hit hit);
/* ---- fuzz_sweep_move_queries.c: rays, overlaps, closest points, floors ---- */
void check_queries(const scene *s, const skim_ellipsoid *shape, skim_vec3 start, skim_vec3 delta);
void check_move_result(const scene *s, const skim_ellipsoid *shape, skim_vec3 position,
                       skim_vec3 displacement, const skim_move_result *out);
/* ---- fuzz_sweep_move_contacts.c: the contacts of a move ---- */
#define MOVE_CONTACTS 64 /* contacts kept per move */
/* skim_move_contacts against what skim_move gave (moved_status, moved);
   fills contacts (MOVE_CONTACTS) and *count for the batch's check. */
void check_move_contacts(const scene *s, const skim_ellipsoid *shape, skim_vec3 position,
                         skim_vec3 displacement, skim_status moved_status, const skim_move_result *moved,
                         skim_contact *contacts, uint32_t *count);
/* skim_move_batch_contacts against skim_move_batch's status and the single calls' answers. */
void check_batch_contacts(const scene *s, size_t moves, const skim_ellipsoid *shapes,
                          const skim_vec3 *positions, const skim_vec3 *displacements,
                          skim_status expected, const skim_move_result *results,
                          const skim_contact *contacts, const uint32_t *counts);

#endif
