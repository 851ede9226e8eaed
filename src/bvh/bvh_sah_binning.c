/* The binned SAH's per-node steps (see bvh_sah_binning.h): Wald 2007's
   binning over centroid bounds, the sweep over bin boundaries, and the
   partition at the chosen one.

   Where the instructions went (callgrind, 2-million-triangle terrain) and
   what this file does about it:
   - Binning touched each primitive's three bins through index arithmetic
     per axis; here a bin is one cache line and the three byte offsets come
     out of one SIMD shift and add.
   - The sweep computed each boundary's half area with horizontal
     shuffles; here four boundaries' boxes are transposed and their areas
     computed at once (same operations in the same order per area, so the
     same bits).
   - The partition recomputed every primitive's three bins and both
     children's boxes; the children's boxes are already known from the
     sweep (unions of bins), so the partition compares one lane against the
     boundary and gathers only centroid bounds (which the children's bin
     maps need). */
#include "bvh_sah_binning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(skim_sah_bin) == 64, "a bin is one cache line");

enum { AXIS_BYTES = SKIM_SAH_MAX_BINS * (int)sizeof(skim_sah_bin) };

static const float infinity = INFINITY;

void skim_sah_range_clear(skim_sah_range *r)
{
    r->lo = r->centroid_lo = simde_mm_set1_ps(infinity);
    r->hi = r->centroid_hi = simde_mm_set1_ps(-infinity);
}

void skim_sah_range_of(const skim_bvh_prim *prims, uint32_t begin, uint32_t end, skim_sah_range *r)
{
    skim_sah_range_clear(r);
    for (uint32_t i = begin; i < end; ++i) {
        simde__m128 lo = skim_sah_load_lo(&prims[i]), hi = skim_sah_load_hi(&prims[i]);
        simde__m128 centroid = simde_mm_add_ps(lo, hi);
        r->lo = simde_mm_min_ps(r->lo, lo);
        r->hi = simde_mm_max_ps(r->hi, hi);
        r->centroid_lo = simde_mm_min_ps(r->centroid_lo, centroid);
        r->centroid_hi = simde_mm_max_ps(r->centroid_hi, centroid);
    }
}

skim_sah_bin_map skim_sah_make_bin_map(const skim_sah_range *r, int bin_count)
{
    float lo[4], hi[4], scale[4] = { 0 };
    simde_mm_storeu_ps(lo, r->centroid_lo);
    simde_mm_storeu_ps(hi, r->centroid_hi);
    for (int axis = 0; axis < 3; ++axis) {
        float extent = hi[axis] - lo[axis];
        /* Slightly under bin_count / extent so the largest centroid lands
           in the last bin rather than one past it. */
        scale[axis] = extent > 0.0f ? (float)bin_count * 0.99999f / extent : 0.0f;
        if (!isfinite(scale[axis]))
            scale[axis] = 0.0f;
    }
    lo[3] = 0.0f;
    skim_sah_bin_map map = {
        .offset = simde_mm_loadu_ps(lo),
        .scale = simde_mm_loadu_ps(scale),
        .top = simde_mm_set1_ps((float)(bin_count - 1)),
        .bin_count = bin_count,
    };
    return map;
}

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
    const simde__m128 high = simde_mm_set1_ps(infinity), low = simde_mm_set1_ps(-infinity);
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < bin_count; ++k) {
            b->bin[axis][k].lo = high;
            b->bin[axis][k].hi = low;
            b->bin[axis][k].count = 0;
        }
}

static inline void bin_extend(char *at, simde__m128 lo, simde__m128 hi)
{
    skim_sah_bin *bin = (skim_sah_bin *)(void *)at;
    bin->lo = simde_mm_min_ps(bin->lo, lo);
    bin->hi = simde_mm_max_ps(bin->hi, hi);
    bin->count++;
}

