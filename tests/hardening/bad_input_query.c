/* The bad-input table's runner for the queries (bad_input.h): skim_raycast,
   skim_raycast_batch, skim_raycast_any, skim_raycast_any_batch, skim_overlap, skim_closest_point, skim_drop_to_floor,
   skim_world_get_triangle, skim_find_spawn_places, skim_spawn_def_default.
   A failure leaves the output in a known state (no hit, nothing found,
   count 0, the position as given) and never writes past it. */
#include "bad_input.h"

typedef skim_hit four_hits[4];
typedef skim_triangle_ref four_refs[4];
typedef skim_vec3 four_spots[4];
typedef bool four_answers[4];

static void query_defaults(query_args *a)
{
    memset(a, 0, sizeof *a);
    a->shape = sphere_of(1);
    a->origin = (skim_vec3){ 0, 0, 5 };
    a->delta = (skim_vec3){ 0, 0, -10 };
    a->distance = 10;
    a->capacity = 4;
    a->count = 3;
    a->query = skim_query_default();
    a->move_def = skim_move_def_default();
    a->spawn_def = skim_spawn_def_default();
    a->spawn_def.spacing = 8;
    a->spawn_def.max_step = 4;
}

static skim_status run_raycast(const query_args *a, skim_world *world)
{
    GUARDED(skim_hit) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_raycast(a->null_world ? NULL : world, a->origin, a->delta,
                                      a->null_query ? NULL : &a->query, a->null_out ? NULL : &out.value);
    if (!a->null_out) {
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_raycast wrote past the hit");
        if (status != SKIM_OK)
            cr_expect_not(out.value.hit, "a failed ray reports a hit");
        else if (out.value.hit)
            cr_expect(out.value.t >= 0 && out.value.t <= 1 && out.value.triangle < SMALL_TRIANGLES &&
                      out.value.body == SKIM_STATIC);
    }
    return status;
}

static skim_status run_raycast_batch(const query_args *a, skim_world *world)
{
    skim_vec3 origins[4] = { a->origin, a->origin, a->origin, a->origin };
    skim_vec3 deltas[4] = { a->delta, a->delta, a->delta, a->delta };
    if (a->bad_second_ray)
        origins[1].y = NAN;
    GUARDED(four_hits) out;
    memset(&out, CANARY, sizeof out);
    const size_t count = a->count;
    skim_status status = skim_raycast_batch(a->null_world ? NULL : world, count, a->null_origins ? NULL : origins,
                                            a->null_deltas ? NULL : deltas, a->null_query ? NULL : &a->query,
                                            a->null_out ? NULL : out.value);
    if (!a->null_out) {
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_raycast_batch wrote past the hits");
        for (size_t i = 0; status != SKIM_OK && i < count && i < 4; ++i)
            cr_expect_not(out.value[i].hit, "a failed batch reports a hit");
    }
    return status;
}

static skim_status run_raycast_any(const query_args *a, skim_world *world)
{
    GUARDED(bool) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_raycast_any(a->null_world ? NULL : world, a->origin, a->delta,
                                          a->null_query ? NULL : &a->query, a->null_out ? NULL : &out.value);
    if (!a->null_out) {
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_raycast_any wrote past its answer");
        if (status != SKIM_OK)
            cr_expect_not(out.value, "a failed line of sight reports blocked");
    }
    return status;
}

static skim_status run_raycast_any_batch(const query_args *a, skim_world *world)
{
    skim_vec3 origins[4] = { a->origin, a->origin, a->origin, a->origin };
    skim_vec3 deltas[4] = { a->delta, a->delta, a->delta, a->delta };
    if (a->bad_second_ray)
        origins[1].y = NAN;
    GUARDED(four_answers) out;
    memset(&out, CANARY, sizeof out);
    const size_t count = a->count;
    skim_status status = skim_raycast_any_batch(a->null_world ? NULL : world, count,
                                                a->null_origins ? NULL : origins, a->null_deltas ? NULL : deltas,
                                                a->null_query ? NULL : &a->query, a->null_out ? NULL : out.value);
    if (!a->null_out) {
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_raycast_any_batch wrote past its answers");
        for (size_t i = 0; status != SKIM_OK && i < count && i < 4; ++i)
            cr_expect_not(out.value[i], "a failed batch reports blocked");
    }
    return status;
}

