/* Treelet restructuring of the binned build's binary tree: Karras and Aila
   2013, "Fast parallel construction of high-quality bounding volume
   hierarchies" (TRBVH), section 3, run serially bottom-up, one pass.

   Why a pass after the build: the top-down build is greedy, each split
   chosen without looking below it (and binning chooses on a coarse grid),
   so its tree costs more than a full-sweep build's. A treelet is a node
   with the largest subtrees below it taken as its leaves (up to
   TREELET_LEAVES); dynamic
   programming over their subsets finds the binary tree over them with the
   least total area of internal nodes, which replaces the treelet when it
   is smaller. Subtrees move whole, so the leaves (which triangles share
   one) do not change and neither does the SAH's leaf term; what improves
   is the area of the internal nodes, the only node term either cost has
   (1 a node in the conventional SAH the statistics report, split_cost in
   the builder's: the same minimiser), and the nodes the 8-wide collapse
   picks from.

   Treelets of six leaves rather than Kensler's rotations ("Tree rotations
   for improving bounding volume hierarchies", 2008: the 3- and 4-leaf
   cases of the same search), which leave more of the gap to the full
   sweep even over many passes; seven leaves gain little more at three
   times the work (the DP over subsets is ~3^n / 2 sums). Measured with
   bench/bvh/bench_bvh.c (wide SAH against the full sweep,
   docs/performance.md).

   Deterministic: the pass is serial, in a fixed order, and every choice
   depends only on boxes (ties keep the first candidate). */
#include "bvh/bvh_sah_binning.h" /* skim_sah_half_area */

#include <math.h>
#include <stddef.h>
#include <simde/x86/sse2.h>
#include <stdlib.h>

enum {
    TREELET_LEAVES = SKIM_BVH_TREELET_LEAVES,
    SUBSETS = 1 << TREELET_LEAVES,
};

typedef struct treelet_pass {
    skim_bvh_binary_node *nodes;
    uint8_t              *height;     /* of each slot's subtree (leaves 0), kept exact */
    uint32_t              min_prims;  /* restructure nodes over at least this many primitives */
    uint32_t              max_depth;  /* no restructuring may make the tree deeper than this */
    uint32_t              changed;
} treelet_pass;

/* The DP's working set for one treelet, on the stack of the caller. */
typedef struct treelet {
    simde__m128 lo[SUBSETS], hi[SUBSETS];
    float       cost[SUBSETS];
    uint8_t     split[SUBSETS]; /* set by planned_height for the subsets the new tree uses */
    uint32_t    leaf[TREELET_LEAVES];
    uint32_t    internal[TREELET_LEAVES - 1]; /* the treelet's node slots, root first */
    int         leaves, internals;
} treelet;

static inline simde__m128 xyz(simde__m128 v)
{
    return simde_mm_and_ps(v, simde_mm_castsi128_ps(simde_mm_set_epi32(0, -1, -1, -1)));
}

/* A node's box: lo[0..2] then hi[0] and hi[0..2] then first, the fourth
   lane cleared (first's bits could be a denormal operand). */
static inline simde__m128 node_lo(const skim_bvh_binary_node *n)
{
    return xyz(simde_mm_loadu_ps((const float *)(const void *)n));
}
static inline simde__m128 node_hi(const skim_bvh_binary_node *n)
{
    return xyz(simde_mm_loadu_ps((const float *)(const void *)((const char *)n + offsetof(skim_bvh_binary_node, hi))));
}

/* Grows the treelet at root: starting from its two children, the leaf
   with the largest area is replaced by its children until there are
   TREELET_LEAVES (the largest subtrees are where a better topology saves
   the most: Karras and Aila's rule). Ties keep the first. */