void skim_sah_bin_range(const skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                  const skim_sah_bin_map *map, skim_sah_bins *b)
{
    bins_clear(b, map->bin_count);
    /* Byte offset of each axis's bin: bin * 64 + axis * AXIS_BYTES. */
    const simde__m128i axis_base = simde_mm_set_epi32(0, 2 * AXIS_BYTES, AXIS_BYTES, 0);
    char *base = (char *)b;
    for (uint32_t i = begin; i < end; ++i) {
        simde__m128 lo = skim_sah_load_lo(&prims[i]), hi = skim_sah_load_hi(&prims[i]);
        simde__m128i at = simde_mm_add_epi32(simde_mm_slli_epi32(bin_of(map, simde_mm_add_ps(lo, hi)), 6),
                                             axis_base);
        uint32_t x = (uint32_t)simde_mm_cvtsi128_si32(at);
        uint32_t y = (uint32_t)simde_mm_cvtsi128_si32(simde_mm_shuffle_epi32(at, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
        uint32_t z = (uint32_t)simde_mm_cvtsi128_si32(simde_mm_shuffle_epi32(at, SIMDE_MM_SHUFFLE(2, 2, 2, 2)));
        bin_extend(base + x, lo, hi);
        bin_extend(base + y, lo, hi);
        bin_extend(base + z, lo, hi);
    }
}

static void bins_merge(skim_sah_bins *into, const skim_sah_bins *from, int bin_count)
{
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < bin_count; ++k) {
            skim_sah_bin *a = &into->bin[axis][k];
            const skim_sah_bin *b = &from->bin[axis][k];
            a->lo = simde_mm_min_ps(a->lo, b->lo);
            a->hi = simde_mm_max_ps(a->hi, b->hi);
            a->count += b->count;
        }
}

static uint32_t chunk_size(uint32_t n, uint32_t c)
{
    uint32_t from = c * SKIM_SAH_CHUNK;
    return n - from > SKIM_SAH_CHUNK ? SKIM_SAH_CHUNK : n - from;
}

bool skim_sah_bin_chunked(const skim_bvh_prim *prims, uint32_t begin, uint32_t end,
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
            skim_sah_bin_range(prims, from, from + chunk_size(n, c), map, &partial[c]);
        }
    }
    #pragma omp taskwait
    bins_clear(total, map->bin_count);
    for (uint32_t c = 0; c < chunks->count; ++c)
        bins_merge(total, &partial[c], map->bin_count);
    return true;
}

void skim_sah_chunks_free(skim_sah_chunks *chunks)
{
    free(chunks->bins);
    chunks->bins = NULL;
    chunks->count = 0;
}

/* Half areas of boxes [from, to) into area, four at a time: the boxes'
   extents transposed so x, y and z of four boxes sit in three registers.
   Per box the operations are skim_sah_half_area's, in its order. */
static void half_areas(const simde__m128 *lo, const simde__m128 *hi, int from, int to, float *area)
{
    int k = from;
    for (; k + 4 <= to; k += 4) {
        simde__m128 d0 = simde_mm_sub_ps(hi[k], lo[k]), d1 = simde_mm_sub_ps(hi[k + 1], lo[k + 1]),
                    d2 = simde_mm_sub_ps(hi[k + 2], lo[k + 2]), d3 = simde_mm_sub_ps(hi[k + 3], lo[k + 3]);
        SIMDE_MM_TRANSPOSE4_PS(d0, d1, d2, d3);
        simde__m128 sum = simde_mm_add_ps(simde_mm_mul_ps(d0, d1), simde_mm_mul_ps(d1, d2));
        simde_mm_storeu_ps(area + k, simde_mm_add_ps(sum, simde_mm_mul_ps(d2, d0)));
    }
    for (; k < to; ++k)
        area[k] = skim_sah_half_area(lo[k], hi[k]);
}

skim_sah_split skim_sah_best_split(const skim_sah_bins *b, const skim_sah_bin_map *map,
                                   const skim_sah_range *r)
{
    const int n = map->bin_count;
    skim_sah_split best = { .found = false, .cost = infinity };
    float centroid_lo[4], centroid_hi[4];
    simde_mm_storeu_ps(centroid_lo, r->centroid_lo);
    simde_mm_storeu_ps(centroid_hi, r->centroid_hi);
    /* Boundary k separates bins [0, k) from [k, n). */
    simde__m128 left_lo[SKIM_SAH_MAX_BINS], left_hi[SKIM_SAH_MAX_BINS];
    simde__m128 right_lo[SKIM_SAH_MAX_BINS], right_hi[SKIM_SAH_MAX_BINS];
    uint32_t left_count[SKIM_SAH_MAX_BINS], right_count[SKIM_SAH_MAX_BINS];
    float left_area[SKIM_SAH_MAX_BINS], right_area[SKIM_SAH_MAX_BINS];
    for (int axis = 0; axis < 3; ++axis) {
        if (!(centroid_hi[axis] > centroid_lo[axis]))
            continue;
        const skim_sah_bin *bin = b->bin[axis];
        simde__m128 lo = simde_mm_set1_ps(infinity), hi = simde_mm_set1_ps(-infinity);
        uint32_t count = 0;
        for (int k = n - 1; k > 0; --k) {
            lo = right_lo[k] = simde_mm_min_ps(lo, bin[k].lo);
            hi = right_hi[k] = simde_mm_max_ps(hi, bin[k].hi);
            right_count[k] = count += bin[k].count;
        }
        lo = simde_mm_set1_ps(infinity);
        hi = simde_mm_set1_ps(-infinity);
        count = 0;
        for (int k = 1; k < n; ++k) {
            lo = left_lo[k] = simde_mm_min_ps(lo, bin[k - 1].lo);
            hi = left_hi[k] = simde_mm_max_ps(hi, bin[k - 1].hi);
            left_count[k] = count += bin[k - 1].count;
        }
        half_areas(left_lo, left_hi, 1, n, left_area);
        half_areas(right_lo, right_hi, 1, n, right_area);
        for (int k = 1; k < n; ++k) {
            if (left_count[k] == 0 || right_count[k] == 0)
                continue;
            float cost = left_area[k] * (float)left_count[k] + right_area[k] * (float)right_count[k];
            if (cost < best.cost)
                best = (skim_sah_split){ .found = true, .axis = axis, .bin = k, .cost = cost,
                                         .left_count = left_count[k], .right_count = right_count[k],
                                         .left_area = left_area[k], .right_area = right_area[k],
                                         .left_lo = left_lo[k], .left_hi = left_hi[k],
                                         .right_lo = right_lo[k], .right_hi = right_hi[k] };
        }
    }
    return best;
}

