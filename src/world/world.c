/* skim_world_create / destroy / stats: validate the mesh, drop degenerate
   triangles (counted), and hand the rest to the accelerator. */
#include "world/world.h"
#include "world/world_bvh.h"

#include <omp.h>
#include <simde/x86/sse2.h>

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

/* More threads than processors only adds start-up and contention: the
   tree is the same for any count. Asking OpenMP for millions makes
   libgomp fail to create them and exit the process. */
int skim_build_thread_count(const skim_world_def *def)
{
    const int processors = omp_get_num_procs() > 0 ? omp_get_num_procs() : 1;
    const int asked = def->build_threads > 0 ? def->build_threads : omp_get_max_threads();
    return asked < processors ? asked : processors;
}

static skim_status check_def(const skim_world_def *def)
{
    if (skim_all_zero(def, sizeof *def))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "world def: all zeros (zero-initialised); start from "
                         "skim_world_def_default() or pass NULL");
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
    if (def->build_threads < 0 || def->build_threads > SKIM_BUILD_THREADS_MAX)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "world def: build_threads must be 0..%d (got %d)",
                         SKIM_BUILD_THREADS_MAX, def->build_threads);
    if (!isfinite(def->degenerate_area) || def->degenerate_area < 0.0f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "world def: degenerate_area must be finite and >= 0");
    return SKIM_OK;
}

/* Whole-array checks written so the compiler vectorises them (no early
   exit); only a mesh that fails is scanned again, for the first culprit's
   message: scalar loops with an exit per element do not vectorise, and
   every build checks every vertex. */
static skim_status check_mesh(const skim_mesh *mesh)
{
    if ((mesh->triangle_count > 0 && !mesh->indices) || (mesh->vertex_count > 0 && !mesh->positions))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "mesh: positions or indices are NULL");
    if (mesh->vertex_count > UINT32_MAX / 3 || mesh->triangle_count > UINT32_MAX / 3)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "mesh: counts overflow");
    const uint32_t coordinates = 3 * mesh->vertex_count, corners = 3 * mesh->triangle_count;
    int bad_coordinate = 0;
    for (uint32_t i = 0; i < coordinates; ++i)
        bad_coordinate |= !(fabsf(mesh->positions[i]) <= SKIM_COORDINATE_MAX);
    for (uint32_t i = 0; bad_coordinate && i < coordinates; ++i)
        if (!(fabsf(mesh->positions[i]) <= SKIM_COORDINATE_MAX))
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "mesh: vertex %u has coordinate %g: not finite or beyond %g", i / 3,
                             (double)mesh->positions[i], (double)SKIM_COORDINATE_MAX);
    int bad_index = 0;
    for (uint32_t i = 0; i < corners; ++i)
        bad_index |= mesh->indices[i] >= mesh->vertex_count;
    for (uint32_t i = 0; bad_index && i < corners; ++i)
        if (mesh->indices[i] >= mesh->vertex_count)
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "mesh: triangle %u uses vertex %u but there are only %u vertices",
                             i / 3, mesh->indices[i], mesh->vertex_count);
    return SKIM_OK;
}

/* A corner as (x, y, z, 0): an 8-byte and a 4-byte load, never past the
   vertex (a 16-byte load of the last vertex would read past the array). */
static inline simde__m128 load_corner(const float *p)
{
    /* movq through an unaligned 64-bit type: positions are only 4-byte
       aligned (a double load of them is undefined, and UBSan says so). */
    simde__m128 xy = simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)(const void *)p));
    return simde_mm_movelh_ps(xy, simde_mm_load_ss(p + 2));
}

/* A triangle is degenerate when its area is <= the threshold or its normal
   cannot be formed in float (zero or NaN; the kernels divide by |n|): such
   triangles cannot be collided with meaningfully, so they are dropped and
   counted. A normal whose squared length overflows float (a wall some 4e9
   across) is kept: with every coordinate within SKIM_COORDINATE_MAX its
   components are finite, and the gather cuts such a triangle down to the
   query's box in double before the kernels see it (gather_clip.c).
   The scalar formula's operations in its order, lane by lane: n = ab x ac
   per component, then (n.x^2 + n.y^2) + n.z^2. */
