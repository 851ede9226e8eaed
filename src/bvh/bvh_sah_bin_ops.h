/* The per-primitive operations of the binned SAH's steps (internal to
   bvh_sah_binning.c, which is compiled twice: for the baseline instruction
   set and with -mavx2 as SKIM_SAH_AVX2; these follow its flags). Kept
   apart so that file stays readable: a centroid's bins, the side of a
   split it falls on, and a bin's update. */
#ifndef SKIM_BVH_SAH_BIN_OPS_H
#define SKIM_BVH_SAH_BIN_OPS_H

#include "bvh/bvh_sah_binning.h"

#include <math.h>

#if defined(SKIM_SAH_AVX2)
#include <simde/x86/avx2.h>
#endif

_Static_assert(sizeof(skim_sah_bin) == 64, "a bin is one cache line");

enum { AXIS_BYTES = (SKIM_SAH_MAX_BINS + 2 * SKIM_SAH_BIN_PAD) * (int)sizeof(skim_sah_bin),
       FIRST_BIN_BYTES = SKIM_SAH_BIN_PAD * (int)sizeof(skim_sah_bin) };

static const float infinity = INFINITY;

/* (lo + hi - offset) * scale per axis: the bin position before clamping. */
static inline simde__m128 bin_position(const skim_sah_bin_map *map, simde__m128 centroid)
{
    return simde_mm_mul_ps(simde_mm_sub_ps(centroid, map->offset), map->scale);
}

/* The bin of a centroid on each axis. Clamping happens in float before the
   conversion (max returns its second operand for NaN), so the index is in
   range for any input. */
static inline simde__m128i bin_of(const skim_sah_bin_map *map, simde__m128 centroid)
{
    simde__m128 t = bin_position(map, centroid);
    t = simde_mm_min_ps(simde_mm_max_ps(t, simde_mm_setzero_ps()), map->top);
    return simde_mm_cvttps_epi32(t);
}

/* Whether a centroid's bin on s's axis is at or above s's boundary, i.e.
   whether it goes right. For an integer boundary b in 1..bin_count-1,
   trunc(clamp(t)) >= b exactly when t >= b (and a NaN t, binned to 0,
   compares false), so this agrees with bin_of, whose counts gave the
   split, primitive for primitive. */
typedef struct side_test {
    simde__m128 boundary;
    int         axis_bit;
} side_test;

static inline side_test side_test_of(const skim_sah_split *s)
{
    return (side_test){ simde_mm_set1_ps((float)s->bin), 1 << s->axis };
}

static inline bool goes_right(const skim_sah_bin_map *map, const side_test *test, simde__m128 centroid)
{
    simde__m128 at_or_above = simde_mm_cmpge_ps(bin_position(map, centroid), test->boundary);
    return (simde_mm_movemask_ps(at_or_above) & test->axis_bit) != 0;
}

static inline simde__m128 centroid_of(const skim_bvh_prim *p)
{
    return simde_mm_add_ps(skim_sah_load_lo(p), skim_sah_load_hi(p));
}

static void bins_clear(skim_sah_bins *b, int bin_count)
{
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < bin_count + 2 * SKIM_SAH_BIN_PAD; ++k) { /* the bins and their pads */
            skim_sah_bin *bin = &b->slot[axis][k];
#if defined(SKIM_SAH_AVX2)
            simde_mm256_store_ps((float *)(void *)bin, simde_mm256_set1_ps(infinity)); /* lo, -hi */
#else
            bin->lo = bin->neg_hi = simde_mm_set1_ps(infinity);
#endif
            bin->count = 0;
        }
}

/* A primitive's box as the bins hold it: lo, then -hi. */
typedef struct bin_box {
#if defined(SKIM_SAH_AVX2)
    simde__m256 both;
#else
    simde__m128 lo, neg_hi;
#endif
} bin_box;

static inline void bin_extend(char *at, bin_box box)
{
    skim_sah_bin *bin = (skim_sah_bin *)(void *)at;
#if defined(SKIM_SAH_AVX2)
    simde_mm256_store_ps((float *)bin, simde_mm256_min_ps(simde_mm256_load_ps((const float *)bin), box.both));
#else
    bin->lo = simde_mm_min_ps(bin->lo, box.lo);
    bin->neg_hi = simde_mm_min_ps(bin->neg_hi, box.neg_hi);
#endif
    bin->count++;
}

