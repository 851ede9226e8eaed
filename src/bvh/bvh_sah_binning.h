/* The binned SAH's per-node steps (internal to the builder, src/bvh/):
   binning primitive centroids on three axes, choosing the best bin
   boundary, and partitioning the primitives at it. Wald 2007, "On fast
   construction of SAH-based bounding volume hierarchies", section 3.

   No result depends on which thread looked at which primitives. Nodes of
   at least SKIM_SAH_LARGE_MIN_PRIMS primitives are binned from a sample
   (the primitives at positions that are multiples of SKIM_SAH_SAMPLE);
   smaller ones from all of them, which depends on their set alone. Every
   node is partitioned in place by the thread that owns it, so positions,
   too, are the same for any thread count. Which path a node takes depends
   on its size alone, so the tree is the same bit for bit for any thread
   count (and instruction set: see bvh_sah_binning.c). */
#ifndef SKIM_BVH_SAH_BINNING_H
#define SKIM_BVH_SAH_BINNING_H

#include "bvh/bvh_binary.h"

#include <simde/x86/sse2.h>

enum {
    SKIM_SAH_MAX_BINS = 32,
    /* Nodes this large are binned from one primitive in SKIM_SAH_SAMPLE,
       kept in cache (bvh_sah.c, choose_binned_split; partition_large). */
    SKIM_SAH_LARGE_MIN_PRIMS = 1 << 16,
    SKIM_SAH_SAMPLE = 16,
    /* Below this many primitives a subtree is built by the thread that
       found it (a task costs more than the work) and numbers its nodes
       densely. Small enough that a level of a few thousand triangles
       still builds on several threads (measured with bench/bvh/bench_bvh.c,
       docs/performance.md). */
    SKIM_SAH_TASK_MIN_PRIMS = 1024,
};

/* A node's primitives: their box and the bounds of lo + hi (twice the
   centroid, which is all binning needs and saves a multiply). */
typedef struct skim_sah_range {
    simde__m128 lo, hi;
    simde__m128 centroid_lo, centroid_hi;
} skim_sah_range;

/* Centroid -> bin: bin = (lo + hi - offset) * scale, clamped to
   [0, bin_count - 1] and truncated. */
typedef struct skim_sah_bin_map {
    simde__m128 offset, scale, top;
    int         bin_count;
} skim_sah_bin_map;

/* One bin of one axis, a cache line: the box of the primitives whose
   centroids fell in it, its upper corner negated (so one min extends both
   corners: a single 256-bit min with AVX2), and their count. */
typedef struct skim_sah_bin {
    _Alignas(64) simde__m128 lo;
    simde__m128 neg_hi;
    uint32_t    count;
    uint32_t    unused[7];
} skim_sah_bin;

/* Per axis, SKIM_SAH_BIN_PAD empty bins on either side of the real ones,
   so the sweep (four boundaries at a time) can read up to two bins past
   either end without a test. */
#define SKIM_SAH_BIN_PAD 2
typedef struct skim_sah_bins {
    skim_sah_bin slot[3][SKIM_SAH_BIN_PAD + SKIM_SAH_MAX_BINS + SKIM_SAH_BIN_PAD];
} skim_sah_bins;

/* Bin k (0 <= k < bin count) of axis: skim_sah_bins_of(b, axis)[k]. */
static inline skim_sah_bin *skim_sah_bins_of(skim_sah_bins *b, int axis)
{
    return b->slot[axis] + SKIM_SAH_BIN_PAD;
}
static inline const skim_sah_bin *skim_sah_bins_of_const(const skim_sah_bins *b, int axis)
{
    return b->slot[axis] + SKIM_SAH_BIN_PAD;
}

/* The best boundary: primitives whose bin on axis is below bin go left.
   cost = A_left * N_left + A_right * N_right (half areas). The children's
   boxes come with it (the unions of the bins on either side), so the
   partition need not recompute them. */
typedef struct skim_sah_split {
    bool        found;
    int         axis, bin;
    float       cost;
    uint32_t    left_count, right_count;
    float       left_area, right_area;
    simde__m128 left_lo, left_hi, right_lo, right_hi;
} skim_sah_split;

/* The box and centroid bounds of prims [begin, end) (bvh_sah.c). */
void skim_sah_range_of(const skim_bvh_prim *prims, uint32_t begin, uint32_t end, skim_sah_range *r);
/* The bin map of a node with range r and bin_count bins (bvh_sah.c). */
skim_sah_bin_map skim_sah_make_bin_map(const skim_sah_range *r, int bin_count);

/* The steps, as compiled for one instruction set (bvh_sah_binning.c). */
typedef struct skim_sah_steps {
    /* Bins prims [begin, end) into b (cleared first). */
    void (*bin)(const skim_bvh_prim *prims, uint32_t begin, uint32_t end, const skim_sah_bin_map *map,
                skim_sah_bins *b);
    /* The best boundary over b on the axes where the centroids spread. Ties
       keep the first (lowest axis, then lowest bin). */
    skim_sah_split (*best_split)(const skim_sah_bins *b, const skim_sah_bin_map *map,
                                 const skim_sah_range *r);
    /* Hoare partition in place: [begin, mid) goes left of s, [mid, end)
       right; returns mid. Fills the children's centroid bounds (their
       boxes are s's). */
    uint32_t (*partition)(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                          const skim_sah_bin_map *map, const skim_sah_split *s, skim_sah_range *left,
                          skim_sah_range *right);
    /* The same (Hoare's, in place) for a node binned from a sample,
       gathering the children's boxes too: returns mid, which the split's
       sampled counts only estimate (it may be begin or end). Where sample
       is not NULL, sample[p / SKIM_SAH_SAMPLE] = prims[p] afterwards for
       every multiple p of SKIM_SAH_SAMPLE in [begin, end). */
    uint32_t (*partition_large)(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                                const skim_sah_bin_map *map, const skim_sah_split *s, skim_sah_range *left,
                                skim_sah_range *right, skim_bvh_prim *sample);
} skim_sah_steps;

extern const skim_sah_steps skim_sah_steps_baseline;
#if defined(__x86_64__) || defined(__i386__)
#define SKIM_SAH_HAVE_AVX2 1
extern const skim_sah_steps skim_sah_steps_avx2; /* only for CPUs with AVX2 */
#endif

/* skim_bvh_half_area in registers, summed in the same order, so the two
   agree bit for bit. */
static inline float skim_sah_half_area(simde__m128 lo, simde__m128 hi)
{
    simde__m128 d = simde_mm_sub_ps(hi, lo);
    simde__m128 products = simde_mm_mul_ps(d, simde_mm_shuffle_ps(d, d, SIMDE_MM_SHUFFLE(3, 0, 2, 1)));
    simde__m128 sum = simde_mm_add_ss(products, simde_mm_shuffle_ps(products, products, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
    sum = simde_mm_add_ss(sum, simde_mm_shuffle_ps(products, products, SIMDE_MM_SHUFFLE(2, 2, 2, 2)));
    return simde_mm_cvtss_f32(sum);
}

/* A primitive's box halves with the id lane zeroed (the id's bits would
   be a denormal or NaN operand otherwise). */
static inline simde__m128 skim_sah_load_lo(const skim_bvh_prim *p)
{
    const simde__m128 xyz = simde_mm_castsi128_ps(simde_mm_set_epi32(0, -1, -1, -1));
    return simde_mm_and_ps(simde_mm_load_ps(p->lo), xyz);
}
static inline simde__m128 skim_sah_load_hi(const skim_bvh_prim *p) { return simde_mm_load_ps(p->hi); }

#endif
