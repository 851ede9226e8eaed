/* Agent against agent, in empty space (world NULL, gravity 0), so only the
   crowd's own broadphase, solver and check are under test: agents pushed
   into each other end separated, none passes through another at any speed,
   no two overlap after any step, and spread-out crowds (the broadphase's
   hashed layout) do the same for any thread count. */
#include "crowd_check.h"

#include <criterion/criterion.h>
#include <omp.h>
#include <stdio.h>

static skim_crowd *make_crowd_avoiding(uint32_t capacity, bool avoidance)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = capacity;
    def.avoidance = avoidance;
    def.gravity = 0.0f;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    return crowd;
}

static skim_crowd *make_crowd(uint32_t capacity)
{
    return make_crowd_avoiding(capacity, true);
}

static uint32_t add_at(skim_crowd *crowd, float x, float y, float z, float radius)
{
    skim_agent_def a = skim_agent_def_default();
    a.shape.radii = (skim_vec3){ radius, radius, radius };
    a.position = (skim_vec3){ x, y, z };
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    return id;
}

static void step_and_check(skim_crowd *crowd, float dt, int frame)
{
    cr_assert_eq(skim_crowd_step(NULL, crowd, dt), SKIM_OK, "%s", skim_last_error_message());
    uint32_t a = 0, b = 0;
    double depth = deepest_overlap(crowd, &a, &b);
    cr_assert_leq(depth, OVERLAP_TOLERANCE, "frame %d: agents %u and %u overlap by %.4f of their touching distance",
                  frame, a, b, depth);
}

Test(crowd_agents, a_cylinder_holds_its_shape)
{
    skim_crowd *crowd = make_crowd(4);
    skim_agent_def a = skim_agent_def_default();
    a.shape.radii = (skim_vec3){ 15, 15, 28 };
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK);
    skim_agent_info info;
    skim_crowd_get_agent(crowd, id, &info);
    cr_assert_float_eq(info.radius, 15.0f, 1e-3f);
    cr_assert_float_eq(info.half_height, 28.0f, 1e-3f);
    /* Turned 90 degrees about x: the long axis lies across up. */
    a.shape.rotation = (skim_quat){ sinf(0.785398163f), 0, 0, cosf(0.785398163f) };
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK);
    skim_crowd_get_agent(crowd, id, &info);
    cr_assert_float_eq(info.radius, 28.0f, 1e-3f);
    cr_assert_float_eq(info.half_height, 15.0f, 1e-3f);
    skim_crowd_destroy(crowd);
}

Test(crowd_agents, agents_placed_on_top_of_each_other_end_separated)
{
    /* 40 agents within 4 units of one spot: the solver pushes them apart
       over a few steps, and no pair ever gets deeper than it started. */
    skim_crowd *crowd = make_crowd(41);
    rng r = { 42 };
    for (int i = 0; i < 40; ++i)
        add_at(crowd, (float)rng_uniform(&r, -2, 2), (float)rng_uniform(&r, -2, 2), 0, 16);
    add_at(crowd, 0, 0, 0, 16); /* and one exactly on another's spot */
    double before = deepest_overlap(crowd, NULL, NULL);
    cr_assert_gt(before, 0.8);
    int frame = 0;
    for (; frame < 300 && deepest_overlap(crowd, NULL, NULL) > OVERLAP_TOLERANCE; ++frame)
        cr_assert_eq(skim_crowd_step(NULL, crowd, 1.0f / 60.0f), SKIM_OK);
    cr_assert_lt(frame, 300, "still overlapping after 300 frames: %.3f",
                 deepest_overlap(crowd, NULL, NULL));
    printf("41 agents on one spot separated after %d frames\n", frame);
    for (int more = 0; more < 60; ++more)
        step_and_check(crowd, 1.0f / 60.0f, frame + more);
    skim_crowd_destroy(crowd);
}

Test(crowd_agents, agents_driven_into_each_other_stay_separated)
{
    /* Two lines of 10 walk into each other head-on, then keep pushing;
       without avoidance, so they do meet and the solver must part them. */
    skim_crowd *crowd = make_crowd_avoiding(20, false);
    for (int i = 0; i < 10; ++i) {
        uint32_t a = add_at(crowd, -100, (float)(i * 40), 0, 16);
        uint32_t b = add_at(crowd, 100, (float)(i * 40 + 8), 0, 16);
        skim_crowd_set_velocity(crowd, a, (skim_vec3){ 320, 0, 0 });
        skim_crowd_set_velocity(crowd, b, (skim_vec3){ -320, 0, 0 });
    }
    uint32_t contacts = 0;
    for (int frame = 0; frame < 240; ++frame) {
        step_and_check(crowd, 1.0f / 60.0f, frame);
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        contacts += stats.contacts;
    }
    cr_assert_gt(contacts, 100, "they hardly met: %u contacts", contacts);
    skim_crowd_destroy(crowd);
}