static inline bool is_degenerate(simde__m128 a, simde__m128 b, simde__m128 c, float area_threshold)
{
    simde__m128 ab = simde_mm_sub_ps(b, a), ac = simde_mm_sub_ps(c, a);
    simde__m128 ab_yzx = simde_mm_shuffle_ps(ab, ab, SIMDE_MM_SHUFFLE(3, 0, 2, 1));
    simde__m128 ab_zxy = simde_mm_shuffle_ps(ab, ab, SIMDE_MM_SHUFFLE(3, 1, 0, 2));
    simde__m128 ac_yzx = simde_mm_shuffle_ps(ac, ac, SIMDE_MM_SHUFFLE(3, 0, 2, 1));
    simde__m128 ac_zxy = simde_mm_shuffle_ps(ac, ac, SIMDE_MM_SHUFFLE(3, 1, 0, 2));
    simde__m128 n = simde_mm_sub_ps(simde_mm_mul_ps(ab_yzx, ac_zxy), simde_mm_mul_ps(ab_zxy, ac_yzx));
    simde__m128 squares = simde_mm_mul_ps(n, n);
    simde__m128 sum = simde_mm_add_ss(squares, simde_mm_shuffle_ps(squares, squares, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
    sum = simde_mm_add_ss(sum, simde_mm_shuffle_ps(squares, squares, SIMDE_MM_SHUFFLE(2, 2, 2, 2)));
    float length_sq = simde_mm_cvtss_f32(sum);
    if (!(length_sq > 0.0f))
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

/* So a packet load past the last triangle reads finite numbers. The lanes
   below count are all written by the caller, so the whole block need not
   be cleared first. */
void skim_world_zero_padding(void *block, uint32_t stride, uint32_t count)
{
    char *at = block;
    const size_t float_bytes = align64((size_t)stride * sizeof(float));
    for (int array = 0; array < 9; ++array, at += float_bytes)
        memset(at + (size_t)count * sizeof(float), 0, float_bytes - (size_t)count * sizeof(float));
    const size_t index_bytes = align64((size_t)stride * sizeof(uint32_t));
    memset(at + (size_t)count * sizeof(uint32_t), 0, index_bytes - (size_t)count * sizeof(uint32_t));
    at += index_bytes;
    const size_t material_bytes = align64((size_t)stride * sizeof(uint16_t));
    memset(at + (size_t)count * sizeof(uint16_t), 0, material_bytes - (size_t)count * sizeof(uint16_t));
}

/* What a pass over (part of) the mesh kept: how many triangles, how many
   it dropped, and the box of the kept ones. */
typedef struct kept_triangles {
    uint32_t kept, degenerate;
    float    lo[3], hi[3];
} kept_triangles;

static void kept_clear(kept_triangles *k)
{
    *k = (kept_triangles){ .lo = { INFINITY, INFINITY, INFINITY }, .hi = { -INFINITY, -INFINITY, -INFINITY } };
}

static inline void corners_of(const skim_mesh *mesh, uint32_t t, const float *corner[3])
{
    for (int v = 0; v < 3; ++v)
        corner[v] = mesh->positions + 3 * (size_t)mesh->indices[3 * (size_t)t + v];
}

/* Brute force: the kept triangles in mesh order straight into the world's
   storage. Comparisons, not fminf (a library call): coordinates are
   finite. */
static void fill_storage(const skim_mesh *mesh, float degenerate_area, skim_world *world, kept_triangles *k)
{
    float *vertex[3][3];
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            vertex[v][axis] = (float *)world->vertex[v][axis];
    uint32_t *index = (uint32_t *)world->triangle_index;
    uint16_t *material = (uint16_t *)world->material;
    kept_clear(k);
    for (uint32_t t = 0; t < mesh->triangle_count; ++t) {
        const float *corner[3];
        corners_of(mesh, t, corner);
        if (is_degenerate(load_corner(corner[0]), load_corner(corner[1]), load_corner(corner[2]),
                          degenerate_area)) {
            k->degenerate++;
            continue;
        }
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis) {
                float x = corner[v][axis];
                vertex[v][axis][k->kept] = x;
                k->lo[axis] = x < k->lo[axis] ? x : k->lo[axis];
                k->hi[axis] = x > k->hi[axis] ? x : k->hi[axis];
            }
        index[k->kept] = t;
        material[k->kept] = mesh->materials ? mesh->materials[t] : 0;
        k->kept++;
    }
}

/* BVH: the boxes of the kept triangles of [first, last) into prims, in
   mesh order, each tagged with its mesh triangle index. The build reads
   only these boxes; the triangles themselves are copied once, from the
   mesh, into the final leaf order (skim_bvh_build). Before, they were
   copied here into storage in mesh order, then boxed from there, then
   reordered from there: one copy and one pass more. */
static void box_triangles(const skim_mesh *mesh, float degenerate_area, uint32_t first, uint32_t last,
                          skim_bvh_prim *prims, kept_triangles *k)
{
    kept_clear(k);
    simde__m128 all_lo = simde_mm_set1_ps(INFINITY), all_hi = simde_mm_set1_ps(-INFINITY);
    uint32_t kept = 0;
    for (uint32_t t = first; t < last; ++t) {
        const float *corner[3];
        corners_of(mesh, t, corner);
        simde__m128 a = load_corner(corner[0]), b = load_corner(corner[1]), c = load_corner(corner[2]);
        if (is_degenerate(a, b, c, degenerate_area))
            continue;
        /* Lane 3 is 0 in all three corners: hi's stays 0, lo's takes the id. */
        simde__m128 lo = simde_mm_min_ps(simde_mm_min_ps(a, b), c);
        simde__m128 hi = simde_mm_max_ps(simde_mm_max_ps(a, b), c);
        all_lo = simde_mm_min_ps(all_lo, lo);
        all_hi = simde_mm_max_ps(all_hi, hi);
        skim_bvh_prim *p = &prims[kept++];
        simde_mm_store_ps(p->lo, lo);
        simde_mm_store_ps(p->hi, hi);
        memcpy(&p->lo[3], &t, sizeof t);
    }
    float lo[4], hi[4];
    simde_mm_storeu_ps(lo, all_lo);
    simde_mm_storeu_ps(hi, all_hi);
    for (int axis = 0; axis < 3; ++axis) {
        k->lo[axis] = kept ? lo[axis] : INFINITY;
        k->hi[axis] = kept ? hi[axis] : -INFINITY;
    }
    k->kept = kept;
    k->degenerate = (last - first) - kept;
}

enum { BOX_CHUNK = 1 << 16 };

/* box_triangles over the whole mesh: in fixed chunks of BOX_CHUNK
   triangles on threads when the mesh is large, each chunk's kept boxes
   then moved down after those of the chunks before it. Which boxes end
   where depends only on the mesh, never on the threads. */
static bool box_mesh(const skim_mesh *mesh, float degenerate_area, int threads, skim_bvh_prim *prims,
                     kept_triangles *total)
{
    const uint32_t n = mesh->triangle_count, chunks = (n + BOX_CHUNK - 1) / BOX_CHUNK;
    kept_clear(total);
    if (chunks <= 1 || threads <= 1) {
        box_triangles(mesh, degenerate_area, 0, n, prims, total);
        return true;
    }
    kept_triangles *part = malloc(chunks * sizeof *part);
    if (!part)
        return false;
    #pragma omp parallel for schedule(static) num_threads(threads)
    for (uint32_t c = 0; c < chunks; ++c) {
        uint32_t first = c * BOX_CHUNK, last = n - first > BOX_CHUNK ? first + BOX_CHUNK : n;
        box_triangles(mesh, degenerate_area, first, last, prims + first, &part[c]);
    }
    for (uint32_t c = 0; c < chunks; ++c) {
        if (total->kept != c * BOX_CHUNK)
            memmove(prims + total->kept, prims + (size_t)c * BOX_CHUNK, part[c].kept * sizeof *prims);
        total->kept += part[c].kept;
        total->degenerate += part[c].degenerate;
        for (int axis = 0; axis < 3; ++axis) {
            total->lo[axis] = part[c].lo[axis] < total->lo[axis] ? part[c].lo[axis] : total->lo[axis];
            total->hi[axis] = part[c].hi[axis] > total->hi[axis] ? part[c].hi[axis] : total->hi[axis];
        }
    }
    free(part);
    return true;
}

static skim_status out_of_memory(const skim_mesh *mesh)
{
    return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_world_create: %u triangles", mesh->triangle_count);
}

/* The world's own storage for stride lanes, its arrays bound. */
static void *new_storage(skim_world *world, uint32_t stride)
{
    void *storage = aligned_alloc(64, skim_world_storage_bytes(stride));
    if (storage) {
        world->owned_storage = storage;
        skim_world_bind_storage(world, storage, stride);
    }
    return storage;
}

/* Brute force: storage in mesh order. */
static skim_status create_brute_force(const skim_mesh *mesh, const skim_world_def *def, skim_world *world,
                                      kept_triangles *k)
{
    const uint32_t stride = skim_world_stride(mesh->triangle_count);
    void *storage = new_storage(world, stride);
    if (!storage)
        return out_of_memory(mesh);
    fill_storage(mesh, def->degenerate_area, world, k);
    skim_world_zero_padding(storage, stride, k->kept);
    return SKIM_OK;
}

/* BVH: boxes first, then the build, which stores the triangles in leaf
   order. */
static skim_status create_bvh(const skim_mesh *mesh, const skim_world_def *def, skim_world *world,
                              kept_triangles *k)
{
    int threads = skim_build_thread_count(def);
    size_t bytes = ((size_t)(mesh->triangle_count ? mesh->triangle_count : 1) * sizeof(skim_bvh_prim) + 63) / 64 * 64;
    skim_bvh_prim *prims = aligned_alloc(64, bytes);
    if (prims)
        skim_bvh_prefer_huge_pages(prims, bytes);
    if (!prims || !box_mesh(mesh, def->degenerate_area, threads, prims, k)) {
        free(prims);
        return out_of_memory(mesh);
    }
    world->triangle_count = k->kept;
    if (k->kept == 0) { /* nothing to build over: empty storage, no tree */
        free(prims);
        void *storage = new_storage(world, skim_world_stride(0));
        if (!storage)
            return out_of_memory(mesh);
        skim_world_zero_padding(storage, skim_world_stride(0), 0);
        return SKIM_OK;
    }
    return skim_bvh_build(world, mesh, prims, def); /* takes prims */
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
    skim_world *world = calloc(1, sizeof *world);
    if (!world)
        return out_of_memory(mesh);
    world->accelerator = def->accelerator;
    kept_triangles k;
    status = def->accelerator == SKIM_ACCELERATOR_BVH ? create_bvh(mesh, def, world, &k)
                                                      : create_brute_force(mesh, def, world, &k);
    if (status != SKIM_OK) {
        skim_world_destroy(world);
        return status;
    }
    world->triangle_count = k.kept;
    world->degenerate_count = k.degenerate;
    if (k.kept == 0)
        k.lo[0] = k.lo[1] = k.lo[2] = k.hi[0] = k.hi[1] = k.hi[2] = 0.0f;
    world->bounds_min = (skim_vec3){ k.lo[0], k.lo[1], k.lo[2] };
    world->bounds_max = (skim_vec3){ k.hi[0], k.hi[1], k.hi[2] };
    status = skim_world_index_triangles(world);
    if (status != SKIM_OK) {
        skim_world_destroy(world);
        return status;
    }
    world->build_seconds = seconds_now() - started;
    *out = world;
    return SKIM_OK;
}

void skim_world_destroy(skim_world *world)
{
    if (!world)
        return;
    skim_bodies_release(world);
    skim_bvh_destroy(world);
    free(world->owned_storage);
    free(world->by_caller);
    free(world->file_block);
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
    out->loaded_from_file = world->file_block != NULL;
    skim_bvh_add_stats(world, out);
    return SKIM_OK;
}
