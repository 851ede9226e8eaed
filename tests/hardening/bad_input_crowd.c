/* The bad-input table's runners for crowds (bad_input.h): each function
   that makes, changes or reads a crowd, on a small crowd standing in the
   small world. */
#include "bad_input.h"

/* ================= crowds ================= */
/* A crowd of two agents (ids 0 and 2; id 1 was removed) standing on the
   small world's floor after 5 steps, capacity 4. */
static skim_crowd *small_crowd(const skim_world *world)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = CROWD_CAPACITY;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK);
    skim_agent_def agent = skim_agent_def_default();
    agent.shape = sphere_of(1);
    uint32_t id;
    for (int i = 0; i < 3; ++i) {
        agent.position = (skim_vec3){ -10.0f + 5.0f * (float)i, 0, 1.2f };
        cr_assert_eq(skim_crowd_add(crowd, &agent, &id), SKIM_OK);
    }
    cr_assert_eq(skim_crowd_remove(crowd, 1), SKIM_OK);
    for (int frame = 0; frame < 5; ++frame)
        cr_assert_eq(skim_crowd_step(world, crowd, 0.02f), SKIM_OK);
    skim_agent_info info;
    cr_assert_eq(skim_crowd_get_agent(crowd, 0, &info), SKIM_OK);
    cr_assert(info.state & SKIM_AGENT_ON_FLOOR, "agent 0 should stand on the floor (state %#x)", info.state);
    return crowd;
}

static void crowd_defaults(crowd_args *a)
{
    memset(a, 0, sizeof *a);
    a->def = skim_crowd_def_default();
    a->agent = skim_agent_def_default();
    a->agent.shape = sphere_of(1);
    a->agent.position = (skim_vec3){ 5, 5, 1.2f };
    a->vector = (skim_vec3){ 1, 2, 0 };
    a->scalar = 0.02f;
    a->arrival = 1.0f;
    a->count = 2;
}

/* After a call on a crowd: a failed call left it as it was (hash), and
   whatever was accepted, the crowd still steps. */
static void crowd_after(const row *r, skim_crowd *crowd, const skim_world *world, uint64_t hash_before,
                        uint32_t count_before, skim_status status)
{
    if (status != SKIM_OK) {
        cr_expect_eq(skim_crowd_hash(crowd), hash_before, "%s(%s = %s) failed but changed the crowd",
                     function_names[r->fn], r->argument, kind_names[r->kind]);
        cr_expect_eq(skim_crowd_count(crowd), count_before);
    }
    skim_status next = skim_crowd_step(world, crowd, 0.02f);
    cr_expect_eq(next, SKIM_OK, "%s(%s = %s): the crowd no longer steps: %s", function_names[r->fn], r->argument,
                 kind_names[r->kind], skim_last_error_message());
}

