/* fuzz_sweep_move: the checks of one answer, a sweep's hit or a move's
   result from either world, against the API's promises in double
   precision (the list: fuzz_sweep_move.c).

   Tolerance of the geometric checks, in radii (unit-sphere space): the
   accuracy the project states for its kernel (tests/foundation/
   test_sweep_property.c), EPS = 64 u (P + L) + 1e-5 with u = 2^-24,
   P = max(1, |delta|) the path and L = max(1, max |vertex|) the
   triangles' distance from the start, both in unit space. Linear in both:
   the quadratics are written with Lagrange's identity, so nothing cancels
   but the grazing itself. 64 is the project's headroom for the transform
   and the square root. History: the kernel's first edge quadratic, taken
   from a far vertex, rounded by u L^2, and this target's first finding
   was a 0.25-radius needle 180 units off by 0.0128 radii = 0.86 u L^2;
   its vertex discriminant rounded by u P^2, and one such case was a long
   sweep whose edge discriminant cancelled to noise (a miss). The stated
   EPS was tightened with each fix to the form above, which is what is
   checked here. For a move, P is the whole move's unit-space path (displacement,
   gravity, twice the step, the snap) and L covers the vertices seen from
   the start and from the end, since each sweep of the move starts
   somewhere on that path. SKIM_FUZZ_STATS=1 prints the worst error / EPS
   seen at exit. */
#include "fuzz_sweep_move.h"

#define SAMPLES 32

/* Worst (error / tolerance) seen, printed at exit with SKIM_FUZZ_STATS=1:
   how close the library comes to the tolerance. */
static double worst_ratio;
void print_stats(void)
{
    fprintf(stderr, "fuzz_sweep_move: worst overlap / tolerance = %.4f\n", worst_ratio);
}

static void note_ratio(double error, double tol)
{
    if (error > 0 && error / tol > worst_ratio)
        worst_ratio = error / tol;
}

/* Triangle t is kept by the world and let through by the material mask. */
static bool may_collide(const scene *s, uint32_t t)
{
    return !s->degenerate[t] &&
           (s->materials[t] >= 64 || (s->query.material_mask >> s->materials[t] & 1));
}

/* Triangle t takes part in collisions with this query from this start:
   1 yes, 0 no, -1 undecidable within tol (back-face culling near the plane). */
static int collides(const scene *s, const dspace *space, dvec3 start, uint32_t t, double tol)
{
    if (!may_collide(s, t))
        return 0;
    if (!s->query.cull_back_faces)
        return 1;
    const float *p = s->positions + 9 * t;
    dvec3 a = dmul(space->to_unit, dsub(d3(p[0], p[1], p[2]), start));
    dvec3 b = dmul(space->to_unit, dsub(d3(p[3], p[4], p[5]), start));
    dvec3 c = dmul(space->to_unit, dsub(d3(p[6], p[7], p[8]), start));
    dvec3 n = dcross(dsub(b, a), dsub(c, a));
    double length = dlength(n);
    if (!(length > 0))
        return -1;
    double side = -ddot(n, a) / length; /* signed distance of the start (origin) */
    if (side > tol)
        return 1;
    return side < -tol ? 0 : -1;
}

static double triangle_distance(const scene *s, const dspace *space, dvec3 center, uint32_t t)
{
    const float *p = s->positions + 9 * t;
    return unit_distance(space, center, d3(p[0], p[1], p[2]), d3(p[3], p[4], p[5]),
                         d3(p[6], p[7], p[8]));
}

/* The stated kernel accuracy (see the top): EPS = 64 u (P + L) + 1e-5,
   P = max(1, path_unit), L = max(1, every vertex's unit-space distance
   from each origin). */
double tolerance_of(const scene *s, const dspace *space, const dvec3 *origins, int count,
                    double path_unit)
{
    double p = fmax(1.0, path_unit), l = 1.0;
    for (uint32_t i = 0; i < 3 * s->triangle_count; ++i) {
        dvec3 v = d3(s->positions[3 * i], s->positions[3 * i + 1], s->positions[3 * i + 2]);
        for (int k = 0; k < count; ++k)
            l = fmax(l, dlength(dmul(space->to_unit, dsub(v, origins[k]))));
    }
    return 64.0 / 16777216.0 * (p + l) + 1e-5;
}

