/* Property suite: skim_sweep against an independent double-precision oracle
   (oracle.c) on random and adversarial cases.

   How agreement is judged. Near a grazing contact the first-contact time t is
   ill-conditioned (the distance touches 1 at a tangent), so comparing t values
   would test the conditioning, not the code. We compare in distance instead,
   in unit-sphere space (the ellipsoid's radii are 1 there):
     - a hit at t must have the oracle's distance at t within EPS of 1 (t = 0:
       at most 1 + EPS), and the path before t must never come closer than
       1 - EPS (no missed earlier contact);
     - a miss must never come closer than 1 - EPS.
   Each case records the EPS it needed; the test asserts it against the
   tolerance below and prints the worst case per family.

   The tolerance. Float has unit roundoff u = 2^-24. The kernel works in unit
   space relative to the start, on a path of length P = max(1, |delta|) and
   triangles whose vertices lie up to L = max(1, max |vertex|) away. Its
   quadratics are written with Lagrange's identity (see the reference's
   comments on Rouwé 3.4 and 3.5) so that no coefficient or discriminant
   cancels: the plane distance, the closest points and the vertex and edge
   quadratics carry a few u (P + L). With headroom for the matrix transform
   (3 products per coordinate) and the square root we allow
       EPS = 64 u (P + L) + 1e-5
   i.e. 64 units of roundoff at the kernel's working magnitudes; the 1e-5
   floor covers P = L = 1 cases where a handful of u already adds up. The
   measured worst case is printed per family ("u (P + L)"): 2.8 at most
   (grazing hits; 21.9 before the plane normal moved to the corner opposite
   the longest edge, see the reference). History: the paper's forms needed
   64 u (P^2 + L) (the vertex discriminant loses u P^2 on a long grazing
   sweep) and fail this bound (58.4 u (P + L) and one failure among the
   grazing hits); the big-triangle family (1e3..1e4 radii across, short
   paths) failed by up to 2.7 radii with the edge quadratic's c taken from
   v1 as the paper writes it. */
#include "oracle.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define UNIT_ROUNDOFF (1.0 / 16777216.0)

/* P: the path's length in radii (at least 1); L: the largest distance of a
   vertex from the start, in radii (at least 1). */
static double rounding_scale(double path, double size)
{
    return path + size;
}

static double tolerance_for(double path, double size)
{
    return 64.0 * UNIT_ROUNDOFF * rounding_scale(path, size) + 1e-5;
}

static double path_length(const oracle_case *c)
{
    return fmax(1.0, sqrt(c->delta[0] * c->delta[0] + c->delta[1] * c->delta[1] +
                          c->delta[2] * c->delta[2]));
}

static double triangle_reach(const oracle_case *c)
{
    double reach = 1.0;
    for (int v = 0; v < 3; ++v)
        reach = fmax(reach, sqrt(c->tri[v][0] * c->tri[v][0] + c->tri[v][1] * c->tri[v][1] +
                                 c->tri[v][2] * c->tri[v][2]));
    return reach;
}

/* ---- a small deterministic generator ---- */
typedef struct rng { uint64_t state; } rng;

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

/* ---- one case ---- */
typedef struct sweep_case {
    skim_ellipsoid shape;
    float tri[3][3];
    skim_vec3 start, delta;
} sweep_case;

typedef struct family_stats {
    const char *name;
    long cases, hits, misses, starts_touching;
    double worst_needed_over_u_l2;
    double worst_needed;
} family_stats;

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

