/* What the level tests share: oa_dm1 from SKIM_SCENES_DIR, the spots the
   CLI would place agents on, and a crowd on every spot walking to goals. */
#ifndef SKIM_TEST_CROWD_LEVEL_SETUP_H
#define SKIM_TEST_CROWD_LEVEL_SETUP_H

#include "crowd_scenarios.h"

#include <skim/skim_mesh_io.h>

#include <criterion/criterion.h>

/* Sanitizer builds walk a quarter of the time (twenty seconds of this
   crowd take minutes there) and assert only that no two agents overlap. */
#ifndef SKIM_CROWD_TEST_SCALE
#define SKIM_CROWD_TEST_SCALE 1
#endif

/* Spots on walkable ground, as the CLI finds them: on columns 2r + 4
   apart, each probed from several heights (a free start swept down to a
   floor), kept where each of the four neighbouring columns has ground within
   a step, where sweeps across the level in eight directions all meet
   something (walled in), and, in a level roofed almost everywhere, only
   roofed spots. */
enum { PER_COLUMN = 4 };

static inline bool walled_in(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 spot, float reach)
{
    for (int d = 0; d < 8; ++d) {
        skim_hit hit;
        skim_vec3 delta = { reach * cosf(0.785398163f * (float)d), reach * sinf(0.785398163f * (float)d), 0 };
        if (skim_sweep(world, shape, spot, delta, NULL, &hit) != SKIM_OK || !hit.hit)
            return false;
    }
    return true;
}

static inline uint32_t find_spots(const skim_world *world, skim_vec3 *spots, uint32_t most)
{
    skim_world_stats s;
    skim_world_get_stats(world, &s);
    const float r = AGENT_R, spacing = 2.0f * r + 4.0f, level_step = 64.0f;
    const long nx = (long)((s.bounds_max.x - s.bounds_min.x - 2.0f * r) / spacing);
    const long ny = (long)((s.bounds_max.y - s.bounds_min.y - 2.0f * r) / spacing);
    const int levels = 1 + (int)ceilf((s.bounds_max.z - s.bounds_min.z) / level_step);
    const skim_ellipsoid shape = { { r, r, r }, { 0, 0, 0, 1 } };
    skim_vec3 *found = calloc((size_t)(nx * ny * PER_COLUMN), sizeof *found);
    uint8_t *count = calloc((size_t)(nx * ny), 1), *keep = calloc((size_t)(nx * ny * PER_COLUMN), 1);
    cr_assert(found && count && keep);
#pragma omp parallel for schedule(dynamic, 16)
    for (long column = 0; column < nx * ny; ++column) {
        float x = s.bounds_min.x + r + 2.0f + spacing * (float)(column % nx);
        float y = s.bounds_min.y + r + 2.0f + spacing * (float)(column / nx);
        for (int level = 0; level < levels && count[column] < PER_COLUMN; ++level) {
            skim_vec3 start = { x, y, s.bounds_max.z + r + 2.0f - level_step * (float)level };
            skim_hit hit;
            if (skim_sweep(world, &shape, start, (skim_vec3){ 0, 0, -0.01f }, NULL, &hit) != SKIM_OK || hit.hit)
                continue;
            skim_vec3 down = { 0, 0, -(start.z - s.bounds_min.z + r) };
            if (skim_sweep(world, &shape, start, down, NULL, &hit) != SKIM_OK || !hit.hit || hit.normal.z < 0.7f)
                continue;
            skim_vec3 spot = { x, y, start.z + hit.t * down.z + 1.0f };
            bool seen = false;
            for (int k = 0; k < count[column]; ++k)
                seen |= fabsf(found[column * PER_COLUMN + k].z - spot.z) < 2.0f * r + 2.0f;
            if (!seen)
                found[column * PER_COLUMN + count[column]++] = spot;
        }
    }
    const float reach = (s.bounds_max.x - s.bounds_min.x) + (s.bounds_max.y - s.bounds_min.y);
#pragma omp parallel for schedule(dynamic, 16)
    for (long column = 0; column < nx * ny; ++column) {
        long cx = column % nx, cy = column / nx;
        for (int k = 0; k < count[column]; ++k) {
            skim_vec3 spot = found[column * PER_COLUMN + k];
            bool ground = true;
            const long around[4][2] = { { cx - 1, cy }, { cx + 1, cy }, { cx, cy - 1 }, { cx, cy + 1 } };
            for (int d = 0; d < 4 && ground; ++d) {
                long ax = around[d][0], ay = around[d][1];
                bool near = false;
                if (ax >= 0 && ax < nx && ay >= 0 && ay < ny)
                    for (int m = 0; m < count[ay * nx + ax]; ++m)
                        near |= fabsf(found[(ay * nx + ax) * PER_COLUMN + m].z - spot.z) <= 18.0f;
                ground = near;
            }
            uint8_t mark = ground && walled_in(world, &shape, spot, reach);
            skim_hit hit;
            if (mark && skim_sweep(world, &shape, spot, (skim_vec3){ 0, 0, s.bounds_max.z - spot.z + 2.0f * r }, NULL,
                                   &hit) == SKIM_OK && hit.hit)
                mark = 2;
            keep[column * PER_COLUMN + k] = mark;
        }
    }
    long walled = 0, roofed = 0;
    for (long k = 0; k < nx * ny * PER_COLUMN; ++k) {
        walled += keep[k] != 0;
        roofed += keep[k] == 2;
    }
    const uint8_t needed = roofed * 2 > walled ? 2 : 1;
    uint32_t total = 0;
    for (long column = 0; column < nx * ny; ++column)
        for (int k = 0; k < count[column] && total < most; ++k)
            if (keep[column * PER_COLUMN + k] >= needed)
                spots[total++] = found[column * PER_COLUMN + k];
    free(found);
    free(count);
    free(keep);
    return total;
}

