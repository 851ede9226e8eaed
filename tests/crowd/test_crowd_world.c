/* Crowds in the default scene: gravity and landing, jumping to a height,
   standing on another agent, a dense crowd sealed in the closed room stays
   inside and never overlaps, and the same run gives the same state hash for
   1, 2 and 3 threads. */
#include "crowd_check.h"

/* Sanitizer builds run the room for a quarter of the frames and the thread
   comparison on a quarter of the agents: memory and undefined-behaviour
   errors show at any size, and the full sizes are the plain build's. */
#ifndef SKIM_CROWD_TEST_SCALE
#define SKIM_CROWD_TEST_SCALE 1
#endif
enum { ROOM_FRAMES = 600 / SKIM_CROWD_TEST_SCALE, WANDER_AGENTS = 1500 / SKIM_CROWD_TEST_SCALE };

#include <criterion/criterion.h>
#include <omp.h>
#include <stdio.h>

static skim_world *world;
static skim_mesh_data scene;

static void build_world(void)
{
    cr_assert_eq(skim_scene_default(&scene), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&scene);
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
}

static void destroy_world(void)
{
    skim_world_destroy(world);
    skim_mesh_data_free(&scene);
}

TestSuite(crowd_world, .init = build_world, .fini = destroy_world);

static skim_crowd *make_crowd(uint32_t capacity)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = capacity;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    return crowd;
}

static uint32_t add_at(skim_crowd *crowd, float x, float y, float z)
{
    skim_agent_def a = skim_agent_def_default();
    a.position = (skim_vec3){ x, y, z };
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    return id;
}

static void step(skim_crowd *crowd)
{
    cr_assert_eq(skim_crowd_step(world, crowd, 1.0f / 60.0f), SKIM_OK, "%s", skim_last_error_message());
}

Test(crowd_world, falls_lands_and_stays_on_the_floor)
{
    skim_crowd *crowd = make_crowd(1);
    uint32_t id = add_at(crowd, -1000, -500, 200);
    int landed = -1;
    for (int frame = 0; frame < 120; ++frame) {
        step(crowd);
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        if (landed < 0 && (info.state & SKIM_AGENT_ON_FLOOR))
            landed = frame;
        if (landed >= 0) {
            cr_assert(info.state & SKIM_AGENT_ON_FLOOR, "frame %d: lost the floor after landing", frame);
            cr_assert_float_eq(info.position.z, 16.0f, 0.5f, "frame %d: z = %g", frame, info.position.z);
        }
    }
    /* 184 units at 800/s^2 take sqrt(2 * 184 / 800) = 0.68 s = 41 frames. */
    cr_assert(landed >= 38 && landed <= 44, "landed at frame %d", landed);
    skim_crowd_destroy(crowd);
}

Test(crowd_world, jumps_to_the_height_asked)
{
    skim_crowd *crowd = make_crowd(1);
    uint32_t id = add_at(crowd, -1000, -500, 17);
    for (int frame = 0; frame < 10; ++frame)
        step(crowd);
    float ground = skim_crowd_positions(crowd)[id].z;
    bool jumped = false;
    cr_assert_eq(skim_crowd_jump(crowd, id, 64.0f, &jumped), SKIM_OK);
    cr_assert(jumped);
    cr_assert_eq(skim_crowd_jump(crowd, id, 64.0f, &jumped), SKIM_OK);
    cr_assert(!jumped, "jumped again in the air");
    float top = ground;
    bool back = false;
    for (int frame = 0; frame < 60; ++frame) {
        step(crowd);
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        top = fmaxf(top, info.position.z);
        if (frame > 5 && (info.state & SKIM_AGENT_ON_FLOOR))
            back = true;
    }
    /* The discrete peak lies within half a step's fall of the true one. */
    cr_assert_float_eq(top - ground, 64.0f, 0.6f, "rose %g", top - ground);
    cr_assert(back, "never landed again");
    skim_crowd_destroy(crowd);
}

