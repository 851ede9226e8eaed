/* The front-to-back sweep (src/gather/bvh_ordered.c) skips every subtree the
   path enters after the best contact found so far. These cases aim at what
   such pruning could get wrong, each compared bit for bit with the
   brute-force oracle: ties between triangles in different leaves (the
   lower caller index must win even when the other leaf is visited first),
   contacts exactly where the path enters a box, contacts at t = 0 (nothing
   may be pruned: every box holding the start is entered at t <= 0), and
   moves through the whole level. Leaves of one triangle make every tie
   cross leaves. */
#include "bvh_scenes.h"

#include <criterion/criterion.h>

typedef struct pair { skim_world *bvh, *brute; } pair;

static pair make_pair(const skim_mesh *mesh, int max_leaf)
{
    pair p;
    skim_world_def def = skim_world_def_default();
    def.max_leaf_triangles = max_leaf;
    cr_assert_eq(skim_world_create(mesh, &def, &p.bvh), SKIM_OK, "%s", skim_last_error_message());
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    cr_assert_eq(skim_world_create(mesh, &def, &p.brute), SKIM_OK, "%s", skim_last_error_message());
    return p;
}

static void free_pair(pair *p)
{
    skim_world_destroy(p->bvh);
    skim_world_destroy(p->brute);
}

/* Sweeps through both worlds; returns the BVH's answer after checking it. */
static skim_hit same_answer(const pair *p, const skim_ellipsoid *shape, skim_vec3 start, skim_vec3 delta,
                            const skim_query *query, const char *what, int i)
{
    skim_hit a, b;
    cr_assert_eq(skim_sweep(p->bvh, shape, start, delta, query, &a), SKIM_OK);
    cr_assert_eq(skim_sweep(p->brute, shape, start, delta, query, &b), SKIM_OK);
    if (!scene_hits_identical(&a, &b))
        cr_assert_fail("%s %d: BVH %s t=%.9g tri=%u, brute force %s t=%.9g tri=%u; start (%.9g %.9g %.9g) "
                       "delta (%.9g %.9g %.9g)",
                       what, i, a.hit ? "hit" : "miss", a.t, a.triangle, b.hit ? "hit" : "miss", b.t,
                       b.triangle, start.x, start.y, start.z, delta.x, delta.y, delta.z);
    return a;
}

/* A mesh of count quads (two triangles each) given by corner and two edges. */
typedef struct quad_soup {
    float    *positions;
    uint32_t *indices;
    uint32_t  triangles;
} quad_soup;

static void add_triangle(quad_soup *s, const float a[3], const float b[3], const float c[3])
{
    const float *corner[3] = { a, b, c };
    uint32_t t = s->triangles++;
    for (int v = 0; v < 3; ++v) {
        for (int k = 0; k < 3; ++k)
            s->positions[9 * t + 3 * v + k] = corner[v][k];
        s->indices[3 * t + v] = 3 * t + (uint32_t)v;
    }
}

static skim_mesh soup_mesh(const quad_soup *s)
{
    return (skim_mesh){ .positions = s->positions, .vertex_count = 3 * s->triangles,
                        .indices = s->indices, .triangle_count = s->triangles };
}

static quad_soup soup_alloc(uint32_t capacity)
{
    quad_soup s = { malloc(9 * sizeof(float) * capacity), malloc(3 * sizeof(uint32_t) * capacity), 0 };
    cr_assert(s.positions && s.indices);
    return s;
}

static void soup_free(quad_soup *s)
{
    free(s->positions);
    free(s->indices);
}

/* The same floor triangle many times, interleaved with a field of other
   triangles so the copies land in leaves all over the tree: every sweep
   that meets the floor ties between all copies at one t, and only the
   lowest index may win, whichever leaf the traversal reaches first. */
