/* The ray traversal's two builds, 4 lanes and 8 lanes (ray_traverse.c),
   and the brute-force world find the same triangle at the same t, bit for
   bit, on every ray, and the any-hit search of each says "blocked" exactly
   when there is a first hit: a real level, a generated terrain,
   axis-aligned rays (zero and negative-zero direction components),
   material masks and culling. Sanitizer builds cast an eighth of the
   random rays (SKIM_QUERY_TEST_SCALE). */
#include "query_scenes.h"

#include "query/query_internal.h"

#ifndef SKIM_QUERY_TEST_SCALE
#define SKIM_QUERY_TEST_SCALE 1
#endif

typedef struct ray_case {
    skim_vec3 origin, delta;
    skim_query query;
} ray_case;

/* Random rays over the world's box; every fourth one axis-aligned on one
   or two axes, with the zero components' signs alternating. */
static ray_case make_ray(query_rng *rng, const skim_world_stats *s, int index)
{
    ray_case c;
    const float span[3] = { s->bounds_max.x - s->bounds_min.x, s->bounds_max.y - s->bounds_min.y,
                            s->bounds_max.z - s->bounds_min.z };
    c.origin = (skim_vec3){ query_rng_range(rng, s->bounds_min.x, s->bounds_max.x),
                            query_rng_range(rng, s->bounds_min.y, s->bounds_max.y),
                            query_rng_range(rng, s->bounds_min.z, s->bounds_max.z) };
    const float scale = query_rng_range(rng, 0.05f, 1.0f);
    float d[3];
    for (int axis = 0; axis < 3; ++axis)
        d[axis] = scale * span[axis] * query_rng_range(rng, -1, 1);
    if (index % 4 == 3) {
        const float zero = index % 8 == 3 ? 0.0f : -0.0f;
        d[index % 3] = zero;
        if (index % 3 == 0)
            d[(index / 4) % 2 ? 1 : 2] = zero;
    }
    c.delta = (skim_vec3){ d[0], d[1], d[2] };
    c.query = skim_query_default();
    c.query.cull_back_faces = index % 5 == 0;
    if (index % 7 == 0)
        c.query.material_mask = 0x5u;
    return c;
}

/* The caller's index and t of the ray's first hit with the given kernel
   set, UINT32_MAX for none. */
static uint32_t first_hit(const skim_world *world, const ray_case *c, const skim_kernel_set *kernels,
                          float *t)
{
    skim_ray ray;
    skim_ray_init(&ray, world, c->origin, c->delta, &c->query);
    *t = 1.0f;
    const uint32_t stored = skim_ray_first_hit(&ray, world, kernels, t);
    return stored == UINT32_MAX ? UINT32_MAX : world->triangle_index[stored];
}

static bool blocked(const skim_world *world, const ray_case *c, const skim_kernel_set *kernels)
{
    skim_ray ray;
    skim_ray_init(&ray, world, c->origin, c->delta, &c->query);
    return skim_ray_blocked(&ray, world, kernels);
}

