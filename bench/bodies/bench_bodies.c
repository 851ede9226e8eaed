/* Moving bodies against the same triangles baked into the static world:
   100 crates (a subdivided cube, one shared mesh) standing turned on a grid
   over the default scene, as bodies of the scene, and placed in the scene's
   own mesh before the build. The same random sweeps, and the same crowd of
   moves, run on both worlds one after the other (paired, --reps times);
   JSON lines give each one's median seconds and the ratio bodies / static
   measured in the same run, and how many sweeps agree on hit or miss.

   Usage: bench_bodies [--bodies N] [--sweeps N] [--movers N] [--frames N] [--reps N]
   Threads: the sweeps run on the calling thread, the moves with
   skim_move_def.threads = 1, so the ratio is a core's. */
#include <skim/skim.h>

#include "../bench_common.h"
#include "../bench_usage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: bench_bodies [--bodies N] [--sweeps N] [--movers N] [--frames N] [--reps N]\n";

static float rng_range(uint64_t *s, float lo, float hi)
{
    return lo + (hi - lo) * ((float)(bench_random(s) >> 40) * 0x1p-24f);
}

/* A cube [-size, size]^3 with each face cut into n x n squares. */
static void crate_mesh(uint32_t n, float size, skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    const uint32_t side = n + 1;
    out->vertex_count = 6 * side * side;
    out->triangle_count = 12 * n * n;
    out->positions = malloc(3 * sizeof(float) * out->vertex_count);
    out->indices = malloc(3 * sizeof(uint32_t) * out->triangle_count);
    out->materials = calloc(out->triangle_count, sizeof(uint16_t));
    uint32_t v = 0, t = 0;
    for (int face = 0; face < 6; ++face) {
        const int axis = face / 2, u = (axis + 1) % 3, w = (axis + 2) % 3;
        const float sign = face % 2 ? -1.0f : 1.0f;
        const uint32_t base = v;
        for (uint32_t i = 0; i < side; ++i)
            for (uint32_t j = 0; j < side; ++j) {
                float *p = out->positions + 3 * v++;
                p[axis] = sign * size;
                p[u] = size * (-1.0f + 2.0f * (float)i / (float)n);
                p[w] = size * (-1.0f + 2.0f * (float)j / (float)n);
            }
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = 0; j < n; ++j) {
                const uint32_t a = base + i * side + j, b = a + side, c = b + 1, d = a + 1;
                const uint32_t quad[2][3] = { { a, b, c }, { a, c, d } };
                for (int k = 0; k < 2; ++k, ++t) {
                    out->indices[3 * t] = quad[k][0];
                    out->indices[3 * t + 1] = sign > 0 ? quad[k][1] : quad[k][2];
                    out->indices[3 * t + 2] = sign > 0 ? quad[k][2] : quad[k][1];
                }
            }
    }
}

/* Body k's place: a 10-wide grid over the scene's open half, each turned. */
static skim_transform place_of(int k)
{
    const double angle = 0.37 * k, s = sin(0.5 * angle);
    return (skim_transform){ { -1800.0f + 360.0f * (float)(k % 10), -1900.0f + 170.0f * (float)(k / 10), 60.0f },
                             { 0.0f, 0.0f, (float)s, (float)cos(0.5 * angle) } };
}

/* The scene's mesh with every crate's triangles placed in it (in double,
   rounded once, as the bodies place them). */
