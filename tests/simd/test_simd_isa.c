/* Dispatch and SKIM_ISA.

   The kernel sets the CPU offers, their widths, the default choice, and
   SKIM_ISA end to end: simd_isa_probe runs skim_sweep, skim_move and
   skim_move_batch over each scene in a fresh process per set (SKIM_ISA is
   read once per process) and prints a digest of every result bit; all
   packet sets must print the same digests. Sets this CPU cannot run are
   reported as skipped. */
#include "simd_scene.h"

#include <criterion/criterion.h>

#ifndef SIMD_PROBE_PATH
#error "SIMD_PROBE_PATH must name the simd_isa_probe executable"
#endif

static bool run_probe(const char *isa, const char *scene_name, long count, char *line,
                      size_t size)
{
    char command[4096];
    snprintf(command, sizeof command, "SKIM_ISA='%s' '%s' '%s' %ld", isa, SIMD_PROBE_PATH,
             scene_name, count);
    FILE *pipe = popen(command, "r");
    cr_assert(pipe, "cannot run %s", command);
    bool got = fgets(line, (int)size, pipe) != NULL;
    int status = pclose(pipe);
    cr_assert(got && status == 0, "%s failed (status %d)", command, status);
    line[strcspn(line, "\n")] = 0;
    return strstr(line, "status=ok") != NULL;
}

/* The digests part of a probe line (everything after "status=ok"). */
static const char *digests(const char *line)
{
    const char *p = strstr(line, "sweeps=");
    return p ? p : line;
}

static void probe_scene(const char *scene_name, long count)
{
    static const char *const sets[] = { "reference", "portable", "sse41", "avx2", "avx512",
                                        "avx512vl", "neon" };
    char anchor[512] = "", reference[512] = "", line[512];
    int compared = 0;
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; ++i) {
        if (!skim_kernel_set_by_name(sets[i])) {
            fprintf(stderr, "simd SKIM_ISA=%s on %s: skipped (this CPU cannot run it)\n",
                    sets[i], scene_name);
            continue;
        }
        if (!run_probe(sets[i], scene_name, count, line, sizeof line)) {
            if (strstr(line, "status=absent"))
                cr_skip_test("%s", line);
            cr_assert_fail("SKIM_ISA=%s: %s", sets[i], line);
        }
        fprintf(stderr, "simd SKIM_ISA=%-9s %-16s %s\n", sets[i], scene_name, line);
        char expect_isa[64];
        snprintf(expect_isa, sizeof expect_isa, "isa=%s ", sets[i]);
        cr_expect(strncmp(line, expect_isa, strlen(expect_isa)) == 0, "SKIM_ISA=%s ran %s",
                  sets[i], line);
        cr_expect(strstr(line, "moves=unavailable") == NULL, "moves did not run: %s", line);
        if (i == 0) {
            snprintf(reference, sizeof reference, "%s", digests(line));
            continue;
        }
        if (!anchor[0])
            snprintf(anchor, sizeof anchor, "%s", digests(line));
        cr_expect_str_eq(digests(line), anchor, "SKIM_ISA=%s differs from portable on %s",
                         sets[i], scene_name);
        compared++;
    }
    fprintf(stderr, "simd SKIM_ISA reference on %s: %s the packet sets\n", scene_name,
            strcmp(reference, anchor) == 0 ? "bitwise equal to" : "differs from");
    cr_expect_geq(compared, 1);
}

Test(simd_isa, default_scene, .timeout = 300) { probe_scene("default", 3000 / SKIM_SIMD_TEST_SCALE); }
Test(simd_isa, oa_dm1, .timeout = 300) { probe_scene("oa_dm1.obj", 3000 / SKIM_SIMD_TEST_SCALE); }
Test(simd_isa, oa_dm4_hull, .timeout = 300)
{
    probe_scene("oa_dm4_hull.obj", 3000 / SKIM_SIMD_TEST_SCALE);
}

/* An unknown or unavailable SKIM_ISA is an error naming what the CPU offers. */
Test(simd_isa, bad_values_name_the_available_sets)
{
    char line[512];
    const char *bad[] = { "bogus", "AVX2", "", "neon" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        if (strcmp(bad[i], "neon") == 0 && skim_kernel_set_by_name("neon"))
            continue; /* AArch64: neon is fine there */
        bool ok = run_probe(bad[i], "default", 1, line, sizeof line);
        if (!bad[i][0]) { /* empty = not set: the best set */
            cr_expect(ok, "SKIM_ISA='' should mean the default: %s", line);
            continue;
        }
        cr_expect(!ok && strstr(line, "status=error"), "SKIM_ISA=%s accepted: %s", bad[i], line);
        cr_expect(strstr(line, skim_isa_available()) != NULL,
                  "message for SKIM_ISA=%s does not list \"%s\": %s", bad[i],
                  skim_isa_available(), line);
        cr_expect(strstr(line, bad[i]) != NULL, "message does not name %s: %s", bad[i], line);
    }
}

/* What the CPU offers is what __builtin_cpu_supports says, in order of
   preference, and the default is the best of it. */
Test(simd_isa, available_sets_follow_the_cpu)
{
    struct { const char *name; unsigned width; bool runs; } expected[] = {
        { "reference", 1, true },
        { "portable", 4, true },
#if defined(__aarch64__)
        { "neon", 4, true },
#else
        { "neon", 4, false },
#endif
#if defined(__x86_64__) || defined(__i386__)
        { "sse41", 4, __builtin_cpu_supports("sse4.1") },
        { "avx2", 8, __builtin_cpu_supports("avx2") },
        { "avx512", 16, __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                            __builtin_cpu_supports("avx512vl") &&
                            __builtin_cpu_supports("avx512bw") },
        /* After avx512: preferred where both run (dispatch.c says why). */
        { "avx512vl", 8, __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                             __builtin_cpu_supports("avx512vl") &&
                             __builtin_cpu_supports("avx512bw") },
#endif
    };
    char list[256] = "";
    const char *best = NULL;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
        const skim_kernel_set *set = skim_kernel_set_by_name(expected[i].name);
        cr_expect_eq(set != NULL, expected[i].runs, "%s: available %d, CPU says %d",
                     expected[i].name, set != NULL, expected[i].runs);
        if (!set)
            continue;
        cr_expect_str_eq(set->name, expected[i].name);
        cr_expect_eq(set->width, expected[i].width, "%s width", expected[i].name);
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? " " : "",
                 expected[i].name);
        best = expected[i].name;
    }
    cr_expect_str_eq(skim_isa_available(), list);
    cr_expect_null(skim_kernel_set_by_name("bogus"));
    fprintf(stderr, "simd sets this CPU offers: %s\n", skim_isa_available());

    char line[512];
    cr_assert(run_probe("", "default", 1, line, sizeof line), "%s", line);
    char expect_isa[64];
    snprintf(expect_isa, sizeof expect_isa, "isa=%s ", best);
    cr_expect(strncmp(line, expect_isa, strlen(expect_isa)) == 0, "default chose %s, best is %s",
              line, best);
}
