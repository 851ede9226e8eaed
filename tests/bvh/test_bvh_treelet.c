/* The treelet pass after the binned build (src/bvh/bvh_treelet.c): it
   never increases the internal nodes' area it minimises, leaves every leaf
   (and so every triangle, once) as it was, keeps every box exactly the
   union of its children's, stays within its depth bound, is what the
   production build does after the greedy one, and gives the same tree for
   any thread count. */
#include "bvh/bvh_binary.h"
#include "world/world.h"
#include "bvh_scenes.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

typedef struct walk_result {
    double   internal_area;
    uint32_t internal, leaves, depth;
} walk_result;

static bool same_box(const float lo[3], const float hi[3], const float want_lo[3], const float want_hi[3])
{
    return memcmp(lo, want_lo, 3 * sizeof(float)) == 0 && memcmp(hi, want_hi, 3 * sizeof(float)) == 0;
}

/* Walks the tree from the root: every internal box is exactly the union of
   its children's, every leaf's exactly its primitives' box, and each
   primitive is in exactly one leaf (seen[]). Records every reachable
   leaf's slot in leaf_slots (a bitmap over slots). */
static void walk(const skim_bvh_binary_tree *tree, uint32_t slot, uint32_t depth, uint8_t *seen,
                 uint8_t *leaf_slots, walk_result *r)
{
    const skim_bvh_binary_node *node = &tree->nodes[slot];
    r->depth = depth > r->depth ? depth : r->depth;
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    if (node->count) {
        r->leaves++;
        leaf_slots[slot / 8] |= (uint8_t)(1u << (slot % 8));
        for (uint32_t i = node->first; i < node->first + node->count; ++i) {
            uint32_t id = skim_bvh_prim_id(&tree->prims[i]);
            cr_assert(id < tree->prim_count && !seen[id], "primitive %u twice or out of range", id);
            seen[id] = 1;
            for (int k = 0; k < 3; ++k) {
                lo[k] = tree->prims[i].lo[k] < lo[k] ? tree->prims[i].lo[k] : lo[k];
                hi[k] = tree->prims[i].hi[k] > hi[k] ? tree->prims[i].hi[k] : hi[k];
            }
        }
        cr_assert(same_box(node->lo, node->hi, lo, hi), "leaf %u: box is not its primitives'", slot);
        return;
    }
    r->internal++;
    r->internal_area += skim_bvh_half_area(node->lo, node->hi);
    const skim_bvh_binary_node *a = &tree->nodes[node->first], *b = &tree->nodes[node->right];
    for (int k = 0; k < 3; ++k) {
        lo[k] = a->lo[k] < b->lo[k] ? a->lo[k] : b->lo[k];
        hi[k] = a->hi[k] > b->hi[k] ? a->hi[k] : b->hi[k];
    }
    cr_assert(same_box(node->lo, node->hi, lo, hi), "node %u: box is not its children's union", slot);
    walk(tree, node->first, depth + 1, seen, leaf_slots, r);
    walk(tree, node->right, depth + 1, seen, leaf_slots, r);
}

static walk_result check_tree(const skim_bvh_binary_tree *tree, uint8_t *leaf_slots)
{
    uint8_t *seen = calloc(tree->prim_count, 1);
    cr_assert(seen);
    memset(leaf_slots, 0, (2 * (size_t)tree->prim_count - 1 + 7) / 8);
    walk_result r = { 0 };
    walk(tree, 0, 1, seen, leaf_slots, &r);
    for (uint32_t i = 0; i < tree->prim_count; ++i)
        cr_assert(seen[i], "primitive %u in no leaf", i);
    free(seen);
    return r;
}

