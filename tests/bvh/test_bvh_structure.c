/* The tree itself: every triangle in exactly one leaf, quantised child boxes
   that contain what is below them, box queries that find exactly the
   triangles whose boxes overlap, the same tree bit for bit for any thread
   count, and sane trees for adversarial geometry. Sanitizer builds run a
   fraction of the box queries (SKIM_BVH_TEST_SCALE): this file's own
   check of every triangle's box is most of their time there. */
#include "bvh/bvh.h"
#include "gather/gather.h"
#include "bvh/bvh_binary.h"
#include "bvh_scenes.h"

#include <criterion/criterion.h>
#include <math.h>

#ifndef SKIM_BVH_TEST_SCALE
#define SKIM_BVH_TEST_SCALE 1
#endif

static skim_world *build(const skim_mesh *mesh, int threads, int max_leaf)
{
    skim_world_def def = skim_world_def_default();
    def.build_threads = threads;
    def.max_leaf_triangles = max_leaf;
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    return world;
}

/* Box of stored triangle i. */
static void triangle_box(const skim_world *w, uint32_t i, double lo[3], double hi[3])
{
    for (int axis = 0; axis < 3; ++axis) {
        lo[axis] = INFINITY;
        hi[axis] = -INFINITY;
        for (int v = 0; v < 3; ++v) {
            double x = w->vertex[v][axis][i];
            lo[axis] = x < lo[axis] ? x : lo[axis];
            hi[axis] = x > hi[axis] ? x : hi[axis];
        }
    }
}

typedef struct tree_check {
    const skim_world *world;
    uint8_t *seen;      /* per stored triangle */
    uint32_t max_leaf;
    uint32_t leaves;
} tree_check;

/* Checks node index and everything below it against the box [lo, hi]
   implied by its parent's quantised bounds. */
static void check_node(tree_check *c, uint32_t ref, const double lo[3], const double hi[3])
{
    const skim_world *w = c->world;
    if (skim_bvh_is_leaf(ref)) {
        uint32_t first = skim_bvh_leaf_first(ref), count = skim_bvh_leaf_count(ref);
        cr_assert(count <= c->max_leaf, "leaf of %u triangles, limit %u", count, c->max_leaf);
        cr_assert(first + count <= w->triangle_count);
        for (uint32_t i = first; i < first + count; ++i) {
            cr_assert_eq(c->seen[i], 0, "triangle %u in two leaves", i);
            c->seen[i] = 1;
            double tlo[3], thi[3];
            triangle_box(w, i, tlo, thi);
            for (int axis = 0; axis < 3; ++axis)
                cr_assert(tlo[axis] >= lo[axis] && thi[axis] <= hi[axis],
                          "triangle %u pokes out of its quantised box on axis %d", i, axis);
        }
        c->leaves++;
        return;
    }
    const skim_bvh_node *node = &w->bvh->nodes[ref];
    static const int lo_row[3] = { SKIM_BVH_LO_X, SKIM_BVH_LO_Y, SKIM_BVH_LO_Z };
    static const int chi_row[3] = { SKIM_BVH_CHI_X, SKIM_BVH_CHI_Y, SKIM_BVH_CHI_Z };
    cr_assert(node->child_mask != 0);
    for (unsigned slot = 0; slot < SKIM_BVH_WIDTH; ++slot) {
        if (!((node->child_mask >> slot) & 1u))
            continue;
        double child_lo[3], child_hi[3];
        for (int axis = 0; axis < 3; ++axis) {
            double scale = ldexp(1.0, node->exponent[axis]);
            child_lo[axis] = node->origin[axis] + node->bounds[lo_row[axis]][slot] * scale;
            child_hi[axis] = node->origin[axis] + (255 - node->bounds[chi_row[axis]][slot]) * scale;
            /* A child's grid box lies inside its parent's (up to one cell
               of the parent's coarser grid). */
            cr_assert(child_lo[axis] >= lo[axis] - 1e-30 && child_lo[axis] <= child_hi[axis]);
        }
        check_node(c, node->child[slot], child_lo, child_hi);
    }
}

