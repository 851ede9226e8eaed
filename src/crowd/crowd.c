/* The crowd API: create and destroy, add and remove agents, what they want
   (velocity, jumps), and what they are (positions, states, hash, stats).
   One step's work lives in crowd_step.c. */
#include "crowd/crowd_internal.h"
#include "move/move_internal.h" /* skim_move_check_def: the crowd takes what the move takes */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


skim_crowd_def skim_crowd_def_default(void)
{
    skim_crowd_def def = {
        .capacity = 1024,
        .move = skim_move_def_default(),
        .gravity = 800.0f,
        .agent_collisions = true,
        .solver_iterations = 8,
        .agent_skin = 0.05f,
        .avoidance = true,
        .avoidance_horizon = 2.0f,
        .avoidance_interval = 2,
        .resting = true,
    };
    def.move.step_height = 18.0f;
    def.move.snap_distance = 18.0f;
    return def;
}

skim_agent_def skim_agent_def_default(void)
{
    skim_agent_def def = {
        .shape = { { 16.0f, 16.0f, 16.0f }, { 0.0f, 0.0f, 0.0f, 1.0f } },
        .position = { 0.0f, 0.0f, 0.0f },
        .radius = 0.0f,
        .half_height = 0.0f,
        .inverse_mass = 1.0f,
        .flags = 0,
        .layers = 1u,
        .collides_with = UINT32_MAX,
    };
    return def;
}

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* An orthonormal basis (axis1, axis2, up). For an axis-aligned up, axis1 and
   axis2 are world axes, so the grid and the SVG see plain coordinates. */
static void make_basis(skim_crowd *c)
{
    float u[3] = { c->def.move.up.x, c->def.move.up.y, c->def.move.up.z };
    float len = sqrtf(dot3(u, u));
    for (int k = 0; k < 3; ++k)
        c->up[k] = u[k] / len;
    /* Start from the world axis least aligned with up. */
    int least = 0;
    for (int k = 1; k < 3; ++k)
        if (fabsf(c->up[k]) < fabsf(c->up[least]))
            least = k;
    float a[3] = { 0, 0, 0 };
    a[least] = 1.0f;
    float d = dot3(a, c->up);
    for (int k = 0; k < 3; ++k)
        a[k] -= d * c->up[k];
    len = sqrtf(dot3(a, a));
    for (int k = 0; k < 3; ++k)
        c->axis1[k] = a[k] / len;
    c->axis2[0] = c->up[1] * c->axis1[2] - c->up[2] * c->axis1[1];
    c->axis2[1] = c->up[2] * c->axis1[0] - c->up[0] * c->axis1[2];
    c->axis2[2] = c->up[0] * c->axis1[1] - c->up[1] * c->axis1[0];
}

static skim_status check_def(const skim_crowd_def *def)
{
    if (skim_all_zero(def, sizeof *def))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "crowd def: all zeros (zero-initialised); start from "
                         "skim_crowd_def_default() or pass NULL");
    if (def->capacity < 1 || def->capacity > (1u << 28))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "crowd def: capacity must be 1..%u (got %u)", 1u << 28, def->capacity);
    skim_vec3 up = def->move.up;
    double len = sqrt((double)up.x * up.x + (double)up.y * up.y + (double)up.z * up.z);
    if (!skim_finite3(up) || fabs(len - 1.0) > 1e-3)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "crowd def: move.up must be a unit vector");
    if (!isfinite(def->gravity) || def->gravity < 0.0f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "crowd def: gravity must be finite and >= 0");
    if (def->solver_iterations < 1 || def->solver_iterations > 64)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "crowd def: solver_iterations must be 1..64 (got %d)", def->solver_iterations);
    if (!isfinite(def->agent_skin) || def->agent_skin < 0.0f || def->agent_skin > 1.0f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "crowd def: agent_skin must be in [0, 1]");
    if (!(def->avoidance_horizon > 0.0f && def->avoidance_horizon <= 60.0f))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "crowd def: avoidance_horizon must be in (0, 60] seconds (got %g)",
                         (double)def->avoidance_horizon);
    if (def->avoidance_interval < 1 || def->avoidance_interval > CROWD_AVOID_INTERVAL_MAX)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "crowd def: avoidance_interval must be 1..%u steps (got %u)",
                         CROWD_AVOID_INTERVAL_MAX, def->avoidance_interval);
    /* Everything else about the move def is the move's to judge: a def it
       rejects would make every step fail. */
    return skim_move_check_def(&def->move, "crowd def: move");
}

