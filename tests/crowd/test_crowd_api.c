/* The crowd API refuses bad input with INVALID_ARGUMENT and a message,
   and never crashes on it. */
#include <skim/skim.h>

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

Test(crowd_api, bad_definitions)
{
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(NULL, NULL), SKIM_ERROR_INVALID_ARGUMENT);
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = 0;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(skim_last_error_message(), "capacity") != NULL);
    cr_assert_null(crowd);
    def = skim_crowd_def_default();
    def.gravity = NAN;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_ERROR_INVALID_ARGUMENT);
    def = skim_crowd_def_default();
    def.move.up = (skim_vec3){ 0, 0, 2 };
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_ERROR_INVALID_ARGUMENT);
    def = skim_crowd_def_default();
    def.solver_iterations = 0;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_ERROR_INVALID_ARGUMENT);
    const uint32_t intervals[] = { 0, 17, UINT32_MAX };
    for (size_t k = 0; k < sizeof intervals / sizeof intervals[0]; ++k) {
        def = skim_crowd_def_default();
        def.avoidance_interval = intervals[k];
        cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_ERROR_INVALID_ARGUMENT, "interval %u taken", intervals[k]);
        cr_assert(strstr(skim_last_error_message(), "avoidance_interval") != NULL, "%s", skim_last_error_message());
        cr_assert_null(crowd);
    }
    def = skim_crowd_def_default();
    cr_assert_eq(def.avoidance_interval, 2);
    cr_assert(def.resting);
    def.avoidance_interval = 16;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    skim_crowd_destroy(crowd);
    cr_assert_eq(skim_crowd_create(NULL, &crowd), SKIM_OK);
    cr_assert_eq(skim_crowd_capacity(crowd), 1024);
    skim_crowd_destroy(crowd);
    skim_crowd_destroy(NULL);
}

Test(crowd_api, bad_agents_and_ids)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = 2;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK);
    skim_agent_def a = skim_agent_def_default();
    uint32_t id;
    a.shape.radii.x = 0;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    a = skim_agent_def_default();
    a.position.x = INFINITY;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    a = skim_agent_def_default();
    a.inverse_mass = -1;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    a = skim_agent_def_default();
    a.flags = 0x100;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    a = skim_agent_def_default();
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK);
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK);
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT, "a full crowd took more");
    cr_assert(strstr(skim_last_error_message(), "full") != NULL);
    cr_assert_eq(skim_crowd_set_velocity(crowd, 7, (skim_vec3){ 1, 0, 0 }), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_crowd_set_velocity(crowd, 0, (skim_vec3){ NAN, 0, 0 }), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_crowd_jump(crowd, 0, -1, NULL), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_crowd_remove(crowd, 1), SKIM_OK);
    cr_assert_eq(skim_crowd_remove(crowd, 1), SKIM_ERROR_INVALID_ARGUMENT, "removed twice");
    skim_agent_info info;
    cr_assert_eq(skim_crowd_get_agent(crowd, 1, &info), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_crowd_step(NULL, crowd, 0.0f), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_crowd_step(NULL, crowd, NAN), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_crowd_step(NULL, NULL, 0.1f), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_crowd_step(NULL, crowd, 0.1f), SKIM_OK);
    skim_crowd_stats stats;
    cr_assert_eq(skim_crowd_get_stats(crowd, &stats), SKIM_OK);
    cr_assert_eq(stats.agents, 1);
    skim_crowd_destroy(crowd);
}

Test(crowd_api, walkers_ignore_the_vertical_part_of_their_velocity)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = 2;
    def.gravity = 0;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK);
    skim_agent_def a = skim_agent_def_default();
    uint32_t walker, flyer;
    cr_assert_eq(skim_crowd_add(crowd, &a, &walker), SKIM_OK);
    a.flags = SKIM_AGENT_NO_GRAVITY;
    a.position.x = 500;
    cr_assert_eq(skim_crowd_add(crowd, &a, &flyer), SKIM_OK);
    skim_crowd_set_velocity(crowd, walker, (skim_vec3){ 60, 0, 60 });
    skim_crowd_set_velocity(crowd, flyer, (skim_vec3){ 0, 0, 60 });
    cr_assert_eq(skim_crowd_step(NULL, crowd, 0.5f), SKIM_OK);
    const skim_vec3 *p = skim_crowd_positions(crowd);
    cr_assert_float_eq(p[walker].x, 30.0f, 1e-4f);
    cr_assert_float_eq(p[walker].z, 0.0f, 1e-4f);
    cr_assert_float_eq(p[flyer].z, 30.0f, 1e-4f);
    skim_crowd_destroy(crowd);
}
