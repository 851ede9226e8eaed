/* The leaf gather itself, shared by src/gather/gather.c (box and swept gathers,
   brute force) and src/gather/bvh_ordered.c (the ordered traversal's leaves).
   Inline in a header so that the traversal's AVX2 build (bvh_ordered.c
   compiled a second time, src/gather/meson.build and src/move/meson.build) gets it in VEX encodings
   and without a call per leaf; every build performs the same IEEE
   operations in the same order (no FMA contraction anywhere), so a triangle
   lands in the buffer with the same bits whichever copy gathered it.

   Four stored triangles are handled at once (SSE2: native on x86-64,
   SIMDe's portable code elsewhere): their boxes tested against the query,
   their corners moved and transformed, and the survivors appended. Every
   lane performs exactly the scalar sequence (v - start, then
   (m0 * x + m1 * y) + m2 * z), so the BVH and the brute-force oracle hand
   the kernels identical numbers. Internal. */
#ifndef SKIM_GATHER_RUN_H
#define SKIM_GATHER_RUN_H

#include "kernel/kernel.h"
#include "world/world.h"
#include "gather/bvh_ordered.h"
#include "gather/gather_clip.h"

#include <simde/x86/sse2.h>
#include <string.h>

/* Lanes whose box, grown by reach, the segment crosses: the slab test, with
   1/delta replaced by +-1e30 for a zero component so that no lane computes
   0 * inf (a NaN): a point segment then passes exactly when it is inside. */
static inline unsigned skim_segment_crosses(const skim_path_gather *g, simde__m128 lo[3], simde__m128 hi[3],
                                float t_limit)
{
    simde__m128 near = simde_mm_set1_ps(-SKIM_PATH_T_SLACK);
    simde__m128 far = simde_mm_set1_ps(t_limit);
    for (int axis = 0; axis < 3; ++axis) {
        simde__m128 t1 = simde_mm_mul_ps(simde_mm_sub_ps(simde_mm_sub_ps(lo[axis], g->reach[axis]),
                                                         g->start[axis]),
                                         g->inverse_delta[axis]);
        simde__m128 t2 = simde_mm_mul_ps(simde_mm_sub_ps(simde_mm_add_ps(hi[axis], g->reach[axis]),
                                                         g->start[axis]),
                                         g->inverse_delta[axis]);
        near = simde_mm_max_ps(near, simde_mm_min_ps(t1, t2));
        far = simde_mm_min_ps(far, simde_mm_max_ps(t1, t2));
    }
    return (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near, far));
}

static inline bool skim_material_collides(uint64_t mask, uint16_t material)
{
    return material >= 64 || ((mask >> material) & 1u);
}

/* Lanes whose box [lo, hi] overlaps the query box. */
static inline unsigned skim_box_overlaps(const skim_path_gather *g, const simde__m128 lo[3],
                                         const simde__m128 hi[3])
{
    simde__m128 inside = simde_mm_castsi128_ps(simde_mm_set1_epi32(-1));
    for (int axis = 0; axis < 3; ++axis) {
        inside = simde_mm_and_ps(inside,
                                 simde_mm_and_ps(simde_mm_cmple_ps(lo[axis], g->box_max[axis]),
                                                 simde_mm_cmpge_ps(hi[axis], g->box_min[axis])));
    }
    return (unsigned)simde_mm_movemask_ps(inside);
}

/* keep less the first `lanes` lanes whose material the query's mask leaves out. */
static inline unsigned skim_material_lanes(const skim_path_gather *g, const uint16_t *material,
                                           uint32_t lanes, unsigned keep)
{
    for (uint32_t lane = 0; lane < lanes; ++lane)
        if (!skim_material_collides(g->material_mask, material[lane]))
            keep &= ~(1u << lane);
    return keep;
}

/* Lanes whose box leaves the fast path's region start +- SKIM_GATHER_FAR_RADII
   smallest radii (gather_clip.h): they are clipped. */
