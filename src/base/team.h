/* Phases inside one OpenMP parallel region, without OpenMP barriers: the
   crowd's step (crowd_step.c, crowd_contacts.c, crowd_solver.c,
   crowd_check.c) and the batch's check and order before its moves
   (src/move/move_batch.c).

   Why: a crowd's step is a chain of short data-parallel phases. As separate
   regions (or with `omp barrier` between them) every phase ended with all
   threads arriving, and on a busy machine one thread is often not running:
   the others then spun (libgomp: GOMP_SPINCOUNT pauses) and slept until
   it was scheduled again, at every phase, so two threads under a one-core
   hog were slower than one.

   Here a phase is a number of chunks that threads claim from an atomic
   counter (as skim_move_batch does) and count as done; a thread goes on to
   the next phase once every chunk of this one is DONE, not once every
   thread has ARRIVED. A thread that is descheduled between chunks holds
   nobody up: the others take its share, and when it runs again it finds
   the phases claimed and hurries through to the end of the region. Only a
   chunk it holds is waited for (chunks are kept to a few microseconds of
   work), and then the waiter soon sleeps: an idle core is what lets the
   scheduler move the held-up thread onto it.

   Every thread runs the same sequence of phases (the cursor), deciding
   what comes next from values published before the last wait (flags per
   round, never reused within a region), so a thread that runs late takes
   the same path. A serial step is a phase of one chunk. Chunks write
   disjoint outputs, or per-chunk slots combined in chunk order: the
   results never depend on which thread ran what, so not on the thread
   count. A thread that has claimed a chunk finishes it without waiting on
   anyone, so a wait always ends. */
#ifndef SKIM_TEAM_H
#define SKIM_TEAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The most phases one region uses: the solver's 64 sweeps or the check's
   65 rounds, a few phases each, fit with room to spare (team_phase_next
   checks). */
#define TEAM_PHASES 256

typedef struct team_phase {
    _Alignas(64) atomic_uint next; /* chunks claimed */
    atomic_uint done;              /* chunks finished */
} team_phase;

/* A thread's place in the region's sequence of phases. */
typedef struct team_cursor {
    team_phase *phases;
    uint32_t at;
} team_cursor;

static inline team_phase *team_phase_next(team_cursor *cursor)
{
    /* Callers bound their phases well under TEAM_PHASES; past it the last
       phase would be shared, which a wait could not tell apart, so stop. */
    if (cursor->at >= TEAM_PHASES)
        __builtin_trap();
    return &cursor->phases[cursor->at++];
}

/* Claims the next of total chunks; false when none is left. */
static inline bool team_claim(team_phase *phase, uint32_t total, uint32_t *chunk)
{
    if (atomic_load_explicit(&phase->next, memory_order_relaxed) >= total)
        return false; /* no write: late threads pass finished phases without contention */
    *chunk = atomic_fetch_add_explicit(&phase->next, 1, memory_order_relaxed);
    return *chunk < total;
}

/* The chunk's writes are published to whoever waits for the phase. */
static inline void team_finish(team_phase *phase)
{
    atomic_fetch_add_explicit(&phase->done, 1, memory_order_release);
}

/* The first call of every thread in a region: how its waits go for the
   rest of the region, from the call's skim_wait_policy (passive: nap at
   once instead of spinning first). */
void team_enter_region(bool passive);

/* Until *count reaches total (team.c). */
void team_wait_for(atomic_uint *count, uint32_t total);

/* Until all total chunks are done. */
static inline void team_wait(team_phase *phase, uint32_t total)
{
    team_wait_for(&phase->done, total);
}

/* The last call of every thread in a region, with a counter that is zero
   before it. The master waits here, with team_wait's short spin and
   naps, until every thread has come, rather than at the region's closing
   barrier, where libgomp spins GOMP_SPINCOUNT pauses before it sleeps:
   a thread that was descheduled after its last chunk then holds the
   master up for a nap, not for libgomp's whole spin. */
void team_leave_region(atomic_uint *left);

/* A serial step: true for the one thread that should run it, which then
   calls team_finish(phase); every thread then calls team_wait(phase, 1). */
static inline bool team_serial(team_phase *phase)
{
    uint32_t chunk;
    return team_claim(phase, 1, &chunk);
}

/* Chunks of size items over n items. */
static inline uint32_t team_chunks(uint32_t n, uint32_t size)
{
    return (uint32_t)(((uint64_t)n + size - 1) / size);
}

#endif
