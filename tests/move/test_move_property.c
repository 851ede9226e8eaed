/* No tunnelling, as a property: thousands of movers with random
   displacements from 0.01 to 100 times their radius, well past the classic
   tunnelling speeds Gomez and the collision chapter warn of, inside the default scene's closed room
   and in the real levels of SKIM_SCENES_DIR (skipped when absent). After
   every move the shape must not overlap any triangle (checked in double
   precision by this file's own code, in the shape's unit-sphere space, with
   a tolerance of OVERLAP_TOLERANCE radii) and no mover may leave the closed
   room or the sealed level. Sanitizer builds run a quarter of the movers
   (SKIM_MOVE_TEST_SCALE). */
#include "move_test_util.h"

#ifndef SKIM_MOVE_TEST_SCALE
#define SKIM_MOVE_TEST_SCALE 1
#endif

/* How far a shape may overlap a triangle, in radii: float rounding of the
   final position, far below the skin (0.01 radii by default). */
#define OVERLAP_TOLERANCE 1e-4

TestSuite(move_property, .timeout = 240);

/* ---- the suite's own triangle soup, uniform grid and ray cast ---- */

typedef struct soup {
    float *t;            /* 9 floats per triangle */
    uint32_t count;
    float lo[3], hi[3];
    /* grid */
    float cell;
    int dims[3];
    uint32_t *start;     /* dims product + 1 */
    uint32_t *items;
} soup;

static void soup_bounds(soup *s)
{
    for (int k = 0; k < 3; ++k) {
        s->lo[k] = INFINITY;
        s->hi[k] = -INFINITY;
    }
    for (uint32_t i = 0; i < 3 * s->count; ++i)
        for (int k = 0; k < 3; ++k) {
            s->lo[k] = fminf(s->lo[k], s->t[3 * i + k]);
            s->hi[k] = fmaxf(s->hi[k], s->t[3 * i + k]);
        }
}

static int cell_of(const soup *s, int axis, float x)
{
    int c = (int)floorf((x - s->lo[axis]) / s->cell);
    return c < 0 ? 0 : (c >= s->dims[axis] ? s->dims[axis] - 1 : c);
}

static void soup_grid(soup *s, float cell)
{
    s->cell = cell;
    size_t cells = 1;
    for (int k = 0; k < 3; ++k) {
        s->dims[k] = (int)((s->hi[k] - s->lo[k]) / cell) + 1;
        cells *= (size_t)s->dims[k];
    }
    s->start = calloc(cells + 1, sizeof *s->start);
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t i = 0; i < s->count; ++i) {
            const float *t = s->t + 9 * (size_t)i;
            int a[3], b[3];
            for (int k = 0; k < 3; ++k) {
                a[k] = cell_of(s, k, fminf(t[k], fminf(t[3 + k], t[6 + k])));
                b[k] = cell_of(s, k, fmaxf(t[k], fmaxf(t[3 + k], t[6 + k])));
            }
            for (int x = a[0]; x <= b[0]; ++x)
                for (int y = a[1]; y <= b[1]; ++y)
                    for (int z = a[2]; z <= b[2]; ++z) {
                        size_t c = ((size_t)z * s->dims[1] + y) * s->dims[0] + x;
                        if (pass == 0)
                            s->start[c + 1]++;
                        else
                            s->items[s->start[c]++] = i;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; ++c)
                s->start[c + 1] += s->start[c];
            s->items = malloc((s->start[cells] + 1) * sizeof *s->items);
        } else {
            for (size_t c = cells; c > 0; --c)
                s->start[c] = s->start[c - 1];
            s->start[0] = 0;
        }
    }
}

static void soup_free(soup *s)
{
    free(s->t);
    free(s->start);
    free(s->items);
}

/* Smallest unit-space distance from the shape at c to the soup, looking at
   the cells within reach of its bounding sphere. */
