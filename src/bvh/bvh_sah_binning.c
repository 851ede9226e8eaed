/* The binned SAH's per-node steps (see bvh_sah_binning.h): Wald 2007's
   binning over centroid bounds, the sweep over bin boundaries, and the
   partition at the chosen one.

   Compiled twice: for the baseline instruction set and, on x86, with
   -mavx2 (SKIM_SAH_AVX2), where a primitive's box and a bin are each one
   256-bit register and a bin update is one min. bvh_sah.c picks one per
   build (skim_sah_steps_for_this_cpu); both perform the same IEEE
   operations (min, max, add, sub, mul, truncation; no FMA), so the tree
   is the same bit for bit on every machine.

   Where the instructions went (callgrind, oa_dm1 and the 2-million-
   triangle terrain) and what this file does about it:
   - Binning touched each primitive's three bins through index arithmetic
     per axis; here a bin is one cache line, its upper corner stored
     negated so one min extends both corners, and the three byte offsets
     come out of one SIMD shift and add.
   - The sweep computed each boundary's half area with horizontal
     shuffles; here four boundaries' boxes are transposed and their areas
     and costs computed at once (same operations in the same order per
     boundary, so the same bits).
   - The partition recomputed every primitive's three bins and both
     children's boxes; the children's boxes are already known from the
     sweep (unions of bins), so the partition compares one lane against the
     boundary and gathers only centroid bounds (which the children's bin
     maps need), in registers. */
#include "bvh_sah_binning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(SKIM_SAH_AVX2)
#include <simde/x86/avx2.h>
#define SKIM_SAH_STEPS skim_sah_steps_avx2
#else
#define SKIM_SAH_STEPS skim_sah_steps_baseline
#endif

_Static_assert(sizeof(skim_sah_bin) == 64, "a bin is one cache line");

