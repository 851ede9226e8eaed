/* A ray's first hit through the 8-wide quantised BVH (src/bvh/bvh.h):
   the ordered closest-hit traversal of ray tracers. At each node the ray
   is slab-tested against the eight child boxes (Kay and Kajiya's slabs,
   grown by the ray's reach so rounding never drops a box the ray meets),
   the children it enters before the best hit so far are pushed farthest
   first, and a popped entry whose entry t is past the best hit is dropped
   with its subtree.

   The answer does not depend on the order: every triangle gets the same
   test with the same bits, and the winner is the minimum of (t, caller's
   index); every box holding the winner's hit point is entered at a t no
   later than that hit (the point is inside it by the reach), so it is
   never dropped, nor is it for a tie at the same t. So the two builds of
   this file (4 lanes, and 8 lanes with -mavx2: src/query/meson.build),
   which test boxes and triangles in different groupings, give the same
   bits.

   The traversal is bound by memory, not arithmetic: a node is two cache
   lines and a leaf's triangles nine arrays. So children are prefetched
   when pushed (Embree's traversal does the same), only the near and the
   far plane of each axis are computed (chosen once per ray by the sign of
   the direction, as in Williams et al., "An Efficient and Robust
   Ray-Box Intersection Algorithm", section 3), and the material and
   caller's index of a triangle are read only when they can change the
   answer. */
#include "query/query_internal.h"
#include "bvh/bvh.h"

#include <stddef.h>
#include <string.h>
#if defined(SKIM_RAY_TRAVERSE_AVX2)
#include <simde/x86/avx2.h>
#define RAY_FIRST_HIT skim_ray_first_hit_avx2
#else
#include <simde/x86/sse2.h>
#define RAY_FIRST_HIT first_hit_4
#endif

typedef struct ray_entry {
    uint32_t ref;
    float    entry;
} ray_entry;

typedef struct ray_best {
    float    t;
    uint32_t stored; /* UINT32_MAX: nothing yet */
} ray_best;

_Static_assert(offsetof(skim_bvh_node, origin) + 16 <= sizeof(skim_bvh_node),
               "children_entered loads 16 bytes at origin");

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
    for (; count - at > 4; at += 8) {
        const unsigned lanes_in = count - at >= 8 ? 0xffu : (1u << (count - at)) - 1u;
        for (unsigned bits = edge_candidates8(ray, lanes, world, first + at) & lanes_in; bits; bits &= bits - 1u)
            test_triangle(ray, lanes, world, first + at + (unsigned)__builtin_ctz(bits), best);
    }
#endif
    for (; at < count; at += 4) {
        const unsigned lanes_in = count - at >= 4 ? 15u : (1u << (count - at)) - 1u;
        for (unsigned bits = edge_candidates4(ray, lanes, world, first + at) & lanes_in; bits; bits &= bits - 1u)
            test_triangle(ray, lanes, world, first + at + (unsigned)__builtin_ctz(bits), best);
    }
}

/* The children the ray enters at some t in [0, limit], entry t in entry[].
   On each axis a child's slab grown by the reach, less the ray's origin,
   is lo_base + q * scale below and hi_base - c * scale above (c = 255 - q
   of the upper bound, as stored), written as base + byte * signed scale:
   the same operations as the sweep's (bvh_ordered.c), so the rounding
   stays far inside the reach. A grown lower plane is below its upper one
   by twice the reach, far more than their rounding, so with the planes
   ordered by the sign of the direction the near one gives the entry and
   the far one the exit. */
#if defined(SKIM_RAY_TRAVERSE_AVX2)
static inline simde__m256 row_floats(const skim_bvh_node *node, uint8_t row)
{
    const simde__m128i bytes = simde_mm_loadl_epi64((const simde__m128i *)(node->bounds[0] + row));
    return simde_mm256_cvtepi32_ps(simde_mm256_cvtepu8_epi32(bytes));
}

static inline simde__m256 lane_to_all(simde__m128 v, int lane)
{
    return simde_mm256_permutevar8x32_ps(simde_mm256_castps128_ps256(v), simde_mm256_set1_epi32(lane));
}