skim_status bad_input_run_crowd(const row *r)
{
    crowd_args a;
    crowd_defaults(&a);
    if (r->fn == F_crowd_set_velocity || r->fn == F_crowd_teleport)
        a.vector = (skim_vec3){ 1, 2, 3 };
    if (r->fn == F_crowd_jump)
        a.scalar = 10;
    if (r->fn == F_crowd_set_target || r->fn == F_crowd_set_path) {
        a.vector = (skim_vec3){ 4, 3, 0 };
        a.scalar = 5;
    }
    apply(r, &a);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_crowd *crowd = NULL;
    skim_status status = SKIM_OK;
    if (r->fn == F_crowd_create) {
        skim_crowd *made = (skim_crowd *)&a;
        status = skim_crowd_create(a.null_def ? NULL : &a.def, a.null_out ? NULL : &made);
        expect_status(r, status);
        if (!a.null_out && status != SKIM_OK)
            cr_expect_null(made, "skim_crowd_create: *out not NULL on failure");
        if (!a.null_out && status == SKIM_OK) {
            skim_agent_def agent = a.agent;
            uint32_t id;
            cr_expect_eq(skim_crowd_add(made, &agent, &id), SKIM_OK);
            cr_expect_eq(skim_crowd_step(world, made, 0.02f), SKIM_OK,
                         "a crowd created with (%s = %s) cannot step: %s", r->argument, kind_names[r->kind],
                         skim_last_error_message());
            skim_crowd_destroy(made);
        }
        skim_world_destroy(world);
        return status;
    }
    crowd = small_crowd(world);
    if (a.fill) {
        skim_agent_def agent = a.agent;
        uint32_t id;
        for (int i = 0; i < 2; ++i) {
            agent.position.x += 3;
            cr_assert_eq(skim_crowd_add(crowd, &agent, &id), SKIM_OK);
        }
    }
    skim_crowd *target = a.null_crowd ? NULL : crowd;
    const uint64_t hash = skim_crowd_hash(crowd);
    const uint32_t count = skim_crowd_count(crowd);
    switch (r->fn) {
    case F_crowd_add: {
        GUARDED(uint32_t) id;
        memset(&id, CANARY, sizeof id);
        status = skim_crowd_add(target, a.null_agent ? NULL : &a.agent, a.null_out_id ? NULL : &id.value);
        expect_status(r, status);
        CHECK_CANARY(id, "the id");
        if (status != SKIM_OK && !a.null_out_id)
            cr_expect(all_bytes(&id.value, sizeof id.value, CANARY), "failed add wrote *out_id");
        if (status == SKIM_OK)
            cr_expect_eq(id.value, 1u, "the lowest free id is 1");
        break;
    }
    case F_crowd_remove:
        status = skim_crowd_remove(target, a.id);
        expect_status(r, status);
        break;
    case F_crowd_set_velocity:
        status = skim_crowd_set_velocity(target, a.id, a.vector);
        expect_status(r, status);
        break;
    case F_crowd_set_target:
        status = skim_crowd_set_target(target, a.id, a.vector, a.scalar, a.arrival);
        expect_status(r, status);
        break;
    case F_crowd_set_path: {
        const skim_vec3 waypoints[2] = { a.vector, { a.vector.x + 1, a.vector.y, a.vector.z } };
        status = skim_crowd_set_path(target, a.id, a.null_waypoints ? NULL : waypoints, a.count, a.scalar,
                                     a.arrival);
        expect_status(r, status);
        break;
    }
    case F_crowd_jump: {
        /* Agent 0 stands on the floor after the first step. */
        GUARDED(bool) jumped;
        memset(&jumped, CANARY, sizeof jumped);
        status = skim_crowd_jump(target, a.id, a.scalar, a.null_jumped ? NULL : &jumped.value);
        expect_status(r, status);
        if (!a.null_jumped) {
            CHECK_CANARY(jumped, "*jumped");
            if (status != SKIM_OK)
                cr_expect_not(jumped.value, "a failed jump says it jumped");
        }
        break;
    }
    case F_crowd_teleport:
        status = skim_crowd_teleport(target, a.id, a.vector);
        expect_status(r, status);
        break;
    case F_crowd_step:
        status = skim_crowd_step(a.null_world ? NULL : world, target, a.scalar);
        expect_status(r, status);
        break;
    case F_crowd_get_agent: {
        GUARDED(skim_agent_info) out;
        memset(&out, CANARY, sizeof out);
        status = skim_crowd_get_agent(target, a.id, a.null_out ? NULL : &out.value);
        expect_status(r, status);
        CHECK_CANARY(out, "the agent info");
        break;
    }
    case F_crowd_get_stats: {
        GUARDED(skim_crowd_stats) out;
        memset(&out, CANARY, sizeof out);
        status = skim_crowd_get_stats(target, a.null_out ? NULL : &out.value);
        expect_status(r, status);
        CHECK_CANARY(out, "the stats");
        break;
    }
    default:
        cr_assert_fail("no crowd runner for %s", function_names[r->fn]);
    }
    crowd_after(r, crowd, world, hash, count, status);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    return status;
}

/* Functions that take only a crowd pointer and return a value: NULL gives
   the documented neutral value (0, NULL, the FNV offset basis). */
skim_status bad_input_run_crowd_query_null(const row *r)
{
    switch (r->fn) {
    case F_crowd_count: cr_expect_eq(skim_crowd_count(NULL), 0u); break;
    case F_crowd_capacity: cr_expect_eq(skim_crowd_capacity(NULL), 0u); break;
    case F_crowd_positions: cr_expect_null(skim_crowd_positions(NULL)); break;
    case F_crowd_velocities: cr_expect_null(skim_crowd_velocities(NULL)); break;
    case F_crowd_states: cr_expect_null(skim_crowd_states(NULL)); break;
    case F_crowd_hash: cr_expect_eq(skim_crowd_hash(NULL), 14695981039346656037ull); break;
    case F_crowd_destroy: skim_crowd_destroy(NULL); break;
    default: cr_assert_fail("no runner");
    }
    return SKIM_OK;
}