skim_status skim_crowd_create(const skim_crowd_def *def, skim_crowd **out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_create: out is NULL");
    *out = NULL;
    skim_crowd_def defaults = skim_crowd_def_default();
    if (!def)
        def = &defaults;
    skim_status status = check_def(def);
    if (status != SKIM_OK)
        return status;
    skim_crowd *c = calloc(1, sizeof *c);
    if (!c)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_create: out of memory");
    c->def = *def;
    c->capacity = def->capacity;
    make_basis(c);
    size_t n = c->capacity;
    bool ok = true;
#define ALLOC(field, count) ok = ok && (c->field = calloc((count), sizeof *c->field)) != NULL
    ALLOC(slot_of, n); ALLOC(id_of, n); ALLOC(public_position, n); ALLOC(public_velocity, n); ALLOC(public_state, n);
    ALLOC(position, n); ALLOC(velocity, n); ALLOC(floor_normal, n);
    ALLOC(state, n); ALLOC(shape, n); ALLOC(goal, n);
    ALLOC(avoid_pref, 2 * n); ALLOC(avoid_velocity, 2 * n); ALLOC(avoid_top, n); ALLOC(along, n); ALLOC(sense, n); ALLOC(height, n);
    ALLOC(setting, n); ALLOC(layers, n); ALLOC(collides_with, n); ALLOC(support, n);
    ALLOC(ride, n); ALLOC(shifted, n); ALLOC(squeezed, n); ALLOC(avoid_held, n);
    ALLOC(rest, n); ALLOC(rest_kept, n);
    ALLOC(settings, CROWD_SETTINGS_START); ALLOC(setting_defs, 2 * CROWD_SETTINGS_START); ALLOC(batch_def_of, n); ALLOC(batch_agent, n);
    c->setting_count = 1; /* entry 0, zeroed: the crowd's own */
    c->setting_capacity = CROWD_SETTINGS_START;
    size_t body_bytes = (n * sizeof *c->body + 63) / 64 * 64; /* aligned_alloc wants a multiple */
    ok = ok && (c->body = aligned_alloc(64, body_bytes)) != NULL;
    if (ok)
        memset(c->body, 0, body_bytes);
    ALLOC(active, n); ALLOC(order, n); ALLOC(order_key, n);
    ALLOC(start, 3 * n); ALLOC(planned, 3 * n); ALLOC(q, 3 * n);
    ALLOC(q_next, 3 * n); ALLOC(final, 3 * n); ALLOC(world_end, 3 * n); ALLOC(lambda, n); ALLOC(lambda_next, n);
    ALLOC(free_path, n); ALLOC(proj, 3 * n); ALLOC(reach, n); ALLOC(vreach, n);
    ALLOC(margin, n); ALLOC(radius, n); ALLOC(inverse_mass, n); ALLOC(leaning, n); ALLOC(pushed, n);
    ALLOC(grounded, n); ALLOC(rest_now, n); ALLOC(check_changed, n); ALLOC(work, n); ALLOC(solver_mark, n); ALLOC(moved, n); ALLOC(check_next, n); ALLOC(check_stamp, n); ALLOC(result, n); ALLOC(group_index, n); ALLOC(batch_shape, n);
    ALLOC(batch_position, n); ALLOC(batch_displacement, n); ALLOC(batch_result, n);
    ALLOC(cell, 2 * n); ALLOC(contact_begin, n + 1); ALLOC(contact_fill, n);
    ok = ok && crowd_reorder_init(c);
    ALLOC(bound, n); ALLOC(vbound, n); ALLOC(built_proj, 3 * n); ALLOC(half_begin, n + 1);
    ALLOC(contact_bound, n); ALLOC(next_contact_bound, n); ALLOC(listed_proj, 3 * n);
    ALLOC(chunk_drift, team_chunks(c->capacity, CROWD_AGENT_CHUNK));
    ALLOC(chunk_standing, team_chunks(c->capacity, CROWD_AGENT_CHUNK));
    ALLOC(chunk_resting, team_chunks(c->capacity, CROWD_AGENT_CHUNK));
    ALLOC(chunk_stats, team_chunks(c->capacity, CROWD_COMMIT_CHUNK));
#undef ALLOC
    ok = ok && (c->phases = aligned_alloc(64, TEAM_PHASES * sizeof *c->phases)) != NULL;
    if (ok) /* zero between regions (crowd_clear_region) */
        memset(c->phases, 0, TEAM_PHASES * sizeof *c->phases);
    if (!ok) {
        skim_crowd_destroy(c);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_create: out of memory for %u agents",
                         c->capacity);
    }
    crowd_slots_init(c);
    c->stats.closest_gap = INFINITY;
    *out = c;
    return SKIM_OK;
}