static void compare_builds(const skim_mesh *mesh, uint64_t seed, int rays)
{
    const skim_kernel_set *four = skim_kernel_set_by_name("sse41"), *eight = skim_kernel_set_by_name("avx2");
    if (!four || !eight)
        cr_skip("this CPU has no AVX2: only one build of the traversal runs");
    cr_assert_eq(four->width, 4u);
    cr_assert_eq(eight->width, 8u);
    skim_world *world, *brute;
    skim_world_def def = skim_world_def_default();
    cr_assert_eq(skim_world_create(mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    cr_assert_eq(skim_world_create(mesh, &def, &brute), SKIM_OK, "%s", skim_last_error_message());
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    query_rng rng = { seed };
    int hits = 0;
    for (int r = 0; r < rays; ++r) {
        const ray_case c = make_ray(&rng, &stats, r);
        float t4, t8, t_brute;
        const uint32_t hit4 = first_hit(world, &c, four, &t4);
        const uint32_t hit8 = first_hit(world, &c, eight, &t8);
        const uint32_t hit_brute = first_hit(brute, &c, four, &t_brute);
        cr_assert_eq(hit8, hit4, "ray %d: triangle %u with 8 lanes, %u with 4", r, hit8, hit4);
        cr_assert_eq(hit_brute, hit4, "ray %d: triangle %u by brute force, %u through the tree", r,
                     hit_brute, hit4);
        cr_assert(memcmp(&t4, &t8, sizeof t4) == 0 && memcmp(&t4, &t_brute, sizeof t4) == 0,
                  "ray %d: t %a (4 lanes), %a (8 lanes), %a (brute force)", r, t4, t8, t_brute);
        const bool expected = hit4 != UINT32_MAX;
        cr_assert_eq(blocked(world, &c, four), expected, "ray %d: any-hit with 4 lanes", r);
        cr_assert_eq(blocked(world, &c, eight), expected, "ray %d: any-hit with 8 lanes", r);
        cr_assert_eq(blocked(brute, &c, four), expected, "ray %d: any-hit by brute force", r);
        hits += expected;
    }
    cr_expect(hits > rays / 10 && hits < rays - rays / 10, "%d of %d rays hit", hits, rays);
    skim_world_destroy(world);
    skim_world_destroy(brute);
}

Test(query_ray_lanes, both_builds_and_brute_force_agree_on_oa_dm1, .timeout = 120)
{
    skim_mesh_data data;
    skim_world *unused;
    query_open_level("oa_dm1.obj", &data, &unused);
    skim_world_destroy(unused);
    const skim_mesh mesh = skim_mesh_data_view(&data);
    compare_builds(&mesh, 21, 4000 / SKIM_QUERY_TEST_SCALE);
    skim_mesh_data_free(&data);
}

/* A 96 x 96 heightfield of rolling hills, materials 0..3 in patches. */
Test(query_ray_lanes, both_builds_and_brute_force_agree_on_a_terrain, .timeout = 300)
{
    enum { CELLS = 96, SIDE = CELLS + 1 };
    skim_mesh_data data = { 0 };
    data.vertex_count = SIDE * SIDE;
    data.triangle_count = 2 * CELLS * CELLS;
    data.positions = malloc(3 * sizeof(float) * data.vertex_count);
    data.indices = malloc(3 * sizeof(uint32_t) * data.triangle_count);
    data.materials = malloc(sizeof(uint16_t) * data.triangle_count);
    cr_assert(data.positions && data.indices && data.materials);
    for (uint32_t y = 0; y < SIDE; ++y)
        for (uint32_t x = 0; x < SIDE; ++x) {
            float *p = data.positions + 3 * (y * SIDE + x);
            p[0] = 8.0f * (float)x;
            p[1] = 8.0f * (float)y;
            p[2] = 30.0f * sinf(0.07f * (float)x) * cosf(0.05f * (float)y);
        }
    for (uint32_t y = 0, t = 0; y < CELLS; ++y)
        for (uint32_t x = 0; x < CELLS; ++x, t += 2) {
            const uint32_t a = y * SIDE + x, b = a + 1, c = a + SIDE, d = c + 1;
            const uint32_t tri[6] = { a, b, d, a, d, c };
            memcpy(data.indices + 3 * t, tri, sizeof tri);
            data.materials[t] = data.materials[t + 1] = (uint16_t)((x / 8 + y / 8) % 4);
        }
    const skim_mesh mesh = skim_mesh_data_view(&data);
    compare_builds(&mesh, 22, 4000 / SKIM_QUERY_TEST_SCALE);
    skim_mesh_data_free(&data);
}

/* A brute-force world is one run of every triangle. With 5, 6 or 7 left
   after the whole packets of eight, the 8-lane walk takes one more packet
   of eight and then the 4-lane tail; each ray must find the same triangle
   at the same t both ways (and, under the sanitizers, read no lane past
   the world's arrays). */
Test(query_ray_lanes, a_brute_force_run_of_13_triangles_agrees_across_builds)
{
    const skim_kernel_set *four = skim_kernel_set_by_name("sse41"), *eight = skim_kernel_set_by_name("avx2");
    if (!four || !eight)
        cr_skip("this CPU has no AVX2: only one build of the traversal runs");
    enum { TRIANGLES = 13 };
    float positions[3 * 3 * TRIANGLES];
    uint32_t indices[3 * TRIANGLES];
    for (uint32_t i = 0; i < TRIANGLES; ++i) {
        /* Triangle i stands in the plane x = 10 + i, across the ray's way. */
        const float x = 10.0f + (float)i, corner[3][2] = { { -5, -5 }, { 5, -5 }, { 0, 5 } };
        for (int v = 0; v < 3; ++v) {
            float *p = positions + 9 * i + 3 * v;
            p[0] = x;
            p[1] = corner[v][0] + (float)i;
            p[2] = corner[v][1];
            indices[3 * i + v] = 3 * i + (uint32_t)v;
        }
    }
    const skim_mesh mesh = { positions, 3 * TRIANGLES, indices, TRIANGLES, NULL };
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    skim_world *brute;
    cr_assert_eq(skim_world_create(&mesh, &def, &brute), SKIM_OK, "%s", skim_last_error_message());
    int hits = 0;
    for (uint32_t i = 0; i < TRIANGLES; ++i) {
        /* Along +x at the height of triangle i's centre only: it meets i
           first wherever triangles before it leave the line clear. */
        const ray_case c = { .origin = { 0.0f, (float)i, -1.0f }, .delta = { 40.0f, 0.0f, 0.0f },
                             .query = skim_query_default() };
        float t4, t8;
        const uint32_t hit4 = first_hit(brute, &c, four, &t4), hit8 = first_hit(brute, &c, eight, &t8);
        cr_assert_eq(hit8, hit4, "ray %u: triangle %u with 8 lanes, %u with 4", i, hit8, hit4);
        cr_assert(memcmp(&t4, &t8, sizeof t4) == 0, "ray %u: t %a (4 lanes), %a (8 lanes)", i, t4, t8);
        cr_assert_eq(blocked(brute, &c, eight), hit4 != UINT32_MAX, "ray %u: any-hit with 8 lanes", i);
        hits += hit4 != UINT32_MAX;
    }
    cr_expect_eq(hits, TRIANGLES, "every ray meets the wall of triangles");
    skim_world_destroy(brute);
}