static double soup_unit_distance(const soup *s, skim_ellipsoid shape, skim_vec3 c, uint32_t *which)
{
    d_space space = d_space_of(shape);
    float r = fmaxf(shape.radii.x, fmaxf(shape.radii.y, shape.radii.z)) * 1.01f;
    const float center[3] = { c.x, c.y, c.z };
    int a[3], b[3];
    for (int k = 0; k < 3; ++k) {
        if (center[k] + r < s->lo[k] || center[k] - r > s->hi[k])
            return INFINITY;
        a[k] = cell_of(s, k, center[k] - r);
        b[k] = cell_of(s, k, center[k] + r);
    }
    double best = INFINITY;
    for (int x = a[0]; x <= b[0]; ++x)
        for (int y = a[1]; y <= b[1]; ++y)
            for (int z = a[2]; z <= b[2]; ++z) {
                size_t cell = ((size_t)z * s->dims[1] + y) * s->dims[0] + x;
                for (uint32_t j = s->start[cell]; j < s->start[cell + 1]; ++j) {
                    double d = d_unit_distance(&space, c, s->t + 9 * (size_t)s->items[j]);
                    if (d < best) {
                        best = d;
                        if (which)
                            *which = s->items[j];
                    }
                }
            }
    return best;
}

/* Does a ray from o along dir hit the soup (brute force, double)? */
static bool soup_ray_hits(const soup *s, const double o[3], const double dir[3])
{
    for (uint32_t i = 0; i < s->count; ++i) {
        const float *t = s->t + 9 * (size_t)i;
        double e1[3], e2[3], p[3], q[3], tv[3];
        for (int k = 0; k < 3; ++k) {
            e1[k] = (double)t[3 + k] - t[k];
            e2[k] = (double)t[6 + k] - t[k];
            tv[k] = o[k] - t[k];
        }
        p[0] = dir[1] * e2[2] - dir[2] * e2[1];
        p[1] = dir[2] * e2[0] - dir[0] * e2[2];
        p[2] = dir[0] * e2[1] - dir[1] * e2[0];
        double det = d_dot(e1, p);
        if (fabs(det) < 1e-12)
            continue;
        double u = d_dot(tv, p) / det;
        if (u < 0 || u > 1)
            continue;
        q[0] = tv[1] * e1[2] - tv[2] * e1[1];
        q[1] = tv[2] * e1[0] - tv[0] * e1[2];
        q[2] = tv[0] * e1[1] - tv[1] * e1[0];
        double v = d_dot(dir, q) / det;
        if (v < 0 || u + v > 1)
            continue;
        if (d_dot(e2, q) / det > 0)
            return true;
    }
    return false;
}

/* Enclosed: every axis ray (and four diagonals) meets geometry. */
static bool soup_encloses(const soup *s, skim_vec3 c)
{
    static const double dirs[10][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 },
                                        { 0, 0, 1 }, { 0, 0, -1 }, { 1, 1, 0.3 }, { -1, 1, 0.3 },
                                        { 1, -1, -0.3 }, { -1, -1, 0.2 } };
    const double o[3] = { c.x, c.y, c.z };
    for (int i = 0; i < 10; ++i)
        if (!soup_ray_hits(s, o, dirs[i]))
            return false;
    return true;
}

