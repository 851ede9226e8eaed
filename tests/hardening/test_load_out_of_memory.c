/* Running out of memory while loading a baked world is
   SKIM_ERROR_OUT_OF_MEMORY, at whichever allocation it happens: a server
   that deletes files it is told are corrupt (SKIM_ERROR_FORMAT) must not
   delete good ones under memory pressure. Allocations are made to fail
   one at a time through the linker's --wrap (meson.build), which routes
   the library's malloc, calloc and aligned_alloc through the wrappers
   below. */
#include "hardening.h"

void *__real_malloc(size_t bytes);
void *__real_calloc(size_t count, size_t bytes);
void *__real_aligned_alloc(size_t alignment, size_t bytes);

/* The allocation to fail (counting from 0 since armed), or -1. */
static long fail_at = -1, allocations;

static bool fails_now(void) { return fail_at >= 0 && allocations++ == fail_at; }
void *__wrap_malloc(size_t bytes) { return fails_now() ? NULL : __real_malloc(bytes); }
void *__wrap_calloc(size_t count, size_t bytes) { return fails_now() ? NULL : __real_calloc(count, bytes); }
void *__wrap_aligned_alloc(size_t alignment, size_t bytes)
{
    return fails_now() ? NULL : __real_aligned_alloc(alignment, bytes);
}

/* A world with a tree of several nodes: a 12 x 12 grid of squares. */
static skim_world *grid_world(void)
{
    enum { N = 12 };
    static float positions[3 * (N + 1) * (N + 1)];
    static uint32_t indices[6 * N * N];
    for (int y = 0; y <= N; ++y)
        for (int x = 0; x <= N; ++x) {
            float *p = positions + 3 * (y * (N + 1) + x);
            p[0] = 10.0f * (float)x, p[1] = 10.0f * (float)y, p[2] = (float)((x * 7 + y * 3) % 5);
        }
    for (int y = 0; y < N; ++y)
        for (int x = 0; x < N; ++x) {
            uint32_t a = (uint32_t)(y * (N + 1) + x), *t = indices + 6 * (y * N + x);
            t[0] = a, t[1] = a + 1, t[2] = a + N + 2, t[3] = a, t[4] = a + N + 2, t[5] = a + N + 1;
        }
    skim_mesh mesh = { positions, (N + 1) * (N + 1), indices, 2 * N * N, NULL };
    skim_world_def def = skim_world_def_default();
    def.max_leaf_triangles = 2;
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    return world;
}

Test(load_out_of_memory, every_failed_allocation_while_loading_is_out_of_memory)
{
    scratch_dir dir;
    scratch_make(&dir);
    const skim_accelerator accelerators[2] = { SKIM_ACCELERATOR_BVH, SKIM_ACCELERATOR_BRUTE_FORCE };
    for (int a = 0; a < 2; ++a) {
        char path[128];
        scratch_file(&dir, "grid.bake", path, sizeof path);
        skim_world *world = grid_world();
        if (accelerators[a] == SKIM_ACCELERATOR_BRUTE_FORCE) {
            skim_world_destroy(world);
            world = small_world(SKIM_ACCELERATOR_BRUTE_FORCE);
        }
        skim_world_stats stats;
        cr_assert_eq(skim_world_get_stats(world, &stats), SKIM_OK);
        cr_assert(accelerators[a] != SKIM_ACCELERATOR_BVH || stats.nodes >= 2, "%u nodes", stats.nodes);
        cr_assert_eq(skim_world_save(world, path), SKIM_OK, "%s", skim_last_error_message());
        skim_world_destroy(world);
        long failed = 0;
        for (long k = 0; k < 64; ++k) {
            skim_world *loaded = NULL;
            allocations = 0;
            fail_at = k;
            skim_status status = skim_world_load(path, &loaded);
            fail_at = -1;
            if (status == SKIM_OK) {
                cr_expect_leq(allocations, k, "allocation %ld failed and the load still said SKIM_OK", k);
                skim_world_destroy(loaded);
                break;
            }
            ++failed;
            cr_expect_eq(status, SKIM_ERROR_OUT_OF_MEMORY, "allocation %ld failing: status %s (%s)", k,
                         skim_status_string(status), skim_last_error_message());
            cr_expect_null(loaded);
        }
        cr_expect_geq(failed, accelerators[a] == SKIM_ACCELERATOR_BVH ? 5 : 2, "only %ld allocations were tried", failed);
    }
    scratch_remove(&dir);
}