static inline unsigned children_entered(const skim_bvh_node *node, const skim_ray *ray, const ray_lanes *lanes,
                                        float limit, float entry[SKIM_BVH_WIDTH])
{
    (void)ray;
    /* The three axes' per-node terms at once, lane 3 zeroed: origin[3]
       is followed by the exponents and the child mask. */
    const unsigned char *origin_bytes = (const unsigned char *)node + offsetof(skim_bvh_node, origin);
    const simde__m128 origin =
        simde_mm_and_ps(simde_mm_loadu_ps((const float *)(const void *)origin_bytes), lanes->xyz);
    /* Byte k of the word = exponent[k], whatever the host's byte order. */
    const int32_t exponent_bytes = (int32_t)((uint32_t)(uint8_t)node->exponent[0] |
                                             (uint32_t)(uint8_t)node->exponent[1] << 8 |
                                             (uint32_t)(uint8_t)node->exponent[2] << 16);
    const simde__m128i exponent = simde_mm_cvtepi8_epi32(simde_mm_cvtsi32_si128(exponent_bytes));
    const simde__m128 scale = simde_mm_and_ps(
        simde_mm_castsi128_ps(simde_mm_slli_epi32(simde_mm_add_epi32(exponent, simde_mm_set1_epi32(127)), 23)),
        lanes->xyz);
    const simde__m128 lo_base = simde_mm_sub_ps(simde_mm_sub_ps(origin, lanes->reach3), lanes->origin3);
    const simde__m128 hi_base = simde_mm_sub_ps(
        simde_mm_add_ps(simde_mm_add_ps(origin, simde_mm_mul_ps(simde_mm_set1_ps(255.0f), scale)), lanes->reach3),
        lanes->origin3);
    /* hi_base - c * scale is exactly hi_base + c * (-scale). */
    const simde__m128 negative_scale = simde_mm_xor_ps(scale, simde_mm_set1_ps(-0.0f));
    const simde__m128 near_base = simde_mm_blendv_ps(lo_base, hi_base, lanes->descending3);
    const simde__m128 far_base = simde_mm_blendv_ps(hi_base, lo_base, lanes->descending3);
    const simde__m128 near_scale = simde_mm_blendv_ps(scale, negative_scale, lanes->descending3);
    const simde__m128 far_scale = simde_mm_blendv_ps(negative_scale, scale, lanes->descending3);
    simde__m256 near = simde_mm256_setzero_ps(), far = simde_mm256_set1_ps(limit);
    for (int axis = 0; axis < 3; ++axis) {
        const simde__m256 t_near = simde_mm256_mul_ps(
            simde_mm256_add_ps(lane_to_all(near_base, axis),
                               simde_mm256_mul_ps(row_floats(node, lanes->near_row[axis]),
                                                  lane_to_all(near_scale, axis))),
            lanes->inverse8[axis]);
        const simde__m256 t_far = simde_mm256_mul_ps(
            simde_mm256_add_ps(lane_to_all(far_base, axis),
                               simde_mm256_mul_ps(row_floats(node, lanes->far_row[axis]),
                                                  lane_to_all(far_scale, axis))),
            lanes->inverse8[axis]);
        near = simde_mm256_max_ps(near, t_near);
        far = simde_mm256_min_ps(far, t_far);
    }
    simde_mm256_storeu_ps(entry, near);
    return (unsigned)simde_mm256_movemask_ps(simde_mm256_cmp_ps(near, far, SIMDE_CMP_LE_OQ)) &
           node->child_mask;
}
#else
typedef struct plane_terms {
    float near_base, near_scale, far_base, far_scale;
} plane_terms;

static inline plane_terms node_planes(const skim_bvh_node *node, const skim_ray *ray, const ray_lanes *lanes,
                                      int axis)
{
    float scale;
    int32_t bits = (127 + node->exponent[axis]) << 23;
    memcpy(&scale, &bits, sizeof scale);
    const float origin = node->origin[axis];
    const float lo_base = (origin - ray->reach[axis]) - ray->origin[axis];
    const float hi_base = ((origin + 255.0f * scale) + ray->reach[axis]) - ray->origin[axis];
    if (lanes->descending[axis])
        return (plane_terms){ hi_base, -scale, lo_base, scale };
    return (plane_terms){ lo_base, scale, hi_base, -scale };
}

/* Four bytes of a row from byte `at` as four floats. */
static inline simde__m128 row_floats(const skim_bvh_node *node, unsigned at)
{
    int32_t word;
    memcpy(&word, node->bounds[0] + at, sizeof word);
    const simde__m128i zero = simde_mm_setzero_si128();
    const simde__m128i bytes = simde_mm_cvtsi32_si128(word);
    return simde_mm_cvtepi32_ps(simde_mm_unpacklo_epi16(simde_mm_unpacklo_epi8(bytes, zero), zero));
}

