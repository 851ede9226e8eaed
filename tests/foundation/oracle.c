#include "oracle.h"

#include <math.h>

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void rotation_of(const skim_quat q_in, double r[3][3])
{
    double x = q_in.x, y = q_in.y, z = q_in.z, w = q_in.w;
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n; y /= n; z /= n; w /= n;
    r[0][0] = 1 - 2 * (y * y + z * z); r[0][1] = 2 * (x * y - z * w); r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w); r[1][1] = 1 - 2 * (x * x + z * z); r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w); r[2][1] = 2 * (y * z + x * w); r[2][2] = 1 - 2 * (x * x + y * y);
}

void oracle_world_to_unit(const skim_ellipsoid *shape, skim_vec3 start, skim_vec3 world,
                          double unit[3])
{
    double r[3][3];
    rotation_of(shape->rotation, r);
    const double radii[3] = { shape->radii.x, shape->radii.y, shape->radii.z };
    const double rel[3] = { (double)world.x - start.x, (double)world.y - start.y,
                            (double)world.z - start.z };
    for (int i = 0; i < 3; ++i)
        unit[i] = (r[0][i] * rel[0] + r[1][i] * rel[1] + r[2][i] * rel[2]) / radii[i];
}

void oracle_prepare(oracle_case *c, const skim_ellipsoid *shape, const float (*world_tri)[3],
                    skim_vec3 start, skim_vec3 delta)
{
    double r[3][3];
    rotation_of(shape->rotation, r);
    const double radii[3] = { shape->radii.x, shape->radii.y, shape->radii.z };
    c->scale = 1.0;
    for (int v = 0; v < 3; ++v) {
        skim_vec3 p = { world_tri[v][0], world_tri[v][1], world_tri[v][2] };
        oracle_world_to_unit(shape, start, p, c->tri[v]);
        c->scale = fmax(c->scale, sqrt(dot(c->tri[v], c->tri[v])));
    }
    const double d[3] = { delta.x, delta.y, delta.z };
    for (int i = 0; i < 3; ++i)
        c->delta[i] = (r[0][i] * d[0] + r[1][i] * d[1] + r[2][i] * d[2]) / radii[i];
    c->scale = fmax(c->scale, sqrt(dot(c->delta, c->delta)));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            c->to_world[i][j] = r[i][j] * radii[j];
            c->normal_to_world[i][j] = r[i][j] / radii[j];
        }
}

/* Closest point on triangle abc to p (Ericson, Real-Time Collision
   Detection 5.1.5), in double. */
static void closest_point_on_triangle(const double p[3], const double a[3], const double b[3],
                                      const double c[3], double out[3])
{
    double ab[3], ac[3], ap[3];
    for (int k = 0; k < 3; ++k) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
    }
    double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        for (int k = 0; k < 3; ++k) out[k] = a[k];
        return;
    }
    double bp[3];
    for (int k = 0; k < 3; ++k) bp[k] = p[k] - b[k];
    double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        for (int k = 0; k < 3; ++k) out[k] = b[k];
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; ++k) out[k] = a[k] + v * ab[k];
        return;
    }
    double cp[3];
    for (int k = 0; k < 3; ++k) cp[k] = p[k] - c[k];
    double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        for (int k = 0; k < 3; ++k) out[k] = c[k];
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; ++k) out[k] = a[k] + w * ac[k];
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; ++k) out[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    double denom = 1.0 / (va + vb + vc);
    double v = vb * denom, w = vc * denom;
    for (int k = 0; k < 3; ++k) out[k] = a[k] + ab[k] * v + ac[k] * w;
}

double oracle_distance(const oracle_case *c, double t, double closest[3])
{
    double center[3] = { t * c->delta[0], t * c->delta[1], t * c->delta[2] };
    double q[3];
    closest_point_on_triangle(center, c->tri[0], c->tri[1], c->tri[2], q);
    if (closest)
        for (int k = 0; k < 3; ++k) closest[k] = q[k];
    double d[3] = { center[0] - q[0], center[1] - q[1], center[2] - q[2] };
    return sqrt(dot(d, d));
}

/* The distance from a point moving on a line to a convex set is convex in
   t, so golden-section search finds its minimum. */
double oracle_min_distance(const oracle_case *c, double *t_at_min)
{
    const double ratio = (sqrt(5.0) - 1.0) / 2.0;
    double lo = 0.0, hi = 1.0;
    double x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
    double f1 = oracle_distance(c, x1, NULL), f2 = oracle_distance(c, x2, NULL);
    for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
        if (f1 <= f2) {
            hi = x2; x2 = x1; f2 = f1;
            x1 = hi - ratio * (hi - lo);
            f1 = oracle_distance(c, x1, NULL);
        } else {
            lo = x1; x1 = x2; f1 = f2;
            x2 = lo + ratio * (hi - lo);
            f2 = oracle_distance(c, x2, NULL);
        }
    }
    double best_t = 0.5 * (lo + hi), best = oracle_distance(c, best_t, NULL);
    double at0 = oracle_distance(c, 0.0, NULL), at1 = oracle_distance(c, 1.0, NULL);
    if (at0 <= best) { best = at0; best_t = 0.0; }
    if (at1 < best) { best = at1; best_t = 1.0; }
    if (t_at_min) *t_at_min = best_t;
    return best;
}

double oracle_first_reach(const oracle_case *c, double level)
{
    if (oracle_distance(c, 0.0, NULL) <= level)
        return 0.0;
    double t_min;
    if (oracle_min_distance(c, &t_min) > level)
        return -1.0;
    /* Convex: strictly decreasing on [0, t_min], so bisect there. */
    double lo = 0.0, hi = t_min;
    for (int i = 0; i < 200 && hi - lo > 1e-16; ++i) {
        double mid = 0.5 * (lo + hi);
        if (oracle_distance(c, mid, NULL) <= level) hi = mid; else lo = mid;
    }
    return hi;
}
