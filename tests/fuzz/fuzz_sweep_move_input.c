/* fuzz_sweep_move: reading the input (its layout: fuzz_sweep_move.c) into
   coordinates, shapes, vectors and the move def, building the two worlds
   from the decoded triangles, and printing a decoded scene or query
   (SKIM_FUZZ_VERBOSE=1, for triage). */
#include "fuzz_sweep_move.h"

void print_scene(const scene *s)
{
    fprintf(stderr, "scene: wild %d cull %d mask %#llx scale %g, %u triangles\n", s->wild, s->cull,
            (unsigned long long)s->query.material_mask, s->scale, s->triangle_count);
    for (uint32_t t = 0; t < s->triangle_count; ++t) {
        const float *p = s->positions + 9 * t;
        fprintf(stderr, "  tri %u: (%.9g %.9g %.9g) (%.9g %.9g %.9g) (%.9g %.9g %.9g) material %u%s\n", t,
                (double)p[0], (double)p[1], (double)p[2], (double)p[3], (double)p[4], (double)p[5],
                (double)p[6], (double)p[7], (double)p[8], s->materials[t],
                s->degenerate[t] ? " degenerate" : "");
    }
    const skim_move_def *d = &s->def;
    fprintf(stderr, "  def: up (%.9g %.9g %.9g) iterations %d skin %.9g slope %.9g step %.9g snap %.9g "
            "gravity (%.9g %.9g %.9g) friction %u\n", (double)d->up.x, (double)d->up.y, (double)d->up.z,
            d->max_iterations, (double)d->skin_width, (double)d->max_slope_degrees,
            (double)d->step_height, (double)d->snap_distance, (double)d->gravity.x,
            (double)d->gravity.y, (double)d->gravity.z, d->material_friction_count);
    for (uint32_t m = 0; m < d->material_friction_count; ++m)
        fprintf(stderr, "  friction[%u] = %.9g\n", m, (double)d->material_friction[m]);
}

void print_query(const char *op, const skim_ellipsoid *e, skim_vec3 p, skim_vec3 d)
{
    fprintf(stderr, "%s: radii (%.9g %.9g %.9g) rotation (%.9g %.9g %.9g %.9g) from (%.9g %.9g %.9g) by "
            "(%.9g %.9g %.9g)\n", op, (double)e->radii.x, (double)e->radii.y, (double)e->radii.z,
            (double)e->rotation.x, (double)e->rotation.y, (double)e->rotation.z, (double)e->rotation.w,
            (double)p.x, (double)p.y, (double)p.z, (double)d.x, (double)d.y, (double)d.z);
}

/* The world's own test (world.c): a triangle whose float normal is zero
   (or NaN) is dropped at build; one whose squared length overflows to
   infinity is kept. Same float operations, no contraction
   (-ffp-contract=off), so the same verdict. */
