/* A sweep or a ray against a body at a transform answers as against a
   static world built from the body's triangles moved to that transform:
   the same hit or miss except for grazing contacts, t within 1e-4, and the
   hit names the body and the triangle's index in the body's own mesh. On a
   generated mesh (always there) and on a real level used as the body. */
#include "bodies_scenes.h"

/* a's triangles, then b's, as one mesh. */
static void joined_mesh(const skim_mesh_data *a, const skim_mesh_data *b, skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    out->vertex_count = a->vertex_count + b->vertex_count;
    out->triangle_count = a->triangle_count + b->triangle_count;
    out->positions = malloc(3 * sizeof(float) * out->vertex_count);
    out->indices = malloc(3 * sizeof(uint32_t) * out->triangle_count);
    out->materials = calloc(out->triangle_count, sizeof(uint16_t));
    memcpy(out->positions, a->positions, 3 * sizeof(float) * a->vertex_count);
    memcpy(out->positions + 3 * a->vertex_count, b->positions, 3 * sizeof(float) * b->vertex_count);
    memcpy(out->indices, a->indices, 3 * sizeof(uint32_t) * a->triangle_count);
    for (uint32_t i = 0; i < 3 * b->triangle_count; ++i)
        out->indices[3 * a->triangle_count + i] = b->indices[i] + a->vertex_count;
}

typedef struct tally { int queries, hits, differ, misnamed, other_body; } tally;

/* One query's answers: `moved` from the world with the body, `built` from
   the world with the triangles built in place (the body's after the
   static ones, from index `first_body_triangle`). */
static void compare(const skim_hit *moved, const skim_hit *built, uint32_t first_body_triangle,
                    uint32_t body, tally *t)
{
    t->queries++;
    if (moved->hit != built->hit || (moved->hit && fabsf(moved->t - built->t) > 1e-4f)) {
        t->differ++;
        return;
    }
    if (!moved->hit)
        return;
    t->hits++;
    const bool on_body = built->triangle >= first_body_triangle;
    const uint32_t expect_body = on_body ? body : SKIM_STATIC;
    const uint32_t expect_triangle = on_body ? built->triangle - first_body_triangle : built->triangle;
    if (moved->body != expect_body)
        t->other_body++;
    else if (moved->triangle != expect_triangle)
        t->misnamed++;
}

/* Random sweeps (spheres and turned ellipsoids) and rays through the box
   [lo, hi]; at most 1% may differ (grazing), 1% name the other mesh (a
   body's triangle touching a static one) and 5% another triangle of the
   same mesh (a sphere meeting an edge or corner shared by two triangles
   ties them within the rounding, which the placement changes). */
static void check_queries(const skim_world *with_body, const skim_world *built, uint32_t first_body_triangle,
                          uint32_t body, skim_vec3 lo, skim_vec3 hi, int count, uint64_t seed)
{
    query_rng rng = { seed };
    tally sweeps = { 0 }, rays = { 0 };
    const float reach = fmaxf(hi.x - lo.x, fmaxf(hi.y - lo.y, hi.z - lo.z));
    for (int i = 0; i < count; ++i) {
        const skim_vec3 start = { query_rng_range(&rng, lo.x, hi.x), query_rng_range(&rng, lo.y, hi.y),
                                  query_rng_range(&rng, lo.z, hi.z) };
        const skim_vec3 delta = { query_rng_range(&rng, -reach, reach) * 0.5f,
                                  query_rng_range(&rng, -reach, reach) * 0.5f,
                                  query_rng_range(&rng, -reach, reach) * 0.5f };
        skim_ellipsoid shape = { { 16, 16, 16 }, identity_rotation };
        if (i % 2)
            shape = (skim_ellipsoid){ { 12, 20, 30 },
                                      axis_angle(0.6, 0.0, 0.8, query_rng_range(&rng, 0.0f, 6.28f)) };
        skim_hit a, b;
        cr_assert_eq(skim_sweep(with_body, &shape, start, delta, NULL, &a), SKIM_OK, "%s", skim_last_error_message());
        cr_assert_eq(skim_sweep(built, &shape, start, delta, NULL, &b), SKIM_OK, "%s", skim_last_error_message());
        compare(&a, &b, first_body_triangle, body, &sweeps);
        cr_assert_eq(skim_raycast(with_body, start, delta, NULL, &a), SKIM_OK);
        cr_assert_eq(skim_raycast(built, start, delta, NULL, &b), SKIM_OK);
        compare(&a, &b, first_body_triangle, body, &rays);
    }
    const tally *each[2] = { &sweeps, &rays };
    const char *names[2] = { "sweeps", "rays" };
    for (int k = 0; k < 2; ++k) {
        cr_log_info("%s: %d queries, %d hits, %d differ, %d name another triangle, %d another mesh",
                    names[k], each[k]->queries, each[k]->hits, each[k]->differ, each[k]->misnamed,
                    each[k]->other_body);
        cr_expect_gt(each[k]->hits, each[k]->queries / 10, "%s: too few hits to judge", names[k]);
        cr_expect_leq(each[k]->differ * 100, each[k]->queries, "%s: %d of %d differ", names[k],
                      each[k]->differ, each[k]->queries);
        cr_expect_leq(each[k]->misnamed * 20, each[k]->hits, "%s: %d of %d name another triangle",
                      names[k], each[k]->misnamed, each[k]->hits);
        cr_expect_leq(each[k]->other_body * 100, each[k]->hits, "%s: %d of %d name another mesh",
                      names[k], each[k]->other_body, each[k]->hits);
    }
}

