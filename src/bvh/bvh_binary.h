/* The binary tree the SAH builder makes and the wide collapse consumes
   (internal to src/bvh/). */
#ifndef SKIM_BVH_BINARY_H
#define SKIM_BVH_BINARY_H

#include "bvh/bvh.h"

#include <simde/x86/sse.h>
#include <string.h>
#include <sys/mman.h>

/* A triangle's bounding box during the build, two 16-byte halves so SIMD
   loads take each whole. The fourth lane of lo carries the triangle's
   storage index (as bits; the builder masks it off before arithmetic so it
   can never be a denormal or NaN operand); the fourth lane of hi is 0. */
typedef struct skim_bvh_prim {
    float lo[4];
    float hi[4];
} skim_bvh_prim;

static inline uint32_t skim_bvh_prim_id(const skim_bvh_prim *p)
{
    uint32_t id;
    memcpy(&id, &p->lo[3], sizeof id);
    return id;
}

/* A subtree over n primitives owns the 2n - 1 node slots starting at its
   root's slot: for a large node, left child at slot + 1, right child at
   slot + 2 * n_left; a small subtree (built by one thread) numbers its
   nodes densely in depth-first order from its root's slot. Slots therefore
   never depend on which thread built what, which keeps the tree
   bit-identical for any thread count. Slots a subtree does not use (its
   leaves hold more than one triangle) stay unused, and unwritten. */
typedef struct skim_bvh_binary_node {
    float    lo[3], hi[3];
    uint32_t first;   /* leaf: first primitive; internal: left child slot */
    uint32_t right;   /* internal: right child slot */
    uint32_t count;   /* leaf: primitives (>= 1); internal: 0 */
} skim_bvh_binary_node;

/* Sets a node's box from lanes 0 to 2 of lo and hi (the build, the
   treelet pass and the leaf split all keep boxes in SSE registers). */
static inline void skim_bvh_node_set_box(skim_bvh_binary_node *node, simde__m128 lo, simde__m128 hi)
{
    float l[4], h[4];
    simde_mm_storeu_ps(l, lo);
    simde_mm_storeu_ps(h, hi);
    memcpy(node->lo, l, sizeof node->lo);
    memcpy(node->hi, h, sizeof node->hi);
}

typedef enum skim_bvh_split_method {
    SKIM_BVH_SPLIT_BINNED = 0,     /* the production builder: binned, then treelets restructured */
    SKIM_BVH_SPLIT_FULL_SWEEP = 1, /* exact SAH over sorted centroids: the quality yardstick */
    SKIM_BVH_SPLIT_BINNED_GREEDY = 2, /* the binned build alone, without the treelet pass (tests) */
} skim_bvh_split_method;

typedef struct skim_bvh_binary_tree {
    skim_bvh_binary_node *nodes; /* 2n - 1 slots, root at 0 */
    skim_bvh_prim        *prims; /* leaf order */
    uint32_t              prim_count;
    uint32_t              internal_count, leaf_count, depth; /* not by skim_bvh_build_binary_over */
    double                sah_cost; /* traversal 1 per node, 1 per triangle, relative to the root */
} skim_bvh_binary_tree;

/* Builds the binary tree over n triangles stored as structure of arrays
   (vertex[v][axis][i], as a world stores them; ids are storage indices). */
skim_status skim_bvh_build_binary(const float *const vertex[3][3], uint32_t n, const skim_world_def *def,
                                  skim_bvh_split_method method, skim_bvh_binary_tree *out);
/* The same over prims[0, n) already boxed (ids as the caller chose them),
   which it takes (64-byte aligned; freed with the tree, or here on
   failure). The production build's path: it leaves internal_count,
   leaf_count, depth and sah_cost 0 (a serial walk over every node, which
   the collapse does not need: it counts the leaves as it plans). */
skim_status skim_bvh_build_binary_over(skim_bvh_prim *prims, uint32_t n, const skim_world_def *def,
                                       skim_bvh_split_method method, skim_bvh_binary_tree *out);
void        skim_bvh_binary_free(skim_bvh_binary_tree *tree);

/* The treelet pass the binned build ends with (bvh_treelet.c): every node
   over at least min_prims primitives, bottom up, gets the binary tree of
   least internal node area over its SKIM_BVH_TREELET_LEAVES largest
   subtrees, where that is smaller and keeps every leaf at depth max_depth
   or above. Leaves and primitives are untouched; only internal nodes'
   children and boxes change. Returns how many treelets changed. */
enum { SKIM_BVH_TREELET_LEAVES = 6 };
uint32_t    skim_bvh_restructure_treelets(skim_bvh_binary_tree *tree, uint32_t min_prims, uint32_t max_depth);
/* The pass's bookkeeping at an internal node whose children's heights are
   known: its own is one more than the taller child's. */
static inline void skim_bvh_set_height(const skim_bvh_binary_node *nodes, uint8_t *height,
                                       uint32_t slot)
{
    const uint8_t left = height[nodes[slot].first], right = height[nodes[slot].right];
    height[slot] = (uint8_t)(1 + (left > right ? left : right));
}
/* One step of that pass: the treelet rooted at internal node slot, at
   depth (the root's is 1), whose subtrees below are done; height[] holds
   every node's subtree height below it (leaves 0) and is kept so, slot's
   included. The build calls it as it finishes each node (bvh_sah.c).
   Returns whether the treelet changed. */
bool        skim_bvh_treelet_at(skim_bvh_binary_node *nodes, uint8_t *height, uint32_t slot, uint32_t depth,
                                uint32_t max_depth);

/* Collapses a binary tree into the 8-wide quantised nodes of bvh.h. */
skim_status skim_bvh_collapse(const skim_bvh_binary_tree *tree, struct skim_bvh *out);
/* The same, planning in scratch (4-byte aligned, its pages already in
   use, e.g. the tree's primitives once they are no longer needed) as far
   as it holds the plan. */
skim_status skim_bvh_collapse_with(const skim_bvh_binary_tree *tree, void *scratch, size_t scratch_bytes,
                                   struct skim_bvh *out);

/* Asks for transparent huge pages under [p, p + bytes) (the whole 2 MB
   pages inside it), where the kernel gives them on request (THP in
   "madvise" mode, as on Debian's and Ubuntu's defaults). A large build
   writes a few hundred megabytes of freshly mapped pages, and both
   faulting them in 4 KB at a time and the TLB misses of streaming over
   them cost several times what they do with 2 MB pages. Only for buffers
   written densely (a sparse one would have all its 2 MB pages
   faulted in). A hint only: nothing changes where the kernel declines. */
static inline void skim_bvh_prefer_huge_pages(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE)
    enum { HUGE = 2u << 20 };
    if (bytes < 2 * (size_t)HUGE)
        return;
    uintptr_t from = ((uintptr_t)p + HUGE - 1) / HUGE * HUGE, to = ((uintptr_t)p + bytes) / HUGE * HUGE;
    if (to > from)
        (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* Half the surface area of a box: the SAH's measure. */
static inline float skim_bvh_half_area(const float lo[3], const float hi[3])
{
    float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return dx * dy + dy * dz + dz * dx;
}

#endif
