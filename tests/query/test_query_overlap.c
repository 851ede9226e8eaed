/* Overlaps and closest points equal a brute force over every triangle on
   random queries; a drop to the floor lands within half a unit of the true
   floor; a world's triangles come back the same from a built and a baked
   world. */
#include "query_scenes.h"

#include <unistd.h>

/* The brute force: double precision, every triangle, for spheres
   (Ericson, Real-Time Collision Detection, 5.1.5, written out again here
   so the library's copy is checked against an independent one). */
static double squared_distance_to_triangle(const double p[3], const float *a, const float *b, const float *c)
{
    double best = INFINITY;
    /* The face, if p projects inside it. */
    double e1[3], e2[3], n[3], ap[3];
    for (int i = 0; i < 3; ++i)
        e1[i] = (double)b[i] - a[i], e2[i] = (double)c[i] - a[i], ap[i] = p[i] - a[i];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (nn > 0) {
        double s = (ap[0] * n[0] + ap[1] * n[1] + ap[2] * n[2]) / nn;
        double q[3] = { p[0] - s * n[0], p[1] - s * n[1], p[2] - s * n[2] };
        const float *corner[3] = { a, b, c };
        bool inside = true;
        for (int k = 0; k < 3; ++k) {
            const float *u = corner[k], *v = corner[(k + 1) % 3];
            double ev[3] = { (double)v[0] - u[0], (double)v[1] - u[1], (double)v[2] - u[2] };
            double uq[3] = { q[0] - u[0], q[1] - u[1], q[2] - u[2] };
            double cross[3] = { ev[1] * uq[2] - ev[2] * uq[1], ev[2] * uq[0] - ev[0] * uq[2], ev[0] * uq[1] - ev[1] * uq[0] };
            inside &= cross[0] * n[0] + cross[1] * n[1] + cross[2] * n[2] >= 0;
        }
        if (inside)
            best = s * s * nn;
    }
    /* The three edges. */
    const float *corner[3] = { a, b, c };
    for (int k = 0; k < 3; ++k) {
        const float *u = corner[k], *v = corner[(k + 1) % 3];
        double ev[3] = { (double)v[0] - u[0], (double)v[1] - u[1], (double)v[2] - u[2] };
        double up[3] = { p[0] - u[0], p[1] - u[1], p[2] - u[2] };
        double len = ev[0] * ev[0] + ev[1] * ev[1] + ev[2] * ev[2];
        double s = len > 0 ? (up[0] * ev[0] + up[1] * ev[1] + up[2] * ev[2]) / len : 0;
        s = s < 0 ? 0 : s > 1 ? 1 : s;
        double d[3] = { up[0] - s * ev[0], up[1] - s * ev[1], up[2] - s * ev[2] };
        double squared = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (squared < best)
            best = squared;
    }
    return best;
}

