/* The binned SAH's per-node steps (see bvh_sah_binning.h): Wald 2007's
   binning over centroid bounds, the sweep over bin boundaries, and the
   partition at the chosen one.

   Compiled twice: for the baseline instruction set and, on x86, with
   -mavx2 (SKIM_SAH_AVX2), where a primitive's box and a bin are each one
   256-bit register and a bin update is one min. bvh_sah.c picks one per
   build (steps_for_this_cpu); both perform the same IEEE
   operations (min, max, add, sub, mul, truncation; no FMA), so the tree
   is the same bit for bit on every machine.

   Where the instructions go and what this file does about it:
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
     maps need), in registers.
   - At the top of a large mesh every pass over a node streams tens of
     megabytes from memory.
     Large nodes are binned from a sample kept in cache, which their
     partition (partition_large) keeps up to date as it goes, and which
     is also where it computes the children's boxes: one pass a node. */
#include "bvh/bvh_sah_binning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(SKIM_SAH_AVX2)
#include <simde/x86/avx2.h>
#define SKIM_SAH_STEPS skim_sah_steps_avx2
#else
#define SKIM_SAH_STEPS skim_sah_steps_baseline
#endif

#include "bvh/bvh_sah_bin_ops.h"

static void bin_range(const skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                      const skim_sah_bin_map *map, skim_sah_bins *b)
{
    bins_clear(b, map->bin_count);
    const simde__m128i axis_base = axis_bases();
    char *base = (char *)b;
    uint32_t i = begin;
#if defined(SKIM_SAH_AVX2)
    /* Two primitives at a time (pair_bins): fewer instructions a
       primitive; the bins are updated in the same order. */
    const pair_map pairs = pair_map_of(map);
    for (; i + 1 < end; i += 2) {
        simde__m256 first = simde_mm256_load_ps((const float *)(const void *)&prims[i]);
        simde__m256 second = simde_mm256_load_ps((const float *)(const void *)&prims[i + 1]);
        simde__m256i at = pair_bins(&pairs, first, second);
        bins_extend(base, simde_mm256_castsi256_si128(at), whole_box(first));
        bins_extend(base, simde_mm256_extracti128_si256(at, 1), whole_box(second));
    }
#endif
    for (; i < end; ++i) {
        bin_box box;
        simde__m128 centroid = load_for_binning(&prims[i], &box);
        bins_extend(base, simde_mm_add_epi32(simde_mm_slli_epi32(bin_of(map, centroid), 6), axis_base),
                    box);
    }
}

/* Half areas of four boxes given as lo and negated hi: the extents come
   out negated (lo + -hi rounds to exactly -(hi - lo)) and are transposed
   so x, y and z of the four sit in three registers; each area multiplies
   them in pairs, so per box these are skim_sah_half_area's operations in
   its order: the same bits. */
static inline simde__m128 half_areas4(simde__m128 lo0, simde__m128 nh0, simde__m128 lo1, simde__m128 nh1,
                                      simde__m128 lo2, simde__m128 nh2, simde__m128 lo3, simde__m128 nh3)
{
    simde__m128 d0 = simde_mm_add_ps(lo0, nh0), d1 = simde_mm_add_ps(lo1, nh1), d2 = simde_mm_add_ps(lo2, nh2),
                d3 = simde_mm_add_ps(lo3, nh3);
    SIMDE_MM_TRANSPOSE4_PS(d0, d1, d2, d3);
    simde__m128 sum = simde_mm_add_ps(simde_mm_mul_ps(d0, d1), simde_mm_mul_ps(d1, d2));
    return simde_mm_add_ps(sum, simde_mm_mul_ps(d2, d0));
}

/* Boundary k separates bins [0, k) from [k, n). The sweeps keep four
   successive unions in registers and cost their areas at once; arrays are
   indexed from PAD so a group may run three boundaries past either end
   (those lanes are never chosen: their counts are 0). */
enum { PAD = 3, LANES = SKIM_SAH_MAX_BINS + 2 * PAD + 1 };

typedef struct axis_sweep {
    float    left_area[LANES], right_area[LANES];
    uint32_t left_count[LANES], right_count[LANES];
} axis_sweep;

/* Unions of bins [k, n) for k = n-1 down to 1, and of [0, k) for k = 1 up
   to n-1: their areas and counts. A group past either end reads the empty
   pad bins (and its lanes are out of range). */
