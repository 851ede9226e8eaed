/* Agents take turns to plan their avoidance (skim_crowd_def.avoidance_interval):
   between two plans, an agent that is steering round someone keeps the
   velocity it moved at, and any other agent, or one given a new wish,
   walks at its wish at once. Agent id plans in the steps s (counted from
   the crowd's creation) where (id + s) is a multiple of the interval. */
#include "crowd_scenarios.h"

#include <criterion/criterion.h>
#include <math.h>

TestSuite(crowd_avoid_turns, .timeout = 120);

enum { FRAMES = 150 };
static const float WALK = 320.0f, DT = 1.0f / 60.0f;

static skim_world *flat_floor(void)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -2000, -2000, -32, 2000, 2000, 0);
    return soup_world(&soup);
}

/* The velocity across up (z is up) agent id moved at in the last step. */
static void across(const skim_crowd *crowd, uint32_t id, float out[2])
{
    const skim_vec3 v = skim_crowd_velocities(crowd)[id];
    out[0] = v.x;
    out[1] = v.y;
}

static float apart(const float a[2], const float b[2])
{
    return hypotf(a[0] - b[0], a[1] - b[1]);
}

/* Two agents walking head on, A (id 0) along +x and B (id 1) along -x a
   little to the side, planning every `interval` steps. */
static skim_crowd *head_on_pair(uint32_t interval)
{
    skim_crowd *crowd = goal_crowd_planning_every(2, interval);
    uint32_t a = goal_agent(crowd, (skim_vec3){ -300, 0, AGENT_R + 1.0f });
    uint32_t b = goal_agent(crowd, (skim_vec3){ 300, -4, AGENT_R + 1.0f });
    cr_assert_eq(a, 0);
    cr_assert_eq(b, 1);
    cr_assert_eq(skim_crowd_set_velocity(crowd, a, (skim_vec3){ WALK, 0, 0 }), SKIM_OK);
    cr_assert_eq(skim_crowd_set_velocity(crowd, b, (skim_vec3){ -WALK, 0, 0 }), SKIM_OK);
    return crowd;
}

/* The head-on pair planning every `interval` steps. For each odd step
   (not A's turn when the interval is 2) that follows a step where A was
   turned from its wish, and in which nothing pushed A, the change of A's
   velocity over that step: its largest (max_kept_change) and how many
   such steps there were (kept_steps). */
static void head_on(uint32_t interval, float *max_kept_change, int *kept_steps)
{
    skim_world *world = flat_floor();
    skim_crowd *crowd = head_on_pair(interval);
    const uint32_t a = 0;
    const float wish[2] = { WALK, 0 };
    float last[2] = { 0, 0 };
    bool turned = false;
    *max_kept_change = 0.0f;
    *kept_steps = 0;
    for (uint32_t step = 0; step < FRAMES; ++step) {
        cr_assert_eq(skim_crowd_step(world, crowd, DT), SKIM_OK, "%s", skim_last_error_message());
        float now[2];
        across(crowd, a, now);
        const bool pushed = (skim_crowd_states(crowd)[a] & (SKIM_AGENT_TOUCHED_AGENT | SKIM_AGENT_TOUCHED_WALL)) != 0;
        if ((a + step) % 2 != 0 && turned && !pushed) {
            const float change = apart(now, last);
            *max_kept_change = change > *max_kept_change ? change : *max_kept_change;
            ++*kept_steps;
        }
        turned = apart(now, wish) > 1.0f;
        last[0] = now[0];
        last[1] = now[1];
    }
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
}

Test(crowd_avoid_turns, an_agent_steering_round_another_keeps_its_velocity_until_its_next_plan)
{
    float change;
    int steps;
    head_on(2, &change, &steps);
    cr_assert_gt(steps, 5, "A was turned from its wish before only %d of its off steps", steps);
    /* Its plan is the velocity it moved at; what it moves at again differs
       only by the rounding of a position difference over dt. */
    cr_expect_lt(change, 0.05f, "A's velocity changed by %g units/s in a step that was not its turn", change);
}

Test(crowd_avoid_turns, planning_every_step_turns_in_every_step)
{
    /* The same encounter with a plan every step: A's velocity does change
       in the odd steps too, so the test above tells the two apart. */
    float change;
    int steps;
    head_on(1, &change, &steps);
    cr_assert_gt(steps, 5);
    cr_expect_gt(change, 1.0f, "A's velocity changed by at most %g units/s while it steered", change);
}

Test(crowd_avoid_turns, a_new_wish_is_taken_at_once_between_plans)
{
    /* A lone agent planning every fourth step, whose wish turns every
       step, and A of the head-on pair given a new wish in a step that is
       not its turn while it steers round B: both walk at the new wish in
       that step. */
    skim_world *world = flat_floor();
    skim_crowd *lone = goal_crowd_planning_every(1, 4);
    uint32_t id = goal_agent(lone, (skim_vec3){ 0, 0, AGENT_R + 1.0f });
    for (uint32_t step = 0; step < 24; ++step) {
        const float angle = 0.3f * (float)step;
        const float wish[2] = { 200.0f * cosf(angle), 200.0f * sinf(angle) };
        cr_assert_eq(skim_crowd_set_velocity(lone, id, (skim_vec3){ wish[0], wish[1], 0 }), SKIM_OK);
        cr_assert_eq(skim_crowd_step(world, lone, DT), SKIM_OK, "%s", skim_last_error_message());
        float now[2];
        across(lone, id, now);
        cr_expect_lt(apart(now, wish), 0.05f, "step %u: the lone agent walked %g units/s off its wish", step,
                     apart(now, wish));
    }
    skim_crowd_destroy(lone);

    skim_crowd *pair = head_on_pair(2);
    const uint32_t a = 0;
    bool tried = false;
    for (uint32_t step = 0; step < FRAMES && !tried; ++step) {
        float before[2];
        across(pair, a, before);
        const bool turned = hypotf(before[0] - WALK, before[1]) > 1.0f;
        if (turned && (a + step) % 2 != 0) {
            /* Away from B, which is on A's right (-y) by now or ahead. */
            const float wish[2] = { 0, WALK };
            cr_assert_eq(skim_crowd_set_velocity(pair, a, (skim_vec3){ wish[0], wish[1], 0 }), SKIM_OK);
            cr_assert_eq(skim_crowd_step(world, pair, DT), SKIM_OK, "%s", skim_last_error_message());
            float now[2];
            across(pair, a, now);
            cr_expect_lt(apart(now, wish), 0.05f, "A walked at (%g, %g) against its new wish (%g, %g)",
                         now[0], now[1], wish[0], wish[1]);
            tried = true;
            break;
        }
        cr_assert_eq(skim_crowd_step(world, pair, DT), SKIM_OK, "%s", skim_last_error_message());
    }
    cr_assert(tried, "A never steered round B");
    skim_crowd_destroy(pair);
    skim_world_destroy(world);
}