/* Greedy tree -> pass, checked against the tree before it. */
static void check_pass(const skim_mesh *mesh, uint32_t min_prims, const char *what)
{
    skim_world *world = NULL;
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE; /* mesh order, as the production build sees it */
    cr_assert_eq(skim_world_create(mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    def = skim_world_def_default();
    def.build_threads = 1;
    skim_bvh_binary_tree tree;
    cr_assert_eq(skim_bvh_build_binary(world->vertex, world->triangle_count, &def, SKIM_BVH_SPLIT_BINNED_GREEDY, &tree), SKIM_OK);
    size_t slots = 2 * (size_t)tree.prim_count - 1, bitmap = (slots + 7) / 8;
    uint8_t *leaves_before = malloc(bitmap), *leaves_after = malloc(bitmap);
    skim_bvh_binary_node *nodes_before = malloc(slots * sizeof *nodes_before);
    cr_assert(leaves_before && leaves_after && nodes_before);
    walk_result before = check_tree(&tree, leaves_before);
    memcpy(nodes_before, tree.nodes, slots * sizeof *nodes_before);

    uint32_t changed = skim_bvh_restructure_treelets(&tree, min_prims, 64);
    walk_result after = check_tree(&tree, leaves_after);
    cr_assert(changed > 0, "%s: the pass changed nothing (a test that cannot fail)", what);
    cr_assert(after.internal_area < before.internal_area, "%s: internal area %.9g -> %.9g", what,
              before.internal_area, after.internal_area);
    cr_assert_eq(after.leaves, before.leaves, "%s", what);
    cr_assert_eq(after.internal, before.internal, "%s", what);
    cr_assert(after.depth <= (before.depth > 64 ? before.depth : 64), "%s: depth %u -> %u", what,
              before.depth, after.depth);
    /* The same leaves: the same slots, each untouched. */
    cr_assert(memcmp(leaves_before, leaves_after, bitmap) == 0, "%s: the set of leaves changed", what);
    for (size_t s = 0; s < slots; ++s)
        if ((leaves_before[s / 8] >> (s % 8)) & 1u)
            cr_assert(memcmp(&nodes_before[s], &tree.nodes[s], sizeof nodes_before[s]) == 0,
                      "%s: leaf %zu changed", what, s);
    free(leaves_before);
    free(leaves_after);
    free(nodes_before);
    skim_bvh_binary_free(&tree);
    skim_world_destroy(world);
}

static void soup(uint32_t triangles, uint64_t seed, skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    out->positions = malloc(9 * (size_t)triangles * sizeof(float));
    out->indices = malloc(3 * (size_t)triangles * sizeof(uint32_t));
    cr_assert(out->positions && out->indices);
    scene_rng rng = { seed };
    for (uint32_t t = 0; t < triangles; ++t) {
        float c[3] = { scene_rng_range(&rng, -500, 500), scene_rng_range(&rng, -500, 500),
                       scene_rng_range(&rng, -50, 50) };
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                out->positions[9 * (size_t)t + 3 * v + k] = c[k] + scene_rng_range(&rng, -8, 8);
        for (int v = 0; v < 3; ++v)
            out->indices[3 * (size_t)t + v] = 3 * t + (uint32_t)v;
    }
    out->vertex_count = 3 * triangles;
    out->triangle_count = triangles;
}

Test(bvh_treelet, never_worse_same_leaves_exact_boxes, .timeout = 120)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    check_pass(&mesh, 64, "default scene");
    check_pass(&mesh, 4, "default scene, every node");
    skim_mesh_data_free(&data);

    cr_assert(scene_generate_terrain(48, 16.0f, 3, &data));
    mesh = skim_mesh_data_view(&data);
    check_pass(&mesh, 8, "terrain");
    skim_mesh_data_free(&data);

    soup(5000, 11, &data);
    mesh = skim_mesh_data_view(&data);
    check_pass(&mesh, 16, "soup");
    skim_mesh_data_free(&data);
}

/* The same on a real level, skipped when it is absent. */
Test(bvh_treelet, never_worse_same_leaves_exact_boxes_real_level, .timeout = 120)
{
    char path[1024];
    skim_mesh_data data;
    if (!scene_path("oa_dm1.obj", path, sizeof path) || !scene_read_obj(path, &data))
        cr_skip("oa_dm1.obj not available (SKIM_SCENES_DIR)");
    skim_mesh mesh = skim_mesh_data_view(&data);
    check_pass(&mesh, 64, "oa_dm1");
    skim_mesh_data_free(&data);
}

/* The production build is the greedy build and then the pass, and gives
   the same tree on one thread and two (the soup is large enough for the
   build's parallel tasks, which the pass runs after). */
Test(bvh_treelet, production_build_is_greedy_then_pass_for_any_thread_count, .timeout = 120)
{
    skim_mesh_data data;
    soup(12000, 5, &data);
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *world = NULL;
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    cr_assert_eq(skim_world_create(&mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    skim_bvh_binary_tree greedy, one, two;
    def = skim_world_def_default();
    def.build_threads = 1;
    cr_assert_eq(skim_bvh_build_binary(world->vertex, world->triangle_count, &def, SKIM_BVH_SPLIT_BINNED_GREEDY, &greedy), SKIM_OK);
    cr_assert(skim_bvh_restructure_treelets(&greedy, 64, 64) > 0);
    cr_assert_eq(skim_bvh_build_binary(world->vertex, world->triangle_count, &def, SKIM_BVH_SPLIT_BINNED, &one), SKIM_OK);
    def.build_threads = 2;
    cr_assert_eq(skim_bvh_build_binary(world->vertex, world->triangle_count, &def, SKIM_BVH_SPLIT_BINNED, &two), SKIM_OK);
    size_t bitmap = (2 * (size_t)one.prim_count - 1 + 7) / 8;
    uint8_t *reached = malloc(bitmap);
    cr_assert(reached);
    check_tree(&one, reached);
    /* Compare the reachable nodes (unused slots are never written). */
    uint32_t stack[256], top = 0;
    stack[top++] = 0;
    while (top) {
        uint32_t s = stack[--top];
        cr_assert(memcmp(&one.nodes[s], &greedy.nodes[s], sizeof one.nodes[s]) == 0,
                  "slot %u: the build is not the greedy build and the pass", s);
        cr_assert(memcmp(&one.nodes[s], &two.nodes[s], sizeof one.nodes[s]) == 0,
                  "slot %u differs between one thread and two", s);
        if (!one.nodes[s].count) {
            cr_assert(top + 2 <= 256);
            stack[top++] = one.nodes[s].first;
            stack[top++] = one.nodes[s].right;
        }
    }
    cr_assert(memcmp(one.prims, two.prims, one.prim_count * sizeof *one.prims) == 0);
    cr_assert(memcmp(one.prims, greedy.prims, one.prim_count * sizeof *one.prims) == 0);
    free(reached);
    skim_bvh_binary_free(&greedy);
    skim_bvh_binary_free(&one);
    skim_bvh_binary_free(&two);
    skim_world_destroy(world);
    skim_mesh_data_free(&data);
}
