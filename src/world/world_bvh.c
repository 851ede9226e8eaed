/* The BVH's life cycle: build (binary SAH tree, triangles reordered into
   leaf order, collapse to 8-wide nodes), statistics and destruction. */
#include "world/world_bvh.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Writes the mesh triangles the tree holds into block (64-byte aligned,
   skim_world_storage_bytes(stride) long) in the order of tree->prims, whose
   ids are mesh triangle indices, so every leaf is a contiguous run of the
   SoA arrays. The triangles are read from the mesh itself, once: no copy
   in mesh order first. Only the padding lanes are zeroed; the loop writes
   the rest. */
static void store_in_leaf_order(skim_world *world, const skim_mesh *mesh, const skim_bvh_binary_tree *tree,
                                void *block, uint32_t stride, int threads)
{
    const uint32_t n = world->triangle_count;
    skim_world sorted = { 0 };
    skim_world_bind_storage(&sorted, block, stride);
    skim_world_zero_padding(block, stride, n);
    #pragma omp parallel for schedule(static) num_threads(threads) if(n >= 65536 && threads > 1)
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t t = skim_bvh_prim_id(&tree->prims[i]);
        const uint32_t *corner = mesh->indices + 3 * (size_t)t;
        for (int v = 0; v < 3; ++v) {
            const float *position = mesh->positions + 3 * (size_t)corner[v];
            for (int axis = 0; axis < 3; ++axis)
                ((float *)sorted.vertex[v][axis])[i] = position[axis];
        }
        ((uint32_t *)sorted.triangle_index)[i] = t;
        ((uint16_t *)sorted.material)[i] = mesh->materials ? mesh->materials[t] : 0;
    }
    free(world->owned_storage);
    world->owned_storage = block;
    skim_world_bind_storage(world, block, stride);
}

skim_status skim_bvh_build(skim_world *world, const skim_mesh *mesh, struct skim_bvh_prim *prims,
                           const skim_world_def *def)
{
    struct skim_bvh *bvh = calloc(1, sizeof *bvh);
    if (!bvh) {
        free(prims);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH build");
    }
    /* The triangles' block, allocated before the build although only
       store_in_leaf_order writes it: allocated after, it moves where
       glibc puts the build's buffers, and the build faults more pages. */
    const uint32_t stride = skim_world_stride(world->triangle_count);
    const size_t bytes = skim_world_storage_bytes(stride);
    void *block = aligned_alloc(64, bytes);
    if (!block) {
        free(bvh);
        free(prims);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH build: %zu bytes of triangles", bytes);
    }
    skim_bvh_binary_tree tree;
    int threads = skim_build_thread_count(def);
    skim_status status = skim_bvh_build_binary_over(prims, world->triangle_count, def, SKIM_BVH_SPLIT_BINNED, &tree);
    if (status == SKIM_OK) {
        /* Written densely, all of it (the 2-million-triangle terrain's 88
           MB had been 22,000 4 KB page faults). */
        skim_bvh_prefer_huge_pages(block, bytes);
        store_in_leaf_order(world, mesh, &tree, block, stride, threads);
        block = NULL; /* the world's now */
        /* The primitives are no longer needed: the collapse plans in their
           pages, already faulted in, rather than in fresh ones. */
        status = skim_bvh_collapse_with(&tree, tree.prims, (size_t)tree.prim_count * sizeof *tree.prims, bvh);
    }
    free(block);
    skim_bvh_binary_free(&tree);
    if (status != SKIM_OK) {
        free(bvh);
        return status;
    }
    world->bvh = bvh;
    return SKIM_OK;
}

void skim_bvh_destroy(skim_world *world)
{
    if (!world->bvh)
        return;
    free(world->bvh->owned_nodes);
    free(world->bvh);
    world->bvh = NULL;
}

void skim_bvh_add_stats(const skim_world *world, skim_world_stats *out)
{
    const struct skim_bvh *bvh = world->bvh;
    if (!bvh)
        return;
    out->nodes = bvh->node_count;
    out->leaves = bvh->leaf_count;
    out->depth = bvh->depth;
    /* The node array as allocated (skim_bvh_collapse rounds it up to 64
       bytes); a loaded world's nodes are in its file block, same size. */
    out->bytes += sizeof *bvh + ((uint64_t)bvh->node_count * sizeof(skim_bvh_node) + 63) / 64 * 64;
    out->sah_cost = bvh->sah_cost;
}
