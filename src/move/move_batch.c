/* skim_move_batch: many movers over OpenMP threads.

   Each mover is independent: it reads the shared, immutable world and
   writes only its own result, with its own thread's scratch buffers (no
   allocation once they have grown). So any schedule and any order give the
   same results. Large batches go in Morton order (move_order.c): movers
   near each other one after the other, sharing BVH nodes, triangles and
   the thread's kept walk (move_gather.c) in cache. Each thread takes one
   contiguous run of that order (a region), 64 movers at a time, and then
   helps with the others' regions: the balance of dynamic chunks (movers
   that meet a lot of geometry against movers in open space) with one
   thread's locality (dynamic chunks over the whole order would give each
   thread every other chunk, and neighbours on different threads).
   Result slots are scattered; a slot is written
   once per batch, so two threads meet on a slot's cache line at most
   once, not back and forth. The kernels give
   bitwise the same hits at every SIMD width, and everything in
   src/move/ is plain scalar float code compiled without contraction, so the
   results are bitwise the same for any thread count and any kernel set but
   the reference. */
#include "move/move_contacts.h"
#include "base/team.h"

#include <omp.h>
#include <stdatomic.h>
#include <string.h>

/* Fewer movers than this move in index order: a sort would not pay. */
#define SKIM_MOVE_ORDER_MIN 256
/* Movers claimed at a time, and the most regions (threads) a batch is
   split into (more threads share them). */
enum { CHUNK = 64, SKIM_MOVE_REGIONS = 64 };
/* How many movers ahead in the order a thread prefetches the inputs and the
   result slot of. The order jumps about the caller's arrays, and a caller
   that steps a crowd wrote its positions on its own core since the last
   batch, so on another thread the first read of a mover's position
   misses. A few movers ahead covers that miss without evicting what the
   current movers use (measured with bench/move, docs/performance.md). */
#ifndef SKIM_MOVE_PREFETCH_AHEAD
#define SKIM_MOVE_PREFETCH_AHEAD 4
#endif

typedef struct region {
    _Alignas(64) _Atomic int64_t next; /* the region's next unclaimed mover */
    int64_t end;
} region;

/* Movers checked at a time by one thread (whole check blocks). */
enum { CHECK_CHUNK = 4 * SKIM_MOVE_CHECK_BLOCK };

/* One call of the batch, shared by its threads. */
typedef struct batch_call {
    const skim_kernel_set *kernels;
    const skim_world *world;
    size_t count;
    const skim_ellipsoid *shapes;
    const skim_vec3 *positions, *displacements;
    const skim_move_def *def, *def_after; /* movers below split, and the rest */
    size_t split;
    const skim_move_def *defs;           /* with def_of: mover i moves with defs[def_of[i]] */
    const uint32_t *def_of;
    skim_move_result *results;
    /* skim_move_batch_contacts: mover i's contacts at contacts + i * capacity,
       counts NULL for a batch without them. */
    skim_contact *contacts;
    uint32_t capacity;
    uint32_t *counts;
    /* Kept leaves (move_cache.c): mover i uses entry slot_of[i] (i when
       slot_of is NULL); no cache, NULL. */
    skim_move_cache *cache;
    const uint32_t *slot_of;
    size_t cache_slots; /* entries slot_of may name */
    const char *who;
    /* The Morton order (move_order.c), on the calling thread's scratch:
       NULL for a small batch or without the buffer, then index order. */
    skim_move_scratch *caller;
    const uint32_t *order;
    /* Before the moves: the sort and the check's chunks (src/base/team.h). */
    team_phase phases[2];
    uint32_t check_chunks;
    atomic_uint bad_movers, left;
    /* The moves: one run of the order per planned thread. */
    int planned;
    region regions[SKIM_MOVE_REGIONS];
    /* An internal failure (out of memory growing a thread's scratch) is
       reported for the lowest failing mover, whatever the thread count. */
    int64_t first_failure;
    skim_status failure;
} batch_call;

/* Before any move, every mover is checked (so a bad one fails the call
   before any result is written) and, for a large batch, the movers are
   sorted: the sort on the first thread in (the caller, mostly) while the
   others check, by chunks that any thread claims (src/base/team.h: a thread
   that is not running holds nobody up unless it holds a chunk). The two
   do not depend on each other; both on the calling thread, one after the
   other, would be a serial step in every batch.
   True when every mover passed; all threads return the same. */