/* The suite's own OBJ reader (v and f lines; polygons as fans). */
static bool soup_load_obj(const char *path, soup *s)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t vcap = 1 << 16, vcount = 0, tcap = 1 << 16;
    float *v = malloc(vcap * 3 * sizeof *v);
    s->t = malloc(tcap * 9 * sizeof *s->t);
    s->count = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == 'v' && line[1] == ' ') {
            if (vcount == vcap) {
                vcap *= 2;
                v = realloc(v, vcap * 3 * sizeof *v);
            }
            sscanf(line + 2, "%f %f %f", &v[3 * vcount], &v[3 * vcount + 1], &v[3 * vcount + 2]);
            vcount++;
        } else if (line[0] == 'f' && line[1] == ' ') {
            long idx[64];
            int n = 0;
            char *p = line + 2;
            while (n < 64) {
                char *end;
                long i = strtol(p, &end, 10);
                if (end == p)
                    break;
                idx[n++] = i < 0 ? (long)vcount + i : i - 1;
                p = end;
                while (*p && *p != ' ' && *p != '\t' && *p != '\n')
                    p++;
            }
            for (int k = 2; k < n; ++k) {
                if (s->count == tcap) {
                    tcap *= 2;
                    s->t = realloc(s->t, tcap * 9 * sizeof *s->t);
                }
                const long corner[3] = { idx[0], idx[k - 1], idx[k] };
                for (int c = 0; c < 3; ++c)
                    for (int a = 0; a < 3; ++a)
                        s->t[9 * (size_t)s->count + 3 * c + a] = v[3 * corner[c] + a];
                s->count++;
            }
        }
    }
    fclose(f);
    free(v);
    soup_bounds(s);
    return s->count > 0;
}

static skim_world *soup_world(const soup *s)
{
    uint32_t *indices = malloc(3 * (size_t)s->count * sizeof *indices);
    for (uint32_t i = 0; i < 3 * s->count; ++i)
        indices[i] = i;
    skim_mesh mesh = { s->t, 3 * s->count, indices, s->count, NULL };
    skim_world *w = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &w), SKIM_OK, "%s", skim_last_error_message());
    free(indices);
    return w;
}

/* ---- random movers ---- */

static skim_ellipsoid random_shape(uint64_t *rng, float radius_lo, float radius_hi)
{
    double pick = rng_uniform(rng);
    if (pick < 0.5) {
        float r = radius_lo * powf(radius_hi / radius_lo, (float)rng_uniform(rng));
        return sphere(r);
    }
    skim_ellipsoid e;
    e.radii.x = radius_lo + (radius_hi - radius_lo) * (float)rng_uniform(rng);
    e.radii.y = radius_lo + (radius_hi - radius_lo) * (float)rng_uniform(rng);
    e.radii.z = radius_lo + (radius_hi - radius_lo) * (float)rng_uniform(rng);
    if (pick < 0.75) {
        e.rotation = (skim_quat){ 0, 0, 0, 1 };
    } else {
        double q[4], n = 0;
        for (int k = 0; k < 4; ++k) {
            q[k] = rng_uniform(rng) * 2 - 1;
            n += q[k] * q[k];
        }
        n = sqrt(n);
        e.rotation = (skim_quat){ (float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n),
                                  (float)(q[3] / n) };
    }
    return e;
}

/* 0.01 to 100 radii, log-uniform, in a uniformly random direction. */
static skim_vec3 random_displacement(uint64_t *rng, skim_ellipsoid e)
{
    float r = fmaxf(e.radii.x, fmaxf(e.radii.y, e.radii.z));
    float length = r * powf(10.0f, -2.0f + 4.0f * (float)rng_uniform(rng));
    double z = 2 * rng_uniform(rng) - 1, a = 6.283185307179586 * rng_uniform(rng);
    double h = sqrt(1 - z * z);
    return (skim_vec3){ (float)(length * h * cos(a)), (float)(length * h * sin(a)),
                        (float)(length * z) };
}

static skim_move_def random_def(uint64_t *rng)
{
    skim_move_def def = skim_move_def_default();
    double pick = rng_uniform(rng);
    if (pick < 0.4) {
        def.step_height = 18;
        def.snap_distance = 18;
        def.gravity = (skim_vec3){ 0, 0, -3 };
    } else if (pick < 0.6) {
        def.skin_width = 0.001f;
        def.max_iterations = 1 + (int)(rng_uniform(rng) * 8);
    } else if (pick < 0.8) {
        def.skin_width = 0.05f;
        def.max_slope_degrees = 60;
        def.query.cull_back_faces = false;
    }
    return def;
}

