/* Determinism: the same 10,000-mover, 300-frame crowd on the
   default scene gives the same hash of every position and contact flag with
   1, 2 and 3 threads and with every available SIMD kernel set. The
   reference set (scalar, src/kernel/sweep_sphere_triangle.c) only has to agree with itself across
   thread counts: it agrees with the packet kernels within a tolerance, not
   bitwise. Sanitizer builds run fewer frames (SKIM_MOVE_TEST_SCALE) against
   a hash pinned for that length; every set but the default one runs a
   quarter of the frames, as the default one's full-length run is compared
   across thread counts. */
#include "move_test_util.h"
#include "move/move_internal.h"

#include <omp.h>

#ifndef SKIM_MOVE_TEST_SCALE
#define SKIM_MOVE_TEST_SCALE 1
#endif

enum { MOVERS = 10000, FRAMES = 300 / SKIM_MOVE_TEST_SCALE };
_Static_assert(FRAMES == 300 || FRAMES == 75 || FRAMES == 37, "a pinned hash for this many frames");

/* The crowd's hash with every packet kernel set, pinned for each length a
   build runs: a change to what a move computes changes these, and the
   commit that does so says why. (The reference set agrees with the packet
   sets within a tolerance, not bitwise, so only its agreement across
   thread counts is checked.) 0: no hash pinned for that length. */
static uint64_t pinned_hash(int frames)
{
    switch (frames) {
    case 300: return 0x4d10e5c961e5789cull;
    case 75: return 0x4c4d5b7ec76065f4ull;
    case 37: return 0xb61f141a84e6b607ull;
    case 9: return 0x3aded8b1e3ab5fcaull;
    default: return 0;
    }
}

static scene world;

static void setup(void)
{
    scene_default(&world);
}
static void teardown(void)
{
    scene_free(&world);
}

TestSuite(move_determinism, .init = setup, .fini = teardown, .timeout = 400);

/* A wandering crowd over the open half (y < 0) and the features of y > 0:
   320 u/s in a direction changed every second, a per-mover fall speed
   added to the displacement (reset on landing), Quake step and snap. */
static uint64_t crowd_hash(const skim_kernel_set *set, int threads, int frames)
{
    skim_ellipsoid *shapes = malloc(MOVERS * sizeof *shapes);
    skim_vec3 *positions = malloc(MOVERS * sizeof *positions);
    skim_vec3 *displacements = malloc(MOVERS * sizeof *displacements);
    skim_move_result *results = malloc(MOVERS * sizeof *results);
    float *heading = malloc(MOVERS * sizeof *heading), *fall = malloc(MOVERS * sizeof *fall);
    uint64_t rng = 0xC0FFEE;
    for (int i = 0; i < MOVERS; ++i) {
        shapes[i] = i % 10 == 9 ? (skim_ellipsoid){ { 15, 15, 28 }, { 0, 0, 0, 1 } } : sphere(RADIUS);
        positions[i] = (skim_vec3){ -2000.0f + 4000.0f * (float)rng_uniform(&rng),
                                    -2000.0f + 4000.0f * (float)rng_uniform(&rng),
                                    40.0f + 150.0f * (float)rng_uniform(&rng) };
        heading[i] = 6.2831853f * (float)rng_uniform(&rng);
        fall[i] = 0.0f;
    }
    skim_move_def def = skim_move_def_default();
    def.step_height = STEP;
    def.snap_distance = 8;
    omp_set_num_threads(threads);
    uint64_t hash = 1469598103934665603ull;
    for (int frame = 0; frame < frames; ++frame) {
        for (int i = 0; i < MOVERS; ++i) {
            if ((frame + i) % 60 == 0)
                heading[i] = 6.2831853f * (float)rng_uniform(&rng);
            fall[i] -= 800.0f / 60.0f;
            displacements[i] = (skim_vec3){ RUN_PER_FRAME * cosf(heading[i]),
                                            RUN_PER_FRAME * sinf(heading[i]), fall[i] / 60.0f };
        }
        skim_status status = skim_move_batch_with(set, world.world, MOVERS, shapes, positions,
                                                  displacements, &def, results);
        cr_assert_eq(status, SKIM_OK, "%s", skim_last_error_message());
        for (int i = 0; i < MOVERS; ++i) {
            positions[i] = results[i].position;
            if (results[i].touched & SKIM_TOUCH_FLOOR)
                fall[i] = 0.0f;
            hash = hash_bytes(hash, &results[i].position, sizeof results[i].position);
            hash = hash_bytes(hash, &results[i].touched, sizeof results[i].touched);
        }
    }
    free(shapes);
    free(positions);
    free(displacements);
    free(results);
    free(heading);
    free(fall);
    return hash;
}

/* Two cases, so that each stays well inside the suite's timeout on a
   loaded machine: the full run across thread counts, and the short runs
   across kernel sets. */
Test(move_determinism, same_hash_for_1_2_3_threads)
{
    const skim_kernel_set *chosen = skim_kernels();
    cr_assert(chosen, "%s", skim_last_error_message());
    uint64_t full[3];
    for (int threads = 1; threads <= 3; ++threads) {
        full[threads - 1] = crowd_hash(chosen, threads, FRAMES);
        cr_expect_eq(full[threads - 1], full[0], "%s, %d frames: %d threads give %016llx, 1 thread %016llx",
                     chosen->name, FRAMES, threads, (unsigned long long)full[threads - 1],
                     (unsigned long long)full[0]);
    }
    fprintf(stderr, "%s, %d movers x %d frames: %016llx for 1, 2 and 3 threads\n", chosen->name,
            MOVERS, FRAMES, (unsigned long long)full[0]);
    if (strcmp(chosen->name, "reference") != 0) {
        const uint64_t pinned = pinned_hash(FRAMES);
        cr_expect_eq(full[0], pinned, "%s, %d frames: hash %016llx, pinned %016llx", chosen->name,
                     FRAMES, (unsigned long long)full[0], (unsigned long long)pinned);
    }
}