Test(bvh_ordered, ties_across_leaves)
{
    quad_soup s = soup_alloc(4096);
    scene_rng rng = { 5 };
    const float a[3] = { -100, -100, 0 }, b[3] = { 100, -100, 0 }, c[3] = { 0, 100, 0 };
    for (int i = 0; i < 2000; ++i) {
        if (i % 7 == 3)
            add_triangle(&s, a, b, c);
        float p[3] = { scene_rng_range(&rng, -400, 400), scene_rng_range(&rng, -400, 400),
                       scene_rng_range(&rng, -200, 200) };
        float q[3] = { p[0] + 8, p[1], p[2] + 1 }, r[3] = { p[0], p[1] + 8, p[2] - 1 };
        add_triangle(&s, p, q, r);
    }
    skim_mesh mesh = soup_mesh(&s);
    pair p = make_pair(&mesh, 1);
    int ties = 0;
    for (int i = 0; i < 3000; ++i) {
        skim_ellipsoid shape = { { 4, 4, 4 }, { 0, 0, 0, 1 } };
        skim_vec3 start = { scene_rng_range(&rng, -40, 40), scene_rng_range(&rng, -40, 20),
                            scene_rng_range(&rng, 4, 60) * (i % 2 ? 1.0f : -1.0f) };
        skim_vec3 delta = { scene_rng_range(&rng, -30, 30), scene_rng_range(&rng, -30, 30),
                            -start.z * scene_rng_range(&rng, 0.5f, 3.0f) };
        skim_hit hit = same_answer(&p, &shape, start, delta, NULL, "tie", i);
        ties += hit.hit && hit.triangle == 3; /* the first copy: index 3 */
    }
    cr_expect(ties > 300, "only %d sweeps ended on the tied floor", ties);
    free_pair(&p);
    soup_free(&s);
}

/* Contacts at t = 0: shapes starting inside or touching a stack of copies
   and of near-copies (offset by one ulp and less than the radius), moving
   anywhere, including not at all. */
Test(bvh_ordered, touching_at_start)
{
    quad_soup s = soup_alloc(1024);
    for (int i = 0; i < 400; ++i) {
        float z = (i % 5) * 0.25f;
        float x = (float)(i % 20) * 30.0f - 300.0f, y = (float)(i / 20) * 30.0f - 300.0f;
        const float a[3] = { x, y, z }, b[3] = { x + 40, y, z }, c[3] = { x, y + 40, z };
        add_triangle(&s, a, b, c);
    }
    skim_mesh mesh = soup_mesh(&s);
    pair p = make_pair(&mesh, 1);
    scene_rng rng = { 6 };
    int at_zero = 0;
    for (int i = 0; i < 4000; ++i) {
        float r = scene_rng_range(&rng, 1, 12);
        skim_ellipsoid shape = { { r, r, r }, { 0, 0, 0, 1 } };
        skim_vec3 start = { scene_rng_range(&rng, -300, 300), scene_rng_range(&rng, -300, 300),
                            scene_rng_range(&rng, -r, 1 + r) };
        float length = i % 10 == 0 ? 0.0f : scene_rng_range(&rng, 0, 200);
        skim_vec3 d = scene_random_direction(&rng);
        skim_vec3 delta = { d.x * length, d.y * length, d.z * length };
        skim_hit hit = same_answer(&p, &shape, start, delta, NULL, "touch", i);
        at_zero += hit.hit && hit.t == 0.0f;
    }
    cr_expect(at_zero > 1000, "only %d sweeps started touching", at_zero);
    free_pair(&p);
    soup_free(&s);
}

/* Contacts where the path enters a leaf's box: axis-aligned walls of one
   triangle per leaf, met head on at exactly the distance of one radius from
   the box (the contact is at the box's grown face, so the entry t and the
   hit t agree to the last bits), and grazed along their edges. */