static bool prepare_movers(batch_call *b)
{
    team_cursor cursor = { b->phases, 0 };
    team_phase *sort = team_phase_next(&cursor), *check = team_phase_next(&cursor);
    if (b->order && team_serial(sort)) {
        skim_move_order_movers(b->caller, b->world, b->count, b->positions);
        team_finish(sort);
    }
    uint32_t chunk;
    while (team_claim(check, b->check_chunks, &chunk)) {
        const size_t first = (size_t)chunk * CHECK_CHUNK;
        const size_t end = b->count - first < CHECK_CHUNK ? b->count : first + CHECK_CHUNK;
        /* A failure's message goes to this thread; the caller finds the
           first bad mover again, for its own message. */
        if (skim_move_check_movers(b->shapes, b->positions, b->displacements, first, end, b->who) !=
            SKIM_OK)
            atomic_store_explicit(&b->bad_movers, 1, memory_order_relaxed);
        team_finish(check);
    }
    team_wait(check, b->check_chunks);
    if (b->order)
        team_wait(sort, 1);
    return !atomic_load_explicit(&b->bad_movers, memory_order_relaxed);
}

/* Mover i's cache entry. */
static inline uint32_t slot(const batch_call *b, uint32_t i)
{
    return b->slot_of ? b->slot_of[i] : i;
}

/* The moves: this thread's region of the order, CHUNK movers at a time,
   then help with the others' regions. */
static void move_movers(batch_call *b)
{
    const uint32_t *order = b->order;
    const int64_t n = (int64_t)b->count;
    /* Walks are kept and reused while this batch's moves run on the
       thread (move_gather.c); one kept from before may be of another
       world. */
    skim_move_scratch *mine = skim_move_thread_scratch();
    if (mine) {
        skim_move_forget_walk(mine);
        mine->walk_reuse = true;
        mine->ahead_order = order;
        mine->ahead_positions = b->positions;
        mine->cache_moves = mine->cache_kernel_calls = mine->cache_gathers = mine->cache_walks = 0;
    }
    skim_move_contact_log log = { 0 };
    const int me = omp_get_thread_num() % b->planned;
    for (int visit = 0; visit < b->planned; ++visit) {
        region *r = &b->regions[(me + visit) % b->planned];
        for (;;) {
            int64_t first = atomic_fetch_add_explicit(&r->next, CHUNK, memory_order_relaxed);
            if (first >= r->end)
                break;
            int64_t last = first + CHUNK < r->end ? first + CHUNK : r->end;
            if (mine)
                mine->ahead_end = last;
            for (int64_t k = first; k < last; ++k) {
                const int64_t i = order ? (int64_t)order[k] : k;
                if (order && k + SKIM_MOVE_PREFETCH_AHEAD < n) {
                    const uint32_t ahead = order[k + SKIM_MOVE_PREFETCH_AHEAD];
                    __builtin_prefetch(&b->positions[ahead]);
                    __builtin_prefetch(&b->displacements[ahead]);
                    __builtin_prefetch(&b->results[ahead], 1);
                    __builtin_prefetch(&b->shapes[ahead]);
                    if (b->def_of)
                        __builtin_prefetch(&b->def_of[ahead]);
                    /* Reads the entry: only one of this thread's own
                       claimed movers (another thread may be moving the
                       others). */
                    if (b->cache && k + SKIM_MOVE_PREFETCH_AHEAD < last)
                        skim_move_cache_prefetch_leaves(&b->cache->entries[slot(b, ahead)], b->world);
                }
                /* Farther ahead, what the prefetches above read: the
                   entry, and before it the entry's index. */
                if (b->cache && order && k + 2 * SKIM_MOVE_PREFETCH_AHEAD < n)
                    skim_move_cache_prefetch_entry(
                        &b->cache->entries[slot(b, order[k + 2 * SKIM_MOVE_PREFETCH_AHEAD])]);
                if (b->slot_of && order && k + 3 * SKIM_MOVE_PREFETCH_AHEAD < n)
                    __builtin_prefetch(&b->slot_of[order[k + 3 * SKIM_MOVE_PREFETCH_AHEAD]]);
                if (mine) {
                    mine->ahead_at = k + 1;
                    if (b->cache)
                        mine->cache_entry = &b->cache->entries[slot(b, (uint32_t)i)];
                }
                const skim_move_def *def = b->def_of ? &b->defs[b->def_of[i]]
                                           : (size_t)i < b->split ? b->def : b->def_after;
                skim_status s;
                if (!b->counts) {
                    s = skim_move_run(b->kernels, b->world, &b->shapes[i], b->positions[i],
                                      b->displacements[i], def, &b->results[i]);
                } else {
                    s = skim_move_run_logged(b->kernels, b->world, &b->shapes[i],
                                             b->positions[i], b->displacements[i], def,
                                             &b->results[i], &log);
                    b->counts[i] = 0;
                    if (s == SKIM_OK)
                        skim_move_contacts_copy(&log, b->world,
                                                b->capacity ? b->contacts + (size_t)i * b->capacity
                                                            : NULL,
                                                b->capacity, &b->counts[i]);
                }
                if (s != SKIM_OK) {
                    memset(&b->results[i], 0, sizeof b->results[i]);
#pragma omp critical(skim_move_batch_failure)
                    if (i < b->first_failure) {
                        b->first_failure = i;
                        b->failure = s;
                    }
                }
            }
        }
    }
    skim_move_contact_log_free(&log);
    if (mine) {
        mine->ahead_order = NULL;
        mine->walk_reuse = false;
        mine->cache_entry = NULL;
        skim_move_forget_walk(mine);
        if (b->cache) {
#pragma omp atomic
            b->cache->moves += mine->cache_moves;
#pragma omp atomic
            b->cache->kernel_calls += mine->cache_kernel_calls;
#pragma omp atomic
            b->cache->gathers += mine->cache_gathers;
#pragma omp atomic
            b->cache->walks += mine->cache_walks;
        }
    }
}

