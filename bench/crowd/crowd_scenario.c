/* The circle and door scenarios: flat floors of 256-unit tiles (a level's
   triangles are about that size), walls as boxes. */
#include "crowd_scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE 256.0f
#define SCENARIO_PI 3.14159265358979323846
#define WALL_HEIGHT 128.0f
#define WALL_HALF_THICKNESS 8.0f
/* The doorway: three agents abreast and a little room for the skin. */
#define DOOR_HALF_WIDTH (3.0f * SCENARIO_RADIUS + 2.0f)

uint64_t scenario_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double scenario_unit(uint64_t *state)
{
    return (double)(scenario_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

static bool add_vertex(crowd_scenario *s, uint32_t *capacity, float x, float y, float z)
{
    if (s->vertex_count == *capacity) {
        uint32_t grown = *capacity ? 2 * *capacity : 1024;
        float *p = realloc(s->positions, (size_t)grown * 3 * sizeof *p);
        if (!p)
            return false;
        s->positions = p, *capacity = grown;
    }
    float *v = s->positions + 3 * (size_t)s->vertex_count++;
    v[0] = x, v[1] = y, v[2] = z;
    return true;
}

typedef struct mesh_room { uint32_t vertices, triangles; } mesh_room;

/* A quad a-b-c-d, counter-clockwise seen from where it faces. */
static bool add_quad(crowd_scenario *s, mesh_room *room, const float q[4][3])
{
    uint32_t first = s->vertex_count;
    for (int i = 0; i < 4; ++i)
        if (!add_vertex(s, &room->vertices, q[i][0], q[i][1], q[i][2]))
            return false;
    if (s->triangle_count + 2 > room->triangles) {
        uint32_t grown = room->triangles ? 2 * room->triangles : 1024;
        uint32_t *t = realloc(s->indices, (size_t)grown * 3 * sizeof *t);
        if (!t)
            return false;
        s->indices = t, room->triangles = grown;
    }
    const uint32_t tri[6] = { first, first + 1, first + 2, first, first + 2, first + 3 };
    memcpy(s->indices + 3 * (size_t)s->triangle_count, tri, sizeof tri);
    s->triangle_count += 2;
    return true;
}

/* The floor z = 0 over [x0, x1] x [y0, y1] in tiles. */
static bool add_floor(crowd_scenario *s, mesh_room *room, float x0, float y0, float x1, float y1)
{
    for (float x = x0; x < x1; x += TILE)
        for (float y = y0; y < y1; y += TILE) {
            float xe = fminf(x + TILE, x1), ye = fminf(y + TILE, y1);
            const float q[4][3] = { { x, y, 0 }, { xe, y, 0 }, { xe, ye, 0 }, { x, ye, 0 } };
            if (!add_quad(s, room, q))
                return false;
        }
    return true;
}

static bool add_box(crowd_scenario *s, mesh_room *room, float x0, float y0, float x1, float y1)
{
    const float z0 = 0.0f, z1 = WALL_HEIGHT;
    const float f[5][4][3] = {
        { { x0, y0, z1 }, { x1, y0, z1 }, { x1, y1, z1 }, { x0, y1, z1 } },
        { { x0, y0, z0 }, { x1, y0, z0 }, { x1, y0, z1 }, { x0, y0, z1 } },
        { { x1, y1, z0 }, { x0, y1, z0 }, { x0, y1, z1 }, { x1, y1, z1 } },
        { { x0, y1, z0 }, { x0, y0, z0 }, { x0, y0, z1 }, { x0, y1, z1 } },
        { { x1, y0, z0 }, { x1, y1, z0 }, { x1, y1, z1 }, { x1, y0, z1 } },
    };
    for (int i = 0; i < 5; ++i)
        if (!add_quad(s, room, f[i]))
            return false;
    return true;
}

static bool allocate_agents(crowd_scenario *s, uint32_t agents)
{
    s->agents = agents;
    s->starts = calloc(agents, sizeof *s->starts);
    s->way = calloc((size_t)agents * SCENARIO_MAX_WAY, sizeof *s->way);
    s->way_count = calloc(agents, sizeof *s->way_count);
    s->straight_seconds = calloc(agents, sizeof *s->straight_seconds);
    return s->starts && s->way && s->way_count && s->straight_seconds;
}

static double horizontal_distance(skim_vec3 a, skim_vec3 b)
{
    return hypot((double)b.x - a.x, (double)b.y - a.y);
}

/* Each agent's way length over the speed; returns the longest. */
static double straight_times(crowd_scenario *s)
{
    double longest = 0.0;
    for (uint32_t i = 0; i < s->agents; ++i) {
        double length = 0.0;
        skim_vec3 at = s->starts[i];
        for (uint32_t k = 0; k < s->way_count[i]; ++k) {
            skim_vec3 next = s->way[(size_t)i * SCENARIO_MAX_WAY + k];
            length += horizontal_distance(at, next);
            at = next;
        }
        s->straight_seconds[i] = length / SCENARIO_SPEED;
        longest = fmax(longest, s->straight_seconds[i]);
    }
    return longest;
}

uint32_t scenario_walkers(const crowd_scenario *s)
{
    uint32_t walkers = 0;
    for (uint32_t i = 0; i < s->agents; ++i)
        walkers += s->way_count[i] > 0;
    return walkers;
}

/* The circle's points 4 radii apart (twice the touching distance) along
   it. Each start is moved by up to 1% of the circle's radius along it and
   1% of the spacing across it: without that, ORCA's perfectly symmetric
   agents meet at the centre in a tie no side breaks (van den Berg et al.,
   Reciprocal n-Body Collision Avoidance, 6.1, perturb the velocities for
   the same reason). */
bool scenario_circle(uint32_t agents, uint64_t seed, crowd_scenario *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "circle");
    if (agents < 2 || !allocate_agents(s, agents))
        return false;
    const double spacing = 4.0 * SCENARIO_RADIUS;
    const double circle = fmax(agents * spacing / (2.0 * SCENARIO_PI), 4.0 * SCENARIO_RADIUS);
    uint64_t random = seed ^ 0x636972636c65ull;
    for (uint32_t i = 0; i < agents; ++i) {
        double angle = 2.0 * SCENARIO_PI * ((double)i + 0.01 * (2.0 * scenario_unit(&random) - 1.0)) / agents;
        double r = circle * (1.0 + 0.01 * (2.0 * scenario_unit(&random) - 1.0));
        float x = (float)(r * cos(angle)), y = (float)(r * sin(angle));
        s->starts[i] = (skim_vec3){ x, y, SCENARIO_RADIUS + 1.0f };
        s->way[(size_t)i * SCENARIO_MAX_WAY] = (skim_vec3){ -x, -y, SCENARIO_RADIUS + 1.0f };
        s->way_count[i] = 1;
    }
    s->time_limit = 2.0 * straight_times(s);
    float half = TILE * ceilf((float)(circle * 1.02 + 8.0 * SCENARIO_RADIUS) / TILE);
    mesh_room room = { 0 };
    return add_floor(s, &room, -half, -half, half, half);
}

/* A room split by a wall along x = 0 with a doorway in its middle; two
   blocks of agents 3 radii apart, one each side, each agent walking to its
   mirror image on the other side through the doorway: to a lane point
   before it, the same lane after it, then its goal. */
bool scenario_door(uint32_t agents, uint64_t seed, crowd_scenario *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "door");
    if (agents < 2 || agents % 2 || !allocate_agents(s, agents))
        return false;
    const uint32_t group = agents / 2;
    const uint32_t rows = (uint32_t)ceil(sqrt((double)group)), columns = (group + rows - 1) / rows;
    const float spacing = 3.0f * SCENARIO_RADIUS, near = WALL_HALF_THICKNESS + 4.0f * SCENARIO_RADIUS;
    const float block_half = 0.5f * spacing * (float)(rows - 1);
    const float lane_half = DOOR_HALF_WIDTH - SCENARIO_RADIUS - 2.0f;
    const float z = SCENARIO_RADIUS + 1.0f;
    uint64_t random = seed ^ 0x646f6f72ull;
    for (uint32_t i = 0; i < agents; ++i) {
        const uint32_t k = i % group;
        const float side = i < group ? -1.0f : 1.0f; /* the side it starts on */
        float x = side * (near + spacing * (float)(k / rows)), y = spacing * (float)(k % rows) - block_half;
        x += (float)(0.01 * spacing * (2.0 * scenario_unit(&random) - 1.0));
        y += (float)(0.01 * spacing * (2.0 * scenario_unit(&random) - 1.0));
        float lane = block_half > 0.0f ? y / block_half * lane_half : 0.0f;
        s->starts[i] = (skim_vec3){ x, y, z };
        skim_vec3 *way = s->way + (size_t)i * SCENARIO_MAX_WAY;
        way[0] = (skim_vec3){ side * (WALL_HALF_THICKNESS + 2.0f * SCENARIO_RADIUS), lane, z };
        way[1] = (skim_vec3){ -side * (WALL_HALF_THICKNESS + 2.0f * SCENARIO_RADIUS), lane, z };
        way[2] = (skim_vec3){ -x, y, z };
        s->way_count[i] = 3;
    }
    double longest = straight_times(s);
    s->time_limit = 2.0 * (longest + (double)(agents - 1) * 2.0 * SCENARIO_RADIUS / SCENARIO_SPEED);
    const float half_x = TILE * ceilf((near + spacing * (float)columns + 4.0f * SCENARIO_RADIUS) / TILE);
    const float half_y = TILE * ceilf((block_half + 6.0f * SCENARIO_RADIUS) / TILE);
    const float t = 2.0f * WALL_HALF_THICKNESS, w = WALL_HALF_THICKNESS;
    mesh_room room = { 0 };
    return add_floor(s, &room, -half_x, -half_y, half_x, half_y) &&
           add_box(s, &room, -half_x - t, -half_y - t, half_x + t, -half_y) &&
           add_box(s, &room, -half_x - t, half_y, half_x + t, half_y + t) &&
           add_box(s, &room, -half_x - t, -half_y, -half_x, half_y) &&
           add_box(s, &room, half_x, -half_y, half_x + t, half_y) &&
           add_box(s, &room, -w, -half_y, w, -DOOR_HALF_WIDTH) && add_box(s, &room, -w, DOOR_HALF_WIDTH, w, half_y);
}

bool scenario_make_world(crowd_scenario *s)
{
    if (s->world)
        return true;
    skim_mesh mesh = { s->positions, s->vertex_count, s->indices, s->triangle_count, NULL };
    if (skim_world_create(&mesh, NULL, &s->world) != SKIM_OK) {
        fprintf(stderr, "%s: %s\n", s->name, skim_last_error_message());
        return false;
    }
    return true;
}

void scenario_free(crowd_scenario *s)
{
    free(s->positions);
    free(s->indices);
    free(s->starts);
    free(s->way);
    free(s->way_count);
    free(s->straight_seconds);
    skim_world_destroy(s->world);
    memset(s, 0, sizeof *s);
}
