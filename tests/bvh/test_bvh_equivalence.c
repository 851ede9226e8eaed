/* skim_sweep through the BVH must answer exactly what the brute-force
   oracle answers (same hit, triangle, t, point and normal, bit for bit):
   the same kernel runs on the same triangles, only fewer of them.

   Over 200,000 compared sweeps in all: the default scene and the two real
   levels (skipped cleanly without SKIM_SCENES_DIR), spheres and rotated
   ellipsoids, starts touching or embedded, moves from nothing to longer
   than the level, culling and material masks; plus random triangle soups
   far from the origin and every builder setting. Sanitizer builds compare
   a sixteenth of the sweeps on the default scene and the levels
   (SKIM_BVH_TEST_SCALE): the brute-force oracle is most of the time. */
#include "bvh_scenes.h"
#include "swept_sweep.h"

#include <criterion/criterion.h>

#ifndef SKIM_BVH_TEST_SCALE
#define SKIM_BVH_TEST_SCALE 1
#endif

typedef struct pair { skim_world *bvh, *brute; } pair;

static pair make_pair(const skim_mesh *mesh, int max_leaf, int bins)
{
    pair p;
    skim_world_def def = skim_world_def_default();
    def.max_leaf_triangles = max_leaf;
    def.sah_bins = bins;
    cr_assert_eq(skim_world_create(mesh, &def, &p.bvh), SKIM_OK, "%s", skim_last_error_message());
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    cr_assert_eq(skim_world_create(mesh, &def, &p.brute), SKIM_OK, "%s", skim_last_error_message());
    skim_world_stats stats;
    skim_world_get_stats(p.bvh, &stats);
    cr_assert(stats.nodes > 0 || stats.triangles <= (uint32_t)max_leaf, "no tree was built");
    return p;
}

static void free_pair(pair *p)
{
    skim_world_destroy(p->bvh);
    skim_world_destroy(p->brute);
}

/* Runs count queries; returns how many hit, so callers can check the mix
   exercised both outcomes. */
static int compare_sweeps(const pair *p, const skim_mesh *mesh, int count, uint64_t seed,
                          const scene_query_mix *mix)
{
    scene_rng rng = { seed };
    float level = scene_level_size(p->brute);
    int hits = 0;
    skim_candidates candidates;
    skim_candidates_init(&candidates);
    for (int i = 0; i < count; ++i) {
        scene_query q = scene_make_query(&rng, mesh, level, mix);
        skim_hit a, b, c;
        cr_assert_eq(skim_sweep(p->bvh, &q.shape, q.start, q.delta, &q.query, &a), SKIM_OK);
        cr_assert_eq(skim_sweep(p->brute, &q.shape, q.start, q.delta, &q.query, &b), SKIM_OK);
        /* The swept gather must answer the same too. */
        cr_assert_eq(swept_sweep(p->bvh, &q.shape, q.start, q.delta, &q.query, &candidates, &c), SKIM_OK);
        if (!scene_hits_identical(&c, &b))
            cr_assert_fail("query %d (seed %llu): swept gather %s t=%.9g tri=%u, brute force %s t=%.9g "
                           "tri=%u", i, (unsigned long long)seed, c.hit ? "hit" : "miss", c.t,
                           c.triangle, b.hit ? "hit" : "miss", b.t, b.triangle);
        if (!scene_hits_identical(&a, &b))
            cr_assert_fail("query %d (seed %llu): BVH %s t=%.9g tri=%u, brute force %s t=%.9g tri=%u; "
                     "start (%.9g %.9g %.9g) delta (%.9g %.9g %.9g)",
                     i, (unsigned long long)seed, a.hit ? "hit" : "miss", a.t, a.triangle,
                     b.hit ? "hit" : "miss", b.t, b.triangle, q.start.x, q.start.y, q.start.z,
                     q.delta.x, q.delta.y, q.delta.z);
        hits += a.hit;
    }
    skim_candidates_free(&candidates);
    return hits;
}

static const scene_query_mix game_mix = {
    .radius = 16.0f, .max_radii = 32.0f, .ellipsoid_share = 0.25f, .contact_share = 0.15f,
    .huge_share = 0.03f, .options_share = 0.2f,
};

static void compare_level(const char *file, int count, uint64_t seed)
{
    char buffer[1024];
    const char *path = scene_path(file, buffer, sizeof buffer);
    skim_mesh_data data;
    if (!path || !scene_read_obj(path, &data))
        cr_skip("%s not available (SKIM_SCENES_DIR)", file);
    skim_mesh mesh = skim_mesh_data_view(&data);
    pair p = make_pair(&mesh, 4, 16);
    int hits = compare_sweeps(&p, &mesh, count, seed, &game_mix);
    cr_expect(hits > count / 4 && hits < count, "%d of %d hit: the mix is not exercising both", hits,
              count);
    free_pair(&p);
    skim_mesh_data_free(&data);
}

