/* A second look at the binned build's small leaves, with every 2-partition
   of their primitives and a lower split weight than the build's.

   Why: the build decides whether a node of at most one packet (4
   triangles) is a leaf with its binned split only, and prices a split at
   half a packet (bvh_sah.c, split_cost). Its leaves hold more triangles
   than a full-sweep build's with the same rules: on oa_dm4_hull 2,811
   leaves against 2,893, and the SAH's leaf term (area x triangles, the
   part the treelet pass cannot touch: it moves whole subtrees) 11.93
   against 11.74, which left its wide SAH cost 0.9% above the full sweep's.
   Wald's SAH (2007, section 2) prices a leaf at its triangles; in the
   8-wide tree the node a split adds is almost always folded into a wide
   node that is visited anyway (the collapse's leaves cost nothing to
   place), so the split costs less than a node visit.

   The test here is the build's leaf test, ceil(n / 4) packets against
   split + A_left / A + A_right / A (one packet a side), with the split at
   LEAF_SPLIT_WEIGHT packets instead of 0.5 and over all 2^(n-1) - 1
   partitions (the build's test at 0.5 over all of them changes no leaf on
   the three scenes: its binned split is already the best there).
   Measured, wide SAH against the full sweep, oa_dm1 / oa_dm4_hull /
   default (a pass after the build, same test): weight 0.5 unchanged
   0.9885 / 1.0092 / 0.9521; 0.4 0.9853 / 0.9981 / 0.9518; 0.375 0.9811 /
   0.9963 / 0.9516; 0.3 0.9732 / 0.9882 / 0.9504; 0.25 0.9729 / 0.9816 /
   0.9504; the conventional SAH's own test (node 1, triangle 1) splits
   far more (oa_dm4_hull 3,844 leaves, 0.856). Sweep instructions
   (callgrind, bench_sweep_path, 5000 sweeps) at 0.375: oa_dm4_hull -0.07%,
   oa_dm1 +0.06%, default +0.02%; at 0.25: -0.15%, +0.2%, +0.7%.

   Deterministic: the partitions are tried in a fixed order, ties keep the
   first, and the build calls this from the one thread that builds the
   leaf's subtree. */
#include "bvh_leaf_split.h"

#include "bvh_sah_binning.h" /* skim_sah_load_lo, skim_sah_half_area */

#include <math.h>
#include <string.h>

/* In packets, as the build's split_cost (0.5): see above. */
static const float LEAF_SPLIT_WEIGHT = 0.375f;

static void store_box(skim_bvh_binary_node *node, simde__m128 lo, simde__m128 hi)
{
    float l[4], h[4];
    simde_mm_storeu_ps(l, lo);
    simde_mm_storeu_ps(h, hi);
    memcpy(node->lo, l, sizeof node->lo);
    memcpy(node->hi, h, sizeof node->hi);
}

/* The leaf at slot over prims[first, first + n) as two children when that
   passes the test; returns its height (0 while a leaf). */
static uint32_t split_at(skim_bvh_binary_node *nodes, uint8_t *height, skim_bvh_prim *prims, uint32_t slot,
                         uint32_t depth, uint32_t max_depth, uint32_t *dense_next)
{
    skim_bvh_binary_node *node = &nodes[slot];
    const uint32_t n = node->count, first = node->first;
    if (n < 2 || n > SKIM_BVH_LEAF_SPLIT_MAX || depth >= max_depth)
        return 0;
    simde__m128 lo[SKIM_BVH_LEAF_SPLIT_MAX], hi[SKIM_BVH_LEAF_SPLIT_MAX];
    float area[SKIM_BVH_LEAF_SPLIT_MAX];
    for (uint32_t i = 0; i < n; ++i) {
        lo[i] = skim_sah_load_lo(&prims[first + i]);
        hi[i] = skim_sah_load_hi(&prims[first + i]);
        area[i] = skim_sah_half_area(lo[i], hi[i]);
    }
    const float whole = skim_bvh_half_area(node->lo, node->hi);
    if (!(whole > 0.0f))
        return 0;
    /* Both sides of any partition: one holds the largest primitive, the
       other at least the smallest, so A_left + A_right >= their sum. Where
       that already fails the test (most leaves: the build's surely_leaf
       bound, for this weight) no partition is tried. */
    float largest = 0.0f, smallest = INFINITY;
    uint32_t at_largest = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (area[i] > largest) {
            largest = area[i];
            at_largest = i;
        }
    for (uint32_t i = 0; i < n; ++i)
        smallest = i != at_largest && area[i] < smallest ? area[i] : smallest;
    if (!(1.0f > LEAF_SPLIT_WEIGHT + (largest + smallest) / whole))
        return 0;
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
        store_box(c, best_box[2 * side], best_box[2 * side + 1]);
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

void skim_bvh_split_leaf(skim_bvh_binary_node *nodes, uint8_t *height, skim_bvh_prim *prims, uint32_t slot,
                         uint32_t depth, uint32_t max_depth, uint32_t *dense_next)
{
    uint32_t h = split_at(nodes, height, prims, slot, depth, max_depth, dense_next);
    if (height)
        height[slot] = (uint8_t)h;
}
