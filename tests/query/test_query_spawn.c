/* Spawn places: free standing spots on walkable ground inside the level,
   the same list for any thread count and whatever way up the level is
   stored, and a cut list that keeps its head. */
#include "query_scenes.h"
#include "query/query_internal.h" /* skim_sweep_meets */

#include <omp.h>

static uint64_t hash_spots(const skim_vec3 *spots, uint32_t count)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *bytes = (const unsigned char *)spots;
    for (size_t i = 0; i < count * sizeof *spots; ++i)
        h = (h ^ bytes[i]) * 1099511628211ull;
    return h;
}

static skim_vec3 *find_all(const skim_world *world, const skim_ellipsoid *shape, const skim_spawn_def *def,
                           uint32_t *count)
{
    cr_assert_eq(skim_find_spawn_places(world, shape, def, NULL, 0, count), SKIM_OK, "%s",
                 skim_last_error_message());
    skim_vec3 *spots = malloc((*count + 1) * sizeof *spots);
    uint32_t again;
    cr_assert_eq(skim_find_spawn_places(world, shape, def, spots, *count, &again), SKIM_OK);
    cr_assert_eq(again, *count);
    return spots;
}

Test(query_spawn, spots_stand_free_on_the_floor_of_the_sealed_level, .timeout = 120)
{
    skim_mesh_data mesh;
    skim_world *world;
    query_open_level("oa_dm4_hull.obj", &mesh, &world);
    const skim_ellipsoid player = { { 16, 16, 16 }, { 0, 0, 0, 1 } };
    uint32_t count;
    omp_set_num_threads(1);
    skim_vec3 *one = find_all(world, &player, NULL, &count);
    omp_set_num_threads(2);
    uint32_t count_two;
    skim_vec3 *two = find_all(world, &player, NULL, &count_two);
    cr_assert(count == count_two && memcmp(one, two, count * sizeof *one) == 0, "the same for 1 and 2 threads");
    cr_assert(count > 100, "%u spots", count);
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t touching;
        cr_assert_eq(skim_overlap(world, &player, one[i], NULL, NULL, 0, &touching), SKIM_OK);
        cr_assert_eq(touching, 0, "spot %u is free", i);
        skim_move_result rest;
        cr_assert_eq(skim_drop_to_floor(world, &player, one[i], 4.0f, NULL, &rest), SKIM_OK);
        cr_assert(rest.touched & SKIM_TOUCH_FLOOR, "spot %u stands on a floor", i);
        /* Inside: something above (the level is sealed) and below. */
        skim_hit up;
        cr_assert_eq(skim_raycast(world, one[i], (skim_vec3){ 0, 0, stats.bounds_max.z - one[i].z + 1 }, NULL, &up), SKIM_OK);
        cr_assert(up.hit, "spot %u is under the roof", i);
    }
    /* A cut list keeps its head. */
    skim_vec3 head[5];
    uint32_t all;
    cr_assert_eq(skim_find_spawn_places(world, &player, NULL, head, 5, &all), SKIM_OK);
    cr_assert(all == count && memcmp(head, one, sizeof head) == 0);
    /* Pinned: any change to where spots go shows here. */
    cr_expect_eq(hash_spots(one, count), 0x4d832341c05a7cf5ull, "oa_dm4_hull: %u spots, hash %016llx", count,
                 (unsigned long long)hash_spots(one, count));
    free(one);
    free(two);
    skim_world_destroy(world);
    skim_mesh_data_free(&mesh);
}

Test(query_spawn, a_level_stored_with_y_up_gives_the_same_spots, .timeout = 120)
{
    skim_mesh_data scene;
    cr_assert_eq(skim_scene_default(&scene), SKIM_OK);
    skim_mesh view = skim_mesh_data_view(&scene);
    skim_world *z_up;
    cr_assert_eq(skim_world_create(&view, NULL, &z_up), SKIM_OK);
    /* Stored as (z, x, y): up is +x now; a rotation that keeps every
       coordinate exact. */
    const uint32_t n = scene.vertex_count;
    float *turned = malloc(3 * sizeof(float) * n);
    for (uint32_t v = 0; v < n; ++v) {
        turned[3 * v] = scene.positions[3 * v + 2];
        turned[3 * v + 1] = scene.positions[3 * v];
        turned[3 * v + 2] = scene.positions[3 * v + 1];
    }
    skim_mesh turned_view = view;
    turned_view.positions = turned;
    skim_world *x_up;
    cr_assert_eq(skim_world_create(&turned_view, NULL, &x_up), SKIM_OK);
    const skim_ellipsoid player = { { 16, 16, 16 }, { 0, 0, 0, 1 } };
    uint32_t count_z, count_x;
    skim_vec3 *spots_z = find_all(z_up, &player, NULL, &count_z);
    skim_spawn_def def = skim_spawn_def_default();
    def.up = (skim_vec3){ 1, 0, 0 };
    skim_vec3 *spots_x = find_all(x_up, &player, &def, &count_x);
    cr_assert(count_z > 100, "%u spots", count_z);
    /* Pinned, as for the sealed level, on a scene every build has. */
    cr_expect_eq(hash_spots(spots_z, count_z), 0xb769ca675c102c1bull, "default scene: %u spots, hash %016llx",
                 count_z, (unsigned long long)hash_spots(spots_z, count_z));
    /* The same ground: every turned spot turned back is within a unit of a z-up spot. */
    cr_assert(abs((int)count_x - (int)count_z) <= count_z / 20, "%u against %u spots", count_x, count_z);
    uint32_t matched = 0;
    for (uint32_t i = 0; i < count_x; ++i) {
        const skim_vec3 back = { spots_x[i].y, spots_x[i].z, spots_x[i].x };
        for (uint32_t j = 0; j < count_z; ++j)
            if (fabsf(back.x - spots_z[j].x) < 40 && fabsf(back.y - spots_z[j].y) < 40 && fabsf(back.z - spots_z[j].z) < 1.0f) {
                ++matched;
                break;
            }
    }
    cr_assert(matched >= count_x * 19 / 20, "%u of %u turned spots are z-up spots", matched, count_x);
    free(spots_z), free(spots_x), free(turned);
    skim_world_destroy(z_up);
    skim_world_destroy(x_up);
    skim_mesh_data_free(&scene);
}