static void compare_default(int count, uint64_t seed, const scene_query_mix *mix)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    pair p = make_pair(&mesh, 4, 16);
    int hits = compare_sweeps(&p, &mesh, count, seed, mix);
    cr_expect(hits > count / 10 && hits < count, "%d of %d hit", hits, count);
    free_pair(&p);
    skim_mesh_data_free(&data);
}

/* Split in parts so Criterion runs them on both cores. */
Test(bvh_equivalence, default_scene_game_moves) { compare_default(40000 / SKIM_BVH_TEST_SCALE, 11, &game_mix); }

Test(bvh_equivalence, default_scene_small_radii_long_moves)
{
    scene_query_mix mix = { .radius = 4.0f, .max_radii = 256.0f, .ellipsoid_share = 0.3f,
                            .contact_share = 0.2f, .huge_share = 0.1f, .options_share = 0.3f };
    compare_default(40000 / SKIM_BVH_TEST_SCALE, 12, &mix);
}

Test(bvh_equivalence, oa_dm1_part1) { compare_level("oa_dm1.obj", 30000 / SKIM_BVH_TEST_SCALE, 21); }
Test(bvh_equivalence, oa_dm1_part2) { compare_level("oa_dm1.obj", 30000 / SKIM_BVH_TEST_SCALE, 22); }
Test(bvh_equivalence, oa_dm4_hull_part1) { compare_level("oa_dm4_hull.obj", 30000 / SKIM_BVH_TEST_SCALE, 31); }
Test(bvh_equivalence, oa_dm4_hull_part2) { compare_level("oa_dm4_hull.obj", 30000 / SKIM_BVH_TEST_SCALE, 32); }

/* Random soups: slivers, huge and tiny triangles, far from the origin
   (where float spacing is coarse and the quantised grids are stressed),
   with every leaf size and bin count the API allows at the ends. */
static void random_soup(scene_rng *rng, uint32_t triangles, float offset, float scale,
                        skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    out->vertex_count = 3 * triangles;
    out->triangle_count = triangles;
    out->positions = malloc(9 * sizeof(float) * triangles);
    out->indices = malloc(3 * sizeof(uint32_t) * triangles);
    out->materials = malloc(sizeof(uint16_t) * triangles);
    cr_assert(out->positions && out->indices && out->materials);
    for (uint32_t t = 0; t < triangles; ++t) {
        float center[3], size = scale * (scene_rng_unit(rng) < 0.1f ? 20.0f : scene_rng_range(rng, 0.01f, 1.0f));
        for (int k = 0; k < 3; ++k)
            center[k] = offset + scene_rng_range(rng, -30.0f, 30.0f) * scale;
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                out->positions[9 * t + 3 * v + k] = center[k] + size * scene_rng_range(rng, -1.0f, 1.0f);
        for (int v = 0; v < 3; ++v)
            out->indices[3 * t + v] = 3 * t + v;
        out->materials[t] = (uint16_t)scene_rng_below(rng, 70);
    }
}

Test(bvh_equivalence, random_soups_every_setting)
{
    static const struct { int leaf, bins; float offset, scale; } cases[] = {
        { 1, 8, 0.0f, 1.0f },        { 4, 16, 0.0f, 10.0f },     { 16, 32, 0.0f, 3.0f },
        { 2, 13, 100000.0f, 1.0f },  { 4, 16, -250000.0f, 50.0f }, { 7, 32, 1e-3f, 1e-3f },
    };
    scene_rng rng = { 99 };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        skim_mesh_data data;
        random_soup(&rng, 400, cases[c].offset, cases[c].scale, &data);
        skim_mesh mesh = skim_mesh_data_view(&data);
        pair p = make_pair(&mesh, cases[c].leaf, cases[c].bins);
        scene_query_mix mix = { .radius = 2.0f * cases[c].scale, .max_radii = 40.0f,
                                .ellipsoid_share = 0.3f, .contact_share = 0.2f, .huge_share = 0.05f,
                                .options_share = 0.3f };
        int hits = compare_sweeps(&p, &mesh, 4000, 1000 + c, &mix);
        cr_expect(hits > 100, "case %zu: only %d hits", c, hits);
        free_pair(&p);
        skim_mesh_data_free(&data);
    }
}
