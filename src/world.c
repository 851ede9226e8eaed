/* skim_world_create / destroy / stats: validate the mesh, drop degenerate
   triangles (counted), and hand the rest to the accelerator. */
#include "skim_internal.h"
#include "bvh/bvh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static skim_status check_def(const skim_world_def *def)
{
    if (def->accelerator != SKIM_ACCELERATOR_BVH && def->accelerator != SKIM_ACCELERATOR_BRUTE_FORCE)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "world def: unknown accelerator %d",
                         (int)def->accelerator);
    if (def->max_leaf_triangles < 1 || def->max_leaf_triangles > 16)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "world def: max_leaf_triangles must be 1..16 (got %d)",
                         def->max_leaf_triangles);
    if (def->sah_bins < 8 || def->sah_bins > 32)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "world def: sah_bins must be 8..32 (got %d)",
                         def->sah_bins);
    if (def->build_threads < 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "world def: build_threads must be >= 0");
    if (!isfinite(def->degenerate_area) || def->degenerate_area < 0.0f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "world def: degenerate_area must be finite and >= 0");
    return SKIM_OK;
}

static skim_status check_mesh(const skim_mesh *mesh)
{
    if ((mesh->triangle_count > 0 && !mesh->indices) || (mesh->vertex_count > 0 && !mesh->positions))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "mesh: positions or indices are NULL");
    if (mesh->vertex_count > UINT32_MAX / 3 || mesh->triangle_count > UINT32_MAX / 3)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "mesh: counts overflow");
    for (uint32_t i = 0; i < 3 * mesh->vertex_count; ++i)
        if (!(fabsf(mesh->positions[i]) <= SKIM_COORDINATE_MAX))
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "mesh: vertex %u has coordinate %g: not finite or beyond %g", i / 3,
                             (double)mesh->positions[i], (double)SKIM_COORDINATE_MAX);
    for (uint32_t i = 0; i < 3 * mesh->triangle_count; ++i)
        if (mesh->indices[i] >= mesh->vertex_count)
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "mesh: triangle %u uses vertex %u but there are only %u vertices",
                             i / 3, mesh->indices[i], mesh->vertex_count);
    return SKIM_OK;
}

/* A triangle is degenerate when its area is <= the threshold or its normal
   cannot be formed in float (the kernels divide by |n|): such triangles
   cannot be collided with meaningfully, so they are dropped and counted. */