/* Whether an agent at a walks to b in a straight line: nothing in the way
   at its height, and floor within a step under every point on the way. */
static inline bool straight_walk(const skim_world *world, skim_vec3 a, skim_vec3 b)
{
    const skim_ellipsoid shape = { { AGENT_R, AGENT_R, AGENT_R }, { 0, 0, 0, 1 } };
    skim_hit hit;
    skim_vec3 lifted = { a.x, a.y, a.z + 2.0f };
    if (fabsf(a.z - b.z) > 1.0f ||
        skim_sweep(world, &shape, lifted, (skim_vec3){ b.x - a.x, b.y - a.y, 0 }, NULL, &hit) != SKIM_OK || hit.hit)
        return false;
    float length = hypotf(b.x - a.x, b.y - a.y);
    for (float t = 0.0f; t <= length; t += AGENT_R) {
        skim_vec3 p = { a.x + (b.x - a.x) * t / length, a.y + (b.y - a.y) * t / length, a.z + 2.0f };
        if (skim_sweep(world, &shape, p, (skim_vec3){ 0, 0, -20.0f }, NULL, &hit) != SKIM_OK || !hit.hit)
            return false;
    }
    return true;
}

/* oa_dm1 and its spots; false (the test then skips) without the scene. */
typedef struct level {
    skim_mesh_data data;
    skim_world    *world;
    skim_vec3     *spots;
    uint32_t       count;
} level;

static inline bool load_level(level *l)
{
    const char *dir = getenv("SKIM_SCENES_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/oa_dm1.obj", dir ? dir : ".");
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return false;
    fclose(probe);
    cr_assert_eq(skim_mesh_load_obj(path, &l->data), SKIM_OK, "%s", skim_last_error_message());
    skim_mesh mesh = skim_mesh_data_view(&l->data);
    l->world = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &l->world), SKIM_OK, "%s", skim_last_error_message());
    enum { MOST = 4000 };
    l->spots = malloc(MOST * sizeof *l->spots);
    cr_assert(l->spots);
    l->count = find_spots(l->world, l->spots, MOST);
    cr_assert_gt(l->count, 500, "only %u spots found", l->count);
    return true;
}

static inline void free_level(level *l)
{
    free(l->spots);
    skim_world_destroy(l->world);
    skim_mesh_data_free(&l->data);
}

/* A crowd on every spot, agent k walking to spot goal[k] (none for
   UINT32_MAX) at speed units/s, run for 20 s (less in sanitizer builds):
   the agents with a goal that arrived. */
static inline uint32_t walk_to_goals(const level *l, const uint32_t *goal, float speed, const char *what,
                              uint32_t *with_goal, goal_run *run)
{
    skim_crowd *crowd = goal_crowd(l->count);
    *with_goal = 0;
    for (uint32_t k = 0; k < l->count; ++k)
        cr_assert_eq(goal_agent(crowd, l->spots[k]), k);
    for (uint32_t k = 0; k < l->count; ++k)
        if (goal[k] != UINT32_MAX) {
            cr_assert_eq(skim_crowd_set_target(crowd, k, l->spots[goal[k]], speed, AGENT_R), SKIM_OK);
            (*with_goal)++;
        }
    cr_assert_gt(*with_goal, l->count / 2, "only %u of %u agents have a straight-line goal", *with_goal, l->count);
    /* Those without one stand where they are. */
    const double limit = 20.0 / SKIM_CROWD_TEST_SCALE;
    run_goals(l->world, crowd, 1.0f / 60.0f, limit, run);
    uint32_t arrived = 0;
    for (uint32_t k = 0; k < l->count; ++k)
        arrived += run->arrival[k] <= limit;
    print_run(what, run, arrived, 0.0);
    skim_crowd_destroy(crowd);
    return arrived;
}

#endif /* SKIM_TEST_CROWD_LEVEL_SETUP_H */
