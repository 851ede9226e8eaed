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
   never dropped, nor is it for a tie at the same t. */
#include "query/query_internal.h"
#include "bvh/bvh.h"

#include <simde/x86/sse2.h>
#include <string.h>

typedef struct ray_entry {
    uint32_t ref;
    float    entry;
} ray_entry;

typedef struct ray_best {
    float    t;
    uint32_t stored;   /* UINT32_MAX: nothing yet */
    uint32_t caller;
} ray_best;

static inline void test_run(const skim_ray *ray, const skim_world *world, uint32_t first,
                            uint32_t count, ray_best *best)
{
    for (uint32_t i = first; i < first + count; ++i) {
        if (!skim_query_material_collides(world, i, ray->material_mask))
            continue;
        float t;
        if (!skim_ray_triangle(ray, world, i, best->t, &t))
            continue;
        const uint32_t caller = world->triangle_index[i];
        if (t < best->t || best->stored == UINT32_MAX || caller < best->caller) {
            best->t = t;
            best->stored = i;
            best->caller = caller;
        }
    }
}

/* Bytes 0..7 (upper = false) or 8..15 of row as two vectors of 4 floats. */
static inline void bytes_to_floats(simde__m128i row, bool upper, simde__m128 out[2])
{
    const simde__m128i zero = simde_mm_setzero_si128();
    simde__m128i words = upper ? simde_mm_unpackhi_epi8(row, zero) : simde_mm_unpacklo_epi8(row, zero);
    out[0] = simde_mm_cvtepi32_ps(simde_mm_unpacklo_epi16(words, zero));
    out[1] = simde_mm_cvtepi32_ps(simde_mm_unpackhi_epi16(words, zero));
}

/* The children the ray enters at some t in [0, limit], entry t in entry[].
   A child's grown lower bound less the origin is
   ((origin - reach) - o) + q * 2^e, its upper one
   ((origin + 255 * 2^e) + reach - o) - c * 2^e with c = 255 - q stored. */
static inline unsigned children_entered(const skim_bvh_node *node, const skim_ray *ray, float limit,
                                        float entry[SKIM_BVH_WIDTH])
{
    const simde__m128i *rows = (const simde__m128i *)node->bounds;
    const simde__m128i row_xy = simde_mm_load_si128(rows), row_cxy = simde_mm_load_si128(rows + 1),
                       row_z = simde_mm_load_si128(rows + 2);
    simde__m128 lo_q[3][2], c_q[3][2];
    bytes_to_floats(row_xy, false, lo_q[0]);
    bytes_to_floats(row_xy, true, lo_q[1]);
    bytes_to_floats(row_z, false, lo_q[2]);
    bytes_to_floats(row_cxy, false, c_q[0]);
    bytes_to_floats(row_cxy, true, c_q[1]);
    bytes_to_floats(row_z, true, c_q[2]);
    simde__m128 near[2] = { simde_mm_setzero_ps(), simde_mm_setzero_ps() };
    simde__m128 far[2] = { simde_mm_set1_ps(limit), simde_mm_set1_ps(limit) };
    for (int axis = 0; axis < 3; ++axis) {
        float scale;
        int32_t bits = (127 + node->exponent[axis]) << 23;
        memcpy(&scale, &bits, sizeof scale);
        const float origin = node->origin[axis];
        const simde__m128 scale_v = simde_mm_set1_ps(scale);
        const simde__m128 lo_base = simde_mm_set1_ps((origin - ray->reach[axis]) - ray->origin[axis]);
        const simde__m128 hi_base =
            simde_mm_set1_ps(((origin + 255.0f * scale) + ray->reach[axis]) - ray->origin[axis]);
        const simde__m128 inverse = simde_mm_set1_ps(ray->inverse_delta[axis]);
        for (int half = 0; half < 2; ++half) {
            simde__m128 t1 = simde_mm_mul_ps(
                simde_mm_add_ps(lo_base, simde_mm_mul_ps(lo_q[axis][half], scale_v)), inverse);
            simde__m128 t2 = simde_mm_mul_ps(
                simde_mm_sub_ps(hi_base, simde_mm_mul_ps(c_q[axis][half], scale_v)), inverse);
            near[half] = simde_mm_max_ps(near[half], simde_mm_min_ps(t1, t2));
            far[half] = simde_mm_min_ps(far[half], simde_mm_max_ps(t1, t2));
        }
    }
    simde_mm_storeu_ps(entry, near[0]);
    simde_mm_storeu_ps(entry + 4, near[1]);
    unsigned low = (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near[0], far[0]));
    unsigned high = (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near[1], far[1]));
    return (low | (high << 4)) & node->child_mask;
}

static void traverse(const skim_ray *ray, const skim_world *world, ray_best *best)
{
    const struct skim_bvh *bvh = world->bvh;
    const skim_bvh_node *nodes = bvh->nodes;
    ray_entry stack[SKIM_BVH_STACK_SIZE];
    uint32_t top = 0;
    stack[top++] = (ray_entry){ bvh->root, 0.0f };
    while (top) {
        const ray_entry e = stack[--top];
        if (e.entry > best->t)
            continue;
        if (skim_bvh_is_leaf(e.ref)) {
            test_run(ray, world, skim_bvh_leaf_first(e.ref), skim_bvh_leaf_count(e.ref), best);
            continue;
        }
        const skim_bvh_node *node = &nodes[e.ref];
        float entry[SKIM_BVH_WIDTH];
        unsigned hits = children_entered(node, ray, best->t, entry);
        /* Pushed farthest first so the nearest pops next: insertion by
           entry among this node's children, on top of the stack. */
        const uint32_t base = top;
        for (; hits; hits &= hits - 1u) {
            const unsigned slot = (unsigned)__builtin_ctz(hits);
            const ray_entry child = { node->child[slot], entry[slot] };
            uint32_t at = top++;
            while (at > base && stack[at - 1].entry < child.entry) {
                stack[at] = stack[at - 1];
                --at;
            }
            stack[at] = child;
        }
    }
}

uint32_t skim_ray_first_hit(const skim_ray *ray, const skim_world *world, float *t)
{
    ray_best best = { 1.0f, UINT32_MAX, UINT32_MAX };
    if (world->triangle_count == 0)
        return UINT32_MAX;
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh)
        traverse(ray, world, &best);
    else
        test_run(ray, world, 0, world->triangle_count, &best);
    *t = best.t;
    return best.stored;
}
