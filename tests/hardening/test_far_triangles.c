/* Far triangles (src/gather/gather_clip.c): a triangle that
   reaches beyond SKIM_GATHER_FAR_RADII of the shape's smallest radius from
   the start is clipped to the query's reach in double before the kernels
   see it. Huge triangles against small shapes must answer what a small
   triangle covering the same region answers (within the accuracy the
   docs/guide.md states under "Precision limits", at the clipped magnitude), the BVH must still equal brute
   force bit for bit, back-face culling must still hold on the pieces, and
   a move over a huge floor must neither tunnel nor end inside.

   Each test fails without the clipping (build with
   -DSKIM_GATHER_FAR_RADII=1e30f: every triangle takes the old path): the
   kernels' products overflow float in unit space, and sweeps come back
   SKIM_ERROR_INVALID_ARGUMENT, or miss, or moves fall through. */
#include "hardening.h"
#include "../foundation/oracle.h"

#include <float.h>

/* The stated accuracy (docs/guide.md, "Precision limits"): 64 u (P + L) + 1e-5 radii. */
static double stated_eps(double path_radii, double magnitude_radii)
{
    const double u = 0x1p-24;
    const double p = path_radii > 1.0 ? path_radii : 1.0, l = magnitude_radii > 1.0 ? magnitude_radii : 1.0;
    return 64.0 * u * (p + l) + 1e-5;
}

/* The clipped magnitude of a straight sweep of a sphere of radius r: the
   clip box is the swept sphere's box grown by half its largest extent on
   every side (gather_clip.c), so no coordinate exceeds sqrt(3) * 2 * that
   extent from the start. */
static double clipped_magnitude(float r, skim_vec3 d)
{
    double extent = 0.0;
    const double c[3] = { fabs(d.x), fabs(d.y), fabs(d.z) };
    for (int k = 0; k < 3; ++k)
        extent = fmax(extent, c[k] + 2.0 * 1.001 * r);
    return sqrt(3.0) * 2.0 * extent / r;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) * 0x1p-53;
}

/* ---- a triangle 5.4e16 units long, with answers checked in double ----
   The finding's triangle (5.4e16 long) and 0.05 sphere: the path passes
   about 9 units from the triangle, so the answer is a miss; a path moved
   over the triangle's face must hit it where the plane says. */