static void check_level(const char *file, uint64_t seed)
{
    skim_mesh_data mesh;
    skim_world *world;
    query_open_level(file, &mesh, &world);
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    query_rng rng = { seed };
    skim_triangle_ref *found = malloc(mesh.triangle_count * sizeof *found);
    double *squared = malloc(mesh.triangle_count * sizeof *squared);
    int overlapping = 0, near = 0, queries = 300;
    for (int q = 0; q < queries; ++q) {
        skim_vec3 c = { query_rng_range(&rng, stats.bounds_min.x, stats.bounds_max.x),
                        query_rng_range(&rng, stats.bounds_min.y, stats.bounds_max.y),
                        query_rng_range(&rng, stats.bounds_min.z, stats.bounds_max.z) };
        const double p[3] = { c.x, c.y, c.z };
        const float radius = query_rng_range(&rng, 4.0f, 96.0f);
        double best = INFINITY;
        uint32_t best_triangle = UINT32_MAX;
        for (uint32_t t = 0; t < mesh.triangle_count; ++t) {
            skim_triangle kept;
            squared[t] = INFINITY;
            if (skim_world_get_triangle(world, t, &kept) != SKIM_OK)
                continue; /* dropped at build */
            const uint32_t *i = mesh.indices + 3 * t;
            squared[t] = squared_distance_to_triangle(p, mesh.positions + 3 * i[0], mesh.positions + 3 * i[1],
                                                      mesh.positions + 3 * i[2]);
            if (squared[t] < best)
                best = squared[t], best_triangle = t;
        }
        /* Overlap: exactly the triangles within the radius, in increasing
           index; a query a hair from the boundary is left out. */
        const skim_ellipsoid sphere = { { radius, radius, radius }, { 0, 0, 0, 1 } };
        uint32_t count;
        cr_assert_eq(skim_overlap(world, &sphere, c, NULL, found, mesh.triangle_count, &count), SKIM_OK);
        uint32_t k = 0;
        bool borderline = false;
        for (uint32_t t = 0; t < mesh.triangle_count; ++t)
            borderline |= fabs(sqrt(squared[t]) - radius) < 1e-4 * radius;
        if (!borderline) {
            for (uint32_t t = 0; t < mesh.triangle_count; ++t)
                if (squared[t] <= (double)radius * radius) {
                    cr_assert(k < count && found[k].triangle == t && found[k].body == SKIM_STATIC,
                              "%s query %d: overlap entry %u is %u, brute force %u", file, q, k,
                              k < count ? found[k].triangle : UINT32_MAX, t);
                    ++k;
                }
            cr_assert_eq(k, count, "%s query %d: %u overlapping, brute force %u", file, q, count, k);
        }
        overlapping += count > 0;
        /* Closest point: the same distance and triangle (or one at the same distance). */
        skim_closest closest;
        const float reach = query_rng_range(&rng, 8.0f, 256.0f);
        cr_assert_eq(skim_closest_point(world, c, reach, NULL, &closest), SKIM_OK);
        const bool within = best <= (double)reach * reach;
        if (fabs(sqrt(best) - reach) > 1e-4 * reach) {
            cr_assert_eq(closest.found, within, "%s query %d: found %d, brute force %g within %g", file, q,
                         closest.found, sqrt(best), reach);
            if (within) {
                cr_assert(fabs(closest.distance - sqrt(best)) <= 1e-5 * sqrt(best) + 1e-4,
                          "%s query %d: distance %.9g, brute force %.9g", file, q, closest.distance, sqrt(best));
                cr_assert(closest.triangle == best_triangle || fabs(sqrt(squared[closest.triangle]) - sqrt(best)) < 1e-4,
                          "%s query %d: triangle %u, brute force %u", file, q, closest.triangle, best_triangle);
                double gap[3] = { closest.point.x - p[0], closest.point.y - p[1], closest.point.z - p[2] };
                cr_assert(fabs(sqrt(gap[0] * gap[0] + gap[1] * gap[1] + gap[2] * gap[2]) - closest.distance) < 1e-3);
                ++near;
            }
        }
    }
    cr_log_info("%s: %d of %d overlap queries met triangles, %d closest points found, all as brute force",
                file, overlapping, queries, near);
    cr_expect(overlapping > 10 && near > 10);
    free(found);
    free(squared);
    skim_world_destroy(world);
    skim_mesh_data_free(&mesh);
}

Test(query_overlap, overlap_and_closest_point_equal_brute_force_on_oa_dm1, .timeout = 120)
{
    check_level("oa_dm1.obj", 21);
}

Test(query_overlap, overlap_and_closest_point_equal_brute_force_on_oa_dm4_hull, .timeout = 120)
{
    check_level("oa_dm4_hull.obj", 22);
}

static skim_world *floor_world(float height)
{
    static float positions[12];
    const float p[12] = { -100, -100, height, 100, -100, height, 100, 100, height, -100, 100, height };
    memcpy(positions, p, sizeof p);
    static const uint32_t indices[] = { 0, 1, 2, 0, 2, 3 };
    skim_mesh mesh = { positions, 4, indices, 2, NULL };
    skim_world *world;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    return world;
}