static void baked_mesh(const skim_mesh_data *scene, const skim_mesh_data *crate, int bodies, skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    out->vertex_count = scene->vertex_count + (uint32_t)bodies * crate->vertex_count;
    out->triangle_count = scene->triangle_count + (uint32_t)bodies * crate->triangle_count;
    out->positions = malloc(3 * sizeof(float) * out->vertex_count);
    out->indices = malloc(3 * sizeof(uint32_t) * out->triangle_count);
    out->materials = calloc(out->triangle_count, sizeof(uint16_t));
    memcpy(out->positions, scene->positions, 3 * sizeof(float) * scene->vertex_count);
    memcpy(out->indices, scene->indices, 3 * sizeof(uint32_t) * scene->triangle_count);
    uint32_t v = scene->vertex_count, t = scene->triangle_count;
    for (int k = 0; k < bodies; ++k) {
        const skim_transform p = place_of(k);
        const double x = p.rotation.x, y = p.rotation.y, z = p.rotation.z, w = p.rotation.w;
        const double m[3][3] = { { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
                                 { 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) },
                                 { 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) } };
        const double at[3] = { p.position.x, p.position.y, p.position.z };
        for (uint32_t i = 0; i < crate->vertex_count; ++i) {
            const float *q = crate->positions + 3 * i;
            for (int r = 0; r < 3; ++r)
                out->positions[3 * (v + i) + r] = (float)(m[r][0] * q[0] + m[r][1] * q[1] + m[r][2] * q[2] + at[r]);
        }
        for (uint32_t i = 0; i < 3 * crate->triangle_count; ++i)
            out->indices[3 * t + i] = crate->indices[i] + v;
        v += crate->vertex_count;
        t += crate->triangle_count;
    }
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct sweeps { int count; skim_vec3 *start, *delta; } sweeps;

static double run_sweeps(const skim_world *world, const sweeps *s, int *hits)
{
    const skim_ellipsoid sphere = { { 16, 16, 16 }, { 0, 0, 0, 1 } };
    const double started = bench_seconds();
    int met = 0;
    for (int i = 0; i < s->count; ++i) {
        skim_hit hit;
        if (skim_sweep(world, &sphere, s->start[i], s->delta[i], NULL, &hit) != SKIM_OK) {
            fprintf(stderr, "bench_bodies: %s\n", skim_last_error_message());
            exit(1);
        }
        met += hit.hit;
    }
    *hits = met;
    return bench_seconds() - started;
}

static double run_moves(const skim_world *world, int movers, int frames)
{
    skim_ellipsoid *shapes = malloc((size_t)movers * sizeof *shapes);
    skim_vec3 *positions = malloc((size_t)movers * sizeof *positions), *moves = malloc((size_t)movers * sizeof *moves);
    skim_move_result *results = malloc((size_t)movers * sizeof *results);
    uint64_t rng = 99;
    for (int i = 0; i < movers; ++i) {
        shapes[i] = (skim_ellipsoid){ { 16, 16, 16 }, { 0, 0, 0, 1 } };
        positions[i] = (skim_vec3){ rng_range(&rng, -1900, 1900), rng_range(&rng, -1950, -250), rng_range(&rng, 40, 160) };
    }
    skim_move_def def = skim_move_def_default();
    def.step_height = 18;
    def.snap_distance = 8;
    def.gravity = (skim_vec3){ 0, 0, -6 };
    def.threads = 1;
    const double started = bench_seconds();
    for (int frame = 0; frame < frames; ++frame) {
        for (int i = 0; i < movers; ++i) {
            const float heading = 0.3f * (float)(i % 21) + 0.05f * (float)frame;
            moves[i] = (skim_vec3){ 5.3f * cosf(heading), 5.3f * sinf(heading), 0 };
        }
        if (skim_move_batch(world, (size_t)movers, shapes, positions, moves, &def, results) != SKIM_OK) {
            fprintf(stderr, "bench_bodies: %s\n", skim_last_error_message());
            exit(1);
        }
        for (int i = 0; i < movers; ++i)
            positions[i] = results[i].position;
    }
    const double seconds = bench_seconds() - started;
    free(shapes);
    free(positions);
    free(moves);
    free(results);
    return seconds;
}

