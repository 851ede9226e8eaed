/* Helpers shared by the collide-and-slide suites: the default scene, movers,
   and the suites' own double-precision overlap check (independent of the
   library's float kernels). */
#ifndef SKIM_MOVE_TEST_UTIL_H
#define SKIM_MOVE_TEST_UTIL_H

#include <skim/skim.h>
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Quake units: a player is a sphere of radius 16, a step 18. */
#define RADIUS 16.0f
#define STEP 18.0f
#define RUN_PER_FRAME (320.0f / 60.0f)
#define GRAVITY_PER_FRAME (800.0f / 60.0f / 60.0f) /* one frame's fall step at rest */

#define expect_near(actual, expected, tolerance)                                               \
    cr_expect(fabs((double)(actual) - (double)(expected)) <= (tolerance),                      \
              "%s = %.9g, expected %.9g +- %g", #actual, (double)(actual), (double)(expected), \
              (double)(tolerance))

static inline skim_ellipsoid sphere(float radius)
{
    return (skim_ellipsoid){ { radius, radius, radius }, { 0, 0, 0, 1 } };
}

typedef struct scene {
    skim_mesh_data data;
    skim_world *world;
} scene;

static inline void scene_default(scene *s)
{
    cr_assert_eq(skim_scene_default(&s->data), SKIM_OK, "%s", skim_last_error_message());
    skim_mesh mesh = skim_mesh_data_view(&s->data);
    cr_assert_eq(skim_world_create(&mesh, NULL, &s->world), SKIM_OK, "%s",
                 skim_last_error_message());
}

static inline void scene_free(scene *s)
{
    skim_world_destroy(s->world);
    skim_mesh_data_free(&s->data);
}

/* A walking controller's def: Quake step, snapping, two-pass gravity. */
static inline skim_move_def walker_def(void)
{
    skim_move_def def = skim_move_def_default();
    def.step_height = STEP;
    def.snap_distance = STEP;
    def.gravity = (skim_vec3){ 0, 0, -4.0f * GRAVITY_PER_FRAME };
    return def;
}

static inline skim_move_result move_or_fail(const skim_world *world, skim_ellipsoid shape,
                                            skim_vec3 position, skim_vec3 displacement,
                                            const skim_move_def *def)
{
    skim_move_result result;
    skim_status status = skim_move(world, &shape, position, displacement, def, &result);
    cr_assert_eq(status, SKIM_OK, "skim_move: %s", skim_last_error_message());
    return result;
}

/* ---- double-precision geometry (the suites' own) ---- */

static inline double d_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Ericson 5.1.5: closest point of triangle abc to p. */
static inline void d_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                                         const double c[3], double out[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; ++k) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k];
        cp[k] = p[k] - c[k];
    }
    double d1 = d_dot(ab, ap), d2 = d_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        memcpy(out, a, 3 * sizeof(double));
        return;
    }
    double d3 = d_dot(ab, bp), d4 = d_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        memcpy(out, b, 3 * sizeof(double));
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; ++k)
            out[k] = a[k] + v * ab[k];
        return;
    }
    double d5 = d_dot(ab, cp), d6 = d_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        memcpy(out, c, 3 * sizeof(double));
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; ++k)
            out[k] = a[k] + w * ac[k];
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; ++k)
            out[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    double denom = 1.0 / (va + vb + vc);
    double v = vb * denom, w = vc * denom;
    for (int k = 0; k < 3; ++k)
        out[k] = a[k] + ab[k] * v + ac[k] * w;
}

/* The ellipsoid's inverse map (unit sphere space), in double. */
typedef struct d_space {
    double to_unit[3][3];
} d_space;

static inline d_space d_space_of(skim_ellipsoid e)
{
    double qx = e.rotation.x, qy = e.rotation.y, qz = e.rotation.z, qw = e.rotation.w;
    double norm = sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    qx /= norm; qy /= norm; qz /= norm; qw /= norm;
    double r[3][3] = {
        { 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw) },
        { 2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw) },
        { 2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy) },
    };
    double radii[3] = { e.radii.x, e.radii.y, e.radii.z };
    d_space s;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            s.to_unit[i][j] = r[j][i] / radii[i];
    return s;
}

