/* Shared by the libFuzzer targets: a byte reader that turns the fuzzer's
   input into structured choices (the C counterpart of LLVM's
   FuzzedDataProvider), a failure macro that aborts with a message (libFuzzer
   then saves the input as a crash), and double-precision geometry the
   structured target checks the library against. */
#ifndef SKIM_FUZZ_COMMON_H
#define SKIM_FUZZ_COMMON_H

#include <skim/skim.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every target defines this; libFuzzer calls it once per input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant: print what and where, then abort so libFuzzer keeps
   the input (crash-<sha1>) and the run exits non-zero. */
#define FUZZ_CHECK(condition, ...)                                                        \
    do {                                                                                  \
        if (!(condition)) {                                                               \
            fprintf(stderr, "\nFUZZ INVARIANT BROKEN at %s:%d: %s\n  ", __FILE__, __LINE__, \
                    #condition);                                                          \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fprintf(stderr, "\n  skim_last_error_message: %s\n", skim_last_error_message()); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* The precision rule (skim.h, SKIM_POSITION_RESOLUTION_RADII): whether a
   sweep or move of a shape of this smallest radius from start by delta is
   refused because floats there are spaced wider than 1/8 of the radius. */
static inline int fuzz_beyond_precision(float smallest_radius, skim_vec3 start, skim_vec3 delta)
{
    const double limit = ldexp(
        1.0, 24 + (int)floor(log2((double)(SKIM_POSITION_RESOLUTION_RADII * smallest_radius))));
    const float end[3] = { start.x + delta.x, start.y + delta.y, start.z + delta.z };
    return !(fabs(start.x) < limit && fabs(start.y) < limit && fabs(start.z) < limit &&
             fabs(end[0]) < limit && fabs(end[1]) < limit && fabs(end[2]) < limit);
}

/* ---- the byte reader ----
   Reads from the front; past the end every read gives 0, so every input,
   however short, decodes to something. */
typedef struct fuzz_reader {
    const uint8_t *data;
    size_t size, at;
} fuzz_reader;

static inline uint8_t fuzz_u8(fuzz_reader *r)
{
    return r->at < r->size ? r->data[r->at++] : 0;
}

static inline uint16_t fuzz_u16(fuzz_reader *r)
{
    uint16_t lo = fuzz_u8(r);
    return (uint16_t)(lo | (uint16_t)fuzz_u8(r) << 8);
}

static inline uint32_t fuzz_u32(fuzz_reader *r)
{
    uint32_t v = fuzz_u16(r);
    return v | (uint32_t)fuzz_u16(r) << 16;
}

/* Any float bit pattern: NaN, infinities, subnormals, huge values. */
static inline float fuzz_raw_float(fuzz_reader *r)
{
    uint32_t bits = fuzz_u32(r);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* A value in [lo, hi] on a 1/256 grid of the range with a chance of an
   off-grid fraction: a grid makes coplanar faces, shared edges and exact
   touching contacts common, which is where collision code breaks. */
static inline double fuzz_range(fuzz_reader *r, double lo, double hi)
{
    uint8_t coarse = fuzz_u8(r);
    double v = lo + (hi - lo) * (double)coarse / 255.0;
    uint8_t fine = fuzz_u8(r);
    if (fine & 0x80) /* off-grid: up to half a grid step, on a 2^-7 grid of it */
        v += (hi - lo) / 255.0 * 0.5 * (double)(fine & 0x7f) / 128.0;
    return v;
}

/* ---- double-precision geometry ---- */
typedef struct dvec3 { double x, y, z; } dvec3;

static inline dvec3 d3(double x, double y, double z) { return (dvec3){ x, y, z }; }
static inline dvec3 dv(skim_vec3 v) { return (dvec3){ v.x, v.y, v.z }; }
static inline dvec3 dsub(dvec3 a, dvec3 b) { return d3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline dvec3 dadd(dvec3 a, dvec3 b) { return d3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline dvec3 dscale(dvec3 a, double s) { return d3(a.x * s, a.y * s, a.z * s); }
static inline double ddot(dvec3 a, dvec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline dvec3 dcross(dvec3 a, dvec3 b)
{
    return d3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double dlength(dvec3 a) { return sqrt(ddot(a, a)); }

/* Closest point to p on triangle abc (Ericson, Real-Time Collision
   Detection 5.1.5), valid for degenerate triangles too. */
static inline dvec3 closest_on_triangle(dvec3 p, dvec3 a, dvec3 b, dvec3 c)
{
    dvec3 ab = dsub(b, a), ac = dsub(c, a), ap = dsub(p, a);
    double d1 = ddot(ab, ap), d2 = ddot(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return a;
    dvec3 bp = dsub(p, b);
    double d3v = ddot(ab, bp), d4 = ddot(ac, bp);
    if (d3v >= 0 && d4 <= d3v)
        return b;
    double vc = d1 * d4 - d3v * d2;
    if (vc <= 0 && d1 >= 0 && d3v <= 0) {
        double v = d1 / (d1 - d3v);
        return dadd(a, dscale(ab, v));
    }
    dvec3 cp = dsub(p, c);
    double d5 = ddot(ab, cp), d6 = ddot(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return c;
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        return dadd(a, dscale(ac, w));
    }
    double va = d3v * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3v) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3v) / ((d4 - d3v) + (d5 - d6));
        return dadd(b, dscale(dsub(c, b), w));
    }
    double denom = 1.0 / (va + vb + vc);
    double v = vb * denom, w = vc * denom;
    if (!isfinite(v) || !isfinite(w)) /* degenerate: every edge was handled above */
        return a;
    return dadd(a, dadd(dscale(ab, v), dscale(ac, w)));
}

/* The ellipsoid's map to the unit sphere, in double: unit = S^-1 R^T (world - center). */
typedef struct dspace {
    double to_unit[3][3];
    double to_world[3][3];
} dspace;

static inline dspace dspace_of(const skim_ellipsoid *shape)
{
    double qx = shape->rotation.x, qy = shape->rotation.y, qz = shape->rotation.z,
           qw = shape->rotation.w;
    double n = sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    qx /= n; qy /= n; qz /= n; qw /= n;
    const double rot[3][3] = {
        { 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw) },
        { 2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw) },
        { 2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy) },
    };
    const double radii[3] = { shape->radii.x, shape->radii.y, shape->radii.z };
    dspace s;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            s.to_unit[i][j] = rot[j][i] / radii[i];
            s.to_world[i][j] = rot[i][j] * radii[j];
        }
    return s;
}

static inline dvec3 dmul(const double m[3][3], dvec3 v)
{
    return d3(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
              m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
              m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

/* Distance, in the shape's unit-sphere space, from a shape centred at
   center to triangle abc (world space): < 1 means they overlap. */
static inline double unit_distance(const dspace *s, dvec3 center, dvec3 a, dvec3 b, dvec3 c)
{
    dvec3 ua = dmul(s->to_unit, dsub(a, center));
    dvec3 ub = dmul(s->to_unit, dsub(b, center));
    dvec3 uc = dmul(s->to_unit, dsub(c, center));
    return dlength(closest_on_triangle(d3(0, 0, 0), ua, ub, uc));
}

static inline bool finite_vec(skim_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static inline double vec_length(skim_vec3 v)
{
    return sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
}

#endif