static void form_treelet(const skim_bvh_binary_node *nodes, uint32_t root, treelet *t)
{
    float area[TREELET_LEAVES];
    t->internal[0] = root;
    t->internals = 1;
    t->leaf[0] = nodes[root].first;
    t->leaf[1] = nodes[root].right;
    t->leaves = 2;
    for (int i = 0; i < 2; ++i) {
        const skim_bvh_binary_node *n = &nodes[t->leaf[i]];
        area[i] = n->count ? -1.0f : skim_bvh_half_area(n->lo, n->hi);
    }
    while (t->leaves < TREELET_LEAVES) {
        int best = -1;
        float largest = -1.0f;
        for (int i = 0; i < t->leaves; ++i)
            if (area[i] > largest) {
                largest = area[i];
                best = i;
            }
        if (best < 0)
            break;
        uint32_t slot = t->leaf[best];
        t->internal[t->internals++] = slot;
        t->leaf[best] = nodes[slot].first;
        t->leaf[t->leaves] = nodes[slot].right;
        t->leaves++;
        for (int i = 0; i < 2; ++i) {
            int at = i ? t->leaves - 1 : best;
            const skim_bvh_binary_node *n = &nodes[t->leaf[at]];
            area[at] = n->count ? -1.0f : skim_bvh_half_area(n->lo, n->hi);
        }
    }
}

/* The least internal area over every binary tree on the treelet's leaves:
   cost[s] = area(s) + min over splits of s into p and s - p of cost[p] +
   cost[s - p], singletons 0 (their subtrees are kept as they are). Only
   splits with the lowest leaf in p are tried (each once). Subsets are
   visited in increasing order, so a split's parts are already done. */
static void optimise(const skim_bvh_binary_node *nodes, treelet *t)
{
    const uint32_t full = (1u << t->leaves) - 1;
    for (int i = 0; i < t->leaves; ++i) {
        uint32_t s = 1u << i;
        t->lo[s] = node_lo(&nodes[t->leaf[i]]);
        t->hi[s] = node_hi(&nodes[t->leaf[i]]);
        t->cost[s] = 0.0f;
    }
    for (uint32_t s = 3; s <= full; ++s) {
        uint32_t low = s & (0u - s), rest = s ^ low;
        if (!rest)
            continue;
        t->lo[s] = simde_mm_min_ps(t->lo[low], t->lo[rest]);
        t->hi[s] = simde_mm_max_ps(t->hi[low], t->hi[rest]);
        /* p = low + every proper subset of rest (rest itself would leave
           nothing on the other side). Only the least cost here, without
           branches (two chains, for the min's latency); which split gives
           it is found again for the few subsets the new tree uses
           (best_split). */
        float best0 = INFINITY, best1 = INFINITY;
        uint32_t sub = (rest - 1) & rest;
        for (; sub; sub = (sub - 1) & rest) {
            float c = t->cost[low | sub] + t->cost[rest ^ sub];
            best0 = c < best0 ? c : best0;
            sub = (sub - 1) & rest;
            c = t->cost[low | sub] + t->cost[rest ^ sub];
            best1 = c < best1 ? c : best1;
            if (!sub)
                break;
        }
        if (!sub) {
            float c = t->cost[low] + t->cost[rest];
            best0 = c < best0 ? c : best0;
        }
        t->cost[s] = skim_sah_half_area(t->lo[s], t->hi[s]) + (best0 < best1 ? best0 : best1);
    }
}

/* The split of s that optimise's least cost came from: the first, in the
   enumeration order, whose cost equals the least (the same float sums). */
static uint32_t best_split(const treelet *t, uint32_t s)
{
    uint32_t low = s & (0u - s), rest = s ^ low;
    float best = INFINITY;
    uint32_t part = low;
    for (uint32_t sub = (rest - 1) & rest;; sub = (sub - 1) & rest) {
        float c = t->cost[low | sub] + t->cost[rest ^ sub];
        if (c < best) {
            best = c;
            part = low | sub;
        }
        if (!sub)
            break;
    }
    return part;
}

/* Writes the optimal tree over subset s at slot (taking further internal
   slots from the treelet's spare ones) and returns its height. */