Test(far_triangles, finding_18_answers_in_double)
{
    skim_world *world = finding_18_world();
    const float *positions = finding_18_triangle;
    const float r = 0.05f;
    skim_ellipsoid shape = sphere_of(r);
    double v[3][3];
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 3; ++i)
            v[k][i] = positions[3 * k + i];

    /* The miss: a plane through A and C, parallel to y, has all three
       corners on one side; the path stays farther than r on the other. */
    skim_vec3 start = { 0.1f, -1, 0.03f }, delta = { 0, 2.5f, 0 };
    const double n[3] = { v[2][2] - v[0][2], 0.0, -(v[2][0] - v[0][0]) }; /* (C - A) x y */
    const double n_len = sqrt(n[0] * n[0] + n[2] * n[2]);
    double lowest = INFINITY;
    for (int k = 0; k < 3; ++k)
        lowest = fmin(lowest, (n[0] * v[k][0] + n[2] * v[k][2]) / n_len);
    const double path_side = fmax((n[0] * start.x + n[2] * start.z) / n_len,
                                  (n[0] * (start.x + delta.x) + n[2] * (start.z + delta.z)) / n_len);
    cr_assert_gt(lowest - path_side, 100.0 * r, "the double bound must separate the path: gap %g",
                 lowest - path_side);
    skim_hit hit;
    cr_assert_eq(skim_sweep(world, &shape, start, delta, NULL, &hit), SKIM_OK);
    cr_expect(!hit.hit, "a miss by %g units reported as a hit at t %g", lowest - path_side, (double)hit.t);

    /* The hit: over the face (x/62.64 + z/9.158 > 1), through the plane. */
    start = (skim_vec3){ 40, -1, 5 };
    double e1[3], e2[3], face[3];
    for (int i = 0; i < 3; ++i) {
        e1[i] = v[1][i] - v[0][i];
        e2[i] = v[2][i] - v[0][i];
    }
    face[0] = e1[1] * e2[2] - e1[2] * e2[1];
    face[1] = e1[2] * e2[0] - e1[0] * e2[2];
    face[2] = e1[0] * e2[1] - e1[1] * e2[0];
    const double face_len = sqrt(face[0] * face[0] + face[1] * face[1] + face[2] * face[2]);
    for (int i = 0; i < 3; ++i)
        face[i] /= face_len;
    /* Signed distance of the centre from the plane along the path: linear
       in t; the contact is where it reaches r (from the start's side). */
    const double p0[3] = { start.x, start.y, start.z };
    const double s0 = face[0] * (p0[0] - v[0][0]) + face[1] * (p0[1] - v[0][1]) + face[2] * (p0[2] - v[0][2]);
    const double rate = face[0] * delta.x + face[1] * delta.y + face[2] * delta.z;
    const double side = s0 < 0.0 ? -1.0 : 1.0;
    const double t_exact = (side * s0 - r) / -(side * rate);
    cr_assert(t_exact > 0.1 && t_exact < 0.9, "t %g", t_exact);
    cr_assert_eq(skim_sweep(world, &shape, start, delta, NULL, &hit), SKIM_OK);
    cr_assert(hit.hit, "no hit over the face (exact t %g)", t_exact);
    const double eps = stated_eps(2.5 / r, clipped_magnitude(r, delta));
    /* eps radii of distance along a path that closes on the plane at
       |rate| / r radii per unit of t. */
    cr_expect(fabs(hit.t - t_exact) <= eps * r / fabs(rate), "t %.9g, exact %.9g (tolerance %g)",
              (double)hit.t, t_exact, eps * r / fabs(rate));
    cr_expect(isfinite(hit.normal.x) && isfinite(hit.normal.y) && isfinite(hit.normal.z));
    const double along = side * (face[0] * hit.normal.x + face[1] * hit.normal.y + face[2] * hit.normal.z);
    cr_expect(along > 1.0 - 1e-5, "normal (%g %g %g) against the face's (%g %g %g)", (double)hit.normal.x,
              (double)hit.normal.y, (double)hit.normal.z, side * face[0], side * face[1], side * face[2]);
    const double at[3] = { start.x + hit.t * delta.x, start.y + hit.t * delta.y, start.z + hit.t * delta.z };
    const double point_gap = sqrt(pow(hit.point.x - (at[0] - side * r * face[0]), 2) +
                                  pow(hit.point.y - (at[1] - side * r * face[1]), 2) +
                                  pow(hit.point.z - (at[2] - side * r * face[2]), 2));
    cr_expect(point_gap <= 2.0 * eps * r + 1e-6 * fabs(p0[0]), "point off by %g", point_gap);
    skim_world_destroy(world);
}

/* A world of a few ordinary triangles and, at index 3, either a huge thin
   floor (z = 0, x in +-half_length, y in [-50, 50]) or a small triangle
   covering the same part of it near the origin. */
static skim_world *floor_world(double half_length, skim_accelerator accelerator)
{
    const float h = (float)half_length;
    const float positions[] = {
        30, 30, 5, 40, 30, 5, 30, 40, 5,      /* 0: a small triangle out of the way */
        -40, 30, 0, -30, 30, 0, -40, 40, 9,   /* 1 */
        25, -30, 1, 35, -30, 1, 25, -20, 1,   /* 2 */
        -h, -50, 0, h, -50, 0, 0, 50, 0,      /* 3: the floor */
        -35, -35, 2, -25, -35, 2, -35, -25, 3 /* 4 */
    };
    uint32_t indices[15];
    for (uint32_t i = 0; i < 15; ++i)
        indices[i] = i;
    skim_mesh mesh = { positions, 15, indices, 5, NULL };
    skim_world_def def = skim_world_def_default();
    def.accelerator = accelerator;
    def.max_leaf_triangles = 1;
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, &def, &world), SKIM_OK);
    skim_world_stats stats;
    cr_assert_eq(skim_world_get_stats(world, &stats), SKIM_OK);
    cr_assert_eq(stats.triangles, 5u, "the floor must survive the build");
    return world;
}

