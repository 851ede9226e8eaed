/* Targets and paths: bad input is refused with a message, an agent walks
   to its target, slows and arrives, a path is followed in order, and
   setting a velocity gives up the target. Empty space, no gravity; but
   one held by a wall a hair outside its arrival distance, on a floor. */
#include "crowd_check.h"

#include <criterion/criterion.h>
#include <string.h>

static skim_crowd *make_crowd(uint32_t capacity)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = capacity;
    def.gravity = 0.0f;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    return crowd;
}

static uint32_t add_at(skim_crowd *crowd, float x, float y)
{
    skim_agent_def a = skim_agent_def_default();
    a.position = (skim_vec3){ x, y, 0 };
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    return id;
}

static void expect_refused(skim_status status, const char *word)
{
    cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), word) != NULL, "message \"%s\" does not name %s",
              skim_last_error_message(), word);
}

Test(crowd_targets, bad_targets_and_paths_are_refused)
{
    skim_crowd *crowd = make_crowd(2);
    uint32_t id = add_at(crowd, 0, 0);
    skim_vec3 to = { 100, 0, 0 };
    uint64_t before = skim_crowd_hash(crowd);
    expect_refused(skim_crowd_set_target(NULL, id, to, 100, 1), "crowd");
    expect_refused(skim_crowd_set_target(crowd, 5, to, 100, 1), "id");
    expect_refused(skim_crowd_set_target(crowd, 1, to, 100, 1), "id");
    expect_refused(skim_crowd_set_target(crowd, id, (skim_vec3){ NAN, 0, 0 }, 100, 1), "target");
    expect_refused(skim_crowd_set_target(crowd, id, (skim_vec3){ 1e30f, 0, 0 }, 100, 1), "target");
    expect_refused(skim_crowd_set_target(crowd, id, to, 0, 1), "speed");
    expect_refused(skim_crowd_set_target(crowd, id, to, -5, 1), "speed");
    expect_refused(skim_crowd_set_target(crowd, id, to, NAN, 1), "speed");
    expect_refused(skim_crowd_set_target(crowd, id, to, INFINITY, 1), "speed");
    expect_refused(skim_crowd_set_target(crowd, id, to, 100, -1), "arrival_distance");
    expect_refused(skim_crowd_set_target(crowd, id, to, 100, NAN), "arrival_distance");
    skim_vec3 path[3] = { { 10, 0, 0 }, { 20, 0, 0 }, { 30, 0, 0 } };
    expect_refused(skim_crowd_set_path(crowd, id, NULL, 3, 100, 1), "waypoints");
    expect_refused(skim_crowd_set_path(crowd, id, path, 0, 100, 1), "waypoint");
    path[1].y = INFINITY;
    expect_refused(skim_crowd_set_path(crowd, id, path, 3, 100, 1), "waypoint 1");
    path[1].y = 0;
    expect_refused(skim_crowd_set_path(crowd, id, path, 3, 0, 1), "speed");
    cr_expect_eq(skim_crowd_hash(crowd), before, "a refused call changed the crowd");
    cr_expect_eq(skim_crowd_set_path(crowd, id, path, 3, 100, 0), SKIM_OK);
    skim_crowd_stats stats;
    cr_assert_eq(skim_crowd_step(NULL, crowd, 0.02f), SKIM_OK);
    cr_assert_eq(skim_crowd_get_stats(crowd, &stats), SKIM_OK);
    cr_expect_eq(stats.arrived, 0);
    skim_crowd_destroy(crowd);
}

