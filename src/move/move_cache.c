/* A mover's nearby leaves kept from one batch to the next (temporal
   coherence): an agent moves a few units a frame, so the leaves of one
   walk for its gather box grown by a slack serve it for several frames,
   and the tree is walked again only when its box leaves the grown one.

   Bit for bit the plain gather's buffer, for the reason the thread's kept
   walk is (move_gather.c, gather_walked): the walk emits the leaves in an
   order that does not depend on the query box, a larger box only adds
   leaves, and each mover keeps, leaf by leaf, exactly the triangles that
   pass its own box and material tests. So which leaves a mover was
   given, and when, changes no result; only a stale world could, and a
   cache empties itself when it is handed another world. */
#include "move/move_internal.h"

#include <stdlib.h>
#include <string.h>

/* The kept box is the gather box grown by this fraction of its extent on
   each side: a walking agent's box is about four radii across, so a
   quarter lets it walk about a radius before its next walk. */
#ifndef SKIM_MOVE_CACHE_SLACK
#define SKIM_MOVE_CACHE_SLACK 0.25f
#endif
/* And grown ahead, the way the mover walks, by this many of its moves:
   a crowd's agents walk straight for many frames between turns, so the
   kept box lasts longer for the same growth than a wider slack on every
   side would. */
#ifndef SKIM_MOVE_CACHE_LEAD
#define SKIM_MOVE_CACHE_LEAD 4.0f
#endif

static bool same_world(const skim_move_cache *cache, const skim_world *world)
{
    return cache->world == world && cache->bvh == world->bvh &&
           cache->storage == (const void *)world->vertex[0][0] &&
           cache->triangle_count == world->triangle_count &&
           memcmp(&cache->bounds_min, &world->bounds_min, sizeof cache->bounds_min) == 0 &&
           memcmp(&cache->bounds_max, &world->bounds_max, sizeof cache->bounds_max) == 0;
}

bool skim_move_cache_prepare(skim_move_cache *cache, const skim_world *world, size_t movers)
{
    if (!same_world(cache, world)) {
        free(cache->entries);
        cache->entries = NULL;
        cache->capacity = 0;
        cache->world = world;
        cache->bvh = world->bvh;
        cache->storage = world->vertex[0][0];
        cache->triangle_count = world->triangle_count;
        cache->bounds_min = world->bounds_min;
        cache->bounds_max = world->bounds_max;
    }
    if (movers > cache->capacity) {
        /* Kept leaves only save walks: a larger cache starts empty, in
           zeroed pages the system hands out as they are first used (a
           crowd's capacity may be far above its agents). */
        free(cache->entries);
        cache->capacity = 0;
        cache->entries = calloc(movers, sizeof *cache->entries);
        if (!cache->entries)
            return false;
        cache->capacity = movers;
    }
    return true;
}

void skim_move_cache_release(skim_move_cache *cache)
{
    free(cache->entries);
    memset(cache, 0, sizeof *cache);
}

bool skim_move_cache_permute(skim_move_cache *cache, const uint32_t *from, size_t count, void *scratch)
{
    if (!cache->entries)
        return true; /* nothing kept */
    if (count > cache->capacity)
        return false;
    skim_move_cache_entry *moved = scratch;
    for (size_t k = 0; k < count; ++k)
        moved[k] = cache->entries[from[k]];
    memcpy(cache->entries, moved, count * sizeof *moved);
    return true;
}

skim_status skim_move_cache_create(skim_move_cache **out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_move_cache_create: out is NULL");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_move_cache_create: out of memory");
    return SKIM_OK;
}

void skim_move_cache_destroy(skim_move_cache *cache)
{
    if (!cache)
        return;
    skim_move_cache_release(cache);
    free(cache);
}

/* Walks the tree for the box grown by the slack, and by lead times
   SKIM_MOVE_CACHE_LEAD on the side it points to, into entry; false
   (entry emptied) when its leaves do not fit. */
static bool refill(skim_move_cache_entry *entry, const skim_world *world, const float box_min[3],
                   const float box_max[3], const float lead[3])
{
    float lo[3], hi[3];
    for (int axis = 0; axis < 3; ++axis) {
        const float grow = SKIM_MOVE_CACHE_SLACK * (box_max[axis] - box_min[axis]);
        const float ahead = SKIM_MOVE_CACHE_LEAD * lead[axis];
        lo[axis] = box_min[axis] - grow + (ahead < 0.0f ? ahead : 0.0f);
        hi[axis] = box_max[axis] + grow + (ahead > 0.0f ? ahead : 0.0f);
    }
    entry->count = 0;
    skim_bvh_walk w;
    skim_bvh_walk_begin(&w, world->bvh, world->bounds_min, world->bounds_max, lo, hi);
    uint32_t count = 0, triangles = 0;
    for (;;) {
        /* (a walk hands out up to a node's children at once) */
        uint32_t refs[SKIM_BVH_WIDTH];
        const uint32_t got = skim_bvh_walk_leaves(&w, refs, SKIM_BVH_WIDTH);
        if (!got)
            break;
        if (got > SKIM_MOVE_CACHE_LEAVES - count)
            return false; /* more leaves than an entry holds */
        for (uint32_t k = 0; k < got; ++k) {
            entry->leaf[count + k] = refs[k];
            triangles += skim_bvh_leaf_count(refs[k]);
        }
        count += got;
    }
    memcpy(entry->lo, lo, sizeof lo);
    memcpy(entry->hi, hi, sizeof hi);
    entry->triangles = triangles;
    entry->count = count;
    return true;
}

bool skim_move_cache_leaves(skim_move_cache_entry *entry, const skim_world *world,
                            const float box_min[3], const float box_max[3], const float lead[3],
                            bool *walked)
{
    bool inside = entry->count > 0;
    for (int axis = 0; axis < 3 && inside; ++axis)
        inside = box_min[axis] >= entry->lo[axis] && box_max[axis] <= entry->hi[axis];
    *walked = !inside;
    if (inside)
        return true;
    if (refill(entry, world, box_min, box_max, lead))
        return true;
    /* Too many leaves with the lead: without it. */
    static const float none[3] = { 0.0f, 0.0f, 0.0f };
    return (lead[0] != 0.0f || lead[1] != 0.0f || lead[2] != 0.0f) &&
           refill(entry, world, box_min, box_max, none);
}

void skim_move_cache_prefetch_leaves(const skim_move_cache_entry *entry, const skim_world *world)
{
    const uint32_t count = entry->count;
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t first = skim_bvh_leaf_first(entry->leaf[k]);
        const uint32_t last = first + skim_bvh_leaf_count(entry->leaf[k]) - 1u;
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                __builtin_prefetch(world->vertex[v][axis] + first);
        __builtin_prefetch(world->triangle_index + first);
        __builtin_prefetch(world->material + first);
        /* The arrays start on 64-byte lines (world.c's storage, the bake's
           sections), 16 floats or indices and 32 materials a line: a leaf
           of 3 or 4 triangles crosses a line in about one array set in
           five, and only then is its last triangle's line another one. */
        if ((first ^ last) >> 4) {
            for (int v = 0; v < 3; ++v)
                for (int axis = 0; axis < 3; ++axis)
                    __builtin_prefetch(world->vertex[v][axis] + last);
            __builtin_prefetch(world->triangle_index + last);
            if ((first ^ last) >> 5)
                __builtin_prefetch(world->material + last);
        }
    }
}
