/* The packet kernels (src/kernel/): one source, packet_kernel.c, compiled
   once per kernel set, plus the scalar pieces they share. Internal. */
#ifndef SKIM_SIMD_KERNELS_H
#define SKIM_SIMD_KERNELS_H

#include "kernel/kernel.h"

/* Which of Rouwé's tests produced a lane's t (the order of section 3.6:
   a later feature replaces an earlier one only when strictly earlier). */
enum skim_simd_feature {
    SKIM_FEATURE_TOUCH = 0,  /* already touching at t = 0 */
    SKIM_FEATURE_FACE = 1,   /* 3.3: the touching point at t1 is inside */
    SKIM_FEATURE_VERTEX = 2, /* 3.4: vertices a, b, c are 2, 3, 4 */
    SKIM_FEATURE_EDGE = 5,   /* 3.5: edges ab, bc, ca are 5, 6, 7 */
};

/* One per kernel set; same contract as skim_sweep_candidates_fn. Every set
   exists on every platform (on x86 `neon` is SIMDe's emulation of NEON, so
   the tests can check that source too); dispatch.c decides which of them
   the CPU may run. */
#define SKIM_SIMD_DECLARE_SET(set)                                                            \
    void skim_simd_sweep_##set(const skim_candidates *c, const float delta[3],                \
                               bool cull_back_faces, skim_unit_hit *best);                     \
    void skim_simd_sweep_from_##set(const skim_candidates *c, const float origin[3],          \
                                    const float delta[3], bool cull_back_faces,                \
                                    skim_unit_hit *best);                                      \
    void skim_simd_sweep_deferred_##set(const skim_candidates *c, const float delta[3],       \
                                        bool cull_back_faces, skim_unit_hit *best,             \
                                        skim_unit_winner *winner);
SKIM_SIMD_DECLARE_SET(portable)
SKIM_SIMD_DECLARE_SET(neon)
#if defined(__x86_64__) || defined(__i386__)
#define SKIM_SIMD_HAVE_X86 1
SKIM_SIMD_DECLARE_SET(sse41)
SKIM_SIMD_DECLARE_SET(avx2)
SKIM_SIMD_DECLARE_SET(avx512)
SKIM_SIMD_DECLARE_SET(avx512vl)
#endif

/* The best hit so far across the packets of one call. A packet's hit lanes
   are offered in any order; the winner is the lowest (t, triangle, lane), so
   the answer is the same whatever the packet width. lane = -1 stands for
   the hit the caller passed in, which an equal (t, triangle) never
   replaces (as in the reference). */
typedef struct skim_simd_running {
    bool     have;
    float    t;
    uint32_t triangle;
    int64_t  lane;
    int      feature;
} skim_simd_running;

static inline skim_simd_running skim_simd_running_start(const skim_unit_hit *best)
{
    return (skim_simd_running){ .have = best->hit, .t = best->t, .triangle = best->triangle,
                                .lane = -1, .feature = -1 };
}

static inline void skim_simd_running_offer(skim_simd_running *run, float t, uint32_t triangle,
                                           uint32_t lane, int feature)
{
    if (run->have && !(t < run->t)) {
        if (!(t == run->t))
            return;
        if (triangle > run->triangle || (triangle == run->triangle && (int64_t)lane >= run->lane))
            return;
    }
    *run = (skim_simd_running){ .have = true, .t = t, .triangle = triangle, .lane = lane,
                                .feature = feature };
}

/* Writes the winner into best: the contact point and normal of `feature`
   (vertices taken as v - origin, as the kernel took them)
   of lane `lane` at `t`, computed once per call in scalar code with the
   reference's operations in the reference's order (so every set, whatever
   its width, produces the same bits). Does nothing if run found nothing new. */
void skim_simd_finish(const skim_candidates *c, const float origin[3], const float delta[3],
                      const skim_simd_running *run, skim_unit_hit *best);
/* The deferred form (skim_sweep_candidates_deferred_fn): records the new
   winner of a plain (origin +0) call in winner and sets best's hit, t and
   triangle; skim_unit_winner_finish() later writes what skim_simd_finish
   would have. Does nothing if run found nothing new. */
void skim_simd_defer(const skim_candidates *c, const skim_simd_running *run, skim_unit_hit *best,
                     skim_unit_winner *winner);

#endif /* SKIM_SIMD_KERNELS_H */
