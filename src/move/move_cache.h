/* What a mover keeps across batches: its walk's leaves (move_cache.c) and
   the kept walk's triangles packed for the gather (move_walk_pack.c). */
#ifndef SKIM_MOVE_CACHE_H
#define SKIM_MOVE_CACHE_H

#include "gather/gather.h"

/* The triangles of a kept walk's leaves in the walk's order, copied into
   one dense run with each triangle's box (move_walk_pack.c): the movers
   that reuse the walk (most of a batch's) test four of them at a time
   against their own box instead of leaf by leaf, and skip the corners of
   those outside. World space, as stored; padded to a multiple of 8 with
   lanes whose box overlaps nothing. */
typedef struct skim_walk_pack {
    float    *vertex[3][3]; /* [v][axis][k] */
    float    *lo[3], *hi[3];
    uint32_t *triangle;     /* the caller's index */
    uint16_t *material;
    uint32_t  count;        /* real triangles; padded to a multiple of 8 */
    uint32_t  capacity;
    void     *block;        /* the one allocation the arrays point into */
} skim_walk_pack;

/* One entry per mover: the leaves of a walk for its gather box grown by a
   slack, valid while its next gather boxes fit in the grown box. */
enum { SKIM_MOVE_CACHE_LEAVES = 24 };
typedef struct skim_move_cache_entry {
    float    lo[3], hi[3];   /* the walked box, world */
    uint32_t count;          /* leaves kept; 0 = none (walk on the next move) */
    uint32_t triangles;      /* triangles in them */
    uint32_t leaf[SKIM_MOVE_CACHE_LEAVES]; /* leaf refs in the walk's order */
} skim_move_cache_entry;

struct skim_move_cache {
    skim_move_cache_entry *entries;
    size_t capacity;
    /* The world the entries were walked in: another empties them. */
    const skim_world *world;
    const void *bvh, *storage;
    uint32_t triangle_count;
    skim_vec3 bounds_min, bounds_max;
    /* Counts over the cache's life: moves, their kernel calls, gathers
       that used an entry, and walks. */
    uint64_t moves, kernel_calls, gathers, walks;
};

/* Room for movers entries; empties them all when world is not the one
   they were walked in. False when there is no memory for them: a batch
   then runs without (the same results, only slower). */
bool        skim_move_cache_prepare(skim_move_cache *cache, const skim_world *world,
                                    size_t movers);
void        skim_move_cache_release(skim_move_cache *cache);
/* Makes entry hold a superset of the leaves a walk for [box_min, box_max]
   gives (walking again when the box has left the kept one: *walked, for a
   box grown more on the side of lead, the mover's walk in the world);
   false when they do not fit in an entry (then the entry is empty). */
bool        skim_move_cache_leaves(skim_move_cache_entry *entry, const skim_world *world,
                                   const float box_min[3], const float box_max[3],
                                   const float lead[3], bool *walked);

/* Puts entries [0, count) in a new order, entry k taking what entry
   from[k] held (a permutation of 0..count-1), through scratch (count
   entries); the owner of the movers renumbered them. False, changing
   nothing, when the cache holds fewer than count entries. */
bool        skim_move_cache_permute(skim_move_cache *cache, const uint32_t *from, size_t count,
                                    void *scratch);

/* Prefetch hints for a batch's next movers (move_batch.c): a mover's entry
   (its slot in a crowd's order is a cache miss), and, once the entry is
   in, the stored triangles of its kept leaves, which its gather reads
   leaf by leaf (each leaf's corners in nine arrays). Change no result. */
static inline void skim_move_cache_prefetch_entry(const skim_move_cache_entry *entry)
{
    const char *bytes = (const char *)entry;
    __builtin_prefetch(bytes);
    __builtin_prefetch(bytes + 64);
    __builtin_prefetch(bytes + sizeof *entry - 1);
}
void skim_move_cache_prefetch_leaves(const skim_move_cache_entry *entry, const skim_world *world);

#endif
