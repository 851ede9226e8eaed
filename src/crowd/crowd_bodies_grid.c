/* The clearing's list of the agents the bodies phase moved and its
   hashed grid of every colliding agent's way (crowd_bodies_clear.c gives
   up what the shifts leave too close; crowd_bodies_chain.c searches the
   grid for the agents a push meets). The grid is built once a step, after
   the bodies' carries and pushes; what the chains then change is added to
   the list and to a small grid of its own (crowd_clear_relist), rather
   than listing and gridding every agent again. */
#include "crowd/crowd_bodies.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A slot's mark for an agent the phase moved, before it is numbered. */
#define UNNUMBERED (UINT32_MAX - 1)

void crowd_clear_cell_of(const skim_crowd *c, const double p[3], double cell, int32_t out[2])
{
    const double a = p[0] * c->axis1[0] + p[1] * c->axis1[1] + p[2] * c->axis1[2];
    const double b = p[0] * c->axis2[0] + p[1] * c->axis2[1] + p[2] * c->axis2[2];
    /* Held within int32 for any radius and place (far cells share buckets). */
    /* Compared, not fmin and fmax (libm calls here); a NaN goes low. */
    const double ua = a / cell, ub = b / cell;
    const double ca = ua > -1e9 ? (ua < 1e9 ? ua : 1e9) : -1e9, cb = ub > -1e9 ? (ub < 1e9 ? ub : 1e9) : -1e9;
    out[0] = (int32_t)ca - (ca < (double)(int32_t)ca); /* floor, without a call */
    out[1] = (int32_t)cb - (cb < (double)(int32_t)cb);
}

void crowd_clear_cells_of_way(const skim_crowd *c, uint32_t id, double cell, int32_t grow, int32_t lo[2], int32_t hi[2])
{
    double a[3], b[3];
    int32_t ca[2], cb[2];
    crowd_clear_place(c, id, 0.0f, a);
    crowd_clear_cell_of(c, a, cell, ca);
    if (c->clear.slot[id] == UINT32_MAX) { /* not moved: one point */
        cb[0] = ca[0];
        cb[1] = ca[1];
    } else {
        crowd_clear_place(c, id, 1.0f, b);
        crowd_clear_cell_of(c, b, cell, cb);
    }
    for (int k = 0; k < 2; ++k) {
        lo[k] = (ca[k] < cb[k] ? ca[k] : cb[k]) - grow;
        hi[k] = (ca[k] > cb[k] ? ca[k] : cb[k]) + grow;
    }
}

static bool collides(const skim_crowd *c, uint32_t id)
{
    return !(c->body[id].flags & SKIM_AGENT_GHOST);
}

/* Chunk k of the slots below n (CROWD_BODIES_CHUNK each, the active ones
   among them): marks in slot the
   colliding agents the phase moved, its widest radius and longest shift
   (summed over the axes) into its slot. */
void crowd_clear_mark_chunk(skim_crowd *c, uint32_t n, uint32_t k)
{
    crowd_clear *s = &c->clear;
    crowd_clear_chunk *out = &s->chunk[k];
    uint32_t first, last;
    crowd_chunk_range(k, CROWD_BODIES_CHUNK, n, &first, &last);
    float widest = 0.0f;
    double farthest = 0.0;
    uint32_t marked = 0;
    for (uint32_t id = first; id < last; ++id) {
        if (!(c->state[id] & SKIM_AGENT_ACTIVE))
            continue;
        const skim_vec3 a = c->position[id], b = crowd_shifted(c, id);
        /* Written only when changed (see crowd_bodies.c's note_shift). */
        if (s->slot[id] != UINT32_MAX)
            s->slot[id] = UINT32_MAX;
        if (s->depth[id] != CROWD_NOT_PUSHED)
            s->depth[id] = CROWD_NOT_PUSHED;
        if (!collides(c, id))
            continue;
        const float r = c->body[id].radius;
        widest = r > widest ? r : widest;
        if (a.x != b.x || a.y != b.y || a.z != b.z) {
            s->slot[id] = UNNUMBERED;
            ++marked;
            const double way = fabs((double)b.x - a.x) + fabs((double)b.y - a.y) + fabs((double)b.z - a.z);
            farthest = way > farthest ? way : farthest;
        }
    }
    out->widest = widest;
    out->longest = farthest;
    out->marked = marked;
}

