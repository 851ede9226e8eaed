/* Rays: the same answers as a double-precision oracle over every triangle
   on the real levels, no slipping through shared edges and vertices of
   closed meshes, the documented conventions (t = 0 on a start on a
   triangle, normals toward the origin, culling, ties), and a batch
   bitwise equal to single casts for any thread count. Sanitizer builds
   compare an eighth of the rays with the oracle (SKIM_QUERY_TEST_SCALE):
   the oracle, this suite's own unoptimised code, is most of their time. */
#include "query_scenes.h"

#include <omp.h>

#ifndef SKIM_QUERY_TEST_SCALE
#define SKIM_QUERY_TEST_SCALE 1
#endif

static void compare_with_oracle(const char *file, uint64_t seed, int rays)
{
    skim_mesh_data mesh;
    skim_world *world;
    query_open_level(file, &mesh, &world);
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    query_rng rng = { seed };
    int grazing = 0, hits = 0, misses = 0;
    const float span[3] = { stats.bounds_max.x - stats.bounds_min.x, stats.bounds_max.y - stats.bounds_min.y,
                            stats.bounds_max.z - stats.bounds_min.z };
    for (int r = 0; r < rays; ++r) {
        skim_vec3 o = { query_rng_range(&rng, stats.bounds_min.x, stats.bounds_max.x),
                        query_rng_range(&rng, stats.bounds_min.y, stats.bounds_max.y),
                        query_rng_range(&rng, stats.bounds_min.z, stats.bounds_max.z) };
        /* Lengths from a tenth of the level to all of it, so both hits and misses come. */
        const float scale = query_rng_range(&rng, 0.1f, 1.0f);
        skim_vec3 d = { scale * span[0] * query_rng_range(&rng, -1, 1), scale * span[1] * query_rng_range(&rng, -1, 1),
                        scale * span[2] * query_rng_range(&rng, -1, 1) };
        const double od[3] = { o.x, o.y, o.z }, dd[3] = { d.x, d.y, d.z };
        query_oracle_hit expected = query_oracle_ray(&mesh, od, dd, 1e-6);
        if (expected.grazing) {
            ++grazing;
            continue;
        }
        skim_hit hit;
        cr_assert_eq(skim_raycast(world, o, d, NULL, &hit), SKIM_OK);
        cr_assert_eq(hit.hit, expected.hit, "%s ray %d: hit %d, oracle %d (t %.9g)", file, r, hit.hit,
                     expected.hit, expected.t);
        if (!expected.hit) {
            ++misses;
            continue;
        }
        ++hits;
        cr_assert(fabs(hit.t - expected.t) <= 1e-5 * expected.t + 1e-7, "%s ray %d: t %.9g, oracle %.9g",
                  file, r, hit.t, expected.t);
        cr_assert_eq(hit.body, SKIM_STATIC);
        if (hit.triangle != expected.triangle) {
            /* Only another triangle at the same place (a coincident face) may stand in. */
            query_oracle_hit alone = query_oracle_ray(&(skim_mesh_data){ .positions = mesh.positions,
                .indices = mesh.indices + 3 * hit.triangle, .triangle_count = 1 }, od, dd, 1e-6);
            cr_assert(alone.hit && fabs(alone.t - expected.t) <= 1e-6 * expected.t + 1e-9,
                      "%s ray %d: triangle %u, oracle %u", file, r, hit.triangle, expected.triangle);
        }
    }
    cr_log_info("%s: %d hits, %d misses agree with the oracle; %d grazing rays left out", file, hits,
                misses, grazing);
    cr_expect(hits > rays / 10 && misses > rays / 20, "both hits (%d) and misses (%d) were tried", hits, misses);
    cr_expect(grazing < rays / 20, "few grazing rays (%d)", grazing);
    skim_world_destroy(world);
    skim_mesh_data_free(&mesh);
}

Test(query_rays, agree_with_the_double_oracle_on_oa_dm1, .timeout = 120)
{
    compare_with_oracle("oa_dm1.obj", 11, 3000 / SKIM_QUERY_TEST_SCALE);
}

Test(query_rays, agree_with_the_double_oracle_on_oa_dm4_hull, .timeout = 120)
{
    compare_with_oracle("oa_dm4_hull.obj", 12, 3000 / SKIM_QUERY_TEST_SCALE);
}

/* Rays from inside a closed mesh aimed exactly at its vertices and at
   points of its shared edges: each must leave through some triangle no
   later than the point it was aimed at. */