skim_status skim_move_batch_with(const skim_kernel_set *kernels, const skim_world *world,
                                 size_t count, const skim_ellipsoid *shapes,
                                 const skim_vec3 *positions, const skim_vec3 *displacements,
                                 const skim_move_def *def, skim_move_result *results)
{
    return skim_move_batch_split(kernels, world, count, shapes, positions, displacements, def, count,
                                 def, results);
}

/* Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte. */
static bool overlaps(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + b_bytes && y < x + a_bytes;
}

static skim_status batch_run(batch_call *proto);

skim_status skim_move_batch_split(const skim_kernel_set *kernels, const skim_world *world,
                                  size_t count, const skim_ellipsoid *shapes,
                                  const skim_vec3 *positions, const skim_vec3 *displacements,
                                  const skim_move_def *def, size_t split,
                                  const skim_move_def *def_after, skim_move_result *results)
{
    return skim_move_batch_split_cached(kernels, world, count, shapes, positions, displacements,
                                        def, split, def_after, NULL, NULL, 0, results);
}

skim_status skim_move_batch_split_cached(const skim_kernel_set *kernels, const skim_world *world,
                                         size_t count, const skim_ellipsoid *shapes,
                                         const skim_vec3 *positions,
                                         const skim_vec3 *displacements, const skim_move_def *def,
                                         size_t split, const skim_move_def *def_after,
                                         skim_move_cache *cache, const uint32_t *slot_of,
                                         size_t cache_slots, skim_move_result *results)
{
    batch_call b = { .kernels = kernels, .world = world, .count = count, .shapes = shapes,
                     .positions = positions, .displacements = displacements, .def = def,
                     .def_after = def_after, .split = split, .results = results,
                     .cache = cache, .slot_of = slot_of, .cache_slots = cache_slots };
    return batch_run(&b);
}

skim_status skim_move_batch_indexed(const skim_kernel_set *kernels, const skim_world *world, size_t count,
                                    const skim_ellipsoid *shapes, const skim_vec3 *positions,
                                    const skim_vec3 *displacements, const skim_move_def *defs, uint32_t def_count,
                                    const uint32_t *def_of, skim_move_result *results)
{
    return skim_move_batch_indexed_cached(kernels, world, count, shapes, positions, displacements, defs,
                                          def_count, def_of, NULL, NULL, 0, results);
}

