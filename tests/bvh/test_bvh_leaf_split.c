/* The second look at small leaves (src/bvh/bvh_leaf_split.c): in the
   production tree no leaf of 2 to 4 triangles (above the depth cap) has a
   2-partition that passes the test, every box is exactly what it bounds,
   each triangle is in one leaf, and the tree is the same on one thread
   and two. */
#include "bvh/bvh_binary.h"
#include "world/world.h"
#include "bvh/bvh_leaf_split.h"
#include "bvh_scenes.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static float half_area_of(const skim_bvh_prim *p, uint32_t mask, uint32_t n)
{
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0; i < n; ++i)
        if (mask >> i & 1u)
            for (int k = 0; k < 3; ++k) {
                lo[k] = p[i].lo[k] < lo[k] ? p[i].lo[k] : lo[k];
                hi[k] = p[i].hi[k] > hi[k] ? p[i].hi[k] : hi[k];
            }
    return skim_bvh_half_area(lo, hi);
}

typedef struct leaf_stats {
    uint32_t leaves, small, triangles;
} leaf_stats;

static void walk(const skim_bvh_binary_tree *tree, uint32_t slot, uint32_t depth, uint8_t *seen, leaf_stats *st)
{
    const skim_bvh_binary_node *node = &tree->nodes[slot];
    if (!node->count) {
        const skim_bvh_binary_node *a = &tree->nodes[node->first], *b = &tree->nodes[node->right];
        for (int k = 0; k < 3; ++k) {
            cr_assert_eq(node->lo[k], a->lo[k] < b->lo[k] ? a->lo[k] : b->lo[k], "node %u: not its children's box", slot);
            cr_assert_eq(node->hi[k], a->hi[k] > b->hi[k] ? a->hi[k] : b->hi[k], "node %u: not its children's box", slot);
        }
        walk(tree, node->first, depth + 1, seen, st);
        walk(tree, node->right, depth + 1, seen, st);
        return;
    }
    const skim_bvh_prim *p = &tree->prims[node->first];
    const uint32_t n = node->count;
    st->leaves++;
    st->triangles += n;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t id = skim_bvh_prim_id(&p[i]);
        cr_assert(id < tree->prim_count && !seen[id], "primitive %u twice or out of range", id);
        seen[id] = 1;
    }
    float whole = half_area_of(p, (1u << n) - 1, n);
    cr_assert_eq(whole, skim_bvh_half_area(node->lo, node->hi), "leaf %u: not its primitives' box", slot);
    if (n < 2 || n > SKIM_BVH_LEAF_SPLIT_MAX || depth >= 64 || !(whole > 0.0f))
        return;
    st->small++;
    for (uint32_t mask = 1; mask < 1u << (n - 1); ++mask) {
        float sides = half_area_of(p, mask, n) + half_area_of(p, ((1u << n) - 1) ^ mask, n);
        cr_assert(!(1.0f > SKIM_BVH_LEAF_SPLIT_WEIGHT + sides / whole),
                  "leaf %u of %u: partition %u passes the test (%.9g + %.9g)", slot, n, mask,
                  (double)SKIM_BVH_LEAF_SPLIT_WEIGHT, (double)(sides / whole));
    }
}

static void check_mesh(const skim_mesh *mesh, const char *what)
{
    skim_world *world = NULL;
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE; /* mesh order, as the production build sees it */
    cr_assert_eq(skim_world_create(mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    def = skim_world_def_default();
    skim_bvh_binary_tree one, two;
    def.build_threads = 1;
    cr_assert_eq(skim_bvh_build_binary(world->vertex, world->triangle_count, &def, SKIM_BVH_SPLIT_BINNED, &one), SKIM_OK);
    def.build_threads = 2;
    cr_assert_eq(skim_bvh_build_binary(world->vertex, world->triangle_count, &def, SKIM_BVH_SPLIT_BINNED, &two), SKIM_OK);
    uint8_t *seen = calloc(one.prim_count, 1);
    cr_assert(seen);
    leaf_stats st = { 0 };
    walk(&one, 0, 1, seen, &st);
    cr_assert_eq(st.triangles, one.prim_count, "%s", what);
    cr_assert(st.small > 0, "%s: no leaf of 2 to 4 triangles (a test that cannot fail)", what);
    cr_assert(memcmp(one.prims, two.prims, one.prim_count * sizeof *one.prims) == 0, "%s", what);
    cr_assert_eq(one.sah_cost, two.sah_cost, "%s", what);
    cr_assert_eq(one.leaf_count, two.leaf_count, "%s", what);
    free(seen);
    skim_bvh_binary_free(&one);
    skim_bvh_binary_free(&two);
    skim_world_destroy(world);
}

Test(bvh_leaf_split, no_small_leaf_left_that_passes_the_test, .timeout = 120)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    check_mesh(&mesh, "default scene");
    skim_mesh_data_free(&data);

    cr_assert(scene_generate_terrain(48, 16.0f, 3, &data));
    mesh = skim_mesh_data_view(&data);
    check_mesh(&mesh, "terrain");
    skim_mesh_data_free(&data);
}

/* The same on the real levels, skipped when they are absent. */
Test(bvh_leaf_split, no_small_leaf_left_that_passes_the_test_real_levels, .timeout = 120)
{
    char path[1024];
    const char *levels[] = { "oa_dm1.obj", "oa_dm4_hull.obj" };
    int found = 0;
    for (int i = 0; i < 2; ++i) {
        skim_mesh_data data;
        if (scene_path(levels[i], path, sizeof path) && scene_read_obj(path, &data)) {
            skim_mesh mesh = skim_mesh_data_view(&data);
            check_mesh(&mesh, levels[i]);
            skim_mesh_data_free(&data);
            found++;
        }
    }
    if (!found)
        cr_skip("real levels not available (SKIM_SCENES_DIR)");
}
