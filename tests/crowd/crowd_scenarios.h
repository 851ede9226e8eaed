/* Scenarios of agents with goals the goal suites share: worlds made of
   boxes (a floor, walls with a doorway), a run that steps until everyone
   has arrived or time is up while it records each agent's arrival time and
   the deepest overlap between two agents, in units, from the test's own
   check (sorted sweep over all pairs, in double). */
#ifndef CROWD_SCENARIOS_H
#define CROWD_SCENARIOS_H

#include "crowd_check.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AGENT_R 16.0f

/* Skips a test that pins a hash unless the kernel set chosen for this run
   is available and gives the same bits as every other (the reference
   kernels agree within a tolerance only). */
#define SKIP_UNLESS_BITWISE_KERNELS()                                                                          \
    do {                                                                                                       \
        if (skim_isa_status() != SKIM_OK)                                                                      \
            cr_skip("kernel set not available here: %s", skim_last_error_message());                           \
        if (strcmp(skim_isa_name(), "reference") == 0)                                                         \
            cr_skip("the reference kernels agree within a tolerance, not bitwise");                            \
    } while (0)

/* A triangle soup of axis-aligned boxes. */
typedef struct box_soup {
    float positions[3 * 8 * 8];
    uint32_t indices[3 * 12 * 8];
    uint32_t boxes;
} box_soup;

static inline void soup_add_box(box_soup *s, float x0, float y0, float z0, float x1, float y1, float z1)
{
    cr_assert_lt(s->boxes, 8);
    float *p = s->positions + 24 * s->boxes;
    for (int k = 0; k < 8; ++k) {
        p[3 * k + 0] = k & 1 ? x1 : x0;
        p[3 * k + 1] = k & 2 ? y1 : y0;
        p[3 * k + 2] = k & 4 ? z1 : z0;
    }
    /* Counter-clockwise seen from outside. */
    static const uint32_t faces[12][3] = { { 0, 2, 1 }, { 1, 2, 3 }, { 4, 5, 6 }, { 5, 7, 6 },
                                           { 0, 1, 4 }, { 1, 5, 4 }, { 2, 6, 3 }, { 3, 6, 7 },
                                           { 0, 4, 2 }, { 2, 4, 6 }, { 1, 3, 5 }, { 3, 7, 5 } };
    uint32_t *t = s->indices + 36 * s->boxes;
    for (int f = 0; f < 12; ++f)
        for (int v = 0; v < 3; ++v)
            t[3 * f + v] = 8 * s->boxes + faces[f][v];
    s->boxes++;
}

static inline skim_world *soup_world(const box_soup *s)
{
    skim_mesh mesh = { s->positions, 8 * s->boxes, s->indices, 12 * s->boxes, NULL };
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
    return world;
}

/* A world of one box: the mesh of a body, a door or a platform. */
static inline skim_world *box_world(float x0, float y0, float z0, float x1, float y1, float z1)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, x0, y0, z0, x1, y1, z1);
    return soup_world(&soup);
}

/* One step of the crowd, which must succeed. */
static inline void step_or_fail(const skim_world *world, skim_crowd *crowd, float dt)
{
    cr_assert_eq(skim_crowd_step(world, crowd, dt), SKIM_OK, "%s", skim_last_error_message());
}

/* Body placed at position, turned by rotation; the placing must succeed. */
static inline void place_body(skim_world *world, uint32_t body, skim_vec3 position, skim_quat rotation)
{
    cr_assert_eq(skim_world_set_body_transform(world, body, (skim_transform){ position, rotation }), SKIM_OK, "%s",
                 skim_last_error_message());
}

/* Body moved to position, unturned. */
static inline void slide_body(skim_world *world, uint32_t body, skim_vec3 position)
{
    place_body(world, body, position, (skim_quat){ 0, 0, 0, 1 });
}

/* Two crowds stepped alike are the same: hash, positions, velocities and
   states by id, and what skim_crowd_get_agent says of every agent. */
static inline void expect_same_crowds(const skim_crowd *a, const skim_crowd *b, uint32_t capacity, int frame)
{
    cr_assert_eq(skim_crowd_hash(a), skim_crowd_hash(b), "frame %d: the hashes differ", frame);
    cr_assert_eq(memcmp(skim_crowd_positions(a), skim_crowd_positions(b), capacity * sizeof(skim_vec3)), 0,
                 "frame %d: the positions by id differ", frame);
    cr_assert_eq(memcmp(skim_crowd_velocities(a), skim_crowd_velocities(b), capacity * sizeof(skim_vec3)), 0,
                 "frame %d: the velocities by id differ", frame);
    cr_assert_eq(memcmp(skim_crowd_states(a), skim_crowd_states(b), capacity * sizeof(uint32_t)), 0,
                 "frame %d: the states by id differ", frame);
    for (uint32_t id = 0; id < capacity; ++id) {
        skim_agent_info ia, ib;
        if (skim_crowd_get_agent(a, id, &ia) != SKIM_OK)
            continue;
        cr_assert_eq(skim_crowd_get_agent(b, id, &ib), SKIM_OK, "frame %d: agent %u is in one crowd only", frame, id);
        cr_assert_eq(memcmp(&ia, &ib, sizeof ia), 0, "frame %d: agent %u differs", frame, id);
    }
}