/* Distance, in radii (unit-sphere space), from the ellipsoid's center at c
   to triangle t (9 floats). < 1 means the ellipsoid overlaps it. */
static inline double d_unit_distance(const d_space *s, skim_vec3 c, const float *t)
{
    double v[3][3];
    for (int corner = 0; corner < 3; ++corner) {
        double rel[3] = { (double)t[3 * corner] - c.x, (double)t[3 * corner + 1] - c.y,
                          (double)t[3 * corner + 2] - c.z };
        for (int i = 0; i < 3; ++i)
            v[corner][i] = s->to_unit[i][0] * rel[0] + s->to_unit[i][1] * rel[1] +
                           s->to_unit[i][2] * rel[2];
    }
    double origin[3] = { 0, 0, 0 }, closest[3];
    d_closest_on_triangle(origin, v[0], v[1], v[2], closest);
    return sqrt(d_dot(closest, closest));
}

/* Triangle i of a mesh as 9 floats. */
static inline void mesh_triangle(const skim_mesh_data *m, uint32_t i, float out[9])
{
    for (int corner = 0; corner < 3; ++corner)
        for (int k = 0; k < 3; ++k)
            out[3 * corner + k] = m->positions[3 * (size_t)m->indices[3 * (size_t)i + corner] + k];
}

/* Smallest unit distance from the shape at c to any triangle of the mesh
   (brute force; fine for the behaviour tests' few checks). */
static inline double min_unit_distance(const skim_mesh_data *m, skim_ellipsoid shape, skim_vec3 c,
                                       uint32_t *closest_triangle)
{
    d_space s = d_space_of(shape);
    double best = INFINITY;
    float t[9];
    for (uint32_t i = 0; i < m->triangle_count; ++i) {
        mesh_triangle(m, i, t);
        /* cheap reject by box */
        double reach = 2.0 * fmax(shape.radii.x, fmax(shape.radii.y, shape.radii.z));
        bool far = false;
        for (int k = 0; k < 3 && !far; ++k) {
            double ck = k == 0 ? c.x : (k == 1 ? c.y : c.z);
            double lo = fmin(t[k], fmin(t[3 + k], t[6 + k])), hi = fmax(t[k], fmax(t[3 + k], t[6 + k]));
            far = lo > ck + reach + best * reach || hi < ck - reach - best * reach;
        }
        if (far && isfinite(best))
            continue;
        double d = d_unit_distance(&s, c, t);
        if (d < best) {
            best = d;
            if (closest_triangle)
                *closest_triangle = i;
        }
    }
    return best;
}

static inline uint64_t hash_bytes(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ull; /* FNV-1a */
    }
    return h;
}

/* xorshift64*: the suites' own deterministic random numbers. */
static inline uint64_t rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ull;
}
static inline double rng_uniform(uint64_t *state) /* [0, 1) */
{
    return (double)(rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* A random triangle around the origin: a corner within 3 radii, edges from
   0.05 to 60 radii, one in five a needle (third corner almost on the edge
   between the other two). */
static inline void random_triangle(uint64_t *rng, double t[9])
{
    double scale = 0.05 * pow(1200.0, rng_uniform(rng));
    for (int k = 0; k < 3; ++k)
        t[k] = -3.0 + 6.0 * rng_uniform(rng);
    for (int corner = 1; corner < 3; ++corner)
        for (int k = 0; k < 3; ++k)
            t[3 * corner + k] = t[k] + scale * (2.0 * rng_uniform(rng) - 1.0);
    if (rng_next(rng) % 5 == 0) {
        double f = rng_uniform(rng);
        for (int k = 0; k < 3; ++k)
            t[6 + k] = t[k] + f * (t[3 + k] - t[k]) + 1e-3 * scale * (rng_uniform(rng) - 0.5);
    }
}

#endif
