/* Adding, moving, reading and removing bodies: ids count up and are never
   given again, transforms are renormalised and kept with the one before,
   and every bad argument is refused with a message. */
#include "bodies_scenes.h"

#include <unistd.h>

static skim_mesh_data door_mesh, floor_mesh;
static skim_world *door, *level;

static void setup(void)
{
    box_mesh((float[3]){ -32, -4, 0 }, (float[3]){ 32, 4, 96 }, &door_mesh);
    box_mesh((float[3]){ -512, -512, -16 }, (float[3]){ 512, 512, 0 }, &floor_mesh);
    door = world_of(&door_mesh);
    level = world_of(&floor_mesh);
}

static void teardown(void)
{
    skim_world_destroy(level);
    skim_world_destroy(door);
    skim_mesh_data_free(&door_mesh);
    skim_mesh_data_free(&floor_mesh);
}

TestSuite(bodies_api, .init = setup, .fini = teardown, .timeout = 60);

static skim_transform at(float x, float y, float z)
{
    return (skim_transform){ { x, y, z }, identity_rotation };
}

static void expect_refused(skim_status status, const char *what)
{
    cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT, "%s: status %d", what, (int)status);
    cr_expect_neq(skim_last_error_message()[0], '\0', "%s: no message", what);
}

Test(bodies_api, ids_count_up_and_are_never_given_again)
{
    uint32_t ids[3];
    for (int i = 0; i < 3; ++i) {
        cr_assert_eq(skim_world_add_body(level, door, at(100.0f * (float)i, 0, 0), &ids[i]), SKIM_OK,
                     "%s", skim_last_error_message());
        cr_expect_eq(ids[i], (uint32_t)i);
    }
    cr_assert_eq(skim_world_remove_body(level, ids[1]), SKIM_OK);
    uint32_t next;
    cr_assert_eq(skim_world_add_body(level, door, at(0, 200, 0), &next), SKIM_OK);
    cr_expect_eq(next, 3u, "a removed id is not given again");
    expect_refused(skim_world_set_body_transform(level, ids[1], at(0, 0, 0)), "removed id");
    expect_refused(skim_world_remove_body(level, ids[1]), "removed twice");
    expect_refused(skim_world_set_body_transform(level, 99, at(0, 0, 0)), "unknown id");
    expect_refused(skim_world_get_body_transform(level, SKIM_STATIC, NULL, NULL), "SKIM_STATIC id");
}

Test(bodies_api, transforms_are_renormalised_and_the_previous_one_kept)
{
    uint32_t id;
    const skim_quat slightly_long = { 0.0f, 0.0f, 0.0f, 1.0005f };
    cr_assert_eq(skim_world_add_body(level, door, (skim_transform){ { 1, 2, 3 }, slightly_long }, &id),
                 SKIM_OK, "%s", skim_last_error_message());
    skim_transform now, before;
    cr_assert_eq(skim_world_get_body_transform(level, id, &now, &before), SKIM_OK);
    cr_expect_eq(now.rotation.w, 1.0f, "renormalised");
    cr_expect_eq(before.position.z, 3.0f, "before is the add's transform until a move");
    const skim_transform turned = { { 5, 6, 7 }, axis_angle(0, 0, 1, 0.5) };
    cr_assert_eq(skim_world_set_body_transform(level, id, turned), SKIM_OK);
    cr_assert_eq(skim_world_get_body_transform(level, id, &now, NULL), SKIM_OK);
    cr_assert_eq(skim_world_get_body_transform(level, id, NULL, &before), SKIM_OK);
    cr_expect_eq(now.position.x, 5.0f);
    cr_expect_float_eq(now.rotation.z, turned.rotation.z, 1e-6f);
    cr_expect_eq(before.position.x, 1.0f);
}

Test(bodies_api, bad_arguments_are_refused_with_a_message)
{
    uint32_t id = 7;
    expect_refused(skim_world_add_body(NULL, door, at(0, 0, 0), &id), "NULL world");
    cr_expect_eq(id, SKIM_STATIC, "out_id is SKIM_STATIC on failure");
    expect_refused(skim_world_add_body(level, NULL, at(0, 0, 0), &id), "NULL shape");
    expect_refused(skim_world_add_body(level, door, at(0, 0, 0), NULL), "NULL out_id");
    expect_refused(skim_world_add_body(level, level, at(0, 0, 0), &id), "the world itself");
    const float bad[] = { NAN, INFINITY, -INFINITY, 1e30f };
    for (int i = 0; i < 4; ++i) {
        expect_refused(skim_world_add_body(level, door, at(bad[i], 0, 0), &id), "position");
        expect_refused(skim_world_add_body(level, door,
                                           (skim_transform){ { 0, 0, 0 }, { bad[i], 0, 0, 1 } }, &id),
                       "rotation");
    }
    expect_refused(skim_world_add_body(level, door, (skim_transform){ { 0, 0, 0 }, { 0, 0, 0, 0 } }, &id),
                   "zero quaternion");
    expect_refused(skim_world_add_body(level, door, (skim_transform){ { 0, 0, 0 }, { 0, 0, 0, 1.01f } }, &id),
                   "quaternion off unit length");
    expect_refused(skim_world_add_body(level, door, at(0, 0, 1e18f), &id), "reaches beyond the range");
    cr_expect_eq(skim_world_add_body(level, door, at(0, 0, 0), &id), SKIM_OK, "%s", skim_last_error_message());
    expect_refused(skim_world_set_body_transform(NULL, id, at(0, 0, 0)), "set: NULL world");
    expect_refused(skim_world_set_body_transform(level, id, at(NAN, 0, 0)), "set: NaN position");
    expect_refused(skim_world_remove_body(NULL, id), "remove: NULL world");
    expect_refused(skim_world_get_body_transform(NULL, id, NULL, NULL), "get: NULL world");
    skim_transform now;
    cr_assert_eq(skim_world_get_body_transform(level, id, &now, NULL), SKIM_OK);
    cr_expect_eq(now.position.x, 0.0f, "a refused set leaves the transform");
}

