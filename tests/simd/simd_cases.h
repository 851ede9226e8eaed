/* Random and adversarial candidate buffers for the equivalence suite, built
   directly in the kernels' space: unit sphere at the origin moving by D,
   triangles relative to the start. Each family aims at a decision boundary
   of Rouwé's test: grazing vertices and edges (discriminant near
   0), the touching point at t1 on a triangle edge (3.3's edge signs near 0),
   starts touching (closest distance near 1), motion parallel to the plane
   (N . D near 0), slivers, degenerate and duplicate triangles, coordinates
   quantised by a 1e5 offset, tiny and huge deltas, and triangles just
   outside or inside the swept sphere's bounding box (the kernels' cull). */
#ifndef SKIM_SIMD_CASES_H
#define SKIM_SIMD_CASES_H

#include "simd_test_util.h"

enum case_family {
    FAMILY_RANDOM, FAMILY_SLIVER, FAMILY_GRAZE_VERTEX, FAMILY_GRAZE_EDGE, FAMILY_FACE_EDGE,
    FAMILY_TOUCHING, FAMILY_PARALLEL, FAMILY_BOX_EDGE, FAMILY_DEGENERATE, FAMILY_DUPLICATE,
    FAMILY_COUNT
};
static const char *const family_names[FAMILY_COUNT] = {
    "random", "sliver", "graze-vertex", "graze-edge", "face-edge", "touching", "parallel",
    "box-edge", "degenerate", "duplicate",
};

typedef struct case_buffer {
    skim_candidates c;
    float delta[3];
    bool cull;
    skim_unit_hit initial;  /* the caller's best on entry */
    bool offset_1e5;
    int family[80];         /* per lane */
} case_buffer;