Test(crowd_world, lands_on_another_agent_rides_along_and_falls_when_it_goes)
{
    skim_crowd *crowd = make_crowd(2);
    uint32_t below = add_at(crowd, -1000, -500, 17);
    uint32_t above = add_at(crowd, -1000, -498, 120);
    for (int frame = 0; frame < 90; ++frame)
        step(crowd);
    skim_agent_info info;
    skim_crowd_get_agent(crowd, above, &info);
    cr_assert(info.state & SKIM_AGENT_ON_AGENT, "state 0x%x", info.state);
    cr_assert_float_eq(info.position.z, 16.0f + 32.0f, 2.0f, "z = %g", info.position.z);
    skim_crowd_get_agent(crowd, below, &info);
    cr_assert(info.state & SKIM_AGENT_ON_FLOOR);
    cr_assert_float_eq(info.position.z, 16.0f, 0.5f);
    /* The one below walks 160 units; the one on its head goes with it. */
    skim_crowd_set_velocity(crowd, below, (skim_vec3){ 160, 0, 0 });
    for (int frame = 0; frame < 60; ++frame)
        step(crowd);
    skim_agent_info under;
    skim_crowd_get_agent(crowd, below, &under);
    skim_crowd_get_agent(crowd, above, &info);
    cr_assert(info.state & SKIM_AGENT_ON_AGENT, "fell off: state 0x%x z %g", info.state, info.position.z);
    cr_assert_float_eq(info.position.x, under.position.x, 8.0f, "left behind: x %g, the one below at %g",
                       info.position.x, under.position.x);
    cr_assert_gt(info.position.x, -1000.0f + 100.0f);
    /* The one below goes away: it falls to the floor. */
    cr_assert_eq(skim_crowd_remove(crowd, below), SKIM_OK);
    for (int frame = 0; frame < 60; ++frame)
        step(crowd);
    skim_crowd_get_agent(crowd, above, &info);
    cr_assert(info.state & SKIM_AGENT_ON_FLOOR, "state 0x%x z %g", info.state, info.position.z);
    skim_crowd_destroy(crowd);
}

/* The closed room's inside: x [1508, 1892], y [208, 592], z [0, 200]. */
Test(crowd_world, dense_crowd_stays_in_the_closed_room)
{
    const int count = 100;
    skim_crowd *crowd = make_crowd((uint32_t)count);
    for (int i = 0; i < count; ++i)
        add_at(crowd, 1530.0f + 34.0f * (float)(i % 10), 230.0f + 34.0f * (float)(i / 10), 17);
    rng r = { 99 };
    uint32_t blocked = 0;
    for (int frame = 0; frame < ROOM_FRAMES; ++frame) {
        if (frame % 30 == 0)
            for (int i = 0; i < count; ++i) {
                double angle = rng_uniform(&r, 0, 6.283185307), speed = rng_uniform(&r, 100, 900);
                set_walk(crowd, (uint32_t)i, speed, angle);
                if (rng_uniform(&r, 0, 1) < 0.1)
                    skim_crowd_jump(crowd, (uint32_t)i, 80.0f, NULL);
            }
        step(crowd);
        const skim_vec3 *p = skim_crowd_positions(crowd);
        for (int i = 0; i < count; ++i) {
            cr_assert(p[i].x > 1508.0f + 15.0f && p[i].x < 1892.0f - 15.0f && p[i].y > 208.0f + 15.0f &&
                          p[i].y < 592.0f - 15.0f && p[i].z > 15.0f && p[i].z < 200.0f - 15.0f,
                      "frame %d: agent %d left the room: (%g, %g, %g)", frame, i, p[i].x, p[i].y, p[i].z);
        }
        uint32_t a = 0, b = 0;
        double depth = deepest_overlap(crowd, &a, &b);
        cr_assert_leq(depth, OVERLAP_TOLERANCE, "frame %d: %u and %u overlap by %.4f", frame, a, b, depth);
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        blocked += stats.blocked;
    }
    printf("closed room, 100 agents, %d frames: %.2f agents blocked per frame\n", ROOM_FRAMES,
           blocked / (double)ROOM_FRAMES);
    skim_crowd_destroy(crowd);
}

/* A wandering crowd over the open half; returns its state hash. */
static uint64_t wander(int threads, int count, int frames)
{
    omp_set_num_threads(threads);
    skim_crowd *crowd = make_crowd((uint32_t)count);
    int side = (int)ceil(sqrt((double)count));
    for (int i = 0; i < count; ++i)
        add_at(crowd, -1900.0f + 36.0f * (float)(i % side), -1700.0f + 36.0f * (float)(i / side), 17);
    rng r = { 1234 };
    for (int frame = 0; frame < frames; ++frame) {
        if (frame % 60 == 0)
            for (int i = 0; i < count; ++i) {
                double angle = rng_uniform(&r, 0, 6.283185307);
                skim_crowd_set_velocity(crowd, (uint32_t)i,
                                        (skim_vec3){ (float)(320 * cos(angle)), (float)(320 * sin(angle)), 0 });
                if (i % 17 == frame % 17)
                    skim_crowd_jump(crowd, (uint32_t)i, 40.0f, NULL);
            }
        step(crowd);
    }
    uint64_t hash = skim_crowd_hash(crowd);
    skim_crowd_destroy(crowd);
    return hash;
}

Test(crowd_world, same_state_for_1_2_and_3_threads)
{
    uint64_t one = wander(1, WANDER_AGENTS, 120);
    uint64_t two = wander(2, WANDER_AGENTS, 120);
    uint64_t three = wander(3, WANDER_AGENTS, 120);
    printf("state hash after 120 frames of %d agents: %016llx %016llx %016llx\n", WANDER_AGENTS,
           (unsigned long long)one, (unsigned long long)two, (unsigned long long)three);
    cr_assert_eq(one, two, "1 and 2 threads differ");
    cr_assert_eq(one, three, "1 and 3 threads differ");
}