Test(query_overlap, overlap_is_exact_at_touching_and_keeps_the_head_of_a_cut_list)
{
    skim_world *world = floor_world(0.0f);
    const skim_ellipsoid sphere = { { 2, 2, 2 }, { 0, 0, 0, 1 } };
    uint32_t count;
    skim_triangle_ref refs[2];
    cr_assert_eq(skim_overlap(world, &sphere, (skim_vec3){ 0, 0, 2 }, NULL, refs, 2, &count), SKIM_OK);
    cr_assert(count == 2 && refs[0].triangle == 0 && refs[1].triangle == 1, "touching counts");
    cr_assert_eq(skim_overlap(world, &sphere, (skim_vec3){ 0, 0, 2.0001f }, NULL, refs, 2, &count), SKIM_OK);
    cr_assert_eq(count, 0);
    cr_assert_eq(skim_overlap(world, &sphere, (skim_vec3){ 0, 0, 1 }, NULL, refs, 1, &count), SKIM_OK);
    cr_assert(count == 2 && refs[0].triangle == 0, "a cut list keeps its head and says how many");
    cr_assert_eq(skim_overlap(world, &sphere, (skim_vec3){ 0, 0, 1 }, NULL, NULL, 0, &count), SKIM_OK);
    cr_assert_eq(count, 2);
    skim_query cull = skim_query_default();
    cull.cull_back_faces = true;
    cr_assert_eq(skim_overlap(world, &sphere, (skim_vec3){ 0, 0, -1 }, &cull, refs, 2, &count), SKIM_OK);
    cr_assert_eq(count, 0, "behind the floor, culled");
    /* A flat ellipsoid: 1 tall, 10 wide. */
    const skim_ellipsoid flat = { { 10, 10, 1 }, { 0, 0, 0, 1 } };
    cr_assert_eq(skim_overlap(world, &flat, (skim_vec3){ 0, 0, 1.5f }, NULL, refs, 2, &count), SKIM_OK);
    cr_assert_eq(count, 0);
    cr_assert_eq(skim_overlap(world, &flat, (skim_vec3){ 0, 0, 0.5f }, NULL, refs, 2, &count), SKIM_OK);
    cr_assert_eq(count, 2);
    skim_world_destroy(world);
}

Test(query_overlap, closest_point_finds_a_point_exactly_at_the_distance)
{
    skim_world *world = floor_world(0.0f);
    skim_closest closest;
    cr_assert_eq(skim_closest_point(world, (skim_vec3){ 3, 4, 5 }, 5.0f, NULL, &closest), SKIM_OK);
    cr_assert(closest.found && closest.distance == 5.0f && closest.point.z == 0.0f && closest.point.x == 3.0f);
    cr_assert(closest.triangle <= 1 && closest.body == SKIM_STATIC);
    cr_assert_eq(skim_closest_point(world, (skim_vec3){ 3, 4, 5 }, 4.999f, NULL, &closest), SKIM_OK);
    cr_assert(!closest.found);
    skim_world_destroy(world);
}

Test(query_overlap, drop_to_floor_lands_within_half_a_unit_of_the_floor, .timeout = 60)
{
    query_rng rng = { 9 };
    for (int k = 0; k < 50; ++k) {
        const float height = query_rng_range(&rng, -50.0f, 50.0f);
        skim_world *world = floor_world(height);
        const float radius = query_rng_range(&rng, 4.0f, 32.0f);
        const skim_ellipsoid sphere = { { radius, radius, radius }, { 0, 0, 0, 1 } };
        skim_vec3 from = { query_rng_range(&rng, -50, 50), query_rng_range(&rng, -50, 50),
                           height + radius + query_rng_range(&rng, 1.0f, 200.0f) };
        skim_move_result result;
        cr_assert_eq(skim_drop_to_floor(world, &sphere, from, 1000.0f, NULL, &result), SKIM_OK);
        cr_assert(result.touched & SKIM_TOUCH_FLOOR);
        const float lowest = result.position.z - radius;
        cr_assert(lowest >= height && lowest - height < 0.5f, "rests %g above the floor", lowest - height);
        cr_assert(result.position.x == from.x && result.position.y == from.y);
        cr_assert(result.floor_normal.z > 0.99f && result.floor_triangle <= 1);
        /* Not far enough: left where it was. */
        cr_assert_eq(skim_drop_to_floor(world, &sphere, from, 0.5f * (from.z - radius - height), NULL, &result), SKIM_OK);
        cr_assert(!(result.touched & SKIM_TOUCH_FLOOR) && result.position.z == from.z);
        skim_world_destroy(world);
    }
}

