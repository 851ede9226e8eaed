/* skim_move: collide and slide (Nettle, Generic Collision Detection for Games Using Ellipsoids), with what every
   modern character controller adds on top.

   One move:
     1. ONE candidate gather with the box that holds everything the move can
        do (move_gather.c): start +- (bounding radius +
        |displacement| + |gravity| + push-out allowance + skins), grown up
        by the step height and down by the snap distance. No later pass can
        leave it (each pass's path is no longer than its displacement, in
        unit-sphere space where a slide is a projection, and in the world
        where each slide is clamped to what is left; the snap, whose slides
        the box does not cover sideways, is kept inside it).
     2. The move pass: Nettle's collideWithWorld as a loop (the recursion
        made iterative): sweep what is left of the displacement, move to the
        first contact less a skin, slide along the sliding plane (normal from
        the contact to the center), at most max_iterations times. All planes
        met are solved together (slide_planes.c); a slide that would turn
        against the original motion stops dead (PM_SlideMove).
     3. Step-up (step_and_snap.c) when a wall blocked the move.
     4. Nettle's two-pass gravity ("Gravity": run the collision once without
        gravity, then again with it from where the first pass ended): the
        gravity pass never slides on a walkable floor, and slides down steep
        ones ("Sliding downhill is automatic", limited to slopes past the
        slope limit).
     5. Snap down to the floor when nothing held the mover up.
   All in unit-sphere space relative to the start; the result goes back to
   world space once, at the end. */
#include "move/move_contacts.h"

#include <math.h>
#include <string.h>

uint32_t skim_move_classify(const skim_move_ctx *ctx, const float normal_unit[3],
                            float world_normal[3])
{
    /* Normals go to world space by the inverse transpose (Rouwé 4), then
       the angle to up decides: floor within the slope limit, ceiling within
       it of straight down, wall otherwise (Godot's move_and_slide rule). */
    mv_mat3(ctx->space->normal_to_world, normal_unit, world_normal);
    if (!skim_move_normalize(world_normal)) {
        mv_copy(world_normal, ctx->up);
        return SKIM_TOUCH_WALL;
    }
    float c = mv_dot(world_normal, ctx->up);
    if (c >= ctx->cos_floor)
        return SKIM_TOUCH_FLOOR;
    if (c <= -ctx->cos_floor)
        return SKIM_TOUCH_CEILING;
    return SKIM_TOUCH_WALL;
}

void skim_move_note_touch(skim_move_touch *touch, uint32_t kind, const float world_normal[3],
                          uint32_t triangle)
{
    touch->touched |= kind;
    if (kind == SKIM_TOUCH_FLOOR) {
        touch->floor = true;
        mv_copy(touch->floor_normal, world_normal);
        touch->floor_triangle = triangle;
    }
}

void skim_move_merge_touch(skim_move_touch *into, const skim_move_touch *from)
{
    into->touched |= from->touched;
    if (from->floor) {
        into->floor = true;
        mv_copy(into->floor_normal, from->floor_normal);
        into->floor_triangle = from->floor_triangle;
    }
}

void skim_move_add_contact(const skim_move_ctx *ctx, skim_move_planes *planes,
                           const float normal[3], float offset, uint32_t lane, uint32_t kind,
                           const float world_normal[3])
{
    skim_move_planes_add(planes, normal, normal, offset, lane);
    if (ctx->pass != SKIM_PASS_MOVE || kind != SKIM_TOUCH_WALL)
        return;
    float rise = mv_dot(world_normal, ctx->up);
    if (!(rise > 1e-4f))
        return; /* a vertical wall or an overhang: its own plane is the wall */
    /* Lay the steep slope's normal flat (world), then take the constraint to
       unit space: v_world . h >= 0  <=>  v_unit . (M^T h) >= 0. */
    float flat[3];
    mv_add_scaled(flat, world_normal, ctx->up, -rise);
    if (!skim_move_normalize(flat))
        return;
    const float(*m)[3] = ctx->space->to_world;
    float constraint[3];
    for (int i = 0; i < 3; ++i)
        constraint[i] = m[0][i] * flat[0] + m[1][i] * flat[1] + m[2][i] * flat[2];
    if (!skim_move_normalize(constraint))
        return;
    skim_move_planes_add(planes, constraint, normal, offset, UINT32_MAX);
}