Test(bodies_sweep, a_turned_generated_body_answers_as_its_triangles_built_in_place, .timeout = 120)
{
    skim_mesh_data floor_mesh, cube, placed, joined;
    box_mesh((float[3]){ -400, -400, -16 }, (float[3]){ 400, 400, 0 }, &floor_mesh);
    query_subdivided_cube(4, &cube);
    for (uint32_t i = 0; i < 3 * cube.vertex_count; ++i)
        cube.positions[i] *= 64.0f;
    const skim_transform where = { { 60, -30, 90 }, axis_angle(0.48, 0.6, 0.64, 0.9) };
    placed_mesh(&cube, where, &placed);
    joined_mesh(&floor_mesh, &placed, &joined);
    skim_world *level = world_of(&floor_mesh), *shape = world_of(&cube), *built = world_of(&joined);
    uint32_t id, decoy;
    /* A decoy body out of the way first: the checked body's id is 1. */
    cr_assert_eq(skim_world_add_body(level, shape, (skim_transform){ { 0, 0, 5000 }, identity_rotation }, &decoy), SKIM_OK);
    cr_assert_eq(skim_world_add_body(level, shape, where, &id), SKIM_OK, "%s", skim_last_error_message());
    check_queries(level, built, floor_mesh.triangle_count, id, (skim_vec3){ -200, -200, 0 },
                  (skim_vec3){ 250, 200, 250 }, 3000, 11);
    skim_world_destroy(level);
    skim_world_destroy(shape);
    skim_world_destroy(built);
    skim_mesh_data_free(&floor_mesh);
    skim_mesh_data_free(&cube);
    skim_mesh_data_free(&placed);
    skim_mesh_data_free(&joined);
}

