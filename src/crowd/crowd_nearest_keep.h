/* The nearest neighbours an avoidance search has kept so far
   (crowd_neighbours.c): their keys, the sort of the first ten and the
   insertion of nearer ones after. */
#ifndef SKIM_CROWD_NEAREST_KEEP_H
#define SKIM_CROWD_NEAREST_KEEP_H

#include "crowd/crowd_internal.h"

#include <string.h>

/* The best neighbours so far, ascending by squared distance, then index:
   both in one integer, the distance's bits above the index (the bits of a
   float that is not negative order as the float does). */
typedef struct nearest {
    uint64_t key[CROWD_AVOID_NEIGHBOURS];
    uint32_t found;
} nearest;

/* The key of an empty slot: above the key of every distance (the bits of
   an infinite distance are 0x7f800000). */
#define NO_NEIGHBOUR UINT64_MAX

static inline uint64_t nearest_key(float d, uint32_t j)
{
    uint32_t bits;
    memcpy(&bits, &d, sizeof bits);
    return (uint64_t)bits << 32 | j;
}

static inline float key_distance(uint64_t key)
{
    uint32_t bits = (uint32_t)(key >> 32);
    float d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Puts a[x] and a[y] in order: two conditional moves, no branch. */
#define ORDER_PAIR(a, x, y)                                                                                        \
    do {                                                                                                           \
        const uint64_t low = a[x] < a[y] ? a[x] : a[y], high = a[x] < a[y] ? a[y] : a[x];                          \
        a[x] = low;                                                                                                \
        a[y] = high;                                                                                               \
    } while (0)

/* Sorts the ten slots: the odd-even merge sort of sixteen (Batcher,
   Sorting Networks and Their Applications) with the pairs that touch the
   six slots beyond ten left out (those would hold keys above every other
   and never move). 32 pairs, each without a branch, where ten insertions
   into the sorted slots cost ten passes over all of them. */
_Static_assert(CROWD_AVOID_NEIGHBOURS == 10, "sort_slots is a network for ten slots");
static inline void sort_slots(uint64_t *slots)
{
    uint64_t a[CROWD_AVOID_NEIGHBOURS];
    memcpy(a, slots, sizeof a);
    ORDER_PAIR(a, 0, 1); ORDER_PAIR(a, 2, 3); ORDER_PAIR(a, 4, 5); ORDER_PAIR(a, 6, 7); ORDER_PAIR(a, 8, 9);
    ORDER_PAIR(a, 0, 2); ORDER_PAIR(a, 1, 3); ORDER_PAIR(a, 4, 6); ORDER_PAIR(a, 5, 7);
    ORDER_PAIR(a, 1, 2); ORDER_PAIR(a, 5, 6);
    ORDER_PAIR(a, 0, 4); ORDER_PAIR(a, 1, 5); ORDER_PAIR(a, 2, 6); ORDER_PAIR(a, 3, 7);
    ORDER_PAIR(a, 2, 4); ORDER_PAIR(a, 3, 5);
    ORDER_PAIR(a, 1, 2); ORDER_PAIR(a, 3, 4); ORDER_PAIR(a, 5, 6);
    ORDER_PAIR(a, 0, 8); ORDER_PAIR(a, 1, 9);
    ORDER_PAIR(a, 4, 8); ORDER_PAIR(a, 5, 9);
    ORDER_PAIR(a, 2, 4); ORDER_PAIR(a, 3, 5); ORDER_PAIR(a, 6, 8); ORDER_PAIR(a, 7, 9);
    ORDER_PAIR(a, 1, 2); ORDER_PAIR(a, 3, 4); ORDER_PAIR(a, 5, 6); ORDER_PAIR(a, 7, 8);
    memcpy(slots, a, sizeof a);
}

/* Until ten are kept, a new neighbour goes into the next slot as it comes,
   and the ten are sorted once when the last slot fills (or when the search
   ends with fewer, copy_found): nothing reads the slots before then, the
   tenth being read only once there are ten. */
static inline void keep(nearest *best, float d, uint32_t j)
{
    const uint64_t key = nearest_key(d, j);
    if (best->found < CROWD_AVOID_NEIGHBOURS) {
        best->key[best->found++] = key;
        if (best->found == CROWD_AVOID_NEIGHBOURS)
            sort_slots(best->key);
        return;
    }
    if (key >= best->key[CROWD_AVOID_NEIGHBOURS - 1])
        return;
    /* Every slot takes the lesser of what it holds and what the slots
       before it pushed on, the greater moving on: an insertion whose place,
       at random, costs no mispredicted branch; the tenth drops out. */
    uint64_t carried = key;
    for (uint32_t at = 0; at < CROWD_AVOID_NEIGHBOURS; ++at) {
        const uint64_t held = best->key[at];
        const bool before = carried < held;
        best->key[at] = before ? carried : held;
        carried = before ? held : carried;
    }
}

/* Nobody kept yet. */
static inline void forget_all(nearest *best)
{
    best->found = 0;
    for (uint32_t at = 0; at < CROWD_AVOID_NEIGHBOURS; ++at)
        best->key[at] = NO_NEIGHBOUR;
}

/* The ten (or fewer) into near, nearest first; returns how many. */
static inline uint32_t copy_found(nearest *best, uint32_t *near)
{
    if (best->found < CROWD_AVOID_NEIGHBOURS)
        sort_slots(best->key); /* the empty slots sort last */
    for (uint32_t k = 0; k < best->found; ++k)
        near[k] = (uint32_t)best->key[k];
    return best->found;
}

#endif
