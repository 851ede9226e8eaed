/* Whole sweeps and whole moves over real geometry, per kernel set.

   In-process: game-like sweeps over the default scene and the two real
   levels (SKIM_SCENES_DIR, skipped when absent) gather their candidates
   once, as skim_sweep does, and every kernel set sweeps them; each set's
   answer must equal portable's bit for bit, and the reference's
   (skim_reference_sweep_candidates, cross-checked triangle by triangle with
   reference_order_free) within the equivalence suite's tolerance
   (measured: bitwise). The same through SKIM_ISA, with whole moves, is
   test_simd_isa.c. */
#include "simd_scene.h"

#include <criterion/criterion.h>

static const char *const packet_sets[] = { "portable", "sse41", "avx2", "avx512", "avx512vl",
                                           "neon", "neon-emulated" };
enum { packet_set_count = sizeof packet_sets / sizeof packet_sets[0] };

static void open_or_skip(const char *name, scene *s)
{
    char why[512];
    if (scene_open(name, SKIM_ACCELERATOR_BVH, s, why, sizeof why))
        return;
    if (strcmp(name, "default") == 0)
        cr_assert_fail("%s", why);
    cr_skip_test("level %s: %s", name, why);
}

static void sweeps_in_process(const char *name, long count, uint64_t seed)
{
    scene s;
    open_or_skip(name, &s);
    test_set sets[packet_set_count];
    char skipped[256] = "";
    for (int i = 0; i < packet_set_count; ++i) {
        sets[i] = test_set_get(packet_sets[i]);
        if (!sets[i].sweep)
            snprintf(skipped + strlen(skipped), sizeof skipped - strlen(skipped), " %s",
                     packet_sets[i]);
    }
    skim_candidates c;
    skim_candidates_init(&c);
    rng r = { seed };
    long candidates = 0, hits = 0, touching = 0, ref_exact = 0, failures = 0;
    long sequential_differ = 0;
    double sequential_dt = 0.0;
    for (long i = 0; i < count; ++i) {
        scene_sweep sw;
        scene_sweep_make(&r, &s.mesh, &sw);
        float delta[3];
        cr_assert_eq(scene_gather(s.world, &sw, &c, delta), SKIM_OK);
        candidates += c.count;
        skim_unit_hit expected = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
        skim_unit_hit sequential = expected;
        reference_order_free(&c, delta, sw.cull, &expected);
        skim_reference_sweep_candidates(&c, delta, sw.cull, &sequential);
        if (!hits_bitwise_equal(&sequential, &expected)) {
            sequential_differ++;
            if (sequential.hit && expected.hit)
                sequential_dt = fmax(sequential_dt, fabs((double)sequential.t - expected.t));
            if (failures++ < 5)
                cr_expect(false, "%s sweep %ld: skim_reference_sweep_candidates differs from "
                                 "the reference triangle by triangle", name, i);
        }
        skim_unit_hit anchor = expected;
        for (int k = 0; k < packet_set_count; ++k) {
            if (!sets[k].sweep)
                continue;
            skim_unit_hit got = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
            sets[k].sweep(&c, delta, sw.cull, &got);
            if (k == 0) {
                anchor = got;
                hits += got.hit;
                touching += got.hit && got.t == 0.0f;
                ref_exact += hits_bitwise_equal(&got, &expected);
                bool close = got.hit == expected.hit &&
                             (!got.hit || (got.triangle == expected.triangle &&
                                           fabsf(got.t - expected.t) <= 1e-6f));
                if (!close && failures++ < 5) {
                    char g[256], e[256];
                    hit_describe(&got, g, sizeof g);
                    hit_describe(&expected, e, sizeof e);
                    cr_expect(false, "%s sweep %ld (%u candidates): portable %s, reference %s",
                              name, i, c.count, g, e);
                }
            } else if (!hits_bitwise_equal(&got, &anchor) && failures++ < 5) {
                char g[256], a[256];
                hit_describe(&got, g, sizeof g);
                hit_describe(&anchor, a, sizeof a);
                cr_expect(false, "%s sweep %ld: %s %s, portable %s", name, i, packet_sets[k], g,
                          a);
            }
        }
    }
    fprintf(stderr,
            "simd scene %-16s %ld sweeps, %.1f candidates each, %ld hits (%ld at t=0); "
            "reference bitwise in %ld of %ld (skim_reference_sweep_candidates vs triangle by "
            "triangle: %ld differ, worst dt %.3g); failures %ld; sets skipped (CPU):%s\n",
            name, count, (double)candidates / (double)count, hits, touching, ref_exact, count,
            sequential_differ, sequential_dt, failures, skipped[0] ? skipped : " none");
    cr_expect_eq(failures, 0);
    cr_expect_gt(hits, count / 10, "too few hits to mean anything");
    skim_candidates_free(&c);
    scene_free(&s);
}

Test(simd_scenes, default_scene_sweeps, .timeout = 300)
{
    sweeps_in_process("default", 30000 / SKIM_SIMD_TEST_SCALE, 0x5851f42d4c957f2dull);
}
Test(simd_scenes, oa_dm1_sweeps, .timeout = 300)
{
    sweeps_in_process("oa_dm1.obj", 30000 / SKIM_SIMD_TEST_SCALE, 0x14057b7ef767814full);
}
Test(simd_scenes, oa_dm4_hull_sweeps, .timeout = 300)
{
    sweeps_in_process("oa_dm4_hull.obj", 30000 / SKIM_SIMD_TEST_SCALE, 0x9c8f2a3e1b5d7c61ull);
}
