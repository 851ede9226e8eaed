/* Argument checks shared by every public entry point: bad input is an error
   with a clear message, never a crash and never silently wrong output. */
#include "base/skim_internal.h"

#include <math.h>
#include <string.h>

bool skim_finite3(skim_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

bool skim_within_coordinate_range(skim_vec3 v)
{
    /* NaN fails every comparison, so this also rejects NaN and Inf. */
    return fabsf(v.x) <= SKIM_COORDINATE_MAX && fabsf(v.y) <= SKIM_COORDINATE_MAX &&
           fabsf(v.z) <= SKIM_COORDINATE_MAX;
}

/* Largest and smallest of three finite radii. Plain comparisons rather than
   fmaxf/fminf: without -ffinite-math-only those are library calls, and
   these run on every sweep and move. */
static float largest_radius(skim_vec3 r)
{
    float m = r.x > r.y ? r.x : r.y;
    return m > r.z ? m : r.z;
}

static float smallest_radius(skim_vec3 r)
{
    float m = r.x < r.y ? r.x : r.y;
    return m < r.z ? m : r.z;
}

skim_status skim_check_ellipsoid(const skim_ellipsoid *shape, const char *what)
{
    if (!shape)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s is NULL", what);
    const skim_vec3 r = shape->radii;
    if (!skim_finite3(r))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s radii are not finite", what);
    if (!(r.x > 0.0f && r.y > 0.0f && r.z > 0.0f))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s radii must be > 0 (got %.9g, %.9g, %.9g)", what, r.x, r.y, r.z);
    /* Below 1e-6 world coordinates of everyday size put the unit-sphere
       coordinates beyond what float resolves (the kernel then reports
       contacts in open air, or none through a floor); above 1e9 the sweep
       box and its squares overflow. */
    float largest = largest_radius(r);
    float smallest = smallest_radius(r);
    if (smallest < SKIM_RADIUS_MIN || largest > SKIM_RADIUS_MAX)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s radii must lie in [%g, %g] (got %.9g, %.9g, %.9g)", what,
                         (double)SKIM_RADIUS_MIN, (double)SKIM_RADIUS_MAX, r.x, r.y, r.z);
    /* The ratio of radii scales unit-sphere space unevenly: past 1:1000 the
       long axis' coordinates lose the precision the short axis needs. */
    if (largest > SKIM_RADIUS_RATIO_MAX * smallest)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s radii ratio %.9g exceeds %g", what, largest / smallest,
                         (double)SKIM_RADIUS_RATIO_MAX);
    const skim_quat q = shape->rotation;
    if (!(isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w)))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s rotation is not finite", what);
    double norm = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z +
                       (double)q.w * q.w);
    if (fabs(norm - 1.0) > 1e-3)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s rotation is not a unit quaternion (length %.17g, allowed 1 +- 1e-3)",
                         what, norm);
    return SKIM_OK;
}

skim_status skim_check_sweep_length(const skim_ellipsoid *shape, skim_vec3 delta, const char *what)
{
    double length = sqrt((double)delta.x * delta.x + (double)delta.y * delta.y +
                         (double)delta.z * delta.z);
    float smallest = smallest_radius(shape->radii);
    if (length > (double)SKIM_SWEEP_MAX_RADII * smallest)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: a displacement of %g is %g radii; at most %g radii resolve in float "
                         "(split the move)", what, length, length / smallest,
                         (double)SKIM_SWEEP_MAX_RADII);
    return SKIM_OK;
}

bool skim_all_zero(const void *def, size_t bytes)
{
    const unsigned char *byte = def;
    for (size_t i = 0; i < bytes; ++i)
        if (byte[i])
            return false;
    return true;
}

skim_status skim_check_query(const skim_query *query, const char *what)
{
    if (query && query->material_mask == 0 && query->defaults_mark != SKIM_QUERY_DEFAULTS_MARK)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: material_mask is 0 in a query that did not come from "
                         "skim_query_default() (zero-initialised?), so no triangle of materials "
                         "0..63 would collide; start from skim_query_default()",
                         what);
    return SKIM_OK;
}

float skim_smallest_radius(skim_vec3 radii)
{
    return smallest_radius(radii);
}

/* The precision rule. A move or sweep computes relative to its start (the
   gather re-bases the triangles there), so its own rounding is the
   kernel's, at most EPS = 64 u (P + L) + 1e-5 radii (README, Accuracy)
   with L below ~14,000 radii once far triangles are clipped
   (gather/gather_clip.c): under 0.06 of the smallest radius. The one rounding
   the shape's size does not scale is the last: the end written back as
   an absolute float coordinate moves by half the spacing of floats there
   on each axis, sqrt(3)/2 of it in all. With that spacing at most 1/8 of
   the smallest radius the two together stay under a quarter radius, well
   inside the shape (the push-out of the next move, SKIM_MOVE_PUSH_PER_MOVE
   = 1/8 radius, takes back what a skin does not cover), so the center can
   never be rounded across a surface it was stopped at. Past that the end
   can land on or beyond the surface and the next move starts behind it. */
float skim_position_limit(float smallest_radius)
{
    /* spacing(m) = 2^(floor(log2 m) - 23) <= f r  <=>  m < 2^(24 + floor(log2 (f r))). */
    const float fr = SKIM_POSITION_RESOLUTION_RADII * smallest_radius;
    uint32_t bits;
    memcpy(&bits, &fr, sizeof bits);
    bits = (bits & 0x7f800000u) + (24u << 23);
    float limit;
    memcpy(&limit, &bits, sizeof limit);
    return limit;
}

bool skim_position_resolves(float smallest_radius, skim_vec3 start, skim_vec3 delta)
{
    const float limit = skim_position_limit(smallest_radius);
    const skim_vec3 end = { start.x + delta.x, start.y + delta.y, start.z + delta.z };
    return fabsf(start.x) < limit && fabsf(start.y) < limit && fabsf(start.z) < limit &&
           fabsf(end.x) < limit && fabsf(end.y) < limit && fabsf(end.z) < limit;
}

skim_status skim_fail_position_resolution(float smallest_radius, skim_vec3 start, skim_vec3 delta,
                                          const char *what)
{
    const float limit = skim_position_limit(smallest_radius);
    const skim_vec3 end = { start.x + delta.x, start.y + delta.y, start.z + delta.z };
    float m = fmaxf(fmaxf(fabsf(start.x), fabsf(start.y)), fabsf(start.z));
    m = fmaxf(m, fmaxf(fmaxf(fabsf(end.x), fabsf(end.y)), fabsf(end.z)));
    const float spacing = nextafterf(m, INFINITY) - m;
    return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                     "%s: a coordinate of %g (start or end), where floats are %g apart: more "
                     "than %g of the shape's smallest radius %g, so float cannot resolve its "
                     "contacts (the limit for this radius is |coordinate| < %g; rebase the "
                     "origin per region)",
                     what, (double)m, (double)spacing, (double)SKIM_POSITION_RESOLUTION_RADII,
                     (double)smallest_radius, (double)limit);
}
