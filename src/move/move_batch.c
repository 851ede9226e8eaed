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
   thread's locality. Dynamic chunks of 64 over the whole order gave each
   thread every other chunk, and two threads 1.78-1.85 times one (paired
   runs, oa_dm1 two threads: regions +1..+3.6% over those chunks, every
   quiet pair positive). Result slots are scattered; a slot is written
   once per batch, so two threads meet on a slot's cache line at most
   once, not back and forth. The kernels give
   bitwise the same hits at every SIMD width (DESIGN.md), and everything in
   src/move/ is plain scalar float code compiled without contraction, so the
   results are bitwise the same for any thread count and any kernel set but
   the reference. */
#include "move_internal.h"

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
   batch, so on another thread the first read of a mover's position missed
   (perf, default scene, two threads: 4.9% of the samples on the
   instruction after that load, under 1% on one thread). Four ahead, 10,000
   movers x 300 frames, interleaved against none: two threads default
   +3..+6%, oa_dm1 +2..+4%, oa_dm4_hull -1..+2%, one thread +0..+2%; 2 and
   8 about the same, 16 worse. */
#ifndef SKIM_MOVE_PREFETCH_AHEAD
#define SKIM_MOVE_PREFETCH_AHEAD 4
#endif

typedef struct region {
    _Alignas(64) _Atomic int64_t next; /* the region's next unclaimed mover */
    int64_t end;
} region;

/* Movers checked at once by block_is_clean. */
enum { CHECK_BLOCK = 256 };

/* Whether movers [first, end) (first > 0) certainly pass the per-mover
   check: every position and displacement coordinate within
   SKIM_MOVE_MAX_COORDINATE, and every shape bitwise the one before it (so
   valid once mover first - 1 is). Bit patterns, in loops the compiler
   vectorises: with the sign bit cleared the unsigned order of finite
   floats is their numeric order, and a NaN's pattern is above every
   finite one, so it fails too. A block that is not clean goes through the
   per-mover check, which names the first bad mover. (The serial check was
   ~70 instructions a mover, 1.5% of a one-thread batch and twice that of
   a two-thread one's time.) */
static bool block_is_clean(const skim_ellipsoid *shapes, const skim_vec3 *positions,
                           const skim_vec3 *displacements, size_t first, size_t end)
{
    const float limit = SKIM_MOVE_MAX_COORDINATE;
    uint32_t limit_bits;
    memcpy(&limit_bits, &limit, sizeof limit_bits);
    const size_t words = 3 * (end - first);
    const unsigned char *p = (const unsigned char *)(positions + first);
    const unsigned char *d = (const unsigned char *)(displacements + first);
    uint32_t outside = 0;
    for (size_t k = 0; k < words; ++k) {
        uint32_t a, b;
        memcpy(&a, p + 4 * k, sizeof a);
        memcpy(&b, d + 4 * k, sizeof b);
        outside |= (uint32_t)((a & 0x7fffffffu) > limit_bits) |
                   (uint32_t)((b & 0x7fffffffu) > limit_bits);
    }
    /* Shape i against shape i - 1, word by word. */
    enum { SHAPE_WORDS = sizeof(skim_ellipsoid) / sizeof(uint32_t) };
    _Static_assert(sizeof(skim_ellipsoid) == SHAPE_WORDS * sizeof(uint32_t),
                   "a shape is whole 32-bit words");
    const unsigned char *s = (const unsigned char *)(shapes + first);
    const size_t shape_words = SHAPE_WORDS * (end - first);
    uint32_t differ = 0;
    for (size_t k = 0; k < shape_words; ++k) {
        uint32_t a, b;
        memcpy(&a, s + 4 * k, sizeof a);
        memcpy(&b, s + 4 * k - sizeof(skim_ellipsoid), sizeof b);
        differ |= a ^ b;
    }
    return outside == 0 && differ == 0;
}

skim_status skim_move_batch_with(const skim_kernel_set *kernels, const skim_world *world,
                                 size_t count, const skim_ellipsoid *shapes,
                                 const skim_vec3 *positions, const skim_vec3 *displacements,
                                 const skim_move_def *def, skim_move_result *results)
{
    return skim_move_batch_split(kernels, world, count, shapes, positions, displacements, def, count,
                                 def, results);
}

