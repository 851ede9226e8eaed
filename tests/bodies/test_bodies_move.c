/* Moves see bodies: a mover lands on a platform body and the result names
   it (floor_body, and floor_triangle in the body's own mesh, as do the
   move's contacts), a door body
   stops a walker until it is moved away, and a batch over a scene with
   bodies gives the same bits for 1, 2 and 3 threads and every packet
   kernel set (pinned by hash). */
#include "bodies_scenes.h"
#include "move/move_internal.h"

#include <omp.h>
#include <string.h>

static const skim_ellipsoid player = { { 16, 16, 16 }, { 0, 0, 0, 1 } };

Test(bodies_move, a_mover_lands_on_a_platform_and_rides_it)
{
    skim_mesh_data ground, slab;
    box_mesh((float[3]){ -512, -512, -16 }, (float[3]){ 512, 512, 0 }, &ground);
    box_mesh((float[3]){ -64, -64, -8 }, (float[3]){ 64, 64, 0 }, &slab);
    skim_world *level = world_of(&ground), *platform = world_of(&slab);
    uint32_t id;
    cr_assert_eq(skim_world_add_body(level, platform, (skim_transform){ { 0, 0, 100 }, identity_rotation }, &id), SKIM_OK);
    skim_move_def def = skim_move_def_default();
    def.gravity = (skim_vec3){ 0, 0, -40 };
    skim_move_result result;
    cr_assert_eq(skim_move(level, &player, (skim_vec3){ 10, 0, 130 }, (skim_vec3){ 0, 0, 0 }, &def, &result), SKIM_OK);
    cr_expect(result.touched & SKIM_TOUCH_FLOOR);
    cr_expect_eq(result.floor_body, id);
    cr_expect_lt(result.floor_triangle, 12u, "an index in the platform's own mesh");
    cr_expect_float_eq(result.position.z, 116.16f, 0.05f);
    /* Its contacts name the platform and the triangle in its own mesh, as
       the result's floor does. */
    skim_contact contacts[8];
    uint32_t contact_count = 0;
    skim_move_result logged;
    cr_assert_eq(skim_move_contacts(level, &player, (skim_vec3){ 10, 0, 130 }, (skim_vec3){ 0, 0, 0 }, &def,
                                    &logged, contacts, 8, &contact_count), SKIM_OK);
    cr_expect_eq(memcmp(&logged, &result, sizeof logged), 0, "contacts change nothing");
    cr_assert_geq(contact_count, 1u);
    bool floor_listed = false;
    for (uint32_t k = 0; k < contact_count && k < 8; ++k) {
        cr_expect_eq(contacts[k].body, id, "contact %u is on the platform", k);
        cr_expect_lt(contacts[k].triangle, 12u, "contact %u names the platform's own triangle", k);
        floor_listed |= contacts[k].triangle == result.floor_triangle && contacts[k].pass == SKIM_MOVE_PASS_GRAVITY;
    }
    cr_expect(floor_listed, "the floor the gravity pass met is listed");
    /* The lift goes up by 20: the caller carries the rider by the motion. */
    cr_assert_eq(skim_world_set_body_transform(level, id, (skim_transform){ { 0, 0, 120 }, identity_rotation }), SKIM_OK);
    skim_transform now, before;
    cr_assert_eq(skim_world_get_body_transform(level, id, &now, &before), SKIM_OK);
    const skim_vec3 ride = { now.position.x - before.position.x, now.position.y - before.position.y,
                             now.position.z - before.position.z };
    /* Carried by the lift's motion (the rider is placed, not swept: the
       lift has already moved up around its feet), it rests on it again. */
    const skim_vec3 carried = { result.position.x + ride.x, result.position.y + ride.y,
                                result.position.z + ride.z };
    skim_move_result rode;
    cr_assert_eq(skim_move(level, &player, carried, (skim_vec3){ 4, 0, 0 }, &def, &rode), SKIM_OK);
    cr_expect_eq(rode.floor_body, id);
    cr_expect_float_eq(rode.position.z, result.position.z + 20.0f, 0.05f, "%g", rode.position.z);
    cr_expect_float_eq(rode.position.x, result.position.x + 4.0f, 1e-3f);
    /* Off the platform's edge onto the ground: the static world again. */
    cr_assert_eq(skim_move(level, &player, (skim_vec3){ 300, 0, 40 }, (skim_vec3){ 0, 0, 0 }, &def, &result), SKIM_OK);
    cr_expect_eq(result.floor_body, SKIM_STATIC);
    cr_expect_neq(result.floor_triangle, UINT32_MAX);
    skim_world_destroy(level);
    skim_world_destroy(platform);
    skim_mesh_data_free(&ground);
    skim_mesh_data_free(&slab);
}