Test(bodies_sweep, a_real_level_as_a_body_answers_as_the_level_built_in_place, .timeout = 200)
{
    skim_mesh_data level_mesh, placed, small;
    skim_world *shape;
    query_open_level("oa_dm1.obj", &level_mesh, &shape);
    skim_world_stats stats;
    cr_assert_eq(skim_world_get_stats(shape, &stats), SKIM_OK);
    const skim_transform where = { { 300, -120, 40 }, axis_angle(0, 0, 1, 0.7) };
    placed_mesh(&level_mesh, where, &placed);
    skim_world *built = world_of(&placed);
    /* The world holding the level as a body has one far triangle of its own. */
    box_mesh((float[3]){ 1e5f, 1e5f, 1e5f }, (float[3]){ 1e5f + 1, 1e5f + 1, 1e5f + 1 }, &small);
    skim_world *level = world_of(&small);
    uint32_t id;
    cr_assert_eq(skim_world_add_body(level, shape, where, &id), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_eq(skim_world_get_stats(built, &stats), SKIM_OK);
    check_queries(level, built, 0, id, stats.bounds_min, stats.bounds_max, 1500, 29);
    skim_world_destroy(level);
    skim_world_destroy(built);
    skim_world_destroy(shape);
    skim_mesh_data_free(&small);
    skim_mesh_data_free(&placed);
    skim_mesh_data_free(&level_mesh);
}

Test(bodies_sweep, ties_go_to_the_static_world_then_the_lower_body_id)
{
    skim_mesh_data slab;
    box_mesh((float[3]){ -64, -64, -8 }, (float[3]){ 64, 64, 0 }, &slab);
    skim_world *level = world_of(&slab), *shape = world_of(&slab);
    uint32_t first, second;
    const skim_transform same = { { 0, 0, 0 }, identity_rotation };
    cr_assert_eq(skim_world_add_body(level, shape, same, &first), SKIM_OK);
    cr_assert_eq(skim_world_add_body(level, shape, same, &second), SKIM_OK);
    const skim_ellipsoid sphere = { { 16, 16, 16 }, identity_rotation };
    skim_hit hit;
    cr_assert_eq(skim_sweep(level, &sphere, (skim_vec3){ 3, 5, 40 }, (skim_vec3){ 0, 0, -60 }, NULL, &hit), SKIM_OK);
    cr_expect(hit.hit);
    cr_expect_eq(hit.body, SKIM_STATIC, "static first on a tie");
    cr_assert_eq(skim_raycast(level, (skim_vec3){ 3, 5, 40 }, (skim_vec3){ 0, 0, -60 }, NULL, &hit), SKIM_OK);
    cr_expect_eq(hit.body, SKIM_STATIC, "static first on a tie (ray)");
    skim_world *bare = world_of(&(skim_mesh_data){ 0 });
    cr_assert_eq(skim_world_add_body(bare, shape, same, &first), SKIM_OK);
    cr_assert_eq(skim_world_add_body(bare, shape, same, &second), SKIM_OK);
    cr_assert_eq(skim_sweep(bare, &sphere, (skim_vec3){ 3, 5, 40 }, (skim_vec3){ 0, 0, -60 }, NULL, &hit), SKIM_OK);
    cr_expect_eq(hit.body, first, "the lower body id on a tie");
    cr_assert_eq(skim_raycast(bare, (skim_vec3){ 3, 5, 40 }, (skim_vec3){ 0, 0, -60 }, NULL, &hit), SKIM_OK);
    cr_expect_eq(hit.body, first, "the lower body id on a tie (ray)");
    skim_world_destroy(bare);
    skim_world_destroy(level);
    skim_world_destroy(shape);
    skim_mesh_data_free(&slab);
}

Test(bodies_sweep, a_ray_batch_answers_each_ray_as_alone)
{
    skim_mesh_data cube;
    query_subdivided_cube(3, &cube);
    for (uint32_t i = 0; i < 3 * cube.vertex_count; ++i)
        cube.positions[i] *= 50.0f;
    skim_world *shape = world_of(&cube), *level = world_of(&(skim_mesh_data){ 0 });
    uint32_t id;
    for (int k = 0; k < 5; ++k)
        cr_assert_eq(skim_world_add_body(level, shape,
                                         (skim_transform){ { 120.0f * (float)k, 0, 0 }, axis_angle(0, 0.6, 0.8, k) },
                                         &id), SKIM_OK);
    enum { RAYS = 2000 };
    skim_vec3 *origins = malloc(RAYS * sizeof *origins), *deltas = malloc(RAYS * sizeof *deltas);
    skim_hit *hits = malloc(RAYS * sizeof *hits);
    query_rng rng = { 5 };
    for (int i = 0; i < RAYS; ++i) {
        origins[i] = (skim_vec3){ query_rng_range(&rng, -100, 600), query_rng_range(&rng, -100, 100), query_rng_range(&rng, -100, 100) };
        deltas[i] = (skim_vec3){ query_rng_range(&rng, -300, 300), query_rng_range(&rng, -300, 300), query_rng_range(&rng, -300, 300) };
    }
    cr_assert_eq(skim_raycast_batch(level, RAYS, origins, deltas, NULL, hits), SKIM_OK);
    int met = 0;
    for (int i = 0; i < RAYS; ++i) {
        skim_hit alone;
        cr_assert_eq(skim_raycast(level, origins[i], deltas[i], NULL, &alone), SKIM_OK);
        cr_expect(memcmp(&alone, &hits[i], sizeof alone) == 0, "ray %d", i);
        met += alone.hit;
    }
    cr_expect_gt(met, RAYS / 10);
    free(origins);
    free(deltas);
    free(hits);
    skim_world_destroy(level);
    skim_world_destroy(shape);
    skim_mesh_data_free(&cube);
}