/* The same contact from a 1e15 and a 1e17 floor as from a 400-unit one:
   random sweeps of a 0.05 sphere (so the far corners are 2e16 and 2e18
   radii out) near the origin, onto the face and onto the shared edge
   y = -50, judged by the double oracle on the small triangle (which is
   the big one wherever the sphere can reach). */
static void compare_with_small(double half_length)
{
    skim_world *huge = floor_world(half_length, SKIM_ACCELERATOR_BVH);
    skim_world *small = floor_world(200.0, SKIM_ACCELERATOR_BVH);
    const float r = 0.05f;
    const skim_ellipsoid shape = sphere_of(r);
    const float small_tri[3][3] = { { -200, -50, 0 }, { 200, -50, 0 }, { 0, 50, 0 } };
    int hits = 0;
    for (int i = 0; i < 2000; ++i) {
        skim_vec3 start = { (float)uniform(-20, 20), (float)uniform(-52, 20), (float)uniform(-0.3, 0.4) };
        if (i % 2)
            start.y = (float)uniform(-50.3, -49.7); /* near the edge */
        skim_vec3 delta = { (float)uniform(-0.5, 0.5), (float)uniform(-0.5, 0.5), (float)uniform(-0.5, 0.5) };
        skim_hit a, b;
        cr_assert_eq(skim_sweep(huge, &shape, start, delta, NULL, &a), SKIM_OK,
                     "sweep %d: %s", i, skim_last_error_message());
        cr_assert_eq(skim_sweep(small, &shape, start, delta, NULL, &b), SKIM_OK);
        oracle_case c;
        oracle_prepare(&c, &shape, small_tri, start, delta);
        const double len = sqrt(c.delta[0] * c.delta[0] + c.delta[1] * c.delta[1] + c.delta[2] * c.delta[2]);
        const double eps = stated_eps(len, clipped_magnitude(r, delta));
        double t_min;
        const double closest = oracle_min_distance(&c, &t_min);
        if (a.hit && a.triangle == 3) {
            double p[3];
            const double d = oracle_distance(&c, a.t, p);
            cr_expect(fabs(d - 1.0) <= eps || (a.t == 0.0f && d <= 1.0 + eps),
                      "sweep %d: contact at t %g is %g radii from the floor", i, (double)a.t, d);
            const double first = oracle_first_reach(&c, 1.0 - eps);
            cr_expect(first < 0.0 || first >= a.t, "sweep %d: the path reaches 1 - eps at t %g before %g", i,
                      first, (double)a.t);
        }
        if (a.hit != b.hit || (a.hit && a.triangle != b.triangle)) {
            /* Only where the path grazes within the accuracy. */
            cr_expect(fabs(closest - 1.0) <= 2.0 * eps, "sweep %d: huge %d (%u) small %d (%u), closest %g", i,
                      a.hit, a.triangle, b.hit, b.triangle, closest);
            continue;
        }
        if (!a.hit)
            continue;
        ++hits;
        cr_expect(fabs(a.t - b.t) * len <= 2.0 * eps + 1e-6 || fabs(closest - 1.0) <= 2.0 * eps,
                  "sweep %d: t %.9g vs %.9g", i, (double)a.t, (double)b.t);
        if (a.t == 0.0f)
            /* Starting in contact: every piece within reach ties at t = 0;
               the piece nearest the start is gathered first and wins
               (gather_clip.c), so the point and normal below are the
               whole triangle's, as the small triangle gives them. */
            cr_expect(b.t == 0.0f, "sweep %d: huge touches at the start, small at t %g", i,
                      (double)b.t);
        const double dot = a.normal.x * b.normal.x + a.normal.y * b.normal.y + a.normal.z * b.normal.z;
        cr_expect(dot > 1.0 - 1e-3 || fabs(closest - 1.0) <= 2.0 * eps, "sweep %d: normals %g %g %g / %g %g %g",
                  i, (double)a.normal.x, (double)a.normal.y, (double)a.normal.z, (double)b.normal.x,
                  (double)b.normal.y, (double)b.normal.z);
        const double gap = sqrt(pow(a.point.x - b.point.x, 2) + pow(a.point.y - b.point.y, 2) +
                                pow(a.point.z - b.point.z, 2));
        cr_expect(gap <= 0.05 * r || fabs(closest - 1.0) <= 2.0 * eps, "sweep %d: points %g apart", i, gap);
    }
    cr_expect_gt(hits, 200, "only %d hits", hits);
    skim_world_destroy(huge);
    skim_world_destroy(small);
}