bool float_degenerate(const float *a, const float *b, const float *c)
{
    float ab[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    float ac[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
    float n[3] = { ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                   ab[0] * ac[1] - ab[1] * ac[0] };
    float length_sq = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    return !(length_sq > 0.0f);
}

float coordinate(fuzz_reader *r, const scene *s, double lo, double hi)
{
    if (s->wild)
        return fuzz_raw_float(r);
    return (float)(fuzz_range(r, lo, hi) * s->scale);
}

skim_ellipsoid read_shape(fuzz_reader *r, const scene *s)
{
    skim_ellipsoid shape;
    if (s->wild) {
        shape.radii = (skim_vec3){ fuzz_raw_float(r), fuzz_raw_float(r), fuzz_raw_float(r) };
        shape.rotation = (skim_quat){ fuzz_raw_float(r), fuzz_raw_float(r), fuzz_raw_float(r),
                                      fuzz_raw_float(r) };
        return shape;
    }
    uint8_t kind = fuzz_u8(r);
    float rx = coordinate(r, s, 0.25, 16.0);
    if (kind & 1) /* a sphere */
        shape.radii = (skim_vec3){ rx, rx, rx };
    else
        shape.radii = (skim_vec3){ rx, coordinate(r, s, 0.25, 16.0), coordinate(r, s, 0.25, 16.0) };
    shape.rotation = (skim_quat){ 0, 0, 0, 1 };
    if (s->rotated) {
        double q[4], n = 0;
        for (int i = 0; i < 4; ++i) {
            q[i] = (double)(int8_t)fuzz_u8(r);
            n += q[i] * q[i];
        }
        if (n > 0) {
            n = sqrt(n);
            shape.rotation = (skim_quat){ (float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n),
                                          (float)(q[3] / n) };
        }
    }
    return shape;
}

skim_vec3 read_vec(fuzz_reader *r, const scene *s, double lo, double hi)
{
    skim_vec3 v;
    v.x = coordinate(r, s, lo, hi);
    v.y = coordinate(r, s, lo, hi);
    v.z = coordinate(r, s, lo, hi);
    return v;
}

void read_def(fuzz_reader *r, scene *s)
{
    skim_move_def def = skim_move_def_default();
    uint8_t up = fuzz_u8(r);
    if (s->wild) {
        def.up = (skim_vec3){ fuzz_raw_float(r), fuzz_raw_float(r), fuzz_raw_float(r) };
        def.max_iterations = (int)(int8_t)fuzz_u8(r);
        def.skin_width = fuzz_raw_float(r);
        def.max_slope_degrees = fuzz_raw_float(r);
        def.step_height = fuzz_raw_float(r);
        def.snap_distance = fuzz_raw_float(r);
        def.gravity = (skim_vec3){ fuzz_raw_float(r), fuzz_raw_float(r), fuzz_raw_float(r) };
        for (int i = 0; i < 4; ++i)
            s->friction[i] = fuzz_raw_float(r);
    } else {
        if (up < 6 * 40) { /* mostly an axis, either way */
            float axis[3] = { 0, 0, 0 };
            axis[(up / 40) % 3] = (up / 40) >= 3 ? -1.0f : 1.0f;
            def.up = (skim_vec3){ axis[0], axis[1], axis[2] };
        } else {
            double u[3] = { (int8_t)fuzz_u8(r), (int8_t)fuzz_u8(r), (int8_t)fuzz_u8(r) };
            double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            if (n > 0)
                def.up = (skim_vec3){ (float)(u[0] / n), (float)(u[1] / n), (float)(u[2] / n) };
        }
        def.max_iterations = 1 + fuzz_u8(r) % 8;
        def.skin_width = (float)((AVOID_ZERO_SKIN + fuzz_u8(r) % (256 - AVOID_ZERO_SKIN)) / 255.0 * 0.25);
        def.max_slope_degrees = (float)(1 + fuzz_u8(r) % 88);
        if (s->rich_def) {
            def.step_height = (float)(fuzz_range(r, 0, 16) * s->scale);
            def.snap_distance = (float)(fuzz_range(r, 0, 16) * s->scale);
            def.gravity = read_vec(r, s, -32, 32);
            for (int i = 0; i < 4; ++i)
                s->friction[i] = (float)(fuzz_u8(r) / 255.0);
        }
    }
    if (s->rich_def || s->wild) {
        def.material_friction = s->friction;
        def.material_friction_count = 1 + fuzz_u8(r) % 4;
    }
    def.query = s->query;
    s->def = def;
}

/* Builds both worlds; false when the (wild) triangles are rejected. */
bool build_worlds(scene *s)
{
    uint32_t indices[MAX_TRIANGLES * 3];
    for (uint32_t i = 0; i < 3 * s->triangle_count; ++i)
        indices[i] = i;
    skim_mesh mesh = { s->positions, 3 * s->triangle_count, indices, s->triangle_count, s->materials };
    skim_world_def def = skim_world_def_default();
    skim_status status = skim_world_create(&mesh, &def, &s->bvh);
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    skim_status brute = skim_world_create(&mesh, &def, &s->brute);
    FUZZ_CHECK(status == brute, "BVH world %d, brute-force world %d", (int)status, (int)brute);
    if (status != SKIM_OK) {
        FUZZ_CHECK(s->wild && status == SKIM_ERROR_INVALID_ARGUMENT,
                   "skim_world_create failed on a valid mesh: %s", skim_status_string(status));
        FUZZ_CHECK(!s->bvh && !s->brute, "a failed create left *out set");
        return false;
    }
    return true;
}
