/* Far from the origin and at the smallest radii: a move or a sweep pushed
   at a wall either ends on the side it started from, or is refused with
   SKIM_ERROR_INVALID_ARGUMENT naming the precision limit
   (SKIM_POSITION_RESOLUTION_RADII). Never through the wall with SKIM_OK.
   Walls: the six faces of the cube [-W, W]^3 for W = 1e6, 1e8, 1e9, met
   from inside and outside,
   head on and at an angle, by spheres from 1024 down to SKIM_RADIUS_MIN. */
#include "move_test_util.h"

#include <float.h>


typedef struct cube {
    float positions[6 * 4 * 3];
    uint32_t indices[6 * 6];
    skim_world *world;
} cube;

/* Face k: axis k / 2, sign + for even k. */
static void cube_make(cube *c, float w)
{
    for (int face = 0; face < 6; ++face) {
        const int axis = face / 2, u = (axis + 1) % 3, v = (axis + 2) % 3;
        const float at = face % 2 == 0 ? w : -w;
        const float corner[4][2] = { { -w, -w }, { w, -w }, { w, w }, { -w, w } };
        for (int k = 0; k < 4; ++k) {
            float *p = &c->positions[3 * (4 * face + k)];
            p[axis] = at;
            p[u] = corner[k][0];
            p[v] = corner[k][1];
        }
        const uint32_t b = (uint32_t)(4 * face);
        const uint32_t quad[6] = { b, b + 1, b + 2, b, b + 2, b + 3 };
        memcpy(&c->indices[6 * face], quad, sizeof quad);
    }
    skim_mesh mesh = { c->positions, 24, c->indices, 12, NULL };
    cr_assert_eq(skim_world_create(&mesh, NULL, &c->world), SKIM_OK, "%s",
                 skim_last_error_message());
}

static float axis_of(skim_vec3 v, int axis)
{
    return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}

static void set_axis(skim_vec3 *v, int axis, float value)
{
    if (axis == 0)
        v->x = value;
    else if (axis == 1)
        v->y = value;
    else
        v->z = value;
}

/* Spacing of floats at |x|. */
static double spacing_at(float x)
{
    x = fabsf(x);
    return (double)nextafterf(x, INFINITY) - (double)x;
}

static const float radii[] = { 1024.0f, 64.0f, 16.0f, 1.0f, 1e-3f, SKIM_RADIUS_MIN };
static const float walls[] = { 1e6f, 1e8f, 1e9f };

/* A refusal must be the precision rule's, and must name its limit. */
static void expect_precision_refusal(skim_status status, const char *what)
{
    cr_assert_eq(status, SKIM_ERROR_INVALID_ARGUMENT, "%s: status %d", what, (int)status);
    const char *message = skim_last_error_message();
    cr_assert(strstr(message, "float cannot resolve") && strstr(message, "the limit for this radius"),
              "%s: refused for another reason: %s", what, message);
}

/* The mover's start for face `face` met from `outside` or inside: 1.5
   radii from the face, off its axis by a third of a radius sideways; the
   push: three radii and four float spacings into the face, head on or at
   45 degrees. The signed distance from the face on the start's side is
   what the test checks. */
typedef struct approach {
    skim_vec3 start, push;
    int axis;
    float face_at, side; /* side: +1 when the start lies at larger coordinates than the face */
} approach;

static approach approach_make(float w, int face, bool outside, bool oblique, float r)
{
    approach a;
    a.axis = face / 2;
    a.face_at = face % 2 == 0 ? w : -w;
    const float outward = face % 2 == 0 ? 1.0f : -1.0f;
    a.side = outside ? outward : -outward;
    const int u = (a.axis + 1) % 3;
    a.start = (skim_vec3){ 0, 0, 0 };
    set_axis(&a.start, u, 0.3f * r);
    set_axis(&a.start, a.axis, a.face_at + a.side * 1.5f * r);
    const float depth = 3.0f * r + 4.0f * (float)spacing_at(w);
    a.push = (skim_vec3){ 0, 0, 0 };
    set_axis(&a.push, a.axis, -a.side * depth);
    if (oblique)
        set_axis(&a.push, u, depth);
    return a;
}

static double signed_distance(const approach *a, skim_vec3 p)
{
    return ((double)axis_of(p, a->axis) - (double)a->face_at) * (double)a->side;
}