/* A crate 160 units on a side, its bottom at its origin. */
static skim_world *box_world_for_spawn_test(void)
{
    static const float corners[8][3] = { { -80, -80, 0 }, { 80, -80, 0 }, { 80, 80, 0 }, { -80, 80, 0 },
                                         { -80, -80, 160 }, { 80, -80, 160 }, { 80, 80, 160 }, { -80, 80, 160 } };
    static const uint32_t faces[12][3] = { { 0, 2, 1 }, { 0, 3, 2 }, { 4, 5, 6 }, { 4, 6, 7 },
                                           { 0, 1, 5 }, { 0, 5, 4 }, { 1, 2, 6 }, { 1, 6, 5 },
                                           { 2, 3, 7 }, { 2, 7, 6 }, { 3, 0, 4 }, { 3, 4, 7 } };
    const skim_mesh mesh = { &corners[0][0], 8, &faces[0][0], 12, NULL };
    skim_world *crate;
    cr_assert_eq(skim_world_create(&mesh, NULL, &crate), SKIM_OK, "%s", skim_last_error_message());
    return crate;
}

/* The spawn search asks only whether a sweep meets anything, and stops at
   the first contact its traversal finds (skim_sweep_meets): the answer
   must be skim_sweep's hit, for sweeps short and long, that miss and that
   meet the level or a body standing in it. */
Test(query_spawn, asking_whether_a_sweep_meets_anything_agrees_with_the_first_contact, .timeout = 120)
{
    skim_mesh_data scene;
    cr_assert_eq(skim_scene_default(&scene), SKIM_OK);
    skim_mesh view = skim_mesh_data_view(&scene);
    skim_world *world, *crate;
    cr_assert_eq(skim_world_create(&view, NULL, &world), SKIM_OK);
    crate = box_world_for_spawn_test();
    uint32_t crate_id;
    cr_assert_eq(skim_world_add_body(world, crate, (skim_transform){ { 0, 0, 40 }, { 0, 0, 0, 1 } }, &crate_id),
                 SKIM_OK);
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    const skim_ellipsoid shapes[2] = { { { 16, 16, 16 }, { 0, 0, 0, 1 } }, { { 12, 12, 30 }, { 0, 0, 0, 1 } } };
    query_rng rng = { 0x5eed5eedu };
    uint32_t met = 0, missed = 0;
    for (int k = 0; k < 20000; ++k) {
        const skim_ellipsoid *shape = &shapes[k & 1];
        const skim_vec3 start = { query_rng_range(&rng, stats.bounds_min.x, stats.bounds_max.x),
                                  query_rng_range(&rng, stats.bounds_min.y, stats.bounds_max.y),
                                  query_rng_range(&rng, stats.bounds_min.z, stats.bounds_max.z) };
        const float reach = k % 4 == 0 ? 4000.0f : k % 4 == 1 ? 600.0f : 60.0f;
        const skim_vec3 delta = { query_rng_range(&rng, -reach, reach), query_rng_range(&rng, -reach, reach),
                                  query_rng_range(&rng, -reach / 4, reach / 4) };
        skim_hit first;
        bool meets = false;
        cr_assert_eq(skim_sweep(world, shape, start, delta, NULL, &first), SKIM_OK, "%s", skim_last_error_message());
        cr_assert_eq(skim_sweep_meets(world, shape, start, delta, &meets), SKIM_OK);
        cr_assert_eq(meets, first.hit, "sweep %d from (%g %g %g) by (%g %g %g): meets %d, first contact %d", k,
                     (double)start.x, (double)start.y, (double)start.z, (double)delta.x, (double)delta.y,
                     (double)delta.z, meets, first.hit);
        met += first.hit;
        missed += !first.hit;
    }
    cr_assert(met > 2000 && missed > 2000, "%u met, %u missed: the test tests too little", met, missed);
    skim_world_destroy(world);
    skim_world_destroy(crate);
    skim_mesh_data_free(&scene);
}