static double smallest_radius(const skim_ellipsoid *shape)
{
    return fmin(shape->radii.x, fmin(shape->radii.y, shape->radii.z));
}

/* Known cases (radii_below_the_minimum_are_refused and its
   neighbours): radii far from the world's scale give wrong or non-finite
   answers with SKIM_OK (wild mode: radii ~1e-38 end a move at NaN). Until
   a radius range is enforced, answers for such shapes are not checked. */
#if RADIUS_RANGE_KNOWN
static bool outside_known_radius_range(const skim_ellipsoid *shape)
{
    double lo = fmin(shape->radii.x, fmin(shape->radii.y, shape->radii.z));
    double hi = fmax(shape->radii.x, fmax(shape->radii.y, shape->radii.z));
    return lo < 1e-6 || hi > 1e12;
}
#endif

#if FAR_TRIANGLES_KNOWN
static bool reaches_far(const scene *s, const skim_ellipsoid *shape, skim_vec3 from)
{
    double r_min = fmin(shape->radii.x, fmin(shape->radii.y, shape->radii.z));
    for (uint32_t i = 0; i < 3 * s->triangle_count; ++i) {
        double d[3] = { (double)s->positions[3 * i] - from.x, (double)s->positions[3 * i + 1] - from.y,
                        (double)s->positions[3 * i + 2] - from.z };
        if (!(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) <= 1e9 * r_min))
            return true;
    }
    return false;
}
#endif

/* Whether a switched-on known finding (fuzz_sweep_move.h) covers a query
   of shape from `from` in scene s: then its answer is not checked. */
static bool known_finding(const scene *s, const skim_ellipsoid *shape, skim_vec3 from)
{
    (void)s;
    (void)shape;
    (void)from;
#if RADIUS_RANGE_KNOWN
    if (outside_known_radius_range(shape))
        return true;
#endif
#if HUGE_VERTICES_KNOWN
    if (s->huge_vertices)
        return true;
#endif
#if FAR_TRIANGLES_KNOWN
    if (reaches_far(s, shape, from))
        return true;
#endif
    return false;
}