Test(far_triangles, floor_1e15_same_contact_as_small_triangle) { compare_with_small(5e14); }
Test(far_triangles, floor_1e17_same_contact_as_small_triangle) { compare_with_small(5e16); }

static bool same_bits(const skim_hit *a, const skim_hit *b)
{
    return a->hit == b->hit && memcmp(&a->t, &b->t, sizeof a->t) == 0 && a->triangle == b->triangle &&
           memcmp(&a->point, &b->point, sizeof a->point) == 0 &&
           memcmp(&a->normal, &b->normal, sizeof a->normal) == 0;
}

/* BVH = brute force, bit for bit, on a world of ordinary triangles and huge
   ones, over many random sweeps of shapes small and large, round and
   turned (the pieces are the same bits whichever gather clips them). */
Test(far_triangles, bvh_equals_brute_force_with_huge_triangles)
{
    enum { GRID = 12, HUGE = 6 };
    float positions[(GRID * GRID * 2 + HUGE) * 9];
    uint32_t count = 0;
    for (int x = 0; x < GRID; ++x)
        for (int y = 0; y < GRID; ++y) {
            const float x0 = (float)x * 4 - 24, y0 = (float)y * 4 - 24, z = (float)((x * 7 + y * 3) % 5) * 0.3f;
            const float quad[4][3] = { { x0, y0, z }, { x0 + 4, y0, z + 0.2f }, { x0 + 4, y0 + 4, z }, { x0, y0 + 4, z - 0.1f } };
            const int tris[2][3] = { { 0, 1, 2 }, { 0, 2, 3 } };
            for (int t = 0; t < 2; ++t)
                for (int k = 0; k < 3; ++k)
                    memcpy(&positions[9 * (count + (uint32_t)t) + 3 * k], quad[tris[t][k]], sizeof quad[0]);
            count += 2;
        }
    const float huge[HUGE][9] = {
        { -1e15f, -3, 2, 1e15f, -3, 2.5f, 0, 40, 2 },
        { 3, -5e16f, -1, 3, 5e16f, 4, 3.5f, 0, 90 },
        { -8, -8, -7e16f, 9, 9, 7e16f, 8, -8, 0 },
        { -2e17f, 5, 3, 2e17f, 5.5f, 3, 1, 5.2f, 40 },
        { 1, 1, 1, 3e17f, 2e17f, 1, 2, 1, 2 }, /* reaches from the grid far out */
        { -6, 20, -50, -6, 20, 50, -5.9f, 1e16f, 0 },
    };
    for (int h = 0; h < HUGE; ++h)
        memcpy(&positions[9 * count++], huge[h], sizeof huge[h]);
    uint32_t indices[(GRID * GRID * 2 + HUGE) * 3];
    for (uint32_t i = 0; i < 3 * count; ++i)
        indices[i] = i;
    skim_mesh mesh = { positions, 3 * count, indices, count, NULL };
    skim_world_def def = skim_world_def_default();
    skim_world *bvh = NULL, *brute = NULL;
    def.max_leaf_triangles = 2;
    cr_assert_eq(skim_world_create(&mesh, &def, &bvh), SKIM_OK, "%s", skim_last_error_message());
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    cr_assert_eq(skim_world_create(&mesh, &def, &brute), SKIM_OK);
    skim_world_stats stats;
    cr_assert_eq(skim_world_get_stats(bvh, &stats), SKIM_OK);
    cr_assert_eq(stats.triangles, count, "a huge triangle was dropped as degenerate");
    int hits_on_huge = 0;
    for (int i = 0; i < 4000; ++i) {
        const float r = (float)(i % 4 == 0 ? uniform(0.5, 3) : uniform(0.01, 0.2));
        skim_ellipsoid shape = sphere_of(r);
        if (i % 3 == 0) {
            shape.radii = (skim_vec3){ r, r * (float)uniform(1, 4), r * (float)uniform(1, 2) };
            double q[4] = { uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1) };
            const double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            shape.rotation = (skim_quat){ (float)(q[0] / qn), (float)(q[1] / qn), (float)(q[2] / qn), (float)(q[3] / qn) };
        }
        const skim_vec3 start = { (float)uniform(-26, 26), (float)uniform(-26, 26), (float)uniform(-3, 6) };
        const double reach = i % 5 == 0 ? 30.0 : 3.0;
        const skim_vec3 delta = { (float)uniform(-reach, reach), (float)uniform(-reach, reach),
                                  (float)uniform(-reach, reach) };
        skim_query query = skim_query_default();
        query.cull_back_faces = i % 2;
        skim_hit a, b;
        skim_status sa = skim_sweep(bvh, &shape, start, delta, &query, &a);
        skim_status sb = skim_sweep(brute, &shape, start, delta, &query, &b);
        if (sa == SKIM_ERROR_INVALID_ARGUMENT && sb == sa)
            continue; /* a sweep longer than SKIM_SWEEP_MAX_RADII: no */
        cr_assert_eq(sa, SKIM_OK, "sweep %d: %s", i, skim_last_error_message());
        cr_assert_eq(sb, SKIM_OK, "sweep %d: %s", i, skim_last_error_message());
        cr_assert(same_bits(&a, &b),
                  "sweep %d: BVH %d t %.9g tri %u n (%g %g %g) vs brute %d t %.9g tri %u n (%g %g %g)", i, a.hit,
                  (double)a.t, a.triangle, (double)a.normal.x, (double)a.normal.y, (double)a.normal.z, b.hit,
                  (double)b.t, b.triangle, (double)b.normal.x, (double)b.normal.y, (double)b.normal.z);
        hits_on_huge += a.hit && a.triangle >= GRID * GRID * 2;
    }
    cr_expect_gt(hits_on_huge, 100, "only %d hits on the huge triangles", hits_on_huge);
    skim_world_destroy(bvh);
    skim_world_destroy(brute);
}