Test(crowd_targets, an_agent_walks_to_its_target_slows_and_arrives)
{
    skim_crowd *crowd = make_crowd(2);
    uint32_t id = add_at(crowd, 0, 0);
    cr_assert_eq(skim_crowd_set_target(crowd, id, (skim_vec3){ 300, 400, 0 }, 100, 2), SKIM_OK);
    const float dt = 0.02f;
    float top = 0.0f, last_speed = 0.0f;
    int frame = 0, arrived_at = -1;
    for (; frame < 400 && arrived_at < 0; ++frame) {
        cr_assert_eq(skim_crowd_step(NULL, crowd, dt), SKIM_OK, "%s", skim_last_error_message());
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        float speed = sqrtf(info.velocity.x * info.velocity.x + info.velocity.y * info.velocity.y);
        cr_assert_leq(speed, 100.0f * 1.001f, "frame %d: faster than asked (%g)", frame, speed);
        top = fmaxf(top, speed);
        if (info.state & SKIM_AGENT_ARRIVED)
            arrived_at = frame;
        else
            last_speed = speed;
    }
    /* 500 units at 100/s: 5 s, plus the slowing at the end. */
    cr_assert_geq(arrived_at, 0, "not there after %d frames", frame);
    cr_expect_lt(arrived_at, 300, "arrived late, at frame %d", arrived_at);
    cr_expect_gt(top, 99.0f, "never walked at its speed (%g)", top);
    cr_expect_lt(last_speed, 50.0f, "did not slow down before arriving (%g)", last_speed);
    skim_agent_info info;
    skim_crowd_get_agent(crowd, id, &info);
    float dx = info.position.x - 300, dy = info.position.y - 400;
    cr_expect_leq(sqrtf(dx * dx + dy * dy), 2.0f + 0.02f, "arrived %g from the target", sqrtf(dx * dx + dy * dy));
    skim_crowd_stats stats;
    skim_crowd_get_stats(crowd, &stats);
    cr_expect_eq(stats.arrived, 1);
    /* It stays, and keeps the bit, until told otherwise. */
    for (int more = 0; more < 20; ++more)
        cr_assert_eq(skim_crowd_step(NULL, crowd, dt), SKIM_OK);
    skim_agent_info after;
    skim_crowd_get_agent(crowd, id, &after);
    cr_expect(after.state & SKIM_AGENT_ARRIVED);
    cr_expect_eq(after.position.x, info.position.x);
    cr_expect_eq(after.position.y, info.position.y);
    cr_assert_eq(skim_crowd_set_velocity(crowd, id, (skim_vec3){ 50, 0, 0 }), SKIM_OK);
    cr_expect_eq(skim_crowd_states(crowd)[id] & SKIM_AGENT_ARRIVED, 0, "set_velocity kept the arrival");
    cr_assert_eq(skim_crowd_step(NULL, crowd, dt), SKIM_OK);
    skim_crowd_get_agent(crowd, id, &after);
    cr_expect_float_eq(after.velocity.x, 50.0f, 1e-2f, "the velocity set did not replace the target");
    cr_expect_eq(after.state & SKIM_AGENT_ARRIVED, 0);
    skim_crowd_destroy(crowd);
}

Test(crowd_targets, arrival_distance_zero_still_arrives)
{
    skim_crowd *crowd = make_crowd(1);
    uint32_t id = add_at(crowd, 0.25f, -3.5f);
    cr_assert_eq(skim_crowd_set_target(crowd, id, (skim_vec3){ 1000.125f, 20.5f, 0 }, 160, 0), SKIM_OK);
    int frame = 0;
    for (; frame < 1000 && !(skim_crowd_states(crowd)[id] & SKIM_AGENT_ARRIVED); ++frame)
        cr_assert_eq(skim_crowd_step(NULL, crowd, 1.0f / 60.0f), SKIM_OK);
    cr_expect_lt(frame, 1000, "an arrival distance of 0 never arrives");
    skim_crowd_destroy(crowd);
}

Test(crowd_targets, a_path_is_followed_in_order)
{
    skim_crowd *crowd = make_crowd(1);
    uint32_t id = add_at(crowd, 0, 0);
    /* A square: cutting a corner would miss the waypoint. */
    const skim_vec3 path[4] = { { 200, 0, 0 }, { 200, 200, 0 }, { 0, 200, 0 }, { 0, 400, 0 } };
    cr_assert_eq(skim_crowd_set_path(crowd, id, path, 4, 150, 1), SKIM_OK);
    int next = 0, frame = 0;
    for (; frame < 1000 && !(skim_crowd_states(crowd)[id] & SKIM_AGENT_ARRIVED); ++frame) {
        cr_assert_eq(skim_crowd_step(NULL, crowd, 0.02f), SKIM_OK);
        skim_vec3 p = skim_crowd_positions(crowd)[id];
        for (int k = 0; k < 4; ++k) {
            float dx = p.x - path[k].x, dy = p.y - path[k].y;
            if (sqrtf(dx * dx + dy * dy) <= 16.0f) {
                cr_assert_leq(k, next, "frame %d: near waypoint %d before waypoint %d", frame, k, next);
                if (k == next)
                    next++;
            }
        }
    }
    cr_expect_eq(next, 4, "passed %d of 4 waypoints", next);
    cr_expect(skim_crowd_states(crowd)[id] & SKIM_AGENT_ARRIVED, "not arrived after %d frames", frame);
    skim_vec3 p = skim_crowd_positions(crowd)[id];
    cr_expect_leq(fabsf(p.x) + fabsf(p.y - 400), 2.0f);
    skim_crowd_destroy(crowd);
}