Test(crowd_agents, head_on_at_any_speed_nobody_passes_through)
{
    /* Speeds from a hundredth of a radius to 1000 radii per step: the
       agents must never swap sides. */
    const float speeds[] = { 0.16f, 1.6f, 16, 32, 100, 1000, 16000 };
    for (size_t s = 0; s < sizeof speeds / sizeof speeds[0]; ++s) {
        skim_crowd *crowd = make_crowd(2);
        uint32_t a = add_at(crowd, -200, 0, 0, 16);
        uint32_t b = add_at(crowd, 200, 3, 0, 16);
        skim_crowd_set_velocity(crowd, a, (skim_vec3){ speeds[s] * 60, 0, 0 });
        skim_crowd_set_velocity(crowd, b, (skim_vec3){ -speeds[s] * 60, 0, 0 });
        for (int frame = 0; frame < 100; ++frame) {
            step_and_check(crowd, 1.0f / 60.0f, frame);
            const skim_vec3 *p = skim_crowd_positions(crowd);
            if (fabsf(p[a].y - p[b].y) < 32.0f)
                cr_assert_lt(p[a].x, p[b].x, "speed %g: agent a passed through b at frame %d", speeds[s], frame);
        }
        skim_crowd_destroy(crowd);
    }
}

Test(crowd_agents, a_bullet_cannot_cross_a_wall_of_agents)
{
    /* A line of immovable agents 0.01 apart, and a fast agent fired at it:
       it stops in front, at every speed. The deepest it can get is into the
       notch between two wall agents: x = -sqrt(32^2 - 16^2) = -27.7. */
    const float speeds[] = { 10, 100, 1000, 100000 };
    for (size_t s = 0; s < sizeof speeds / sizeof speeds[0]; ++s) {
        skim_crowd *crowd = make_crowd(32);
        for (int i = 0; i < 31; ++i) {
            skim_agent_def a = skim_agent_def_default();
            a.position = (skim_vec3){ 0, (float)(i - 15) * 32.01f, 0 };
            a.inverse_mass = 0.0f;
            uint32_t id;
            cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK);
        }
        uint32_t bullet = add_at(crowd, -300, 7, 0, 16);
        skim_crowd_set_velocity(crowd, bullet, (skim_vec3){ speeds[s] * 60, 0, 0 });
        for (int frame = 0; frame < 60; ++frame) {
            step_and_check(crowd, 1.0f / 60.0f, frame);
            float x = skim_crowd_positions(crowd)[bullet].x;
            cr_assert_leq(x, -27.7f, "speed %g per step: the bullet is at x = %g, beyond the wall",
                          speeds[s], x);
        }
        skim_crowd_destroy(crowd);
    }
}

Test(crowd_agents, random_crowd_at_random_speeds_never_overlaps)
{
    /* 300 agents of mixed sizes in a square, random directions and speeds
       from 0.01 to 100 radii per step, changed every 20 steps. */
    const int count = 300;
    skim_crowd *crowd = make_crowd(count);
    rng r = { 7 };
    float radius[300];
    int placed = 0;
    while (placed < count) {
        float x = (float)rng_uniform(&r, -1000, 1000), y = (float)rng_uniform(&r, -1000, 1000);
        float rad = (float)rng_uniform(&r, 8, 24);
        bool free_spot = true;
        const skim_vec3 *p = skim_crowd_positions(crowd);
        for (int j = 0; j < placed && free_spot; ++j)
            free_spot = hypotf(p[j].x - x, p[j].y - y) > rad + radius[j] + 1.0f;
        if (!free_spot)
            continue;
        radius[placed++] = rad;
        add_at(crowd, x, y, 0, rad);
    }
    for (int frame = 0; frame < 200; ++frame) {
        if (frame % 20 == 0)
            for (int i = 0; i < count; ++i) {
                double speed = radius[i] * exp(rng_uniform(&r, log(0.01), log(100.0))) * 60.0;
                double angle = rng_uniform(&r, 0, 6.283185307);
                skim_crowd_set_velocity(crowd, (uint32_t)i,
                                        (skim_vec3){ (float)(speed * cos(angle)), (float)(speed * sin(angle)), 0 });
            }
        step_and_check(crowd, 1.0f / 60.0f, frame);
    }
    skim_crowd_destroy(crowd);
}

