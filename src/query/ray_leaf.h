/* A ray's triangle tests for both builds of ray_traverse.c (included
   there only): the ray's terms in SIMD lanes, a prefilter of four or eight
   triangles at once, and the watertight test of each that passes it
   (ray_triangle.c). */
#ifndef SKIM_RAY_LEAF_H
#define SKIM_RAY_LEAF_H

#include "query/query_internal.h"
#include "bvh/bvh.h"

#if defined(SKIM_RAY_TRAVERSE_AVX2)
#include <simde/x86/avx2.h>
#else
#include <simde/x86/sse2.h>
#endif

typedef struct ray_best {
    float    t;
    uint32_t stored; /* UINT32_MAX: nothing yet */
    bool     any;    /* any hit ends the search (line of sight), not only the first */
} ray_best;

/* Byte offsets in skim_bvh_node.bounds of each axis's rows (see bvh.h). */
static const uint8_t lower_row[3] = { 8 * SKIM_BVH_LO_X, 8 * SKIM_BVH_LO_Y, 8 * SKIM_BVH_LO_Z };
static const uint8_t upper_row[3] = { 8 * SKIM_BVH_CHI_X, 8 * SKIM_BVH_CHI_Y, 8 * SKIM_BVH_CHI_Z };

/* What a ray needs at every node and leaf, prepared once. */
typedef struct ray_lanes {
    uint8_t near_row[3], far_row[3]; /* the rows of the plane entered / left first on each axis */
    bool    descending[3];           /* the direction is negative on the axis */
    bool    all_materials;
    simde__m128 origin[3], sx, sy;
#if defined(SKIM_RAY_TRAVERSE_AVX2)
    simde__m256 origin8[3], sx8, sy8, inverse8[3];
    /* x, y, z and a zero lane: origin, reach, all ones where descending,
       all ones in the first three lanes. */
    simde__m128 origin3, reach3, descending3, xyz;
#endif
} ray_lanes;

static void ray_lanes_init(const skim_ray *ray, ray_lanes *lanes)
{
    for (int axis = 0; axis < 3; ++axis) {
        /* inverse_delta has the direction's sign (+-1e30 for a zero one). */
        const bool descending = ray->inverse_delta[axis] < 0.0f;
        lanes->descending[axis] = descending;
        lanes->near_row[axis] = descending ? upper_row[axis] : lower_row[axis];
        lanes->far_row[axis] = descending ? lower_row[axis] : upper_row[axis];
        lanes->origin[axis] = simde_mm_set1_ps(ray->origin[axis]);
#if defined(SKIM_RAY_TRAVERSE_AVX2)
        lanes->origin8[axis] = simde_mm256_set1_ps(ray->origin[axis]);
#endif
    }
    lanes->sx = simde_mm_set1_ps(ray->sx);
    lanes->sy = simde_mm_set1_ps(ray->sy);
#if defined(SKIM_RAY_TRAVERSE_AVX2)
    lanes->sx8 = simde_mm256_set1_ps(ray->sx);
    lanes->sy8 = simde_mm256_set1_ps(ray->sy);
    for (int axis = 0; axis < 3; ++axis)
        lanes->inverse8[axis] = simde_mm256_set1_ps(ray->inverse_delta[axis]);
    lanes->origin3 = simde_mm_setr_ps(ray->origin[0], ray->origin[1], ray->origin[2], 0.0f);
    lanes->reach3 = simde_mm_setr_ps(ray->reach[0], ray->reach[1], ray->reach[2], 0.0f);
    lanes->descending3 = simde_mm_castsi128_ps(simde_mm_setr_epi32(
        -(int32_t)lanes->descending[0], -(int32_t)lanes->descending[1], -(int32_t)lanes->descending[2], 0));
    lanes->xyz = simde_mm_castsi128_ps(simde_mm_setr_epi32(-1, -1, -1, 0));
#endif
    lanes->all_materials = ray->material_mask == UINT64_MAX;
}

/* Four (eight) stored triangles from `first` at once: the lanes whose float
   edge functions might let the ray through (the same operations in the
   same order as skim_ray_triangle's, so each lane's values are its bits).
   A lane is left out only when all three are non-zero and of mixed signs,
   which skim_ray_triangle rejects from those very values; the rest get the
   whole test. The world's arrays hold a spare packet of 16 past the last
   triangle, so the loads stay inside them. */
