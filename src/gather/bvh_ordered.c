/* Front-to-back sweeps through the 8-wide quantised BVH (see bvh_ordered.h).

   The traversal is the ordered closest-hit traversal of ray tracers
   (Embree's BVH8 intersectors, Jolt's CastShape collectors with early-out
   fraction): at each node the segment start -> start + delta is slab-tested
   against the eight child boxes grown by the reach (the shape's bounding
   radius plus skim_sweep_box's rounding margins), the children it enters
   are pushed farthest first so the nearest is visited next, and a popped
   entry whose entry t exceeds the best contact so far (plus slack) is
   dropped with its whole subtree.

   Exactness (the answer must be bit-identical to the brute-force oracle):
   - A triangle's contact is computed by the same kernel from the same
     unit-space lanes (gather_run.h is the swept gather's own code),
     and the kernel's per-lane result does not depend on the upper bound it
     is given as long as that lane's t is <= the bound (its contract: the
     bound only drops roots that could not win). The running minimum of
     (t, triangle) is order-independent, so visiting fewer triangles in
     another order changes nothing as long as the winner is visited.
   - The winner W is visited: at its contact t_W the shape's centre, which
     moves along the segment, is within the bounding radius of W, so inside
     W's bounding box grown by the reach (which adds 0.1% of the radius and
     relative margins that dwarf the kernel's rounding), so inside every
     ancestor's (outward-rounded) box grown by the reach. Each of those boxes
     is therefore entered at some t <= t_W, up to the rounding of the slab
     products (a few ulps of t), and best t >= t_W at every moment, so
     entry t <= best t + SKIM_PATH_T_SLACK holds for every ancestor: none is
     dropped. The same holds for a tie (another triangle at exactly t_W with
     a lower index: it is entered by t_W too) and for t = 0. */
#include "gather/bvh_ordered.h"
#include "gather/gather_run.h"

#include <string.h>
#if defined(SKIM_BVH_ORDERED_AVX2)
#include <simde/x86/avx2.h>
#endif

/* Leaves are not run through the kernel one by one: a kernel call has a
   fixed cost (broadcasts, the cull box, the reduction) that a call of a
   few triangles pays in full (the winner's point and normal are left to
   one finish per sweep: sweep_deferred). Their triangles collect in the
   pending buffer while the traversal is among boxes that hold the path's
   start (entry t <= SLACK: never pruned whatever the kernel finds), up to
   FLUSH_AT of them; and, before the traversal moves on to a box the path
   enters after its start, the pending triangles run once there are at
   least three quarters of a packet of them (flush_before_later below:
   fewer wait, as their kernel call would rarely prune enough to pay for
   itself). The threshold trades a kernel call that prunes early against fuller
   packets, measured per width with bench/bvh/bench_sweep_path.c
   (docs/performance.md). */
#define FLUSH_AT 32u

/* The children of node whose box, grown by the reach, the segment enters
   at some t in [-SLACK, limit]; entry[slot] receives that entry t. The slab
   test of skim_bvh_walk_leaves' children_crossed (bvh_traverse.c) on the
   dequantised bounds, in world space, with the per-node constant folded
   first: a child's grown lower bound less the start is
   (origin - reach - start) + q * 2^exponent, its upper one
   (origin + 255 * 2^exponent + reach - start) - c * 2^exponent (c = the
   stored 255 - q). Every term is a world coordinate or the exact product of
   a byte and a power of two, so the rounding stays a few ulps of the
   coordinates, far inside the reach's relative margins, as in
   children_crossed; no product is 0 * inf (inverse_delta is finite). */
typedef struct path_lanes {
    float start[3], inverse_delta[3], reach[3];
} path_lanes;