/* A crowd with the default settings, but for its capacity and how often
   each agent plans its avoidance (skim_crowd_def.avoidance_interval). */
static inline skim_crowd *goal_crowd_planning_every(uint32_t capacity, uint32_t interval)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = capacity;
    def.avoidance_interval = interval;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK, "%s", skim_last_error_message());
    return crowd;
}

static inline skim_crowd *goal_crowd(uint32_t capacity)
{
    return goal_crowd_planning_every(capacity, skim_crowd_def_default().avoidance_interval);
}

static inline uint32_t goal_agent(skim_crowd *crowd, skim_vec3 at)
{
    skim_agent_def a = skim_agent_def_default();
    a.position = at;
    uint32_t id;
    cr_assert_eq(skim_crowd_add(crowd, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    return id;
}

typedef struct overlap_entry {
    double x, y, z, r, h;
} overlap_entry;

static inline int overlap_by_x(const void *a, const void *b)
{
    double d = ((const overlap_entry *)a)->x - ((const overlap_entry *)b)->x;
    return (d > 0) - (d < 0);
}

/* The deepest overlap of two agents' cylinders (z up), in units: the
   smaller of the depths across and along up; 0 if none overlaps. */
static inline double worst_overlap_units(const skim_crowd *crowd, overlap_entry *scratch)
{
    const skim_vec3 *p = skim_crowd_positions(crowd);
    const uint32_t *state = skim_crowd_states(crowd);
    uint32_t n = 0;
    double widest = 0.0;
    for (uint32_t id = 0; id < skim_crowd_capacity(crowd); ++id) {
        if (!(state[id] & SKIM_AGENT_ACTIVE))
            continue;
        skim_agent_info info;
        skim_crowd_get_agent(crowd, id, &info);
        scratch[n++] = (overlap_entry){ p[id].x, p[id].y, p[id].z, info.radius, info.half_height };
        widest = fmax(widest, info.radius);
    }
    qsort(scratch, n, sizeof *scratch, overlap_by_x);
    double worst = 0.0;
    for (uint32_t a = 0; a < n; ++a)
        for (uint32_t b = a + 1; b < n && scratch[b].x - scratch[a].x < scratch[a].r + widest; ++b) {
            const overlap_entry *u = &scratch[a], *v = &scratch[b];
            double dx = u->x - v->x, dy = u->y - v->y;
            double across = u->r + v->r - sqrt(dx * dx + dy * dy), along = u->h + v->h - fabs(u->z - v->z);
            if (across > 0.0 && along > 0.0)
                worst = fmax(worst, fmin(across, along));
        }
    return worst;
}

typedef struct goal_run {
    uint32_t agents;
    double  *arrival;      /* per id: seconds to arrive, INFINITY if not */
    double   seconds;      /* simulated */
    double   worst_overlap;
    double   agent_ms, world_ms, rounds; /* per frame, means */
    double   contacts;     /* per frame, mean */
} goal_run;

/* Steps until every agent has arrived or limit seconds have passed. */
static inline void run_goals(const skim_world *world, skim_crowd *crowd, float dt, double limit, goal_run *out)
{
    uint32_t capacity = skim_crowd_capacity(crowd);
    out->agents = skim_crowd_count(crowd);
    out->arrival = malloc(capacity * sizeof *out->arrival);
    overlap_entry *scratch = malloc(capacity * sizeof *scratch);
    cr_assert(out->arrival && scratch);
    for (uint32_t id = 0; id < capacity; ++id)
        out->arrival[id] = INFINITY;
    double agent_s = 0, world_s = 0, rounds = 0, contacts = 0, worst = 0;
    int frame = 0;
    uint32_t arrived = 0;
    for (; (double)frame * dt < limit && arrived < out->agents; ++frame) {
        cr_assert_eq(skim_crowd_step(world, crowd, dt), SKIM_OK, "%s", skim_last_error_message());
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        agent_s += stats.seconds_agents;
        world_s += stats.seconds_world;
        rounds += stats.check_rounds;
        contacts += stats.contacts;
        arrived = stats.arrived;
        const uint32_t *state = skim_crowd_states(crowd);
        for (uint32_t id = 0; id < capacity; ++id)
            if ((state[id] & SKIM_AGENT_ARRIVED) && out->arrival[id] == INFINITY)
                out->arrival[id] = (double)(frame + 1) * dt;
        worst = fmax(worst, worst_overlap_units(crowd, scratch));
    }
    out->seconds = (double)frame * dt;
    out->worst_overlap = worst;
    out->agent_ms = 1e3 * agent_s / frame;
    out->world_ms = 1e3 * world_s / frame;
    out->rounds = rounds / frame;
    out->contacts = contacts / frame;
    free(scratch);
}

static inline void print_run(const char *name, const goal_run *r, uint32_t within, double ratio)
{
    printf("%s: %u agents, %.1f%% arrived within %.1fx their time, %.1f s simulated, worst overlap %.4f units, "
           "%.3f ms agents + %.3f ms world a frame, %.2f check rounds, %.1f contacts a frame\n",
           name, r->agents, 100.0 * within / r->agents, ratio, r->seconds, r->worst_overlap, r->agent_ms, r->world_ms,
           r->rounds, r->contacts);
    fflush(stdout);
}

#endif
