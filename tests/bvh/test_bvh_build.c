/* The builder's binning steps (src/bvh/bvh_sah_binning.c) compiled for the
   baseline instruction set and for AVX2 give the same bins, the same split
   and the same partition, bit for bit, on nodes cut from real scenes and
   random soups, small nodes and large ones alike: the tree a world gets
   must not depend on the CPU that built it. */
#include "bvh/bvh_sah_binning.h"
#include "world/world.h"
#include "bvh_scenes.h"

#include <criterion/criterion.h>

#if defined(SKIM_SAH_HAVE_AVX2)

static bool same_vector(simde__m128 a, simde__m128 b)
{
    float x[4], y[4];
    simde_mm_storeu_ps(x, a);
    simde_mm_storeu_ps(y, b);
    return memcmp(x, y, 3 * sizeof(float)) == 0; /* the fourth lane is not part of a box */
}

static void expect_same_bins(const skim_sah_bins *a, const skim_sah_bins *b, int bin_count, uint32_t node)
{
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < bin_count; ++k) {
            const skim_sah_bin *x = &skim_sah_bins_of_const(a, axis)[k];
            const skim_sah_bin *y = &skim_sah_bins_of_const(b, axis)[k];
            cr_assert(x->count == y->count && same_vector(x->lo, y->lo) && same_vector(x->neg_hi, y->neg_hi),
                      "node %u: bin %d of axis %d differs", node, k, axis);
        }
}

static void expect_same_split(const skim_sah_split *a, const skim_sah_split *b, uint32_t node)
{
    cr_assert_eq(a->found, b->found, "node %u", node);
    if (!a->found)
        return;
    cr_assert(a->axis == b->axis && a->bin == b->bin && a->left_count == b->left_count &&
                  a->right_count == b->right_count,
              "node %u: split %d/%d vs %d/%d", node, a->axis, a->bin, b->axis, b->bin);
    cr_assert(memcmp(&a->cost, &b->cost, sizeof a->cost) == 0 &&
                  memcmp(&a->left_area, &b->left_area, sizeof a->left_area) == 0 &&
                  memcmp(&a->right_area, &b->right_area, sizeof a->right_area) == 0,
              "node %u: costs differ", node);
    cr_assert(same_vector(a->left_lo, b->left_lo) && same_vector(a->left_hi, b->left_hi) &&
                  same_vector(a->right_lo, b->right_lo) && same_vector(a->right_hi, b->right_hi),
              "node %u: children's boxes differ", node);
}

static void expect_same_range(const skim_sah_range *a, const skim_sah_range *b, uint32_t node)
{
    cr_assert(same_vector(a->lo, b->lo) && same_vector(a->hi, b->hi) &&
                  same_vector(a->centroid_lo, b->centroid_lo) && same_vector(a->centroid_hi, b->centroid_hi),
              "node %u: a child's range differs", node);
}

/* Hoare's partition as the builder had it before its scans were made
   branch-free (block partition, bvh_sah_binning.c): the reference the
   order must match, primitive for primitive, or every tree would change. */
static uint32_t hoare_reference(skim_bvh_prim *prims, uint32_t begin, uint32_t end, const skim_sah_bin_map *map,
                                const skim_sah_split *s)
{
    float offset[4], scale[4];
    simde_mm_storeu_ps(offset, map->offset);
    simde_mm_storeu_ps(scale, map->scale);
    const int axis = s->axis;
    /* bin_position's operations on one lane: (lo + hi - offset) * scale >= bin. */
#define GOES_RIGHT(p) (((p)->lo[axis] + (p)->hi[axis] - offset[axis]) * scale[axis] >= (float)s->bin)
    uint32_t i = begin, j = end;
    for (;;) {
        while (i < j && !GOES_RIGHT(&prims[i]))
            ++i;
        while (i < j && GOES_RIGHT(&prims[j - 1]))
            --j;
        if (i >= j)
            break;
        skim_bvh_prim swap = prims[i];
        prims[i] = prims[j - 1];
        prims[j - 1] = swap;
        ++i;
        --j;
    }
#undef GOES_RIGHT
    return i;
}