/* Bytes 0..7 (upper = false) or 8..15 of row as two vectors of 4 floats. */
static inline void bytes_to_floats(simde__m128i row, bool upper, simde__m128 out[2])
{
    const simde__m128i zero = simde_mm_setzero_si128();
    simde__m128i words = upper ? simde_mm_unpackhi_epi8(row, zero) : simde_mm_unpacklo_epi8(row, zero);
    out[0] = simde_mm_cvtepi32_ps(simde_mm_unpacklo_epi16(words, zero));
    out[1] = simde_mm_cvtepi32_ps(simde_mm_unpackhi_epi16(words, zero));
}

/* A child's grown slab on one axis, less the start, is
   lo_base + q * scale (lower) and hi_base - c * scale (upper), c = 255 - q
   of the upper bound: the per-node scalars of children_entered, in one
   place so both widths fold them in exactly the same order. */
typedef struct slab_terms {
    float scale, lo_base, hi_base;
} slab_terms;

static inline slab_terms node_slab_terms(const skim_bvh_node *node, const path_lanes *p, int axis)
{
    float scale;
    int32_t bits = (127 + node->exponent[axis]) << 23;
    memcpy(&scale, &bits, sizeof scale);
    const float origin = node->origin[axis];
    return (slab_terms){ scale, (origin - p->reach[axis]) - p->start[axis],
                         ((origin + 255.0f * scale) + p->reach[axis]) - p->start[axis] };
}

#if defined(SKIM_BVH_ORDERED_AVX2)
/* The same slab test on all eight children at once in 256-bit lanes (this
   file is compiled a second time with -mavx2, see src/gather/meson.build and src/move/meson.build):
   each lane performs exactly the operations of the 128-bit version below,
   in the same order, so the entry t and the mask are the same bits; only
   the byte-to-float widening (one vpmovzxbd instead of two unpacks) and
   the halves are saved. */
static inline simde__m256 bytes_to_floats8(simde__m128i row, bool upper)
{
    return simde_mm256_cvtepi32_ps(simde_mm256_cvtepu8_epi32(upper ? simde_mm_srli_si128(row, 8) : row));
}

static inline unsigned children_entered(const skim_bvh_node *node, const path_lanes *p,
                                        float limit, float entry[SKIM_BVH_WIDTH],
                                        unsigned *at_start)
{
    const simde__m128i *rows = (const simde__m128i *)node->bounds;
    const simde__m128i row_xy = simde_mm_load_si128(rows), row_cxy = simde_mm_load_si128(rows + 1),
                       row_z = simde_mm_load_si128(rows + 2);
    const simde__m256 lo_q[3] = { bytes_to_floats8(row_xy, false), bytes_to_floats8(row_xy, true),
                                  bytes_to_floats8(row_z, false) };
    const simde__m256 c_q[3] = { bytes_to_floats8(row_cxy, false), bytes_to_floats8(row_cxy, true),
                                 bytes_to_floats8(row_z, true) };
    simde__m256 near = simde_mm256_set1_ps(-SKIM_PATH_T_SLACK);
    simde__m256 far = simde_mm256_set1_ps(limit);
    for (int axis = 0; axis < 3; ++axis) {
        const slab_terms terms = node_slab_terms(node, p, axis);
        const simde__m256 scale_v = simde_mm256_set1_ps(terms.scale);
        const simde__m256 lo_base = simde_mm256_set1_ps(terms.lo_base);
        const simde__m256 hi_base = simde_mm256_set1_ps(terms.hi_base);
        const simde__m256 inverse = simde_mm256_set1_ps(p->inverse_delta[axis]);
        simde__m256 t1 = simde_mm256_mul_ps(
            simde_mm256_add_ps(lo_base, simde_mm256_mul_ps(lo_q[axis], scale_v)), inverse);
        simde__m256 t2 = simde_mm256_mul_ps(
            simde_mm256_sub_ps(hi_base, simde_mm256_mul_ps(c_q[axis], scale_v)), inverse);
        near = simde_mm256_max_ps(near, simde_mm256_min_ps(t1, t2));
        far = simde_mm256_min_ps(far, simde_mm256_max_ps(t1, t2));
    }
    simde_mm256_storeu_ps(entry, near);
    *at_start = (unsigned)simde_mm256_movemask_ps(
        simde_mm256_cmp_ps(near, simde_mm256_set1_ps(SKIM_PATH_T_SLACK), SIMDE_CMP_LE_OQ));
    return (unsigned)simde_mm256_movemask_ps(simde_mm256_cmp_ps(near, far, SIMDE_CMP_LE_OQ)) &
           node->child_mask;
}