Test(bodies_api, bodies_do_not_nest)
{
    uint32_t id;
    skim_world *other = world_of(&door_mesh);
    cr_assert_eq(skim_world_add_body(level, door, at(0, 0, 0), &id), SKIM_OK);
    expect_refused(skim_world_add_body(other, level, at(0, 0, 0), &id), "a shape with bodies");
    expect_refused(skim_world_add_body(door, other, at(0, 0, 0), &id), "a world that is a shape");
    cr_assert_eq(skim_world_remove_body(level, 0), SKIM_OK);
    cr_expect_eq(skim_world_add_body(door, other, at(0, 0, 0), &id), SKIM_OK,
                 "no longer a shape once its body is removed: %s", skim_last_error_message());
    cr_assert_eq(skim_world_remove_body(door, id), SKIM_OK);
    skim_world_destroy(other);
}

Test(bodies_api, a_hit_names_the_static_world_or_the_body)
{
    uint32_t id;
    cr_assert_eq(skim_world_add_body(level, door, at(0, 100, 0), &id), SKIM_OK);
    const skim_ellipsoid sphere = { { 16, 16, 16 }, identity_rotation };
    skim_hit hit;
    cr_assert_eq(skim_sweep(level, &sphere, (skim_vec3){ 0, 0, 64 }, (skim_vec3){ 0, 0, -100 }, NULL, &hit), SKIM_OK);
    cr_expect(hit.hit);
    cr_expect_eq(hit.body, SKIM_STATIC);
    cr_assert_eq(skim_sweep(level, &sphere, (skim_vec3){ 0, 50, 48 }, (skim_vec3){ 0, 100, 0 }, NULL, &hit), SKIM_OK);
    cr_expect(hit.hit);
    cr_expect_eq(hit.body, id);
    cr_expect_float_eq(hit.t, (100.0f - 4.0f - 16.0f - 50.0f) / 100.0f, 1e-4f);
    cr_expect_lt(hit.triangle, 12u, "the index in the body's own mesh");
    cr_assert_eq(skim_raycast(level, (skim_vec3){ 0, 50, 48 }, (skim_vec3){ 0, 100, 0 }, NULL, &hit), SKIM_OK);
    cr_expect(hit.hit);
    cr_expect_eq(hit.body, id);
    cr_expect_float_eq(hit.t, 0.46f, 1e-5f);
    cr_expect_float_eq(hit.normal.y, -1.0f, 1e-6f);
    /* Moved out of the way: missed. */
    cr_assert_eq(skim_world_set_body_transform(level, id, at(0, 100, 500)), SKIM_OK);
    cr_assert_eq(skim_sweep(level, &sphere, (skim_vec3){ 0, 50, 48 }, (skim_vec3){ 0, 100, 0 }, NULL, &hit), SKIM_OK);
    cr_expect_not(hit.hit);
    cr_expect_eq(hit.body, SKIM_STATIC);
    cr_assert_eq(skim_world_remove_body(level, id), SKIM_OK);
    cr_assert_eq(skim_raycast(level, (skim_vec3){ 0, 0, 600 }, (skim_vec3){ 0, 200, 0 }, NULL, &hit), SKIM_OK);
    cr_expect_not(hit.hit, "a removed body is not met");
}

Test(bodies_api, a_saved_world_keeps_its_own_triangles_without_its_bodies)
{
    uint32_t id;
    cr_assert_eq(skim_world_add_body(level, door, at(0, 100, 0), &id), SKIM_OK);
    char path[] = "/tmp/skim_bodies_saveXXXXXX";
    const int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(skim_world_save(level, path), SKIM_OK, "%s", skim_last_error_message());
    skim_world *loaded = NULL;
    cr_assert_eq(skim_world_load(path, &loaded), SKIM_OK, "%s", skim_last_error_message());
    remove(path);
    skim_hit hit;
    cr_assert_eq(skim_raycast(loaded, (skim_vec3){ 0, 50, 48 }, (skim_vec3){ 0, 100, 0 }, NULL, &hit), SKIM_OK);
    cr_expect_not(hit.hit, "bodies are not saved");
    cr_assert_eq(skim_raycast(loaded, (skim_vec3){ 0, 0, 48 }, (skim_vec3){ 0, 0, -100 }, NULL, &hit), SKIM_OK);
    cr_expect(hit.hit && hit.body == SKIM_STATIC);
    cr_expect_eq(skim_world_add_body(loaded, door, at(0, 100, 0), &id), SKIM_OK,
                 "a loaded world takes bodies: %s", skim_last_error_message());
    cr_assert_eq(skim_raycast(loaded, (skim_vec3){ 0, 50, 48 }, (skim_vec3){ 0, 100, 0 }, NULL, &hit), SKIM_OK);
    cr_expect(hit.hit && hit.body == id);
    skim_world_destroy(loaded);
}