void skim_crowd_destroy(skim_crowd *c)
{
    if (!c)
        return;
    void *fields[] = { c->slot_of, c->id_of, c->public_position, c->public_velocity, c->public_state,
                       c->position, c->velocity, c->floor_normal, c->state, c->shape, c->body,
                       c->active, c->order, c->order_key, c->start, c->planned, c->q, c->q_next, c->final, c->world_end, c->lambda, c->lambda_next,
                       c->free_path, c->proj, c->reach,
                       c->vreach, c->margin, c->radius, c->inverse_mass, c->leaning, c->pushed, c->grounded, c->rest_now, c->check_changed, c->work, c->solver_mark, c->moved, c->check_next, c->check_stamp,
                       c->result, c->group_index, c->batch_shape, c->batch_position,
                       c->batch_displacement, c->batch_result, c->cell,
                       c->bucket_start, c->contacts, c->contact_begin, c->contact_fill, c->bound,
                       c->vbound, c->built_proj, c->contact_bound, c->next_contact_bound, c->listed_proj,
                       c->chunk_drift, c->chunk_standing, c->chunk_resting, c->half_begin, c->half_other, c->phases, c->chunk_stats,
                       c->avoid_pref, c->avoid_velocity, c->avoid_top, c->along, c->sense, c->height,
                       c->sense_grid.member_block, c->sense_grid.bucket_start, c->sense_grid.key,
                       c->sense_grid.home, c->setting, c->layers, c->collides_with, c->support, c->settings,
                       c->setting_defs, c->batch_def_of, c->batch_agent, c->ride, c->shifted, c->squeezed, c->avoid_held, c->rest, c->rest_kept, c->seen,
                       c->moved_bodies };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
        free(fields[i]);
    skim_move_cache_release(&c->world_cache);
    crowd_slots_release(c);
    crowd_reorder_release(c);
    crowd_clear_release(&c->clear);
    skim_box_index_free(&c->moved_boxes);
    for (uint32_t id = 0; c->goal && id < c->capacity; ++id)
        free(c->goal[id].points);
    free(c->goal);
    for (int t = 0; t < c->index_buffer_count; ++t)
        free(c->index_buffers[t].items);
    free(c->index_buffers);
    for (int t = 0; t < c->near_buffer_count; ++t)
        free(c->near_buffers[t].items);
    free(c->near_buffers);
    free(c);
}

/* Each coordinate finite and within SKIM_CROWD_LIMIT. */
static bool within_limit(skim_vec3 v)
{
    return fabsf(v.x) <= SKIM_CROWD_LIMIT && fabsf(v.y) <= SKIM_CROWD_LIMIT && fabsf(v.z) <= SKIM_CROWD_LIMIT;
}


/* The cylinder that holds the ellipsoid: its half extent along a unit
   direction a is |M^T a| with M = R S (the shape maps the unit sphere by M),
   so the half height is |M^T up|, and the radius across up is the largest
   |M^T a| over unit a across up: the square root of the largest eigenvalue
   of the 2x2 matrix G = [a_i . M M^T a_j] over the two across-up axes. */
static void bounding_cylinder(const skim_crowd *c, const skim_ellipsoid *shape, float *radius,
                              float *half_height)
{
    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, shape);
    double mt[3][3]; /* M^T */
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            mt[i][j] = space.to_world[j][i];
    double v[3][3]; /* M^T applied to axis1, axis2, up */
    const float *axes[3] = { c->axis1, c->axis2, c->up };
    for (int a = 0; a < 3; ++a)
        for (int i = 0; i < 3; ++i)
            v[a][i] = mt[i][0] * axes[a][0] + mt[i][1] * axes[a][1] + mt[i][2] * axes[a][2];
    double g11 = 0, g12 = 0, g22 = 0, hh = 0;
    for (int i = 0; i < 3; ++i) {
        g11 += v[0][i] * v[0][i];
        g12 += v[0][i] * v[1][i];
        g22 += v[1][i] * v[1][i];
        hh += v[2][i] * v[2][i];
    }
    double mean = 0.5 * (g11 + g22), diff = 0.5 * (g11 - g22);
    double largest = mean + sqrt(diff * diff + g12 * g12);
    /* Rounded up by a hair so the cylinder really holds the shape. */
    *radius = (float)(sqrt(largest) * (1.0 + 1e-6));
    *half_height = (float)(sqrt(hh) * (1.0 + 1e-6));
}