void skim_move_sweep(skim_move_ctx *ctx, const float pos[3], const float delta[3],
                     skim_unit_hit *best)
{
    *best = (skim_unit_hit){ .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
    /* Nothing gathered (a mover over a void, falling): the kernels would
       leave best as it is, so no call is made and none is counted. */
    if (ctx->scratch->gathered.count == 0)
        return;
    if (ctx->prove_clear && skim_move_sweep_proved_clear(ctx, pos, delta))
        return;
    ctx->sweeps++;
    /* From pos: the kernel re-bases the gathered lanes as it reads them. */
    ctx->kernels->sweep_from(&ctx->scratch->gathered, pos, delta, ctx->cull, best);
}

bool skim_move_lane_walkable(const skim_move_ctx *ctx, uint32_t lane, float world_normal[3])
{
    const skim_candidates *g = &ctx->scratch->gathered;
    float v[3][3];
    for (int corner = 0; corner < 3; ++corner)
        for (int axis = 0; axis < 3; ++axis)
            v[corner][axis] = g->vertex[corner][axis][lane];
    float e1[3] = { v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2] };
    float e2[3] = { v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2] };
    float face[3];
    mv_cross(face, e1, e2);
    mv_mat3(ctx->space->normal_to_world, face, world_normal);
    if (!skim_move_normalize(world_normal))
        return false;
    /* Two-sided: the side facing up. */
    float c = mv_dot(world_normal, ctx->up);
    if (c < 0.0f) {
        mv_scale(world_normal, world_normal, -1.0f);
        c = -c;
    }
    return c >= ctx->cos_floor;
}

/* ---- the move ---- */

static double length3(skim_vec3 v)
{
    return sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
}

