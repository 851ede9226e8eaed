/* skim_raycast_any and skim_raycast_any_batch: "blocked" is exactly
   skim_raycast's hit for the same ray and query (random rays on a level,
   with culling and material masks; a zero delta; a ray stopping short of
   a wall and one reaching it), and the batch is the single calls for any
   thread count. */
#include "query_scenes.h"

#include <omp.h>

Test(query_line_of_sight, blocked_is_exactly_the_raycast_hit_on_oa_dm1, .timeout = 120)
{
    skim_mesh_data mesh;
    skim_world *world;
    query_open_level("oa_dm1.obj", &mesh, &world);
    skim_world_stats s;
    skim_world_get_stats(world, &s);
    enum { N = 6000 };
    skim_vec3 *origins = malloc(N * sizeof *origins), *deltas = malloc(N * sizeof *deltas);
    bool *one = malloc(N * sizeof *one), *three = malloc(N * sizeof *three);
    cr_assert(origins && deltas && one && three);
    query_rng rng = { 31 };
    for (int i = 0; i < N; ++i) {
        skim_vec3 a = { query_rng_range(&rng, s.bounds_min.x, s.bounds_max.x),
                        query_rng_range(&rng, s.bounds_min.y, s.bounds_max.y),
                        query_rng_range(&rng, s.bounds_min.z, s.bounds_max.z) };
        skim_vec3 b = { query_rng_range(&rng, s.bounds_min.x, s.bounds_max.x),
                        query_rng_range(&rng, s.bounds_min.y, s.bounds_max.y),
                        query_rng_range(&rng, s.bounds_min.z, s.bounds_max.z) };
        const float length = query_rng_range(&rng, 0.02f, 1.0f);
        origins[i] = a;
        deltas[i] = (skim_vec3){ length * (b.x - a.x), length * (b.y - a.y), length * (b.z - a.z) };
    }
    int blocked_count = 0;
    for (int variant = 0; variant < 3; ++variant) {
        skim_query query = skim_query_default();
        query.cull_back_faces = variant == 1;
        if (variant == 2)
            query.material_mask = 0x1u;
        for (int i = 0; i < N; ++i) {
            skim_hit hit;
            bool blocked = false;
            cr_assert_eq(skim_raycast(world, origins[i], deltas[i], &query, &hit), SKIM_OK);
            cr_assert_eq(skim_raycast_any(world, origins[i], deltas[i], &query, &blocked), SKIM_OK);
            cr_assert_eq(blocked, hit.hit, "variant %d ray %d: blocked %d, hit %d", variant, i, blocked, hit.hit);
            one[i] = blocked;
            blocked_count += blocked;
        }
        omp_set_num_threads(3);
        cr_assert_eq(skim_raycast_any_batch(world, N, origins, deltas, &query, three), SKIM_OK);
        cr_assert(memcmp(one, three, N * sizeof *one) == 0, "variant %d: the batch differs", variant);
        omp_set_num_threads(1);
        cr_assert_eq(skim_raycast_any_batch(world, N, origins, deltas, &query, three), SKIM_OK);
        cr_assert(memcmp(one, three, N * sizeof *one) == 0, "variant %d: the batch differs", variant);
    }
    cr_expect(blocked_count > 3 * N / 10 && blocked_count < 3 * N - 3 * N / 10, "%d of %d blocked",
              blocked_count, 3 * N);
    free(origins), free(deltas), free(one), free(three);
    skim_world_destroy(world);
    skim_mesh_data_free(&mesh);
}

/* The closed cube [-1, 1]^3: from inside, a ray reaching a wall is
   blocked, one stopping short is not, a zero delta never is. */
Test(query_line_of_sight, a_ray_is_blocked_only_when_it_reaches_a_wall)
{
    skim_mesh_data cube;
    query_subdivided_cube(4, &cube);
    skim_mesh view = skim_mesh_data_view(&cube);
    skim_world *world;
    cr_assert_eq(skim_world_create(&view, NULL, &world), SKIM_OK);
    const skim_vec3 centre = { 0.1f, -0.2f, 0.3f };
    bool blocked = true;
    cr_assert_eq(skim_raycast_any(world, centre, (skim_vec3){ 0.8f, 0, 0 }, NULL, &blocked), SKIM_OK);
    cr_expect_not(blocked, "0.1 + 0.8 stops short of x = 1");
    cr_assert_eq(skim_raycast_any(world, centre, (skim_vec3){ 0.95f, 0, 0 }, NULL, &blocked), SKIM_OK);
    cr_expect(blocked, "0.1 + 0.95 reaches x = 1");
    cr_assert_eq(skim_raycast_any(world, centre, (skim_vec3){ 0, 0, -5 }, NULL, &blocked), SKIM_OK);
    cr_expect(blocked);
    cr_assert_eq(skim_raycast_any(world, centre, (skim_vec3){ 0, 0, 0 }, NULL, &blocked), SKIM_OK);
    cr_expect_not(blocked, "a zero delta meets nothing");
    skim_query culled = skim_query_default();
    culled.cull_back_faces = true;
    /* From inside, every wall shows its back (faces point outward). */
    cr_assert_eq(skim_raycast_any(world, centre, (skim_vec3){ 0, 0, -5 }, &culled, &blocked), SKIM_OK);
    cr_expect_not(blocked, "culled back faces do not block");
    skim_world_destroy(world);
    skim_mesh_data_free(&cube);
}