typedef struct property_run {
    const soup *geometry;
    skim_world *world;
    int movers, frames;
    float lo[3], hi[3];         /* spawn box */
    float radius_lo, radius_hi;
    bool check_box;             /* centers must stay inside [lo, hi] */
    bool spawn_enclosed;        /* spawn only where geometry surrounds the center */
    bool check_enclosed;        /* centers must stay enclosed at the end */
    uint64_t seed;
    const char *name;
} property_run;

static void run_property(const property_run *run)
{
    uint64_t rng = run->seed;
    int n = run->movers;
    skim_ellipsoid *shapes = malloc((size_t)n * sizeof *shapes);
    skim_vec3 *positions = malloc((size_t)n * sizeof *positions);
    skim_vec3 *displacements = malloc((size_t)n * sizeof *displacements);
    skim_move_result *results = malloc((size_t)n * sizeof *results);
    int spawned = 0, tries = 0;
    while (spawned < n && tries < 200 * n) {
        ++tries;
        skim_ellipsoid e = random_shape(&rng, run->radius_lo, run->radius_hi);
        skim_vec3 c;
        c.x = run->lo[0] + (run->hi[0] - run->lo[0]) * (float)rng_uniform(&rng);
        c.y = run->lo[1] + (run->hi[1] - run->lo[1]) * (float)rng_uniform(&rng);
        c.z = run->lo[2] + (run->hi[2] - run->lo[2]) * (float)rng_uniform(&rng);
        if (soup_unit_distance(run->geometry, e, c, NULL) < 1.05)
            continue;
        if (run->spawn_enclosed && !soup_encloses(run->geometry, c))
            continue;
        shapes[spawned] = e;
        positions[spawned] = c;
        spawned++;
    }
    cr_assert_eq(spawned, n, "%s: spawned only %d of %d movers", run->name, spawned, n);
    long long moves = 0, blocked = 0;
    double closest = INFINITY;
    for (int frame = 0; frame < run->frames; ++frame) {
        skim_move_def def = random_def(&rng);
        for (int i = 0; i < n; ++i)
            displacements[i] = random_displacement(&rng, shapes[i]);
        cr_assert_eq(skim_move_batch(run->world, (size_t)n, shapes, positions, displacements, &def,
                                     results),
                     SKIM_OK, "%s: %s", run->name, skim_last_error_message());
        for (int i = 0; i < n; ++i) {
            skim_vec3 p = results[i].position;
            uint32_t which = UINT32_MAX;
            double d = soup_unit_distance(run->geometry, shapes[i], p, &which);
            closest = fmin(closest, d);
            cr_assert(d >= 1.0 - OVERLAP_TOLERANCE,
                      "%s frame %d mover %d (radii %g %g %g): overlaps triangle %u by %.3g radii "
                      "after moving from (%.9g, %.9g, %.9g) by (%.9g, %.9g, %.9g) to (%.9g, %.9g, "
                      "%.9g)", run->name, frame, i, shapes[i].radii.x, shapes[i].radii.y,
                      shapes[i].radii.z, which, 1.0 - d, positions[i].x, positions[i].y,
                      positions[i].z, displacements[i].x, displacements[i].y, displacements[i].z,
                      p.x, p.y, p.z);
            if (run->check_box)
                cr_assert(p.x > run->lo[0] - 1 && p.x < run->hi[0] + 1 && p.y > run->lo[1] - 1 &&
                          p.y < run->hi[1] + 1 && p.z > run->lo[2] - 1 && p.z < run->hi[2] + 1,
                          "%s frame %d mover %d (radii %.9g %.9g %.9g rotation %.9g %.9g %.9g "
                          "%.9g) left the room: from (%.9g, %.9g, %.9g) by (%.9g, %.9g, %.9g) to "
                          "(%g, %g, %g); def skin %g slope %g step %g snap %g iterations %d",
                          run->name, frame, i, shapes[i].radii.x, shapes[i].radii.y,
                          shapes[i].radii.z, shapes[i].rotation.x, shapes[i].rotation.y,
                          shapes[i].rotation.z, shapes[i].rotation.w, positions[i].x,
                          positions[i].y, positions[i].z, displacements[i].x, displacements[i].y,
                          displacements[i].z, p.x, p.y, p.z, def.skin_width, def.max_slope_degrees,
                          def.step_height, def.snap_distance, def.max_iterations);
            float dx = p.x - positions[i].x - displacements[i].x,
                  dy = p.y - positions[i].y - displacements[i].y,
                  dz = p.z - positions[i].z - displacements[i].z;
            blocked += dx * dx + dy * dy + dz * dz > 1e-6f;
            positions[i] = p;
            moves++;
        }
    }
    if (run->check_enclosed)
        for (int i = 0; i < n; ++i)
            cr_assert(soup_encloses(run->geometry, positions[i]),
                      "%s: mover %d left the sealed level, now at (%g, %g, %g)", run->name, i,
                      positions[i].x, positions[i].y, positions[i].z);
    fprintf(stderr, "%s: %lld moves, %lld met geometry, closest approach %.6f radii\n", run->name,
            moves, blocked, closest);
    cr_expect(blocked > moves / 4, "%s: only %lld of %lld moves met geometry: not a test", run->name,
              blocked, moves);
    free(shapes);
    free(positions);
    free(displacements);
    free(results);
}

