/* The bad-input table's runners for sweeps and moves (bad_input.h):
   skim_sweep, skim_move and skim_move_batch. */
#include "bad_input.h"

static const float nan_f = NAN;

/* ================= sweep ================= */
skim_status bad_input_run_sweep(const row *r)
{
    sweep_args a = { .shape = sphere_of(1), .start = { 0, 0, 5 }, .delta = { 0, 0, -10 },
                     .query = skim_query_default() };
    apply(r, &a);
    if (a.sphere_radius > 0) {
        a.shape = sphere_of(a.sphere_radius);
        /* Keep start and end where floats resolve the radius
           (SKIM_POSITION_RESOLUTION_RADII, |coordinate| < 2 at
           SKIM_RADIUS_MIN) so the row tests the radius. */
        if (a.sphere_radius < 1e-3f) {
            a.start.z *= 0.1f;
            a.delta.z *= 0.1f;
        }
        /* Keep the path within SKIM_SWEEP_MAX_RADII so the row tests the radius. */
        double length = sqrt((double)a.delta.x * a.delta.x + (double)a.delta.y * a.delta.y +
                             (double)a.delta.z * a.delta.z);
        double most = 1e5 * (double)a.sphere_radius;
        if (length > most) {
            a.delta.x = (float)(a.delta.x * most / length);
            a.delta.y = (float)(a.delta.y * most / length);
            a.delta.z = (float)(a.delta.z * most / length);
        }
    }
    const sweep_args before = a;
    skim_world *world = small_world(a.brute_force ? SKIM_ACCELERATOR_BRUTE_FORCE : SKIM_ACCELERATOR_BVH);
    GUARDED(skim_hit) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_sweep(a.null_world ? NULL : world, a.null_shape ? NULL : &a.shape, a.start,
                                    a.delta, a.null_query ? NULL : &a.query, a.null_out ? NULL : &out.value);
    expect_status(r, status);
    cr_expect(memcmp(&before, &a, sizeof a) == 0, "skim_sweep changed its inputs");
    if (!a.null_out) {
        CHECK_CANARY(out, "the hit");
        if (status != SKIM_OK)
            cr_expect_not(out.value.hit, "a failed sweep reports a hit");
        else if (out.value.hit) {
            cr_expect(out.value.t >= 0.0f && out.value.t <= 1.0f, "t = %g", (double)out.value.t);
            cr_expect(isfinite(out.value.point.x) && isfinite(out.value.normal.z), "non-finite hit");
            cr_expect_lt(out.value.triangle, (uint32_t)SMALL_TRIANGLES);
        }
    }
    skim_world_destroy(world);
    return status;
}

/* ================= move ================= */
static void move_defaults(move_args *a)
{
    memset(a, 0, sizeof *a);
    a->shape = sphere_of(1);
    a->position = (skim_vec3){ 0, 0, 1.5f };
    a->displacement = (skim_vec3){ 5, 0, -1 };
    a->def = skim_move_def_default();
    a->friction[0] = 0.5f;
    a->friction[1] = 0.25f;
    a->def.material_friction_count = 2;
}

static void wire_friction(move_args *a)
{
    if (a->def.material_friction_count > 0 && !a->null_friction)
        a->def.material_friction = a->friction;
}

skim_status bad_input_run_move(const row *r)
{
    move_args a;
    move_defaults(&a);
    apply(r, &a);
    if (a.sphere_radius > 0)
        a.shape = sphere_of(a.sphere_radius);
    wire_friction(&a);
    const move_args before = a;
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    GUARDED(skim_move_result) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_move(a.null_world ? NULL : world, a.null_shape ? NULL : &a.shape, a.position,
                                   a.displacement, a.null_def ? NULL : &a.def, a.null_out ? NULL : &out.value);
    expect_status(r, status);
    cr_expect(memcmp(&before, &a, sizeof a) == 0, "skim_move changed its inputs");
    if (!a.null_out) {
        CHECK_CANARY(out, "the move result");
        if (status == SKIM_OK) {
            cr_expect(isfinite(out.value.position.x) && isfinite(out.value.position.y) &&
                          isfinite(out.value.position.z), "non-finite end");
            /* Started clear of the floor (z = 0) and the wall (x = 10): stays
               clear, unless the query lets nothing collide. */
            if (a.shape.radii.x == a.shape.radii.y && a.shape.radii.y == a.shape.radii.z &&
                a.def.query.material_mask != 0)
                cr_expect(out.value.position.z >= a.shape.radii.z * 0.999f &&
                              out.value.position.x <= 10 - a.shape.radii.x * 0.999f,
                          "ended inside the floor or the wall: (%g %g %g)", (double)out.value.position.x,
                          (double)out.value.position.y, (double)out.value.position.z);
        }
    }
    skim_world_destroy(world);
    return status;
}