Test(move_determinism, same_hash_for_every_kernel_set)
{
    const skim_kernel_set *chosen = skim_kernels();
    cr_assert(chosen, "%s", skim_last_error_message());
    /* Every set, on a quarter of the frames (the run is deterministic
       frame by frame, so a shorter run compares a prefix). */
    const int short_frames = FRAMES / 4;
    uint64_t packet_hash = 0;
    bool have_packet_hash = false;
    char names[256];
    snprintf(names, sizeof names, "%s", skim_isa_available());
    int sets = 0;
    for (char *name = strtok(names, " "); name; name = strtok(NULL, " ")) {
        const skim_kernel_set *set = skim_kernel_set_by_name(name);
        cr_assert(set, "available set %s not found", name);
        bool reference = strcmp(name, "reference") == 0;
        uint64_t one = crowd_hash(set, 1, reference ? short_frames / 2 : short_frames);
        uint64_t three = crowd_hash(set, 3, reference ? short_frames / 2 : short_frames);
        cr_expect_eq(one, three, "%s: 1 and 3 threads differ", name);
        if (!reference) {
            if (!have_packet_hash) {
                packet_hash = one;
                have_packet_hash = true;
            }
            cr_expect_eq(one, packet_hash, "%s differs from the first packet set", name);
            if (pinned_hash(short_frames) != 0)
                cr_expect_eq(one, pinned_hash(short_frames), "%s, %d frames: hash %016llx, pinned %016llx",
                             name, short_frames, (unsigned long long)one,
                             (unsigned long long)pinned_hash(short_frames));
            sets++;
        }
        fprintf(stderr, "%s, %d frames: %016llx\n", name,
                reference ? short_frames / 2 : short_frames, (unsigned long long)one);
    }
    if (strcmp(chosen->name, "reference") != 0) {
        cr_expect_eq(crowd_hash(chosen, 2, short_frames), packet_hash,
                     "the chosen set's short run differs from the other sets'");
        cr_expect(sets >= 1, "no packet kernel set available");
    }
}

/* skim_move_batch_split (the crowd's one call for its standing and its
   airborne agents) gives each group what a call of its own gives, bit for
   bit, at 1 and 2 threads and wherever the split falls. The two
   definitions differ in everything a group's move reads: gravity pass,
   step and snap. */
Test(move_determinism, split_batch_is_two_batches)
{
    enum { COUNT = 3000 };
    skim_ellipsoid *shapes = malloc(COUNT * sizeof *shapes);
    skim_vec3 *positions = malloc(COUNT * sizeof *positions);
    skim_vec3 *displacements = malloc(COUNT * sizeof *displacements);
    skim_move_result *split = malloc(COUNT * sizeof *split), *apart = malloc(COUNT * sizeof *apart);
    cr_assert(shapes && positions && displacements && split && apart);
    uint64_t rng = 0x5B17;
    for (int i = 0; i < COUNT; ++i) {
        shapes[i] = i % 7 == 3 ? (skim_ellipsoid){ { 15, 15, 28 }, { 0, 0, 0, 1 } } : sphere(RADIUS);
        positions[i] = (skim_vec3){ -2000.0f + 4000.0f * (float)rng_uniform(&rng),
                                    -2000.0f + 4000.0f * (float)rng_uniform(&rng),
                                    20.0f + 100.0f * (float)rng_uniform(&rng) };
        const float heading = 6.2831853f * (float)rng_uniform(&rng);
        displacements[i] = (skim_vec3){ RUN_PER_FRAME * cosf(heading), RUN_PER_FRAME * sinf(heading),
                                        -4.0f * (float)rng_uniform(&rng) };
    }
    skim_move_def on_floor = skim_move_def_default(), in_air = skim_move_def_default();
    on_floor.step_height = STEP;
    on_floor.snap_distance = 8;
    on_floor.gravity = (skim_vec3){ 0, 0, -0.2f };
    const skim_kernel_set *kernels = skim_kernels();
    cr_assert(kernels);
    const size_t splits[] = { 0, 1, 1234, COUNT - 1, COUNT };
    for (int threads = 1; threads <= 2; ++threads) {
        omp_set_num_threads(threads);
        for (size_t s = 0; s < sizeof splits / sizeof splits[0]; ++s) {
            const size_t at = splits[s];
            cr_assert_eq(skim_move_batch_split(kernels, world.world, COUNT, shapes, positions,
                                               displacements, &on_floor, at, &in_air, split),
                         SKIM_OK, "%s", skim_last_error_message());
            cr_assert_eq(skim_move_batch_with(kernels, world.world, at, shapes, positions,
                                              displacements, &on_floor, apart),
                         SKIM_OK);
            cr_assert_eq(skim_move_batch_with(kernels, world.world, COUNT - at, shapes + at,
                                              positions + at, displacements + at, &in_air,
                                              apart + at),
                         SKIM_OK);
            for (int i = 0; i < COUNT; ++i)
                cr_assert_eq(memcmp(&split[i], &apart[i], sizeof split[i]), 0,
                             "%d threads, split at %zu: mover %d differs", threads, at, i);
        }
    }
    free(shapes);
    free(positions);
    free(displacements);
    free(split);
    free(apart);
}
