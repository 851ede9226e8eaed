/* A mover's kept leaves (move_cache.c) gathered two four-lane steps at a
   time on eight lanes: compiled only with -mavx2 (src/move/meson.build),
   picked when the kernel set has 8 lanes or more.

   The leaf-by-leaf gather (gather_run.h) runs one four-lane step for
   every four triangles of a leaf, and a kept leaf holds 3.5 triangles on
   average, so most steps load, bound and box-test one leaf. Here the steps
   of the leaves, in order, are taken in pairs: the first in lanes 0-3, the
   second in lanes 4-7. Every lane performs the four-lane step's operations
   on the same numbers (the corner bounds, the box comparisons, v - start,
   then (m0 * x + m1 * y) + m2 * z, no contraction), and the kept lanes
   are appended in lane order, the first step's then the second's, as two
   four-lane appends would put them: the same buffer bit for bit. Far triangles, which the leaf gather clips
   (gather_clip.h), are not handled: a setup that may have them takes the
   leaf-by-leaf gather. */
#include "move/move_internal.h"
#include "gather/gather_run.h"

/* The packet kernel's 8-lane compress table (vpermps lane orders). */
#define SKIM_LANES SKIM_LANES_X86_256
#include "kernel/lanes.h"

#include <simde/x86/avx2.h>

/* One step of four lanes or fewer: triangles [at, at + lanes). */
typedef struct step {
    uint32_t at, lanes;
} step;