/* Bit i: child slot i is a leaf (the reference's sign bit, SKIM_BVH_LEAF_BIT). */
static inline unsigned leaf_children(const skim_bvh_node *node)
{
    return (unsigned)simde_mm256_movemask_ps(simde_mm256_castsi256_ps(
        simde_mm256_loadu_si256((const simde__m256i *)(const void *)node->child)));
}
#else
static inline unsigned children_entered(const skim_bvh_node *node, const path_lanes *p,
                                        float limit, float entry[SKIM_BVH_WIDTH],
                                        unsigned *at_start)
{
    const simde__m128i *rows = (const simde__m128i *)node->bounds;
    const simde__m128i row_xy = simde_mm_load_si128(rows), row_cxy = simde_mm_load_si128(rows + 1),
                       row_z = simde_mm_load_si128(rows + 2);
    /* (row, upper half) of lo and 255 - hi for each axis, per bvh.h. */
    simde__m128 lo_q[3][2], c_q[3][2];
    bytes_to_floats(row_xy, false, lo_q[0]);
    bytes_to_floats(row_xy, true, lo_q[1]);
    bytes_to_floats(row_z, false, lo_q[2]);
    bytes_to_floats(row_cxy, false, c_q[0]);
    bytes_to_floats(row_cxy, true, c_q[1]);
    bytes_to_floats(row_z, true, c_q[2]);
    simde__m128 near[2] = { simde_mm_set1_ps(-SKIM_PATH_T_SLACK), simde_mm_set1_ps(-SKIM_PATH_T_SLACK) };
    simde__m128 far[2] = { simde_mm_set1_ps(limit), simde_mm_set1_ps(limit) };
    for (int axis = 0; axis < 3; ++axis) {
        const slab_terms terms = node_slab_terms(node, p, axis);
        const simde__m128 scale_v = simde_mm_set1_ps(terms.scale);
        const simde__m128 lo_base = simde_mm_set1_ps(terms.lo_base);
        const simde__m128 hi_base = simde_mm_set1_ps(terms.hi_base);
        const simde__m128 inverse = simde_mm_set1_ps(p->inverse_delta[axis]);
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
    const simde__m128 slack = simde_mm_set1_ps(SKIM_PATH_T_SLACK);
    *at_start = (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near[0], slack)) |
                ((unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near[1], slack)) << 4);
    unsigned low = (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near[0], far[0]));
    unsigned high = (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near[1], far[1]));
    return (low | (high << 4)) & node->child_mask;
}

/* Bit i: child slot i is a leaf (the reference's sign bit, SKIM_BVH_LEAF_BIT). */
static inline unsigned leaf_children(const skim_bvh_node *node)
{
    const simde__m128i *child = (const simde__m128i *)(const void *)node->child;
    return (unsigned)simde_mm_movemask_ps(simde_mm_castsi128_ps(simde_mm_loadu_si128(child))) |
           ((unsigned)simde_mm_movemask_ps(simde_mm_castsi128_ps(simde_mm_loadu_si128(child + 1)))
            << 4);
}

#endif

typedef struct ordered_sweep {
    const skim_kernel_set *kernels;
    const float *delta_unit;
    bool cull_back_faces;
    skim_candidates *pending;
    skim_unit_hit *best;
    skim_unit_winner winner; /* point and normal computed once, at the end */
} ordered_sweep;

/* Pending triangles that run before a box the path enters after its start:
   three quarters of the kernel's packet (see FLUSH_AT). */
static inline uint32_t flush_before_later(const skim_kernel_set *kernels)
{
    const uint32_t width = kernels->width < 4 ? 4u : kernels->width;
    return 3u * width / 4u;
}