/* Back-face culling on the pieces: from below the 1e17 floor (its front is
   +z: counter-clockwise seen from above) nothing is met with culling and
   the floor is met without it; from above, both meet it. */
Test(far_triangles, back_faces_culled_on_clipped_pieces)
{
    skim_world *world = floor_world(5e16, SKIM_ACCELERATOR_BVH);
    const skim_ellipsoid shape = sphere_of(0.05f);
    skim_query cull = skim_query_default();
    cull.cull_back_faces = true;
    for (int i = 0; i < 200; ++i) {
        const float x = (float)uniform(-20, 20), y = (float)uniform(-45, 20);
        const skim_vec3 below = { x, y, -0.2f }, up = { (float)uniform(-0.1, 0.1), (float)uniform(-0.1, 0.1), 0.4f };
        const skim_vec3 above = { x, y, 0.2f }, down = { up.x, up.y, -0.4f };
        skim_hit hit;
        cr_assert_eq(skim_sweep(world, &shape, below, up, &cull, &hit), SKIM_OK);
        cr_expect(!hit.hit || hit.triangle != 3, "culled back face met at t %g", (double)hit.t);
        cr_assert_eq(skim_sweep(world, &shape, below, up, NULL, &hit), SKIM_OK);
        cr_expect(hit.hit && hit.triangle == 3 && hit.normal.z < -0.999f, "back face not met without culling");
        cr_assert_eq(skim_sweep(world, &shape, above, down, &cull, &hit), SKIM_OK);
        cr_expect(hit.hit && hit.triangle == 3 && hit.normal.z > 0.999f, "front face not met with culling");
        cr_expect(fabs(hit.t - 0.375) <= 1e-4, "t %g, exact 0.375", (double)hit.t);
    }
    skim_world_destroy(world);
}

