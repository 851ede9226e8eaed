/* Helpers shared by the SIMD suites: a deterministic generator, candidate
   buffers, the list of kernel sets and bitwise comparison of hits. */
#ifndef SKIM_SIMD_TEST_UTIL_H
#define SKIM_SIMD_TEST_UTIL_H

#include "kernel/simd_kernels.h"
#include "gather/gather.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sanitizer builds (CI runs ASan+UBSan) scale the case counts down by this
   factor so the suite stays under a minute there too; meson defines it. */
#ifndef SKIM_SIMD_TEST_SCALE
#define SKIM_SIMD_TEST_SCALE 1
#endif

/* ---- xorshift* generator ---- */
typedef struct rng {
    uint64_t state;
} rng;

static inline uint64_t rng_next(rng *r)
{
    r->state ^= r->state >> 12;
    r->state ^= r->state << 25;
    r->state ^= r->state >> 27;
    return r->state * 2685821657736338717ull;
}

static inline double rng_uniform(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0));
}

static inline double rng_log_uniform(rng *r, double lo, double hi)
{
    return exp(rng_uniform(r, log(lo), log(hi)));
}

static inline uint32_t rng_below(rng *r, uint32_t n)
{
    return (uint32_t)(rng_next(r) % n);
}

static inline void rng_unit_vector(rng *r, double out[3])
{
    double length;
    do {
        for (int k = 0; k < 3; ++k)
            out[k] = rng_uniform(r, -1, 1);
        length = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    } while (length < 0.1 || length > 1.0);
    for (int k = 0; k < 3; ++k)
        out[k] /= length;
}

/* ---- kernel sets ---- */
typedef struct test_set {
    const char *name;
    skim_sweep_candidates_fn sweep; /* NULL when this CPU cannot run it */
} test_set;

/* A kernel set by name as dispatch.c knows it ("reference" included; NULL
   when this CPU cannot run it), plus "neon-emulated": the NEON source
   through SIMDe's emulation, which x86 can always run (on AArch64 it is
   the native object, the same as "neon"). */
static inline const skim_kernel_set *test_kernel_set(const char *name)
{
    static const skim_kernel_set neon_emulated = {
        .name = "neon-emulated", .width = 4, .sweep = skim_simd_sweep_neon,
        .sweep_from = skim_simd_sweep_from_neon, .sweep_deferred = skim_simd_sweep_deferred_neon
    };
    return strcmp(name, "neon-emulated") == 0 ? &neon_emulated : skim_kernel_set_by_name(name);
}

static inline test_set test_set_get(const char *name)
{
    const skim_kernel_set *set = test_kernel_set(name);
    return (test_set){ name, set ? set->sweep : NULL };
}

/* The plain sweep of a set by name, "reference" included (its
   multi-triangle function); NULL when this CPU cannot run it. */
static inline skim_sweep_candidates_fn test_set_plain_sweep(const char *name)
{
    return test_set_get(name).sweep;
}

/* ---- candidate buffers ---- */
static inline void candidates_set(skim_candidates *c, uint32_t lane, const float tri[3][3],
                                  uint32_t triangle)
{
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            c->vertex[v][axis][lane] = tri[v][axis];
    c->triangle[lane] = triangle;
    c->material[lane] = 0;
}

static inline void candidates_get(const skim_candidates *c, uint32_t lane, float tri[3][3])
{
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            tri[v][axis] = c->vertex[v][axis][lane];
}

/* Lanes [from, to) of src as dst's own padded buffer. */
static inline void candidates_slice(skim_candidates *dst, const skim_candidates *src, uint32_t from,
                                    uint32_t to)
{
    /* At least one packet, so an empty slice still has arrays to pad; and
       no copy from an empty source, which may have none (memcpy of zero
       bytes from or to NULL is undefined). */
    if (skim_candidates_reserve(dst, to - from + 1) != SKIM_OK)
        abort();
    if (to > from) {
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                memcpy(dst->vertex[v][axis], src->vertex[v][axis] + from,
                       (to - from) * sizeof(float));
        memcpy(dst->triangle, src->triangle + from, (to - from) * sizeof(uint32_t));
        memcpy(dst->material, src->material + from, (to - from) * sizeof(uint16_t));
    }
    dst->count = to - from;
    skim_candidates_pad(dst);
}

/* Copies src's real lanes into dst and pads it. */
static inline void candidates_copy(skim_candidates *dst, const skim_candidates *src)
{
    candidates_slice(dst, src, 0, src->count);
}

/* Removes lane (swapping the last real lane into it) and re-pads. */
static inline void candidates_remove(skim_candidates *c, uint32_t lane)
{
    uint32_t last = c->count - 1;
    float tri[3][3];
    candidates_get(c, last, tri);
    candidates_set(c, lane, tri, c->triangle[last]);
    c->count = last;
    skim_candidates_pad(c);
}

static inline int64_t candidates_find(const skim_candidates *c, uint32_t triangle)
{
    for (uint32_t lane = 0; lane < c->count; ++lane)
        if (c->triangle[lane] == triangle)
            return lane;
    return -1;
}

/* The reference's per-triangle math with the contract's order-free rule,
   as the kernels apply it: every triangle tested with the plane-interval
   bound max(1, caller's t), then the lowest (t, triangle) within the
   caller's t kept. skim_reference_sweep_candidates instead tests each
   triangle against the best so far, which makes its answer depend on the
   candidates' order in a rare case (a vertex or edge root that rounds
   below the plane's t1; see test_simd_equivalence.c). */
static inline void reference_order_free(const skim_candidates *c, const float delta[3], bool cull,
                                        skim_unit_hit *best)
{
    const float bound = best->t, t_max = bound > 1.0f ? bound : 1.0f;
    for (uint32_t lane = 0; lane < c->count; ++lane) {
        float tri[3][3];
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                tri[v][axis] = c->vertex[v][axis][lane];
        skim_unit_hit hit;
        if (!skim_reference_sweep_triangle(tri[0], tri[1], tri[2], delta, t_max, cull, &hit))
            continue;
        hit.triangle = c->triangle[lane];
        if (!(hit.t <= bound))
            continue;
        if (!best->hit || hit.t < best->t || (hit.t == best->t && hit.triangle < best->triangle))
            *best = hit;
    }
}

/* ---- hits ---- */
static inline bool float_same(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

static inline bool hits_bitwise_equal(const skim_unit_hit *a, const skim_unit_hit *b)
{
    if (a->hit != b->hit)
        return false;
    if (!a->hit)
        return float_same(a->t, b->t);
    bool same = float_same(a->t, b->t) && a->triangle == b->triangle;
    for (int k = 0; k < 3; ++k)
        same = same && float_same(a->point[k], b->point[k]) &&
               float_same(a->normal[k], b->normal[k]);
    return same;
}

static inline void hit_describe(const skim_unit_hit *h, char *out, size_t size)
{
    if (!h->hit)
        snprintf(out, size, "miss (t %a)", (double)h->t);
    else
        snprintf(out, size, "hit tri %u t %a point (%a %a %a) normal (%a %a %a)", h->triangle,
                 (double)h->t, (double)h->point[0], (double)h->point[1], (double)h->point[2],
                 (double)h->normal[0], (double)h->normal[1], (double)h->normal[2]);
}

#endif /* SKIM_SIMD_TEST_UTIL_H */
