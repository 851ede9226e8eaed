/* The kernels' deferred entry (skim_sweep_candidates_deferred_fn): the
   front-to-back traversal hands one sweep's candidates to the kernel in
   several calls and wants the contact point and normal computed once, for
   the last winner. Splitting a buffer into consecutive calls of the
   deferred entry and finishing at the end (skim_unit_winner_finish) must
   give, bit for bit, what one plain call over the whole buffer gives, for
   every set and the reference: same hit, t, triangle, point and normal.

   Buffers: the adversarial families of simd_cases.h (grazing vertices and
   edges, touching starts, slivers, duplicates, coordinates 1e5 out), with
   and without a caller's hit on entry, cut at random places into one to
   four calls (an empty call included). */
#include "simd_cases.h"

#include <criterion/criterion.h>

#define BUFFERS_PER_SET (20000L / SKIM_SIMD_TEST_SCALE)

static void run_deferred_set(const char *name, uint64_t seed)
{
    const skim_sweep_candidates_fn sweep = test_set_plain_sweep(name);
    const skim_kernel_set *set = test_kernel_set(name);
    const skim_sweep_candidates_deferred_fn sweep_deferred = set ? set->sweep_deferred : NULL;
    if (!sweep || !sweep_deferred) {
        cr_log_info("%s: not available on this CPU", name);
        return;
    }
    rng r = { seed };
    case_buffer b;
    case_buffer_init(&b);
    skim_candidates part;
    skim_candidates_init(&part);
    long hits = 0, split_calls = 0, failures = 0;
    for (long index = 0; index < BUFFERS_PER_SET; ++index) {
        make_buffer(&r, &b, 48);
        skim_unit_hit expected = b.initial, got = b.initial;
        sweep(&b.c, b.delta, b.cull, &expected);

        const uint32_t calls = 1 + rng_below(&r, 4);
        uint32_t cut[5] = { 0 };
        for (uint32_t k = 1; k < calls; ++k)
            cut[k] = rng_below(&r, b.c.count + 1);
        cut[calls] = b.c.count;
        for (uint32_t k = 1; k < calls; ++k) /* ascending: consecutive slices */
            for (uint32_t j = k; j > 1 && cut[j - 1] > cut[j]; --j) {
                const uint32_t swap = cut[j];
                cut[j] = cut[j - 1];
                cut[j - 1] = swap;
            }
        skim_unit_winner winner = { .feature = -1 };
        for (uint32_t k = 0; k < calls; ++k) {
            candidates_slice(&part, &b.c, cut[k], cut[k + 1]);
            sweep_deferred(&part, b.delta, b.cull, &got, &winner);
        }
        skim_unit_winner_finish(&winner, b.delta, &got);

        hits += expected.hit && !b.initial.hit;
        split_calls += calls > 1;
        if (!hits_bitwise_equal(&expected, &got)) {
            char e[256], g[256];
            hit_describe(&expected, e, sizeof e);
            hit_describe(&got, g, sizeof g);
            if (failures++ < 5)
                cr_log_error("%s buffer %ld (%u calls): one plain call %s, deferred %s", name,
                             index, calls, e, g);
        }
    }
    printf("simd_deferred %-13s %ld buffers, %ld split, %ld new hits, %ld differ\n", name,
           BUFFERS_PER_SET, split_calls, hits, failures);
    cr_expect_gt(hits, BUFFERS_PER_SET / 10, "%s: too few hits to mean anything", name);
    cr_expect_gt(split_calls, BUFFERS_PER_SET / 2, "%s: too few split buffers", name);
    cr_expect_eq(failures, 0, "%s: %ld buffers differ", name, failures);
    skim_candidates_free(&part);
    skim_candidates_free(&b.c);
}

Test(simd_deferred, reference) { run_deferred_set("reference", 0x243f6a8885a308d3ull); }
Test(simd_deferred, portable) { run_deferred_set("portable", 0x13198a2e03707344ull); }
Test(simd_deferred, sse41) { run_deferred_set("sse41", 0xa4093822299f31d0ull); }
Test(simd_deferred, avx2) { run_deferred_set("avx2", 0x082efa98ec4e6c89ull); }
Test(simd_deferred, avx512) { run_deferred_set("avx512", 0x452821e638d01377ull); }
Test(simd_deferred, avx512vl) { run_deferred_set("avx512vl", 0xc0ac29b7c97c50ddull); }
Test(simd_deferred, neon_emulated) { run_deferred_set("neon-emulated", 0xbe5466cf34e90c6cull); }
