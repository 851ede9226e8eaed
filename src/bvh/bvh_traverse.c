/* Box queries through the 8-wide quantised tree. */
#include "bvh/bvh.h"

#include <simde/x86/sse2.h>
#include <stddef.h>
#include <string.h>

_Static_assert(offsetof(skim_bvh_node, origin) + 16 <= sizeof(skim_bvh_node),
               "overlapping_children loads 16 bytes at origin");

/* The query box in a node's 8-bit grid, then eight children tested at once
   (SSE2, native on every x86-64 and through SIMDe elsewhere).

   Conservative: a child is reported whenever its true box may overlap the
   query. Child bounds are rounded outward at build; the query's grid
   coordinates are widened by 1/256 of a cell, far more than the rounding of
   (q - origin), which is at most 2^-14 cells inside the grid (the scale is a
   power of two, so the multiplication is exact). Coordinates past the grid
   clamp to its edge, which can only let more children through. */
static inline unsigned overlapping_children(const skim_bvh_node *node, simde__m128 query_min,
                                            simde__m128 query_max)
{
    const simde__m128 margin = simde_mm_set1_ps(1.0f / 256.0f);
    const simde__m128 top = simde_mm_set1_ps(255.0f);
    const simde__m128 zero = simde_mm_setzero_ps();
    /* origin[0..2] and 2^-exponent[0..2] as vectors whose fourth lanes are
       0.0f and 1.0f, built in registers rather than through arrays on the
       stack: this runs for every node of every move's gathers. The node
       stores origin[3], then exponent[3] and child_mask, so the 16 bytes
       loaded at origin are inside it; the fourth is masked off. */
    const simde__m128i first_three = simde_mm_set_epi32(0, -1, -1, -1);
    const unsigned char *origin_bytes = (const unsigned char *)node + offsetof(skim_bvh_node, origin);
    simde__m128 origin = simde_mm_and_ps(simde_mm_loadu_ps((const float *)(const void *)origin_bytes),
                                         simde_mm_castsi128_ps(first_three));
    /* Byte k of the register = exponent[k], whatever the host's byte order. */
    const uint32_t exponent_bytes = (uint32_t)(uint8_t)node->exponent[0] |
                                    (uint32_t)(uint8_t)node->exponent[1] << 8 |
                                    (uint32_t)(uint8_t)node->exponent[2] << 16;
    simde__m128i spread = simde_mm_cvtsi32_si128((int32_t)exponent_bytes);
    spread = simde_mm_unpacklo_epi8(spread, spread);
    spread = simde_mm_unpacklo_epi16(spread, spread);
    /* Each int8 exponent sign-extended to its 32-bit lane; lane 3 is 0, so
       its scale is 2^0. */
    const simde__m128i exponent = simde_mm_srai_epi32(spread, 24);
    const simde__m128 inverse_scale = simde_mm_castsi128_ps(
        simde_mm_slli_epi32(simde_mm_sub_epi32(simde_mm_set1_epi32(127), exponent), 23));

    simde__m128 low = simde_mm_sub_ps(simde_mm_mul_ps(simde_mm_sub_ps(query_min, origin), inverse_scale),
                                      margin);
    simde__m128 high = simde_mm_add_ps(simde_mm_mul_ps(simde_mm_sub_ps(query_max, origin), inverse_scale),
                                       margin);
    low = simde_mm_min_ps(simde_mm_max_ps(low, zero), top);
    high = simde_mm_min_ps(simde_mm_max_ps(high, zero), top);
    /* Truncation is floor here: both are >= 0. A child passes when
       lo <= floor(high) and hi >= floor(low), i.e. 255 - hi <= 255 - floor(low). */
    simde__m128i high_q = simde_mm_cvttps_epi32(high);
    simde__m128i low_c = simde_mm_sub_epi32(simde_mm_set1_epi32(255), simde_mm_cvttps_epi32(low));
    /* Bytes hx hy cx cy hz cz (c = 255 - low), then each broadcast to 8. */
    simde__m128i first = simde_mm_castps_si128(simde_mm_shuffle_ps(
        simde_mm_castsi128_ps(high_q), simde_mm_castsi128_ps(low_c), SIMDE_MM_SHUFFLE(1, 0, 1, 0)));
    simde__m128i second = simde_mm_unpackhi_epi32(high_q, low_c);
    simde__m128i bytes = simde_mm_packus_epi16(simde_mm_packs_epi32(first, second),
                                               simde_mm_setzero_si128());
    simde__m128i doubled = simde_mm_unpacklo_epi8(bytes, bytes);
    simde__m128i quad_lo = simde_mm_unpacklo_epi16(doubled, doubled);
    simde__m128i quad_hi = simde_mm_unpackhi_epi16(doubled, doubled);
    simde__m128i query_xy = simde_mm_unpacklo_epi32(quad_lo, quad_lo);  /* hx x8 | hy x8 */
    simde__m128i query_cxy = simde_mm_unpackhi_epi32(quad_lo, quad_lo); /* cx x8 | cy x8 */
    simde__m128i query_z = simde_mm_unpacklo_epi32(quad_hi, quad_hi);   /* hz x8 | cz x8 */

    const simde__m128i *rows = (const simde__m128i *)node->bounds;
    simde__m128i row_xy = simde_mm_load_si128(rows);     /* lo x | lo y */
    simde__m128i row_cxy = simde_mm_load_si128(rows + 1); /* 255-hi x | 255-hi y */
    simde__m128i row_z = simde_mm_load_si128(rows + 2);  /* lo z | 255-hi z */
    simde__m128i pass = simde_mm_and_si128(
        simde_mm_and_si128(simde_mm_cmpeq_epi8(simde_mm_max_epu8(row_xy, query_xy), query_xy),
                           simde_mm_cmpeq_epi8(simde_mm_max_epu8(row_cxy, query_cxy), query_cxy)),
        simde_mm_cmpeq_epi8(simde_mm_max_epu8(row_z, query_z), query_z));
    unsigned bits = (unsigned)simde_mm_movemask_epi8(pass);
    return bits & (bits >> 8) & node->child_mask;
}