skim_status skim_move_batch_indexed_cached(const skim_kernel_set *kernels, const skim_world *world,
                                           size_t count, const skim_ellipsoid *shapes,
                                           const skim_vec3 *positions, const skim_vec3 *displacements,
                                           const skim_move_def *defs, uint32_t def_count,
                                           const uint32_t *def_of, skim_move_cache *cache,
                                           const uint32_t *slot_of, size_t cache_slots,
                                           skim_move_result *results)
{
    if (!defs || def_count == 0 || !def_of)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_move_batch: no definitions");
    for (uint32_t d = 0; d < def_count; ++d) {
        skim_status status = skim_move_check_def(&defs[d], "skim_move_batch");
        if (status != SKIM_OK)
            return status;
    }
    for (size_t i = 0; i < count; ++i)
        if (def_of[i] >= def_count)
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_move_batch: mover %zu has definition %u of %u", i,
                             def_of[i], def_count);
    batch_call b = { .kernels = kernels, .world = world, .count = count, .shapes = shapes,
                     .positions = positions, .displacements = displacements, .def = &defs[0],
                     .def_after = &defs[0], .split = count, .defs = defs, .def_of = def_of, .results = results,
                     .cache = cache, .slot_of = slot_of, .cache_slots = cache_slots };
    return batch_run(&b);
}

static skim_status batch_run(batch_call *proto)
{
    const char *who = proto->counts ? "skim_move_batch_contacts" : "skim_move_batch";
    const skim_kernel_set *kernels = proto->kernels;
    const skim_world *world = proto->world;
    size_t count = proto->count;
    const skim_ellipsoid *shapes = proto->shapes;
    const skim_vec3 *positions = proto->positions, *displacements = proto->displacements;
    const skim_move_def *def = proto->def, *def_after = proto->def_after;
    size_t split = proto->split;
    skim_move_result *results = proto->results;
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    if (count == 0)
        return SKIM_OK;
    if (!shapes || !positions || !displacements || !results)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: shapes, positions, displacements and results must not be NULL", who);
    if (count > (size_t)INT64_MAX || count / CHECK_CHUNK >= UINT32_MAX)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: count %zu too large", who, count);
    /* Threads write results while others still read the inputs: results
       over positions gave NaN ends with SKIM_OK. */
    const size_t result_bytes = count * sizeof *results, vec_bytes = count * sizeof(skim_vec3);
    if (overlaps(results, result_bytes, shapes, count * sizeof *shapes) ||
        overlaps(results, result_bytes, positions, vec_bytes) ||
        overlaps(results, result_bytes, displacements, vec_bytes) ||
        (def && overlaps(results, result_bytes, def, sizeof *def)) ||
        (def_after && overlaps(results, result_bytes, def_after, sizeof *def_after)))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: results overlap shapes, positions, displacements or def", who);
    skim_move_def defaults = skim_move_def_default();
    if (!def)
        def = &defaults;
    if (!def_after)
        def_after = &defaults;
    skim_status status = skim_move_check_def(def, who);
    if (status == SKIM_OK && def_after != def)
        status = skim_move_check_def(def_after, who);
    if (status != SKIM_OK)
        return status;
    if (!kernels)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: no kernel set", who);

    batch_call b = { .kernels = kernels, .world = world, .count = count, .shapes = shapes,
                      .positions = positions, .displacements = displacements, .def = def,
                      .def_after = def_after, .split = split, .results = results, .who = who,
                      .first_failure = INT64_MAX, .failure = SKIM_OK, .defs = proto->defs,
                      .def_of = proto->def_of, .contacts = proto->contacts,
                      .capacity = proto->capacity, .counts = proto->counts };
    /* The kept leaves of a BVH world only (a brute-force world has no
       walk to save); without room for them, none (the same results). */
    const size_t slots = proto->slot_of ? proto->cache_slots : count;
    if (proto->cache && world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh &&
        skim_move_cache_prepare(proto->cache, world, slots)) {
        b.cache = proto->cache;
        b.slot_of = proto->slot_of;
        b.cache_slots = slots;
    }
    /* Movers near each other one after the other (move_order.c); without
       the order's buffer, in index order: the same results either way. */
    b.caller = skim_move_thread_scratch();
    if (count >= SKIM_MOVE_ORDER_MIN && b.caller && skim_move_order_reserve(b.caller, count))
        b.order = b.caller->order_sorted;
    for (int k = 0; k < 2; ++k) {
        atomic_init(&b.phases[k].next, 0);
        atomic_init(&b.phases[k].done, 0);
    }
    b.check_chunks = (uint32_t)((count + CHECK_CHUNK - 1) / CHECK_CHUNK);
    atomic_init(&b.bad_movers, 0);
    atomic_init(&b.left, 0);
    /* One run of the sorted order per thread (regions), claimed CHUNK
       movers at a time from each region's front; a thread that has
       finished its own region helps with the others'. Every chunk is
       claimed exactly once (one atomic counter per region, on its own
       cache line), and no barrier is needed before the moves: the regions
       are set for the team size asked for, so a smaller team only leaves
       a region without an owner, which the others take. */
    b.planned = def->threads > 0 ? def->threads : omp_get_max_threads();
    if (b.planned > SKIM_MOVE_REGIONS)
        b.planned = SKIM_MOVE_REGIONS;
    /* Region r starts at floor(n r / planned), without overflowing n r. */
    const int64_t n = (int64_t)count, per = n / b.planned, spare = n % b.planned;
    for (int r = 0; r < b.planned; ++r) {
        atomic_init(&b.regions[r].next, per * r + spare * r / b.planned);
        b.regions[r].end = r + 1 < b.planned ? per * (r + 1) + spare * (r + 1) / b.planned : n;
    }
    batch_call *shared = &b;
#pragma omp parallel num_threads(shared->planned)
    {
        team_enter_region(shared->def->wait == SKIM_WAIT_PASSIVE);
        if (prepare_movers(shared))
            move_movers(shared);
        /* The master waits for the others with a short spin and naps, not
           at the region's closing barrier (src/base/team.h). */
        team_leave_region(&shared->left);
    }
    if (atomic_load_explicit(&b.bad_movers, memory_order_relaxed)) {
        /* The first bad mover, found again on this thread for its message
           (the same check, so it fails here too). */
        status = skim_move_check_movers(shapes, positions, displacements, 0, count, who);
        return status != SKIM_OK ? status
                                 : skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                                             "%s: a mover failed its check", who);
    }
    if (b.failure != SKIM_OK)
        return skim_fail(b.failure, "%s: mover %lld: %s", who, (long long)b.first_failure,
                         skim_status_string(b.failure));
    return SKIM_OK;
}

