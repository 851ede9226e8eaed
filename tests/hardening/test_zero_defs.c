/* Zero-initialised defs (`skim_world_def def = {0}` and the like) are
   refused with a message that names the function giving the defaults,
   never taken for a valid request: a zero query would collide with
   nothing, a zero move def has no up. A NULL def still means the defaults. */
#include "hardening.h"

#include <string.h>

static void expect_refused_naming(skim_status status, const char *defaults_function)
{
    cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), defaults_function) != NULL,
              "message does not name %s: %s", defaults_function, skim_last_error_message());
}

static skim_world *floor_world(void)
{
    static const float positions[] = { -10, -10, 0, 10, -10, 0, 0, 10, 0 };
    static const uint32_t indices[] = { 0, 1, 2 };
    const skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
    return world;
}

static const skim_ellipsoid unit_sphere = { { 1, 1, 1 }, { 0, 0, 0, 1 } };

Test(zero_defs, zero_world_def_is_refused)
{
    static const float positions[] = { -10, -10, 0, 10, -10, 0, 0, 10, 0 };
    static const uint32_t indices[] = { 0, 1, 2 };
    const skim_mesh mesh = { positions, 3, indices, 1, NULL };
    const skim_world_def def = { 0 };
    skim_world *world = NULL;
    expect_refused_naming(skim_world_create(&mesh, &def, &world), "skim_world_def_default()");
    cr_expect_null(world);
}

Test(zero_defs, zero_query_is_refused_and_null_query_is_the_default)
{
    skim_world *world = floor_world();
    const skim_query query = { 0 };
    skim_hit hit;
    expect_refused_naming(skim_sweep(world, &unit_sphere, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 },
                                     &query, &hit),
                          "skim_query_default()");
    cr_expect_eq(skim_sweep(world, &unit_sphere, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, NULL, &hit),
                 SKIM_OK);
    cr_expect(hit.hit);
    skim_world_destroy(world);
}

/* Every query that takes a skim_query refuses a zeroed one alike, and
   takes a mask of 0 from the defaults as "nothing of materials 0..63". */
Test(zero_defs, every_query_refuses_a_zero_query_and_keeps_a_zero_mask_from_the_defaults)
{
    skim_world *world = floor_world();
    const skim_query zeroed = { 0 };
    skim_query none = skim_query_default();
    none.material_mask = 0;
    const skim_vec3 from = { 0, 0, 5 }, down = { 0, 0, -10 };
    skim_hit hit;
    expect_refused_naming(skim_raycast(world, from, down, &zeroed, &hit), "skim_query_default()");
    expect_refused_naming(skim_raycast_batch(world, 1, &from, &down, &zeroed, &hit), "skim_query_default()");
    skim_triangle_ref refs[4];
    uint32_t count = 0;
    expect_refused_naming(skim_overlap(world, &unit_sphere, (skim_vec3){ 0, 0, 0.5f }, &zeroed, refs, 4, &count),
                          "skim_query_default()");
    skim_closest closest;
    expect_refused_naming(skim_closest_point(world, from, 100, &zeroed, &closest), "skim_query_default()");
    cr_expect_eq(skim_raycast(world, from, down, &none, &hit), SKIM_OK);
    cr_expect_not(hit.hit);
    cr_expect_eq(skim_sweep(world, &unit_sphere, from, down, &none, &hit), SKIM_OK);
    cr_expect_not(hit.hit);
    cr_expect_eq(skim_overlap(world, &unit_sphere, (skim_vec3){ 0, 0, 0.5f }, &none, refs, 4, &count), SKIM_OK);
    cr_expect_eq(count, 0u);
    cr_expect_eq(skim_closest_point(world, from, 100, &none, &closest), SKIM_OK);
    cr_expect_not(closest.found);
    skim_world_destroy(world);
}

Test(zero_defs, zero_move_def_is_refused_by_move_and_batch)
{
    skim_world *world = floor_world();
    const skim_move_def def = { 0 };
    skim_move_result result;
    const skim_vec3 position = { 0, 0, 5 }, displacement = { 1, 0, 0 };
    expect_refused_naming(skim_move(world, &unit_sphere, position, displacement, &def, &result),
                          "skim_move_def_default()");
    expect_refused_naming(skim_move_batch(world, 1, &unit_sphere, &position, &displacement, &def, &result),
                          "skim_move_def_default()");
    skim_world_destroy(world);
}

Test(zero_defs, move_def_with_a_zero_query_is_refused)
{
    skim_world *world = floor_world();
    skim_move_def def = skim_move_def_default();
    def.query = (skim_query){ 0 };
    skim_move_result result;
    expect_refused_naming(skim_move(world, &unit_sphere, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 1, 0, 0 }, &def,
                                    &result),
                          "skim_query_default()");
    skim_world_destroy(world);
}

Test(zero_defs, zero_crowd_def_is_refused)
{
    const skim_crowd_def def = { 0 };
    skim_crowd *crowd = NULL;
    expect_refused_naming(skim_crowd_create(&def, &crowd), "skim_crowd_def_default()");
    cr_expect_null(crowd);
}

Test(zero_defs, zero_agent_def_is_refused)
{
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(NULL, &crowd), SKIM_OK);
    const skim_agent_def agent = { 0 };
    uint32_t id = 7;
    expect_refused_naming(skim_crowd_add(crowd, &agent, &id), "skim_agent_def_default()");
    cr_expect_eq(skim_crowd_count(crowd), 0u);
    skim_crowd_destroy(crowd);
}
