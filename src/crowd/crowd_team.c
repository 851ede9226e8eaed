/* The wait of crowd_team.h. */
#include "crowd_team.h"

#include <time.h>

/* Pauses before a waiting thread sleeps: ~20 us on the development VM
   (a pause is ~10 ns on its Xeon, ~1 on older cores). Longer than any
   chunk's work on a quiet machine, so there a wait ends spinning; much
   shorter than libgomp's spin at the tool's GOMP_SPINCOUNT (10,000 pauses,
   ~100 us), which a busy machine pays whenever a thread waits on one the
   scheduler has put aside. */
#define SPIN_PAUSES 2000

static inline void pause_briefly(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void crowd_wait(crowd_phase *phase, uint32_t total)
{
    for (uint32_t spin = 0; atomic_load_explicit(&phase->done, memory_order_acquire) < total; ++spin) {
        if (spin < SPIN_PAUSES) {
            pause_briefly();
        } else {
            /* Sleep rather than yield: the thread holding the chunk is
               most likely runnable on the other, busy core, and only a
               core that goes idle pulls it over at once. The request is
               the shortest; the timer slack (50 us) sets the nap. */
            struct timespec nap = { 0, 1000 };
            nanosleep(&nap, NULL);
        }
    }
}