int main(int argc, char **argv)
{
    int bodies = 100, sweep_count = 200000, movers = 2000, frames = 60, reps = 5;
    for (int i = 1; i < argc; ++i) {
        int *target = !strcmp(argv[i], "--bodies") ? &bodies : !strcmp(argv[i], "--sweeps") ? &sweep_count
                    : !strcmp(argv[i], "--movers") ? &movers : !strcmp(argv[i], "--frames") ? &frames
                    : !strcmp(argv[i], "--reps") ? &reps : NULL;
        if (!target || i + 1 >= argc || atoi(argv[i + 1]) < 1)
            return bench_usage("bench_bodies", argv[i], usage);
        *target = atoi(argv[++i]);
    }
    if (reps > 64)
        reps = 64;
    skim_mesh_data scene, crate, baked;
    if (skim_scene_default(&scene) != SKIM_OK)
        return 1;
    crate_mesh(4, 40.0f, &crate);
    baked_mesh(&scene, &crate, bodies, &baked);
    skim_world *with_bodies, *shape, *static_world;
    skim_mesh view = skim_mesh_data_view(&scene), crate_view = skim_mesh_data_view(&crate),
               baked_view = skim_mesh_data_view(&baked);
    if (skim_world_create(&view, NULL, &with_bodies) != SKIM_OK || skim_world_create(&crate_view, NULL, &shape) != SKIM_OK ||
        skim_world_create(&baked_view, NULL, &static_world) != SKIM_OK) {
        fprintf(stderr, "bench_bodies: %s\n", skim_last_error_message());
        return 1;
    }
    for (int k = 0; k < bodies; ++k) {
        uint32_t id;
        if (skim_world_add_body(with_bodies, shape, place_of(k), &id) != SKIM_OK) {
            fprintf(stderr, "bench_bodies: %s\n", skim_last_error_message());
            return 1;
        }
    }
    sweeps s = { sweep_count, malloc((size_t)sweep_count * sizeof(skim_vec3)), malloc((size_t)sweep_count * sizeof(skim_vec3)) };
    uint64_t rng = 7;
    for (int i = 0; i < sweep_count; ++i) {
        s.start[i] = (skim_vec3){ rng_range(&rng, -1950, 1950), rng_range(&rng, -1980, -200), rng_range(&rng, 20, 200) };
        s.delta[i] = (skim_vec3){ rng_range(&rng, -200, 200), rng_range(&rng, -200, 200), rng_range(&rng, -100, 100) };
    }
    double sweep_s[2][64], move_s[2][64], ratio_sweep[64], ratio_move[64];
    int hits[2] = { 0, 0 };
    const skim_world *worlds[2] = { with_bodies, static_world };
    for (int r = 0; r < reps; ++r) {
        for (int w = 0; w < 2; ++w)
            sweep_s[w][r] = run_sweeps(worlds[w], &s, &hits[w]);
        for (int w = 0; w < 2; ++w)
            move_s[w][r] = run_moves(worlds[w], movers, frames);
        ratio_sweep[r] = sweep_s[0][r] / sweep_s[1][r];
        ratio_move[r] = move_s[0][r] / move_s[1][r];
    }
    const uint32_t body_triangles = (uint32_t)bodies * crate.triangle_count;
    printf("{\"bench\":\"bodies_sweep\",\"isa\":\"%s\",\"bodies\":%d,\"body_triangles\":%u,\"static_triangles\":%u,"
           "\"sweeps\":%d,\"reps\":%d,\"median_seconds_bodies\":%.4f,\"median_seconds_baked\":%.4f,"
           "\"paired_ratio_bodies_over_baked\":%.3f,\"hits_bodies\":%d,\"hits_baked\":%d}\n",
           skim_isa_name(), bodies, body_triangles, scene.triangle_count, sweep_count, reps,
           median(sweep_s[0], reps), median(sweep_s[1], reps), median(ratio_sweep, reps), hits[0], hits[1]);
    printf("{\"bench\":\"bodies_move\",\"isa\":\"%s\",\"bodies\":%d,\"body_triangles\":%u,\"static_triangles\":%u,"
           "\"movers\":%d,\"frames\":%d,\"threads\":1,\"reps\":%d,\"median_seconds_bodies\":%.4f,"
           "\"median_seconds_baked\":%.4f,\"paired_ratio_bodies_over_baked\":%.3f}\n",
           skim_isa_name(), bodies, body_triangles, scene.triangle_count, movers, frames, reps,
           median(move_s[0], reps), median(move_s[1], reps), median(ratio_move, reps));
    free(s.start);
    free(s.delta);
    skim_world_destroy(with_bodies);
    skim_world_destroy(static_world);
    skim_world_destroy(shape);
    skim_mesh_data_free(&scene);
    skim_mesh_data_free(&crate);
    skim_mesh_data_free(&baked);
    return 0;
}
