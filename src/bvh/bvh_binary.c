/* The binary tree over triangles stored as structure of arrays: each
   triangle's box as a build primitive, the SAH build over them
   (bvh_sah.c), the statistics of the finished tree (depth, node counts,
   SAH cost with the conventional weights) and its release. */
#include "bvh/bvh_sah_binning.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* The conventional SAH weights, 1 per node and 1 per triangle, so the
   reported cost compares with other builders (the build itself weighs its
   decisions by what a query does: bvh_sah.c). */
static const float traversal_cost = 1.0f;
static const float triangle_cost = 1.0f;

/* Depth, counts and SAH cost, by an explicit-stack walk (serial: cheap next
   to the build, and its sum is then in one fixed order). */
static void measure_binary(skim_bvh_binary_tree *tree)
{
    struct { uint32_t slot, depth; } stack[2 * SKIM_BVH_MAX_DEPTH + 2];
    uint32_t top = 0;
    stack[top++].slot = 0;
    stack[0].depth = 1;
    const skim_bvh_binary_node *root = &tree->nodes[0];
    double root_area = skim_bvh_half_area(root->lo, root->hi);
    double cost = 0.0;
    tree->internal_count = tree->leaf_count = tree->depth = 0;
    while (top) {
        --top;
        uint32_t slot = stack[top].slot, depth = stack[top].depth;
        const skim_bvh_binary_node *node = &tree->nodes[slot];
        double relative = root_area > 0.0 ? skim_bvh_half_area(node->lo, node->hi) / root_area : 1.0;
        tree->depth = depth > tree->depth ? depth : tree->depth;
        if (node->count) {
            tree->leaf_count++;
            cost += relative * node->count * triangle_cost;
            continue;
        }
        tree->internal_count++;
        cost += relative * traversal_cost;
        stack[top].slot = node->right;
        stack[top++].depth = depth + 1;
        stack[top].slot = node->first;
        stack[top++].depth = depth + 1;
    }
    tree->sah_cost = cost;
}

skim_status skim_bvh_build_binary(const float *const vertex[3][3], uint32_t n, const skim_world_def *def,
                                  skim_bvh_split_method method, skim_bvh_binary_tree *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > SKIM_BVH_MAX_TRIANGLES)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "BVH: %u triangles (a BVH holds 1 to %u)", n, SKIM_BVH_MAX_TRIANGLES);
    skim_bvh_prim *prims = aligned_alloc(64, ((size_t)n * sizeof(skim_bvh_prim) + 63) / 64 * 64);
    if (!prims)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH build: %u triangles", n);
    int threads = skim_build_thread_count(def);
    #pragma omp parallel for schedule(static) num_threads(threads) if(threads > 1 && n >= SKIM_SAH_TASK_MIN_PRIMS)
    for (uint32_t i = 0; i < n; ++i) {
        for (int axis = 0; axis < 3; ++axis) {
            float a = vertex[0][axis][i], b = vertex[1][axis][i], c = vertex[2][axis][i];
            /* Plain comparisons: the coordinates are finite, and fminf is a
               library call without -ffast-math. */
            float lo = a < b ? a : b, hi = a < b ? b : a;
            prims[i].lo[axis] = c < lo ? c : lo;
            prims[i].hi[axis] = c > hi ? c : hi;
        }
        memcpy(&prims[i].lo[3], &i, sizeof i);
        prims[i].hi[3] = 0.0f;
    }
    skim_status status = skim_bvh_build_binary_over(prims, n, def, method, out);
    if (status == SKIM_OK)
        measure_binary(out);
    return status;
}

void skim_bvh_binary_free(skim_bvh_binary_tree *tree)
{
    free(tree->prims);
    free(tree->nodes);
    memset(tree, 0, sizeof *tree);
}
