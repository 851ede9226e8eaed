/* skim_move_batch_cached: movers that keep the world's leaves near them
   from one batch to the next end every frame bitwise where
   skim_move_batch puts them, walk the tree on only some of their moves,
   and a cache handed another world forgets the first. */
#include "move_test_util.h"
#include "move/move_internal.h"

#include <omp.h>

#ifndef SKIM_MOVE_TEST_SCALE
#define SKIM_MOVE_TEST_SCALE 1
#endif

enum { MOVERS = 2000, FRAMES = 120 / SKIM_MOVE_TEST_SCALE };

static scene world;

static void setup(void)
{
    scene_default(&world);
}
static void teardown(void)
{
    scene_free(&world);
}

TestSuite(move_cache, .init = setup, .fini = teardown, .timeout = 300);

typedef struct crowd {
    skim_ellipsoid shapes[MOVERS];
    skim_vec3 positions[MOVERS], displacements[MOVERS];
    skim_move_result results[MOVERS];
    float heading[MOVERS], fall[MOVERS];
    uint64_t rng;
} crowd;

/* The wandering crowd of the determinism suite, smaller: spheres and
   upright ellipsoids walking at 320/s, turning every second, falling. */
static void crowd_init(crowd *c, uint64_t seed)
{
    c->rng = seed;
    for (int i = 0; i < MOVERS; ++i) {
        c->shapes[i] = i % 10 == 9 ? (skim_ellipsoid){ { 15, 15, 28 }, { 0, 0, 0, 1 } } : sphere(RADIUS);
        c->positions[i] = (skim_vec3){ -2000.0f + 4000.0f * (float)rng_uniform(&c->rng),
                                       -2000.0f + 4000.0f * (float)rng_uniform(&c->rng),
                                       40.0f + 150.0f * (float)rng_uniform(&c->rng) };
        c->heading[i] = 6.2831853f * (float)rng_uniform(&c->rng);
        c->fall[i] = 0.0f;
    }
}

/* Frames of the crowd in w, through the cache or (NULL) skim_move_batch;
   returns the hash of every result, chained from hash. */
static uint64_t crowd_frames(crowd *c, const skim_world *w, skim_move_cache *cache, int frames,
                             uint64_t hash)
{
    skim_move_def def = skim_move_def_default();
    def.step_height = STEP;
    def.snap_distance = 8;
    for (int frame = 0; frame < frames; ++frame) {
        for (int i = 0; i < MOVERS; ++i) {
            if ((frame + i) % 60 == 0)
                c->heading[i] = 6.2831853f * (float)rng_uniform(&c->rng);
            c->fall[i] -= 800.0f / 60.0f;
            c->displacements[i] = (skim_vec3){ RUN_PER_FRAME * cosf(c->heading[i]),
                                               RUN_PER_FRAME * sinf(c->heading[i]), c->fall[i] / 60.0f };
        }
        skim_status status =
            cache ? skim_move_batch_cached(w, cache, MOVERS, c->shapes, c->positions, c->displacements, &def,
                                           c->results)
                  : skim_move_batch(w, MOVERS, c->shapes, c->positions, c->displacements, &def, c->results);
        cr_assert_eq(status, SKIM_OK, "%s", skim_last_error_message());
        for (int i = 0; i < MOVERS; ++i) {
            c->positions[i] = c->results[i].position;
            if (c->results[i].touched & SKIM_TOUCH_FLOOR)
                c->fall[i] = 0.0f;
            hash = hash_bytes(hash, &c->results[i], sizeof c->results[i]);
        }
    }
    return hash;
}