static double dot3d(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Runs one case through skim_sweep (a brute-force world holding only its
   triangle) and checks it against the oracle. Returns false on failure. */
static bool check_case(const sweep_case *sc, family_stats *stats, char *why, size_t why_size)
{
    const float positions[9] = { sc->tri[0][0], sc->tri[0][1], sc->tri[0][2], sc->tri[1][0],
                                 sc->tri[1][1], sc->tri[1][2], sc->tri[2][0], sc->tri[2][1],
                                 sc->tri[2][2] };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { .positions = positions, .vertex_count = 3, .indices = indices,
                       .triangle_count = 1 };
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    skim_world *world = NULL;
    if (skim_world_create(&mesh, &def, &world) != SKIM_OK) {
        snprintf(why, why_size, "world create failed: %s", skim_last_error_message());
        return false;
    }
    skim_world_stats world_stats;
    skim_world_get_stats(world, &world_stats);
    if (world_stats.triangles == 0) { /* degenerate in float: nothing to test */
        skim_world_destroy(world);
        return true;
    }
    skim_hit hit;
    skim_status status = skim_sweep(world, &sc->shape, sc->start, sc->delta, NULL, &hit);
    skim_world_destroy(world);
    if (status != SKIM_OK) {
        snprintf(why, why_size, "skim_sweep failed: %s", skim_last_error_message());
        return false;
    }

    oracle_case oc;
    oracle_prepare(&oc, &sc->shape, sc->tri, sc->start, sc->delta);
    const double eps = tolerance_for(path_length(&oc), triangle_reach(&oc));
    double t_at_min;
    const double min_distance = oracle_min_distance(&oc, &t_at_min);
    double needed = 0.0;
    stats->cases++;
    if (hit.hit) {
        stats->hits++;
        if (!(hit.t >= 0.0f && hit.t <= 1.0f)) {
            snprintf(why, why_size, "t = %.9g outside [0, 1]", hit.t);
            return false;
        }
        double at_t = oracle_distance(&oc, hit.t, NULL);
        if (hit.t == 0.0f) {
            stats->starts_touching++;
            needed = fmax(needed, at_t - 1.0);
        } else {
            needed = fmax(needed, fabs(at_t - 1.0));
        }
        /* Closest approach on [0, t]: convexity puts it at min(t, t_at_min).
           (At t = 0 there is no "before".) */
        if (hit.t > 0.0f) {
            double before = oracle_distance(&oc, fmin((double)hit.t, t_at_min), NULL);
            needed = fmax(needed, 1.0 - before);
        }

        /* The contact point lies on the triangle, about 1 from the centre. */
        double point_unit[3];
        oracle_world_to_unit(&sc->shape, sc->start, hit.point, point_unit);
        double center[3] = { hit.t * oc.delta[0], hit.t * oc.delta[1], hit.t * oc.delta[2] };
        double to_center[3] = { center[0] - point_unit[0], center[1] - point_unit[1],
                                center[2] - point_unit[2] };
        double contact_distance = sqrt(dot3d(to_center, to_center));
        /* World-space float quantisation of the reported point, in unit space. */
        float magnitude = fmaxf(fabsf(hit.point.x), fmaxf(fabsf(hit.point.y), fabsf(hit.point.z)));
        float smallest_radius = fminf(sc->shape.radii.x, fminf(sc->shape.radii.y, sc->shape.radii.z));
        double quantum = 4.0 * (double)magnitude * UNIT_ROUNDOFF / smallest_radius;
        double point_eps = eps + quantum;
        if (hit.t > 0.0f && fabs(contact_distance - 1.0) > point_eps) {
            snprintf(why, why_size, "contact point %.9g from the centre (expected 1 +- %.3g)",
                     contact_distance, point_eps);
            return false;
        }
        /* Normal: unit, and in unit space along centre - point. */
        double n_len = sqrt((double)hit.normal.x * hit.normal.x +
                            (double)hit.normal.y * hit.normal.y +
                            (double)hit.normal.z * hit.normal.z);
        if (fabs(n_len - 1.0) > 1e-5) {
            snprintf(why, why_size, "normal length %.9g", n_len);
            return false;
        }
        if (contact_distance > 0.5 && quantum < 0.01) {
            /* n_world is M^-T n_unit, so M^T n_world is along n_unit. */
            const double nw[3] = { hit.normal.x, hit.normal.y, hit.normal.z };
            double nu[3];
            for (int i = 0; i < 3; ++i)
                nu[i] = oc.to_world[0][i] * nw[0] + oc.to_world[1][i] * nw[1] +
                        oc.to_world[2][i] * nw[2];
            double cosine = dot3d(nu, to_center) / (sqrt(dot3d(nu, nu)) * contact_distance);
            if (cosine < 1.0 - 1e-3 - 10.0 * point_eps) {
                snprintf(why, why_size, "normal off the contact direction (cos %.9g)", cosine);
                return false;
            }
        }
        if (hit.triangle != 0) {
            snprintf(why, why_size, "triangle index %u", hit.triangle);
            return false;
        }
    } else {
        stats->misses++;
        needed = fmax(0.0, 1.0 - min_distance);
    }
    stats->worst_needed = fmax(stats->worst_needed, needed);
    stats->worst_needed_over_u_l2 =
        fmax(stats->worst_needed_over_u_l2,
             needed / (UNIT_ROUNDOFF * rounding_scale(path_length(&oc), triangle_reach(&oc))));
    if (needed > eps) {
        snprintf(why, why_size,
                 "%s: needed tolerance %.3g > %.3g (P = %.3g, L = %.3g, oracle min distance %.9g at t %.6g, "
                 "first touch %.9g)",
                 hit.hit ? "hit" : "miss", needed, eps, path_length(&oc), triangle_reach(&oc), min_distance, t_at_min,
                 oracle_first_reach(&oc, 1.0));
        return false;
    }
    return true;
}

static void report_failure(const sweep_case *sc, const char *family, long index, const char *why)
{
    char message[1024];
    snprintf(message, sizeof message, "%s case %ld: %s\n  radii (%.9g %.9g %.9g) rot (%.9g %.9g %.9g %.9g)\n"
            "  tri (%.9g %.9g %.9g) (%.9g %.9g %.9g) (%.9g %.9g %.9g)\n"
            "  start (%.9g %.9g %.9g) delta (%.9g %.9g %.9g)",
            family, index, why, sc->shape.radii.x, sc->shape.radii.y, sc->shape.radii.z,
            sc->shape.rotation.x, sc->shape.rotation.y, sc->shape.rotation.z, sc->shape.rotation.w,
            sc->tri[0][0], sc->tri[0][1], sc->tri[0][2], sc->tri[1][0], sc->tri[1][1],
            sc->tri[1][2], sc->tri[2][0], sc->tri[2][1], sc->tri[2][2], sc->start.x, sc->start.y,
            sc->start.z, sc->delta.x, sc->delta.y, sc->delta.z);
    cr_expect(false, "%s", message);
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

typedef void (*case_maker)(rng *r, sweep_case *sc);

static void make_random(rng *r, sweep_case *sc) { make_general(r, false, sc); }
static void make_sliver(rng *r, sweep_case *sc) { make_general(r, true, sc); }

static void make_near_miss(rng *r, sweep_case *sc)
{
    make_general(r, next_u64(r) % 4 == 0, sc);
    shift_to_closest_approach(sc, 1.0 + log_uniform(r, 1e-6, 1e-3));
}

static void make_grazing_hit(rng *r, sweep_case *sc)
{
    make_general(r, next_u64(r) % 4 == 0, sc);
    shift_to_closest_approach(sc, 1.0 - log_uniform(r, 1e-6, 1e-3));
}

static void make_start_touching(rng *r, sweep_case *sc)
{
    make_general(r, false, sc);
    /* Closest approach at the start: make the start the closest point by
       shifting with t = 0 semantics, then keep the original motion. */
    skim_vec3 delta = sc->delta;
    sc->delta = (skim_vec3){ 0, 0, 0 };
    shift_to_closest_approach(sc, uniform(r, 0.0, 1.0));
    sc->delta = delta;
}

static void make_parallel(rng *r, sweep_case *sc)
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
static void make_big_triangle(rng *r, sweep_case *sc)
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

static void make_zero_motion(rng *r, sweep_case *sc)
{
    make_general(r, false, sc);
    sc->delta = (skim_vec3){ 0, 0, 0 };
    if (next_u64(r) % 2)
        shift_to_closest_approach(sc, uniform(r, 0.5, 1.5));
}

static void run_family(const char *name, case_maker make, long count, uint64_t seed)
{
    rng r = { seed };
    family_stats stats = { .name = name };
    char why[512];
    long failures = 0;
    for (long i = 0; i < count; ++i) {
        sweep_case sc;
        make(&r, &sc);
        if (!check_case(&sc, &stats, why, sizeof why)) {
            if (failures++ < 5)
                report_failure(&sc, name, i, why);
        }
    }
    fprintf(stderr,
            "%-16s cases %6ld hits %6ld misses %6ld t=0 %6ld worst needed %.3g = %.3g u (P + L); "
            "failures %ld\n",
            name, stats.cases, stats.hits, stats.misses, stats.starts_touching, stats.worst_needed,
            stats.worst_needed_over_u_l2, failures);
    cr_expect_eq(failures, 0, "%s: %ld of %ld cases failed", name, failures, count);
    cr_expect_gt(stats.cases, count * 9 / 10, "%s: too many cases skipped as degenerate", name);
}

/* 130,000 cases in all. */
Test(sweep_property, random) { run_family("random", make_random, 30000, 0x9e3779b97f4a7c15ull); }
Test(sweep_property, slivers) { run_family("slivers", make_sliver, 10000, 0xd1b54a32d192ed03ull); }
Test(sweep_property, near_misses) { run_family("near-miss", make_near_miss, 25000, 0x8cb92ba72f3d8dd7ull); }
Test(sweep_property, grazing_hits) { run_family("grazing-hit", make_grazing_hit, 25000, 0xa0761d6478bd642full); }
Test(sweep_property, starts_touching) { run_family("start-touching", make_start_touching, 15000, 0xe7037ed1a0b428dbull); }
Test(sweep_property, parallel_motion) { run_family("parallel", make_parallel, 10000, 0x8ebc6af09c88c6e3ull); }
Test(sweep_property, big_triangles) { run_family("big-triangle", make_big_triangle, 10000, 0x1d8e4e27c47d124full); }
Test(sweep_property, zero_motion) { run_family("zero-motion", make_zero_motion, 5000, 0x589965cc75374cc3ull); }
