/* The order a batch moves its movers in: along a Morton (Z-order) curve of
   their start positions, so that movers processed one after the other (and
   the 64 of one OpenMP chunk) gather from the same BVH nodes and the same
   triangles, which then are still in the core's caches. Each mover is
   independent and writes only its own result slot, so the order changes no
   result, only the memory traffic.

   The order is a pure function of the positions and the world's bounds
   (never of the thread count or of earlier calls): a stable LSD radix sort
   of 24-bit keys, ties kept in index order. */
#include "move/move_internal.h"

#include <stdlib.h>

/* Spreads the low 8 bits of x to every third bit (bit i to bit 3i). */
static uint32_t spread_bits(uint32_t x)
{
    x = (x | (x << 8)) & 0x0000f00fu;
    x = (x | (x << 4)) & 0x000c30c3u;
    x = (x | (x << 2)) & 0x00249249u;
    return x;
}

/* The cell (0..255) of coordinate p on an axis from lo spanning
   256 / scale. Positions outside the world's bounds clamp to the edge
   cells (a NaN, never passed: the batch checks its movers first, would
   land in cell 0: mv_max keeps its second operand then). 256 cells a side
   are a few radii of a player on a level, finer than what a chunk of 64
   movers covers. */
static uint32_t cell_of(float p, float lo, float scale)
{
    return (uint32_t)mv_min(mv_max((p - lo) * scale, 0.0f), 255.0f);
}

bool skim_move_order_reserve(skim_move_scratch *scratch, size_t count)
{
    if (count > UINT32_MAX)
        return false;
    if (scratch->order_capacity < count) {
        /* Keys and indices of the sort, and the same again for its
           ping-pong buffer: one block, grown, never shrunk. */
        uint32_t *grown = realloc(scratch->order, 4 * count * sizeof *grown);
        if (!grown)
            return false;
        scratch->order = grown;
        scratch->order_capacity = count;
    }
    scratch->order_sorted = scratch->order + 3 * count; /* filled by skim_move_order_movers */
    return true;
}

void skim_move_order_movers(skim_move_scratch *scratch, const skim_world *world, size_t count,
                            const skim_vec3 *positions)
{
    uint32_t *key = scratch->order, *index = scratch->order + count;
    uint32_t *sorted_key = scratch->order + 2 * count, *sorted = scratch->order + 3 * count;

    const float *lo = &world->bounds_min.x, *hi = &world->bounds_max.x;
    float scale[3];
    for (int axis = 0; axis < 3; ++axis) {
        const float span = hi[axis] - lo[axis];
        scale[axis] = span > 0.0f ? 256.0f / span : 0.0f;
    }
    uint32_t spread[256];
    for (uint32_t c = 0; c < 256; ++c)
        spread[c] = spread_bits(c);
    /* The 24-bit key in two 12-bit digits, both digits' counts taken in
       the same read. */
    enum { DIGIT = 12, DIGITS = 1 << DIGIT };
    uint32_t low_start[DIGITS + 1] = { 0 }, high_start[DIGITS + 1] = { 0 };
    for (size_t i = 0; i < count; ++i) {
        const float *p = &positions[i].x;
        const uint32_t k = spread[cell_of(p[0], lo[0], scale[0])] |
                           spread[cell_of(p[1], lo[1], scale[1])] << 1 |
                           spread[cell_of(p[2], lo[2], scale[2])] << 2;
        key[i] = k;
        low_start[(k & (DIGITS - 1)) + 1]++;
        high_start[(k >> DIGIT) + 1]++;
    }
    for (int d = 0; d < DIGITS; ++d) {
        low_start[d + 1] += low_start[d];
        high_start[d + 1] += high_start[d];
    }
    /* Two stable passes, low digit first (LSD radix sort). */
    for (size_t i = 0; i < count; ++i) {
        const uint32_t at = low_start[key[i] & (DIGITS - 1)]++;
        sorted_key[at] = key[i];
        index[at] = (uint32_t)i;
    }
    for (size_t i = 0; i < count; ++i)
        sorted[high_start[sorted_key[i] >> DIGIT]++] = index[i];
}
