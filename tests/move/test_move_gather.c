/* The move's one gather (src/move/move_gather.c) keeps a thread's last BVH
   walk, for a box grown by a slack, and reuses it for the next movers whose
   boxes fit. That is an optimisation only if the candidate buffer is bit for
   bit what skim_gather_candidates gives for the move's own box: the same
   triangles, in the same order (the push-out's contact order follows it),
   with the same unit-space coordinates. A batch's movers gather from the
   walk's triangles packed (move_walk_pack.c), four or, with a kernel set
   of 8 lanes or more, eight box tests at a time: both are checked. A
   mover with a cache entry gathers from its kept leaves (move_cache.c),
   leaf by leaf or, with 8 lanes or more, two steps at a time
   (move_kept_gather.c): both are checked too. Checked here over movers in
   Morton order, as a batch moves them (walks reused and renewed), on the
   default scene and, when SKIM_SCENES_DIR holds one, on a real level. */
#include "move_test_util.h"
#include "move/move_internal.h"

static void expect_same_buffer(const skim_candidates *a, const skim_candidates *b, int mover)
{
    cr_assert_eq(a->count, b->count, "mover %d: %u lanes, the plain gather %u", mover, a->count,
                 b->count);
    /* The padding lanes too: kernels read whole packets. */
    cr_assert_eq(a->padded_count, b->padded_count, "mover %d", mover);
    for (uint32_t lane = 0; lane < a->padded_count; ++lane) {
        cr_assert_eq(a->triangle[lane], b->triangle[lane], "mover %d lane %u", mover, lane);
        cr_assert_eq(a->material[lane], b->material[lane], "mover %d lane %u", mover, lane);
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                cr_assert_eq(memcmp(&a->vertex[v][axis][lane], &b->vertex[v][axis][lane],
                                    sizeof(float)),
                             0, "mover %d lane %u corner %d axis %d", mover, lane, v, axis);
    }
}

/* count movers spread over the part [0, spread) of the world's bounds on
   each axis (dense enough for neighbours to share walks), gathered in Morton order
   with a kept walk (or, with entry, the entry's kept leaves), each buffer
   compared with the plain gather's. Returns how many reused a walk. */
static int compare_gathers_with(const skim_kernel_set *kernels, const skim_world *world, int count,
                                float spread, uint64_t seed, const skim_ellipsoid *shape,
                                uint64_t material_mask, skim_move_cache_entry *entry)
{
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    skim_vec3 *positions = malloc((size_t)count * sizeof *positions);
    cr_assert(positions);
    uint64_t rng = seed;
    const float *lo = &stats.bounds_min.x, *hi = &stats.bounds_max.x;
    for (int i = 0; i < count; ++i) {
        float p[3];
        for (int axis = 0; axis < 3; ++axis)
            p[axis] = lo[axis] + spread * (hi[axis] - lo[axis]) * (float)rng_uniform(&rng);
        positions[i] = (skim_vec3){ p[0], p[1], p[2] };
    }
    skim_move_scratch *scratch = skim_move_thread_scratch();
    cr_assert(scratch);
    cr_assert(skim_move_order_reserve(scratch, (size_t)count));
    skim_move_order_movers(scratch, world, (size_t)count, positions);
    skim_move_forget_walk(scratch);
    scratch->walk_reuse = !entry; /* as a batch's moves do */
    scratch->cache_entry = entry;

    skim_move_def def = skim_move_def_default();
    def.step_height = STEP;
    def.snap_distance = 8;
    def.query.material_mask = material_mask;
    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, shape);
    scratch->space_valid = false; /* the move's own caches: not used here */
    scratch->box_valid = false;
    skim_move_ctx ctx = { .kernels = kernels, .space = &space, .def = &def, .scratch = scratch,
                          .skin = def.skin_width, .status = SKIM_OK };
    ctx.up[2] = 1.0f;
    const float up[3] = { 0.0f, 0.0f, 1.0f };
    mv_mat3(space.to_unit, up, ctx.up_unit);

    skim_candidates plain;
    skim_candidates_init(&plain);
    int reused = 0;
    for (int k = 0; k < count; ++k) {
        const skim_vec3 p = positions[scratch->order_sorted[k]];
        const float start[3] = { p.x, p.y, p.z };
        /* A few lengths of path, as a crowd's displacements differ. */
        const double unit_path = 0.05 + 0.5 * (double)(k % 7);
        const bool had_walk = scratch->walk_valid;
        float walked_min[3], walked_max[3];
        memcpy(walked_min, scratch->walk_min, sizeof walked_min);
        memcpy(walked_max, scratch->walk_max, sizeof walked_max);
        cr_assert_eq(skim_move_gather(&ctx, world, start, unit_path), SKIM_OK);
        bool same_walk = had_walk;
        for (int axis = 0; axis < 3; ++axis)
            same_walk = same_walk && walked_min[axis] == scratch->walk_min[axis] &&
                        walked_max[axis] == scratch->walk_max[axis];
        reused += same_walk;
        cr_assert_eq(skim_gather_candidates(world, &space, start, ctx.box_min, ctx.box_max,
                                            material_mask, &plain),
                     SKIM_OK);
        expect_same_buffer(&scratch->gathered, &plain, k);
    }
    skim_candidates_free(&plain);
    scratch->walk_reuse = false;
    scratch->cache_entry = NULL;
    skim_move_forget_walk(scratch);
    free(positions);
    return reused;
}