Test(move_cache, cached_batches_end_bitwise_where_plain_batches_do)
{
    static crowd plain, cached;
    crowd_init(&plain, 0xC0FFEE);
    crowd_init(&cached, 0xC0FFEE);
    skim_move_cache *cache = NULL;
    cr_assert_eq(skim_move_cache_create(&cache), SKIM_OK, "%s", skim_last_error_message());
    for (int threads = 1; threads <= 2; ++threads) {
        omp_set_num_threads(threads);
        uint64_t a = crowd_frames(&plain, world.world, NULL, FRAMES / 2, 1);
        uint64_t b = crowd_frames(&cached, world.world, cache, FRAMES / 2, 1);
        cr_expect_eq(a, b, "%d threads: plain %016llx, cached %016llx", threads, (unsigned long long)a,
                     (unsigned long long)b);
    }
    cr_expect_eq(cache->moves, (uint64_t)MOVERS * (FRAMES / 2) * 2);
    /* The cache does its job once the crowd has landed (a fall of up to
       190 units takes 41 frames): most walking moves reuse their leaves. */
    const int done = FRAMES / 2 * 2;
    if (done < 60)
        crowd_frames(&cached, world.world, cache, 60 - done, 1);
    const uint64_t moves = cache->moves, walks = cache->walks;
    crowd_frames(&cached, world.world, cache, 15, 1);
    cr_expect((cache->walks - walks) * 2 < cache->moves - moves, "%llu walks in %llu moves",
              (unsigned long long)(cache->walks - walks), (unsigned long long)(cache->moves - moves));
    skim_move_cache_destroy(cache);
}

Test(move_cache, a_cache_handed_another_world_forgets_the_first)
{
    /* The default scene raised by 64 units: the kept leaves of the first
       world would put every mover 64 units off. */
    skim_mesh_data raised = { 0 };
    cr_assert_eq(skim_scene_default(&raised), SKIM_OK);
    for (uint32_t v = 0; v < raised.vertex_count; ++v)
        raised.positions[3 * (size_t)v + 2] += 64.0f;
    skim_mesh mesh = skim_mesh_data_view(&raised);
    skim_world *other = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &other), SKIM_OK, "%s", skim_last_error_message());

    static crowd plain, cached;
    crowd_init(&plain, 7);
    crowd_init(&cached, 7);
    skim_move_cache *cache = NULL;
    cr_assert_eq(skim_move_cache_create(&cache), SKIM_OK);
    uint64_t a = crowd_frames(&plain, world.world, NULL, 10, 1);
    uint64_t b = crowd_frames(&cached, world.world, cache, 10, 1);
    a = crowd_frames(&plain, other, NULL, 10, a);
    b = crowd_frames(&cached, other, cache, 10, b);
    cr_expect_eq(a, b, "plain %016llx, cached %016llx", (unsigned long long)a, (unsigned long long)b);
    skim_move_cache_destroy(cache);
    skim_world_destroy(other);
    skim_mesh_data_free(&raised);
}

Test(move_cache, a_batch_larger_than_the_last_grows_the_cache)
{
    static crowd plain, cached;
    crowd_init(&plain, 11);
    crowd_init(&cached, 11);
    skim_move_def def = skim_move_def_default();
    skim_move_cache *cache = NULL;
    cr_assert_eq(skim_move_cache_create(&cache), SKIM_OK);
    for (size_t count = 10; count <= MOVERS; count *= 10) {
        cr_assert_eq(skim_move_batch(world.world, count, plain.shapes, plain.positions, plain.displacements, &def,
                                     plain.results),
                     SKIM_OK);
        cr_assert_eq(skim_move_batch_cached(world.world, cache, count, cached.shapes, cached.positions,
                                            cached.displacements, &def, cached.results),
                     SKIM_OK, "%s", skim_last_error_message());
        cr_expect_eq(memcmp(plain.results, cached.results, count * sizeof plain.results[0]), 0, "%zu movers",
                     count);
    }
    skim_move_cache_destroy(cache);
}

Test(move_cache, bad_arguments_are_refused_with_a_message)
{
    cr_expect_eq(skim_move_cache_create(NULL), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "out is NULL"), "%s", skim_last_error_message());
    static crowd c;
    crowd_init(&c, 3);
    cr_expect_eq(skim_move_batch_cached(world.world, NULL, MOVERS, c.shapes, c.positions, c.displacements, NULL,
                                        c.results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(skim_last_error_message(), "cache is NULL"), "%s", skim_last_error_message());
    skim_move_cache *cache = NULL;
    cr_assert_eq(skim_move_cache_create(&cache), SKIM_OK);
    cr_expect_eq(skim_move_batch_cached(NULL, cache, MOVERS, c.shapes, c.positions, c.displacements, NULL,
                                        c.results),
                 SKIM_ERROR_INVALID_ARGUMENT);
    skim_move_cache_destroy(cache);
    skim_move_cache_destroy(NULL);
}