static inline __attribute__((always_inline)) void
gather_pair(const skim_world *world, const skim_path_gather *g, const simde__m256 box_min[3],
            const simde__m256 box_max[3], step a, step b, skim_candidates *out)
{
    simde__m256 corner[3][3];
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis) {
            const float *stored = world->vertex[v][axis];
            corner[v][axis] = simde_mm256_set_m128(simde_mm_loadu_ps(stored + b.at),
                                                   simde_mm_loadu_ps(stored + a.at));
        }
    simde__m256 inside = simde_mm256_castsi256_ps(simde_mm256_set1_epi32(-1));
    for (int axis = 0; axis < 3; ++axis) {
        /* skim_gather_corner_bounds on eight lanes. */
        const simde__m256 lo = simde_mm256_min_ps(
            corner[0][axis], simde_mm256_min_ps(corner[1][axis], corner[2][axis]));
        const simde__m256 hi = simde_mm256_max_ps(
            corner[0][axis], simde_mm256_max_ps(corner[1][axis], corner[2][axis]));
        inside = simde_mm256_and_ps(
            inside, simde_mm256_and_ps(simde_mm256_cmp_ps(lo, box_max[axis], SIMDE_CMP_LE_OS),
                                       simde_mm256_cmp_ps(hi, box_min[axis], SIMDE_CMP_GE_OS)));
    }
    const unsigned overlap = (unsigned)simde_mm256_movemask_ps(inside);
    unsigned keep_a = overlap & ((1u << a.lanes) - 1u);
    unsigned keep_b = (overlap >> 4) & ((1u << b.lanes) - 1u);
    if (!g->all_materials) {
        if (keep_a)
            keep_a = skim_material_lanes(g, world->material + a.at, a.lanes, keep_a);
        if (keep_b)
            keep_b = skim_material_lanes(g, world->material + b.at, b.lanes, keep_b);
    }
    if (!(keep_a | keep_b))
        return;
    /* skim_gather_lanes_to_unit on eight lanes. */
    simde__m256 unit[3][3];
    for (int v = 0; v < 3; ++v) {
        simde__m256 rel[3];
        for (int axis = 0; axis < 3; ++axis)
            rel[axis] = simde_mm256_sub_ps(
                corner[v][axis], simde_mm256_set_m128(g->start[axis], g->start[axis]));
        for (int k = 0; k < 3; ++k) {
            const simde__m256 m_kk = simde_mm256_set_m128(g->to_unit[k][k], g->to_unit[k][k]);
            if (g->diagonal) {
                unit[v][k] = simde_mm256_mul_ps(m_kk, rel[k]);
                continue;
            }
            const simde__m256 m_k0 = simde_mm256_set_m128(g->to_unit[k][0], g->to_unit[k][0]);
            const simde__m256 m_k1 = simde_mm256_set_m128(g->to_unit[k][1], g->to_unit[k][1]);
            const simde__m256 m_k2 = simde_mm256_set_m128(g->to_unit[k][2], g->to_unit[k][2]);
            unit[v][k] = simde_mm256_add_ps(
                simde_mm256_add_ps(simde_mm256_mul_ps(m_k0, rel[0]), simde_mm256_mul_ps(m_k1, rel[1])),
                simde_mm256_mul_ps(m_k2, rel[2]));
        }
    }
    /* Both halves appended at once, the kept lanes of the first step
       then those of the second, in lane order: the two four-lane appends'
       buffer, with one compress (vpermps) per array instead of two
       appends of four. The stores write eight lanes, within the room the
       caller reserved past the count. */
    const unsigned keep = keep_a | keep_b << 4;
    const simde__m256i order = simde_mm256_and_si256(
        simde_mm256_srlv_epi32(simde_mm256_set1_epi32((int32_t)skim_compress8_lanes[keep]),
                               simde_mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
        simde_mm256_set1_epi32(15));
    const uint32_t at = out->count;
    for (int v = 0; v < 3; ++v)
        for (int k = 0; k < 3; ++k)
            simde_mm256_storeu_ps(out->vertex[v][k] + at,
                                  simde_mm256_permutevar8x32_ps(unit[v][k], order));
    const simde__m256i triangle = simde_mm256_set_m128i(
        simde_mm_loadu_si128((const void *)(world->triangle_index + b.at)),
        simde_mm_loadu_si128((const void *)(world->triangle_index + a.at)));
    simde_mm256_storeu_si256((void *)(out->triangle + at),
                             simde_mm256_permutevar8x32_epi32(triangle, order));
    /* Materials widened to 32 bits for the same permutation, then narrowed
       (they are below 65,536, so the saturating pack is exact). */
    const simde__m256i material = simde_mm256_cvtepu16_epi32(simde_mm_unpacklo_epi64(
        simde_mm_loadl_epi64((const void *)(world->material + a.at)),
        simde_mm_loadl_epi64((const void *)(world->material + b.at))));
    const simde__m256i packed = simde_mm256_permutevar8x32_epi32(material, order);
    simde_mm_storeu_si128((void *)(out->material + at),
                          simde_mm_packus_epi32(simde_mm256_castsi256_si128(packed),
                                                simde_mm256_extracti128_si256(packed, 1)));
    /* Without -mpopcnt __builtin_popcount is a library call. */
    static const uint8_t bits4[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
    out->count = at + bits4[keep_a] + bits4[keep_b];
}

void skim_move_kept_gather_avx2(const skim_move_cache_entry *kept, const skim_world *world,
                                const skim_path_gather *g, skim_candidates *out)
{
    simde__m256 box_min[3], box_max[3];
    for (int axis = 0; axis < 3; ++axis) {
        box_min[axis] = simde_mm256_set_m128(g->box_min[axis], g->box_min[axis]);
        box_max[axis] = simde_mm256_set_m128(g->box_max[axis], g->box_max[axis]);
    }
    step waiting = { 0, 0 };
    bool have = false;
    for (uint32_t k = 0; k < kept->count; ++k) {
        const uint32_t first = skim_bvh_leaf_first(kept->leaf[k]);
        const uint32_t end = first + skim_bvh_leaf_count(kept->leaf[k]);
        for (uint32_t at = first; at < end; at += 4) {
            const step next = { at, end - at < 4 ? end - at : 4 };
            if (!have) {
                waiting = next;
                have = true;
                continue;
            }
            gather_pair(world, g, box_min, box_max, waiting, next, out);
            have = false;
        }
    }
    /* The last step alone: the second half reads the same (stored)
       triangles and keeps none of them. */
    if (have)
        gather_pair(world, g, box_min, box_max, waiting, (step){ waiting.at, 0 }, out);
}