static inline void extend_centroids(skim_sah_range *r, simde__m128 centroid)
{
    r->centroid_lo = simde_mm_min_ps(r->centroid_lo, centroid);
    r->centroid_hi = simde_mm_max_ps(r->centroid_hi, centroid);
}

static inline void merge_centroids(skim_sah_range *into, const skim_sah_range *from)
{
    into->centroid_lo = simde_mm_min_ps(into->centroid_lo, from->centroid_lo);
    into->centroid_hi = simde_mm_max_ps(into->centroid_hi, from->centroid_hi);
}

static void children_boxes(const skim_sah_split *s, skim_sah_range *left, skim_sah_range *right)
{
    left->lo = s->left_lo;
    left->hi = s->left_hi;
    right->lo = s->right_lo;
    right->hi = s->right_hi;
}

uint32_t skim_sah_partition(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                            const skim_sah_bin_map *map, const skim_sah_split *s,
                            skim_sah_range *left, skim_sah_range *right)
{
    skim_sah_range_clear(left);
    skim_sah_range_clear(right);
    const side_test test = side_test_of(s);
    uint32_t i = begin, j = end;
    for (;;) {
        simde__m128 from_left = simde_mm_setzero_ps(), from_right = simde_mm_setzero_ps();
        for (; i < j; ++i) {
            from_left = centroid_of(&prims[i]);
            if (goes_right(map, &test, from_left))
                break;
            extend_centroids(left, from_left);
        }
        for (; i < j; --j) {
            from_right = centroid_of(&prims[j - 1]);
            if (!goes_right(map, &test, from_right))
                break;
            extend_centroids(right, from_right);
        }
        if (i >= j)
            break;
        /* prims[i] goes right and prims[j - 1] left: swap them, and their
           centroids are already known. */
        skim_bvh_prim swap = prims[i];
        prims[i] = prims[j - 1];
        prims[j - 1] = swap;
        extend_centroids(left, from_right);
        extend_centroids(right, from_left);
        ++i;
        --j;
    }
    children_boxes(s, left, right);
    return i;
}

/* One chunk's primitives to scratch: left ones from *left_at up, right ones
   from *right_at up, in their order. */
static void scatter_chunk(const skim_bvh_prim *prims, skim_bvh_prim *scratch, uint32_t from,
                          uint32_t to, const skim_sah_bin_map *map, const side_test *test,
                          uint32_t left_at, uint32_t right_at, skim_sah_range *left,
                          skim_sah_range *right)
{
    for (uint32_t i = from; i < to; ++i) {
        simde__m128 centroid = centroid_of(&prims[i]);
        if (goes_right(map, test, centroid)) {
            scratch[right_at++] = prims[i];
            extend_centroids(right, centroid);
        } else {
            scratch[left_at++] = prims[i];
            extend_centroids(left, centroid);
        }
    }
}

uint32_t skim_sah_partition_chunked(skim_bvh_prim *prims, skim_bvh_prim *scratch, uint32_t begin,
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
            skim_sah_range_clear(&sides[2 * c]);
            skim_sah_range_clear(&sides[2 * c + 1]);
            uint32_t from = begin + c * SKIM_SAH_CHUNK;
            scatter_chunk(prims, scratch, from, from + chunk_size(n, c), map, &test, at[2 * c],
                          at[2 * c + 1], &sides[2 * c], &sides[2 * c + 1]);
        }
    }
    #pragma omp taskwait
    for (uint32_t c = 0; c < count; ++c) {
        #pragma omp task if(parallel) firstprivate(c)
        {
            uint32_t from = begin + c * SKIM_SAH_CHUNK;
            memcpy(prims + from, scratch + from, chunk_size(n, c) * sizeof *prims);
        }
    }
    #pragma omp taskwait
    skim_sah_range_clear(left);
    skim_sah_range_clear(right);
    for (uint32_t c = 0; c < count; ++c) {
        merge_centroids(left, &sides[2 * c]);
        merge_centroids(right, &sides[2 * c + 1]);
    }
    children_boxes(s, left, right);
    free(at);
    free(sides);
    *ok = true;
    return begin + left_total;
}