/* Every check of one sweep's answer (from either world). */
void check_sweep_hit(const scene *s, const skim_ellipsoid *shape, skim_vec3 start, skim_vec3 delta,
                     skim_hit hit)
{
    if (known_finding(s, shape, start))
        return;
    if (hit.hit) {
        FUZZ_CHECK(hit.t >= 0.0f && hit.t <= 1.0f, "t = %.9g", (double)hit.t);
        FUZZ_CHECK(finite_vec(hit.point) && finite_vec(hit.normal), "non-finite point or normal");
        FUZZ_CHECK(fabs(vec_length(hit.normal) - 1.0) < 1e-4, "|normal| = %.9g", vec_length(hit.normal));
        FUZZ_CHECK(hit.triangle < s->triangle_count, "triangle %u of %u", hit.triangle, s->triangle_count);
    }
    if (s->wild)
        return;

    const dspace space = dspace_of(shape);
    const dvec3 p0 = dv(start), d = dv(delta);
    const double tol = tolerance_of(s, &space, &p0, 1, dlength(dmul(space.to_unit, d)));

    int verdict[MAX_TRIANGLES];
    double start_gap = INFINITY; /* smallest distance at the start over collidable triangles */
    bool undecided_overlap = false;
    for (uint32_t t = 0; t < s->triangle_count; ++t) {
        verdict[t] = collides(s, &space, p0, t, tol);
        double dist = triangle_distance(s, &space, p0, t);
        if (verdict[t] == 1)
            start_gap = fmin(start_gap, dist);
        else if (verdict[t] == -1 && dist < 1 + tol)
            undecided_overlap = true;
    }
    if (hit.hit) {
        uint32_t t = hit.triangle;
        FUZZ_CHECK(verdict[t] != 0, "hit triangle %u cannot collide (degenerate %d, material %u, "
                   "mask %#llx, cull %d)", t, s->degenerate[t], s->materials[t],
                   (unsigned long long)s->query.material_mask, s->query.cull_back_faces);
        /* The point lies on the triangle. Not at t = 0: a shape that starts
           embedded has no single contact point, and the property suite
           does not check points there either; the fuzzer found one
           0.0026 radii off a 0.02-wide sliver whose line holds the centre
           (docs/hardening.md, observations). */
        if (hit.t > 0.0f) {
            const float *p = s->positions + 9 * t;
            dvec3 a = d3(p[0], p[1], p[2]), b = d3(p[3], p[4], p[5]), c = d3(p[6], p[7], p[8]);
            dvec3 on = closest_on_triangle(dv(hit.point), a, b, c);
            double off = dlength(dmul(space.to_unit, dsub(dv(hit.point), on)));
            /* The point comes from the triangle's plane and edges in float;
               on a sliver the plane's normal is the cross product of two
               nearly parallel edges, whose direction is known only to
               u / sin(smallest angle), so the point's error grows with the
               triangle's conditioning kappa = (longest edge)^2 / (2 area)
               (about 1 / sin of its smallest angle), in unit space. The
               fuzzer found a 96 x 0.18 sliver's point 1.3 EPS off. */
            dvec3 ua = dmul(space.to_unit, a), ub = dmul(space.to_unit, b), uc = dmul(space.to_unit, c);
            double longest = fmax(dlength(dsub(ub, ua)), fmax(dlength(dsub(uc, ub)), dlength(dsub(ua, uc))));
            double area2 = dlength(dcross(dsub(ub, ua), dsub(uc, ua)));
            double kappa = area2 > 0 ? fmax(1.0, longest * longest / area2) : 1e30;
            double point_tol = tol * kappa;
            note_ratio(off, point_tol);
            FUZZ_CHECK(off <= point_tol, "hit point %.4g radii off triangle %u (tol %.3g, kappa %.3g)", off, t,
                       point_tol, kappa);
        }
    }
    if (start_gap < 1 - tol && !undecided_overlap) {
        /* Overlapping at the start: touching at the start is t = 0. */
        FUZZ_CHECK(hit.hit && hit.t == 0.0f, "starts %.6g radii into a triangle but hit %d t %.9g",
                   1 - start_gap, hit.hit, (double)hit.t);
        return;
    }
    if (start_gap < 1 + tol || undecided_overlap)
        return; /* touching within rounding: either answer is right */
    if (hit.hit) {
        dvec3 center = dadd(p0, dscale(d, hit.t));
        double contact = triangle_distance(s, &space, center, hit.triangle);
        note_ratio(fabs(contact - 1), tol);
        FUZZ_CHECK(fabs(contact - 1) <= tol, "at t %.9g the hit triangle %u is %.9g radii away (tol %.3g)",
                   (double)hit.t, hit.triangle, contact, tol);
        /* Normal: from the contact toward the center, i.e. along
           M^-T M^-1 (center - point) (the shape's surface normal there). */
        dvec3 u = dmul(space.to_unit, dsub(center, dv(hit.point)));
        double to_unit_transposed[3][3]; /* M^-T */
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                to_unit_transposed[i][j] = space.to_unit[j][i];
        dvec3 expected = dmul(to_unit_transposed, u);
        double el = dlength(expected);
        if (el > 0) {
            double cosine = ddot(expected, dv(hit.normal)) / el;
            FUZZ_CHECK(cosine > 1 - 1e-3,
                       "normal off the contact direction: cos %.9g; start (%.9g %.9g %.9g) delta "
                       "(%.9g %.9g %.9g) t %.9g point (%.9g %.9g %.9g) normal (%.9g %.9g %.9g) tri %u",
                       cosine, (double)start.x, (double)start.y, (double)start.z, (double)delta.x,
                       (double)delta.y, (double)delta.z, (double)hit.t, (double)hit.point.x,
                       (double)hit.point.y, (double)hit.point.z, (double)hit.normal.x,
                       (double)hit.normal.y, (double)hit.normal.z, hit.triangle);
        }
        for (uint32_t t = 0; t < s->triangle_count; ++t)
            if (verdict[t] == 1) {
                double dist = triangle_distance(s, &space, center, t);
                note_ratio(1 - dist, tol);
                FUZZ_CHECK(dist >= 1 - tol, "not the first contact: triangle %u is %.6g radii deep at t %.9g",
                           t, 1 - dist, (double)hit.t);
            }
    } else {
        for (int k = 0; k <= SAMPLES; ++k) {
            dvec3 center = dadd(p0, dscale(d, (double)k / SAMPLES));
            for (uint32_t t = 0; t < s->triangle_count; ++t)
                if (verdict[t] == 1) {
                    double dist = triangle_distance(s, &space, center, t);
                    note_ratio(1 - dist, tol);
                    FUZZ_CHECK(dist >= 1 - tol, "missed: triangle %u is %.6g radii deep at t %.4f",
                               t, 1 - dist, (double)k / SAMPLES);
                }
        }
    }
}