/* Numbers chunk k's marked agents from where its share of the list
   starts, in slot order (slot, moved, their fractions at 1, depth 0),
   and puts the cells of the ways of its colliding agents into range, how
   many into its slot. */
static void range_chunk(skim_crowd *c, uint32_t n, uint32_t k, double cell, crowd_clear_chunk *out)
{
    crowd_clear *s = &c->clear;
    uint32_t first, last;
    crowd_chunk_range(k, CROWD_BODIES_CHUNK, n, &first, &last);
    size_t items = 0;
    uint32_t number = out->first_moved;
    for (uint32_t id = first; id < last; ++id) {
        if (!(c->state[id] & SKIM_AGENT_ACTIVE))
            continue;
        if (s->slot[id] == UNNUMBERED) {
            s->depth[id] = 0;
            s->slot[id] = number;
            s->moved[number] = id;
            s->fraction[number++] = 1.0f;
        }
        int32_t *r = s->range + 4 * (size_t)id;
        if (!collides(c, id)) {
            r[0] = 1, r[1] = 1, r[2] = 0, r[3] = 0; /* no cells: lo above hi on both axes */
            continue;
        }
        crowd_clear_cells_of_way(c, id, cell, 0, r, r + 2);
        items += (size_t)(r[2] - r[0] + 1) * (size_t)(r[3] - r[1] + 1);
    }
    out->items = items;
}

/* The buckets of chunk k's colliding agents' cells, in slot order, at
   the chunk's place among the items, with the agents' ids after all the
   items: the hashing on many threads, for bucket_agents. */
static void key_chunk(skim_crowd *c, uint32_t n, uint32_t k)
{
    crowd_clear *s = &c->clear;
    uint32_t first, last;
    crowd_chunk_range(k, CROWD_BODIES_CHUNK, n, &first, &last);
    uint32_t *key = s->keys + s->chunk[k].first, *ids = key + s->item_count;
    const uint32_t mask = s->bucket_mask;
    for (uint32_t id = first; id < last; ++id) {
        if (!(c->state[id] & SKIM_AGENT_ACTIVE))
            continue;
        const int32_t *lo = s->range + 4 * (size_t)id, *hi = lo + 2;
        for (int32_t x = lo[0]; x <= hi[0]; ++x)
            for (int32_t y = lo[1]; y <= hi[1]; ++y) {
                *key++ = crowd_hash_cell(x, y) & mask;
                *ids++ = id;
            }
    }
}

/* Items with keys (buckets) key[j] and agents ids[j] counted into start
   (buckets + 1 entries, zeroed) and written to slots, each bucket's in the
   items' order. */
static void fill_buckets(uint32_t *start, size_t buckets, const uint32_t *key, const uint32_t *ids, size_t items,
                         uint32_t *slots)
{
    for (size_t j = 0; j < items; ++j)
        ++start[key[j] + 1];
    for (size_t b = 1; b <= buckets; ++b)
        start[b] += start[b - 1];
    for (size_t j = 0; j < items; ++j)
        slots[start[key[j]]++] = ids[j];
    /* Each start moved to its bucket's end: back by one. */
    for (size_t b = buckets; b > 0; --b)
        start[b] = start[b - 1];
    start[0] = 0;
}

/* Every colliding agent's cells counted into their buckets and written to
   their places, in slot order, from the keys. On one thread: done by
   every thread at once with atomic counts, the buckets' cache lines went
   back and forth between the cores and the two threads took longer than
   one; from the keys it is two plain passes. */
static void bucket_agents(crowd_clear *s)
{
    fill_buckets(s->bucket_start, (size_t)s->bucket_mask + 1, s->keys, s->keys + s->item_count, s->item_count,
                 s->items);
}

/* Sums the chunks' maxima and counts, and where each chunk's share of
   the list starts (range_chunk numbers them in slot order); the grid's
   cell width: as wide as the widest pair's touching distance, so a pair
   that can meet is in neighbouring cells, and as the longest shift, so a
   way covers at most two cells a side. */