static void sweep_axis(const skim_sah_bin *bin, int n, axis_sweep *w)
{
    simde__m128 lo = simde_mm_set1_ps(infinity), nh = lo;
    simde__m128 l[4], h[4];
    uint32_t count = 0;
    for (int k = n - 1; k > 0; k -= 4) {
        for (int j = 0; j < 4; ++j) {
            l[j] = lo = simde_mm_min_ps(lo, bin[k - j].lo);
            h[j] = nh = simde_mm_min_ps(nh, bin[k - j].neg_hi);
            w->right_count[PAD + k - j] = count += bin[k - j].count;
        }
        /* Lanes are boundaries k, k-1, k-2, k-3: stored reversed. */
        simde__m128 area = half_areas4(l[0], h[0], l[1], h[1], l[2], h[2], l[3], h[3]);
        simde_mm_storeu_ps(w->right_area + PAD + k - 3, simde_mm_shuffle_ps(area, area, SIMDE_MM_SHUFFLE(0, 1, 2, 3)));
    }
    lo = nh = simde_mm_set1_ps(infinity);
    count = 0;
    for (int k = 1; k < n; k += 4) {
        for (int j = 0; j < 4; ++j) {
            l[j] = lo = simde_mm_min_ps(lo, bin[k + j - 1].lo);
            h[j] = nh = simde_mm_min_ps(nh, bin[k + j - 1].neg_hi);
            w->left_count[PAD + k + j] = count += bin[k + j - 1].count;
        }
        simde_mm_storeu_ps(w->left_area + PAD + k, half_areas4(l[0], h[0], l[1], h[1], l[2], h[2], l[3], h[3]));
    }
}

/* The lowest cost A_left * N_left + A_right * N_right over boundaries
   [1, n) (the scalar expression's operations in its order, so the same
   bits), boundaries with an empty side skipped; its boundary in *at (the
   first if tied), 0 and +infinity if none. Each lane keeps its lowest cost
   and the first boundary that gave it (a strict "<", which also passes a
   NaN cost over); the lanes are reduced at the end. A scan for the first
   boundary with the least cost, after the fact, would be a loop whose
   exit is a mispredicted branch at every node. */