static void check_tree(const skim_world *w, uint32_t max_leaf)
{
    tree_check c = { .world = w, .seen = calloc(w->triangle_count, 1), .max_leaf = max_leaf };
    double lo[3] = { w->bounds_min.x, w->bounds_min.y, w->bounds_min.z };
    double hi[3] = { w->bounds_max.x, w->bounds_max.y, w->bounds_max.z };
    check_node(&c, w->bvh->root, lo, hi);
    for (uint32_t i = 0; i < w->triangle_count; ++i)
        cr_assert_eq(c.seen[i], 1, "triangle %u is in no leaf", i);
    skim_world_stats stats;
    skim_world_get_stats(w, &stats);
    cr_assert_eq(stats.leaves, c.leaves);
    cr_assert(stats.depth >= 1 && stats.depth <= SKIM_BVH_MAX_DEPTH);
    free(c.seen);
}

Test(bvh_structure, every_triangle_in_one_leaf_inside_its_boxes)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    for (int leaf = 1; leaf <= 16; leaf *= 4) {
        skim_world *w = build(&mesh, 1, leaf);
        check_tree(w, (uint32_t)leaf);
        /* The caller's indices survive the reordering: a permutation. */
        uint8_t *seen = calloc(mesh.triangle_count, 1);
        for (uint32_t i = 0; i < w->triangle_count; ++i) {
            cr_assert(w->triangle_index[i] < mesh.triangle_count && !seen[w->triangle_index[i]]);
            seen[w->triangle_index[i]] = 1;
        }
        free(seen);
        skim_world_destroy(w);
    }
    skim_mesh_data_free(&data);
}

typedef struct collected { uint8_t *mark; } collected;

static void mark_run(void *ctx, uint32_t first, uint32_t count)
{
    collected *c = ctx;
    for (uint32_t i = first; i < first + count; ++i)
        c->mark[i] = 1;
}

/* A box query visits a superset of the triangles whose boxes overlap, and
   the gather keeps exactly those. */
Test(bvh_structure, box_queries_find_exactly_the_overlapping_triangles)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *w = build(&mesh, 1, 4);
    scene_rng rng = { 5 };
    uint8_t *mark = malloc(w->triangle_count);
    skim_candidates candidates;
    skim_candidates_init(&candidates);
    skim_ellipsoid unit = { { 1, 1, 1 }, { 0, 0, 0, 1 } };
    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, &unit);
    uint32_t *expected_index = malloc(sizeof(uint32_t) * mesh.triangle_count);
    long total = 0;
    for (int q = 0; q < 3000 / SKIM_BVH_TEST_SCALE; ++q) {
        float lo[3], hi[3];
        for (int axis = 0; axis < 3; ++axis) {
            float center = scene_rng_range(&rng, -2200.0f, 2200.0f);
            if (axis == 2)
                center = scene_rng_range(&rng, -50.0f, 300.0f);
            float half = scene_rng_unit(&rng) < 0.5f ? scene_rng_range(&rng, 0.0f, 40.0f)
                                                     : scene_rng_range(&rng, 0.0f, 1500.0f);
            lo[axis] = center - half;
            hi[axis] = center + half;
        }
        memset(mark, 0, w->triangle_count);
        collected c = { mark };
        skim_world_visit_box(w, lo, hi, mark_run, &c);
        uint32_t expected = 0;
        for (uint32_t i = 0; i < w->triangle_count; ++i) {
            double tlo[3], thi[3];
            triangle_box(w, i, tlo, thi);
            bool overlaps = true;
            for (int axis = 0; axis < 3; ++axis)
                overlaps = overlaps && tlo[axis] <= hi[axis] && thi[axis] >= lo[axis];
            if (overlaps) {
                cr_assert(mark[i], "query %d missed overlapping triangle %u", q, i);
                expected_index[expected++] = w->triangle_index[i];
            }
        }
        float origin[3] = { 0, 0, 0 };
        cr_assert_eq(skim_gather_candidates(w, &space, origin, lo, hi, UINT64_MAX, &candidates), SKIM_OK);
        cr_assert_eq(candidates.count, expected, "query %d: gathered %u, expected %u", q,
                     candidates.count, expected);
        /* Same set: mark the gathered caller indices and check each expected. */
        uint8_t *gathered = calloc(mesh.triangle_count, 1);
        for (uint32_t k = 0; k < candidates.count; ++k)
            gathered[candidates.triangle[k]] = 1;
        for (uint32_t k = 0; k < expected; ++k)
            cr_assert(gathered[expected_index[k]]);
        free(gathered);
        total += expected;
    }
    cr_expect(total > 10000 / SKIM_BVH_TEST_SCALE, "the boxes found too little to mean anything (%ld)", total);
    free(expected_index);
    skim_candidates_free(&candidates);
    free(mark);
    skim_world_destroy(w);
    skim_mesh_data_free(&data);
}

