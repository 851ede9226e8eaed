/* The wait of team.h. */
#include "base/team.h"

#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Pauses before a waiting thread sleeps. Long enough to outlast most
   chunks' work and the serial steps on a quiet machine, so there a wait
   mostly ends spinning; shorter than libgomp's spin at the tool's
   GOMP_SPINCOUNT, which a busy machine pays whenever a thread waits on one
   the scheduler has put aside. The count was chosen with `skim crowd`
   quiet and with a busy loop on one core (docs/performance.md); a pause
   lasts from about one to tens of nanoseconds depending on the core. */
#ifndef SPIN_PAUSES
#define SPIN_PAUSES 6000
#endif

/* The wait policy of the region this thread is in. Per thread, and set by
   every thread as it enters each region from that call's def, so one call
   never inherits another's choice. */
static _Thread_local bool waits_passively = false;

void team_enter_region(bool passive)
{
    waits_passively = passive;
}

static inline void pause_briefly(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void team_wait_for(atomic_uint *count, uint32_t total)
{
    const uint32_t pauses = waits_passively ? 0 : SPIN_PAUSES;
    for (uint32_t spin = 0; atomic_load_explicit(count, memory_order_acquire) < total; ++spin) {
        if (spin < pauses) {
            pause_briefly();
        } else {
            /* Sleep rather than yield: the thread holding the chunk is
               most likely runnable on the other, busy core, and only a
               core that goes idle pulls it over at once. The request is
               the shortest; the timer slack sets the nap. */
            struct timespec nap = { 0, 1000 };
            nanosleep(&nap, NULL);
        }
    }
}

void team_leave_region(atomic_uint *left)
{
#ifdef _OPENMP
    atomic_fetch_add_explicit(left, 1, memory_order_release);
    if (omp_get_thread_num() == 0)
        team_wait_for(left, (uint32_t)omp_get_num_threads());
#else
    (void)left;
#endif
}
