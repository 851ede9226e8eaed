/* The per-primitive operations of the binned SAH's steps (internal to
   bvh_sah_binning.c, which is compiled twice: for the baseline instruction
   set and with -mavx2 as SKIM_SAH_AVX2; these follow its flags). Kept
   apart so that file stays readable: a centroid's bins, the side of a
   split it falls on, and a bin's update. */
#ifndef SKIM_BVH_SAH_BIN_OPS_H
#define SKIM_BVH_SAH_BIN_OPS_H

#include "bvh_sah_binning.h"

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

/* Lanes 1 and 2 of v (the y and z bins' byte offsets). Separate functions
   with literal lane numbers: an extract's lane must be a constant
   expression (clang, which builds the fuzz targets, refuses a variable
   even where inlining would make it one). */
static inline uint32_t lane_1(simde__m128i v)
{
#if defined(SKIM_SAH_AVX2)
    return (uint32_t)simde_mm_extract_epi32(v, 1);
#else
    return (uint32_t)simde_mm_cvtsi128_si32(simde_mm_shuffle_epi32(v, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
#endif
}

static inline uint32_t lane_2(simde__m128i v)
{
#if defined(SKIM_SAH_AVX2)
    return (uint32_t)simde_mm_extract_epi32(v, 2);
#else
    return (uint32_t)simde_mm_cvtsi128_si32(simde_mm_shuffle_epi32(v, SIMDE_MM_SHUFFLE(2, 2, 2, 2)));
#endif
}

/* One bin count more on each axis: the bins at byte offsets at. */
static inline void bins_count(char *base, simde__m128i at)
{
    ((skim_sah_bin *)(void *)(base + (uint32_t)simde_mm_cvtsi128_si32(at)))->count++;
    ((skim_sah_bin *)(void *)(base + lane_1(at)))->count++;
    ((skim_sah_bin *)(void *)(base + lane_2(at)))->count++;
}

#endif
