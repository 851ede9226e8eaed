/* A world's triangles back by the caller's index: the lookup table made
   when a world is built or loaded, and skim_world_get_triangle. */
#include "world/world.h"

#include <math.h>
#include <stdlib.h>

static int compare_keys(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Stored indices sorted by (caller's index, stored index): a binary search
   finds a caller's triangle whatever order the BVH put it in, and a file
   that names one index twice still answers with the first. */
skim_status skim_world_index_triangles(skim_world *world)
{
    const uint32_t n = world->triangle_count;
    world->by_caller = malloc((n ? n : 1) * sizeof *world->by_caller);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!world->by_caller || !keys) {
        free(keys);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY,
                         "no memory for the lookup of %u triangles by index (%zu bytes)", n,
                         (size_t)n * (sizeof *keys + sizeof *world->by_caller));
    }
    for (uint32_t i = 0; i < n; ++i)
        keys[i] = (uint64_t)world->triangle_index[i] << 32 | i;
    qsort(keys, n, sizeof *keys, compare_keys);
    for (uint32_t i = 0; i < n; ++i)
        world->by_caller[i] = (uint32_t)keys[i];
    free(keys);
    return SKIM_OK;
}

uint32_t skim_world_stored_of(const skim_world *world, uint32_t triangle)
{
    uint32_t lo = 0, hi = world->triangle_count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (world->triangle_index[world->by_caller[mid]] < triangle)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < world->triangle_count && world->triangle_index[world->by_caller[lo]] == triangle)
        return world->by_caller[lo];
    return UINT32_MAX;
}

void skim_stored_corners(const skim_world *world, uint32_t stored, double corner[3][3])
{
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            corner[v][axis] = world->vertex[v][axis][stored];
}

skim_status skim_world_get_triangle(const skim_world *world, uint32_t triangle, skim_triangle *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_world_get_triangle: out is NULL");
    *out = (skim_triangle){ 0 };
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_world_get_triangle: world is NULL");
    const uint32_t stored = skim_world_stored_of(world, triangle);
    if (stored == UINT32_MAX)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_world_get_triangle: the world holds no triangle %u (%u held, %u "
                         "dropped at build as degenerate)",
                         triangle, world->triangle_count, world->degenerate_count);
    double c[3][3];
    skim_stored_corners(world, stored, c);
    for (int v = 0; v < 3; ++v)
        out->corner[v] = (skim_vec3){ (float)c[v][0], (float)c[v][1], (float)c[v][2] };
    const double e1[3] = { c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2] };
    const double e2[3] = { c[2][0] - c[0][0], c[2][1] - c[0][1], c[2][2] - c[0][2] };
    const double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                          e1[0] * e2[1] - e1[1] * e2[0] };
    /* Kept triangles have a normal float can form (world.c), so length > 0. */
    const double length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    out->normal = (skim_vec3){ (float)(n[0] / length), (float)(n[1] / length), (float)(n[2] / length) };
    out->material = world->material[stored];
    return SKIM_OK;
}