/* Runs the kernel over the pending triangles; best->t may drop. The
   packet kernels take the best so far as their bound and use max(1, bound)
   for the plane interval, so a lane's answer never depends on the bound
   its call got (src/kernel/packet_kernel.c): splitting the candidates over
   calls changes nothing. (The scalar reference, SKIM_ISA=reference, still
   uses the bound itself there; with it neither this traversal nor the
   swept gather matches brute force bit for bit in rare rounding cases.) */
static void flush(ordered_sweep *s)
{
    if (!s->pending->count)
        return;
    skim_candidates_pad_whole(s->pending);
    s->kernels->sweep_deferred(s->pending, s->delta_unit, s->cull_back_faces, s->best, &s->winner);
    s->pending->count = 0;
}

/* The traversal, compiled once per node test (see children_entered) and
   once per answer asked for (first_hit), so the closest-hit traversal
   pays nothing for the other. */
static inline __attribute__((always_inline)) skim_status
traverse(const skim_world *world, const skim_path_gather *g, const float delta_unit[3], bool cull_back_faces,
         const skim_kernel_set *kernels, skim_candidates *pending, const bool first_hit, skim_unit_hit *best)
{
    /* Room for a flush's worth, one more leaf and a padded packet. */
    skim_status status = skim_candidates_reserve(
        pending, FLUSH_AT + SKIM_BVH_MAX_LEAF + 2 * SKIM_MAX_PACKET_WIDTH);
    if (status != SKIM_OK)
        return status;
    pending->count = 0;
    ordered_sweep s = { .kernels = kernels, .delta_unit = delta_unit,
                        .cull_back_faces = cull_back_faces, .pending = pending, .best = best,
                        .winner = { .feature = -1 } };
    path_lanes p;
    memcpy(p.start, g->start_s, sizeof p.start);
    memcpy(p.inverse_delta, g->inverse_delta_s, sizeof p.inverse_delta);
    memcpy(p.reach, g->reach_s, sizeof p.reach);

    /* The box being visited is (ref, ref_t); entries behind it are
       (reference, entry t) on the stack. A node continues into its nearest
       entered child directly and pushes the others farthest first (the
       nearest-child shortcut of Embree's closest-hit traversal: no push and
       pop for the box visited next), so at most SKIM_BVH_WIDTH - 1 a level
       stay behind: SKIM_BVH_STACK_SIZE always suffices (bvh.h). Every box
       is checked against the best t when it is about to be visited, as
       before. */
    uint32_t stack_ref[SKIM_BVH_STACK_SIZE];
    float stack_t[SKIM_BVH_STACK_SIZE];
    uint32_t top = 0;
    uint32_t ref = world->bvh->root;
    float ref_t = -SKIM_PATH_T_SLACK;
    const skim_bvh_node *nodes = world->bvh->nodes;
    const uint32_t before_later = flush_before_later(kernels);
    for (;;) {
        /* Asked only whether the path meets anything: a contact says so. */
        if (first_hit && best->hit)
            break;
        float limit = best->t + SKIM_PATH_T_SLACK;
        /* An entry at t <= SLACK is visited whatever the kernel finds
           (best t >= 0), so pending triangles wait; before anything the
           path enters later, run them: the best t they give may drop it. */
        if (ref_t <= limit && ref_t > SKIM_PATH_T_SLACK && pending->count >= before_later) {
            flush(&s);
            limit = best->t + SKIM_PATH_T_SLACK;
        }
        if (ref_t <= limit) {
            if (skim_bvh_is_leaf(ref)) {
                status = skim_gather_run(world, g, skim_bvh_leaf_first(ref),
                                         skim_bvh_leaf_count(ref), true, limit, pending);
                if (status != SKIM_OK)
                    return status;
                if (pending->count >= FLUSH_AT)
                    flush(&s);
            } else {
                const skim_bvh_node *node = &nodes[ref];
                float entry[SKIM_BVH_WIDTH];
                unsigned at_start;
                unsigned hits = children_entered(node, &p, limit, entry, &at_start);
                /* Leaves the path holds at its start are never pruned
                   (entry t <= SLACK <= best t + SLACK): gathered now rather
                   than pushed, sorted and popped. Picked out by mask, not
                   by a branch per child. The kernel's answer does not
                   depend on the order triangles arrive in. */
                const unsigned start_leaves = hits & at_start & leaf_children(node);
                hits &= ~start_leaves;
                for (unsigned bits = start_leaves; bits; bits &= bits - 1u) {
                    const uint32_t child = node->child[__builtin_ctz(bits)];
                    status = skim_gather_run(world, g, skim_bvh_leaf_first(child),
                                             skim_bvh_leaf_count(child), true, limit, pending);
                    if (status != SKIM_OK)
                        return status;
                    if (pending->count >= FLUSH_AT) {
                        flush(&s);
                        limit = best->t + SKIM_PATH_T_SLACK;
                    }
                }
                if (hits) {
                    /* The rest by insertion sort, nearest last: all but
                       the nearest are pushed in this order, the nearest is
                       visited next. */
                    uint32_t order_ref[SKIM_BVH_WIDTH];
                    float order_t[SKIM_BVH_WIDTH];
                    uint32_t n = 0;
                    while (hits) {
                        unsigned slot = (unsigned)__builtin_ctz(hits);
                        hits &= hits - 1u;
                        float t = entry[slot];
                        uint32_t k = n++;
                        while (k && order_t[k - 1] < t) {
                            order_t[k] = order_t[k - 1];
                            order_ref[k] = order_ref[k - 1];
                            --k;
                        }
                        order_t[k] = t;
                        order_ref[k] = node->child[slot];
                    }
                    for (uint32_t k = 0; k + 1 < n; ++k) {
                        stack_ref[top] = order_ref[k];
                        stack_t[top++] = order_t[k];
                    }
                    ref = order_ref[n - 1];
                    ref_t = order_t[n - 1];
                    continue;
                }
            }
        }
        if (!top)
            break;
        --top;
        ref = stack_ref[top];
        ref_t = stack_t[top];
    }
    flush(&s);
    skim_unit_winner_finish(&s.winner, delta_unit, best);
    return SKIM_OK;
}