skim_status skim_move_run_logged(const skim_kernel_set *kernels, const skim_world *world,
                                 const skim_ellipsoid *shape, skim_vec3 position,
                                 skim_vec3 displacement, const skim_move_def *def,
                                 skim_move_result *out, skim_move_contact_log *log)
{
    skim_move_scratch *scratch = skim_move_thread_scratch();
    if (!scratch)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_move: no memory for the thread's scratch");
    /* A crowd is mostly one shape and one def: keep the last ones' derived
       values (the quaternion's matrix in double, up in unit space, the
       slope's cosine). */
    if (!scratch->space_valid || memcmp(&scratch->space_shape, shape, sizeof *shape) != 0) {
        skim_ellipsoid_space_init(&scratch->space, shape);
        scratch->space_shape = *shape;
        scratch->space_valid = true;
        scratch->up_valid = false;
    }
    if (!scratch->up_valid || memcmp(&scratch->up_given, &def->up, sizeof def->up) != 0) {
        /* Up, renormalised (the check allows 1e-3 of slack). */
        const skim_ellipsoid_space *space = &scratch->space;
        double up_length = length3(def->up);
        scratch->up[0] = (float)(def->up.x / up_length);
        scratch->up[1] = (float)(def->up.y / up_length);
        scratch->up[2] = (float)(def->up.z / up_length);
        mv_mat3(space->to_unit, scratch->up, scratch->up_unit);
        mv_copy(scratch->up_unit_dir, scratch->up_unit);
        skim_move_normalize(scratch->up_unit_dir);
        for (int i = 0; i < 3; ++i)
            scratch->up_grad[i] = space->to_world[0][i] * scratch->up[0] +
                                  space->to_world[1][i] * scratch->up[1] +
                                  space->to_world[2][i] * scratch->up[2];
        scratch->up_given = def->up;
        scratch->up_valid = true;
        scratch->box_valid = false;
    }
    if (!(scratch->slope_degrees == def->max_slope_degrees)) {
        scratch->slope_degrees = def->max_slope_degrees;
        scratch->cos_floor = cosf(def->max_slope_degrees * (float)(M_PI / 180.0));
    }
    const skim_ellipsoid_space *const space = &scratch->space;
    skim_move_ctx ctx = {
        .kernels = kernels, .space = space, .def = def,
        .scratch = scratch,
        .friction = def->material_friction_count ? def->material_friction : NULL,
        .friction_count = def->material_friction_count,
        .cull = def->query.cull_back_faces,
        .cos_floor = scratch->cos_floor,
        .skin = def->skin_width,
        .push_left = SKIM_MOVE_PUSH_PER_MOVE,
        .status = SKIM_OK,
        .contacts = log,
    };
    {
        const float sine_sq = 1.0f - ctx.cos_floor * ctx.cos_floor;
        ctx.snap_stretch = sine_sq > 1.0f / 16.0f ? 1.0f / sqrtf(sine_sq) : 4.0f;
    }
    mv_copy(ctx.up, scratch->up);
    mv_copy(ctx.up_unit, scratch->up_unit);
    mv_copy(ctx.up_unit_dir, scratch->up_unit_dir);
    mv_copy(ctx.up_grad, scratch->up_grad);

    const float start[3] = { position.x, position.y, position.z };
    const float displacement_world[3] = { displacement.x, displacement.y, displacement.z };
    const float gravity_world[3] = { def->gravity.x, def->gravity.y, def->gravity.z };

    float delta[3], gravity[3];
    mv_mat3(space->to_unit, displacement_world, delta);
    mv_mat3(space->to_unit, gravity_world, gravity);

    /* The displacement's part across up: the snap rolls on only that way,
       and the gather's kept leaves reach farther that way (move_cache.c). */
    float rise = mv_dot(displacement_world, ctx.up);
    mv_add_scaled(ctx.walk, displacement_world, ctx.up, -rise);

    /* The one gather (move_gather.c), and the skin's precision floor. */
    double unit_path = sqrt((double)mv_dot(delta, delta)) + sqrt((double)mv_dot(gravity, gravity));
    ctx.world = world;
    ctx.start = start;
    ctx.unit_path = unit_path;
    skim_status status = skim_move_gather(&ctx, world, start, unit_path);
    if (status != SKIM_OK)
        return status;

    float gravity_rise = mv_dot(gravity_world, ctx.up);

    float pos[3] = { 0.0f, 0.0f, 0.0f };
    skim_move_pass_result moved;
    if (log)
        skim_move_contacts_begin(&ctx, SKIM_MOVE_PASS_SLIDE);
    skim_move_pass(&ctx, pos, delta, SKIM_PASS_MOVE, def->max_iterations, &moved);
    skim_move_touch touch = moved.touch;
    int iterations = moved.iterations;

    /* Quake: "never step up when you still have up velocity". */
    if (def->step_height > 0.0f && moved.blocked_by_wall && rise <= 0.0f) {
        if (log)
            skim_move_contacts_begin(&ctx, SKIM_MOVE_PASS_STEP);
        skim_move_try_step(&ctx, delta, pos, &touch, &iterations);
        if (log)
            skim_move_contacts_end(&ctx);
    }

    /* A stair walk held on a nosing (step_and_snap.c): its descent already
       came down onto what holds it; gravity would roll it back off the
       edge (Jolt's WalkStairs sets the ground state the same way). */
    if (!ctx.step_held && (gravity[0] != 0.0f || gravity[1] != 0.0f || gravity[2] != 0.0f)) {
        skim_move_pass_result fallen;
        if (log)
            skim_move_contacts_begin(&ctx, SKIM_MOVE_PASS_GRAVITY);
        skim_move_pass(&ctx, pos, gravity, SKIM_PASS_GRAVITY, def->max_iterations, &fallen);
        skim_move_merge_touch(&touch, &fallen.touch);
    }

    if (!touch.floor && rise <= 0.0f && gravity_rise <= 0.0f) {
        if (log)
            skim_move_contacts_begin(&ctx, SKIM_MOVE_PASS_SNAP);
        skim_move_snap(&ctx, pos, &touch);
        if (log)
            skim_move_contacts_end(&ctx);
    }

    if (ctx.status != SKIM_OK)
        return ctx.status;
    if (scratch->cache_entry) {
        scratch->cache_moves++;
        scratch->cache_kernel_calls += (uint64_t)ctx.sweeps;
    }

    float offset[3];
    mv_mat3(space->to_world, pos, offset);
    memset(out, 0, sizeof *out);
    out->position = (skim_vec3){ position.x + offset[0], position.y + offset[1],
                                 position.z + offset[2] };
    out->touched = touch.touched;
    if (touch.floor) {
        out->floor_normal = (skim_vec3){ touch.floor_normal[0], touch.floor_normal[1],
                                         touch.floor_normal[2] };
        const skim_triangle_ref floor = skim_body_lane_ref(&ctx.scratch->body_lanes,
                                                           touch.floor_triangle);
        out->floor_triangle = floor.triangle;
        out->floor_body = floor.body;
    } else {
        out->floor_triangle = UINT32_MAX;
        out->floor_body = SKIM_STATIC;
    }
    out->iterations = iterations;
    return SKIM_OK;
}

skim_status skim_move_run(const skim_kernel_set *kernels, const skim_world *world,
                          const skim_ellipsoid *shape, skim_vec3 position,
                          skim_vec3 displacement, const skim_move_def *def,
                          skim_move_result *out)
{
    return skim_move_run_logged(kernels, world, shape, position, displacement, def, out, NULL);
}

skim_status skim_move(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 position,
                      skim_vec3 displacement, const skim_move_def *def, skim_move_result *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_move: out is NULL");
    memset(out, 0, sizeof *out);
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_move: world is NULL");
    skim_status status = skim_move_check_mover(shape, position, displacement, "skim_move", 0,
                                               false);
    if (status != SKIM_OK)
        return status;
    skim_move_def defaults = skim_move_def_default();
    if (!def)
        def = &defaults;
    status = skim_move_check_def(def, "skim_move");
    if (status != SKIM_OK)
        return status;
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    status = skim_move_run(kernels, world, shape, position, displacement, def, out);
    if (status != SKIM_OK)
        memset(out, 0, sizeof *out);
    return status;
}