static inline unsigned skim_far_lanes(const skim_path_gather *g, const simde__m128 lo[3],
                                      const simde__m128 hi[3])
{
    simde__m128 out = simde_mm_or_ps(simde_mm_cmplt_ps(lo[0], g->near_min[0]),
                                     simde_mm_cmpgt_ps(hi[0], g->near_max[0]));
    for (int axis = 1; axis < 3; ++axis)
        out = simde_mm_or_ps(out, simde_mm_or_ps(simde_mm_cmplt_ps(lo[axis], g->near_min[axis]),
                                                 simde_mm_cmpgt_ps(hi[axis], g->near_max[axis])));
    return (unsigned)simde_mm_movemask_ps(out);
}

/* Four triangles' corners (world space) moved to unit space relative to
   the start: every lane performs v - start, then (m0 * x + m1 * y) + m2 * z
   (one product per coordinate without rotation, see below). */
static inline void skim_gather_lanes_to_unit(const skim_path_gather *g, const simde__m128 corner[3][3],
                                             simde__m128 unit[3][3])
{
    for (int v = 0; v < 3; ++v) {
        simde__m128 rel[3];
        for (int axis = 0; axis < 3; ++axis)
            rel[axis] = simde_mm_sub_ps(corner[v][axis], g->start[axis]);
        /* Without rotation the off-diagonal products are zeros and the
           sums below return the diagonal product unchanged (up to the
           sign of an exact zero), so one multiply per coordinate does:
           the common case of spheres and upright shapes. Every gather
           (BVH, brute force, moves) takes the same branch for the same
           shape, so they still hand the kernels identical bits. */
        if (g->diagonal) {
            for (int k = 0; k < 3; ++k)
                unit[v][k] = simde_mm_mul_ps(g->to_unit[k][k], rel[k]);
            continue;
        }
        for (int k = 0; k < 3; ++k)
            unit[v][k] = simde_mm_add_ps(
                simde_mm_add_ps(simde_mm_mul_ps(g->to_unit[k][0], rel[0]),
                                simde_mm_mul_ps(g->to_unit[k][1], rel[1])),
                simde_mm_mul_ps(g->to_unit[k][2], rel[2]));
    }
}

/* Appends the lanes of unit in keep (bit i: lane i), in lane order, with
   their triangle indices and materials (four each, from triangle and
   material). The caller has reserved SKIM_MAX_PACKET_WIDTH lanes past
   out->count: whole 4-lane stores may write past the last kept lane. */
static inline void skim_gather_append_lanes(const simde__m128 unit[3][3], unsigned keep,
                                            const uint32_t *triangle, const uint16_t *material,
                                            skim_candidates *out)
{
    uint32_t at = out->count;
    if ((keep & (keep + 1u)) == 0) {
        /* The kept lanes are a prefix (the common case: a whole packet,
           or the tail of a run): store all four, advance by the kept. */
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                simde_mm_storeu_ps(out->vertex[v][k] + at, unit[v][k]);
        memcpy(out->triangle + at, triangle, 4 * sizeof(uint32_t));
        memcpy(out->material + at, material, 4 * sizeof(uint16_t));
        /* keep is a prefix mask: its length is the bit count, and
           without -mpopcnt __builtin_popcount is a library call. */
        static const uint8_t prefix_length[16] = { 0, 1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4 };
        out->count += prefix_length[keep];
        return;
    }
    float lanes_out[3][3][4];
    for (int v = 0; v < 3; ++v)
        for (int k = 0; k < 3; ++k)
            simde_mm_storeu_ps(lanes_out[v][k], unit[v][k]);
    for (uint32_t lane = 0; lane < 4; ++lane) {
        if (!((keep >> lane) & 1u))
            continue;
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                out->vertex[v][k][at] = lanes_out[v][k][lane];
        out->triangle[at] = triangle[lane];
        out->material[at] = material[lane];
        ++at;
    }
    out->count = at;
}

/* Each lane's triangle box from its corners: the minima and maxima every
   box test compares (skim_gather_run here, the move's packed walk in
   move_walk_pack.c), so both keep the same triangles bit for bit. */