Test(move_large_world, moves_pushed_at_far_walls_end_on_their_side_or_are_refused)
{
    int accepted = 0, refused = 0;
    for (size_t wi = 0; wi < sizeof walls / sizeof walls[0]; ++wi) {
        cube c;
        cube_make(&c, walls[wi]);
        for (size_t ri = 0; ri < sizeof radii / sizeof radii[0]; ++ri) {
            const float r = radii[ri];
            const skim_ellipsoid shape = sphere(r);
            for (int face = 0; face < 6; ++face)
                for (int case_ = 0; case_ < 4; ++case_) {
                    approach a = approach_make(walls[wi], face, case_ & 1, case_ & 2, r);
                    skim_vec3 p = a.start;
                    /* Far enough from the origin for this radius: refused
                       from the first move. Otherwise pushed for frames. */
                    for (int frame = 0; frame < 8; ++frame) {
                        char what[160];
                        snprintf(what, sizeof what, "wall %g, radius %g, face %d, case %d, frame %d",
                                 (double)walls[wi], (double)r, face, case_, frame);
                        skim_move_result result;
                        skim_status status =
                            skim_move(c.world, &shape, p, a.push, NULL, &result);
                        if (status != SKIM_OK) {
                            expect_precision_refusal(status, what);
                            refused++;
                            break;
                        }
                        accepted++;
                        const double d = signed_distance(&a, result.position);
                        cr_assert(d >= 0.75 * r, "%s: the center ended %g radii from the wall "
                                  "(start side positive), at %.9g", what, d / r,
                                  (double)axis_of(result.position, a.axis));
                        p = result.position;
                    }
                }
            /* Whatever resolves must be accepted: the rule refuses only
               what float cannot resolve. */
            if (spacing_at(walls[wi] + 4.0f * r) <= 0.0625 * r) {
                skim_move_result result;
                approach a = approach_make(walls[wi], 0, false, false, r);
                cr_expect_eq(skim_move(c.world, &shape, a.start, a.push, NULL, &result), SKIM_OK,
                             "wall %g, radius %g: refused: %s", (double)walls[wi], (double)r,
                             skim_last_error_message());
            }
        }
        skim_world_destroy(c.world);
    }
    cr_expect(accepted > 0 && refused > 0, "accepted %d, refused %d", accepted, refused);
}

Test(move_large_world, sweeps_at_far_walls_stop_on_their_side_or_are_refused)
{
    for (size_t wi = 0; wi < sizeof walls / sizeof walls[0]; ++wi) {
        cube c;
        cube_make(&c, walls[wi]);
        for (size_t ri = 0; ri < sizeof radii / sizeof radii[0]; ++ri) {
            const float r = radii[ri];
            const skim_ellipsoid shape = sphere(r);
            for (int face = 0; face < 6; ++face)
                for (int case_ = 0; case_ < 4; ++case_) {
                    approach a = approach_make(walls[wi], face, case_ & 1, case_ & 2, r);
                    char what[160];
                    snprintf(what, sizeof what, "wall %g, radius %g, face %d, case %d",
                             (double)walls[wi], (double)r, face, case_);
                    skim_hit hit;
                    skim_status status = skim_sweep(c.world, &shape, a.start, a.push, NULL, &hit);
                    if (status != SKIM_OK) {
                        expect_precision_refusal(status, what);
                        continue;
                    }
                    cr_assert(hit.hit, "%s: the sweep went through the wall", what);
                    /* Where a caller puts the shape: start + t delta, in float. */
                    skim_vec3 end = { a.start.x + hit.t * a.push.x, a.start.y + hit.t * a.push.y,
                                      a.start.z + hit.t * a.push.z };
                    const double d = signed_distance(&a, end);
                    cr_assert(d >= 0.75 * r, "%s: the contact puts the center %g radii from the "
                              "wall (start side positive)", what, d / r);
                }
        }
        skim_world_destroy(c.world);
    }
}

/* The batch's check takes whole blocks of movers at once when they are
   clean: a far mover deep inside a batch of near ones is still named. */
Test(move_large_world, batch_names_a_mover_beyond_the_precision_limit)
{
    cube c;
    cube_make(&c, 1e9f);
    enum { COUNT = 1000, FAR = 700 };
    static skim_ellipsoid shapes[COUNT];
    static skim_vec3 positions[COUNT], displacements[COUNT];
    static skim_move_result results[COUNT];
    for (int i = 0; i < COUNT; ++i) {
        shapes[i] = sphere(RADIUS);
        positions[i] = (skim_vec3){ (float)i, 0, 0 };
        displacements[i] = (skim_vec3){ 1, 0, 0 };
    }
    cr_assert_eq(skim_move_batch(c.world, COUNT, shapes, positions, displacements, NULL, results),
                 SKIM_OK, "%s", skim_last_error_message());
    positions[FAR] = (skim_vec3){ 1e9f - 24.0f, 0, 0 };
    skim_status status = skim_move_batch(c.world, COUNT, shapes, positions, displacements, NULL,
                                         results);
    expect_precision_refusal(status, "batch");
    cr_expect(strstr(skim_last_error_message(), "positions[700]"), "%s",
              skim_last_error_message());
    /* A displacement that carries a near mover past the limit, too. */
    positions[FAR] = (skim_vec3){ 0, 0, 0 };
    displacements[FAR] = (skim_vec3){ 0, 0, 1e9f };
    status = skim_move_batch(c.world, COUNT, shapes, positions, displacements, NULL, results);
    expect_precision_refusal(status, "batch displacement");
    skim_world_destroy(c.world);
}