static void aim_at_features(const skim_mesh_data *mesh, const skim_vec3 *origins, int origin_count,
                            int *tried)
{
    skim_world *world;
    skim_mesh view = skim_mesh_data_view(mesh);
    cr_assert_eq(skim_world_create(&view, NULL, &world), SKIM_OK);
    query_rng rng = { 7 };
    for (int k = 0; k < origin_count; ++k) {
        const skim_vec3 o = origins[k];
        for (uint32_t t = 0; t < mesh->triangle_count; ++t)
            for (int corner = 0; corner < 3; ++corner) {
                const float *a = mesh->positions + 3 * mesh->indices[3 * t + corner];
                const float *b = mesh->positions + 3 * mesh->indices[3 * t + (corner + 1) % 3];
                /* The corner itself, and a point of the edge to the next one. */
                const float s = query_rng_range(&rng, 0.0f, 1.0f);
                const skim_vec3 targets[2] = { { a[0], a[1], a[2] },
                                               { a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]), a[2] + s * (b[2] - a[2]) } };
                for (int which = 0; which < 2; ++which) {
                    skim_vec3 target = targets[which];
                    skim_vec3 d = { 2.0f * (target.x - o.x), 2.0f * (target.y - o.y), 2.0f * (target.z - o.z) };
                    skim_hit hit;
                    cr_assert_eq(skim_raycast(world, o, d, NULL, &hit), SKIM_OK);
                    cr_assert(hit.hit && hit.t <= 0.5f + 1e-5f,
                              "the ray from (%g %g %g) at (%.9g %.9g %.9g) slipped through (hit %d, t %g)",
                              o.x, o.y, o.z, target.x, target.y, target.z, hit.hit, hit.t);
                    ++*tried;
                }
            }
    }
    skim_world_destroy(world);
}

Test(query_rays, never_slip_through_the_edges_and_corners_of_a_closed_cube, .timeout = 120)
{
    skim_mesh_data cube;
    query_subdivided_cube(7, &cube);
    skim_vec3 origins[6];
    query_rng rng = { 3 };
    for (int k = 0; k < 6; ++k)
        origins[k] = (skim_vec3){ query_rng_range(&rng, -0.9f, 0.9f), query_rng_range(&rng, -0.9f, 0.9f),
                                  query_rng_range(&rng, -0.9f, 0.9f) };
    origins[0] = (skim_vec3){ 0, 0, 0 }; /* on the diagonals: exactly through corners */
    int tried = 0;
    aim_at_features(&cube, origins, 6, &tried);
    cr_log_info("%d rays aimed at the cube's corners and edges hit", tried);
    skim_mesh_data_free(&cube);
}

