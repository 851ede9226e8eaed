/* Rows and crowds shoved by moving bodies: a push travels along a row of
   agents standing in the open (a door shoves the whole queue, flagging
   nobody squeezed), a row pressed against a wall is squeezed and never put
   into the wall, and a blade sweeping a standing crowd drives it ahead
   overlapping neither the blade nor each other, with the same bits for any
   thread count. */
#include "crowd_scenarios.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#define DT (1.0f / 60.0f)
#define ROW 8

TestSuite(crowd_bodies_rows, .timeout = 240);

static const skim_quat identity = { 0, 0, 0, 1 };

static skim_crowd *crowd_of(uint32_t capacity, int threads)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = capacity;
    def.move.threads = threads;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    return crowd;
}

/* No two agents overlap by more than 0.1 units. */
static void assert_apart(const skim_crowd *crowd, int frame)
{
    uint32_t a = 0, b = 0;
    const double deepest = deepest_overlap(crowd, &a, &b) * 2.0 * AGENT_R;
    cr_assert_leq(deepest, 0.1, "frame %d: agents %u and %u overlap by %.4f units", frame, a, b, deepest);
}

/* How deep agent id's sphere is inside the box lo..hi (0 if clear of it). */
static float into_box(const skim_crowd *crowd, uint32_t id, const float lo[3], const float hi[3])
{
    skim_agent_info info;
    skim_crowd_get_agent(crowd, id, &info);
    const float p[3] = { info.position.x, info.position.y, info.position.z };
    float outside_sq = 0.0f, inside = INFINITY;
    for (int a = 0; a < 3; ++a) {
        const float below = lo[a] - p[a], above = p[a] - hi[a];
        const float out = fmaxf(0.0f, fmaxf(below, above));
        outside_sq += out * out;
        inside = fminf(inside, fminf(p[a] - lo[a], hi[a] - p[a]));
    }
    return outside_sq > 0.0f ? fmaxf(0.0f, AGENT_R - sqrtf(outside_sq)) : AGENT_R + inside;
}

/* A door 16 thick and 120 across (face at local x = 0, along +x) and a row
   of ROW agents ahead of it along x, 1 unit apart, the first 24 units from
   the door's face. */
typedef struct row_scene {
    skim_world *world, *door_shape;
    skim_crowd *crowd;
    uint32_t door;
    float x;
} row_scene;

static row_scene row_scene_make(float wall_x)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -2000, -1000, -32, 2000, 1000, 0);
    if (wall_x < 2000.0f)
        soup_add_box(&soup, wall_x, -200, 0, wall_x + 32, 200, 200);
    row_scene s = { soup_world(&soup), box_world(-16, -60, 0, 0, 60, 150), NULL, 0, -100.0f };
    cr_assert_eq(skim_world_add_body(s.world, s.door_shape, (skim_transform){ { s.x, 0, 0 }, identity }, &s.door),
                 SKIM_OK);
    s.crowd = crowd_of(ROW, 1);
    for (int k = 0; k < ROW; ++k)
        goal_agent(s.crowd, (skim_vec3){ s.x + 24.0f + AGENT_R + 33.0f * (float)k, 0, AGENT_R + 0.5f });
    for (int frame = 0; frame < 10; ++frame) /* settle on the floor */
        step_or_fail(s.world, s.crowd, DT);
    return s;
}

static void row_scene_free(row_scene *s)
{
    skim_crowd_destroy(s->crowd);
    skim_world_destroy(s->world);
    skim_world_destroy(s->door_shape);
}

/* Steps the door along +x at 90 units/s until its face reaches `stop`,
   checking every step that nobody overlaps the door or another agent by
   more than 0.1; returns how many agent-steps were squeezed and sets
   *first_squeezed to the door's face at the first. */