static skim_status run_overlap(const query_args *a, skim_world *world)
{
    GUARDED(four_refs) out;
    memset(&out, CANARY, sizeof out);
    uint32_t count = 77;
    skim_status status = skim_overlap(a->null_world ? NULL : world, a->null_shape ? NULL : &a->shape, a->origin,
                                      a->null_query ? NULL : &a->query, a->null_out ? NULL : out.value, a->capacity,
                                      a->null_count ? NULL : &count);
    if (!a->null_out && a->capacity <= 4)
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_overlap wrote past its capacity");
    if (!a->null_count && status != SKIM_OK)
        cr_expect_eq(count, 0u, "a failed overlap counts %u", count);
    return status;
}

static skim_status run_closest(const query_args *a, skim_world *world)
{
    GUARDED(skim_closest) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_closest_point(a->null_world ? NULL : world, a->origin, a->distance,
                                            a->null_query ? NULL : &a->query, a->null_out ? NULL : &out.value);
    if (!a->null_out) {
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_closest_point wrote past its answer");
        if (status != SKIM_OK)
            cr_expect_not(out.value.found);
        else if (out.value.found)
            cr_expect(out.value.distance >= 0 && out.value.distance <= a->distance);
    }
    return status;
}

static skim_status run_drop(const query_args *a, skim_world *world)
{
    GUARDED(skim_move_result) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_drop_to_floor(a->null_world ? NULL : world, a->null_shape ? NULL : &a->shape, a->origin,
                                            a->distance, a->null_def ? NULL : &a->move_def,
                                            a->null_out ? NULL : &out.value);
    if (!a->null_out) {
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_drop_to_floor wrote past its result");
        if (status != SKIM_OK)
            cr_expect_not(out.value.touched & SKIM_TOUCH_FLOOR);
        else
            expect_finite_or_refused(status, &out.value);
    }
    return status;
}

static skim_status run_get_triangle(const query_args *a, skim_world *world)
{
    GUARDED(skim_triangle) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_world_get_triangle(a->null_world ? NULL : world, a->triangle,
                                                 a->null_out ? NULL : &out.value);
    if (!a->null_out)
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_world_get_triangle wrote past the triangle");
    return status;
}

static skim_status run_spawn(const query_args *a, skim_world *world)
{
    GUARDED(four_spots) out;
    memset(&out, CANARY, sizeof out);
    uint32_t count = 77;
    skim_status status = skim_find_spawn_places(a->null_world ? NULL : world, a->null_shape ? NULL : &a->shape,
                                                a->null_def ? NULL : &a->spawn_def, a->null_out ? NULL : out.value,
                                                a->capacity, a->null_count ? NULL : &count);
    if (!a->null_out && a->capacity <= 4)
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_find_spawn_places wrote past its capacity");
    if (!a->null_count && status != SKIM_OK)
        cr_expect_eq(count, 0u);
    return status;
}

skim_status bad_input_run_query(const row *r)
{
    query_args a;
    query_defaults(&a);
    if (r->fn == F_drop_to_floor)
        a.distance = 100;
    apply(r, &a);
    if (a.sphere_radius > 0)
        a.shape = sphere_of(a.sphere_radius);
    const query_args before = a;
    skim_world *world = small_world(a.brute_force ? SKIM_ACCELERATOR_BRUTE_FORCE : SKIM_ACCELERATOR_BVH);
    skim_status status = SKIM_OK;
    switch (r->fn) {
    case F_raycast: status = run_raycast(&a, world); break;
    case F_raycast_batch: status = run_raycast_batch(&a, world); break;
    case F_raycast_any: status = run_raycast_any(&a, world); break;
    case F_raycast_any_batch: status = run_raycast_any_batch(&a, world); break;
    case F_overlap: status = run_overlap(&a, world); break;
    case F_closest_point: status = run_closest(&a, world); break;
    case F_drop_to_floor: status = run_drop(&a, world); break;
    case F_world_get_triangle: status = run_get_triangle(&a, world); break;
    case F_find_spawn_places: status = run_spawn(&a, world); break;
    default: cr_assert_fail("no query runner for %s", function_names[r->fn]);
    }
    expect_status(r, status);
    cr_expect(memcmp(&before, &a, sizeof a) == 0, "%s changed its inputs", function_names[r->fn]);
    skim_world_destroy(world);
    return status;
}