/* Large enough that the build uses tasks and parallel binning. */
Test(bvh_structure, same_tree_for_any_thread_count, .timeout = 60)
{
    skim_mesh_data data;
    cr_assert(scene_generate_terrain(260, 16.0f, 3, &data));
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *reference = build(&mesh, 1, 4);
    skim_world_stats a;
    skim_world_get_stats(reference, &a);
    for (int threads = 2; threads <= 3; ++threads) {
        skim_world *w = build(&mesh, threads, 4);
        skim_world_stats b;
        skim_world_get_stats(w, &b);
        cr_assert_eq(a.nodes, b.nodes);
        cr_assert_eq(memcmp(&a.sah_cost, &b.sah_cost, sizeof a.sah_cost), 0);
        cr_assert_eq(memcmp(w->bvh->nodes, reference->bvh->nodes, a.nodes * sizeof(skim_bvh_node)), 0,
                     "nodes differ with %d threads", threads);
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                cr_assert_eq(memcmp(w->vertex[v][axis], reference->vertex[v][axis],
                                    w->stride * sizeof(float)), 0);
        cr_assert_eq(memcmp(w->triangle_index, reference->triangle_index, w->stride * sizeof(uint32_t)), 0);
        skim_world_destroy(w);
    }
    skim_world_destroy(reference);
    skim_mesh_data_free(&data);
}

/* Degenerate triangles scattered over several of world.c's box chunks
   (65536 triangles): the kept ones are compacted in mesh order whatever
   the thread count, and none of the dropped ones is stored. */
Test(bvh_structure, same_tree_for_any_thread_count_with_degenerates, .timeout = 60)
{
    skim_mesh_data data;
    cr_assert(scene_generate_terrain(260, 16.0f, 5, &data));
    uint32_t dropped = 0;
    for (uint32_t t = 7; t < data.triangle_count; t += 997 + t % 13, ++dropped)
        data.indices[3 * t + 2] = data.indices[3 * t]; /* a repeated corner: zero area */
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *reference = build(&mesh, 1, 4);
    cr_assert_eq(reference->degenerate_count, dropped);
    cr_assert_eq(reference->triangle_count, data.triangle_count - dropped);
    for (uint32_t i = 0; i < reference->triangle_count; ++i) {
        uint32_t t = reference->triangle_index[i];
        cr_assert_neq(data.indices[3 * t + 2], data.indices[3 * t], "stored triangle %u is degenerate", t);
    }
    check_tree(reference, 4);
    for (int threads = 2; threads <= 3; ++threads) {
        skim_world *w = build(&mesh, threads, 4);
        cr_assert_eq(w->degenerate_count, dropped);
        cr_assert_eq(w->bvh->node_count, reference->bvh->node_count);
        cr_assert_eq(memcmp(w->bvh->nodes, reference->bvh->nodes,
                            w->bvh->node_count * sizeof(skim_bvh_node)), 0, "nodes differ with %d threads", threads);
        cr_assert_eq(memcmp(w->triangle_index, reference->triangle_index, w->stride * sizeof(uint32_t)), 0);
        cr_assert_eq(memcmp(&w->bounds_min, &reference->bounds_min, sizeof w->bounds_min), 0);
        cr_assert_eq(memcmp(&w->bounds_max, &reference->bounds_max, sizeof w->bounds_max), 0);
        skim_world_destroy(w);
    }
    skim_world_destroy(reference);
    skim_mesh_data_free(&data);
}

