/* The order a batch moves its movers in: along a Morton (Z-order) curve of
   their start positions, so that movers processed one after the other (and
   the 64 of one OpenMP chunk) gather from the same BVH nodes and the same
   triangles, which then are still in the core's caches. Each mover is
   independent and writes only its own result slot, so the order changes no
   result, only the memory traffic.

   The order is a pure function of the positions and the world's bounds
   (never of the thread count or of earlier calls): a stable LSD radix sort
   of 30-bit keys, ties kept in index order. */
#include "move_internal.h"

#include <stdlib.h>

/* Spreads the low 10 bits of x to every third bit (bit i to bit 3i). */
static uint32_t spread_bits(uint32_t x)
{
    x &= 0x3ffu;
    x = (x | (x << 16)) & 0x030000ffu;
    x = (x | (x << 8)) & 0x0300f00fu;
    x = (x | (x << 4)) & 0x030c30c3u;
    x = (x | (x << 2)) & 0x09249249u;
    return x;
}

/* The cell (0..1023) of coordinate p on an axis from lo spanning
   1024 / scale. Positions outside the world's bounds clamp to the edge
   cells; a NaN (never passed: the batch checks its movers first) would
   land in cell 0. */
static uint32_t cell_of(float p, float lo, float scale)
{
    float c = (p - lo) * scale;
    if (!(c > 0.0f))
        return 0;
    if (c >= 1023.0f)
        return 1023;
    return (uint32_t)c;
}

bool skim_move_order_movers(skim_move_scratch *scratch, const skim_world *world, size_t count,
                            const skim_vec3 *positions)
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
    uint32_t *key = scratch->order + count, *index = scratch->order;
    uint32_t *other_key = scratch->order + 3 * count, *other_index = scratch->order + 2 * count;

    const float *lo = &world->bounds_min.x, *hi = &world->bounds_max.x;
    float scale[3];
    for (int axis = 0; axis < 3; ++axis) {
        const float span = hi[axis] - lo[axis];
        scale[axis] = span > 0.0f ? 1024.0f / span : 0.0f;
    }
    for (size_t i = 0; i < count; ++i) {
        const float *p = &positions[i].x;
        key[i] = spread_bits(cell_of(p[0], lo[0], scale[0])) |
                 spread_bits(cell_of(p[1], lo[1], scale[1])) << 1 |
                 spread_bits(cell_of(p[2], lo[2], scale[2])) << 2;
        index[i] = (uint32_t)i;
    }
    /* Three stable passes of 10 bits: the 30-bit key, low digit first. */
    for (int shift = 0; shift < 30; shift += 10) {
        uint32_t start[1025] = { 0 };
        for (size_t i = 0; i < count; ++i)
            start[((key[i] >> shift) & 1023u) + 1]++;
        for (int d = 0; d < 1024; ++d)
            start[d + 1] += start[d];
        for (size_t i = 0; i < count; ++i) {
            const uint32_t at = start[(key[i] >> shift) & 1023u]++;
            other_key[at] = key[i];
            other_index[at] = index[i];
        }
        uint32_t *swap = key;
        key = other_key;
        other_key = swap;
        swap = index;
        index = other_index;
        other_index = swap;
    }
    /* Three passes leave the result in the second buffer pair. */
    scratch->order_sorted = index;
    return true;
}