skim_status skim_move_batch_logged(const skim_kernel_set *kernels, const skim_world *world,
                                   size_t count, const skim_ellipsoid *shapes,
                                   const skim_vec3 *positions, const skim_vec3 *displacements,
                                   const skim_move_def *def, skim_move_result *results,
                                   skim_contact *contacts, uint32_t capacity, uint32_t *counts)
{
    batch_call b = { .kernels = kernels, .world = world, .count = count, .shapes = shapes,
                     .positions = positions, .displacements = displacements, .def = def,
                     .def_after = def, .split = count, .results = results,
                     .contacts = contacts, .capacity = capacity, .counts = counts };
    return batch_run(&b);
}

skim_status skim_move_batch_cached(const skim_world *world, skim_move_cache *cache, size_t count,
                                   const skim_ellipsoid *shapes, const skim_vec3 *positions,
                                   const skim_vec3 *displacements, const skim_move_def *def,
                                   skim_move_result *results)
{
    if (!cache)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_move_batch_cached: cache is NULL");
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    return skim_move_batch_split_cached(kernels, world, count, shapes, positions, displacements, def,
                                        count, def, cache, NULL, 0, results);
}

skim_status skim_move_batch(const skim_world *world, size_t count, const skim_ellipsoid *shapes,
                            const skim_vec3 *positions, const skim_vec3 *displacements,
                            const skim_move_def *def, skim_move_result *results)
{
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    return skim_move_batch_with(kernels, world, count, shapes, positions, displacements, def,
                                results);
}