enum { AXIS_BYTES = SKIM_SAH_MAX_BINS * (int)sizeof(skim_sah_bin) };

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
    const simde__m128 empty = simde_mm_set1_ps(infinity); /* lo = +inf, -hi = +inf */
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < bin_count; ++k) {
            b->bin[axis][k].lo = empty;
            b->bin[axis][k].neg_hi = empty;
            b->bin[axis][k].count = 0;
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

static void bin_range(const skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                      const skim_sah_bin_map *map, skim_sah_bins *b)
{
    bins_clear(b, map->bin_count);
    /* Byte offset of each axis's bin: bin * 64 + axis * AXIS_BYTES. */
    const simde__m128i axis_base = simde_mm_set_epi32(0, 2 * AXIS_BYTES, AXIS_BYTES, 0);
    char *base = (char *)b;
    for (uint32_t i = begin; i < end; ++i) {
        bin_box box;
        simde__m128 centroid = load_for_binning(&prims[i], &box);
        simde__m128i at = simde_mm_add_epi32(simde_mm_slli_epi32(bin_of(map, centroid), 6), axis_base);
        uint32_t x = (uint32_t)simde_mm_cvtsi128_si32(at);
        uint32_t y = (uint32_t)simde_mm_cvtsi128_si32(simde_mm_shuffle_epi32(at, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
        uint32_t z = (uint32_t)simde_mm_cvtsi128_si32(simde_mm_shuffle_epi32(at, SIMDE_MM_SHUFFLE(2, 2, 2, 2)));
        bin_extend(base + x, box);
        bin_extend(base + y, box);
        bin_extend(base + z, box);
    }
}

static void bins_merge(skim_sah_bins *into, const skim_sah_bins *from, int bin_count)
{
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < bin_count; ++k) {
            skim_sah_bin *a = &into->bin[axis][k];
            const skim_sah_bin *b = &from->bin[axis][k];
            a->lo = simde_mm_min_ps(a->lo, b->lo);
            a->neg_hi = simde_mm_min_ps(a->neg_hi, b->neg_hi);
            a->count += b->count;
        }
}

static uint32_t chunk_size(uint32_t n, uint32_t c)
{
    uint32_t from = c * SKIM_SAH_CHUNK;
    return n - from > SKIM_SAH_CHUNK ? SKIM_SAH_CHUNK : n - from;
}

static bool bin_chunked(const skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                        const skim_sah_bin_map *map, bool parallel, skim_sah_chunks *chunks,
                        skim_sah_bins *total)
{
    const uint32_t n = end - begin;
    chunks->count = (n + SKIM_SAH_CHUNK - 1) / SKIM_SAH_CHUNK;
    chunks->bins = aligned_alloc(64, (size_t)chunks->count * sizeof *chunks->bins);
    if (!chunks->bins)
        return false;
    skim_sah_bins *partial = chunks->bins;
    for (uint32_t c = 0; c < chunks->count; ++c) {
        #pragma omp task if(parallel) firstprivate(c) shared(partial)
        {
            uint32_t from = begin + c * SKIM_SAH_CHUNK;
            bin_range(prims, from, from + chunk_size(n, c), map, &partial[c]);
        }
    }
    #pragma omp taskwait
    bins_clear(total, map->bin_count);
    for (uint32_t c = 0; c < chunks->count; ++c)
        bins_merge(total, &partial[c], map->bin_count);
    return true;
}

/* Half areas of boxes [1, n) into area, four at a time: the boxes'
   extents transposed so x, y and z of four boxes sit in three registers.
   The upper corners come negated, so the extents come out negated too
   (lo + -hi rounds to exactly -(hi - lo)), and each area multiplies them
   in pairs: per box, skim_sah_half_area's operations in its order, the
   same bits. The last group may run up to three boxes past n - 1 (the
   caller pads them). */
static inline void half_areas(const simde__m128 *lo, const simde__m128 *neg_hi, int n, float *area)
{
    for (int k = 1; k < n; k += 4) {
        simde__m128 d0 = simde_mm_add_ps(lo[k], neg_hi[k]), d1 = simde_mm_add_ps(lo[k + 1], neg_hi[k + 1]),
                    d2 = simde_mm_add_ps(lo[k + 2], neg_hi[k + 2]), d3 = simde_mm_add_ps(lo[k + 3], neg_hi[k + 3]);
        SIMDE_MM_TRANSPOSE4_PS(d0, d1, d2, d3);
        simde__m128 sum = simde_mm_add_ps(simde_mm_mul_ps(d0, d1), simde_mm_mul_ps(d1, d2));
        simde_mm_storeu_ps(area + k, simde_mm_add_ps(sum, simde_mm_mul_ps(d2, d0)));
    }
}

/* The costs A_left * N_left + A_right * N_right of boundaries [1, n), four
   at a time (the scalar expression's operations in its order, so the same
   bits), +infinity where a side is empty so the scan skips it. The arrays
   hold SKIM_SAH_MAX_BINS + 3 entries, counts past n - 1 zero. */
static void boundary_costs(const float *left_area, const uint32_t *left_count, const float *right_area,
                           const uint32_t *right_count, int n, float *cost)
{
    const simde__m128i zero = simde_mm_setzero_si128();
    const simde__m128 empty = simde_mm_set1_ps(infinity);
    for (int k = 1; k < n; k += 4) {
        simde__m128i nl = simde_mm_loadu_si128((const simde__m128i *)(const void *)(left_count + k));
        simde__m128i nr = simde_mm_loadu_si128((const simde__m128i *)(const void *)(right_count + k));
        simde__m128 c = simde_mm_add_ps(simde_mm_mul_ps(simde_mm_loadu_ps(left_area + k), simde_mm_cvtepi32_ps(nl)),
                                        simde_mm_mul_ps(simde_mm_loadu_ps(right_area + k), simde_mm_cvtepi32_ps(nr)));
        simde__m128 side_empty = simde_mm_castsi128_ps(
            simde_mm_or_si128(simde_mm_cmpeq_epi32(nl, zero), simde_mm_cmpeq_epi32(nr, zero)));
        simde_mm_storeu_ps(cost + k, simde_mm_or_ps(simde_mm_and_ps(side_empty, empty),
                                                    simde_mm_andnot_ps(side_empty, c)));
    }
}

static skim_sah_split best_split(const skim_sah_bins *b, const skim_sah_bin_map *map,
                                 const skim_sah_range *r)
{
    const int n = map->bin_count;
    skim_sah_split best = { .found = false, .cost = infinity };
    float centroid_lo[4], centroid_hi[4];
    simde_mm_storeu_ps(centroid_lo, r->centroid_lo);
    simde_mm_storeu_ps(centroid_hi, r->centroid_hi);
    /* Boundary k separates bins [0, k) from [k, n). Every array has room
       for the last group of four that half_areas and boundary_costs
       compute; those padding boundaries are empty boxes counting 0. */
    enum { LANES = SKIM_SAH_MAX_BINS + 3 };
    simde__m128 left_lo[LANES], left_neg_hi[LANES], right_lo[LANES], right_neg_hi[LANES];
    uint32_t left_count[LANES], right_count[LANES];
    float left_area[LANES], right_area[LANES], cost[LANES];
    for (int k = n; k < n + 3; ++k) {
        left_lo[k] = left_neg_hi[k] = right_lo[k] = right_neg_hi[k] = simde_mm_setzero_ps();
        left_count[k] = right_count[k] = 0;
    }
    for (int axis = 0; axis < 3; ++axis) {
        if (!(centroid_hi[axis] > centroid_lo[axis]))
            continue;
        const skim_sah_bin *bin = b->bin[axis];
        simde__m128 lo = simde_mm_set1_ps(infinity), neg_hi = lo;
        uint32_t count = 0;
        for (int k = n - 1; k > 0; --k) {
            lo = right_lo[k] = simde_mm_min_ps(lo, bin[k].lo);
            neg_hi = right_neg_hi[k] = simde_mm_min_ps(neg_hi, bin[k].neg_hi);
            right_count[k] = count += bin[k].count;
        }
        lo = neg_hi = simde_mm_set1_ps(infinity);
        count = 0;
        for (int k = 1; k < n; ++k) {
            lo = left_lo[k] = simde_mm_min_ps(lo, bin[k - 1].lo);
            neg_hi = left_neg_hi[k] = simde_mm_min_ps(neg_hi, bin[k - 1].neg_hi);
            left_count[k] = count += bin[k - 1].count;
        }
        half_areas(left_lo, left_neg_hi, n, left_area);
        half_areas(right_lo, right_neg_hi, n, right_area);
        boundary_costs(left_area, left_count, right_area, right_count, n, cost);
        int chosen = 0;
        for (int k = 1; k < n; ++k)
            if (cost[k] < best.cost) {
                best.cost = cost[k];
                chosen = k;
            }
        const simde__m128 sign = simde_mm_set1_ps(-0.0f);
        if (chosen)
            best = (skim_sah_split){ .found = true, .axis = axis, .bin = chosen, .cost = cost[chosen],
                                     .left_count = left_count[chosen], .right_count = right_count[chosen],
                                     .left_area = left_area[chosen], .right_area = right_area[chosen],
                                     .left_lo = left_lo[chosen],
                                     .left_hi = simde_mm_xor_ps(left_neg_hi[chosen], sign),
                                     .right_lo = right_lo[chosen],
                                     .right_hi = simde_mm_xor_ps(right_neg_hi[chosen], sign) };
    }
    return best;
}

static void children_boxes(const skim_sah_split *s, skim_sah_range *left, skim_sah_range *right)
{
    left->lo = s->left_lo;
    left->hi = s->left_hi;
    right->lo = s->right_lo;
    right->hi = s->right_hi;
}

/* Centroid bounds being gathered, in registers (through the ranges'
   pointers the compiler would store them at every primitive). */
typedef struct centroid_bounds {
    simde__m128 lo, hi;
} centroid_bounds;

static inline centroid_bounds centroid_bounds_empty(void)
{
    return (centroid_bounds){ simde_mm_set1_ps(infinity), simde_mm_set1_ps(-infinity) };
}

static inline void centroid_bounds_add(centroid_bounds *b, simde__m128 centroid)
{
    b->lo = simde_mm_min_ps(b->lo, centroid);
    b->hi = simde_mm_max_ps(b->hi, centroid);
}

static inline void centroid_bounds_merge(centroid_bounds *b, const skim_sah_range *r)
{
    b->lo = simde_mm_min_ps(b->lo, r->centroid_lo);
    b->hi = simde_mm_max_ps(b->hi, r->centroid_hi);
}

static inline void centroid_bounds_store(const centroid_bounds *b, skim_sah_range *r)
{
    r->centroid_lo = b->lo;
    r->centroid_hi = b->hi;
}

static uint32_t partition(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                          const skim_sah_bin_map *map, const skim_sah_split *s, skim_sah_range *left,
                          skim_sah_range *right)
{
    const side_test test = side_test_of(s);
    centroid_bounds on_left = centroid_bounds_empty(), on_right = centroid_bounds_empty();
    uint32_t i = begin, j = end;
    for (;;) {
        simde__m128 from_left = simde_mm_setzero_ps(), from_right = simde_mm_setzero_ps();
        for (; i < j; ++i) {
            from_left = centroid_of(&prims[i]);
            if (goes_right(map, &test, from_left))
                break;
            centroid_bounds_add(&on_left, from_left);
        }
        for (; i < j; --j) {
            from_right = centroid_of(&prims[j - 1]);
            if (!goes_right(map, &test, from_right))
                break;
            centroid_bounds_add(&on_right, from_right);
        }
        if (i >= j)
            break;
        /* prims[i] goes right and prims[j - 1] left: swap them, and their
           centroids are already known. */
        skim_bvh_prim swap = prims[i];
        prims[i] = prims[j - 1];
        prims[j - 1] = swap;
        centroid_bounds_add(&on_left, from_right);
        centroid_bounds_add(&on_right, from_left);
        ++i;
        --j;
    }
    centroid_bounds_store(&on_left, left);
    centroid_bounds_store(&on_right, right);
    children_boxes(s, left, right);
    return i;
}

/* One chunk's primitives to the other buffer: left ones from left_at up,
   right ones from right_at up, in their order. */
static void scatter_chunk(const skim_bvh_prim *prims, skim_bvh_prim *to, uint32_t first,
                          uint32_t last, const skim_sah_bin_map *map, const side_test *test,
                          uint32_t left_at, uint32_t right_at, skim_sah_range *left,
                          skim_sah_range *right)
{
    centroid_bounds on_left = centroid_bounds_empty(), on_right = centroid_bounds_empty();
    for (uint32_t i = first; i < last; ++i) {
        simde__m128 centroid = centroid_of(&prims[i]);
        if (goes_right(map, test, centroid)) {
            to[right_at++] = prims[i];
            centroid_bounds_add(&on_right, centroid);
        } else {
            to[left_at++] = prims[i];
            centroid_bounds_add(&on_left, centroid);
        }
    }
    centroid_bounds_store(&on_left, left);
    centroid_bounds_store(&on_right, right);
}

static uint32_t partition_chunked(const skim_bvh_prim *prims, skim_bvh_prim *to, uint32_t begin,
                                  uint32_t end, const skim_sah_bin_map *map, const skim_sah_split *s,
                                  const skim_sah_chunks *chunks, bool parallel, skim_sah_range *left,
                                  skim_sah_range *right, bool *ok)
{
    const uint32_t n = end - begin, count = chunks->count;
    uint32_t *at = malloc(2 * (size_t)count * sizeof *at);
    skim_sah_range *sides = aligned_alloc(64, ((2 * (size_t)count * sizeof *sides) + 63) / 64 * 64);
    if (!at || !sides) {
        free(at);
        free(sides);
        *ok = false;
        return begin;
    }
    /* Chunk c's left primitives go after the left ones of chunks before
       it, its right ones after all the left ones and the right ones of
       chunks before it: the stable partition, whatever thread does what. */
    uint32_t left_total = 0;
    for (uint32_t c = 0; c < count; ++c) {
        uint32_t lefts = 0;
        for (int k = 0; k < s->bin; ++k)
            lefts += chunks->bins[c].bin[s->axis][k].count;
        at[2 * c] = begin + left_total;
        at[2 * c + 1] = lefts; /* for now: the chunk's left count */
        left_total += lefts;
    }
    uint32_t right_total = 0;
    for (uint32_t c = 0; c < count; ++c) {
        uint32_t rights = chunk_size(n, c) - at[2 * c + 1];
        at[2 * c + 1] = begin + left_total + right_total;
        right_total += rights;
    }
    const side_test test = side_test_of(s);
    for (uint32_t c = 0; c < count; ++c) {
        #pragma omp task if(parallel) firstprivate(c) shared(sides, at)
        {
            uint32_t from = begin + c * SKIM_SAH_CHUNK;
            scatter_chunk(prims, to, from, from + chunk_size(n, c), map, &test, at[2 * c],
                          at[2 * c + 1], &sides[2 * c], &sides[2 * c + 1]);
        }
    }
    #pragma omp taskwait
    centroid_bounds on_left = centroid_bounds_empty(), on_right = centroid_bounds_empty();
    for (uint32_t c = 0; c < count; ++c) {
        centroid_bounds_merge(&on_left, &sides[2 * c]);
        centroid_bounds_merge(&on_right, &sides[2 * c + 1]);
    }
    centroid_bounds_store(&on_left, left);
    centroid_bounds_store(&on_right, right);
    children_boxes(s, left, right);
    free(at);
    free(sides);
    *ok = true;
    return begin + left_total;
}

const skim_sah_steps SKIM_SAH_STEPS = {
    .bin = bin_range,
    .bin_chunked = bin_chunked,
    .best_split = best_split,
    .partition = partition,
    .partition_chunked = partition_chunked,
};