static uint32_t push_row(row_scene *s, float stop, float *first_squeezed)
{
    uint32_t squeezed = 0;
    *first_squeezed = INFINITY;
    for (int frame = 0; s->x < stop; ++frame) {
        s->x = fminf(s->x + 1.5f, stop);
        slide_body(s->world, s->door, (skim_vec3){ s->x, 0, 0 });
        step_or_fail(s->world, s->crowd, DT);
        assert_apart(s->crowd, frame);
        const float lo[3] = { s->x - 16.0f, -60.0f, 0.0f }, hi[3] = { s->x, 60.0f, 150.0f };
        for (uint32_t id = 0; id < ROW; ++id) {
            skim_agent_info info;
            skim_crowd_get_agent(s->crowd, id, &info);
            if (info.state & SKIM_AGENT_SQUEEZED) {
                ++squeezed;
                *first_squeezed = fminf(*first_squeezed, s->x);
                continue; /* pressed: the door may overlap it */
            }
            cr_assert_leq(into_box(s->crowd, id, lo, hi), 0.1f, "frame %d: the door at %.2f is %.3f into agent %u",
                          frame, (double)s->x, (double)into_box(s->crowd, id, lo, hi), id);
        }
    }
    return squeezed;
}

Test(crowd_bodies_rows, a_sliding_door_pushes_a_row_of_8_agents_along_squeezing_none)
{
    row_scene s = row_scene_make(INFINITY);
    float first_squeezed;
    const uint32_t squeezed = push_row(&s, 300.0f, &first_squeezed);
    cr_expect_eq(squeezed, 0u, "%u agent-steps squeezed in the open (the first with the door at %.1f)", squeezed,
                 (double)first_squeezed);
    /* The door went 400 units, the first agent's gap 24 of them: the whole
       row is driven on by the rest, keeping its order. */
    float previous = s.x;
    for (uint32_t id = 0; id < ROW; ++id) {
        skim_agent_info info;
        skim_crowd_get_agent(s.crowd, id, &info);
        cr_expect_geq(info.position.x - AGENT_R, previous - 0.1f, "agent %u at %.2f is behind the one before (%.2f)",
                      id, (double)info.position.x, (double)previous);
        cr_expect_lt(fabsf(info.position.y), 1.0f, "agent %u pushed aside to y %.2f", id, (double)info.position.y);
        previous = info.position.x + AGENT_R;
    }
    skim_agent_info last;
    skim_crowd_get_agent(s.crowd, ROW - 1, &last);
    cr_expect_geq(last.position.x, s.x + ROW * 2.0f * AGENT_R - AGENT_R - 1.0f,
                  "the row was not shoved as one: its last agent is at %.2f, the door at %.2f",
                  (double)last.position.x, (double)s.x);
    row_scene_free(&s);
}

Test(crowd_bodies_rows, a_row_pushed_against_a_wall_is_squeezed_and_never_put_into_it)
{
    /* The wall's face at x = 300: the row (8 agents, 256 units, with the
       gaps the crowd keeps between agents 267.2) meets it with the door's
       face near 32.8, and the door goes on 16 units further than the
       agents leave room for. */
    const float wall = 300.0f, stop = wall - ROW * 2.0f * AGENT_R + 16.0f;
    const float packed = ROW * 2.0f * AGENT_R + (ROW - 1) * skim_crowd_def_default().agent_skin * 2.0f * AGENT_R;
    row_scene s = row_scene_make(wall);
    float first_squeezed;
    const uint32_t squeezed = push_row(&s, stop, &first_squeezed);
    for (int frame = 0; frame < 30; ++frame) { /* the door stays shut */
        step_or_fail(s.world, s.crowd, DT);
        assert_apart(s.crowd, frame);
    }
    cr_expect_gt(squeezed, 0u, "nobody was squeezed against the wall");
    cr_expect_geq(first_squeezed, wall - packed - 1.0f,
                  "squeezed with the door at %.2f, before the row can have reached the wall", (double)first_squeezed);
    for (uint32_t id = 0; id < ROW; ++id) {
        skim_agent_info info;
        skim_crowd_get_agent(s.crowd, id, &info);
        cr_expect_leq(info.position.x + AGENT_R, wall + 0.1f, "agent %u into the wall at %.3f", id,
                      (double)info.position.x);
        cr_expect_geq(info.position.z, AGENT_R - 0.5f, "agent %u pushed into the floor: z %.3f", id,
                      (double)info.position.z);
    }
    /* The agents stand against each other and the wall: the door takes
       what the row lacks, overlapping the agent it meets. */
    skim_agent_info first;
    skim_crowd_get_agent(s.crowd, 0, &first);
    const float into_door = stop - (first.position.x - AGENT_R);
    cr_expect_geq(into_door, 16.0f - 1.0f, "the door overlaps its agent by %.3f, not the row's 16", (double)into_door);
    row_scene_free(&s);
}

