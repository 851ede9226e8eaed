/* Scenes and game-like sweeps over them, shared by the scene suite, the
   SKIM_ISA probe and the benchmark: the default scene or a real level
   (from SKIM_SCENES_DIR), movers of player size starting
   next to a random surface and moving as players do. */
#ifndef SKIM_SIMD_SCENE_H
#define SKIM_SIMD_SCENE_H

#include "simd_obj.h"
#include "simd_test_util.h"

typedef struct scene {
    skim_mesh_data data; /* the default scene */
    simd_obj obj;        /* or a level */
    skim_mesh mesh;
    skim_world *world;
} scene;

static inline void scene_free(scene *s)
{
    skim_world_destroy(s->world);
    skim_mesh_data_free(&s->data);
    simd_obj_free(&s->obj);
    memset(s, 0, sizeof *s);
}

/* "default" or a file name in SKIM_SCENES_DIR. Returns false (and leaves
   why) when the level is not there, so callers can skip. */
static inline bool scene_open(const char *name, skim_accelerator accelerator, scene *s,
                              char *why, size_t why_size)
{
    memset(s, 0, sizeof *s);
    if (strcmp(name, "default") == 0) {
        if (skim_scene_default(&s->data) != SKIM_OK) {
            snprintf(why, why_size, "default scene: %s", skim_last_error_message());
            return false;
        }
        s->mesh = skim_mesh_data_view(&s->data);
    } else {
        const char *dir = getenv("SKIM_SCENES_DIR");
        if (!dir || !dir[0]) {
            snprintf(why, why_size, "SKIM_SCENES_DIR is not set");
            return false;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (!simd_obj_load(path, &s->obj)) {
            snprintf(why, why_size, "%.400s is absent or unreadable", path);
            return false;
        }
        s->mesh = simd_obj_mesh(&s->obj);
    }
    skim_world_def def = skim_world_def_default();
    def.accelerator = accelerator;
    if (skim_world_create(&s->mesh, &def, &s->world) != SKIM_OK) {
        snprintf(why, why_size, "world: %s", skim_last_error_message());
        scene_free(s);
        return false;
    }
    return true;
}

typedef struct scene_sweep {
    skim_ellipsoid shape;
    skim_vec3 start, delta;
    bool cull;
} scene_sweep;

static inline skim_quat random_rotation(rng *r)
{
    double q[4], n;
    do {
        for (int k = 0; k < 4; ++k)
            q[k] = rng_uniform(r, -1, 1);
        n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    } while (n < 0.1 || n > 1.0);
    return (skim_quat){ (float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n),
                        (float)(q[3] / n) };
}

/* A player-sized mover (sphere 16, upright 15x15x28 ellipsoid, or that
   ellipsoid turned any way) starting near a random triangle of the mesh,
   just clear of it or already touching, walking, falling or flying. Units
   are the levels' (Quake units; z up). */
static inline void scene_sweep_make(rng *r, const skim_mesh *mesh, scene_sweep *out)
{
    uint32_t kind = rng_below(r, 4);
    out->shape = (skim_ellipsoid){ { 16, 16, 16 }, { 0, 0, 0, 1 } };
    if (kind >= 2)
        out->shape.radii = (skim_vec3){ 15, 15, 28 };
    if (kind == 3)
        out->shape.rotation = random_rotation(r);
    float bound = kind >= 2 ? 28.0f : 16.0f;
    double n[3], c[3], length;
    do {
        const uint32_t *t = mesh->indices + 3 * (size_t)rng_below(r, mesh->triangle_count);
        const float *p[3] = { mesh->positions + 3 * (size_t)t[0], mesh->positions + 3 * (size_t)t[1],
                              mesh->positions + 3 * (size_t)t[2] };
        double ab[3], ac[3];
        for (int k = 0; k < 3; ++k) {
            ab[k] = (double)p[1][k] - p[0][k];
            ac[k] = (double)p[2][k] - p[0][k];
            c[k] = ((double)p[0][k] + p[1][k] + p[2][k]) / 3.0;
        }
        n[0] = ab[1] * ac[2] - ab[2] * ac[1];
        n[1] = ab[2] * ac[0] - ab[0] * ac[2];
        n[2] = ab[0] * ac[1] - ab[1] * ac[0];
        length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    } while (!(length > 1e-6));
    double lift = bound * rng_uniform(r, 0.8, 1.6);
    out->start = (skim_vec3){ (float)(c[0] + n[0] / length * lift),
                              (float)(c[1] + n[1] / length * lift),
                              (float)(c[2] + n[2] / length * lift) };
    double d[3];
    switch (rng_below(r, 5)) {
    case 0: case 1: case 2: { /* walking (320 u/s over 1..8 ticks), maybe falling */
        double a = rng_uniform(r, 0, 6.283185307179586), speed = rng_uniform(r, 5.0, 80.0);
        d[0] = cos(a) * speed, d[1] = sin(a) * speed, d[2] = -rng_uniform(r, 0.0, 20.0);
        break;
    }
    case 3: /* into the surface it started by */
        for (int k = 0; k < 3; ++k)
            d[k] = -n[k] / length * rng_uniform(r, 1.0, 64.0) + rng_uniform(r, -16, 16);
        break;
    default: { /* anywhere, near or far */
        rng_unit_vector(r, d);
        double l = rng_log_uniform(r, 0.01, 512.0);
        for (int k = 0; k < 3; ++k)
            d[k] *= l;
        break;
    }
    }
    out->delta = (skim_vec3){ (float)d[0], (float)d[1], (float)d[2] };
    out->cull = rng_below(r, 8) == 0;
}

/* What skim_sweep does before it calls the kernels: the candidates in the
   mover's unit-sphere space relative to the start, and delta in that space. */
static inline skim_status scene_gather(const skim_world *world, const scene_sweep *s,
                                       skim_candidates *out, float delta_unit[3])
{
    skim_ellipsoid_space space;
    skim_ellipsoid_space_init(&space, &s->shape);
    const float start[3] = { s->start.x, s->start.y, s->start.z };
    const float delta[3] = { s->delta.x, s->delta.y, s->delta.z };
    float box_min[3], box_max[3];
    skim_sweep_box(start, delta, space.bounding_radius, box_min, box_max);
    skim_mat3_mul_vec(space.to_unit, delta, delta_unit);
    return skim_gather_candidates(world, &space, start, box_min, box_max, ~(uint64_t)0, out);
}

#endif /* SKIM_SIMD_SCENE_H */