skim_status skim_move_batch_split(const skim_kernel_set *kernels, const skim_world *world,
                                  size_t count, const skim_ellipsoid *shapes,
                                  const skim_vec3 *positions, const skim_vec3 *displacements,
                                  const skim_move_def *def, size_t split,
                                  const skim_move_def *def_after, skim_move_result *results)
{
    static const char who[] = "skim_move_batch";
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    if (count == 0)
        return SKIM_OK;
    if (!shapes || !positions || !displacements || !results)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: shapes, positions, displacements and results must not be NULL", who);
    if (count > (size_t)INT64_MAX)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: count %zu too large", who, count);
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
    /* Check every mover first, so a bad one fails the call before any
       result is written. Serially: checked on all threads, the check had
       to end at a barrier before any move, and on a busy machine the
       calling thread waited there for a descheduled worker instead of
       moving movers while it woke up (2 threads fell from 0.8 to 0.6 times
       one on oa_dm4_hull with the other core taken). It is cheap instead: a
       crowd repeats its shapes, and a shape bitwise equal to the one before
       it, found valid, is valid (3.4% of a default-scene batch -> ~1%). */
    for (size_t block = 0; block < count; block += CHECK_BLOCK) {
        const size_t end = count - block < CHECK_BLOCK ? count : block + CHECK_BLOCK;
        if (block > 0 && block_is_clean(shapes, positions, displacements, block, end))
            continue;
        for (size_t i = block; i < end; ++i) {
            status = i > 0 && memcmp(&shapes[i], &shapes[i - 1], sizeof shapes[i]) == 0
                         ? skim_move_check_motion(positions[i], displacements[i], who, i, true)
                         : skim_move_check_mover(&shapes[i], positions[i], displacements[i], who,
                                                 i, true);
            if (status != SKIM_OK)
                return status;
        }
    }

    /* An internal failure (out of memory growing a thread's scratch) is
       reported for the lowest failing mover, whatever the thread count. */
    int64_t first_failure = INT64_MAX;
    skim_status failure = SKIM_OK;
    const int64_t n = (int64_t)count;
    /* Movers near each other one after the other (move_order.c); without
       the order's buffer, in index order: the same results either way. */
    const uint32_t *order = NULL;
    skim_move_scratch *caller = skim_move_thread_scratch();
    if (count >= SKIM_MOVE_ORDER_MIN && caller &&
        skim_move_order_movers(caller, world, count, positions))
        order = caller->order_sorted;
    /* One run of the sorted order per thread (regions), claimed CHUNK
       movers at a time from each region's front; a thread that has
       finished its own region helps with the others'. Every chunk is
       claimed exactly once (one atomic counter per region, on its own
       cache line), and no barrier is needed before the moves: the regions
       are set for the team size asked for, so a smaller team only leaves
       a region without an owner, which the others take. */
    int planned = omp_get_max_threads();
    if (planned > SKIM_MOVE_REGIONS)
        planned = SKIM_MOVE_REGIONS;
    region regions[SKIM_MOVE_REGIONS];
    /* Region r starts at floor(n r / planned), without overflowing n r. */
    const int64_t per = n / planned, spare = n % planned;
    for (int r = 0; r < planned; ++r)
        atomic_init(&regions[r].next, per * r + spare * r / planned);
    for (int r = 0; r < planned; ++r)
        regions[r].end = r + 1 < planned ? per * (r + 1) + spare * (r + 1) / planned : n;
#pragma omp parallel num_threads(planned)
    {
        /* Walks are kept and reused while this batch's moves run on the
           thread (move_gather.c); one kept from before may be of another
           world. */
        skim_move_scratch *mine = skim_move_thread_scratch();
        if (mine) {
            skim_move_forget_walk(mine);
            mine->walk_reuse = true;
            mine->ahead_order = order;
            mine->ahead_positions = positions;
        }
        const int me = omp_get_thread_num() % planned;
        for (int visit = 0; visit < planned; ++visit) {
            region *r = &regions[(me + visit) % planned];
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
                        __builtin_prefetch(&positions[ahead]);
                        __builtin_prefetch(&displacements[ahead]);
                        __builtin_prefetch(&results[ahead], 1);
                    }
                    if (mine)
                        mine->ahead_at = k + 1;
                    skim_status s = skim_move_run(kernels, world, &shapes[i], positions[i],
                                                  displacements[i],
                                                  (size_t)i < split ? def : def_after, &results[i]);
                    if (s != SKIM_OK) {
                        memset(&results[i], 0, sizeof results[i]);
#pragma omp critical(skim_move_batch_failure)
                        if (i < first_failure) {
                            first_failure = i;
                            failure = s;
                        }
                    }
                }
            }
        }
        if (mine) {
            mine->ahead_order = NULL;
            mine->walk_reuse = false;
            skim_move_forget_walk(mine);
        }
    }
    if (failure != SKIM_OK)
        return skim_fail(failure, "%s: mover %lld: %s", who, (long long)first_failure,
                         skim_status_string(failure));
    return SKIM_OK;
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