#if !SLIDE_BOUND_IN_UNIT_SPACE
/* The farthest a move may take the center: the slide (each slide clamped
   to what is left in the world since a761e41), a step up and back down,
   the gravity pass, the snap probe, skins, and the push-out a move may do
   when a slide ends within rounding of a surface: SKIM_MOVE_PUSH_PER_MOVE
   (0.125 radii, src/move/move_internal.h, part of the move's own reach).
   The fuzzer found a sphere moving 0.037 radii past |displacement| + skins
   with a start clear of everything, inside that allowance. */
static double move_reach(const scene *s, const skim_ellipsoid *shape, skim_vec3 displacement)
{
    const skim_move_def *def = &s->def;
    double r_max = fmax(shape->radii.x, fmax(shape->radii.y, shape->radii.z));
    return vec_length(displacement) + vec_length(def->gravity) + 2.0 * def->step_height +
           def->snap_distance + (0.125 + 4.0 * def->skin_width + 1e-3) * r_max;
}
#endif

/* Every invariant of one move's result (the world's accelerator aside). */
void check_move_result(const scene *s, const skim_ellipsoid *shape, skim_vec3 position,
                       skim_vec3 displacement, const skim_move_result *out)
{
    if (known_finding(s, shape, position))
        return;
#if HUGE_DEF_KNOWN
    /* Finding gravity_beyond_the_coordinate_limit_is_refused: gravity, step_height
       and snap_distance are only required to be finite, and beyond 1e18
       the move leaves float (wild mode found SKIM_OK with an infinite end
       for gravity -1.7e38 and step 1.7e38). Not checked until fixed. */
    if (vec_length(s->def.gravity) > 1e18 || s->def.step_height > 1e18f || s->def.snap_distance > 1e18f)
        return;
#endif
    FUZZ_CHECK(finite_vec(out->position), "end position not finite");
    FUZZ_CHECK((out->touched & ~7u) == 0, "touched %#x", out->touched);
    FUZZ_CHECK(out->iterations >= 0 && out->iterations <= s->def.max_iterations + ITERATIONS_SLACK,
               "iterations %d of %d", out->iterations, s->def.max_iterations);
    if (out->touched & SKIM_TOUCH_FLOOR) {
        FUZZ_CHECK(out->floor_triangle < s->triangle_count, "floor triangle %u", out->floor_triangle);
        FUZZ_CHECK(finite_vec(out->floor_normal) && fabs(vec_length(out->floor_normal) - 1) < 1e-4,
                   "floor normal length %.9g", vec_length(out->floor_normal));
    } else {
        FUZZ_CHECK(out->floor_triangle == UINT32_MAX, "no floor but floor_triangle %u", out->floor_triangle);
    }
    if (s->wild)
        return;
    if (out->touched & SKIM_TOUCH_FLOOR) {
        dvec3 up = dv(s->def.up);
        up = dscale(up, 1 / dlength(up));
        double cosine = ddot(dv(out->floor_normal), up);
        double limit = cos(s->def.max_slope_degrees * M_PI / 180.0);
        FUZZ_CHECK(cosine >= limit - 1e-4, "floor normal %.6g degrees from up, limit %g",
                   acos(fmin(1, cosine)) * 180 / M_PI, (double)s->def.max_slope_degrees);
    }
    const dspace space = dspace_of(shape);
    const dvec3 origins[2] = { dv(position), dv(out->position) };
    const double path = dlength(dmul(space.to_unit, dv(displacement))) +
                        dlength(dmul(space.to_unit, dv(s->def.gravity))) +
                        (2.0 * s->def.step_height + s->def.snap_distance) / smallest_radius(shape);
    const double tol = tolerance_of(s, &space, origins, 2, path);
    const double r_max = fmax(shape->radii.x, fmax(shape->radii.y, shape->radii.z));
    /* Clear at the start: no triangle that may collide (whatever culling
       decides) is within 1 + tol. Only then do the bounds below hold: a
       start that overlaps is pushed out, by up to its depth. */
    double start_gap = INFINITY;
    for (uint32_t t = 0; t < s->triangle_count; ++t)
        if (may_collide(s, t))
            start_gap = fmin(start_gap, triangle_distance(s, &space, dv(position), t));
    if (start_gap < 1 + tol)
        return;
    /* The move's own promise (move.c, "the one gather: a box no pass can
       leave"): per axis, the center stays within reach + vertical |up|
       of the start, reach = largest radius * (unit-space |displacement| +
       |gravity| + SKIM_MOVE_PUSH_PER_MOVE (0.125) + 4 skins), vertical =
       2 step_height + snap_distance, plus its rounding margins. Leaving it
       means the move met triangles it never gathered. */
    {
        const dvec3 up = dscale(dv(s->def.up), 1.0 / dlength(dv(s->def.up)));
        double unit_reach = dlength(dmul(space.to_unit, dv(displacement))) +
                            dlength(dmul(space.to_unit, dv(s->def.gravity))) + 0.125 +
                            4.0 * s->def.skin_width;
        double reach = r_max * unit_reach;
        double vertical = 2.0 * s->def.step_height + s->def.snap_distance;
        const double start[3] = { position.x, position.y, position.z };
        const double end[3] = { out->position.x, out->position.y, out->position.z };
        const double up_axis[3] = { up.x, up.y, up.z };
        for (int axis = 0; axis < 3; ++axis) {
            double half = reach + vertical * fabs(up_axis[axis]);
            double allowed = half + 1e-4 * (fabs(start[axis]) + half + r_max) + 1e-3 * reach + tol * r_max;
            double moved = fabs(end[axis] - start[axis]);
            FUZZ_CHECK(moved <= allowed, "axis %d: moved %.9g, the move's gather box allows %.9g",
                       axis, moved, allowed);
        }
    }
#if !SLIDE_BOUND_IN_UNIT_SPACE
    /* What users expect: no farther than asked (plus steps, gravity, snap
       and skins). */
    double moved = dlength(dsub(dv(out->position), dv(position)));
    double reach = move_reach(s, shape, displacement);
    FUZZ_CHECK(moved <= reach + tol * r_max, "moved %.9g, at most %.9g expected", moved, reach);
#endif

    /* No-overlap: clear at the start means clear at the end. The material
       mask applies to moves too; back-face culling is decided per sweep
       from where each sweep starts, so a mover may legitimately pass
       through a culled back face, and with culling on the check is left
       out. */
    if (s->query.cull_back_faces)
        return;
#if SKIN_BELOW_ROUNDING_KNOWN
    /* One class (a_small_skin_keeps_an_elongated_mover_out_of_a_touched_triangle):
       a skin smaller than the kernel's rounding at this magnitude lets a
       touched triangle be excluded and passed through. Until fixed, the
       no-overlap check needs a skin above the tolerance. */
    if (s->def.skin_width <= tol)
        return;
#endif
    for (uint32_t t = 0; t < s->triangle_count; ++t)
        if (may_collide(s, t)) {
            double dist = triangle_distance(s, &space, dv(out->position), t);
            note_ratio(1 - dist, tol);
            FUZZ_CHECK(dist >= 1 - tol,
                       "move ends %.6g radii inside triangle %u (tol %.3g): from (%.9g %.9g %.9g) by "
                       "(%.9g %.9g %.9g) to (%.9g %.9g %.9g)",
                       1 - dist, t, tol, (double)position.x, (double)position.y, (double)position.z,
                       (double)displacement.x, (double)displacement.y, (double)displacement.z,
                       (double)out->position.x, (double)out->position.y, (double)out->position.z);
        }
}