static float cheapest_boundary(const axis_sweep *w, int n, int *at)
{
    const simde__m128i zero = simde_mm_setzero_si128();
    const simde__m128 none = simde_mm_set1_ps(infinity);
    simde__m128 lowest = none;
    simde__m128i lowest_at = zero, k_lanes = simde_mm_set_epi32(4, 3, 2, 1);
    for (int k = 1; k < n; k += 4) {
        simde__m128i nl = simde_mm_loadu_si128((const simde__m128i *)(const void *)(w->left_count + PAD + k));
        simde__m128i nr = simde_mm_loadu_si128((const simde__m128i *)(const void *)(w->right_count + PAD + k));
        simde__m128 c = simde_mm_add_ps(
            simde_mm_mul_ps(simde_mm_loadu_ps(w->left_area + PAD + k), simde_mm_cvtepi32_ps(nl)),
            simde_mm_mul_ps(simde_mm_loadu_ps(w->right_area + PAD + k), simde_mm_cvtepi32_ps(nr)));
        simde__m128 side_empty = simde_mm_castsi128_ps(
            simde_mm_or_si128(simde_mm_cmpeq_epi32(nl, zero), simde_mm_cmpeq_epi32(nr, zero)));
        /* Selects, as (m and a) or (b and not m); andnot(a, b) is ~a & b:
           c = side_empty ? none : c, lowest_at = lower ? k_lanes : lowest_at. */
        c = simde_mm_or_ps(simde_mm_and_ps(side_empty, none), simde_mm_andnot_ps(side_empty, c));
        simde__m128i lower = simde_mm_castps_si128(simde_mm_cmplt_ps(c, lowest));
        lowest = simde_mm_min_ps(c, lowest);
        lowest_at = simde_mm_or_si128(simde_mm_and_si128(lower, k_lanes), simde_mm_andnot_si128(lower, lowest_at));
        k_lanes = simde_mm_add_epi32(k_lanes, simde_mm_set1_epi32(4));
    }
    simde__m128 m = simde_mm_min_ps(lowest, simde_mm_shuffle_ps(lowest, lowest, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    m = simde_mm_min_ps(m, simde_mm_shuffle_ps(m, m, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    float best = simde_mm_cvtss_f32(m);
    *at = 0;
    if (best < infinity) {
        /* The first boundary among the lanes that reached the least cost. */
        int tied = simde_mm_movemask_ps(simde_mm_cmpeq_ps(lowest, m));
        int32_t lane_at[4];
        simde_mm_storeu_si128((simde__m128i *)(void *)lane_at, lowest_at);
        int first = INT32_MAX;
        for (int lane = 0; lane < 4; ++lane) {
            int candidate = (tied >> lane) & 1 ? lane_at[lane] : INT32_MAX;
            first = candidate < first ? candidate : first;
        }
        *at = first;
    }
    return best;
}

/* The union of bins [from, to) of one axis, its upper corner made positive. */
static void bins_union(const skim_sah_bin *bin, int from, int to, simde__m128 *lo, simde__m128 *hi)
{
    simde__m128 l = simde_mm_set1_ps(infinity), nh = l;
    for (int k = from; k < to; ++k) {
        l = simde_mm_min_ps(l, bin[k].lo);
        nh = simde_mm_min_ps(nh, bin[k].neg_hi);
    }
    *lo = l;
    *hi = simde_mm_xor_ps(nh, simde_mm_set1_ps(-0.0f));
}

static skim_sah_split best_split(const skim_sah_bins *b, const skim_sah_bin_map *map,
                                 const skim_sah_range *r)
{
    const int n = map->bin_count;
    skim_sah_split best = { .found = false, .cost = infinity };
    float centroid_lo[4], centroid_hi[4];
    simde_mm_storeu_ps(centroid_lo, r->centroid_lo);
    simde_mm_storeu_ps(centroid_hi, r->centroid_hi);
    axis_sweep w;
    for (int k = n; k < n + PAD + 1; ++k) { /* boundaries past the last: never chosen */
        w.right_count[PAD + k] = 0;
        w.right_area[PAD + k] = 0.0f;
    }
    for (int axis = 0; axis < 3; ++axis) {
        if (!(centroid_hi[axis] > centroid_lo[axis]))
            continue;
        sweep_axis(skim_sah_bins_of_const(b, axis), n, &w);
        int k;
        float cost = cheapest_boundary(&w, n, &k);
        if (k && cost < best.cost)
            best = (skim_sah_split){ .found = true, .axis = axis, .bin = k, .cost = cost,
                                     .left_count = w.left_count[PAD + k], .right_count = w.right_count[PAD + k],
                                     .left_area = w.left_area[PAD + k], .right_area = w.right_area[PAD + k] };
    }
    if (best.found) {
        bins_union(skim_sah_bins_of_const(b, best.axis), 0, best.bin, &best.left_lo, &best.left_hi);
        bins_union(skim_sah_bins_of_const(b, best.axis), best.bin, n, &best.right_lo, &best.right_hi);
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

static inline void centroid_bounds_store(const centroid_bounds *b, skim_sah_range *r)
{
    r->centroid_lo = b->lo;
    r->centroid_hi = b->hi;
}

/* In 16-byte halves, spelled out: a struct copy, which GCC 12 does in one
   256-bit register in the AVX2 build, left the upper halves dirty without
   the vzeroupper it owes on return, and the legacy SSE code of build_node
   then pays the transition penalty. */
static inline void copy_prim(skim_bvh_prim *to, const skim_bvh_prim *from)
{
    simde_mm_store_ps(to->lo, simde_mm_load_ps(from->lo));
    simde_mm_store_ps(to->hi, simde_mm_load_ps(from->hi));
}

static inline void swap_prims(skim_bvh_prim *a, skim_bvh_prim *b)
{
    simde__m128 lo = simde_mm_load_ps(a->lo), hi = simde_mm_load_ps(a->hi);
    simde_mm_store_ps(a->lo, simde_mm_load_ps(b->lo));
    simde_mm_store_ps(a->hi, simde_mm_load_ps(b->hi));
    simde_mm_store_ps(b->lo, lo);
    simde_mm_store_ps(b->hi, hi);
}

/* Hoare's partition with its branches, for nodes of HOARE_MIN_PRIMS or
   more: there the sides come in long runs (always on the terrain's grid),
   its branches are predicted and it beats the block partition below, which
   does the same permutation with more instructions (HOARE_MIN_PRIMS
   measured with bench/bvh/bench_bvh.c, docs/performance.md). */
static inline uint32_t hoare(skim_bvh_prim *prims, uint32_t begin, uint32_t end, const skim_sah_bin_map *map,
                             const skim_sah_split *s, skim_sah_range *left, skim_sah_range *right,
                             const bool gather_boxes, skim_bvh_prim *sample)
{
    _Static_assert((SKIM_SAH_SAMPLE & (SKIM_SAH_SAMPLE - 1)) == 0, "a power of two");
    const side_test test = side_test_of(s);
    centroid_bounds on_left = centroid_bounds_empty(), on_right = centroid_bounds_empty();
    centroid_bounds left_box = centroid_bounds_empty(), right_box = centroid_bounds_empty();
#define ADD_BOX(box, p)                                                   \
    if (gather_boxes) {                                                   \
        (box).lo = simde_mm_min_ps((box).lo, skim_sah_load_lo(p));        \
        (box).hi = simde_mm_max_ps((box).hi, skim_sah_load_hi(p));        \
    }
    /* Position at holds its final primitive: the sample's copy of it. */
#define FINAL(at)                                                         \
    if (sample && (at) % SKIM_SAH_SAMPLE == 0)                            \
        copy_prim(&sample[(at) / SKIM_SAH_SAMPLE], &prims[at]);
    uint32_t i = begin, j = end;
    for (;;) {
        simde__m128 from_left = simde_mm_setzero_ps(), from_right = simde_mm_setzero_ps();
        for (; i < j; ++i) {
            from_left = centroid_of(&prims[i]);
            if (goes_right(map, &test, from_left))
                break;
            centroid_bounds_add(&on_left, from_left);
            ADD_BOX(left_box, &prims[i])
            FINAL(i)
        }
        for (; i < j; --j) {
            from_right = centroid_of(&prims[j - 1]);
            if (!goes_right(map, &test, from_right))
                break;
            centroid_bounds_add(&on_right, from_right);
            ADD_BOX(right_box, &prims[j - 1])
            FINAL(j - 1)
        }
        if (i >= j)
            break;
        /* prims[i] goes right and prims[j - 1] left: swap them, and their
           centroids are already known. */
        swap_prims(&prims[i], &prims[j - 1]);
        centroid_bounds_add(&on_left, from_right);
        centroid_bounds_add(&on_right, from_left);
        ADD_BOX(left_box, &prims[i])
        ADD_BOX(right_box, &prims[j - 1])
        FINAL(i)
        FINAL(j - 1)
        ++i;
        --j;
    }
#undef ADD_BOX
#undef FINAL
    centroid_bounds_store(&on_left, left);
    centroid_bounds_store(&on_right, right);
    children_boxes(s, left, right);
    if (gather_boxes) {
        left->lo = left_box.lo;
        left->hi = left_box.hi;
        right->lo = right_box.lo;
        right->hi = right_box.hi;
    }
    return i;
}

static uint32_t partition_hoare(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                                const skim_sah_bin_map *map, const skim_sah_split *s, skim_sah_range *left,
                                skim_sah_range *right)
{
    return hoare(prims, begin, end, map, s, left, right, false, NULL);
}

/* Hoare's partition for a large node, binned from its sample: the split's
   counts and boxes are the sample's, so the children's boxes are gathered
   from the primitives, and the sample is brought up to date as positions
   take their final primitives. In place, by the thread that owns the
   node: the same permutation for any thread count. */
static uint32_t partition_large(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                                const skim_sah_bin_map *map, const skim_sah_split *s, skim_sah_range *left,
                                skim_sah_range *right, skim_bvh_prim *sample)
{
    return hoare(prims, begin, end, map, s, left, right, true, sample);
}


/* The centroid bounds of prims [begin, end), in four independent min and
   max chains: one chain would wait out min's and max's latency at every
   primitive. */
static centroid_bounds centroid_bounds_of(const skim_bvh_prim *prims, uint32_t begin, uint32_t end)
{
    centroid_bounds b0 = centroid_bounds_empty(), b1 = b0, b2 = b0, b3 = b0;
    uint32_t i = begin;
    for (; i + 3 < end; i += 4) {
        centroid_bounds_add(&b0, centroid_of(&prims[i]));
        centroid_bounds_add(&b1, centroid_of(&prims[i + 1]));
        centroid_bounds_add(&b2, centroid_of(&prims[i + 2]));
        centroid_bounds_add(&b3, centroid_of(&prims[i + 3]));
    }
    for (; i < end; ++i)
        centroid_bounds_add(&b0, centroid_of(&prims[i]));
    b0.lo = simde_mm_min_ps(simde_mm_min_ps(b0.lo, b1.lo), simde_mm_min_ps(b2.lo, b3.lo));
    b0.hi = simde_mm_max_ps(simde_mm_max_ps(b0.hi, b1.hi), simde_mm_max_ps(b2.hi, b3.hi));
    return b0;
}

/* Hoare's partition, without its branches. Hoare's scans swap the k-th
   primitive from the left that goes right with the k-th from the right
   that goes left, for as long as the first is left of the second: with m
   primitives going left (s->left_count, which the bins counted with the
   same test), exactly the ones in [begin, begin + m) that go right with
   the ones in [begin + m, end) that go left, in that order. So the same
   permutation comes from scanning each side in blocks, writing every
   position and advancing the write cursor by the test's bit (no branch to
   mispredict: the sides of successive primitives are close to random), and
   swapping the listed pairs: Edelkamp and Weiss 2016, "BlockQuicksort:
   avoiding branch mispredictions in quicksort". Hoare's loop mispredicts
   at the end of every run. The children's centroid bounds are gathered
   afterwards, each over its contiguous side (min and max: the same bits
   in any order). */
enum { PARTITION_BLOCK = 64, HOARE_MIN_PRIMS = 256 };

static uint32_t partition(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                          const skim_sah_bin_map *map, const skim_sah_split *s, skim_sah_range *left,
                          skim_sah_range *right)
{
    if (end - begin >= HOARE_MIN_PRIMS)
        return partition_hoare(prims, begin, end, map, s, left, right);
    const side_test test = side_test_of(s);
    const uint32_t mid = begin + s->left_count;
    uint32_t wrong_left[PARTITION_BLOCK], wrong_right[PARTITION_BLOCK];
    uint32_t i = begin, j = end;            /* the next to scan: i up to mid, j - 1 down to mid */
    uint32_t left_first = 0, left_listed = 0, right_first = 0, right_listed = 0;
    for (;;) {
        bool scanned = false;
        if (left_first == left_listed && i < mid) {
            uint32_t stop = mid - i > PARTITION_BLOCK ? i + PARTITION_BLOCK : mid;
            left_first = left_listed = 0;
            for (; i < stop; ++i) {
                wrong_left[left_listed] = i;
                left_listed += goes_right(map, &test, centroid_of(&prims[i]));
            }
            scanned = true;
        }
        if (right_first == right_listed && j > mid) {
            uint32_t stop = j - mid > PARTITION_BLOCK ? j - PARTITION_BLOCK : mid;
            right_first = right_listed = 0;
            for (; j > stop; --j) {
                wrong_right[right_listed] = j - 1;
                right_listed += !goes_right(map, &test, centroid_of(&prims[j - 1]));
            }
            scanned = true;
        }
        uint32_t pairs = left_listed - left_first < right_listed - right_first ? left_listed - left_first
                                                                              : right_listed - right_first;
        for (uint32_t k = 0; k < pairs; ++k) {
            swap_prims(&prims[wrong_left[left_first + k]], &prims[wrong_right[right_first + k]]);
        }
        left_first += pairs;
        right_first += pairs;
        /* Done when both sides are scanned (their lists then both empty:
           as many go right on the left as go left on the right). */
        if (!scanned && pairs == 0)
            break;
    }
    centroid_bounds on_left = centroid_bounds_of(prims, begin, mid), on_right = centroid_bounds_of(prims, mid, end);
    centroid_bounds_store(&on_left, left);
    centroid_bounds_store(&on_right, right);
    children_boxes(s, left, right);
    return mid;
}

const skim_sah_steps SKIM_SAH_STEPS = {
    .bin = bin_range,
    .best_split = best_split,
    .partition = partition,
    .partition_large = partition_large,
};
