/* Kernel-set dispatch: the one piece of global mutable state the library
   has, chosen once (SKIM_ISA, else the best set the CPU offers) and never
   changed afterwards.

   The sets: `reference` (src/kernel/sweep_sphere_triangle.c, one triangle at a time), then the
   packet kernel of packet_kernel.c compiled once per lane type:
   `portable` (SIMDe's plain-C fallback, 4 wide, runs anywhere), `neon`
   (4 wide, AArch64), `sse41` (4), `avx2` (8), `avx512` (16, F+DQ+VL+BW) and
   `avx512vl` (8: avx2's source built for the same AVX-512 CPUs).
   The CPU is asked once, with __builtin_cpu_supports (which also checks
   that the OS saves the wider registers). */
#include "kernel/simd_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

static const skim_kernel_set reference_set = {
    .name = "reference", .width = 1, .sweep = skim_reference_sweep_candidates,
    .sweep_from = skim_reference_sweep_candidates_from,
    .sweep_deferred = skim_reference_sweep_candidates_deferred,
};

/* A packet kernel set: packet_kernel.c's three entries for one SKIM_SET. */
#define SKIM_PACKET_SET(set, lanes)                                                            \
    { .name = #set, .width = lanes, .sweep = skim_simd_sweep_##set,                             \
      .sweep_from = skim_simd_sweep_from_##set, .sweep_deferred = skim_simd_sweep_deferred_##set }
static const skim_kernel_set portable_set = SKIM_PACKET_SET(portable, 4);
static const skim_kernel_set neon_set = SKIM_PACKET_SET(neon, 4);
#if SKIM_SIMD_HAVE_X86
static const skim_kernel_set sse41_set = SKIM_PACKET_SET(sse41, 4);
static const skim_kernel_set avx2_set = SKIM_PACKET_SET(avx2, 8);
static const skim_kernel_set avx512_set = SKIM_PACKET_SET(avx512, 16);
static const skim_kernel_set avx512vl_set = SKIM_PACKET_SET(avx512vl, 8);
#endif

/* Every set this build knows, best last: the default is the last one the
   CPU can run. avx512vl comes after avx512 because it is the faster on the
   real paths, sweeps through the BVH and moves (measured with
   bench/bvh/bench_sweep_path.c and bench/move, docs/performance.md): a
   kernel call holds about ten candidates, so 16 lanes are mostly padding,
   and the wider registers cost more per instruction (division, square
   root, the frequency they run at) than the idle lanes give back. The
   16-wide set wins on large buffers, such as a brute-force world's;
   SKIM_ISA=avx512 picks it. bench/simd/compare_sets.sh runs the
   comparison on any machine. */
static const skim_kernel_set *const known_sets[] = {
    &reference_set, &portable_set, &neon_set,
#if SKIM_SIMD_HAVE_X86
    &sse41_set,     &avx2_set,     &avx512_set,   &avx512vl_set,
#endif
};
enum { known_set_count = sizeof known_sets / sizeof known_sets[0] };

static bool cpu_can_run(const skim_kernel_set *set)
{
    if (set == &reference_set || set == &portable_set)
        return true;
    if (set == &neon_set) {
        /* NEON is part of AArch64; elsewhere the neon object is SIMDe's
           emulation, kept for the tests, never offered. */
#if defined(__aarch64__)
        return true;
#else
        return false;
#endif
    }
#if SKIM_SIMD_HAVE_X86
    __builtin_cpu_init();
    if (set == &sse41_set)
        return __builtin_cpu_supports("sse4.1");
    if (set == &avx2_set)
        return __builtin_cpu_supports("avx2");
    if (set == &avx512_set || set == &avx512vl_set)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#endif
    return false;
}

static once_flag choose_once = ONCE_FLAG_INIT;
static const skim_kernel_set *chosen_set;
static char available_names[128];
static char isa_error[384]; /* fits the longest message below whole */

static void choose_kernel_set(void)
{
    for (int i = 0; i < known_set_count; ++i) {
        if (!cpu_can_run(known_sets[i]))
            continue;
        if (available_names[0])
            strncat(available_names, " ", sizeof available_names - strlen(available_names) - 1);
        strncat(available_names, known_sets[i]->name,
                sizeof available_names - strlen(available_names) - 1);
    }
    const char *forced = getenv("SKIM_ISA");
    if (forced && forced[0]) {
        chosen_set = skim_kernel_set_by_name(forced);
        if (!chosen_set) {
            bool known = false;
            for (int i = 0; i < known_set_count; ++i)
                known = known || strcmp(known_sets[i]->name, forced) == 0;
            snprintf(isa_error, sizeof isa_error,
                     "SKIM_ISA=%.64s %s; this CPU offers: %s", forced,
                     known ? "is a kernel set this CPU cannot run"
                           : "is not a kernel set (reference, portable, sse41, avx2, avx512, avx512vl, neon)",
                     available_names);
        }
        return;
    }
    for (int i = known_set_count - 1; i >= 0; --i)
        if (cpu_can_run(known_sets[i])) {
            chosen_set = known_sets[i];
            return;
        }
}

const skim_kernel_set *skim_kernel_set_by_name(const char *name)
{
    for (int i = 0; i < known_set_count; ++i)
        if (strcmp(known_sets[i]->name, name) == 0)
            return cpu_can_run(known_sets[i]) ? known_sets[i] : NULL;
    return NULL;
}

const skim_kernel_set *skim_kernels(void)
{
    call_once(&choose_once, choose_kernel_set);
    if (!chosen_set)
        skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s", isa_error);
    return chosen_set;
}

const char *skim_isa_name(void)
{
    const skim_kernel_set *set = skim_kernels();
    return set ? set->name : "invalid";
}

const char *skim_isa_available(void)
{
    call_once(&choose_once, choose_kernel_set);
    return available_names;
}

skim_status skim_isa_status(void)
{
    return skim_kernels() ? SKIM_OK : SKIM_ERROR_INVALID_ARGUMENT;
}