Test(bodies_move, a_door_stops_a_walker_until_it_opens)
{
    skim_mesh_data ground, panel;
    box_mesh((float[3]){ -512, -512, -16 }, (float[3]){ 512, 512, 0 }, &ground);
    box_mesh((float[3]){ -64, -4, 0 }, (float[3]){ 64, 4, 128 }, &panel);
    skim_world *level = world_of(&ground), *door = world_of(&panel);
    uint32_t id;
    /* The door turned a quarter about z: its panel spans y, across the walk along x. */
    cr_assert_eq(skim_world_add_body(level, door, (skim_transform){ { 100, 0, 0 }, axis_angle(0, 0, 1, 1.5707963) }, &id), SKIM_OK);
    skim_move_result result;
    const skim_vec3 start = { 0, 0, 17 }, walk = { 200, 0, 0 };
    cr_assert_eq(skim_move(level, &player, start, walk, NULL, &result), SKIM_OK);
    cr_expect(result.touched & SKIM_TOUCH_WALL);
    cr_expect_float_eq(result.position.x, 100.0f - 4.0f - 16.0f, 0.5f, "stopped at the door: %g", result.position.x);
    /* Swung open (turned back along the walk, pushed aside). */
    cr_assert_eq(skim_world_set_body_transform(level, id, (skim_transform){ { 100, 120, 0 }, identity_rotation }), SKIM_OK);
    cr_assert_eq(skim_move(level, &player, start, walk, NULL, &result), SKIM_OK);
    cr_expect_float_eq(result.position.x, 200.0f, 1e-3f, "through the open door: %g", result.position.x);
    skim_world_destroy(level);
    skim_world_destroy(door);
    skim_mesh_data_free(&ground);
    skim_mesh_data_free(&panel);
}

/* A crowd of movers over the default scene with ten doors (one shared
   mesh) and five platforms standing in it, some turned, moving between
   frames. */
enum { MOVERS = 600, FRAMES = 40 };
#define PINNED_HASH 0x9f987fe8707c99e6ull