#if defined(SKIM_RAY_TRAVERSE_AVX2)
static inline unsigned edge_candidates8(const skim_ray *ray, const ray_lanes *lanes, const skim_world *world,
                                       uint32_t first)
{
    simde__m256 x[3], y[3];
    for (int v = 0; v < 3; ++v) {
        const simde__m256 rx = simde_mm256_sub_ps(simde_mm256_loadu_ps(world->vertex[v][ray->kx] + first),
                                                  lanes->origin8[ray->kx]);
        const simde__m256 ry = simde_mm256_sub_ps(simde_mm256_loadu_ps(world->vertex[v][ray->ky] + first),
                                                  lanes->origin8[ray->ky]);
        const simde__m256 rz = simde_mm256_sub_ps(simde_mm256_loadu_ps(world->vertex[v][ray->kz] + first),
                                                  lanes->origin8[ray->kz]);
        x[v] = simde_mm256_sub_ps(rx, simde_mm256_mul_ps(lanes->sx8, rz));
        y[v] = simde_mm256_sub_ps(ry, simde_mm256_mul_ps(lanes->sy8, rz));
    }
    const simde__m256 u = simde_mm256_sub_ps(simde_mm256_mul_ps(x[2], y[1]), simde_mm256_mul_ps(y[2], x[1]));
    const simde__m256 v = simde_mm256_sub_ps(simde_mm256_mul_ps(x[0], y[2]), simde_mm256_mul_ps(y[0], x[2]));
    const simde__m256 w = simde_mm256_sub_ps(simde_mm256_mul_ps(x[1], y[0]), simde_mm256_mul_ps(y[1], x[0]));
    const simde__m256 zero = simde_mm256_setzero_ps();
#define RAY_ANY3(op) \
    simde_mm256_or_ps(simde_mm256_or_ps(simde_mm256_cmp_ps(u, zero, op), simde_mm256_cmp_ps(v, zero, op)), \
                      simde_mm256_cmp_ps(w, zero, op))
    const simde__m256 rejected = simde_mm256_andnot_ps(
        RAY_ANY3(SIMDE_CMP_EQ_OQ), simde_mm256_and_ps(RAY_ANY3(SIMDE_CMP_LT_OQ), RAY_ANY3(SIMDE_CMP_GT_OQ)));
#undef RAY_ANY3
    return ~(unsigned)simde_mm256_movemask_ps(rejected) & 0xffu;
}
#endif

static inline unsigned edge_candidates4(const skim_ray *ray, const ray_lanes *lanes, const skim_world *world,
                                       uint32_t first)
{
    simde__m128 x[3], y[3];
    for (int v = 0; v < 3; ++v) {
        const simde__m128 rx = simde_mm_sub_ps(simde_mm_loadu_ps(world->vertex[v][ray->kx] + first),
                                               lanes->origin[ray->kx]);
        const simde__m128 ry = simde_mm_sub_ps(simde_mm_loadu_ps(world->vertex[v][ray->ky] + first),
                                               lanes->origin[ray->ky]);
        const simde__m128 rz = simde_mm_sub_ps(simde_mm_loadu_ps(world->vertex[v][ray->kz] + first),
                                               lanes->origin[ray->kz]);
        x[v] = simde_mm_sub_ps(rx, simde_mm_mul_ps(lanes->sx, rz));
        y[v] = simde_mm_sub_ps(ry, simde_mm_mul_ps(lanes->sy, rz));
    }
    const simde__m128 u = simde_mm_sub_ps(simde_mm_mul_ps(x[2], y[1]), simde_mm_mul_ps(y[2], x[1]));
    const simde__m128 v = simde_mm_sub_ps(simde_mm_mul_ps(x[0], y[2]), simde_mm_mul_ps(y[0], x[2]));
    const simde__m128 w = simde_mm_sub_ps(simde_mm_mul_ps(x[1], y[0]), simde_mm_mul_ps(y[1], x[0]));
    const simde__m128 zero = simde_mm_setzero_ps();
#define RAY_ANY3(cmp) \
    simde_mm_or_ps(simde_mm_or_ps(cmp(u, zero), cmp(v, zero)), cmp(w, zero))
    const simde__m128 rejected = simde_mm_andnot_ps(
        RAY_ANY3(simde_mm_cmpeq_ps), simde_mm_and_ps(RAY_ANY3(simde_mm_cmplt_ps), RAY_ANY3(simde_mm_cmpgt_ps)));
#undef RAY_ANY3
    return ~(unsigned)simde_mm_movemask_ps(rejected) & 15u;
}

/* The caller's index decides only ties, so it is read only for them. */
static inline void test_triangle(const skim_ray *ray, const ray_lanes *lanes, const skim_world *world,
                                 uint32_t i, ray_best *best)
{
    if (!lanes->all_materials && !skim_query_material_collides(world, i, ray->material_mask))
        return;
    float t;
    if (!skim_ray_triangle(ray, world, i, best->t, &t))
        return;
    /* skim_ray_triangle answers only t <= best->t. */
    if (t < best->t || best->stored == UINT32_MAX ||
        world->triangle_index[i] < world->triangle_index[best->stored]) {
        best->t = t;
        best->stored = i;
    }
}

static inline void test_run(const skim_ray *ray, const ray_lanes *lanes, const skim_world *world,
                            uint32_t first, uint32_t count, ray_best *best)
{
    uint32_t at = 0;
#if defined(SKIM_RAY_TRAVERSE_AVX2)
    /* Eight at a time while more than four remain: a leaf of four or
       fewer (the default) loads no lanes it does not test. */
    for (; at + 4 < count; at += 8) { /* at may pass count: count - at would wrap */
        const unsigned lanes_in = count - at >= 8 ? 0xffu : (1u << (count - at)) - 1u;
        for (unsigned bits = edge_candidates8(ray, lanes, world, first + at) & lanes_in; bits; bits &= bits - 1u) {
            test_triangle(ray, lanes, world, first + at + (unsigned)__builtin_ctz(bits), best);
            if (best->any && best->stored != UINT32_MAX)
                return;
        }
    }
#endif
    for (; at < count; at += 4) {
        const unsigned lanes_in = count - at >= 4 ? 15u : (1u << (count - at)) - 1u;
        for (unsigned bits = edge_candidates4(ray, lanes, world, first + at) & lanes_in; bits; bits &= bits - 1u) {
            test_triangle(ray, lanes, world, first + at + (unsigned)__builtin_ctz(bits), best);
            if (best->any && best->stored != UINT32_MAX)
                return;
        }
    }
}

#endif