/* Loads prims[i]: its centroid (lo + hi, id lane masked) and its bin box. */
static inline simde__m128 load_for_binning(const skim_bvh_prim *p, bin_box *box)
{
    const simde__m128 sign = simde_mm_set1_ps(-0.0f);
#if defined(SKIM_SAH_AVX2)
    simde__m256 raw = simde_mm256_load_ps((const float *)(const void *)p);
    box->both = simde_mm256_xor_ps(raw, simde_mm256_setr_m128(simde_mm_setzero_ps(), sign));
    return simde_mm_add_ps(skim_sah_load_lo(p), simde_mm256_extractf128_ps(raw, 1));
#else
    simde__m128 lo = skim_sah_load_lo(p), hi = skim_sah_load_hi(p);
    box->lo = lo;
    box->neg_hi = simde_mm_xor_ps(hi, sign);
    return simde_mm_add_ps(lo, hi);
#endif
}

/* Lane n of v as uint32_t (the y and z bins' byte offsets are lanes 1 and
   2). A macro, so n stays a literal: an extract's lane must be a constant
   expression (clang, which builds the fuzz targets, refuses a variable
   even where inlining would make it one). */
#if defined(SKIM_SAH_AVX2)
#define lane_of(v, n) ((uint32_t)simde_mm_extract_epi32((v), (n)))
#else
#define lane_of(v, n) \
    ((uint32_t)simde_mm_cvtsi128_si32(simde_mm_shuffle_epi32((v), SIMDE_MM_SHUFFLE(n, n, n, n))))
#endif

/* Byte offset of each axis's bin: bin * 64 + axis * AXIS_BYTES, past the
   pad; added to a primitive's bins shifted left by 6. */
static inline simde__m128i axis_bases(void)
{
    return simde_mm_set_epi32(0, 2 * AXIS_BYTES + FIRST_BIN_BYTES, AXIS_BYTES + FIRST_BIN_BYTES,
                              FIRST_BIN_BYTES);
}

/* One primitive into its bins at byte offsets at (x, y, z, in that order). */
static inline void bins_extend(char *base, simde__m128i at, bin_box box)
{
    bin_extend(base + (uint32_t)simde_mm_cvtsi128_si32(at), box);
    bin_extend(base + lane_of(at, 1), box);
    bin_extend(base + lane_of(at, 2), box);
}

#if defined(SKIM_SAH_AVX2)
/* Two primitives' bins at once: their centroids side by side in one
   256-bit register, so bin_of's subtract, multiply, clamps and truncation
   (and the offsets) run once for both, lane for lane the same operations
   as bin_of, so the bins are the same. */
typedef struct pair_map {
    simde__m256 offset, scale, top, xyz;
    simde__m256i bases;
} pair_map;

static inline pair_map pair_map_of(const skim_sah_bin_map *map)
{
    const simde__m128i bases = axis_bases();
    return (pair_map){ simde_mm256_set_m128(map->offset, map->offset),
                       simde_mm256_set_m128(map->scale, map->scale),
                       simde_mm256_set_m128(map->top, map->top),
                       simde_mm256_castsi256_ps(simde_mm256_set_epi32(0, -1, -1, -1, 0, -1, -1, -1)),
                       simde_mm256_set_m128i(bases, bases) };
}

/* The bin offsets of first (low half) and second (high half). */
static inline simde__m256i pair_bins(const pair_map *m, simde__m256 first, simde__m256 second)
{
    simde__m256 los = simde_mm256_permute2f128_ps(first, second, 0x20);
    simde__m256 his = simde_mm256_permute2f128_ps(first, second, 0x31);
    simde__m256 centroids = simde_mm256_add_ps(simde_mm256_and_ps(los, m->xyz), his);
    simde__m256 t = simde_mm256_mul_ps(simde_mm256_sub_ps(centroids, m->offset), m->scale);
    t = simde_mm256_min_ps(simde_mm256_max_ps(t, simde_mm256_setzero_ps()), m->top);
    return simde_mm256_add_epi32(simde_mm256_slli_epi32(simde_mm256_cvttps_epi32(t), 6), m->bases);
}

/* A primitive loaded whole (lo, hi) as its bin box (lo, -hi). */
static inline bin_box whole_box(simde__m256 prim)
{
    return (bin_box){ simde_mm256_xor_ps(prim, simde_mm256_setr_m128(simde_mm_setzero_ps(),
                                                                     simde_mm_set1_ps(-0.0f))) };
}
#endif

#endif
