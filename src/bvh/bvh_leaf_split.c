/* A second look at the binned build's small leaves, with every 2-partition
   of their primitives and a lower split weight than the build's.

   Why: the build decides whether a node of at most one packet (4
   triangles) is a leaf with its binned split only, and prices a split at
   half a packet (bvh_sah.c, split_cost). Its leaves hold more triangles
   than a full-sweep build's with the same rules, so the SAH's leaf term
   (area x triangles, the part the treelet pass cannot touch: it moves
   whole subtrees) and the wide SAH cost stay above the full sweep's.
   Wald's SAH (2007, section 2) prices a leaf at its triangles; in the
   8-wide tree the node a split adds is almost always folded into a wide
   node that is visited anyway (the collapse's leaves cost nothing to
   place), so the split costs less than a node visit.

   The test here is the build's leaf test, ceil(n / 4) packets against
   split + A_left / A + A_right / A (one packet a side), with the split at
   LEAF_SPLIT_WEIGHT packets instead of 0.5 and over all 2^(n-1) - 1
   partitions (the build's test at 0.5 over all of them changes no leaf on
   the three scenes: its binned split is already the best there). The
   weight is where the wide SAH cost comes down to the full sweep's
   without the sweeps' instructions going up; lower weights split more
   leaves, and the conventional SAH's own test (node 1, triangle 1) far
   more (measured with bench/bvh/bench_bvh.c and bench_sweep_path.c,
   docs/performance.md).

   Deterministic: the partitions are tried in a fixed order, ties keep the
   first, and the build calls this from the one thread that builds the
   leaf's subtree. */
#include "bvh/bvh_leaf_split.h"

#include "bvh/bvh_sah_binning.h" /* skim_sah_load_lo, skim_sah_half_area */

#include <math.h>
#include <simde/x86/sse.h>
#include <string.h>

/* In packets, as the build's split_cost (0.5): see above. */
static const float LEAF_SPLIT_WEIGHT = SKIM_BVH_LEAF_SPLIT_WEIGHT;

/* Whether any 2-partition of the leaf at node over prims[first, first + n)
   (2 <= n <= 4) can pass the test, by a bound; loads the boxes into lo
   and hi for the search. Nearly every leaf stops here (2,380 of oa_dm1's
   2,433 leaves of 2 to 4 triangles), so it is kept short: the areas four
   at a time, the boxes transposed to one axis a vector (a missing fourth
   is the last again, which changes neither the largest area nor the
   smallest), summed in skim_sah_half_area's order. */