/* compare_gathers_with for the 4-lane packed gather (the portable set)
   and, where the CPU runs it, the 8-lane one (avx2); the reuse count of
   the first. */
static int compare_gathers(const skim_world *world, int count, float spread, uint64_t seed,
                           const skim_ellipsoid *shape, uint64_t material_mask,
                           skim_move_cache_entry *entry)
{
    const skim_kernel_set *narrow = skim_kernel_set_by_name("portable");
    cr_assert(narrow && narrow->width < 8);
    if (entry)
        memset(entry, 0, sizeof *entry);
    int reused = compare_gathers_with(narrow, world, count, spread, seed, shape, material_mask, entry);
    const skim_kernel_set *wide = skim_kernel_set_by_name("avx2");
    if (wide) {
        cr_assert(wide->width >= 8);
        if (entry)
            memset(entry, 0, sizeof *entry);
        compare_gathers_with(wide, world, count, spread, seed, shape, material_mask, entry);
    }
    return reused;
}

static uint64_t rng_state = 0x5EEDull;

Test(move_gather, kept_walk_gives_the_plain_gathers_buffer_default_scene)
{
    scene s;
    scene_default(&s);
    const skim_ellipsoid player = sphere(RADIUS);
    const skim_ellipsoid tall = { { 15, 15, 28 }, { 0, 0, 0, 1 } };
    const skim_ellipsoid turned = { { 12, 20, 28 }, { 0.2f, 0.1f, 0.3f, 0.9273618f } };
    int reused = compare_gathers(s.world, 4000, 0.25f, rng_state, &player, UINT64_MAX, NULL);
    fprintf(stderr, "default scene: %d of 4000 gathers reused a walk\n", reused);
    cr_expect(reused > 400, "only %d of 4000 gathers reused a walk: the test tests nothing",
              reused);
    compare_gathers(s.world, 1000, 0.25f, rng_state + 1, &tall, UINT64_MAX, NULL);
    compare_gathers(s.world, 1000, 0.25f, rng_state + 2, &turned, UINT64_MAX, NULL);
    compare_gathers(s.world, 1000, 0.25f, rng_state + 3, &player, 0x5ull, NULL);
    scene_free(&s);
}

Test(move_gather, kept_leaves_give_the_plain_gathers_buffer_default_scene)
{
    scene s;
    scene_default(&s);
    const skim_ellipsoid player = sphere(RADIUS);
    const skim_ellipsoid turned = { { 12, 20, 28 }, { 0.2f, 0.1f, 0.3f, 0.9273618f } };
    skim_move_cache_entry entry;
    compare_gathers(s.world, 2000, 0.25f, rng_state + 5, &player, UINT64_MAX, &entry);
    compare_gathers(s.world, 1000, 0.25f, rng_state + 6, &turned, UINT64_MAX, &entry);
    compare_gathers(s.world, 1000, 0.25f, rng_state + 7, &player, 0x5ull, &entry);
    scene_free(&s);
}

Test(move_gather, kept_walk_gives_the_plain_gathers_buffer_level)
{
    const char *dir = getenv("SKIM_SCENES_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/oa_dm1.obj", dir ? dir : ".");
    skim_mesh_data data;
    if (skim_mesh_load_obj(path, &data) != SKIM_OK)
        cr_skip("%s not found (SKIM_SCENES_DIR=%s)", path, dir ? dir : "(unset)");
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *world;
    cr_assert_eq(skim_world_create(&mesh, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
    const skim_ellipsoid player = sphere(RADIUS);
    int reused = compare_gathers(world, 10000, 0.5f, rng_state + 4, &player, UINT64_MAX, NULL);
    fprintf(stderr, "oa_dm1: %d of 10000 gathers reused a walk\n", reused);
    cr_expect(reused > 2000, "only %d of 10000 gathers reused a walk", reused);
    skim_world_destroy(world);
    skim_mesh_data_free(&data);
}