/* The collapse plans in the caller's scratch as far as it holds the plan
   and then moves it to a block of its own: the wide tree is the same
   whatever the scratch (none, too small, ample), here with one triangle a
   leaf, the most internal nodes a tree can have. */
Test(bvh_structure, collapse_same_whatever_its_scratch)
{
    skim_mesh_data data;
    cr_assert(scene_generate_terrain(40, 16.0f, 9, &data));
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *w = build(&mesh, 1, 1);
    skim_world_def def = skim_world_def_default();
    def.max_leaf_triangles = 1;
    def.build_threads = 1;
    skim_bvh_binary_tree tree;
    cr_assert_eq(skim_bvh_build_binary(w->vertex, w->triangle_count, &def, SKIM_BVH_SPLIT_BINNED, &tree), SKIM_OK);
    struct skim_bvh reference;
    cr_assert_eq(skim_bvh_collapse(&tree, &reference), SKIM_OK);
    const size_t sizes[] = { 7 * 48, 1000 * 48, (size_t)tree.prim_count * 48 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        void *scratch = malloc(sizes[i]);
        struct skim_bvh b;
        cr_assert_eq(skim_bvh_collapse_with(&tree, scratch, sizes[i], &b), SKIM_OK);
        cr_assert_eq(b.node_count, reference.node_count);
        cr_assert_eq(b.binary_nodes, reference.binary_nodes);
        cr_assert_eq(memcmp(b.nodes, reference.nodes, b.node_count * sizeof *b.nodes), 0,
                     "scratch of %zu bytes", sizes[i]);
        free(b.owned_nodes);
        free(scratch);
    }
    free(reference.owned_nodes);
    skim_bvh_binary_free(&tree);
    skim_world_destroy(w);
    skim_mesh_data_free(&data);
}

static void adversarial(const float *positions, uint32_t triangles)
{
    uint32_t *indices = malloc(3 * sizeof(uint32_t) * triangles);
    for (uint32_t i = 0; i < 3 * triangles; ++i)
        indices[i] = i;
    skim_mesh mesh = { .positions = positions, .vertex_count = 3 * triangles, .indices = indices,
                       .triangle_count = triangles };
    skim_world *w = build(&mesh, 2, 4);
    cr_assert(w->bvh && w->triangle_count == triangles, "every triangle should be kept");
    check_tree(w, 4);
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    skim_world *brute = NULL;
    cr_assert_eq(skim_world_create(&mesh, &def, &brute), SKIM_OK);
    scene_rng rng = { 17 };
    scene_query_mix mix = { .radius = 0.5f, .max_radii = 50.0f, .contact_share = 0.2f, .huge_share = 0.1f };
    for (int q = 0; q < 2000; ++q) {
        scene_query query = scene_make_query(&rng, &mesh, 100.0f, &mix);
        skim_hit a, b;
        skim_sweep(w, &query.shape, query.start, query.delta, NULL, &a);
        skim_sweep(brute, &query.shape, query.start, query.delta, NULL, &b);
        cr_assert(scene_hits_identical(&a, &b), "query %d differs", q);
    }
    skim_world_destroy(brute);
    skim_world_destroy(w);
    free(indices);
}