static inline unsigned children_entered(const skim_bvh_node *node, const skim_ray *ray, const ray_lanes *lanes,
                                        float limit, float entry[SKIM_BVH_WIDTH])
{
    unsigned mask = 0;
    plane_terms p[3];
    for (int axis = 0; axis < 3; ++axis)
        p[axis] = node_planes(node, ray, lanes, axis);
    for (unsigned half = 0; half < 2; ++half) {
        simde__m128 near = simde_mm_setzero_ps(), far = simde_mm_set1_ps(limit);
        for (int axis = 0; axis < 3; ++axis) {
            const simde__m128 inverse = simde_mm_set1_ps(ray->inverse_delta[axis]);
            const simde__m128 t_near = simde_mm_mul_ps(
                simde_mm_add_ps(simde_mm_set1_ps(p[axis].near_base),
                                simde_mm_mul_ps(row_floats(node, lanes->near_row[axis] + 4u * half),
                                                simde_mm_set1_ps(p[axis].near_scale))),
                inverse);
            const simde__m128 t_far = simde_mm_mul_ps(
                simde_mm_add_ps(simde_mm_set1_ps(p[axis].far_base),
                                simde_mm_mul_ps(row_floats(node, lanes->far_row[axis] + 4u * half),
                                                simde_mm_set1_ps(p[axis].far_scale))),
                inverse);
            near = simde_mm_max_ps(near, t_near);
            far = simde_mm_min_ps(far, t_far);
        }
        simde_mm_storeu_ps(entry + 4 * half, near);
        mask |= (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near, far)) << (4 * half);
    }
    return mask & node->child_mask;
}
#endif

/* A node spans two cache lines (96 bytes on a 64-byte aligned array). */
static inline void prefetch_node(const skim_bvh_node *node)
{
    __builtin_prefetch(node);
    __builtin_prefetch((const char *)node + 64);
}

static void traverse(const skim_ray *ray, const ray_lanes *lanes, const skim_world *world, ray_best *best)
{
    const struct skim_bvh *bvh = world->bvh;
    const skim_bvh_node *nodes = bvh->nodes;
    ray_entry stack[SKIM_BVH_STACK_SIZE];
    uint32_t top = 0;
    ray_entry at = { bvh->root, 0.0f };
    for (;;) {
        if (at.entry <= best->t) {
            if (skim_bvh_is_leaf(at.ref)) {
                test_run(ray, lanes, world, skim_bvh_leaf_first(at.ref), skim_bvh_leaf_count(at.ref), best);
            } else {
                const skim_bvh_node *node = &nodes[at.ref];
                float entry[SKIM_BVH_WIDTH];
                unsigned hits = children_entered(node, ray, lanes, best->t, entry);
                if (hits) {
                    /* The nearest is visited next; the others are pushed
                       farthest first (insertion by entry on top of the
                       stack) and prefetched. A lone child goes straight. */
                    unsigned slot = (unsigned)__builtin_ctz(hits);
                    at = (ray_entry){ node->child[slot], entry[slot] };
                    hits &= hits - 1u;
                    if (!hits)
                        continue;
                    const uint32_t base = top;
                    stack[top++] = at;
                    for (; hits; hits &= hits - 1u) {
                        slot = (unsigned)__builtin_ctz(hits);
                        const ray_entry child = { node->child[slot], entry[slot] };
                        uint32_t k = top++;
                        while (k > base && stack[k - 1].entry < child.entry) {
                            stack[k] = stack[k - 1];
                            --k;
                        }
                        stack[k] = child;
                    }
                    for (uint32_t k = base; k + 1 < top; ++k)
                        if (!skim_bvh_is_leaf(stack[k].ref))
                            prefetch_node(&nodes[stack[k].ref]);
                    at = stack[--top];
                    continue;
                }
            }
        }
        if (!top)
            return;
        at = stack[--top];
    }
}

#if !defined(SKIM_RAY_TRAVERSE_AVX2)
static
#endif
uint32_t RAY_FIRST_HIT(const skim_ray *ray, const skim_world *world, float *t)
{
    ray_best best = { 1.0f, UINT32_MAX };
    if (world->triangle_count == 0)
        return UINT32_MAX;
    ray_lanes lanes;
    ray_lanes_init(ray, &lanes);
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh)
        traverse(ray, &lanes, world, &best);
    else
        test_run(ray, &lanes, world, 0, world->triangle_count, &best);
    *t = best.t;
    return best.stored;
}

#if !defined(SKIM_RAY_TRAVERSE_AVX2)
uint32_t skim_ray_first_hit(const skim_ray *ray, const skim_world *world, const skim_kernel_set *kernels,
                            float *t)
{
#if defined(SKIM_RAY_HAVE_AVX2_TRAVERSAL)
    /* Kernel sets of 8 lanes or more are only chosen on a CPU with AVX2. */
    if (kernels->width >= 8)
        return skim_ray_first_hit_avx2(ray, world, t);
#else
    (void)kernels;
#endif
    return first_hit_4(ray, world, t);
}
#endif