static void number_moved(skim_crowd *c, uint32_t chunks, uint32_t *moved, double *cell)
{
    crowd_clear *s = &c->clear;
    float widest = 0.0f;
    double farthest = 0.0;
    uint32_t count = 0;
    for (uint32_t k = 0; k < chunks; ++k) {
        widest = s->chunk[k].widest > widest ? s->chunk[k].widest : widest;
        farthest = s->chunk[k].longest > farthest ? s->chunk[k].longest : farthest;
        s->chunk[k].first_moved = count;
        count += s->chunk[k].marked;
    }
    *moved = count;
    *cell = fmax(2.0 * (double)widest, farthest);
}

/* Room for the buckets of the chunks' cells, cleared, and for their keys;
   where each chunk's items start. False if out of memory. */
static bool size_buckets(skim_crowd *c, uint32_t chunks)
{
    crowd_clear *s = &c->clear;
    size_t items = 0;
    for (uint32_t k = 0; k < chunks; ++k) {
        s->chunk[k].first = items;
        items += s->chunk[k].items;
    }
    size_t buckets = 64;
    while (buckets < 2 * items)
        buckets *= 2;
    if (!crowd_reserve((void **)&s->bucket_start, &s->bucket_capacity, buckets + 1, sizeof *s->bucket_start) ||
        !crowd_reserve((void **)&s->items, &s->item_capacity, items, sizeof *s->items) ||
        !crowd_reserve((void **)&s->keys, &s->key_capacity, 2 * items, sizeof *s->keys))
        return false;
    s->item_count = items;
    s->bucket_mask = (uint32_t)(buckets - 1);
    memset(s->bucket_start, 0, (buckets + 1) * sizeof *s->bucket_start);
    return true;
}

bool crowd_clear_reserve(skim_crowd *c, uint32_t n)
{
    crowd_clear *s = &c->clear;
    return crowd_reserve_filled((void **)&s->slot, &s->slot_capacity, c->capacity, sizeof *s->slot, 0xff) &&
           crowd_reserve_filled((void **)&s->depth, &s->depth_capacity, c->capacity, sizeof *s->depth, 0xff) &&
           crowd_reserve((void **)&s->moved, &s->moved_capacity, n, sizeof *s->moved) &&
           crowd_reserve((void **)&s->fraction, &s->fraction_capacity, 2 * (size_t)n, sizeof *s->fraction) &&
           crowd_reserve((void **)&s->range, &s->range_capacity, 4 * (size_t)c->capacity, sizeof *s->range) &&
           crowd_reserve((void **)&s->chunk, &s->chunk_capacity, team_chunks(c->capacity, CROWD_BODIES_CHUNK),
                         sizeof *s->chunk) &&
           crowd_reserve((void **)&s->frontier, &s->frontier_capacity, n, sizeof *s->frontier) &&
           crowd_reserve((void **)&s->pushed_to, &s->pushed_to_capacity, n, sizeof *s->pushed_to) &&
           crowd_reserve((void **)&s->changed, &s->changed_capacity, n, sizeof *s->changed);
}

/* Phases of the region that made the marks (crowd_bodies.c), run by every
   thread of it: one region fewer a step, and so one fewer wait for a
   thread the system has not scheduled. Threads take chunks rather than
   meet at barriers; the buckets are filled on one thread from keys hashed
   on many (bucket_agents). */
void crowd_clear_list_and_grid(skim_crowd *c, uint32_t n, team_cursor *cursor, crowd_clear_listed *out)
{
    crowd_clear *s = &c->clear;
    const uint32_t chunks = team_chunks(n, CROWD_BODIES_CHUNK);
    SERIAL_PHASE(cursor, {
        out->room = true;
        number_moved(c, chunks, &out->moved, &out->cell);
    });
    if (!out->moved)
        return;
    const double width = out->cell;
    CHUNK_PHASE(cursor, chunks, range_chunk(c, n, k, width, &s->chunk[k]));
    SERIAL_PHASE(cursor, out->room = size_buckets(c, chunks));
    if (out->room) {
        CHUNK_PHASE(cursor, chunks, key_chunk(c, n, k));
        SERIAL_PHASE(cursor, bucket_agents(s));
    }
}

