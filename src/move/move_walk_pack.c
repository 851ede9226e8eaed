/* A kept walk's triangles, packed for the movers that reuse it.

   A batch walks the BVH once for a box that holds the next movers' boxes
   too (move_gather.c), and each of those movers then gathers from the
   walk's leaves. Leaf by leaf, that gather runs one 4-lane step per leaf
   of 2 to 4 triangles, loading all nine corners and taking their minima
   and maxima before the box test rejects about half of them, and it is a
   large share of a move. Here the walk's triangles are copied once into
   one dense run,
   with their boxes, and a mover tests four at a time against its box,
   loading the corners of the packets that keep something.

   Bit for bit the leaf-by-leaf gather's buffer: the same triangles in the
   same order (the walk's leaves in order, each leaf's triangles in
   order), the same box test on the same minima and maxima (computed here
   with the same operations), the same material test and the same
   transform and appending code (gather_run.h). Far triangles, which the
   leaf gather clips (gather_clip.h), are not handled here: a move whose
   box setup says far triangles are possible gathers leaf by leaf. */
#include "move/move_internal.h"
#include "gather/gather_run.h"

#include <stdlib.h>
#include <string.h>
#if defined(SKIM_WALK_PACK_AVX2)
#include <simde/x86/avx2.h>
#endif

#if defined(SKIM_WALK_PACK_AVX2)
/* The gather with the box test on eight lanes at once (this file compiled
   a second time with -mavx2, src/move/meson.build): the same comparisons
   on the same numbers, so the same lanes are kept; the kept ones go
   through the 4-lane transform and append as below. Half the box tests
   of the 4-lane loop, which are most of a gather's work: most packets
   keep nothing. */
void skim_walk_pack_gather_avx2(const skim_walk_pack *pack, const skim_path_gather *g,
                                skim_candidates *out)
{
    simde__m256 box_min[3], box_max[3];
    for (int axis = 0; axis < 3; ++axis) {
        box_min[axis] = simde_mm256_broadcastss_ps(g->box_min[axis]);
        box_max[axis] = simde_mm256_broadcastss_ps(g->box_max[axis]);
    }
    const uint32_t count = pack->count;
    for (uint32_t i = 0; i < count; i += 8) {
        simde__m256 inside = simde_mm256_castsi256_ps(simde_mm256_set1_epi32(-1));
        for (int axis = 0; axis < 3; ++axis)
            inside = simde_mm256_and_ps(
                inside, simde_mm256_and_ps(
                            simde_mm256_cmp_ps(simde_mm256_load_ps(pack->lo[axis] + i),
                                               box_max[axis], SIMDE_CMP_LE_OS),
                            simde_mm256_cmp_ps(simde_mm256_load_ps(pack->hi[axis] + i),
                                               box_min[axis], SIMDE_CMP_GE_OS)));
        unsigned keep = (unsigned)simde_mm256_movemask_ps(inside);
        if (!keep)
            continue;
        if (!g->all_materials)
            keep = skim_material_lanes(g, pack->material + i, 8, keep);
        for (uint32_t half = 0; half < 8; half += 4) {
            const unsigned lanes = (keep >> half) & 15u;
            if (!lanes)
                continue;
            simde__m128 corner[3][3], unit[3][3];
            for (int v = 0; v < 3; ++v)
                for (int axis = 0; axis < 3; ++axis)
                    corner[v][axis] = simde_mm_load_ps(pack->vertex[v][axis] + i + half);
            skim_gather_lanes_to_unit(g, corner, unit);
            skim_gather_append_lanes(unit, lanes, pack->triangle + i + half,
                                     pack->material + i + half, out);
        }
    }
}
#else

void skim_walk_pack_free(skim_walk_pack *pack)
{
    free(pack->block);
    memset(pack, 0, sizeof *pack);
}

/* Room for `lanes` lanes (a multiple of 4): fifteen float arrays, the
   indices and the materials in one 64-byte aligned block. Grown, never
   shrunk: a crowd's walks soon fit. */
static skim_status reserve(skim_walk_pack *pack, uint32_t lanes)
{
    if (lanes <= pack->capacity)
        return SKIM_OK;
    uint32_t capacity = pack->capacity ? pack->capacity : 256;
    while (capacity < lanes) {
        if (capacity > UINT32_MAX / 2)
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_move: a walk of %u triangles", lanes);
        capacity *= 2;
    }
    /* Each array starts on a 64-byte boundary: capacity is a multiple of 64. */
    const size_t floats = (size_t)capacity * sizeof(float);
    const size_t bytes = 16 * floats + (size_t)capacity * sizeof(uint16_t);
    unsigned char *block = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!block)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_move: a walk of %u triangles", lanes);
    free(pack->block);
    pack->block = block;
    pack->capacity = capacity;
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            pack->vertex[v][axis] = (float *)(void *)(block + (3 * v + axis) * floats);
    for (int axis = 0; axis < 3; ++axis) {
        pack->lo[axis] = (float *)(void *)(block + (9 + axis) * floats);
        pack->hi[axis] = (float *)(void *)(block + (12 + axis) * floats);
    }
    pack->triangle = (uint32_t *)(void *)(block + 15 * floats);
    pack->material = (uint16_t *)(void *)(block + 16 * floats);
    return SKIM_OK;
}

