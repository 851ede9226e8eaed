/* The sweep property suite's case generators (sweep_cases.h). */
#include "sweep_cases.h"

#include <math.h>
#include <stdbool.h>

/* ---- a small deterministic generator ---- */

static uint64_t next_u64(rng *r)
{
    r->state ^= r->state >> 12;
    r->state ^= r->state << 25;
    r->state ^= r->state >> 27;
    return r->state * 2685821657736338717ull;
}

static double uniform(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next_u64(r) >> 11) * (1.0 / 9007199254740992.0));
}

static double log_uniform(rng *r, double lo, double hi)
{
    return exp(uniform(r, log(lo), log(hi)));
}

static skim_quat random_rotation(rng *r)
{
    double x, y, z, w, n;
    do {
        x = uniform(r, -1, 1); y = uniform(r, -1, 1); z = uniform(r, -1, 1); w = uniform(r, -1, 1);
        n = sqrt(x * x + y * y + z * z + w * w);
    } while (n < 0.1 || n > 1.0);
    return (skim_quat){ (float)(x / n), (float)(y / n), (float)(z / n), (float)(w / n) };
}


/* Maps a unit-space offset to world space with the case's shape. */
static void unit_to_world_offset(const skim_ellipsoid *shape, const double unit[3], double out[3])
{
    oracle_case basis;
    float zero_tri[3][3] = { { 0 } };
    oracle_prepare(&basis, shape, zero_tri, (skim_vec3){ 0, 0, 0 }, (skim_vec3){ 0, 0, 0 });
    for (int i = 0; i < 3; ++i)
        out[i] = basis.to_world[i][0] * unit[0] + basis.to_world[i][1] * unit[1] +
                 basis.to_world[i][2] * unit[2];
}