/* One node [begin, end) of prims through both step sets. */
static void compare_node(const skim_bvh_prim *prims, uint32_t begin, uint32_t end, int bin_count,
                         uint32_t node)
{
    const skim_sah_steps *steps[2] = { &skim_sah_steps_baseline, &skim_sah_steps_avx2 };
    const uint32_t n = end - begin;
    const bool large = n >= SKIM_SAH_LARGE_MIN_PRIMS;
    skim_sah_range range;
    skim_sah_range_of(prims, begin, end, &range);
    skim_sah_bin_map map = skim_sah_make_bin_map(&range, bin_count);
    skim_sah_bins *bins = aligned_alloc(64, 2 * sizeof *bins);
    skim_bvh_prim *copy[2], *sample[2] = { NULL, NULL };
    /* A large node is binned from the primitives at multiples of
       SKIM_SAH_SAMPLE, sample[from, to). */
    const uint32_t from = (begin + SKIM_SAH_SAMPLE - 1) / SKIM_SAH_SAMPLE,
                   to = (end + SKIM_SAH_SAMPLE - 1) / SKIM_SAH_SAMPLE;
    skim_sah_split split[2];
    skim_sah_range left[2], right[2];
    uint32_t mid[2];
    cr_assert(bins);
    for (int s = 0; s < 2; ++s) {
        size_t bytes = ((size_t)end * sizeof *prims + 63) / 64 * 64; /* aligned_alloc wants whole blocks */
        copy[s] = aligned_alloc(64, bytes);
        cr_assert(copy[s]);
        memcpy(copy[s], prims, (size_t)end * sizeof *prims);
        if (large) {
            sample[s] = aligned_alloc(64, ((size_t)to * sizeof *sample[s] + 63) / 64 * 64);
            cr_assert(sample[s]);
            for (uint32_t k = from; k < to; ++k)
                sample[s][k] = copy[s][k * SKIM_SAH_SAMPLE];
            steps[s]->bin(sample[s], from, to, &map, &bins[s]);
        } else
            steps[s]->bin(copy[s], begin, end, &map, &bins[s]);
        split[s] = steps[s]->best_split(&bins[s], &map, &range);
        if (!split[s].found)
            continue;
        if (large)
            mid[s] = steps[s]->partition_large(copy[s], begin, end, &map, &split[s], &left[s], &right[s],
                                               sample[s]);
        else
            mid[s] = steps[s]->partition(copy[s], begin, end, &map, &split[s], &left[s], &right[s]);
        skim_bvh_prim *hoare = malloc((size_t)end * sizeof *hoare);
        cr_assert(hoare);
        memcpy(hoare, prims, (size_t)end * sizeof *prims);
        uint32_t hoare_mid = hoare_reference(hoare, begin, end, &map, &split[s]);
        cr_assert(hoare_mid == mid[s] &&
                      memcmp(hoare + begin, copy[s] + begin, (size_t)(end - begin) * sizeof *prims) == 0,
                  "node %u: the partition's order is not Hoare's", node);
        free(hoare);
    }
    expect_same_bins(&bins[0], &bins[1], map.bin_count, node);
    expect_same_split(&split[0], &split[1], node);
    if (split[0].found) {
        cr_assert_eq(mid[0], mid[1], "node %u", node);
        /* A large node's counts are its sample's. */
        if (!large)
            cr_assert_eq(mid[0] - begin, split[0].left_count, "node %u: the partition disagrees with the bins",
                         node);
        cr_assert_eq(memcmp(copy[0] + begin, copy[1] + begin, (size_t)(end - begin) * sizeof *prims), 0,
                     "node %u: orders differ", node);
        expect_same_range(&left[0], &left[1], node);
        expect_same_range(&right[0], &right[1], node);
        if (large) {
            /* The bins of a large node take a sample's boxes: the
               children's boxes must still be exactly those of their
               primitives. */
            skim_sah_range exact;
            skim_sah_range_of(copy[0], begin, mid[0], &exact);
            expect_same_range(&left[0], &exact, node);
            skim_sah_range_of(copy[0], mid[0], end, &exact);
            expect_same_range(&right[0], &exact, node);
            /* The partition brought the sample up to date. */
            for (uint32_t k = from; k < to; ++k)
                cr_assert(memcmp(&sample[0][k], &copy[0][k * SKIM_SAH_SAMPLE], sizeof *sample[0]) == 0,
                          "node %u: sample %u is stale", node, k);
        }
    }
    for (int s = 0; s < 2; ++s) {
        free(copy[s]);
        free(sample[s]);
    }
    free(bins);
}

