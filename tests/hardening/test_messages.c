/* Messages that quote a refused value print enough digits to show why it
   was refused: 89.99999 is not "(got 90)" next to "must be in (0, 90)". */
#include "hardening.h"

Test(messages, a_refused_value_is_quoted_with_enough_digits_to_show_why)
{
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_move_def def = skim_move_def_default();
    const skim_ellipsoid shape = { { 1, 1, 1 }, { 0, 0, 0, 1 } };
    skim_move_result out;
    /* Just above a bound: 1e18 is allowed, the next float is not. */
    def.step_height = nextafterf(1e18f, INFINITY);
    def.max_slope_degrees = 45.0f;
    cr_assert_eq(skim_move(world, &shape, (skim_vec3){ 0, 0, 2 }, (skim_vec3){ 1, 0, 0 }, &def, &out),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "(got 1e+18)") == NULL &&
                  strstr(skim_last_error_message(), "1.00000005e+18") != NULL,
              "%s", skim_last_error_message());
    skim_world_destroy(world);
    skim_crowd_def crowd_def = skim_crowd_def_default();
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&crowd_def, &crowd), SKIM_OK);
    skim_world *floor_world = small_world(SKIM_ACCELERATOR_BVH);
    cr_expect_eq(skim_crowd_step(floor_world, crowd, nextafterf(1.0f, 2.0f)), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "(got 1)") == NULL &&
                  strstr(skim_last_error_message(), "1.00000012") != NULL,
              "%s", skim_last_error_message());
    skim_crowd_destroy(crowd);
    skim_world_destroy(floor_world);
}