/* A blade 40 thick, 320 across and 60 high sweeps along +x at 120 units/s
   through 36 agents standing in a triangular lattice 1 unit apart. Every
   step no agent overlaps the blade or another agent by more than 0.1; in
   the open nobody is squeezed; the crowd is driven ahead. Returns the
   crowd's hash. */
static uint64_t blade_sweeps_a_crowd(int threads)
{
    omp_set_num_threads(threads);
    skim_world *world = box_world(-3000, -3000, -32, 3000, 3000, 0);
    skim_world *blade_shape = box_world(-40, -160, 0, 0, 160, 60);
    float x = -150.0f;
    uint32_t blade;
    cr_assert_eq(skim_world_add_body(world, blade_shape, (skim_transform){ { x, 0, 0 }, identity }, &blade), SKIM_OK);
    enum { SIDE = 6, AGENTS = SIDE * SIDE };
    skim_crowd *crowd = crowd_of(AGENTS, threads);
    for (int k = 0; k < AGENTS; ++k)
        goal_agent(crowd, (skim_vec3){ 33.0f * (float)(k % SIDE) + 16.5f * (float)(k / SIDE % 2),
                                       -82.5f + 28.58f * (float)(k / SIDE), AGENT_R + 0.5f });
    for (int frame = 0; frame < 10; ++frame)
        step_or_fail(world, crowd, DT);
    uint32_t squeezed = 0;
    for (int frame = 0; frame < 180; ++frame) {
        x += 2.0f;
        slide_body(world, blade, (skim_vec3){ x, 0, 0 });
        step_or_fail(world, crowd, DT);
        assert_apart(crowd, frame);
        const float lo[3] = { x - 40.0f, -160.0f, 0.0f }, hi[3] = { x, 160.0f, 60.0f };
        for (uint32_t id = 0; id < AGENTS; ++id) {
            skim_agent_info info;
            skim_crowd_get_agent(crowd, id, &info);
            squeezed += (info.state & SKIM_AGENT_SQUEEZED) != 0;
            cr_assert_leq(into_box(crowd, id, lo, hi), 0.1f, "frame %d: the blade at %.1f is %.3f into agent %u",
                          frame, (double)x, (double)into_box(crowd, id, lo, hi), id);
            cr_assert_geq(info.position.z, AGENT_R - 0.5f, "frame %d: agent %u pushed into the floor", frame, id);
        }
    }
    cr_expect_eq(squeezed, 0u, "%u agent-steps squeezed in the open", squeezed);
    uint32_t ahead = 0;
    for (uint32_t id = 0; id < AGENTS; ++id) {
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        ahead += info.position.x > x;
    }
    cr_expect_eq(ahead, (uint32_t)AGENTS, "only %u of %d agents are ahead of the blade", ahead, AGENTS);
    uint64_t hash = skim_crowd_hash(crowd);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_world_destroy(blade_shape);
    return hash;
}

#define PINNED_BLADE_HASH 0xa8c3ad94796cc19aull

Test(crowd_bodies_rows, a_blade_sweeping_a_crowd_drives_it_ahead_with_a_pinned_hash_for_1_2_and_3_threads)
{
    SKIP_UNLESS_BITWISE_KERNELS();
    for (int threads = 1; threads <= 3; ++threads) {
        uint64_t hash = blade_sweeps_a_crowd(threads);
        printf("%s, %d threads: %016llx\n", skim_isa_name(), threads, (unsigned long long)hash);
        cr_expect_eq(hash, PINNED_BLADE_HASH, "%s, %d threads: hash %016llx, pinned %016llx", skim_isa_name(), threads,
                     (unsigned long long)hash, (unsigned long long)PINNED_BLADE_HASH);
    }
}