/* A move over the 1e17 floor: walking with gravity, the 0.05 sphere stays
   on it, never below, never inside. */
Test(far_triangles, move_over_huge_floor_neither_tunnels_nor_ends_inside)
{
    skim_world *world = floor_world(5e16, SKIM_ACCELERATOR_BVH);
    const float r = 0.05f;
    const skim_ellipsoid shape = sphere_of(r);
    skim_move_def def = skim_move_def_default();
    for (int mover = 0; mover < 20; ++mover) {
        skim_vec3 at = { (float)uniform(-15, 15), (float)uniform(-40, 15), (float)uniform(0.06, 1.0) };
        for (int step = 0; step < 60; ++step) {
            const skim_vec3 move = { (float)uniform(-0.2, 0.2), (float)uniform(-0.2, 0.2), -0.3f };
            skim_move_result out;
            cr_assert_eq(skim_move(world, &shape, at, move, &def, &out), SKIM_OK, "%s",
                         skim_last_error_message());
            cr_assert(isfinite(out.position.x) && isfinite(out.position.y) && isfinite(out.position.z));
            /* Above the plane by at least the radius less the accuracy. */
            cr_expect_geq(out.position.z, r * (1.0f - 1e-3f), "mover %d step %d ends at z %g (radius %g)", mover,
                          step, (double)out.position.z, (double)r);
            if (out.position.z < 0.0f)
                break; /* tunnelled: reported above; stop this mover */
            at = out.position;
            if (at.y < -48 || at.y > 40 || fabsf(at.x) > 100)
                break;
        }
    }
    skim_world_destroy(world);
}

/* The same floor through skim_move_batch: 300 movers (a batch that large
   moves in Morton order and reuses a thread's BVH walk, whose gathers must
   make room for clipped pieces leaf by leaf, move_gather.c), 20 frames.
   Every result is skim_move's for the same mover, bit for bit, and none
   ends below the floor. */
Test(far_triangles, batch_over_huge_floor_matches_single_moves)
{
    skim_world *world = floor_world(5e16, SKIM_ACCELERATOR_BVH);
    const float r = 0.05f;
    enum { MOVERS = 300, FRAMES = 20 };
    static skim_ellipsoid shapes[MOVERS];
    static skim_vec3 at[MOVERS], moves[MOVERS];
    static skim_move_result batch[MOVERS];
    skim_move_def def = skim_move_def_default();
    for (int i = 0; i < MOVERS; ++i) {
        shapes[i] = sphere_of(r);
        at[i] = (skim_vec3){ (float)uniform(-15, 15), (float)uniform(-40, 15), (float)uniform(0.06, 1.0) };
    }
    for (int frame = 0; frame < FRAMES; ++frame) {
        for (int i = 0; i < MOVERS; ++i)
            moves[i] = (skim_vec3){ (float)uniform(-0.2, 0.2), (float)uniform(-0.2, 0.2), -0.3f };
        cr_assert_eq(skim_move_batch(world, MOVERS, shapes, at, moves, &def, batch), SKIM_OK, "%s",
                     skim_last_error_message());
        for (int i = 0; i < MOVERS; ++i) {
            skim_move_result single;
            cr_assert_eq(skim_move(world, &shapes[i], at[i], moves[i], &def, &single), SKIM_OK);
            cr_expect(memcmp(&single.position, &batch[i].position, sizeof single.position) == 0,
                      "frame %d mover %d: batch (%g %g %g) vs single (%g %g %g)", frame, i,
                      (double)batch[i].position.x, (double)batch[i].position.y,
                      (double)batch[i].position.z, (double)single.position.x,
                      (double)single.position.y, (double)single.position.z);
            cr_expect_geq(batch[i].position.z, r * (1.0f - 1e-3f), "frame %d mover %d ends at z %g",
                          frame, i, (double)batch[i].position.z);
            at[i] = batch[i].position;
        }
    }
    skim_world_destroy(world);
}