skim_status skim_walk_pack_build(skim_walk_pack *pack, const skim_world *world,
                                 const uint32_t *leaves, uint32_t leaf_count, uint32_t triangles)
{
    pack->count = 0;
    skim_status status = reserve(pack, ((triangles + 7u) & ~7u) + 8u);
    if (status != SKIM_OK)
        return status;
    /* Four lanes at a time: the world's arrays hold a packet past every
       stored triangle (skim_world_stride), and the pack has room for four
       lanes past the last one; the next leaf overwrites the overrun,
       where a memcpy per array and leaf would be eleven calls of a few
       bytes. */
    uint32_t at = 0;
    for (uint32_t k = 0; k < leaf_count; ++k) {
        const uint32_t first = skim_bvh_leaf_first(leaves[k]), count = skim_bvh_leaf_count(leaves[k]);
        for (uint32_t j = 0; j < count; j += 4) {
            for (int v = 0; v < 3; ++v)
                for (int axis = 0; axis < 3; ++axis)
                    simde_mm_storeu_ps(pack->vertex[v][axis] + at + j,
                                       simde_mm_loadu_ps(world->vertex[v][axis] + first + j));
            simde_mm_storeu_si128(
                (simde__m128i *)(void *)(pack->triangle + at + j),
                simde_mm_loadu_si128((const simde__m128i *)(const void *)(world->triangle_index + first + j)));
            simde_mm_storel_epi64(
                (simde__m128i *)(void *)(pack->material + at + j),
                simde_mm_loadl_epi64((const simde__m128i *)(const void *)(world->material + first + j)));
        }
        at += count;
    }
    pack->count = at;
    /* Padding, in whole 4-lane stores over the overrun: corners of zeros
       (finite), never appended (their boxes, set below, overlap nothing),
       to a multiple of 8 lanes (the 8-lane gather above). */
    const uint32_t padded = (at + 7u) & ~7u;
    for (uint32_t j = 0; j < 8; j += 4) {
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                simde_mm_storeu_ps(pack->vertex[v][axis] + at + j, simde_mm_setzero_ps());
        simde_mm_storeu_si128((simde__m128i *)(void *)(pack->triangle + at + j),
                              simde_mm_set1_epi32(-1));
    }
    simde_mm_storeu_si128((simde__m128i *)(void *)(pack->material + at), simde_mm_setzero_si128());
    /* The boxes, with skim_gather_run's own minima and maxima. */
    for (uint32_t i = 0; i < padded; i += 4) {
        simde__m128 corner[3][3], lo[3], hi[3];
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                corner[v][axis] = simde_mm_load_ps(pack->vertex[v][axis] + i);
        skim_gather_corner_bounds(corner, lo, hi);
        for (int axis = 0; axis < 3; ++axis) {
            simde_mm_store_ps(pack->lo[axis] + i, lo[axis]);
            simde_mm_store_ps(pack->hi[axis] + i, hi[axis]);
        }
    }
    for (uint32_t lane = at; lane < padded; ++lane)
        for (int axis = 0; axis < 3; ++axis) {
            pack->lo[axis][lane] = __builtin_inff();
            pack->hi[axis][lane] = -__builtin_inff();
        }
    return SKIM_OK;
}

void skim_walk_pack_gather(const skim_walk_pack *pack, const skim_path_gather *g, bool wide,
                           skim_candidates *out)
{
#if defined(SKIM_MOVE_HAVE_AVX2_PACK)
    if (wide) {
        skim_walk_pack_gather_avx2(pack, g, out);
        return;
    }
#else
    (void)wide;
#endif
    const uint32_t count = pack->count;
    for (uint32_t i = 0; i < count; i += 4) {
        simde__m128 lo[3], hi[3];
        for (int axis = 0; axis < 3; ++axis) {
            lo[axis] = simde_mm_load_ps(pack->lo[axis] + i);
            hi[axis] = simde_mm_load_ps(pack->hi[axis] + i);
        }
        unsigned keep = skim_box_overlaps(g, lo, hi);
        if (!keep)
            continue;
        if (!g->all_materials)
            keep = skim_material_lanes(g, pack->material + i, 4, keep);
        if (!keep)
            continue;
        simde__m128 corner[3][3], unit[3][3];
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                corner[v][axis] = simde_mm_load_ps(pack->vertex[v][axis] + i);
        skim_gather_lanes_to_unit(g, corner, unit);
        skim_gather_append_lanes(unit, keep, pack->triangle + i, pack->material + i, out);
    }
}
#endif
