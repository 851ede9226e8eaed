/* The level scenario: a real level's standing spots (the ones `skim crowd`
   uses), each agent with a goal it reaches alone walking straight at it. */
#include "crowd_scenario.h"
#include "tool_spots.h"

#include <skim/skim_mesh_io.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOAL_NEAREST 192.0f  /* goals 12 to 48 radii away */
#define GOAL_FARTHEST 768.0f
#define GOAL_ROUNDS 4        /* tries at a goal a lone agent reaches */
#define LEVEL_LIMIT 20.0     /* seconds */
#define FRAME_DT (1.0f / 60.0f)

static bool copy_mesh(crowd_scenario *s, const skim_mesh_data *m)
{
    s->positions = malloc((size_t)m->vertex_count * 3 * sizeof *s->positions);
    s->indices = malloc((size_t)m->triangle_count * 3 * sizeof *s->indices);
    if (!s->positions || !s->indices)
        return false;
    memcpy(s->positions, m->positions, (size_t)m->vertex_count * 3 * sizeof *s->positions);
    memcpy(s->indices, m->indices, (size_t)m->triangle_count * 3 * sizeof *s->indices);
    s->vertex_count = m->vertex_count;
    s->triangle_count = m->triangle_count;
    return true;
}

/* A spot 12 to 48 radii from spot i, other than i (i itself after 64 misses). */
static uint32_t pick_goal(const skim_vec3 *spots, uint32_t count, uint32_t i, uint64_t *random)
{
    for (int attempt = 0; attempt < 64; ++attempt) {
        uint32_t j = (uint32_t)(scenario_random(random) % count);
        float dx = spots[j].x - spots[i].x, dy = spots[j].y - spots[i].y, d = sqrtf(dx * dx + dy * dy);
        if (j != i && d >= GOAL_NEAREST && d <= GOAL_FARTHEST)
            return j;
    }
    return i;
}

/* One round: every agent still without a goal walks alone (agents pass
   through each other) straight at its candidate for the time the farthest
   goal takes, twice over; those that get there keep it. */
static bool try_goals(crowd_scenario *s, const uint32_t *candidate, const skim_vec3 *spots, bool *has_goal)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = s->agents;
    def.agent_collisions = false;
    skim_crowd *crowd = NULL;
    if (skim_crowd_create(&def, &crowd) != SKIM_OK)
        return false;
    for (uint32_t i = 0; i < s->agents; ++i) {
        skim_agent_def a = skim_agent_def_default();
        a.position = s->starts[i];
        a.flags = s->agent_flags;
        uint32_t id;
        if (skim_crowd_add(crowd, &a, &id) != SKIM_OK) {
            skim_crowd_destroy(crowd);
            return false;
        }
    }
    bool *reached = calloc(s->agents, sizeof *reached);
    const int frames = (int)ceilf(2.0f * GOAL_FARTHEST / SCENARIO_SPEED / FRAME_DT);
    for (int frame = 0; frame < frames && reached; ++frame) {
        const skim_vec3 *p = skim_crowd_positions(crowd);
        for (uint32_t i = 0; i < s->agents; ++i) {
            skim_vec3 goal = spots[candidate[i]];
            float dx = goal.x - p[i].x, dy = goal.y - p[i].y, d = sqrtf(dx * dx + dy * dy);
            if (has_goal[i] || reached[i] || d <= SCENARIO_ARRIVAL) {
                reached[i] |= !has_goal[i] && fabsf(goal.z - p[i].z) <= 2.0f * SCENARIO_RADIUS;
                skim_crowd_set_velocity(crowd, i, (skim_vec3){ 0, 0, 0 });
                continue;
            }
            float speed = fminf(SCENARIO_SPEED, d / FRAME_DT);
            skim_crowd_set_velocity(crowd, i, (skim_vec3){ dx / d * speed, dy / d * speed, 0 });
        }
        if (skim_crowd_step(s->world, crowd, FRAME_DT) != SKIM_OK)
            break;
    }
    for (uint32_t i = 0; i < s->agents && reached; ++i)
        if (reached[i]) {
            has_goal[i] = true;
            s->way[(size_t)i * SCENARIO_MAX_WAY] = spots[candidate[i]];
            s->way_count[i] = 1;
        }
    skim_crowd_destroy(crowd);
    bool ok = reached != NULL;
    free(reached);
    return ok;
}

static bool level_agents(crowd_scenario *s, uint32_t agents, uint64_t seed)
{
    uint32_t count = 0;
    skim_vec3 *spots = tool_find_spots(s->world, &count);
    if (!spots || count < 2) {
        free(spots);
        return false;
    }
    uint64_t random = seed ^ 0x6c6576656cull;
    for (uint32_t i = count - 1; i > 0; --i) {
        uint32_t j = (uint32_t)(scenario_random(&random) % (i + 1));
        skim_vec3 t = spots[i];
        spots[i] = spots[j], spots[j] = t;
    }
    if (!agents || agents > count)
        agents = count;
    s->agents = agents;
    s->starts = malloc((size_t)agents * sizeof *s->starts);
    s->way = calloc((size_t)agents * SCENARIO_MAX_WAY, sizeof *s->way);
    s->way_count = calloc(agents, sizeof *s->way_count);
    s->straight_seconds = calloc(agents, sizeof *s->straight_seconds);
    uint32_t *candidate = malloc((size_t)agents * sizeof *candidate);
    bool *has_goal = calloc(agents, sizeof *has_goal);
    bool ok = s->starts && s->way && s->way_count && s->straight_seconds && candidate && has_goal;
    if (ok)
        memcpy(s->starts, spots, (size_t)agents * sizeof *s->starts);
    /* Goals among all the level's spots, taken or not: a goal where another
       agent stands is one it has to make room at. */
    for (int round = 0; round < GOAL_ROUNDS && ok; ++round) {
        for (uint32_t i = 0; i < agents; ++i)
            candidate[i] = pick_goal(spots, count, i, &random);
        ok = try_goals(s, candidate, spots, has_goal);
    }
    for (uint32_t i = 0; i < agents && ok; ++i)
        if (s->way_count[i])
            s->straight_seconds[i] = hypot((double)s->way[(size_t)i * SCENARIO_MAX_WAY].x - s->starts[i].x,
                                           (double)s->way[(size_t)i * SCENARIO_MAX_WAY].y - s->starts[i].y) /
                                     SCENARIO_SPEED;
    free(candidate);
    free(has_goal);
    free(spots);
    return ok;
}

bool scenario_level(const char *scene, uint32_t agents, uint64_t seed, uint32_t agent_flags, crowd_scenario *s,
                    bool *missing)
{
    memset(s, 0, sizeof *s);
    s->agent_flags = agent_flags;
    *missing = false;
    snprintf(s->name, sizeof s->name, "level_%s", scene);
    const char *dir = getenv("SKIM_SCENES_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.obj", dir ? dir : "", scene);
    FILE *probe = dir ? fopen(path, "rb") : NULL;
    if (!probe) {
        *missing = true;
        return false;
    }
    fclose(probe);
    skim_mesh_data mesh;
    if (skim_mesh_load_obj(path, &mesh) != SKIM_OK) {
        fprintf(stderr, "%s: %s\n", path, skim_last_error_message());
        return false;
    }
    bool ok = copy_mesh(s, &mesh);
    skim_mesh_data_free(&mesh);
    s->time_limit = LEVEL_LIMIT;
    return ok && scenario_make_world(s) && level_agents(s, agents, seed);
}