Test(crowd_agents, sliding_around_an_agent_instead_of_sticking)
{
    /* An agent walks at a standing one slightly off-center: it slides past
       (gets beyond it) rather than stopping in front. */
    skim_crowd *crowd = make_crowd(2);
    skim_agent_def still = skim_agent_def_default();
    still.inverse_mass = 0.0f;
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &still, &id), SKIM_OK);
    uint32_t walker = add_at(crowd, -100, 4, 0, 16);
    skim_crowd_set_velocity(crowd, walker, (skim_vec3){ 320, 0, 0 });
    for (int frame = 0; frame < 120; ++frame)
        step_and_check(crowd, 1.0f / 60.0f, frame);
    const skim_vec3 *p = skim_crowd_positions(crowd);
    cr_assert_gt(p[walker].x, 100.0f, "the walker stuck at x = %g", p[walker].x);
    cr_assert_float_eq(p[id].x, 0.0f, 0.0f, "the immovable agent moved");
    skim_crowd_destroy(crowd);
}

Test(crowd_agents, ghosts_and_removed_agents_do_not_collide)
{
    skim_crowd *crowd = make_crowd(3);
    skim_agent_def ghost = skim_agent_def_default();
    ghost.flags = SKIM_AGENT_GHOST;
    ghost.position = (skim_vec3){ -100, 0, 0 };
    uint32_t g;
    cr_assert_eq(skim_crowd_add(crowd, &ghost, &g), SKIM_OK);
    uint32_t a = add_at(crowd, 0, 0, 0, 16);
    uint32_t b = add_at(crowd, 100, 0, 0, 16);
    skim_crowd_set_velocity(crowd, g, (skim_vec3){ 600, 0, 0 });
    for (int frame = 0; frame < 60; ++frame)
        cr_assert_eq(skim_crowd_step(NULL, crowd, 1.0f / 60.0f), SKIM_OK);
    cr_assert_float_eq(skim_crowd_positions(crowd)[g].x, 500.0f, 0.01f, "the ghost was stopped");
    cr_assert_eq(skim_crowd_remove(crowd, b), SKIM_OK);
    cr_assert_eq(skim_crowd_teleport(crowd, a, (skim_vec3){ 100, 0, 0 }), SKIM_OK);
    uint32_t again = add_at(crowd, 300, 0, 0, 16);
    cr_assert_eq(again, b, "the lowest free id is given out again");
    cr_assert_eq(skim_crowd_count(crowd), 3);
    skim_crowd_destroy(crowd);
}

/* Four clusters of 50 agents 120,000 units apart: the agents' box is far
   too large for a row-major grid, so the broadphase hashes its cells (a
   layout the other suites never reach). Returns the state hash after the
   run; every step is checked for overlap. */
static uint64_t clusters_far_apart(int threads)
{
    omp_set_num_threads(threads);
    const int count = 200;
    skim_crowd *crowd = make_crowd((uint32_t)count);
    rng r = { 2024 };
    for (int i = 0; i < count; ++i) {
        float cx = (i % 4 < 2) ? -60000.0f : 60000.0f, cy = (i % 2) ? -60000.0f : 60000.0f;
        add_at(crowd, cx + 40.0f * (float)((i / 4) % 7), cy + 40.0f * (float)((i / 4) / 7), 0, 16);
    }
    for (int frame = 0; frame < 90; ++frame) {
        if (frame % 15 == 0)
            for (int i = 0; i < count; ++i) {
                double speed = rng_uniform(&r, 100, 900), angle = rng_uniform(&r, 0, 6.283185307);
                set_walk(crowd, (uint32_t)i, speed, angle);
            }
        step_and_check(crowd, 1.0f / 60.0f, frame);
    }
    skim_crowd_stats stats;
    skim_crowd_get_stats(crowd, &stats);
    cr_assert_gt(stats.pairs, 0, "the clusters' agents never came near each other");
    uint64_t hash = skim_crowd_hash(crowd);
    skim_crowd_destroy(crowd);
    return hash;
}

Test(crowd_agents, clusters_far_apart_never_overlap_and_agree_across_threads)
{
    uint64_t one = clusters_far_apart(1), two = clusters_far_apart(2);
    cr_assert_eq(one, two, "1 and 2 threads differ: %016llx %016llx", (unsigned long long)one,
                 (unsigned long long)two);
}
