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

/* The ray's terms broadcast to four lanes, for the leaves' prefilter. */
typedef struct ray_lanes {
    simde__m128 origin[3], sx, sy;
} ray_lanes;

static void ray_lanes_init(const skim_ray *ray, ray_lanes *lanes)
{
    for (int axis = 0; axis < 3; ++axis)
        lanes->origin[axis] = simde_mm_set1_ps(ray->origin[axis]);
    lanes->sx = simde_mm_set1_ps(ray->sx);
    lanes->sy = simde_mm_set1_ps(ray->sy);
}

/* Four stored triangles from `first` at once: the lanes whose float edge
   functions might let the ray through (the same operations in the same
   order as skim_ray_triangle's, so each lane's values are its bits). A
   lane is left out only when all three are non-zero and of mixed signs,
   which skim_ray_triangle rejects from those very values; the rest get
   the whole test. The world's arrays hold a spare packet past the last
   triangle, so the load stays inside them. */
static inline unsigned edge_candidates(const skim_ray *ray, const ray_lanes *lanes, const skim_world *world,
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
    const simde__m128 any_negative = simde_mm_or_ps(simde_mm_or_ps(simde_mm_cmplt_ps(u, zero), simde_mm_cmplt_ps(v, zero)),
                                                    simde_mm_cmplt_ps(w, zero));
    const simde__m128 any_positive = simde_mm_or_ps(simde_mm_or_ps(simde_mm_cmpgt_ps(u, zero), simde_mm_cmpgt_ps(v, zero)),
                                                    simde_mm_cmpgt_ps(w, zero));
    const simde__m128 any_zero = simde_mm_or_ps(simde_mm_or_ps(simde_mm_cmpeq_ps(u, zero), simde_mm_cmpeq_ps(v, zero)),
                                                simde_mm_cmpeq_ps(w, zero));
    const simde__m128 rejected = simde_mm_andnot_ps(any_zero, simde_mm_and_ps(any_negative, any_positive));
    return ~(unsigned)simde_mm_movemask_ps(rejected) & 15u;
}

static inline void test_triangle(const skim_ray *ray, const skim_world *world, uint32_t i, ray_best *best)
{
    if (!skim_query_material_collides(world, i, ray->material_mask))
        return;
    float t;
    if (!skim_ray_triangle(ray, world, i, best->t, &t))
        return;
    const uint32_t caller = world->triangle_index[i];
    if (t < best->t || best->stored == UINT32_MAX || caller < best->caller) {
        best->t = t;
        best->stored = i;
        best->caller = caller;
    }
}

static inline void test_run(const skim_ray *ray, const ray_lanes *lanes, const skim_world *world,
                            uint32_t first, uint32_t count, ray_best *best)
{
    for (uint32_t at = 0; at < count; at += 4) {
        unsigned lanes_in = count - at >= 4 ? 15u : (1u << (count - at)) - 1u;
        for (unsigned bits = edge_candidates(ray, lanes, world, first + at) & lanes_in; bits; bits &= bits - 1u)
            test_triangle(ray, world, first + at + (unsigned)__builtin_ctz(bits), best);
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

static void traverse(const skim_ray *ray, const ray_lanes *lanes, const skim_world *world, ray_best *best)
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
            test_run(ray, lanes, world, skim_bvh_leaf_first(e.ref), skim_bvh_leaf_count(e.ref), best);
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
    ray_lanes lanes;
    ray_lanes_init(ray, &lanes);
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh)
        traverse(ray, &lanes, world, &best);
    else
        test_run(ray, &lanes, world, 0, world->triangle_count, &best);
    *t = best.t;
    return best.stored;
}
