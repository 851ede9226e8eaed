/* What the query suites share: the real levels (SKIM_SCENES_DIR, a skip
   when absent), generated closed meshes, a random stream, and a
   double-precision ray oracle over every triangle. */
#ifndef SKIM_QUERY_SCENES_H
#define SKIM_QUERY_SCENES_H

#include <skim/skim.h>
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct query_rng { uint64_t state; } query_rng;

static inline uint64_t query_rng_next(query_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline float query_rng_range(query_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * ((float)(query_rng_next(r) >> 40) * 0x1p-24f);
}

/* A level from SKIM_SCENES_DIR, or a skip. */
static inline void query_open_level(const char *file, skim_mesh_data *mesh, skim_world **world)
{
    const char *dir = getenv("SKIM_SCENES_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "", file);
    FILE *probe = dir ? fopen(path, "r") : NULL;
    if (!probe)
        cr_skip("%s not available (SKIM_SCENES_DIR)", file);
    fclose(probe);
    cr_assert_eq(skim_mesh_load_obj(path, mesh), SKIM_OK, "%s", skim_last_error_message());
    skim_mesh view = skim_mesh_data_view(mesh);
    cr_assert_eq(skim_world_create(&view, NULL, world), SKIM_OK, "%s", skim_last_error_message());
}

/* A closed mesh: the cube [-1, 1]^3 with every face cut into n x n squares
   (two triangles each) over shared corners, faces counter-clockwise from
   outside. */
static inline void query_subdivided_cube(uint32_t n, skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    const uint32_t side = n + 1;
    out->vertex_count = 6 * side * side;
    out->triangle_count = 6 * n * n * 2;
    out->positions = malloc(3 * sizeof(float) * out->vertex_count);
    out->indices = malloc(3 * sizeof(uint32_t) * out->triangle_count);
    out->materials = calloc(out->triangle_count, sizeof(uint16_t));
    uint32_t v = 0, t = 0;
    for (int face = 0; face < 6; ++face) {
        const int axis = face / 2;
        const float sign = face % 2 ? -1.0f : 1.0f;
        const int u_axis = (axis + 1) % 3, w_axis = (axis + 2) % 3;
        const uint32_t base = v;
        for (uint32_t i = 0; i < side; ++i)
            for (uint32_t j = 0; j < side; ++j) {
                float *p = out->positions + 3 * v++;
                p[axis] = sign;
                p[u_axis] = -1.0f + 2.0f * (float)i / (float)n;
                p[w_axis] = -1.0f + 2.0f * (float)j / (float)n;
            }
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = 0; j < n; ++j) {
                uint32_t a = base + i * side + j, b = a + side, c = b + 1, d = a + 1;
                uint32_t quad[2][3] = { { a, b, c }, { a, c, d } };
                for (int k = 0; k < 2; ++k, ++t) {
                    uint32_t *tri = out->indices + 3 * t;
                    tri[0] = quad[k][0];
                    tri[1] = sign > 0 ? quad[k][1] : quad[k][2];
                    tri[2] = sign > 0 ? quad[k][2] : quad[k][1];
                }
            }
    }
    /* Shared corners along the cube's edges are separate vertices at the
       same coordinates: bitwise equal, which is what sharing means to a
       ray test. */
}

/* The double-precision oracle: the ray's hit with every triangle
   (Möller and Trumbore's barycentrics, two-sided) and whether it is
   grazing: within `margin` (relative) of a triangle's edge, of its plane
   at either end of the ray, or nearly parallel to a triangle it meets. */
typedef struct query_oracle_hit {
    bool     hit, grazing;
    double   t;
    uint32_t triangle;
} query_oracle_hit;

static inline query_oracle_hit query_oracle_ray(const skim_mesh_data *mesh, const double o[3],
                                                const double d[3], double margin)
{
    query_oracle_hit best = { .t = 2.0, .triangle = UINT32_MAX };
    const double length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (uint32_t t = 0; t < mesh->triangle_count; ++t) {
        const float *p[3];
        for (int k = 0; k < 3; ++k)
            p[k] = mesh->positions + 3 * mesh->indices[3 * t + k];
        double e1[3], e2[3], s[3];
        for (int i = 0; i < 3; ++i) {
            e1[i] = (double)p[1][i] - p[0][i];
            e2[i] = (double)p[2][i] - p[0][i];
            s[i] = o[i] - p[0][i];
        }
        double h[3] = { d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0] };
        double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
        double area = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (area == 0.0)
            continue;
        double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
        double cosine = fabs(det) / (area * length);
        double q[3] = { s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0] };
        if (cosine < margin) {
            /* Parallel to the plane: grazing if it runs within the margin of it. */
            double plane = fabs(n[0] * s[0] + n[1] * s[1] + n[2] * s[2]) / area;
            double size = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
            if (plane < margin * (size + length))
                best.grazing = true;
            continue;
        }
        double u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / det;
        double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
        double w = 1.0 - u - v;
        double hit_t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
        bool inside = u >= 0 && v >= 0 && w >= 0, in_range = hit_t >= 0 && hit_t <= 1;
        bool near_edge = fabs(u) < margin || fabs(v) < margin || fabs(w) < margin;
        bool near_end = fabs(hit_t) < margin || fabs(hit_t - 1) < margin;
        if ((near_edge && (in_range || near_end)) || (near_end && (inside || near_edge)))
            best.grazing = true;
        if (inside && in_range && (hit_t < best.t || (hit_t == best.t && t < best.triangle))) {
            best.hit = true;
            best.t = hit_t;
            best.triangle = t;
        }
    }
    return best;
}

#endif