Test(query_overlap, drop_to_floor_leaves_a_shape_on_a_steep_slope_or_in_a_wall)
{
    /* A 60-degree slope (a wall for the default 45-degree limit). */
    static const float positions[] = { -10, -10, -17.32f, 10, -10, -17.32f, 10, 10, 17.32f, -10, 10, 17.32f };
    static const uint32_t indices[] = { 0, 1, 2, 0, 2, 3 };
    skim_mesh mesh = { positions, 4, indices, 2, NULL };
    skim_world *world;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK);
    const skim_ellipsoid sphere = { { 1, 1, 1 }, { 0, 0, 0, 1 } };
    skim_move_result result;
    cr_assert_eq(skim_drop_to_floor(world, &sphere, (skim_vec3){ 0, 0, 20 }, 100, NULL, &result), SKIM_OK);
    cr_assert(!(result.touched & SKIM_TOUCH_FLOOR) && result.position.z == 20.0f);
    cr_assert_eq(skim_drop_to_floor(world, &sphere, (skim_vec3){ 0, 0, 0 }, 100, NULL, &result), SKIM_OK);
    cr_assert(!(result.touched & SKIM_TOUCH_FLOOR) && result.position.z == 0.0f, "starts inside");
    skim_world_destroy(world);
}

Test(query_overlap, triangles_come_back_the_same_from_a_built_and_a_baked_world)
{
    static const float positions[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 5, 0, 2, 0, 5, 5, 5 };
    static const uint32_t indices[] = { 0, 1, 2, 3, 3, 3, 4, 5, 6 };
    static const uint16_t materials[] = { 7, 8, 9 };
    skim_mesh mesh = { positions, 7, indices, 3, materials };
    skim_world *built, *baked;
    cr_assert_eq(skim_world_create(&mesh, NULL, &built), SKIM_OK);
    char path[] = "/tmp/skim_query_bakeXXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(skim_world_save(built, path), SKIM_OK);
    cr_assert_eq(skim_world_load(path, &baked), SKIM_OK);
    unlink(path);
    const skim_world *worlds[2] = { built, baked };
    for (int w = 0; w < 2; ++w) {
        skim_triangle t;
        cr_assert_eq(skim_world_get_triangle(worlds[w], 0, &t), SKIM_OK);
        cr_assert(t.corner[1].x == 1.0f && t.corner[2].y == 1.0f && t.normal.z == 1.0f && t.material == 7);
        cr_assert_eq(skim_world_get_triangle(worlds[w], 1, &t), SKIM_ERROR_INVALID_ARGUMENT, "degenerate: dropped");
        cr_assert_eq(skim_world_get_triangle(worlds[w], 2, &t), SKIM_OK);
        cr_assert(t.corner[0].x == 2.0f && t.corner[1].y == 2.0f && t.corner[2].z == 5.0f && t.material == 9);
        cr_assert(fabsf(t.normal.x * t.normal.x + t.normal.y * t.normal.y + t.normal.z * t.normal.z - 1.0f) < 1e-6f);
        cr_assert_eq(skim_world_get_triangle(worlds[w], 3, &t), SKIM_ERROR_INVALID_ARGUMENT);
    }
    skim_world_destroy(built);
    skim_world_destroy(baked);
}
