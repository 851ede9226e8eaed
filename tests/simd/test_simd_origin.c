/* The kernels' origin-taking entry (skim_sweep_candidates_from_fn): a sweep
   started at `origin` over candidates gathered elsewhere must give, bit for
   bit, what the plain sweep gives over a copy of the candidates re-based by
   the float subtraction v - origin, for every set and the reference. This
   is what lets a move run each slide iteration from its new position over
   its one gather without copying the buffer.

   Origins: +0 (no subtraction at all), -0 components (which do change a -0
   coordinate), points along the path (where a move's later iterations
   start) and random offsets of a few radii; candidate buffers from the
   adversarial families of simd_cases.h (grazing vertices and edges,
   touching starts, slivers, duplicates, coordinates 1e5 out). */
#include "simd_cases.h"

#include <criterion/criterion.h>

#define BUFFERS_PER_SET (20000L / SKIM_SIMD_TEST_SCALE)

static void pick_origin(rng *r, const case_buffer *b, float origin[3])
{
    switch (rng_below(r, 4)) {
    case 0:
        for (int k = 0; k < 3; ++k)
            origin[k] = 0.0f;
        break;
    case 1:
        for (int k = 0; k < 3; ++k)
            origin[k] = rng_below(r, 2) ? -0.0f : 0.0f;
        break;
    case 2: {
        const float along = (float)rng_uniform(r, 0.0, 1.0);
        for (int k = 0; k < 3; ++k)
            origin[k] = along * b->delta[k];
        break;
    }
    default:
        for (int k = 0; k < 3; ++k)
            origin[k] = (float)rng_uniform(r, -3.0, 3.0);
        break;
    }
}

static void run_origin_set(const char *name, uint64_t seed)
{
    const skim_sweep_candidates_fn sweep = test_set_plain_sweep(name);
    const skim_kernel_set *set = test_kernel_set(name);
    const skim_sweep_candidates_from_fn sweep_from = set ? set->sweep_from : NULL;
    if (!sweep || !sweep_from) {
        cr_log_info("%s: not available on this CPU", name);
        return;
    }
    rng r = { seed };
    case_buffer b;
    case_buffer_init(&b);
    skim_candidates rebased;
    skim_candidates_init(&rebased);
    long hits = 0, rebased_calls = 0, failures = 0;
    for (long index = 0; index < BUFFERS_PER_SET; ++index) {
        make_buffer(&r, &b, 48);
        float origin[3];
        pick_origin(&r, &b, origin);
        candidates_copy(&rebased, &b.c);
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                for (uint32_t lane = 0; lane < rebased.count; ++lane)
                    rebased.vertex[v][axis][lane] -= origin[axis];
        skim_unit_hit expected = b.initial, got = b.initial;
        sweep(&rebased, b.delta, b.cull, &expected);
        sweep_from(&b.c, origin, b.delta, b.cull, &got);
        hits += expected.hit && !b.initial.hit;
        rebased_calls += origin[0] != 0.0f || origin[1] != 0.0f || origin[2] != 0.0f;
        if (!hits_bitwise_equal(&expected, &got)) {
            char e[256], g[256];
            hit_describe(&expected, e, sizeof e);
            hit_describe(&got, g, sizeof g);
            if (failures++ < 5)
                cr_log_error("%s buffer %ld origin (%a %a %a): re-based copy %s, from origin %s",
                             name, index, (double)origin[0], (double)origin[1], (double)origin[2],
                             e, g);
        }
    }
    printf("simd_origin %-13s %ld buffers, %ld with a nonzero origin, %ld new hits, %ld differ\n",
           name, BUFFERS_PER_SET, rebased_calls, hits, failures);
    cr_expect_gt(hits, BUFFERS_PER_SET / 10, "%s: too few hits to mean anything", name);
    cr_expect_gt(rebased_calls, BUFFERS_PER_SET / 3, "%s: too few re-based calls", name);
    cr_expect_eq(failures, 0, "%s: %ld buffers differ", name, failures);
    skim_candidates_free(&rebased);
    skim_candidates_free(&b.c);
}

Test(simd_origin, reference) { run_origin_set("reference", 0x243f6a8885a308d3ull); }
Test(simd_origin, portable) { run_origin_set("portable", 0x13198a2e03707344ull); }
Test(simd_origin, sse41) { run_origin_set("sse41", 0xa4093822299f31d0ull); }
Test(simd_origin, avx2) { run_origin_set("avx2", 0x082efa98ec4e6c89ull); }
Test(simd_origin, avx512) { run_origin_set("avx512", 0x452821e638d01377ull); }
Test(simd_origin, avx512vl) { run_origin_set("avx512vl", 0xc0ac29b7c97c50ddull); }
Test(simd_origin, neon_emulated) { run_origin_set("neon-emulated", 0xbe5466cf34e90c6cull); }