skim_status skim_crowd_add(skim_crowd *c, const skim_agent_def *agent, uint32_t *out_id)
{
    if (!c || !agent || !out_id)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_add: crowd, agent or out_id is NULL");
    if (skim_all_zero(agent, sizeof *agent))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_crowd_add: the agent def is all zeros (zero-initialised); start "
                         "from skim_agent_def_default()");
    skim_status status = skim_check_ellipsoid(&agent->shape, "agent shape");
    if (status != SKIM_OK)
        return status;
    if (!within_limit(agent->position))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_crowd_add: position must be finite and within %g of the origin", SKIM_CROWD_LIMIT);
    const skim_vec3 r = agent->shape.radii;
    if (!(agent->radius >= 0.0f && agent->radius <= SKIM_CROWD_LIMIT) ||
        !(agent->half_height >= 0.0f && agent->half_height <= SKIM_CROWD_LIMIT) || r.x > SKIM_CROWD_LIMIT ||
        r.y > SKIM_CROWD_LIMIT || r.z > SKIM_CROWD_LIMIT)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_crowd_add: radius, half_height and shape radii must be in [0, %g]",
                         SKIM_CROWD_LIMIT);
    if (!isfinite(agent->inverse_mass) || agent->inverse_mass < 0.0f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_crowd_add: inverse_mass must be finite and >= 0");
    if (agent->flags & ~(uint32_t)(SKIM_AGENT_NO_GRAVITY | SKIM_AGENT_GHOST | SKIM_AGENT_STAYS_ON_FLOOR))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_add: unknown flags 0x%x",
                         agent->flags);
    status = crowd_check_agent_settings(agent);
    if (status != SKIM_OK)
        return status;
    if (c->count == c->capacity)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_add: the crowd is full (%u agents)",
                         c->capacity);
    uint32_t id = c->lowest_free_hint;
    while (c->public_state[id] & SKIM_AGENT_ACTIVE)
        ++id;
    const uint32_t slot = c->slot_of[id]; /* a free id's slot is free */
    if (!crowd_take_settings(c, slot, agent))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_add: out of memory for the agent's settings");
    c->lowest_free_hint = id + 1;
    float radius, half_height;
    bounding_cylinder(c, &agent->shape, &radius, &half_height);
    c->body[slot].radius = agent->radius > 0.0f ? agent->radius : radius;
    c->body[slot].half_height = agent->half_height > 0.0f ? agent->half_height : half_height;
    c->shape[slot] = agent->shape;
    c->position[slot] = agent->position;
    c->velocity[slot] = (skim_vec3){ 0, 0, 0 };
    c->body[slot].desired = (skim_vec3){ 0, 0, 0 };
    c->floor_normal[slot] = (skim_vec3){ 0, 0, 0 };
    c->body[slot].vertical_speed = 0.0f;
    c->body[slot].inverse_mass = agent->inverse_mass;
    c->body[slot].flags = agent->flags;
    c->state[slot] = SKIM_AGENT_ACTIVE;
    c->ride[slot].body = SKIM_STATIC;
    c->avoid_held[slot] = 0;
    c->rest_kept[slot] = 0;
    crowd_publish(c, slot);
    c->count++;
    c->active_dirty = true;
    *out_id = id;
    return SKIM_OK;
}

skim_status skim_crowd_remove(skim_crowd *c, uint32_t id)
{
    uint32_t slot = 0;
    skim_status status = crowd_agent_slot(c, id, "skim_crowd_remove", &slot);
    if (status != SKIM_OK)
        return status;
    crowd_goal_clear(c, slot);
    crowd_drop_settings(c, slot);
    c->state[slot] = 0;
    crowd_publish(c, slot);
    c->count--;
    if (id < c->lowest_free_hint)
        c->lowest_free_hint = id;
    c->active_dirty = true;
    return SKIM_OK;
}

skim_status skim_crowd_set_velocity(skim_crowd *c, uint32_t id, skim_vec3 desired)
{
    uint32_t slot = 0;
    skim_status status = crowd_agent_slot(c, id, "skim_crowd_set_velocity", &slot);
    if (status != SKIM_OK)
        return status;
    if (!within_limit(desired))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_crowd_set_velocity: velocity must be finite and within %g per second",
                         SKIM_CROWD_LIMIT);
    if (!(c->body[slot].flags & SKIM_AGENT_NO_GRAVITY)) {
        /* Walkers move across up only; vertical motion is gravity's and jumps'. */
        float v[3] = { desired.x, desired.y, desired.z };
        float along = dot3(v, c->up);
        desired.x -= along * c->up[0];
        desired.y -= along * c->up[1];
        desired.z -= along * c->up[2];
    }
    c->body[slot].desired = desired;
    c->avoid_held[slot] = 0; /* a new wish is taken at once */
    crowd_goal_clear(c, slot);
    crowd_publish(c, slot);
    return SKIM_OK;
}

