/* A ray's first hit through the 8-wide quantised BVH (src/bvh/bvh.h):
   the ordered closest-hit traversal of ray tracers. At each node the ray
   is slab-tested against the eight child boxes (Kay and Kajiya's slabs,
   grown by the ray's reach so rounding never drops a box the ray meets),
   the children it enters before the best hit so far are pushed farthest
   first, and a popped entry whose entry t is past the best hit is dropped
   with its subtree. Line of sight (any hit) walks the same tree unsorted
   and ends at the first triangle found.

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
#include "query/ray_leaf.h"

#include <stddef.h>
#include <string.h>
#if defined(SKIM_RAY_TRAVERSE_AVX2)
#define RAY_SEARCH skim_ray_search_avx2
#else
#define RAY_SEARCH search_4
#endif

_Static_assert(offsetof(skim_bvh_node, origin) + 16 <= sizeof(skim_bvh_node),
               "children_entered loads 16 bytes at origin");

typedef struct ray_entry {
    uint32_t ref;
    float    entry;
} ray_entry;

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
    const simde__m128i bytes = simde_mm_loadl_epi64((const simde__m128i *)((const uint8_t *)node->bounds + row));
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
    memcpy(&word, (const uint8_t *)node->bounds + at, sizeof word);
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
                if (best->any && best->stored != UINT32_MAX)
                    return;
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
                    if (best->any) {
                        /* Any hit ends the search wherever it is: no
                           order is worth its sort (Embree's any-hit
                           traversal does not sort either). */
                        for (; hits; hits &= hits - 1u) {
                            slot = (unsigned)__builtin_ctz(hits);
                            stack[top++] = (ray_entry){ node->child[slot], entry[slot] };
                        }
                    }
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

/* The first hit (any = false) or any hit: its stored index or UINT32_MAX,
   and its t. */
#if !defined(SKIM_RAY_TRAVERSE_AVX2)
static
#endif
uint32_t RAY_SEARCH(const skim_ray *ray, const skim_world *world, bool any, float *t)
{
    ray_best best = { 1.0f, UINT32_MAX, any };
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
static uint32_t search(const skim_ray *ray, const skim_world *world, const skim_kernel_set *kernels, bool any,
                       float *t)
{
#if defined(SKIM_RAY_HAVE_AVX2_TRAVERSAL)
    /* Kernel sets of 8 lanes or more are only chosen on a CPU with AVX2. */
    if (kernels->width >= 8)
        return skim_ray_search_avx2(ray, world, any, t);
#else
    (void)kernels;
#endif
    return search_4(ray, world, any, t);
}

uint32_t skim_ray_first_hit(const skim_ray *ray, const skim_world *world, const skim_kernel_set *kernels,
                            float *t)
{
    return search(ray, world, kernels, false, t);
}

bool skim_ray_blocked(const skim_ray *ray, const skim_world *world, const skim_kernel_set *kernels)
{
    float t;
    return search(ray, world, kernels, true, &t) != UINT32_MAX;
}
#endif