/* Nodes cut from a mesh's primitives (as the builder orders them): whole,
   and random ranges of every size class, each with a random bin count. */
static void compare_mesh(const skim_mesh *mesh, int nodes, uint64_t seed)
{
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(mesh, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
    skim_world_def def = skim_world_def_default();
    skim_bvh_binary_tree tree;
    cr_assert_eq(skim_bvh_build_binary(world->vertex, world->triangle_count, &def, SKIM_BVH_SPLIT_BINNED, &tree), SKIM_OK);
    scene_rng rng = { seed };
    const uint32_t n = tree.prim_count;
    for (int node = 0; node < nodes; ++node) {
        uint32_t size = node == 0 ? n : 2 + scene_rng_below(&rng, 1u << (2 + scene_rng_below(&rng, 16)));
        size = size > n ? n : size;
        uint32_t begin = scene_rng_below(&rng, n - size + 1);
        int bins = 2 + (int)scene_rng_below(&rng, SKIM_SAH_MAX_BINS - 1);
        compare_node(tree.prims, begin, begin + size, bins, (uint32_t)node);
    }
    skim_bvh_binary_free(&tree);
    skim_world_destroy(world);
}

Test(bvh_build, binning_steps_agree_across_instruction_sets, .timeout = 120)
{
    if (!__builtin_cpu_supports("avx2"))
        cr_skip("this CPU has no AVX2");
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    compare_mesh(&mesh, 400, 1);
    skim_mesh_data_free(&data);
    /* Large enough for large nodes (binned from a sample). */
    cr_assert(scene_generate_terrain(200, 16.0f, 5, &data));
    mesh = skim_mesh_data_view(&data);
    compare_mesh(&mesh, 60, 2);
    skim_mesh_data_free(&data);
    /* A random soup: overlapping, oddly sized triangles. */
    enum { SOUP = 3000 };
    float *positions = malloc(sizeof(float) * 9 * SOUP);
    uint32_t *indices = malloc(sizeof(uint32_t) * 3 * SOUP);
    scene_rng rng = { 9 };
    for (uint32_t t = 0; t < SOUP; ++t) {
        float center[3], size = scene_rng_unit(&rng) < 0.1f ? 300.0f : 4.0f;
        for (int axis = 0; axis < 3; ++axis)
            center[axis] = scene_rng_range(&rng, -500.0f, 500.0f);
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                positions[9 * t + 3 * v + axis] = center[axis] + scene_rng_range(&rng, -size, size);
        for (int v = 0; v < 3; ++v)
            indices[3 * t + v] = 3 * t + (uint32_t)v;
    }
    mesh = (skim_mesh){ .positions = positions, .vertex_count = 3 * SOUP, .indices = indices,
                        .triangle_count = SOUP };
    compare_mesh(&mesh, 400, 3);
    free(positions);
    free(indices);
}

#else

Test(bvh_build, binning_steps_agree_across_instruction_sets)
{
    cr_skip("one instruction set only on this architecture");
}

#endif
