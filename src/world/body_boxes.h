/* An index over a few to a few thousand boxes that move every frame (the
   bodies' boxes, the boxes a crowd's moved bodies swept): the boxes sorted
   by their low x, and the widest box's x extent, so a query looks only at
   the boxes whose low x lies within [lo.x - widest, hi.x] (sweep and
   prune along one axis). A coarse map across x and y counts the boxes
   over each of its cells, so a query over cells no box covers (most of the
   agents of a crowd) answers at once; with a few hundred boxes at most,
   each cell also masks the boxes over it, so a query tests only those,
   and a moved box changes its cells' bits. It answers with a bitset in the
   boxes' own order, so callers visit what it finds in that order whatever
   the sort did. */
#ifndef SKIM_BODY_BOXES_H
#define SKIM_BODY_BOXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Cells of the coarse map on each of x and y: a row is one 64-bit word. */
#define SKIM_BOX_MAP 64

typedef struct skim_box_index {
    float    *lo[3], *hi[3];  /* box k's bounds on each axis; one block */
    uint64_t *sorted;         /* by low x: the low x's order-preserving bits << 32 | k */
    uint32_t  count, capacity;
    double    widest;         /* the largest hi.x - lo.x */
    uint32_t *covering;       /* SKIM_BOX_MAP^2 cells, y major: how many boxes cover each */
    uint64_t *covered;        /* SKIM_BOX_MAP rows: bit x of row y set when cell (x, y) counts a box;
                                 one block with covering */
    float     map_lo[2], map_scale[2]; /* cell of x: (x - map_lo[0]) * map_scale[0], held to the map */
    uint64_t *cell_boxes;     /* SKIM_BOX_MAP^2 cells, mask_words each: bit k set when box k covers
                                 the cell; kept while count <= SKIM_BOX_MASKED */
    uint32_t  mask_words;     /* words per cell's mask: skim_box_words(count), 0 without masks */
} skim_box_index;

/* Boxes at most for which each map cell keeps a mask of the boxes over it
   (4 words a cell, 128 KB): a query ORs its cells' masks and tests only
   those boxes, and a moved box changes a few cells' bits. */
#define SKIM_BOX_MASKED 256

/* Room for count boxes; false if out of memory (the index keeps what it had). */
bool skim_box_index_reserve(skim_box_index *index, uint32_t count);
/* Box k (k < capacity) is [lo, hi]; skim_box_index_sort after the last one. */
static inline void skim_box_index_set(skim_box_index *index, uint32_t k, const float lo[3], const float hi[3])
{
    for (int a = 0; a < 3; ++a) {
        index->lo[a][k] = lo[a];
        index->hi[a][k] = hi[a];
    }
}
/* Takes the first count boxes set as the index's boxes and sorts them
   (and masks the boxes over each map cell when there are few enough). */
void skim_box_index_sort(skim_box_index *index, uint32_t count);
/* Box k of the sorted boxes is now [lo, hi]: moved to its new place in
   the order (a body moves little between frames: a step or two). */
void skim_box_index_update(skim_box_index *index, uint32_t k, const float lo[3], const float hi[3]);
/* Sets in bits (skim_box_words(count) words, cleared here) box k's bit for
   every box that meets [lo, hi]; returns how many do. When none does, bits
   may be left as they were. */
uint32_t skim_box_index_query(const skim_box_index *index, const float lo[3], const float hi[3], uint64_t *bits);
static inline size_t skim_box_words(uint32_t count)
{
    return ((size_t)count + 63) / 64;
}
void skim_box_index_free(skim_box_index *index);

/* The float just below f and just above it: nextafterf(f, -INFINITY) and
   nextafterf(f, INFINITY) without the libm call, which a query made per
   agent would pay for. */
static inline float skim_float_below(float f)
{
    if (f != f || f == -__builtin_inff())
        return f;
    if (f == 0.0f)
        return -0x1p-149f;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = f > 0.0f ? u - 1u : u + 1u;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline float skim_float_above(float f)
{
    return -skim_float_below(-f);
}

#endif /* SKIM_BODY_BOXES_H */
