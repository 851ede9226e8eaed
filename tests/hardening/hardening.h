/* Shared by the hardening suites: guarded output structs (canary bytes
   after them), a scratch directory per test, and a small valid world.

   The regression tests named after the findings of the hardening work
   (test_limits_*.c; fuzzing and the bad-input table, docs/hardening.md
   lists each with its cause and fix) each assert what the headers
   promise, so a test fails while its finding is open and guards the fix
   afterwards. Where the right answer could be either an error or a
   correct result (an input the API might choose to reject), both are
   accepted; what is never accepted is SKIM_OK with a wrong answer, a
   crash, or undefined behaviour. */
#ifndef SKIM_HARDENING_H
#define SKIM_HARDENING_H

#include <skim/skim.h>

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CANARY 0xA5
#define CANARY_BYTES 64

/* An output struct followed by canary bytes: a call that writes past the
   struct it was given changes them. The whole block starts filled with
   CANARY so a call that should write nothing can be checked too. */
#define GUARDED(type)                       \
    struct {                                \
        type value;                         \
        unsigned char canary[CANARY_BYTES]; \
    }

static inline bool canary_intact(const unsigned char *canary, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (canary[i] != CANARY)
            return false;
    return true;
}

static inline bool all_bytes(const void *p, size_t n, unsigned char value)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i)
        if (b[i] != value)
            return false;
    return true;
}

/* ---- a scratch directory, removed at the end of the test ---- */
typedef struct scratch_dir {
    char path[64];
} scratch_dir;

static inline void scratch_make(scratch_dir *d)
{
    snprintf(d->path, sizeof d->path, "/tmp/skim_hardening_XXXXXX");
    cr_assert_not_null(mkdtemp(d->path), "mkdtemp");
}

static inline void scratch_file(const scratch_dir *d, const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", d->path, name);
}

static inline void scratch_write(const scratch_dir *d, const char *name, const void *bytes, size_t n)
{
    char path[128];
    scratch_file(d, name, path, sizeof path);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "create %s", path);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

static inline void scratch_remove(scratch_dir *d)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", d->path);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", d->path);
}

/* ---- a small valid world: a 40 x 40 floor (2 triangles) and a wall ---- */
#define SMALL_VERTICES 7
#define SMALL_TRIANGLES 3
static const float small_positions[3 * SMALL_VERTICES] = {
    -20, -20, 0, 20, -20, 0, 20, 20, 0, -20, 20, 0, /* floor */
    10, -20, 0, 10, 20, 0, 10, 0, 30,               /* wall at x = 10 */
};
static const uint32_t small_indices[3 * SMALL_TRIANGLES] = { 0, 1, 2, 0, 2, 3, 4, 5, 6 };
static const uint16_t small_materials[SMALL_TRIANGLES] = { 0, 0, 1 };

static inline skim_mesh small_mesh(void)
{
    skim_mesh mesh = { small_positions, SMALL_VERTICES, small_indices, SMALL_TRIANGLES, small_materials };
    return mesh;
}

static inline skim_world *small_world(skim_accelerator accelerator)
{
    skim_mesh mesh = small_mesh();
    skim_world_def def = skim_world_def_default();
    def.accelerator = accelerator;
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    return world;
}

/* The far triangle (A, B, C): one 5.4e16 units long, in a
   world of its own (test_limits_*.c keeps the regression,
   test_far_triangles.c checks its answers in double). */
static const float finding_18_triangle[9] = { 62.643425f, 1.83670992e-40f, 0,
                                              5.43450372e+16f, 12665421.0f, -2.82893327e-37f,
                                              0, 0, 9.15785789f };

static inline skim_world *finding_18_world(void)
{
    static const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { finding_18_triangle, 3, indices, 1, NULL };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    return world;
}

/* What a move on input the API might refuse may answer: a refusal, or
   SKIM_OK with a finite end (never SKIM_OK with a NaN or infinite one). */
static inline void expect_finite_or_refused(skim_status status, const skim_move_result *out)
{
    if (status == SKIM_OK)
        cr_expect(isfinite(out->position.x) && isfinite(out->position.y) && isfinite(out->position.z),
                  "SKIM_OK with the end (%g %g %g)", (double)out->position.x, (double)out->position.y,
                  (double)out->position.z);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
}

static inline skim_ellipsoid sphere_of(float r)
{
    skim_ellipsoid e = { { r, r, r }, { 0, 0, 0, 1 } };
    return e;
}

/* Distance from p to triangle abc (Ericson 5.1.5), double precision. */
static inline double point_triangle_distance(const double p[3], const double a[3], const double b[3],
                                             const double c[3])
{
    double ab[3], ac[3], ap[3], q[3];
    for (int i = 0; i < 3; ++i) {
        ab[i] = b[i] - a[i];
        ac[i] = c[i] - a[i];
        ap[i] = p[i] - a[i];
    }
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
    double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
    double bp[3] = { p[0] - b[0], p[1] - b[1], p[2] - b[2] };
    double d3 = DOT(ab, bp), d4 = DOT(ac, bp);
    double cp[3] = { p[0] - c[0], p[1] - c[1], p[2] - c[2] };
    double d5 = DOT(ab, cp), d6 = DOT(ac, cp);
#undef DOT
    double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
    if (d1 <= 0 && d2 <= 0)
        memcpy(q, a, sizeof q);
    else if (d3 >= 0 && d4 <= d3)
        memcpy(q, b, sizeof q);
    else if (vc <= 0 && d1 >= 0 && d3 <= 0)
        for (int i = 0; i < 3; ++i)
            q[i] = a[i] + ab[i] * (d1 / (d1 - d3));
    else if (d6 >= 0 && d5 <= d6)
        memcpy(q, c, sizeof q);
    else if (vb <= 0 && d2 >= 0 && d6 <= 0)
        for (int i = 0; i < 3; ++i)
            q[i] = a[i] + ac[i] * (d2 / (d2 - d6));
    else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int i = 0; i < 3; ++i)
            q[i] = b[i] + (c[i] - b[i]) * w;
    } else {
        double denom = 1.0 / (va + vb + vc);
        for (int i = 0; i < 3; ++i)
            q[i] = a[i] + ab[i] * vb * denom + ac[i] * vc * denom;
    }
    double d[3] = { p[0] - q[0], p[1] - q[1], p[2] - q[2] };
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

#endif