/* The children whose dequantised box, grown by reach, the segment crosses
   (the slab test of gather.c's segment_crosses, on eight boxes). Done in
   world space, origin + q * 2^e being exact but for one rounding, so the
   rounding stays a few ulps of the coordinates, far inside the reach's
   margin. */
typedef struct segment_lanes {
    simde__m128 start[3], inverse_delta[3], reach[3];
} segment_lanes;

static inline void dequantise(simde__m128i row, bool upper_half, bool complemented, float origin,
                              float scale, simde__m128 out[2])
{
    simde__m128i zero = simde_mm_setzero_si128();
    simde__m128i bytes16 = upper_half ? simde_mm_unpackhi_epi8(row, zero) : simde_mm_unpacklo_epi8(row, zero);
    simde__m128i lanes[2] = { simde_mm_unpacklo_epi16(bytes16, zero), simde_mm_unpackhi_epi16(bytes16, zero) };
    for (int half = 0; half < 2; ++half) {
        simde__m128 q = simde_mm_cvtepi32_ps(lanes[half]);
        if (complemented)
            q = simde_mm_sub_ps(simde_mm_set1_ps(255.0f), q);
        out[half] = simde_mm_add_ps(simde_mm_set1_ps(origin), simde_mm_mul_ps(q, simde_mm_set1_ps(scale)));
    }
}

static inline unsigned children_crossed(const skim_bvh_node *node, const segment_lanes *seg)
{
    const simde__m128i *rows = (const simde__m128i *)node->bounds;
    simde__m128i row_xy = simde_mm_load_si128(rows), row_cxy = simde_mm_load_si128(rows + 1),
                 row_z = simde_mm_load_si128(rows + 2);
    /* (row, upper half) of lo and 255 - hi for each axis, per bvh.h. */
    const simde__m128i lo_row[3] = { row_xy, row_xy, row_z };
    const bool lo_upper[3] = { false, true, false };
    const simde__m128i hi_row[3] = { row_cxy, row_cxy, row_z };
    const bool hi_upper[3] = { false, true, true };
    simde__m128 near[2] = { simde_mm_set1_ps(-1e-3f), simde_mm_set1_ps(-1e-3f) };
    simde__m128 far[2] = { simde_mm_set1_ps(1.0f + 1e-3f), simde_mm_set1_ps(1.0f + 1e-3f) };
    for (int axis = 0; axis < 3; ++axis) {
        float scale;
        int32_t bits = (127 + node->exponent[axis]) << 23;
        memcpy(&scale, &bits, sizeof scale);
        simde__m128 lo[2], hi[2];
        dequantise(lo_row[axis], lo_upper[axis], false, node->origin[axis], scale, lo);
        dequantise(hi_row[axis], hi_upper[axis], true, node->origin[axis], scale, hi);
        for (int half = 0; half < 2; ++half) {
            simde__m128 t1 = simde_mm_mul_ps(
                simde_mm_sub_ps(simde_mm_sub_ps(lo[half], seg->reach[axis]), seg->start[axis]),
                seg->inverse_delta[axis]);
            simde__m128 t2 = simde_mm_mul_ps(
                simde_mm_sub_ps(simde_mm_add_ps(hi[half], seg->reach[axis]), seg->start[axis]),
                seg->inverse_delta[axis]);
            near[half] = simde_mm_max_ps(near[half], simde_mm_min_ps(t1, t2));
            far[half] = simde_mm_min_ps(far[half], simde_mm_max_ps(t1, t2));
        }
    }
    unsigned low = (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near[0], far[0]));
    unsigned high = (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near[1], far[1]));
    return low | (high << 4);
}