Test(move_property, no_tunnelling_in_the_closed_room)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    soup s = { 0 };
    s.count = data.triangle_count;
    s.t = malloc(9 * (size_t)s.count * sizeof *s.t);
    for (uint32_t i = 0; i < s.count; ++i)
        mesh_triangle(&data, i, s.t + 9 * (size_t)i);
    soup_bounds(&s);
    soup_grid(&s, 64);
    skim_mesh mesh = skim_mesh_data_view(&data);
    skim_world *w = NULL;
    cr_assert_eq(skim_world_create(&mesh, NULL, &w), SKIM_OK);
    /* Interior x [1508, 1892], y [208, 592], z [0, 200]. */
    property_run run = { .geometry = &s, .world = w, .movers = 3000 / SKIM_MOVE_TEST_SCALE,
                         .frames = 50, .lo = { 1508, 208, 0 }, .hi = { 1892, 592, 200 },
                         .radius_lo = 4, .radius_hi = 32, .check_box = true, .seed = 0x5EED,
                         .name = "closed room" };
    run_property(&run);
    skim_world_destroy(w);
    soup_free(&s);
    skim_mesh_data_free(&data);
}

static void level(const char *file, bool sealed, uint64_t seed)
{
    const char *dir = getenv("SKIM_SCENES_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "", file);
    soup s = { 0 };
    if (!dir || !soup_load_obj(path, &s)) {
        cr_skip("%s not found (SKIM_SCENES_DIR=%s)", file, dir ? dir : "(unset)");
        return;
    }
    soup_grid(&s, 64);
    skim_world *w = soup_world(&s);
    property_run run = { .geometry = &s, .world = w, .movers = 1000 / SKIM_MOVE_TEST_SCALE,
                         .frames = 40, .radius_lo = 8, .radius_hi = 28,
                         .spawn_enclosed = true, .check_enclosed = sealed, .seed = seed,
                         .name = file };
    memcpy(run.lo, s.lo, sizeof run.lo);
    memcpy(run.hi, s.hi, sizeof run.hi);
    run_property(&run);
    skim_world_destroy(w);
    soup_free(&s);
}

Test(move_property, no_tunnelling_in_oa_dm4_hull)
{
    level("oa_dm4_hull.obj", true, 0xD4);
}

Test(move_property, no_tunnelling_in_oa_dm1)
{
    level("oa_dm1.obj", false, 0xD1);
}
