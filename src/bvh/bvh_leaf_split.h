/* The binned build's leaves looked at again with every 2-partition
   (bvh_leaf_split.c; internal to src/bvh/). */
#ifndef SKIM_BVH_LEAF_SPLIT_H
#define SKIM_BVH_LEAF_SPLIT_H

#include "bvh/bvh_binary.h"

enum {
    /* Leaves of up to this many primitives (one gather packet) are looked
       at: 7 partitions at most. */
    SKIM_BVH_LEAF_SPLIT_MAX = 4,
};
/* The split's price in packets in that second look (the build's own is
   0.5): see bvh_leaf_split.c. */
#define SKIM_BVH_LEAF_SPLIT_WEIGHT 0.375f

/* The build has just made the node at slot, at depth (the root's is 1), a
   leaf over prims[first, first + count). When some 2-partition of its
   primitives passes the leaf test at the weight of bvh_leaf_split.c, the
   leaf becomes a node over two leaves (taking their slots from
   *dense_next, as the build numbers a small subtree's nodes), each looked
   at again in turn, never below depth max_depth. height (NULL, or each
   slot's subtree height as the treelet pass keeps it) is set for the new
   nodes and slot. The leaf's primitives are reordered within its range. */
void skim_bvh_split_leaf(skim_bvh_binary_node *nodes, uint8_t *height, skim_bvh_prim *prims, uint32_t slot,
                         uint32_t depth, uint32_t max_depth, uint32_t *dense_next);

#endif