static int compare_edges(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static const float *weld_positions;
static int compare_positions(const void *x, const void *y)
{
    const float *a = weld_positions + 3 * *(const uint32_t *)x, *b = weld_positions + 3 * *(const uint32_t *)y;
    for (int k = 0; k < 3; ++k)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return (*(const uint32_t *)x > *(const uint32_t *)y) - (*(const uint32_t *)x < *(const uint32_t *)y);
}

/* Every index is replaced by the lowest index of a vertex at the same position. */
static void weld_vertices(skim_mesh_data *mesh)
{
    uint32_t *order = malloc(mesh->vertex_count * sizeof *order), *canonical = malloc(mesh->vertex_count * sizeof *canonical);
    for (uint32_t v = 0; v < mesh->vertex_count; ++v)
        order[v] = v;
    weld_positions = mesh->positions;
    qsort(order, mesh->vertex_count, sizeof *order, compare_positions);
    for (uint32_t i = 0; i < mesh->vertex_count; ++i)
        canonical[order[i]] = i > 0 && memcmp(mesh->positions + 3 * order[i], mesh->positions + 3 * order[i - 1], 12) == 0
                                  ? canonical[order[i - 1]] : order[i];
    for (uint32_t i = 0; i < 3 * mesh->triangle_count; ++i)
        mesh->indices[i] = canonical[mesh->indices[i]];
    free(order);
    free(canonical);
}

/* The sealed level's own corners and shared edges, approached from just
   behind the surface at each: a ray that crosses the surface there must
   meet it. Only corners whose every edge is shared by exactly two kept
   triangles (no T-junctions, no open borders), with a fan that faces one
   way, are used. */
Test(query_rays, never_slip_through_the_corners_of_the_sealed_hull, .timeout = 120)
{
    skim_mesh_data mesh;
    skim_world *world;
    query_open_level("oa_dm4_hull.obj", &mesh, &world);
    const uint32_t nv = mesh.vertex_count, nt = mesh.triangle_count;
    /* The level lists a corner once per face: weld equal positions. */
    weld_vertices(&mesh);
    double *normal_sum = calloc(3 * (size_t)nv, sizeof(double));
    int *bad = calloc(nv, sizeof(int));
    /* Edge uses, counted by a sort of (min, max) pairs. */
    uint64_t *edges = malloc(3 * (size_t)nt * sizeof *edges);
    uint32_t edge_count = 0;
    for (uint32_t t = 0; t < nt; ++t) {
        skim_triangle tri;
        if (skim_world_get_triangle(world, t, &tri) != SKIM_OK) {
            for (int k = 0; k < 3; ++k)
                bad[mesh.indices[3 * t + k]] = 1; /* a degenerate neighbour: a T-junction risk */
            continue;
        }
        for (int k = 0; k < 3; ++k) {
            uint32_t a = mesh.indices[3 * t + k], b = mesh.indices[3 * t + (k + 1) % 3];
            edges[edge_count++] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
            normal_sum[3 * a] += tri.normal.x, normal_sum[3 * a + 1] += tri.normal.y, normal_sum[3 * a + 2] += tri.normal.z;
        }
    }
    qsort(edges, edge_count, sizeof *edges, compare_edges);
    for (uint32_t i = 0; i < edge_count;) {
        uint32_t j = i;
        while (j < edge_count && edges[j] == edges[i])
            ++j;
        if (j - i != 2)
            bad[edges[i] >> 32] = bad[(uint32_t)edges[i]] = 1;
        i = j;
    }
    int tried = 0, used = 0;
    for (uint32_t v = 0; v < nv; ++v) {
        double *n = normal_sum + 3 * v;
        double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (bad[v] || length < 0.5)
            continue;
        /* Every fan triangle must face along the mean normal. */
        bool one_way = true;
        for (uint32_t t = 0; t < nt && one_way; ++t)
            for (int k = 0; k < 3; ++k)
                if (mesh.indices[3 * t + k] == v) {
                    skim_triangle tri;
                    if (skim_world_get_triangle(world, t, &tri) == SKIM_OK)
                        one_way = (tri.normal.x * n[0] + tri.normal.y * n[1] + tri.normal.z * n[2]) / length > 0.3;
                }
        if (!one_way)
            continue;
        ++used;
        const float *p = mesh.positions + 3 * v;
        for (int side = -1; side <= 1; side += 2) {
            const double step = 0.25 * side / length;
            skim_vec3 o = { (float)(p[0] - step * n[0]), (float)(p[1] - step * n[1]), (float)(p[2] - step * n[2]) };
            skim_vec3 d = { 2.0f * (p[0] - o.x), 2.0f * (p[1] - o.y), 2.0f * (p[2] - o.z) };
            skim_hit hit;
            cr_assert_eq(skim_raycast(world, o, d, NULL, &hit), SKIM_OK);
            cr_assert(hit.hit && hit.t <= 0.5f + 1e-4f, "the ray through corner %u (%g %g %g) slipped through",
                      v, p[0], p[1], p[2]);
            ++tried;
        }
    }
    cr_log_info("%d rays through %d corners of the sealed hull hit", tried, used);
    cr_expect(used > 1000, "enough corners were usable (%d)", used);
    free(edges);
    free(bad);
    free(normal_sum);
    skim_world_destroy(world);
    skim_mesh_data_free(&mesh);
}

static skim_world *one_triangle(void)
{
    static const float positions[] = { 0, 0, 0, 4, 0, 0, 0, 4, 0 };
    static const uint32_t indices[] = { 0, 1, 2 };
    skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    return world;
}

Test(query_rays, report_the_normal_toward_the_origin_and_cull_back_faces)
{
    skim_world *world = one_triangle();
    skim_hit hit;
    cr_assert_eq(skim_raycast(world, (skim_vec3){ 1, 1, 2 }, (skim_vec3){ 0, 0, -4 }, NULL, &hit), SKIM_OK);
    cr_assert(hit.hit && hit.t == 0.5f && hit.normal.z == 1.0f && hit.point.z == 0.0f);
    cr_assert_eq(skim_raycast(world, (skim_vec3){ 1, 1, -2 }, (skim_vec3){ 0, 0, 4 }, NULL, &hit), SKIM_OK);
    cr_assert(hit.hit && hit.t == 0.5f && hit.normal.z == -1.0f);
    skim_query cull = skim_query_default();
    cull.cull_back_faces = true;
    cr_assert_eq(skim_raycast(world, (skim_vec3){ 1, 1, -2 }, (skim_vec3){ 0, 0, 4 }, &cull, &hit), SKIM_OK);
    cr_assert(!hit.hit && hit.t == 1.0f);
    skim_query none = skim_query_default();
    none.material_mask = 0;
    cr_assert_eq(skim_raycast(world, (skim_vec3){ 1, 1, 2 }, (skim_vec3){ 0, 0, -4 }, &none, &hit), SKIM_OK);
    cr_assert(!hit.hit);
    /* Short of the triangle: no hit. */
    cr_assert_eq(skim_raycast(world, (skim_vec3){ 1, 1, 2 }, (skim_vec3){ 0, 0, -1.5f }, NULL, &hit), SKIM_OK);
    cr_assert(!hit.hit);
    skim_world_destroy(world);
}

Test(query_rays, hit_at_zero_when_starting_on_a_triangle)
{
    skim_world *world = one_triangle();
    skim_hit hit;
    const skim_vec3 directions[3] = { { 0, 0, -1 }, { 0.3f, 0.2f, 1 }, { 1, 1, -0.01f } };
    for (int k = 0; k < 3; ++k) {
        cr_assert_eq(skim_raycast(world, (skim_vec3){ 0.7f, 1.3f, 0 }, directions[k], NULL, &hit), SKIM_OK);
        cr_assert(hit.hit && hit.t == 0.0f, "direction %d: hit %d t %g", k, hit.hit, hit.t);
    }
    skim_world_destroy(world);
}

Test(query_rays, break_ties_by_the_lowest_triangle_index)
{
    /* The same square twice, split along different diagonals: the ray
       through the middle meets four triangles at once. */
    static const float positions[] = { 0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0 };
    static const uint32_t indices[] = { 1, 2, 3, 0, 1, 3, 0, 1, 2, 0, 2, 3 };
    skim_mesh mesh = { positions, 4, indices, 4, NULL };
    skim_world *world;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    skim_hit hit;
    cr_assert_eq(skim_raycast(world, (skim_vec3){ 1, 1, 1 }, (skim_vec3){ 0, 0, -2 }, NULL, &hit), SKIM_OK);
    cr_assert(hit.hit && hit.triangle == 0, "triangle %u", hit.triangle);
    skim_world_destroy(world);
}

Test(query_rays, batch_is_bitwise_the_single_casts_for_any_thread_count, .timeout = 120)
{
    skim_mesh_data cube;
    query_subdivided_cube(16, &cube);
    skim_mesh view = skim_mesh_data_view(&cube);
    skim_world *world;
    cr_assert_eq(skim_world_create(&view, NULL, &world), SKIM_OK);
    enum { N = 20000 };
    skim_vec3 *origins = malloc(N * sizeof *origins), *deltas = malloc(N * sizeof *deltas);
    skim_hit *one = malloc(N * sizeof *one), *two = malloc(N * sizeof *two);
    query_rng rng = { 5 };
    for (int i = 0; i < N; ++i) {
        origins[i] = (skim_vec3){ query_rng_range(&rng, -3, 3), query_rng_range(&rng, -3, 3), query_rng_range(&rng, -3, 3) };
        deltas[i] = (skim_vec3){ query_rng_range(&rng, -4, 4), query_rng_range(&rng, -4, 4), query_rng_range(&rng, -4, 4) };
    }
    omp_set_num_threads(1);
    cr_assert_eq(skim_raycast_batch(world, N, origins, deltas, NULL, one), SKIM_OK);
    omp_set_num_threads(3);
    cr_assert_eq(skim_raycast_batch(world, N, origins, deltas, NULL, two), SKIM_OK);
    cr_assert(memcmp(one, two, N * sizeof *one) == 0);
    int hits = 0;
    for (int i = 0; i < N; ++i) {
        skim_hit single;
        cr_assert_eq(skim_raycast(world, origins[i], deltas[i], NULL, &single), SKIM_OK);
        cr_assert(memcmp(&single, &one[i], sizeof single) == 0, "ray %d", i);
        hits += single.hit;
    }
    cr_assert(hits > N / 10, "%d hits", hits);
    /* Pinned: the answers' bits (t, point, normal, triangle) for these rays. */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < N * sizeof *one; ++i)
        h = (h ^ ((const unsigned char *)one)[i]) * 1099511628211ull;
    cr_expect_eq(h, 0x0b50f36f7b8771c7ull, "hash %016llx", (unsigned long long)h);
    free(origins), free(deltas), free(one), free(two);
    skim_world_destroy(world);
    skim_mesh_data_free(&cube);
}