double dot3d(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---- case generators ---- */

/* A shape: radius scale from 1e-3 to 1e3, spheres or ellipsoids up to 1:8,
   any rotation. */
static skim_ellipsoid random_shape(rng *r)
{
    double scale = log_uniform(r, 1e-3, 1e3);
    skim_ellipsoid shape = { { (float)scale, (float)scale, (float)scale }, { 0, 0, 0, 1 } };
    if (next_u64(r) % 2) {
        shape.radii.x = (float)(scale * log_uniform(r, 1.0, 8.0));
        shape.radii.y = (float)(scale * log_uniform(r, 1.0, 8.0));
        shape.radii.z = (float)(scale * (next_u64(r) % 2 ? 8.0 : 1.0));
        shape.rotation = random_rotation(r);
    }
    return shape;
}

/* A world-space point offset from origin by a unit-space vector. */
static skim_vec3 world_point(const skim_ellipsoid *shape, const double origin[3], const double unit[3])
{
    double w[3];
    unit_to_world_offset(shape, unit, w);
    return (skim_vec3){ (float)(origin[0] + w[0]), (float)(origin[1] + w[1]), (float)(origin[2] + w[2]) };
}

/* Random triangle around the unit-space origin with size in radii; sliver
   triangles when asked. */
static void random_triangle(rng *r, const skim_ellipsoid *shape, const double origin[3],
                            double size, bool sliver, float tri[3][3])
{
    double unit[3][3];
    for (int v = 0; v < 3; ++v)
        for (int k = 0; k < 3; ++k)
            unit[v][k] = uniform(r, -size, size);
    if (sliver) {
        /* c close to the line ab: aspect ratio down to 1e-4. */
        double f = uniform(r, -0.2, 1.2), thin = log_uniform(r, 1e-4, 1e-2);
        for (int k = 0; k < 3; ++k)
            unit[2][k] = unit[0][k] + f * (unit[1][k] - unit[0][k]) + thin * uniform(r, -size, size);
    }
    for (int v = 0; v < 3; ++v) {
        skim_vec3 p = world_point(shape, origin, unit[v]);
        tri[v][0] = p.x; tri[v][1] = p.y; tri[v][2] = p.z;
    }
}

static void random_origin(rng *r, const skim_ellipsoid *shape, double origin[3])
{
    /* A third of the cases sit 1e5 away from the world origin, or as far as
       the precision rule lets the shape go (a quarter of its limit, which
       leaves room for the path: SKIM_POSITION_RESOLUTION_RADII). */
    const double smallest = fmin(shape->radii.x, fmin(shape->radii.y, shape->radii.z));
    const double limit =
        ldexp(1.0, 24 + (int)floor(log2((double)SKIM_POSITION_RESOLUTION_RADII * smallest)));
    double far = next_u64(r) % 3 == 0 ? fmin(1e5, 0.25 * limit) : 0.0;
    for (int k = 0; k < 3; ++k)
        origin[k] = far * uniform(r, -1, 1) + uniform(r, -10, 10) * shape->radii.x;
}

/* General: a path from a random start toward a random point near the
   triangle, overshooting or stopping short. */
static void make_general(rng *r, bool sliver, sweep_case *sc)
{
    sc->shape = random_shape(r);
    double origin[3];
    random_origin(r, &sc->shape, origin);
    double size = log_uniform(r, 0.05, 50.0);
    random_triangle(r, &sc->shape, origin, size, sliver, sc->tri);
    double start_unit[3], target_unit[3];
    double reach = size + 3.0;
    for (int k = 0; k < 3; ++k) {
        start_unit[k] = uniform(r, -reach, reach);
        target_unit[k] = uniform(r, -size, size);
    }
    double stretch = uniform(r, 0.3, 2.0);
    sc->start = world_point(&sc->shape, origin, start_unit);
    double move_unit[3] = { stretch * (target_unit[0] - start_unit[0]),
                            stretch * (target_unit[1] - start_unit[1]),
                            stretch * (target_unit[2] - start_unit[2]) };
    double move[3];
    unit_to_world_offset(&sc->shape, move_unit, move);
    sc->delta = (skim_vec3){ (float)move[0], (float)move[1], (float)move[2] };
}

/* Shifts the path so its closest approach to the triangle becomes `target`
   (in unit space), moving it along the direction away from the closest point:
   near misses (target just above 1), grazing hits (just below) and starts
   touching (closest approach at t = 0). */
static void shift_to_closest_approach(sweep_case *sc, double target)
{
    oracle_case oc;
    oracle_prepare(&oc, &sc->shape, sc->tri, sc->start, sc->delta);
    double t_min, closest[3];
    oracle_min_distance(&oc, &t_min);
    double distance = oracle_distance(&oc, t_min, closest);
    double center[3] = { t_min * oc.delta[0], t_min * oc.delta[1], t_min * oc.delta[2] };
    double away[3] = { center[0] - closest[0], center[1] - closest[1], center[2] - closest[2] };
    if (distance < 1e-9) { /* path pierces the triangle: go off along the normal */
        double ab[3], ac[3];
        for (int k = 0; k < 3; ++k) {
            ab[k] = oc.tri[1][k] - oc.tri[0][k];
            ac[k] = oc.tri[2][k] - oc.tri[0][k];
        }
        away[0] = ab[1] * ac[2] - ab[2] * ac[1];
        away[1] = ab[2] * ac[0] - ab[0] * ac[2];
        away[2] = ab[0] * ac[1] - ab[1] * ac[0];
        distance = 0.0;
    }
    double length = sqrt(dot3d(away, away));
    double shift_unit[3];
    for (int k = 0; k < 3; ++k)
        shift_unit[k] = away[k] / length * (target - distance);
    double shift[3];
    unit_to_world_offset(&sc->shape, shift_unit, shift);
    sc->start = (skim_vec3){ (float)(sc->start.x + shift[0]), (float)(sc->start.y + shift[1]),
                             (float)(sc->start.z + shift[2]) };
}


void make_random(rng *r, sweep_case *sc) { make_general(r, false, sc); }
void make_sliver(rng *r, sweep_case *sc) { make_general(r, true, sc); }

void make_near_miss(rng *r, sweep_case *sc)
{
    make_general(r, next_u64(r) % 4 == 0, sc);
    shift_to_closest_approach(sc, 1.0 + log_uniform(r, 1e-6, 1e-3));
}

void make_grazing_hit(rng *r, sweep_case *sc)
{
    make_general(r, next_u64(r) % 4 == 0, sc);
    shift_to_closest_approach(sc, 1.0 - log_uniform(r, 1e-6, 1e-3));
}

void make_start_touching(rng *r, sweep_case *sc)
{
    make_general(r, false, sc);
    /* Closest approach at the start: make the start the closest point by
       shifting with t = 0 semantics, then keep the original motion. */
    skim_vec3 delta = sc->delta;
    sc->delta = (skim_vec3){ 0, 0, 0 };
    shift_to_closest_approach(sc, uniform(r, 0.0, 1.0));
    sc->delta = delta;
}

void make_parallel(rng *r, sweep_case *sc)
{
    make_general(r, false, sc);
    /* Make the unit-space motion parallel to the triangle's plane, at a
       height just above or below 1. */
    oracle_case oc;
    oracle_prepare(&oc, &sc->shape, sc->tri, sc->start, sc->delta);
    double ab[3], ac[3], n[3];
    for (int k = 0; k < 3; ++k) {
        ab[k] = oc.tri[1][k] - oc.tri[0][k];
        ac[k] = oc.tri[2][k] - oc.tri[0][k];
    }
    n[0] = ab[1] * ac[2] - ab[2] * ac[1];
    n[1] = ab[2] * ac[0] - ab[0] * ac[2];
    n[2] = ab[0] * ac[1] - ab[1] * ac[0];
    double nn = sqrt(dot3d(n, n));
    for (int k = 0; k < 3; ++k) n[k] /= nn;
    double along = dot3d(oc.delta, n);
    double move_unit[3] = { oc.delta[0] - along * n[0], oc.delta[1] - along * n[1],
                            oc.delta[2] - along * n[2] };
    double move[3];
    unit_to_world_offset(&sc->shape, move_unit, move);
    sc->delta = (skim_vec3){ (float)move[0], (float)move[1], (float)move[2] };
    double height = -dot3d(n, oc.tri[0]); /* start's signed distance */
    double target = (next_u64(r) % 2 ? 1.0 : -1.0) * (1.0 + uniform(r, -1e-3, 1e-3));
    double shift_unit[3] = { n[0] * (target - height), n[1] * (target - height),
                             n[2] * (target - height) };
    double shift[3];
    unit_to_world_offset(&sc->shape, shift_unit, shift);
    sc->start = (skim_vec3){ (float)(sc->start.x + shift[0]), (float)(sc->start.y + shift[1]),
                             (float)(sc->start.z + shift[2]) };
}

/* Huge triangles (1e3 to 1e4 radii across) met by short paths (up to 3
   radii) near an edge: a small sphere beside a big floor's border. Here the
   edge's far vertices are L away while the contact is near; the kernel's
   rounding must stay of order u L, not u L^2. */
void make_big_triangle(rng *r, sweep_case *sc)
{
    sc->shape = random_shape(r);
    double origin[3];
    random_origin(r, &sc->shape, origin);
    double size = log_uniform(r, 1e3, 1e4);
    double unit[3][3];
    /* Edge v0 v1 passes near the unit-space origin, v2 far to one side. */
    double offset = uniform(r, -0.5, 0.5) * size;
    double dir[3] = { uniform(r, -1, 1), uniform(r, -1, 1), uniform(r, -1, 1) };
    double side[3] = { uniform(r, -1, 1), uniform(r, -1, 1), uniform(r, -1, 1) };
    double nd = sqrt(dot3d(dir, dir));
    for (int k = 0; k < 3; ++k) dir[k] /= nd;
    double along = dot3d(side, dir);
    for (int k = 0; k < 3; ++k) side[k] -= along * dir[k];
    double ns = sqrt(dot3d(side, side));
    for (int k = 0; k < 3; ++k) side[k] /= ns;
    double near_distance = uniform(r, 0.0, 3.0);
    for (int k = 0; k < 3; ++k) {
        unit[0][k] = (offset - size) * dir[k] + near_distance * side[k];
        unit[1][k] = (offset + size) * dir[k] + near_distance * side[k];
        unit[2][k] = offset * dir[k] + (near_distance + size) * side[k];
    }
    for (int v = 0; v < 3; ++v) {
        skim_vec3 p = world_point(&sc->shape, origin, unit[v]);
        sc->tri[v][0] = p.x; sc->tri[v][1] = p.y; sc->tri[v][2] = p.z;
    }
    sc->start = world_point(&sc->shape, origin, (double[3]){ 0, 0, 0 });
    double move_unit[3] = { uniform(r, -3, 3), uniform(r, -3, 3), uniform(r, -3, 3) };
    double move[3];
    unit_to_world_offset(&sc->shape, move_unit, move);
    sc->delta = (skim_vec3){ (float)move[0], (float)move[1], (float)move[2] };
    if (next_u64(r) % 2)
        shift_to_closest_approach(sc, 1.0 + (next_u64(r) % 2 ? 1.0 : -1.0) * log_uniform(r, 1e-6, 1e-3));
}

void make_zero_motion(rng *r, sweep_case *sc)
{
    make_general(r, false, sc);
    sc->delta = (skim_vec3){ 0, 0, 0 };
    if (next_u64(r) % 2)
        shift_to_closest_approach(sc, uniform(r, 0.5, 1.5));
}