Test(bvh_ordered, contact_at_box_entry)
{
    quad_soup s = soup_alloc(1024);
    for (int i = 0; i < 256; ++i) {
        float x = (float)(i % 16) * 64.0f, y = (float)(i / 16) * 64.0f;
        const float a[3] = { x, y, 0 }, b[3] = { x, y + 32, 0 }, c[3] = { x, y, 32 };
        add_triangle(&s, a, b, c);
        const float d[3] = { x + 32, y + 16, 0 }, e[3] = { x + 32, y + 16, 32 },
                    f[3] = { x + 48, y + 16, 0 };
        add_triangle(&s, d, e, f);
    }
    skim_mesh mesh = soup_mesh(&s);
    pair p = make_pair(&mesh, 1);
    scene_rng rng = { 7 };
    int hits = 0;
    for (int i = 0; i < 6000; ++i) {
        float r = (float)(1 + i % 8);
        skim_ellipsoid shape = { { r, r, r }, { 0, 0, 0, 1 } };
        float x = (float)scene_rng_below(&rng, 16) * 64.0f, y = (float)scene_rng_below(&rng, 16) * 64.0f;
        float along = (float)scene_rng_below(&rng, 5) * 8.0f, up = (float)scene_rng_below(&rng, 5) * 8.0f;
        skim_vec3 start, delta;
        switch (i % 3) {
        case 0: /* head on along x onto the first wall: contact at x - r */
            start = (skim_vec3){ x - r - (float)(1 + i % 7) * 4.0f, y + along, up };
            delta = (skim_vec3){ (float)(1 + i % 5) * 16.0f, 0, 0 };
            break;
        case 1: /* head on along y onto the second wall */
            start = (skim_vec3){ x + 32 + along * 0.5f, y + 16 - r - (float)(1 + i % 7) * 4.0f, up };
            delta = (skim_vec3){ 0, (float)(1 + i % 5) * 16.0f, 0 };
            break;
        default: /* grazing: parallel to the first wall, exactly one radius off */
            start = (skim_vec3){ x - r, y - 40.0f, up };
            delta = (skim_vec3){ 0, 120.0f, (float)(i % 3) - 1.0f };
            break;
        }
        skim_hit hit = same_answer(&p, &shape, start, delta, NULL, "entry", i);
        hits += hit.hit;
    }
    cr_expect(hits > 2000 && hits < 6000, "%d of 6000 hit", hits);
    free_pair(&p);
    soup_free(&s);
}

/* Moves longer than the whole level from anywhere in it, in every
   direction, with ellipsoids, culling and material masks: the traversal
   goes through the whole tree before it finds (or misses) the first hit. */
static void long_moves(const skim_mesh *mesh, int max_leaf, int count, uint64_t seed)
{
    pair p = make_pair(mesh, max_leaf);
    scene_rng rng = { seed };
    float level = scene_level_size(p.brute);
    scene_query_mix mix = { .radius = 16.0f, .max_radii = 32.0f, .ellipsoid_share = 0.3f,
                            .contact_share = 0.1f, .huge_share = 1.0f, .options_share = 0.3f };
    for (int i = 0; i < count; ++i) {
        scene_query q = scene_make_query(&rng, mesh, level, &mix);
        same_answer(&p, &q.shape, q.start, q.delta, &q.query, "long move", i);
    }
    free_pair(&p);
}

Test(bvh_ordered, long_moves_default_scene)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    long_moves(&mesh, 1, 3000, 41);
    long_moves(&mesh, 4, 3000, 42);
    skim_mesh_data_free(&data);
}

Test(bvh_ordered, long_moves_oa_dm1)
{
    char buffer[1024];
    const char *path = scene_path("oa_dm1.obj", buffer, sizeof buffer);
    skim_mesh_data data;
    if (!path || !scene_read_obj(path, &data))
        cr_skip("oa_dm1.obj not available (SKIM_SCENES_DIR)");
    skim_mesh mesh = skim_mesh_data_view(&data);
    long_moves(&mesh, 4, 3000, 43);
    skim_mesh_data_free(&data);
}