skim_status skim_crowd_jump(skim_crowd *c, uint32_t id, float height, bool *jumped)
{
    if (jumped)
        *jumped = false;
    uint32_t slot = 0;
    skim_status status = crowd_agent_slot(c, id, "skim_crowd_jump", &slot);
    if (status != SKIM_OK)
        return status;
    if (!isfinite(height) || height < 0.0f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_jump: height must be finite and >= 0");
    if (c->def.gravity <= 0.0f || (c->body[slot].flags & SKIM_AGENT_NO_GRAVITY))
        return SKIM_OK;
    if (!(c->state[slot] & (SKIM_AGENT_ON_FLOOR | SKIM_AGENT_ON_AGENT)))
        return SKIM_OK;
    /* v^2 = 2 g h: the speed at which gravity stops the rise after h. */
    double speed = sqrt(2.0 * (double)c->def.gravity * (double)height);
    if (!(speed <= SKIM_CROWD_LIMIT))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_crowd_jump: a jump of %g needs %g per second, beyond %g", (double)height, speed,
                         SKIM_CROWD_LIMIT);
    c->body[slot].vertical_speed = (float)speed;
    c->state[slot] &= ~(uint32_t)(SKIM_AGENT_ON_FLOOR | SKIM_AGENT_ON_AGENT);
    crowd_publish(c, slot);
    if (jumped)
        *jumped = true;
    return SKIM_OK;
}

skim_status skim_crowd_teleport(skim_crowd *c, uint32_t id, skim_vec3 position)
{
    uint32_t slot = 0;
    skim_status status = crowd_agent_slot(c, id, "skim_crowd_teleport", &slot);
    if (status != SKIM_OK)
        return status;
    if (!within_limit(position))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_crowd_teleport: position must be finite and within %g of the origin",
                         SKIM_CROWD_LIMIT);
    c->position[slot] = position;
    c->velocity[slot] = (skim_vec3){ 0, 0, 0 };
    c->body[slot].vertical_speed = 0.0f;
    c->state[slot] = SKIM_AGENT_ACTIVE;
    c->ride[slot].body = SKIM_STATIC;
    crowd_publish(c, slot);
    return SKIM_OK;
}

skim_status skim_crowd_get_agent(const skim_crowd *c, uint32_t id, skim_agent_info *out)
{
    uint32_t slot = 0;
    skim_status status = crowd_agent_slot(c, id, "skim_crowd_get_agent", &slot);
    if (status != SKIM_OK)
        return status;
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_get_agent: out is NULL");
    out->position = c->position[slot];
    out->velocity = c->velocity[slot];
    out->desired_velocity = c->body[slot].desired;
    out->state = c->state[slot];
    out->floor_normal = c->floor_normal[slot];
    out->radius = c->body[slot].radius;
    out->half_height = c->body[slot].half_height;
    out->floor_body = c->ride[slot].body;
    return SKIM_OK;
}

uint32_t skim_crowd_count(const skim_crowd *c) { return c ? c->count : 0; }
uint32_t skim_crowd_capacity(const skim_crowd *c) { return c ? c->capacity : 0; }
const skim_vec3 *skim_crowd_positions(const skim_crowd *c) { return c ? c->public_position : NULL; }
const skim_vec3 *skim_crowd_velocities(const skim_crowd *c) { return c ? c->public_velocity : NULL; }
const uint32_t *skim_crowd_states(const skim_crowd *c) { return c ? c->public_state : NULL; }

static uint64_t fnv_bytes(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t skim_crowd_hash(const skim_crowd *c)
{
    uint64_t h = 14695981039346656037ull;
    if (!c)
        return h;
    for (uint32_t id = 0; id < c->capacity; ++id) {
        if (!(c->public_state[id] & SKIM_AGENT_ACTIVE))
            continue;
        const uint32_t slot = c->slot_of[id];
        h = fnv_bytes(h, &id, sizeof id);
        h = fnv_bytes(h, &c->position[slot], sizeof c->position[slot]);
        h = fnv_bytes(h, &c->velocity[slot], sizeof c->velocity[slot]);
        h = fnv_bytes(h, &c->body[slot].vertical_speed, sizeof c->body[slot].vertical_speed);
        h = fnv_bytes(h, &c->state[slot], sizeof c->state[slot]);
    }
    return h;
}

skim_status skim_crowd_get_stats(const skim_crowd *c, skim_crowd_stats *out)
{
    if (!c || !out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_crowd_get_stats: crowd or out is NULL");
    *out = c->stats;
    return SKIM_OK;
}