static inline double dot3d(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void cross3d(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* A unit vector perpendicular to d (any unit vector when d is 0). */
static inline void perpendicular(rng *r, const double d[3], double out[3])
{
    double dl = sqrt(dot3d(d, d));
    for (;;) {
        double u[3];
        rng_unit_vector(r, u);
        if (dl == 0.0) {
            memcpy(out, u, sizeof u);
            return;
        }
        double along = dot3d(u, d) / (dl * dl);
        for (int k = 0; k < 3; ++k)
            out[k] = u[k] - along * d[k];
        double l = sqrt(dot3d(out, out));
        if (l > 0.1) {
            for (int k = 0; k < 3; ++k)
                out[k] /= l;
            return;
        }
    }
}

/* A signed gap: +-[1e-7, 1e-3] around a boundary (sometimes exactly 0). */
static inline double boundary_gap(rng *r)
{
    if (rng_below(r, 16) == 0)
        return 0.0;
    return (rng_below(r, 2) ? 1.0 : -1.0) * rng_log_uniform(r, 1e-7, 1e-3);
}

static inline void random_delta(rng *r, float delta[3])
{
    double d[3], length;
    rng_unit_vector(r, d);
    switch (rng_below(r, 8)) {
    case 0: length = rng_log_uniform(r, 1e-7, 1e-3); break; /* tiny */
    case 1: length = rng_log_uniform(r, 1e3, 1e6); break;   /* huge */
    case 2: length = 0.0; break;                            /* standing still */
    case 3: /* along an axis, as gravity is */
        memset(d, 0, sizeof d);
        d[rng_below(r, 3)] = rng_below(r, 2) ? 1.0 : -1.0;
        length = rng_log_uniform(r, 0.1, 20.0);
        break;
    default: length = rng_log_uniform(r, 0.05, 20.0); break;
    }
    for (int k = 0; k < 3; ++k)
        delta[k] = (float)(d[k] * length);
}

/* One triangle of the given family, in double. */
static inline void make_triangle(rng *r, int family, const float delta_f[3], double tri[3][3])
{
    const double delta[3] = { delta_f[0], delta_f[1], delta_f[2] };
    const double t0 = rng_uniform(r, -0.2, 1.2);
    const double size = rng_log_uniform(r, 0.05, 50.0);
    double u[3], w[3], p[3];
    switch (family) {
    default:
    case FAMILY_RANDOM:
    case FAMILY_SLIVER: {
        double reach = rng_log_uniform(r, 0.1, 5.0);
        for (int k = 0; k < 3; ++k)
            p[k] = t0 * delta[k] + rng_uniform(r, -reach, reach);
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                tri[v][k] = p[k] + rng_uniform(r, -size, size);
        if (family == FAMILY_SLIVER) {
            double f = rng_uniform(r, -0.2, 1.2), thin = rng_log_uniform(r, 1e-7, 1e-2);
            for (int k = 0; k < 3; ++k)
                tri[2][k] = tri[0][k] + f * (tri[1][k] - tri[0][k]) +
                            thin * rng_uniform(r, -size, size);
        }
        return;
    }
    case FAMILY_GRAZE_VERTEX:
        /* A vertex at distance 1 +- gap from the path's line. */
        perpendicular(r, delta, u);
        for (int k = 0; k < 3; ++k)
            tri[0][k] = t0 * delta[k] + (1.0 + boundary_gap(r)) * u[k];
        for (int v = 1; v < 3; ++v) {
            rng_unit_vector(r, w);
            for (int k = 0; k < 3; ++k)
                tri[v][k] = tri[0][k] + size * (fabs(w[0]) * u[k] + w[k]);
        }
        return;
    case FAMILY_GRAZE_EDGE: {
        /* An edge whose line passes 1 +- gap from the path. */
        perpendicular(r, delta, u);
        double e[3];
        perpendicular(r, u, e);
        for (int k = 0; k < 3; ++k)
            p[k] = t0 * delta[k] + (1.0 + boundary_gap(r)) * u[k];
        double s0 = rng_log_uniform(r, 0.01, 20.0), s1 = rng_log_uniform(r, 0.01, 20.0);
        rng_unit_vector(r, w);
        for (int k = 0; k < 3; ++k) {
            tri[0][k] = p[k] - s0 * e[k];
            tri[1][k] = p[k] + s1 * e[k];
            tri[2][k] = p[k] + size * (u[k] + 0.5 * w[k]);
        }
        return;
    }
    case FAMILY_FACE_EDGE: {
        /* The plane is first touched at t1 at a point on (or a gap away
           from) a triangle edge: 3.3's edge-sign test at its boundary. */
        double m[3], dl = sqrt(dot3d(delta, delta));
        do
            rng_unit_vector(r, m);
        while (dl > 0.0 && dot3d(m, delta) > -0.05 * dl);
        double t1 = rng_uniform(r, 0.0, 1.1);
        double e1[3], e2[3];
        perpendicular(r, m, e1);
        cross3d(m, e1, e2);
        double gap = boundary_gap(r), s = rng_log_uniform(r, 0.01, 20.0);
        double k_side = (rng_below(r, 2) ? 1.0 : -1.0) * rng_log_uniform(r, 0.01, 20.0);
        for (int k = 0; k < 3; ++k) {
            p[k] = t1 * delta[k] - m[k]; /* the touching point */
            tri[0][k] = p[k] + gap * e2[k] - s * e1[k];
            tri[1][k] = p[k] + gap * e2[k] + s * rng_uniform(r, 0.5, 2.0) * e1[k];
            tri[2][k] = p[k] + k_side * e2[k] + rng_uniform(r, -s, s) * e1[k];
        }
        return;
    }
    case FAMILY_TOUCHING: {
        /* The start within 1 (+- gap) of a vertex, an edge or the face. */
        rng_unit_vector(r, u);
        double d = rng_below(r, 3) ? 1.0 + boundary_gap(r) : rng_uniform(r, 0.0, 1.0);
        double e1[3], e2[3];
        perpendicular(r, u, e1);
        cross3d(u, e1, e2);
        int where = (int)rng_below(r, 3);
        double a = where == 0 ? 0.0 : rng_log_uniform(r, 0.01, 10.0);
        double b = where == 2 ? rng_log_uniform(r, 0.01, 10.0) : 0.0;
        for (int k = 0; k < 3; ++k) {
            p[k] = d * u[k];
            tri[0][k] = p[k] - a * e1[k] - b * e2[k];
            tri[1][k] = p[k] + size * e1[k] - b * e2[k];
            tri[2][k] = p[k] + size * rng_uniform(r, -1, 1) * e1[k] + size * e2[k];
        }
        return;
    }
    case FAMILY_BOX_EDGE: {
        /* An axis-aligned triangle in the plane just beyond (or within) the
           face of the box around the swept sphere, by 1e-7 .. 0.1: both
           sides of a hit and of the kernels' cull margin. */
        const int axis = (int)rng_below(r, 3);
        const double sign = rng_below(r, 2) ? 1.0 : -1.0;
        const double end = (sign > 0 ? fmax(0.0, delta[axis]) : fmin(0.0, delta[axis]));
        const double gap = (rng_below(r, 4) ? 1.0 : -1.0) * rng_log_uniform(r, 1e-7, 0.1);
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                tri[v][k] = k == axis ? end + sign * (1.0 + gap)
                                      : rng_uniform(r, 0.0, 1.0) * delta[k] +
                                            rng_uniform(r, -size, size) * 0.5;
        return;
    }
    case FAMILY_PARALLEL: {
        /* Motion parallel to the plane, at distance 1 +- gap from it. */
        double m[3];
        perpendicular(r, delta, m);
        double h = 1.0 + boundary_gap(r), e1[3], e2[3];
        perpendicular(r, m, e1);
        cross3d(m, e1, e2);
        for (int k = 0; k < 3; ++k)
            p[k] = t0 * delta[k] - h * m[k];
        for (int v = 0; v < 3; ++v) {
            double a = rng_uniform(r, -size, size), b = rng_uniform(r, -size, size);
            for (int k = 0; k < 3; ++k)
                tri[v][k] = p[k] + a * e1[k] + b * e2[k];
        }
        return;
    }
    }
}

/* Fills a buffer of 1..max_lanes triangles sharing one delta. */
/* An empty buffer, ready for make_buffer. */
static inline void case_buffer_init(case_buffer *b)
{
    memset(b, 0, sizeof *b);
    skim_candidates_init(&b->c);
}

static inline void make_buffer(rng *r, case_buffer *b, uint32_t max_lanes)
{
    random_delta(r, b->delta);
    b->cull = rng_below(r, 10) < 3;
    b->offset_1e5 = rng_below(r, 3) == 0;
    const double radius = rng_log_uniform(r, 0.25, 64.0);
    float start[3];
    for (int k = 0; k < 3; ++k)
        start[k] = (float)(b->offset_1e5 ? rng_uniform(r, -1e5, 1e5) : 0.0);
    const uint32_t lanes = 1 + rng_below(r, max_lanes);
    if (skim_candidates_reserve(&b->c, lanes) != SKIM_OK)
        abort();
    /* One family for the whole buffer half the time, a mix otherwise. */
    const int buffer_family = (int)rng_below(r, FAMILY_COUNT);
    const bool mixed = rng_below(r, 2);
    /* Lanes get even indices, a hit passed in an odd one: never equal, but
       interleaved, so ties against the caller's hit go both ways. */
    const uint32_t index_base = rng_below(r, 1u << 20) * 512u;
    for (uint32_t lane = 0; lane < lanes; ++lane) {
        int family = mixed ? (int)rng_below(r, FAMILY_COUNT) : buffer_family;
        double tri[3][3];
        float tri_f[3][3];
        if (family == FAMILY_DUPLICATE && lane > 0) {
            candidates_get(&b->c, rng_below(r, lane), tri_f);
        } else {
            make_triangle(r, family == FAMILY_DEGENERATE || family == FAMILY_DUPLICATE
                                 ? FAMILY_RANDOM : family,
                          b->delta, tri);
            if (rng_below(r, 2)) /* either winding */
                for (int k = 0; k < 3; ++k) {
                    double swap = tri[1][k];
                    tri[1][k] = tri[2][k];
                    tri[2][k] = swap;
                }
            for (int v = 0; v < 3; ++v)
                for (int k = 0; k < 3; ++k) {
                    if (b->offset_1e5) {
                        /* World coordinates near 1e5, made relative to the
                           start in float and scaled to unit space, as the
                           gather does: quantised to ulp(1e5) / radius. */
                        float world = (float)(start[k] + tri[v][k] * radius);
                        tri_f[v][k] = (world - start[k]) / (float)radius;
                    } else {
                        tri_f[v][k] = (float)tri[v][k];
                    }
                }
            if (family == FAMILY_DEGENERATE) {
                int kind = (int)rng_below(r, 3);
                if (kind == 0) /* two corners the same */
                    memcpy(tri_f[2], tri_f[rng_below(r, 2)], sizeof tri_f[2]);
                else if (kind == 1) /* a needle collapsed onto one point */
                    for (int v = 1; v < 3; ++v)
                        memcpy(tri_f[v], tri_f[0], sizeof tri_f[v]);
                else /* area below float: corners 1e-30 apart */
                    for (int k = 0; k < 3; ++k) {
                        tri_f[1][k] = tri_f[0][k] + 1e-30f;
                        tri_f[2][k] = tri_f[0][k] + (k == 0 ? 2e-30f : 1e-30f);
                    }
            }
        }
        b->family[lane] = family;
        /* Unique indices in an order unrelated to the lanes. */
        candidates_set(&b->c, lane, (const float(*)[3])tri_f,
                       index_base + 2u * ((lane * 37u + 11u) & 255u));
    }
    b->c.count = lanes;
    skim_candidates_pad(&b->c);

    b->initial = (skim_unit_hit){ .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
    uint32_t kind = rng_below(r, 20);
    if (kind < 3) { /* a tighter bound from an earlier call */
        b->initial.t = (float)rng_uniform(r, 0.0, 1.0);
    } else if (kind < 6) { /* an earlier hit: ties against its index */
        b->initial = (skim_unit_hit){ .hit = true, .t = (float)rng_uniform(r, 0.0, 1.0),
                                      .point = { 1, 2, 3 }, .normal = { 0, 0, 1 },
                                      .triangle = index_base + 2u * rng_below(r, 256) + 1u };
        if (kind == 5)
            b->initial.t = 0.0f;
    }
}

#endif /* SKIM_SIMD_CASES_H */