static inline void skim_gather_corner_bounds(const simde__m128 corner[3][3], simde__m128 lo[3],
                                             simde__m128 hi[3])
{
    for (int axis = 0; axis < 3; ++axis) {
        lo[axis] = simde_mm_min_ps(corner[0][axis], simde_mm_min_ps(corner[1][axis], corner[2][axis]));
        hi[axis] = simde_mm_max_ps(corner[0][axis], simde_mm_max_ps(corner[1][axis], corner[2][axis]));
    }
}

/* Appends the triangles of stored run [first, first + count) that pass the
   material mask and, when cull_by_box, whose box overlaps the query (and,
   for a swept setup, whose grown box the segment enters by t_limit). The
   caller has reserved count + SKIM_MAX_PACKET_WIDTH lanes past out->count:
   whole 4-lane stores may write past the last kept lane. A far triangle
   (gather_clip.h) is clipped into up to SKIM_GATHER_CLIP_MAX_PIECES pieces,
   for which the slow path reserves more room itself (so out's arrays may
   move); SKIM_ERROR_OUT_OF_MEMORY if it cannot, SKIM_OK otherwise. */
static inline __attribute__((always_inline)) skim_status
skim_gather_run_inlined(const skim_world *world, const skim_path_gather *g, uint32_t first,
                        uint32_t count, bool cull_by_box, float t_limit, skim_candidates *out)
{
    const uint32_t end = first + count;
    for (uint32_t i = first; i < end; i += 4) {
        uint32_t lanes = end - i < 4 ? end - i : 4;
        unsigned keep = (1u << lanes) - 1u;
        simde__m128 corner[3][3];
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                corner[v][axis] = simde_mm_loadu_ps(world->vertex[v][axis] + i);
        simde__m128 lo[3], hi[3];
        skim_gather_corner_bounds(corner, lo, hi);
        /* Far triangles take the slow path (rare: a triangle reaching
           thousands of radii from the start; never when the whole world is
           near, see skim_gather_clip_setup). Tested here, while lo and hi
           are in registers anyway (keeping them for later would spill
           them). A branch per packet rather than a loop versioned on
           far_possible: with gcc the versioned loop is not cheaper. */
        unsigned far = g->far_possible ? skim_far_lanes(g, lo, hi) : 0u;
        if (cull_by_box) {
            keep &= skim_box_overlaps(g, lo, hi);
            /* Not only a cull: it makes the BVH's and brute force's
               candidates the same set (a triangle's grown box entered by
               the segment lies in a leaf's grown box entered by it), so
               their answers agree even where the kernel's float error
               makes a false contact within its stated accuracy. No suite
               fails without it, so the guarantee is written here. */
            if (keep && g->swept)
                keep &= skim_segment_crosses(g, lo, hi, t_limit);
        }
        if (!g->all_materials)
            keep = skim_material_lanes(g, world->material + i, lanes, keep);
        if (!keep)
            continue;
        far &= keep;

        simde__m128 unit[3][3];
        skim_gather_lanes_to_unit(g, corner, unit);
        if (__builtin_expect(far != 0, 0)) {
            float lanes_out[3][3][4];
            for (int v = 0; v < 3; ++v)
                for (int k = 0; k < 3; ++k)
                    simde_mm_storeu_ps(lanes_out[v][k], unit[v][k]);
            skim_status status = skim_gather_clip_packet(world, g, i, keep, far,
                                                         (const float(*)[3][4])lanes_out,
                                                         end - i, out);
            if (status != SKIM_OK)
                return status;
            continue;
        }
        skim_gather_append_lanes(unit, keep, world->triangle_index + i, world->material + i, out);
    }
    return SKIM_OK;
}

/* skim_gather_run_inlined, left to the compiler to inline or not; loops
   over many short leaves (a move's kept leaves, 2 to 4 triangles each)
   call the inlined one, where a call per leaf is a large share of a
   leaf's work. */
static inline skim_status skim_gather_run(const skim_world *world, const skim_path_gather *g,
                                          uint32_t first, uint32_t count, bool cull_by_box,
                                          float t_limit, skim_candidates *out)
{
    return skim_gather_run_inlined(world, g, first, count, cull_by_box, t_limit, out);
}

#endif /* SKIM_GATHER_RUN_H */