static uint32_t emit(treelet_pass *pass, treelet *t, uint32_t s, uint32_t slot, int *spare)
{
    uint32_t parts[2] = { t->split[s], s ^ t->split[s] }, child[2], height = 0;
    for (int c = 0; c < 2; ++c) {
        uint32_t h;
        if ((parts[c] & (parts[c] - 1)) == 0) {
            child[c] = t->leaf[__builtin_ctz(parts[c])];
            h = pass->height[child[c]];
        } else {
            child[c] = t->internal[(*spare)++];
            h = emit(pass, t, parts[c], child[c], spare);
        }
        height = h > height ? h : height;
    }
    skim_bvh_binary_node *n = &pass->nodes[slot];
    skim_bvh_node_set_box(n, t->lo[s], t->hi[s]);
    n->first = child[0];
    n->right = child[1];
    n->count = 0;
    pass->height[slot] = (uint8_t)(height + 1);
    return height + 1;
}

/* The height the optimal tree over s would have (emit's, without writing),
   finding the splits emit then takes. */
static uint32_t planned_height(const treelet_pass *pass, treelet *t, uint32_t s)
{
    if ((s & (s - 1)) == 0)
        return pass->height[t->leaf[__builtin_ctz(s)]];
    uint32_t split = best_split(t, s);
    t->split[s] = (uint8_t)split;
    uint32_t a = planned_height(pass, t, split), b = planned_height(pass, t, s ^ split);
    return 1 + (a > b ? a : b);
}

bool skim_bvh_treelet_at(skim_bvh_binary_node *nodes, uint8_t *height, uint32_t slot, uint32_t depth,
                         uint32_t max_depth)
{
    treelet_pass pass = { .nodes = nodes, .height = height, .max_depth = max_depth };
    skim_bvh_set_height(nodes, height, slot);
    treelet t;
    form_treelet(nodes, slot, &t);
    if (t.leaves < 3)
        return false;
    optimise(nodes, &t);
    /* What the treelet's internal nodes cost now. */
    float current = 0.0f;
    for (int i = 0; i < t.internals; ++i)
        current += skim_bvh_half_area(nodes[t.internal[i]].lo, nodes[t.internal[i]].hi);
    uint32_t full = (1u << t.leaves) - 1;
    /* A relative margin: float sums in two orders differ in their last
       bits, and a topology that is not better by more than that is kept. */
    if (!(t.cost[full] < current * (1.0f - 1e-5f)))
        return false;
    if (depth - 1 + planned_height(&pass, &t, full) > max_depth)
        return false;
    int spare = 1;
    emit(&pass, &t, full, slot, &spare);
    return true;
}

/* Post-order over the whole tree: the subtrees first, then the treelet
   rooted here. Returns the subtree's primitive count. */
static uint32_t restructure(treelet_pass *pass, uint32_t slot, uint32_t depth)
{
    skim_bvh_binary_node *node = &pass->nodes[slot];
    if (node->count) {
        pass->height[slot] = 0;
        return node->count;
    }
    uint32_t prims = restructure(pass, node->first, depth + 1);
    prims += restructure(pass, node->right, depth + 1);
    if (prims < pass->min_prims) {
        skim_bvh_set_height(pass->nodes, pass->height, slot);
        return prims;
    }
    pass->changed += skim_bvh_treelet_at(pass->nodes, pass->height, slot, depth, pass->max_depth);
    return prims;
}

uint32_t skim_bvh_restructure_treelets(skim_bvh_binary_tree *tree, uint32_t min_prims, uint32_t max_depth)
{
    if (tree->nodes[0].count)
        return 0;
    uint8_t *height = malloc(2 * (size_t)tree->prim_count - 1);
    if (!height)
        return 0; /* an optimisation only: the built tree stands as it is */
    treelet_pass pass = { .nodes = tree->nodes, .height = height, .min_prims = min_prims,
                          .max_depth = max_depth };
    restructure(&pass, 0, 1);
    free(height);
    return pass.changed;
}
