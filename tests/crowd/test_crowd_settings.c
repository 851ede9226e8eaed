/* Per-agent settings: bad ones are refused with a message; a zeroed
   definition gets the crowd's settings; agents whose layers do not meet
   pass through each other while others collide; an agent's own step
   height and material mask replace the crowd's. */
#include "crowd_scenarios.h"

#include <string.h>

static skim_agent_def agent_at(float x, float y, float z)
{
    skim_agent_def a = skim_agent_def_default();
    a.position = (skim_vec3){ x, y, z };
    return a;
}

Test(crowd_settings, bad_settings_are_refused)
{
    skim_crowd *crowd = goal_crowd(4);
    uint32_t id;
    skim_agent_def a = agent_at(0, 0, 0);
    a.overrides = 0x100;
    cr_expect_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "overrides"));
    a = agent_at(0, 0, 0);
    a.overrides = SKIM_AGENT_SET_STEP_HEIGHT;
    a.step_height = -1;
    cr_expect_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "step_height"));
    a.step_height = NAN;
    cr_expect_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    a = agent_at(0, 0, 0);
    a.overrides = SKIM_AGENT_SET_SLOPE; /* max_slope_degrees left 0 */
    a.max_slope_degrees = 0;
    cr_expect_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "max_slope_degrees"));
    a.max_slope_degrees = 90;
    cr_expect_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    a = agent_at(0, 0, 0);
    a.overrides = SKIM_AGENT_SET_SNAP;
    a.snap_distance = INFINITY;
    cr_expect_eq(skim_crowd_add(crowd, &a, &id), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "snap_distance"));
    cr_expect_eq(skim_crowd_count(crowd), 0);
    /* Zeroed: the crowd's settings, layer 0, colliding with all. */
    skim_agent_def zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    zeroed.shape = skim_agent_def_default().shape;
    cr_expect_eq(skim_crowd_add(crowd, &zeroed, &id), SKIM_OK, "%s", skim_last_error_message());
    skim_crowd_destroy(crowd);
}

/* Two agents walking head-on along y = 0 (a hair apart), in the layers
   given; returns whether they ever touched. */
static bool head_on_meet(uint32_t layers_a, uint32_t with_a, uint32_t layers_b, uint32_t with_b)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = 2;
    def.gravity = 0;
    def.avoidance = false; /* so that those who meet do touch */
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK);
    skim_agent_def a = agent_at(-100, 0, 0), b = agent_at(100, 0.5f, 0);
    a.layers = layers_a;
    a.collides_with = with_a;
    b.layers = layers_b;
    b.collides_with = with_b;
    uint32_t ia, ib;
    cr_assert_eq(skim_crowd_add(crowd, &a, &ia), SKIM_OK);
    cr_assert_eq(skim_crowd_add(crowd, &b, &ib), SKIM_OK);
    skim_crowd_set_velocity(crowd, ia, (skim_vec3){ 200, 0, 0 });
    skim_crowd_set_velocity(crowd, ib, (skim_vec3){ -200, 0, 0 });
    bool touched = false;
    double closest = INFINITY, deepest = 0.0;
    for (int frame = 0; frame < 90; ++frame) {
        cr_assert_eq(skim_crowd_step(NULL, crowd, 1.0f / 60.0f), SKIM_OK);
        touched |= (skim_crowd_states(crowd)[ia] & SKIM_AGENT_TOUCHED_AGENT) != 0;
        const skim_vec3 *p = skim_crowd_positions(crowd);
        closest = fmin(closest, hypot(p[ia].x - p[ib].x, p[ia].y - p[ib].y));
        deepest = fmax(deepest, deepest_overlap(crowd, NULL, NULL));
    }
    if (touched)
        cr_assert_leq(deepest, OVERLAP_TOLERANCE, "they met, yet overlapped by %g", deepest);
    else
        cr_assert_lt(closest, 2.0, "they did not meet, yet kept %g apart", closest);
    skim_crowd_destroy(crowd);
    return touched;
}

Test(crowd_settings, layers_decide_who_meets_whom)
{
    cr_expect(head_on_meet(0, 0, 0, 0), "zeroed layers: they should collide");
    cr_expect(head_on_meet(1, ~0u, 1, ~0u));
    cr_expect(!head_on_meet(1, 1, 2, 2), "separate layers collided");
    cr_expect(!head_on_meet(1, ~0u, 2, 2), "b does not collide with a's layer, yet they met");
    cr_expect(head_on_meet(1, 2, 2, 1), "each collides with the other's layer");
    cr_expect(head_on_meet(3, 2, 2, 1));
}

Test(crowd_settings, own_step_height_and_material_mask_replace_the_crowds)
{
    /* A floor of material 0 and, on it, a step 12 high of material 1. */
    static const float p[] = { -500, -500, 0, 500, -500, 0, 500, 500, 0, -500, 500, 0,
                               100, -500, 12, 500, -500, 12, 500, 500, 12, 100, 500, 12,
                               100, -500, 0, 100, 500, 0 };
    static const uint32_t t[] = { 0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 8, 4, 7, 8, 7, 9 };
    static const uint16_t m[] = { 0, 0, 1, 1, 1, 1 };
    skim_mesh mesh = { p, 10, t, 6, m };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
    skim_crowd *crowd = goal_crowd(3);
    skim_agent_def climber = agent_at(0, -200, 17), flat = agent_at(0, 0, 17), through = agent_at(0, 200, 17);
    flat.overrides = SKIM_AGENT_SET_STEP_HEIGHT; /* step_height 0: no steps */
    through.overrides = SKIM_AGENT_SET_MATERIALS;
    through.material_mask = 1; /* material 1 does not collide */
    uint32_t ids[3];
    cr_assert_eq(skim_crowd_add(crowd, &climber, &ids[0]), SKIM_OK);
    cr_assert_eq(skim_crowd_add(crowd, &flat, &ids[1]), SKIM_OK);
    cr_assert_eq(skim_crowd_add(crowd, &through, &ids[2]), SKIM_OK);
    for (int k = 0; k < 3; ++k)
        skim_crowd_set_velocity(crowd, ids[k], (skim_vec3){ 160, 0, 0 });
    for (int frame = 0; frame < 120; ++frame)
        cr_assert_eq(skim_crowd_step(world, crowd, 1.0f / 60.0f), SKIM_OK, "%s", skim_last_error_message());
    const skim_vec3 *at = skim_crowd_positions(crowd);
    cr_expect_gt(at[ids[0]].x, 150.0f, "the crowd's step height did not climb: x %g", at[ids[0]].x);
    cr_expect_float_eq(at[ids[0]].z, 28.0f, 1.0f, "z %g", at[ids[0]].z);
    cr_expect_lt(at[ids[1]].x, 100.0f, "no step height, yet it climbed: x %g", at[ids[1]].x);
    cr_expect_gt(at[ids[2]].x, 150.0f, "the step of a material it ignores stopped it: x %g", at[ids[2]].x);
    cr_expect_float_eq(at[ids[2]].z, 16.0f, 1.0f, "z %g", at[ids[2]].z);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}