Test(move_cache, a_mover_with_nothing_in_reach_makes_no_kernel_call)
{
    enum { HIGH = 64 };
    skim_move_def def = skim_move_def_default();
    def.step_height = STEP;
    def.snap_distance = 8;
    skim_ellipsoid shapes[HIGH];
    skim_vec3 positions[HIGH], displacements[HIGH];
    skim_move_result results[HIGH];
    for (int i = 0; i < HIGH; ++i) {
        shapes[i] = sphere(RADIUS);
        positions[i] = (skim_vec3){ -1000.0f + 30.0f * (float)i, 500.0f, 20000.0f };
        displacements[i] = (skim_vec3){ RUN_PER_FRAME, 0.0f, -10.0f };
    }
    skim_move_cache *cache = NULL;
    cr_assert_eq(skim_move_cache_create(&cache), SKIM_OK);
    cr_assert_eq(skim_move_batch_cached(world.world, cache, HIGH, shapes, positions, displacements, &def,
                                        results),
                 SKIM_OK, "%s", skim_last_error_message());
    cr_expect_eq(cache->moves, (uint64_t)HIGH);
    cr_expect_eq(cache->kernel_calls, 0, "%llu kernel calls", (unsigned long long)cache->kernel_calls);
    for (int i = 0; i < HIGH; ++i) {
        cr_expect_eq(results[i].touched, 0u, "mover %d", i);
        cr_expect_float_eq(results[i].position.z, 19990.0f, 1e-2f, "mover %d", i);
        cr_expect_float_eq(results[i].position.x, positions[i].x + RUN_PER_FRAME, 1e-2f, "mover %d", i);
    }
    /* A crowd that has landed does call them. */
    static crowd c;
    crowd_init(&c, 5);
    crowd_frames(&c, world.world, cache, 20, 1);
    cr_expect_gt(cache->kernel_calls, 0, "%llu kernel calls in %llu moves",
                 (unsigned long long)cache->kernel_calls, (unsigned long long)cache->moves);
    skim_move_cache_destroy(cache);
}

Test(move_cache, movers_walking_straight_keep_their_leaves_for_several_moves)
{
    /* Landed movers walking one way at a run: their kept box reaches
       ahead of them, so they walk the tree again at most one move in
       five (a box grown only evenly by a quarter lasts about three). */
    static crowd c;
    crowd_init(&c, 13);
    skim_move_def def = skim_move_def_default();
    def.step_height = STEP;
    def.snap_distance = 8;
    skim_move_cache *cache = NULL;
    cr_assert_eq(skim_move_cache_create(&cache), SKIM_OK);
    for (int frame = 0; frame < 90; ++frame) {
        for (int i = 0; i < MOVERS; ++i) {
            c.fall[i] -= 800.0f / 60.0f;
            c.displacements[i] = (skim_vec3){ RUN_PER_FRAME * cosf(c.heading[i]),
                                              RUN_PER_FRAME * sinf(c.heading[i]), c.fall[i] / 60.0f };
        }
        if (frame == 60) /* landed (a fall of up to 190 units takes 41 frames) */
            cache->moves = cache->walks = 0;
        cr_assert_eq(skim_move_batch_cached(world.world, cache, MOVERS, c.shapes, c.positions, c.displacements,
                                            &def, c.results),
                     SKIM_OK, "%s", skim_last_error_message());
        for (int i = 0; i < MOVERS; ++i) {
            c.positions[i] = c.results[i].position;
            if (c.results[i].touched & SKIM_TOUCH_FLOOR)
                c.fall[i] = 0.0f;
        }
    }
    cr_expect(cache->walks * 5 < cache->moves, "%llu walks in %llu moves", (unsigned long long)cache->walks,
              (unsigned long long)cache->moves);
    skim_move_cache_destroy(cache);
}