/* One triangle repeated: no split separates identical centroids. */
Test(bvh_structure, identical_triangles)
{
    enum { N = 5000 };
    float *p = malloc(sizeof(float) * 9 * N);
    for (int t = 0; t < N; ++t) {
        const float tri[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
        memcpy(p + 9 * t, tri, sizeof tri);
    }
    adversarial(p, N);
    free(p);
}

/* Triangles at exponentially growing distances (x = 2^t, from 1 to 2^59,
   the largest power of two under SKIM_COORDINATE_MAX): binned splits can
   only peel a few off the top at a time, giving a deep unbalanced tree, and
   the quantised grids span dozens of binary orders of magnitude from the
   root to the leaves. */
Test(bvh_structure, exponentially_spaced_triangles)
{
    enum { N = 60 };
    float *p = malloc(sizeof(float) * 9 * N);
    for (int t = 0; t < N; ++t) {
        float x = ldexpf(1.0f, t);
        /* Thin in y so the cross product stays inside float range. */
        const float tri[9] = { x, 0, 0, x * 1.01f, 0, 0, x, 1e-20f, 0 };
        memcpy(p + 9 * t, tri, sizeof tri);
    }
    adversarial(p, N);
    free(p);
}

Test(bvh_structure, statistics)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *w = build(&mesh, 0, 4);
    skim_world_stats s;
    cr_assert_eq(skim_world_get_stats(w, &s), SKIM_OK);
    cr_assert_eq(s.triangles, mesh.triangle_count);
    cr_assert(s.nodes > 0 && s.leaves >= s.triangles / 4 && s.leaves <= s.triangles);
    cr_assert(s.sah_cost > 1.0 && s.sah_cost < s.triangles / 10.0, "SAH cost %g", s.sah_cost);
    cr_assert(s.bytes >= (uint64_t)s.triangles * 42 && s.bytes <= (uint64_t)s.triangles * 64,
              "%llu bytes", (unsigned long long)s.bytes);
    cr_assert(!s.loaded_from_file && s.accelerator == SKIM_ACCELERATOR_BVH);
    skim_world_destroy(w);

    /* The binned build is within a few percent of the full-sweep yardstick
       with the same leaf rules (it may also be better: both are greedy). */
    skim_world *flat = build(&mesh, 1, 4);
    skim_world_def def = skim_world_def_default();
    skim_bvh_binary_tree binned, full;
    cr_assert_eq(skim_bvh_build_binary(flat->vertex, flat->triangle_count, &def, SKIM_BVH_SPLIT_BINNED, &binned), SKIM_OK);
    cr_assert_eq(skim_bvh_build_binary(flat->vertex, flat->triangle_count, &def, SKIM_BVH_SPLIT_FULL_SWEEP, &full), SKIM_OK);
    cr_expect(binned.sah_cost <= full.sah_cost * 1.05, "binned %g vs full sweep %g", binned.sah_cost,
              full.sah_cost);
    skim_bvh_binary_free(&binned);
    skim_bvh_binary_free(&full);
    skim_world_destroy(flat);
    skim_mesh_data_free(&data);
}

/* Memory, all included (the world, its triangle arrays, the node array as
   allocated): at most 48 bytes a triangle on the default scene
   and the shared levels, and the triangle arrays sized for the triangles
   kept, not for the mesh's count before degenerate ones were dropped. */
static void expect_bytes_within_48(const char *name, const skim_mesh *mesh)
{
    skim_world *w = build(mesh, 1, 4);
    skim_world_stats s;
    cr_assert_eq(skim_world_get_stats(w, &s), SKIM_OK);
    cr_expect_eq(w->stride, skim_world_stride(w->triangle_count), "%s: stride %u for %u triangles", name,
                 w->stride, w->triangle_count);
    uint64_t nodes = ((uint64_t)s.nodes * sizeof(skim_bvh_node) + 63) / 64 * 64;
    cr_expect_eq(s.bytes, sizeof *w + skim_world_storage_bytes(w->stride) + sizeof *w->bvh + nodes,
                 "%s: the statistics miss something", name);
    cr_expect(s.bytes <= 48ull * s.triangles, "%s: %.3f bytes a triangle", name,
              (double)s.bytes / s.triangles);
    skim_world_destroy(w);
}

Test(bvh_structure, at_most_48_bytes_a_triangle_default_scene)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    expect_bytes_within_48("default", &mesh);
    skim_mesh_data_free(&data);
}

Test(bvh_structure, at_most_48_bytes_a_triangle_shared_levels)
{
    static const char *const levels[] = { "oa_dm1.obj", "oa_dm4_hull.obj" };
    int found = 0;
    for (int l = 0; l < 2; ++l) {
        char buffer[1024];
        skim_mesh_data data;
        const char *path = scene_path(levels[l], buffer, sizeof buffer);
        if (!path || !scene_read_obj(path, &data))
            continue;
        skim_mesh mesh = skim_mesh_data_view(&data);
        expect_bytes_within_48(levels[l], &mesh);
        skim_mesh_data_free(&data);
        found++;
    }
    if (!found)
        cr_skip("shared levels not available (SKIM_SCENES_DIR)");
}