/* ================= move_batch ================= */
#define BATCH 3

skim_status bad_input_run_move_batch(const row *r)
{
    batch_args a = { .count = BATCH, .def = skim_move_def_default() };
    apply(r, &a);
    if (r->fn == F_move_cache_create) {
        skim_move_cache *made = NULL;
        skim_status status = skim_move_cache_create(a.null_out ? NULL : &made);
        expect_status(r, status);
        cr_expect(a.null_out || made, "skim_move_cache_create gave no cache");
        skim_move_cache_destroy(made);
        return status;
    }
    if (r->fn == F_move_cache_destroy) {
        skim_move_cache *made = NULL;
        if (!a.null_cache)
            cr_assert_eq(skim_move_cache_create(&made), SKIM_OK);
        skim_move_cache_destroy(made);
        return SKIM_OK;
    }
    skim_move_cache *cache = NULL;
    if (r->fn == F_move_batch_cached && !a.null_cache)
        cr_assert_eq(skim_move_cache_create(&cache), SKIM_OK);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_ellipsoid shapes[BATCH] = { sphere_of(1), sphere_of(2), { { 1, 2, 1.5f }, { 0, 0, 0.6f, 0.8f } } };
    skim_vec3 positions[BATCH] = { { 0, 0, 1.5f }, { -5, 5, 3 }, { 2, -3, 4 } };
    skim_vec3 displacements[BATCH] = { { 5, 0, -1 }, { 20, 0, 0 }, { 0, 0, -10 } };
    if (a.alias_positions) /* the same array for both inputs: allowed, both are const */
        memcpy(displacements, positions, sizeof positions);
    if (a.bad_field && !a.bad_mover)
        a.bad_mover = 1;
    if (a.bad_mover) {
        int i = a.bad_mover - 1;
        if (a.bad_field == 0)
            a.bad_field = 1;
        if (a.bad_field == 1) positions[i].y = nan_f;
        if (a.bad_field == 2) displacements[i].x = INFINITY;
        if (a.bad_field == 3) shapes[i].radii.z = 0;
    }
    /* Minimal alignment: arrays 4 bytes past a 64-byte boundary. */
    _Alignas(64) unsigned char block[3][256];
    skim_ellipsoid *s = shapes;
    skim_vec3 *p = positions, *d = a.alias_positions ? positions : displacements;
    if (a.min_aligned) {
        s = (skim_ellipsoid *)(void *)(block[0] + 4);
        p = (skim_vec3 *)(void *)(block[1] + 4);
        d = (skim_vec3 *)(void *)(block[2] + 4);
        memcpy(s, shapes, sizeof shapes);
        memcpy(p, positions, sizeof positions);
        memcpy(d, displacements, sizeof displacements);
    }
    typedef skim_move_result batch_results[BATCH];
    GUARDED(batch_results) out;
    memset(&out, CANARY, sizeof out);
    skim_status status =
        r->fn == F_move_batch_cached
            ? skim_move_batch_cached(a.null_world ? NULL : world, cache, a.count, a.null_shapes ? NULL : s,
                                     a.null_positions ? NULL : p, a.null_displacements ? NULL : d,
                                     a.null_def ? NULL : &a.def, a.null_results ? NULL : out.value)
            : skim_move_batch(a.null_world ? NULL : world, a.count, a.null_shapes ? NULL : s,
                              a.null_positions ? NULL : p, a.null_displacements ? NULL : d,
                              a.null_def ? NULL : &a.def, a.null_results ? NULL : out.value);
    skim_move_cache_destroy(cache);
    expect_status(r, status);
    CHECK_CANARY(out, "results[count]");
    if (status != SKIM_OK || a.count == 0) {
        cr_expect(all_bytes(out.value, sizeof out.value, CANARY),
                  "skim_move_batch(%s = %s) wrote results although it %s", r->argument, kind_names[r->kind],
                  status != SKIM_OK ? "failed" : "had no movers");
    } else {
        /* Each result is what skim_move gives for that mover. */
        for (size_t i = 0; i < a.count; ++i) {
            skim_move_result single;
            cr_assert_eq(skim_move(world, &s[i], p[i], d[i], &a.def, &single), SKIM_OK);
            cr_expect(memcmp(&single.position, &out.value[i].position, sizeof single.position) == 0 &&
                          single.touched == out.value[i].touched,
                      "batch result %zu differs from skim_move", i);
        }
    }
    skim_world_destroy(world);
    return status;
}
