/* Standing spots in a level for agents of radius TOOL_AGENT_RADIUS: where
   `skim crowd` puts its agents (the densest placement it allows), and
   where --goals sends them. */
#include "tool_spots.h"

#include <math.h>
#include <stdlib.h>

/* Whether a sphere at spot is walled in: a sweep across the whole level in
   each of eight directions across up meets something. A spot on the roof
   of a sealed level (its collision hull seen from outside) is not, and an
   agent put there would walk off into the void. */
static bool enclosed(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 spot, const skim_world_stats *s)
{
    float reach = (s->bounds_max.x - s->bounds_min.x) + (s->bounds_max.y - s->bounds_min.y);
    for (int d = 0; d < 8; ++d) {
        float angle = 0.785398163f * (float)d;
        skim_vec3 delta = { reach * cosf(angle), reach * sinf(angle), 0 };
        skim_hit hit;
        if (skim_sweep(world, shape, spot, delta, NULL, &hit) != SKIM_OK || !hit.hit)
            return false;
    }
    return true;
}

/* Places agents on upward-facing ground: on a grid of columns 2r + 4
   apart, each column is probed from several heights (a free start, swept
   down to a floor), so floors under others (a closed room) are found too;
   narrow tops (walls, pillars) and spots open to the outside (the roof of a
   sealed level, crevices between its outer faces) are left out.
   Returns the spots in column order (malloc'ed; NULL if out of memory). */
skim_vec3 *tool_find_spots(const skim_world *world, uint32_t *spot_count)
{
    *spot_count = 0;
    skim_world_stats s;
    skim_world_get_stats(world, &s);
    const float r = TOOL_AGENT_RADIUS, spacing = 2.0f * r + 4.0f, level_step = 64.0f;
    const int nx = (int)floorf((s.bounds_max.x - s.bounds_min.x - 2.0f * r) / spacing);
    const int ny = (int)floorf((s.bounds_max.y - s.bounds_min.y - 2.0f * r) / spacing);
    const int levels = 1 + (int)ceilf((s.bounds_max.z - s.bounds_min.z) / level_step);
    if (nx < 1 || ny < 1)
        return calloc(1, sizeof(skim_vec3));
    const int per_column = 4;
    skim_vec3 *found = calloc((size_t)nx * ny * per_column, sizeof *found);
    uint8_t *count = calloc((size_t)nx * ny, 1);
    if (!found || !count) {
        free(found);
        free(count);
        return NULL;
    }
    const skim_ellipsoid shape = { { r, r, r }, { 0, 0, 0, 1 } };
#pragma omp parallel for schedule(dynamic, 16)
    for (long column = 0; column < (long)nx * ny; ++column) {
        float x = s.bounds_min.x + r + 2.0f + spacing * (float)(column % nx);
        float y = s.bounds_min.y + r + 2.0f + spacing * (float)(column / nx);
        for (int level = 0; level < levels && count[column] < per_column; ++level) {
            skim_vec3 start = { x, y, s.bounds_max.z + r + 2.0f - level_step * (float)level };
            skim_hit hit;
            /* A start inside or touching geometry is no place to stand. */
            if (skim_sweep(world, &shape, start, (skim_vec3){ 0, 0, -0.01f }, NULL, &hit) != SKIM_OK || hit.hit)
                continue;
            skim_vec3 down = { 0, 0, -(start.z - s.bounds_min.z + r) };
            if (skim_sweep(world, &shape, start, down, NULL, &hit) != SKIM_OK || !hit.hit || hit.normal.z < 0.7f)
                continue;
            skim_vec3 spot = { x, y, start.z + hit.t * down.z + 1.0f };
            bool seen = false;
            for (int k = 0; k < count[column]; ++k)
                seen |= fabsf(found[column * per_column + k].z - spot.z) < 2.0f * r + 2.0f;
            if (!seen)
                found[column * per_column + count[column]++] = spot;
        }
    }
    /* Keep only ground that goes on: a spot needs a spot at about its
       height (within a step) in each of the four neighbouring columns, so
       nobody starts on a wall top, a pillar or a ledge to fall off the map
       from. The marks go in a second array: every decision reads the same
       spots. */
    uint8_t *keep = calloc((size_t)nx * ny * per_column, 1);
    if (!keep) {
        free(found);
        free(count);
        return NULL;
    }
#pragma omp parallel for schedule(static)
    for (long column = 0; column < (long)nx * ny; ++column) {
        long cx = column % nx, cy = column / nx;
        for (int k = 0; k < count[column]; ++k) {
            float z = found[column * per_column + k].z;
            bool ground = true;
            const long neighbours[4][2] = { { cx - 1, cy }, { cx + 1, cy }, { cx, cy - 1 }, { cx, cy + 1 } };
            for (int d = 0; d < 4 && ground; ++d) {
                long x = neighbours[d][0], y = neighbours[d][1];
                bool near = false;
                if (x >= 0 && x < nx && y >= 0 && y < ny)
                    for (int m = 0; m < count[y * nx + x]; ++m)
                        near |= fabsf(found[(y * nx + x) * per_column + m].z - z) <= 18.0f;
                ground = near;
            }
            skim_vec3 spot = found[column * per_column + k];
            uint8_t mark = ground && enclosed(world, &shape, spot, &s);
            if (mark) {
                /* Roofed: something above. Counted, and used below. */
                skim_hit hit;
                skim_vec3 up = { 0, 0, s.bounds_max.z - spot.z + 2.0f * r };
                if (skim_sweep(world, &shape, spot, up, NULL, &hit) == SKIM_OK && hit.hit)
                    mark = 2;
            }
            keep[column * per_column + k] = mark;
        }
    }
    /* A sealed level (a collision hull) is roofed almost everywhere inside;
       there, a spot open to the sky is a crevice between the hull's outer
       faces, outside the level. An open level (the default scene) is not,
       and keeps every walled-in spot. */
    uint64_t walled = 0, roofed = 0;
    for (long spot = 0; spot < (long)nx * ny * per_column; ++spot) {
        walled += keep[spot] != 0;
        roofed += keep[spot] == 2;
    }
    const uint8_t needed = roofed * 2 > walled ? 2 : 1;
    uint32_t total = 0;
    for (long column = 0; column < (long)nx * ny; ++column)
        for (int k = 0; k < count[column]; ++k)
            if (keep[column * per_column + k] >= needed)
                found[total++] = found[column * per_column + k];
    free(keep);
    free(count);
    *spot_count = total;
    return found;
}