void skim_bvh_walk_sweep(skim_bvh_walk *walk, const float start[3], const float inverse_delta[3],
                         const float reach[3])
{
    walk->swept = true;
    memcpy(walk->start, start, sizeof walk->start);
    memcpy(walk->inverse_delta, inverse_delta, sizeof walk->inverse_delta);
    memcpy(walk->reach, reach, sizeof walk->reach);
}

void skim_bvh_walk_begin(skim_bvh_walk *walk, const struct skim_bvh *bvh, skim_vec3 bounds_min,
                         skim_vec3 bounds_max, const float box_min[3], const float box_max[3])
{
    const float bounds_lo[3] = { bounds_min.x, bounds_min.y, bounds_min.z };
    const float bounds_hi[3] = { bounds_max.x, bounds_max.y, bounds_max.z };
    walk->nodes = bvh->nodes;
    walk->top = 0;
    walk->swept = false;
    memcpy(walk->query_min, box_min, sizeof walk->query_min);
    memcpy(walk->query_max, box_max, sizeof walk->query_max);
    /* The root has no parent to test it: compare with the exact bounds of
       everything under it here. */
    for (int axis = 0; axis < 3; ++axis)
        if (!(box_min[axis] <= bounds_hi[axis] && box_max[axis] >= bounds_lo[axis]))
            return;
    walk->stack[walk->top++] = bvh->root;
}

uint32_t skim_bvh_walk_leaves(skim_bvh_walk *walk, uint32_t *refs, uint32_t capacity)
{
    float query_min[4] = { walk->query_min[0], walk->query_min[1], walk->query_min[2], 0.0f };
    float query_max[4] = { walk->query_max[0], walk->query_max[1], walk->query_max[2], 0.0f };
    const simde__m128 q_min = simde_mm_loadu_ps(query_min), q_max = simde_mm_loadu_ps(query_max);
    const skim_bvh_node *nodes = walk->nodes;
    uint32_t *stack = walk->stack;
    segment_lanes seg;
    const bool swept = walk->swept;
    if (swept)
        for (int axis = 0; axis < 3; ++axis) {
            seg.start[axis] = simde_mm_set1_ps(walk->start[axis]);
            seg.inverse_delta[axis] = simde_mm_set1_ps(walk->inverse_delta[axis]);
            seg.reach[axis] = simde_mm_set1_ps(walk->reach[axis]);
        }
    uint32_t top = walk->top, written = 0;
    while (top && written + SKIM_BVH_WIDTH <= capacity) {
        uint32_t ref = stack[--top];
        if (skim_bvh_is_leaf(ref)) { /* only a root can be a leaf on the stack */
            refs[written++] = ref;
            continue;
        }
        const skim_bvh_node *node = &nodes[ref];
        unsigned hits = overlapping_children(node, q_min, q_max);
        if (swept && hits)
            hits &= children_crossed(node, &seg);
        /* Children in slot order, nodes pushed so the first pops first:
           leaves come out in storage order within a node, which keeps the
           gather's reads moving forward through memory. Leaves and nodes
           are told apart by mask (the references' sign bits,
           SKIM_BVH_LEAF_BIT), not by a branch per child. */
        const simde__m128i *child = (const simde__m128i *)(const void *)node->child;
        const unsigned leaf_slots =
            (unsigned)simde_mm_movemask_ps(simde_mm_castsi128_ps(simde_mm_loadu_si128(child))) |
            ((unsigned)simde_mm_movemask_ps(simde_mm_castsi128_ps(simde_mm_loadu_si128(child + 1)))
             << 4);
        for (unsigned bits = hits & leaf_slots; bits; bits &= bits - 1u)
            refs[written++] = node->child[__builtin_ctz(bits)];
        for (unsigned bits = hits & ~leaf_slots; bits;) {
            const unsigned slot = 31u - (unsigned)__builtin_clz(bits);
            bits &= ~(1u << slot);
            stack[top++] = node->child[slot];
        }
    }
    walk->top = top;
    return written;
}

void skim_bvh_visit_box(const struct skim_bvh *bvh, skim_vec3 bounds_min, skim_vec3 bounds_max,
                        const float box_min[3], const float box_max[3], skim_triangle_run_fn visit,
                        void *ctx)
{
    skim_bvh_walk walk;
    skim_bvh_walk_begin(&walk, bvh, bounds_min, bounds_max, box_min, box_max);
    uint32_t refs[64];
    uint32_t count;
    while ((count = skim_bvh_walk_leaves(&walk, refs, 64)) != 0)
        for (uint32_t i = 0; i < count; ++i)
            visit(ctx, skim_bvh_leaf_first(refs[i]), skim_bvh_leaf_count(refs[i]));
}