static inline bool worth_a_search(const skim_bvh_binary_node *node, const skim_bvh_prim *prims, uint32_t first,
                                  uint32_t n, simde__m128 lo[SKIM_BVH_LEAF_SPLIT_MAX],
                                  simde__m128 hi[SKIM_BVH_LEAF_SPLIT_MAX])
{
    for (uint32_t i = 0; i < SKIM_BVH_LEAF_SPLIT_MAX; ++i) {
        const skim_bvh_prim *p = &prims[first + (i < n ? i : n - 1)];
        lo[i] = skim_sah_load_lo(p);
        hi[i] = skim_sah_load_hi(p);
    }
    simde__m128 d[4] = { simde_mm_sub_ps(hi[0], lo[0]), simde_mm_sub_ps(hi[1], lo[1]),
                         simde_mm_sub_ps(hi[2], lo[2]), simde_mm_sub_ps(hi[3], lo[3]) };
    SIMDE_MM_TRANSPOSE4_PS(d[0], d[1], d[2], d[3]);
    simde__m128 area = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(d[0], d[1]), simde_mm_mul_ps(d[1], d[2])),
                                       simde_mm_mul_ps(d[2], d[0]));
    simde__m128 most = simde_mm_max_ps(area, simde_mm_shuffle_ps(area, area, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    simde__m128 least = simde_mm_min_ps(area, simde_mm_shuffle_ps(area, area, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    most = simde_mm_max_ps(most, simde_mm_shuffle_ps(most, most, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    least = simde_mm_min_ps(least, simde_mm_shuffle_ps(least, least, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    /* One side of any partition holds the largest primitive, the other
       another, at least the smallest, so A_left + A_right is at least the
       sum of the two (a half area only grows with its box, in float too).
       A leaf of no area (whole 0) fails the test too. */
    const float whole = skim_bvh_half_area(node->lo, node->hi);
    return 1.0f > LEAF_SPLIT_WEIGHT + (simde_mm_cvtss_f32(most) + simde_mm_cvtss_f32(least)) / whole;
}

static uint32_t split_at(skim_bvh_binary_node *nodes, uint8_t *height, skim_bvh_prim *prims, uint32_t slot,
                         uint32_t depth, uint32_t max_depth, uint32_t *dense_next);

/* The leaf at slot, whose boxes worth_a_search loaded, as two children
   when the best partition passes the test; returns its height (0 while
   a leaf). */
static uint32_t search(skim_bvh_binary_node *nodes, uint8_t *height, skim_bvh_prim *prims, uint32_t slot,
                       uint32_t depth, uint32_t max_depth, uint32_t *dense_next,
                       const simde__m128 lo[SKIM_BVH_LEAF_SPLIT_MAX], const simde__m128 hi[SKIM_BVH_LEAF_SPLIT_MAX])
{
    skim_bvh_binary_node *node = &nodes[slot];
    const uint32_t n = node->count, first = node->first;
    const float whole = skim_bvh_half_area(node->lo, node->hi);
    /* Every 2-partition once: the last primitive always on the right. */
    float best = INFINITY;
    uint32_t best_mask = 0;
    simde__m128 best_box[4];
    for (uint32_t mask = 1; mask < 1u << (n - 1); ++mask) {
        simde__m128 box[4] = { simde_mm_set1_ps(INFINITY), simde_mm_set1_ps(-INFINITY),
                               simde_mm_set1_ps(INFINITY), simde_mm_set1_ps(-INFINITY) };
        for (uint32_t i = 0; i < n; ++i) {
            int side = (mask >> i & 1u) ? 0 : 2;
            box[side] = simde_mm_min_ps(box[side], lo[i]);
            box[side + 1] = simde_mm_max_ps(box[side + 1], hi[i]);
        }
        float c = skim_sah_half_area(box[0], box[1]) + skim_sah_half_area(box[2], box[3]);
        if (c < best) {
            best = c;
            best_mask = mask;
            memcpy(best_box, box, sizeof box);
        }
    }
    /* The build's leaf test (one packet a side, n <= 4): split when
       1 > weight + (A_left + A_right) / A. */
    if (!(1.0f > LEAF_SPLIT_WEIGHT + best / whole))
        return 0;
    skim_bvh_prim moved[SKIM_BVH_LEAF_SPLIT_MAX];
    uint32_t left = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (best_mask >> i & 1u)
            moved[left++] = prims[first + i];
    for (uint32_t i = 0, k = left; i < n; ++i)
        if (!(best_mask >> i & 1u))
            moved[k++] = prims[first + i];
    memcpy(prims + first, moved, n * sizeof *moved);
    /* Children numbered as the build numbers a small subtree's: depth-first
       pre-order from *dense_next. */
    uint32_t child[2], h = 0;
    for (int side = 0; side < 2; ++side) {
        child[side] = (*dense_next)++;
        skim_bvh_binary_node *c = &nodes[child[side]];
        skim_bvh_node_set_box(c, best_box[2 * side], best_box[2 * side + 1]);
        c->first = side ? first + left : first;
        c->count = side ? n - left : left;
        c->right = 0;
        uint32_t below = split_at(nodes, height, prims, child[side], depth + 1, max_depth, dense_next);
        if (height)
            height[child[side]] = (uint8_t)below;
        h = below > h ? below : h;
    }
    node = &nodes[slot];
    node->first = child[0];
    node->right = child[1];
    node->count = 0;
    return h + 1;
}

/* A leaf the search made: looked at again in turn. */
static uint32_t split_at(skim_bvh_binary_node *nodes, uint8_t *height, skim_bvh_prim *prims, uint32_t slot,
                         uint32_t depth, uint32_t max_depth, uint32_t *dense_next)
{
    const skim_bvh_binary_node *node = &nodes[slot];
    simde__m128 lo[SKIM_BVH_LEAF_SPLIT_MAX], hi[SKIM_BVH_LEAF_SPLIT_MAX];
    if (node->count < 2 || depth >= max_depth || !worth_a_search(node, prims, node->first, node->count, lo, hi))
        return 0;
    return search(nodes, height, prims, slot, depth, max_depth, dense_next, lo, hi);
}

void skim_bvh_split_leaf(skim_bvh_binary_node *nodes, uint8_t *height, skim_bvh_prim *prims, uint32_t slot,
                         uint32_t depth, uint32_t max_depth, uint32_t *dense_next)
{
    if (nodes[slot].count > SKIM_BVH_LEAF_SPLIT_MAX)
        return;
    const uint32_t h = split_at(nodes, height, prims, slot, depth, max_depth, dense_next);
    if (h && height) /* while a leaf, the build has set its height (0) */
        height[slot] = (uint8_t)h;
}