#if defined(SKIM_BVH_ORDERED_AVX2)
skim_status skim_bvh_sweep_ordered_avx2(const skim_world *world, const skim_path_gather *g,
                                        const float delta_unit[3], bool cull_back_faces,
                                        const skim_kernel_set *kernels, skim_candidates *pending,
                                        bool first_hit, skim_unit_hit *best)
#else
static skim_status sweep_ordered(const skim_world *world, const skim_path_gather *g,
                                 const float delta_unit[3], bool cull_back_faces,
                                 const skim_kernel_set *kernels, skim_candidates *pending,
                                 bool first_hit, skim_unit_hit *best)
#endif
{
    return first_hit ? traverse(world, g, delta_unit, cull_back_faces, kernels, pending, true, best)
                     : traverse(world, g, delta_unit, cull_back_faces, kernels, pending, false, best);
}

#if !defined(SKIM_BVH_ORDERED_AVX2)
skim_status skim_bvh_sweep_ordered(const skim_world *world, const skim_path_gather *g,
                                   const float delta_unit[3], bool cull_back_faces,
                                   const skim_kernel_set *kernels, skim_candidates *pending,
                                   bool first_hit, skim_unit_hit *best)
{
#if defined(SKIM_BVH_HAVE_AVX2_TRAVERSAL)
    /* Kernel sets of 8 lanes or more (avx2, avx512) are only chosen on a
       CPU with AVX2, so the 8-wide node test can run with them. */
    if (kernels->width >= 8)
        return skim_bvh_sweep_ordered_avx2(world, g, delta_unit, cull_back_faces, kernels, pending,
                                           first_hit, best);
#endif
    return sweep_ordered(world, g, delta_unit, cull_back_faces, kernels, pending, first_hit, best);
}
#endif