static bool is_degenerate(const float *a, const float *b, const float *c, float area_threshold)
{
    float ab[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    float ac[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
    float n[3] = { ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                   ab[0] * ac[1] - ab[1] * ac[0] };
    float length_sq = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (!(length_sq > 0.0f) || !isfinite(length_sq))
        return true;
    return 0.5f * sqrtf(length_sq) <= area_threshold;
}

uint32_t skim_world_stride(uint32_t triangle_count)
{
    /* Whole packets plus one spare packet: a load of up to 16 lanes that
       starts at any stored triangle stays inside the array. */
    return (triangle_count + SKIM_MAX_PACKET_WIDTH - 1) / SKIM_MAX_PACKET_WIDTH *
               SKIM_MAX_PACKET_WIDTH + SKIM_MAX_PACKET_WIDTH;
}

static size_t align64(size_t bytes) { return (bytes + 63) / 64 * 64; }

size_t skim_world_storage_bytes(uint32_t stride)
{
    return 9 * align64((size_t)stride * sizeof(float)) + align64((size_t)stride * sizeof(uint32_t)) +
           align64((size_t)stride * sizeof(uint16_t));
}

void skim_world_bind_storage(skim_world *world, void *block, uint32_t stride)
{
    char *at = block;
    world->stride = stride;
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis) {
            world->vertex[v][axis] = (const float *)at;
            at += align64((size_t)stride * sizeof(float));
        }
    world->triangle_index = (const uint32_t *)at;
    at += align64((size_t)stride * sizeof(uint32_t));
    world->material = (const uint16_t *)at;
}

skim_status skim_world_create(const skim_mesh *mesh, const skim_world_def *def, skim_world **out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_world_create: out is NULL");
    *out = NULL;
    if (!mesh)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_world_create: mesh is NULL");
    skim_world_def defaults = skim_world_def_default();
    if (!def)
        def = &defaults;
    skim_status status = check_def(def);
    if (status == SKIM_OK)
        status = check_mesh(mesh);
    if (status != SKIM_OK)
        return status;

    double started = seconds_now();
    uint32_t stride = skim_world_stride(mesh->triangle_count);
    size_t storage_bytes = skim_world_storage_bytes(stride);
    skim_world *world = calloc(1, sizeof *world);
    void *storage = aligned_alloc(64, storage_bytes);
    if (!world || !storage) {
        free(world);
        free(storage);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_world_create: %u triangles",
                         mesh->triangle_count);
    }
    /* Zero padding lanes: a packet load past the last triangle reads
       finite numbers, never uninitialised memory. */
    memset(storage, 0, storage_bytes);
    world->owned_storage = storage;
    skim_world_bind_storage(world, storage, stride);
    float *vertex[3][3];
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            vertex[v][axis] = (float *)world->vertex[v][axis];
    uint32_t *index = (uint32_t *)world->triangle_index;
    uint16_t *material = (uint16_t *)world->material;

    uint32_t kept = 0;
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t t = 0; t < mesh->triangle_count; ++t) {
        const float *corner[3];
        for (int v = 0; v < 3; ++v)
            corner[v] = mesh->positions + 3 * (size_t)mesh->indices[3 * (size_t)t + v];
        if (is_degenerate(corner[0], corner[1], corner[2], def->degenerate_area)) {
            world->degenerate_count++;
            continue;
        }
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis) {
                float x = corner[v][axis];
                vertex[v][axis][kept] = x;
                lo[axis] = fminf(lo[axis], x);
                hi[axis] = fmaxf(hi[axis], x);
            }
        index[kept] = t;
        material[kept] = mesh->materials ? mesh->materials[t] : 0;
        kept++;
    }
    world->triangle_count = kept;
    world->accelerator = def->accelerator;
    if (kept == 0)
        lo[0] = lo[1] = lo[2] = hi[0] = hi[1] = hi[2] = 0.0f;
    world->bounds_min = (skim_vec3){ lo[0], lo[1], lo[2] };
    world->bounds_max = (skim_vec3){ hi[0], hi[1], hi[2] };
    if (def->accelerator == SKIM_ACCELERATOR_BVH && kept > 0) {
        status = skim_bvh_build(world, def);
        if (status != SKIM_OK) {
            skim_world_destroy(world);
            return status;
        }
    }
    world->build_seconds = seconds_now() - started;
    *out = world;
    return SKIM_OK;
}

void skim_world_destroy(skim_world *world)
{
    if (!world)
        return;
    skim_bvh_destroy(world);
    free(world->owned_storage);
    skim_world_unmap(world);
    free(world);
}

skim_status skim_world_get_stats(const skim_world *world, skim_world_stats *out)
{
    if (!world || !out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_world_get_stats: NULL argument");
    memset(out, 0, sizeof *out);
    out->triangles = world->triangle_count;
    out->degenerate_triangles = world->degenerate_count;
    out->bytes = sizeof *world + skim_world_storage_bytes(world->stride);
    /* Brute force: every query tests every triangle. */
    out->sah_cost = (double)world->triangle_count;
    out->build_seconds = world->build_seconds;
    out->bounds_min = world->bounds_min;
    out->bounds_max = world->bounds_max;
    out->accelerator = world->accelerator;
    out->loaded_from_file = world->mapping != NULL;
    skim_bvh_add_stats(world, out);
    return SKIM_OK;
}