static uint64_t fnv(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint64_t bodies_crowd_hash(const skim_kernel_set *set, int threads)
{
    skim_mesh_data scene, panel, slab;
    cr_assert_eq(skim_scene_default(&scene), SKIM_OK);
    box_mesh((float[3]){ -64, -4, 0 }, (float[3]){ 64, 4, 128 }, &panel);
    box_mesh((float[3]){ -96, -96, -8 }, (float[3]){ 96, 96, 0 }, &slab);
    skim_world *level = world_of(&scene), *door = world_of(&panel), *platform = world_of(&slab);
    uint32_t ids[15];
    for (int k = 0; k < 15; ++k) {
        const skim_world *shape = k < 10 ? door : platform;
        const skim_transform t = { { -1800.0f + 360.0f * (float)k, -1000.0f + 150.0f * (float)(k % 4), k < 10 ? 0.0f : 40.0f },
                                   axis_angle(0, 0, 1, 0.4 * k) };
        cr_assert_eq(skim_world_add_body(level, shape, t, &ids[k]), SKIM_OK, "%s", skim_last_error_message());
    }
    skim_ellipsoid *shapes = malloc(MOVERS * sizeof *shapes);
    skim_vec3 *positions = malloc(MOVERS * sizeof *positions), *moves = malloc(MOVERS * sizeof *moves);
    skim_move_result *results = malloc(MOVERS * sizeof *results);
    query_rng rng = { 77 };
    for (int i = 0; i < MOVERS; ++i) {
        shapes[i] = i % 7 == 6 ? (skim_ellipsoid){ { 15, 15, 28 }, identity_rotation } : player;
        positions[i] = (skim_vec3){ query_rng_range(&rng, -2000, 2000), query_rng_range(&rng, -1500, 0),
                                    query_rng_range(&rng, 40, 160) };
    }
    skim_move_def def = skim_move_def_default();
    def.step_height = 18;
    def.snap_distance = 8;
    def.gravity = (skim_vec3){ 0, 0, -6 };
    def.threads = threads;
    uint64_t hash = 1469598103934665603ull;
    for (int frame = 0; frame < FRAMES; ++frame) {
        for (int i = 0; i < MOVERS; ++i) {
            const float heading = 0.3f * (float)(i % 21) + 0.05f * (float)frame;
            moves[i] = (skim_vec3){ 6.0f * cosf(heading), 6.0f * sinf(heading), 0 };
        }
        cr_assert_eq(skim_move_batch_with(set, level, MOVERS, shapes, positions, moves, &def, results), SKIM_OK,
                     "%s", skim_last_error_message());
        for (int i = 0; i < MOVERS; ++i) {
            positions[i] = results[i].position;
            hash = fnv(hash, &results[i].position, sizeof results[i].position);
            hash = fnv(hash, &results[i].touched, sizeof results[i].touched);
            hash = fnv(hash, &results[i].floor_body, sizeof results[i].floor_body);
            hash = fnv(hash, &results[i].floor_triangle, sizeof results[i].floor_triangle);
        }
        for (int k = 0; k < 15; ++k) {
            const skim_transform t = { { -1800.0f + 360.0f * (float)k, -1000.0f + 150.0f * (float)(k % 4),
                                         k < 10 ? 0.0f : 40.0f + 2.0f * (float)frame },
                                       axis_angle(0, 0, 1, 0.4 * k + 0.05 * frame) };
            cr_assert_eq(skim_world_set_body_transform(level, ids[k], t), SKIM_OK);
        }
    }
    free(shapes);
    free(positions);
    free(moves);
    free(results);
    skim_world_destroy(level);
    skim_world_destroy(door);
    skim_world_destroy(platform);
    skim_mesh_data_free(&scene);
    skim_mesh_data_free(&panel);
    skim_mesh_data_free(&slab);
    return hash;
}

Test(bodies_move, a_batch_with_bodies_gives_the_same_bits_for_any_threads_and_kernel_set, .timeout = 300)
{
    char names[256];
    snprintf(names, sizeof names, "%s", skim_isa_available());
    uint64_t first = 0;
    bool have = false;
    for (char *name = strtok(names, " "); name; name = strtok(NULL, " ")) {
        if (strcmp(name, "reference") == 0)
            continue; /* agrees within a tolerance, not bitwise */
        const skim_kernel_set *set = skim_kernel_set_by_name(name);
        cr_assert(set, "available set %s not found", name);
        for (int threads = 1; threads <= 3; threads += (strcmp(set->name, skim_kernels()->name) == 0 ? 1 : 2)) {
            const uint64_t hash = bodies_crowd_hash(set, threads);
            if (!have) {
                first = hash;
                have = true;
            }
            cr_expect_eq(hash, first, "%s, %d threads: %016llx, first %016llx", name, threads,
                         (unsigned long long)hash, (unsigned long long)first);
        }
    }
    cr_log_info("bodies crowd hash %016llx", (unsigned long long)first);
    fprintf(stderr, "bodies crowd hash %016llx\n", (unsigned long long)first);
    cr_expect_eq(first, PINNED_HASH, "hash %016llx, pinned %016llx", (unsigned long long)first,
                 (unsigned long long)PINNED_HASH);
}