Test(crowd_targets, two_agents_swapping_places_pass_without_touching)
{
    /* Head on, a hair off the line: avoidance steers them around each
       other, so their cylinders never touch (without it, they would meet
       and slide around each other). */
    skim_crowd *crowd = make_crowd(2);
    uint32_t a = add_at(crowd, -200, 0), b = add_at(crowd, 200, 0.5f);
    cr_assert_eq(skim_crowd_set_target(crowd, a, (skim_vec3){ 200, 0, 0 }, 160, 1), SKIM_OK);
    cr_assert_eq(skim_crowd_set_target(crowd, b, (skim_vec3){ -200, 0.5f, 0 }, 160, 1), SKIM_OK);
    uint32_t arrived = 0;
    double closest = INFINITY;
    for (int frame = 0; frame < 300 && arrived < 2; ++frame) {
        cr_assert_eq(skim_crowd_step(NULL, crowd, 1.0f / 60.0f), SKIM_OK);
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        arrived = stats.arrived;
        const skim_vec3 *p = skim_crowd_positions(crowd);
        closest = fmin(closest, hypot(p[a].x - p[b].x, p[a].y - p[b].y));
    }
    cr_expect_eq(arrived, 2, "only %u of 2 arrived", arrived);
    cr_expect_gt(closest, 32.0, "they touched: centres %g apart, touching at 32", closest);
    skim_crowd_destroy(crowd);
}

Test(crowd_targets, an_agent_held_from_its_target_steps_to_its_right)
{
    /* Its target lies inside an agent that cannot be pushed, straight
       ahead (avoidance off, so only the solver holds it): it presses
       head on and gets no nearer; after a second stuck it walks to its
       right (-y, walking toward +x with z up) for a second, sliding along
       the other, then heads for its target again. */
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = 2;
    def.gravity = 0.0f;
    def.avoidance = false;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    uint32_t a = add_at(crowd, 0, 0);
    skim_agent_def wall = skim_agent_def_default();
    wall.position = (skim_vec3){ 100, 0, 0 };
    wall.inverse_mass = 0.0f;
    uint32_t b;
    cr_assert_eq(skim_crowd_add(crowd, &wall, &b), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_eq(skim_crowd_set_target(crowd, a, (skim_vec3){ 100, 0, 0 }, 100, 1), SKIM_OK);
    float y_held = 0.0f, y_least = 0.0f;
    for (int frame = 1; frame <= 180; ++frame) {
        cr_assert_eq(skim_crowd_step(NULL, crowd, 1.0f / 60.0f), SKIM_OK);
        const skim_vec3 *p = skim_crowd_positions(crowd);
        if (frame == 60)
            y_held = p[a].y;
        y_least = fminf(y_least, p[a].y);
    }
    cr_expect_eq(y_held, 0.0f, "it left the line before it was stuck (y %g)", (double)y_held);
    cr_expect_lt(y_least, -16.0f, "it did not step to its right (y %g at the least)", (double)y_least);
    skim_crowd_destroy(crowd);
}

#include "crowd_scenarios.h"

/* Where a wall at x = 100 holds an agent that walks at it from x = 0. */
static float held_by_wall(const skim_world *world, float target_x, float arrival, float *closest)
{
    skim_crowd *crowd = goal_crowd(1);
    uint32_t id = goal_agent(crowd, (skim_vec3){ 0, 0, AGENT_R + 1.0f });
    cr_assert_eq(skim_crowd_set_target(crowd, id, (skim_vec3){ target_x, 0, 0 }, 160.0f, arrival), SKIM_OK);
    *closest = INFINITY;
    for (int frame = 0; frame < 120; ++frame) {
        cr_assert_eq(skim_crowd_step(world, crowd, 1.0f / 60.0f), SKIM_OK);
        const skim_vec3 at = skim_crowd_positions(crowd)[id];
        const float left = hypotf(at.x - target_x, at.y);
        *closest = fminf(*closest, left);
        if (skim_crowd_states(crowd)[id] & SKIM_AGENT_ARRIVED)
            cr_assert_leq(left, arrival, "arrived %g from its target, arrival distance %g", left, arrival);
    }
    const float x = skim_crowd_positions(crowd)[id].x;
    skim_crowd_destroy(crowd);
    return x;
}

/* Its target lies a hair beyond its reach, past a wall: held at the wall
   a hair farther off than its arrival distance, it has not arrived. */
Test(crowd_targets, an_agent_held_just_outside_its_arrival_distance_has_not_arrived)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -2000, -2000, -32, 2000, 2000, 0);
    soup_add_box(&soup, 100, -400, 0, 116, 400, 128);
    skim_world *world = soup_world(&soup);
    const float arrival = 8.0f;
    float closest;
    const float reach = held_by_wall(world, 200.0f, arrival, &closest);
    cr_assert_lt(reach, 100.0f - AGENT_R + 0.5f, "the wall did not hold it (at x = %g)", reach);
    const float target_x = reach + arrival + 0.008f;
    held_by_wall(world, target_x, arrival, &closest);
    cr_expect_lt(closest, arrival + 0.01f, "it was never held a hair outside (closest %g)", closest);
    skim_world_destroy(world);
}