/* The cells of the way of clear.changed[k], if the list holds it. */
static bool changed_way(const skim_crowd *c, uint32_t k, double cell, uint32_t *id, int32_t lo[2], int32_t hi[2])
{
    *id = c->clear.changed[k];
    if (c->clear.slot[*id] == UINT32_MAX)
        return false;
    crowd_clear_cells_of_way(c, *id, cell, 0, lo, hi);
    return true;
}

/* The small grid of the ways in clear.changed that the list holds, in that
   order, with the main grid's cells and hash. Serial: the chains change few
   agents. False if out of memory. */
static bool grid_changed(skim_crowd *c, double cell)
{
    crowd_clear *s = &c->clear;
    size_t items = 0;
    uint32_t id;
    int32_t lo[2], hi[2];
    for (uint32_t k = 0; k < s->changed_count; ++k)
        if (changed_way(c, k, cell, &id, lo, hi))
            items += (size_t)(hi[0] - lo[0] + 1) * (size_t)(hi[1] - lo[1] + 1);
    s->extra_count = 0;
    if (!items)
        return true;
    /* Sparse: every cell a round searches looks here too, and an unrelated
       agent sharing the bucket costs a pair's test. */
    size_t buckets = 1024;
    while (buckets < 16 * items)
        buckets *= 2;
    /* The keys' room is free once the main grid is made (bucket_agents). */
    if (!crowd_reserve((void **)&s->extra_start, &s->extra_start_capacity, buckets + 1, sizeof *s->extra_start) ||
        !crowd_reserve((void **)&s->extra_items, &s->extra_item_capacity, items, sizeof *s->extra_items) ||
        !crowd_reserve((void **)&s->keys, &s->key_capacity, 2 * items, sizeof *s->keys))
        return false;
    s->extra_mask = (uint32_t)(buckets - 1);
    memset(s->extra_start, 0, (buckets + 1) * sizeof *s->extra_start);
    uint32_t *key = s->keys, *ids = s->keys + items;
    for (uint32_t k = 0; k < s->changed_count; ++k) {
        if (!changed_way(c, k, cell, &id, lo, hi))
            continue;
        for (int32_t x = lo[0]; x <= hi[0]; ++x)
            for (int32_t y = lo[1]; y <= hi[1]; ++y) {
                *key++ = crowd_hash_cell(x, y) & s->extra_mask;
                *ids++ = id;
            }
    }
    fill_buckets(s->extra_start, buckets, s->keys, s->keys + items, items, s->extra_items);
    s->extra_count = (uint32_t)items;
    return true;
}

/* Listing and gridding every agent again after the chains cost as much as
   the first time, on one thread for the grid. The chains move few agents
   and know which: the list is brought up to them (the same agents as a
   new listing, in another order, which no result depends on: each agent's
   rounds read only the fractions of the round before), and their new ways
   go into a grid of their own beside the first, which still holds every
   agent where it stood and along its first way. A pair that meets is met
   in one of the two: cells at least twice the widest radius wide. */
bool crowd_clear_relist(skim_crowd *c, double cell, uint32_t *moved)
{
    crowd_clear *s = &c->clear;
    for (uint32_t k = 0; k < s->changed_count; ++k) {
        const uint32_t id = s->changed[k];
        const skim_vec3 a = c->position[id], b = crowd_shifted(c, id);
        const bool away = a.x != b.x || a.y != b.y || a.z != b.z;
        if (s->slot[id] != UINT32_MAX && !away)
            s->slot[id] = UINT32_MAX; /* pushed back where it stood */
        else if (s->slot[id] == UINT32_MAX && away)
            s->slot[id] = UNNUMBERED;
    }
    uint32_t count = 0;
    for (uint32_t m = 0; m < *moved; ++m) {
        const uint32_t id = s->moved[m];
        if (s->slot[id] == UINT32_MAX)
            continue;
        s->slot[id] = count;
        s->moved[count++] = id;
    }
    for (uint32_t k = 0; k < s->changed_count; ++k) {
        const uint32_t id = s->changed[k];
        if (s->slot[id] == UNNUMBERED) {
            s->depth[id] = 0;
            s->slot[id] = count;
            s->moved[count++] = id;
        }
    }
    for (uint32_t m = 0; m < count; ++m)
        s->fraction[m] = 1.0f;
    *moved = count;
    return grid_changed(c, cell);
}
