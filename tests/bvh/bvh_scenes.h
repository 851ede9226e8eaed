/* Scenes and sweep queries shared by the BVH tests and benchmarks: the
   default scene, the real levels (SKIM_SCENES_DIR, skipped when absent),
   generated meshes, and reproducible queries that start near surfaces. */
#ifndef SKIM_BVH_SCENES_H
#define SKIM_BVH_SCENES_H

#include <skim/skim.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a reproducible random stream (splitmix64) ---- */
typedef struct scene_rng { uint64_t state; } scene_rng;

static inline uint64_t scene_rng_next(scene_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* Uniform in [0, 1). */
static inline float scene_rng_unit(scene_rng *r) { return (float)(scene_rng_next(r) >> 40) * 0x1p-24f; }
static inline float scene_rng_range(scene_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * scene_rng_unit(r);
}
static inline uint32_t scene_rng_below(scene_rng *r, uint32_t n)
{
    return (uint32_t)((scene_rng_next(r) >> 32) * n >> 32);
}

/* ---- a minimal OBJ reader: `v x y z` and `f a b c ...` (fans), 1-based or
   negative indices, "a/b/c" corners. Enough for the shared levels; the
   library's full loader lives elsewhere. Returns false if unreadable. */
static inline bool scene_read_obj(const char *path, skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    FILE *file = fopen(path, "r");
    if (!file)
        return false;
    uint32_t vertex_capacity = 1024, triangle_capacity = 1024;
    out->positions = malloc(vertex_capacity * 3 * sizeof(float));
    out->indices = malloc(triangle_capacity * 3 * sizeof(uint32_t));
    char line[1024];
    bool ok = out->positions && out->indices;
    while (ok && fgets(line, sizeof line, file)) {
        if (line[0] == 'v' && line[1] == ' ') {
            if (out->vertex_count == vertex_capacity) {
                vertex_capacity *= 2;
                float *grown = realloc(out->positions, vertex_capacity * 3 * sizeof(float));
                if (!grown) { ok = false; break; }
                out->positions = grown;
            }
            float *p = out->positions + 3 * out->vertex_count;
            ok = sscanf(line + 2, "%f %f %f", &p[0], &p[1], &p[2]) == 3;
            out->vertex_count++;
        } else if (line[0] == 'f' && line[1] == ' ') {
            uint32_t corner[64];
            int corners = 0;
            for (char *token = strtok(line + 2, " \t\r\n"); token && corners < 64;
                 token = strtok(NULL, " \t\r\n")) {
                long index = strtol(token, NULL, 10);
                if (index < 0)
                    index += (long)out->vertex_count + 1;
                if (index < 1 || index > (long)out->vertex_count) { ok = false; break; }
                corner[corners++] = (uint32_t)(index - 1);
            }
            for (int k = 2; ok && k < corners; ++k) {
                if (out->triangle_count == triangle_capacity) {
                    triangle_capacity *= 2;
                    uint32_t *grown = realloc(out->indices, triangle_capacity * 3 * sizeof(uint32_t));
                    if (!grown) { ok = false; break; }
                    out->indices = grown;
                }
                uint32_t *t = out->indices + 3 * out->triangle_count++;
                t[0] = corner[0];
                t[1] = corner[k - 1];
                t[2] = corner[k];
            }
        }
    }
    fclose(file);
    if (ok && out->triangle_count) {
        /* Materials by triangle index mod 8, so material masks have something
           to filter in the real levels too. */
        out->materials = malloc(out->triangle_count * sizeof(uint16_t));
        ok = out->materials != NULL;
        for (uint32_t t = 0; ok && t < out->triangle_count; ++t)
            out->materials[t] = (uint16_t)(t % 8);
    }
    if (!ok || !out->triangle_count) {
        skim_mesh_data_free(out);
        memset(out, 0, sizeof *out);
        return false;
    }
    return true;
}

/* Path of a shared level, or NULL when SKIM_SCENES_DIR is unset. */
static inline const char *scene_path(const char *file, char *buffer, size_t size)
{
    const char *dir = getenv("SKIM_SCENES_DIR");
    if (!dir || !dir[0])
        return NULL;
    snprintf(buffer, size, "%s/%s", dir, file);
    return buffer;
}

/* A terrain of 2 * cells^2 triangles over [0, cells * spacing]^2, bumpy so
   the BVH has real work in z, plus boxes standing on it: a stand-in for a
   large outdoor level. */
static inline bool scene_generate_terrain(uint32_t cells, float spacing, uint64_t seed,
                                          skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    uint32_t side = cells + 1;
    out->vertex_count = side * side;
    out->triangle_count = 2 * cells * cells;
    out->positions = malloc((size_t)out->vertex_count * 3 * sizeof(float));
    out->indices = malloc((size_t)out->triangle_count * 3 * sizeof(uint32_t));
    out->materials = malloc((size_t)out->triangle_count * sizeof(uint16_t));
    if (!out->positions || !out->indices || !out->materials) {
        skim_mesh_data_free(out);
        return false;
    }
    scene_rng rng = { seed };
    for (uint32_t y = 0; y < side; ++y)
        for (uint32_t x = 0; x < side; ++x) {
            float *p = out->positions + 3 * ((size_t)y * side + x);
            p[0] = (float)x * spacing;
            p[1] = (float)y * spacing;
            p[2] = 40.0f * sinf(0.013f * (float)x) * cosf(0.011f * (float)y) +
                   scene_rng_range(&rng, 0.0f, 4.0f);
        }
    size_t t = 0;
    for (uint32_t y = 0; y < cells; ++y)
        for (uint32_t x = 0; x < cells; ++x) {
            uint32_t a = y * side + x, b = a + 1, c = a + side, d = c + 1;
            uint32_t *tri = out->indices + 3 * t;
            tri[0] = a; tri[1] = b; tri[2] = d;
            tri[3] = a; tri[4] = d; tri[5] = c;
            out->materials[t] = out->materials[t + 1] = (uint16_t)((x / 16 + y / 16) % 4);
            t += 2;
        }
    return true;
}

/* ---- sweep queries ---- */
typedef struct scene_query {
    skim_ellipsoid shape;
    skim_vec3      start, delta;
    skim_query     query;
} scene_query;

static inline skim_vec3 scene_random_direction(scene_rng *rng)
{
    for (;;) {
        float x = scene_rng_range(rng, -1, 1), y = scene_rng_range(rng, -1, 1),
              z = scene_rng_range(rng, -1, 1);
        float length = sqrtf(x * x + y * y + z * z);
        if (length > 0.05f && length <= 1.0f)
            return (skim_vec3){ x / length, y / length, z / length };
    }
}

typedef struct scene_query_mix {
    float radius;           /* sphere radius, and the ellipsoids' scale */
    float max_radii;        /* displacements up to this many radii */
    float ellipsoid_share;  /* fraction of rotated ellipsoids (15 x 15 x 28 scaled) */
    float contact_share;    /* fraction starting already touching (inside one radius) */
    float huge_share;       /* fraction longer than the whole level */
    float options_share;    /* fraction with culling or a material mask */
} scene_query_mix;

/* A query starting near a random triangle of the mesh: on its front or
   back side, at a distance of 0..4 radii (or touching), moving in a random
   direction. level_size is the diagonal of the mesh's bounds. */
static inline scene_query scene_make_query(scene_rng *rng, const skim_mesh *mesh, float level_size,
                                           const scene_query_mix *mix)
{
    scene_query q;
    memset(&q, 0, sizeof q);
    float r = mix->radius;
    q.shape = (skim_ellipsoid){ { r, r, r }, { 0, 0, 0, 1 } };
    if (scene_rng_unit(rng) < mix->ellipsoid_share) {
        skim_vec3 axis = scene_random_direction(rng);
        float half = scene_rng_range(rng, 0.0f, 3.14159265f);
        float s = sinf(half);
        q.shape = (skim_ellipsoid){ { r * 15.0f / 16.0f, r * 15.0f / 16.0f, r * 28.0f / 16.0f },
                                    { axis.x * s, axis.y * s, axis.z * s, cosf(half) } };
    }
    uint32_t t = scene_rng_below(rng, mesh->triangle_count);
    const float *v[3];
    for (int k = 0; k < 3; ++k)
        v[k] = mesh->positions + 3 * (size_t)mesh->indices[3 * (size_t)t + k];
    float u = scene_rng_unit(rng), w = scene_rng_unit(rng);
    if (u + w > 1.0f) { u = 1.0f - u; w = 1.0f - w; }
    float e1[3], e2[3], n[3], p[3];
    for (int k = 0; k < 3; ++k) {
        e1[k] = v[1][k] - v[0][k];
        e2[k] = v[2][k] - v[0][k];
        p[k] = v[0][k] + u * e1[k] + w * e2[k];
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(length > 0.0f)) { n[0] = 0; n[1] = 0; n[2] = 1; length = 1; }
    float side = scene_rng_unit(rng) < 0.8f ? 1.0f : -1.0f;
    float distance = scene_rng_unit(rng) < mix->contact_share ? scene_rng_range(rng, 0.0f, 1.0f) * r
                                                               : scene_rng_range(rng, 1.0f, 4.0f) * r;
    q.start = (skim_vec3){ p[0] + side * distance * n[0] / length,
                           p[1] + side * distance * n[1] / length,
                           p[2] + side * distance * n[2] / length };
    float travel = scene_rng_unit(rng) < mix->huge_share ? level_size * scene_rng_range(rng, 1.0f, 2.0f)
                                                         : r * mix->max_radii * scene_rng_unit(rng);
    skim_vec3 d = scene_random_direction(rng);
    q.delta = (skim_vec3){ d.x * travel, d.y * travel, d.z * travel };
    q.query = skim_query_default();
    if (scene_rng_unit(rng) < mix->options_share) {
        q.query.cull_back_faces = scene_rng_unit(rng) < 0.5f;
        if (scene_rng_unit(rng) < 0.5f)
            q.query.material_mask = scene_rng_next(rng);
    }
    return q;
}

static inline float scene_level_size(const skim_world *world)
{
    skim_world_stats stats;
    skim_world_get_stats(world, &stats);
    float dx = stats.bounds_max.x - stats.bounds_min.x, dy = stats.bounds_max.y - stats.bounds_min.y,
          dz = stats.bounds_max.z - stats.bounds_min.z;
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

/* Bitwise equality of two sweep answers (so -0 and +0 differ, as they
   would for any caller that hashes or serialises results). */
static inline bool scene_hits_identical(const skim_hit *a, const skim_hit *b)
{
    if (a->hit != b->hit)
        return false;
    if (!a->hit)
        return memcmp(&a->t, &b->t, sizeof a->t) == 0;
    return memcmp(&a->t, &b->t, sizeof a->t) == 0 && memcmp(&a->point, &b->point, sizeof a->point) == 0 &&
           memcmp(&a->normal, &b->normal, sizeof a->normal) == 0 && a->triangle == b->triangle;
}

#endif
