/* Argument checks shared by every public entry point: bad input is an error
   with a clear message, never a crash and never silently wrong output. */
#include "base/skim_internal.h"

#include <math.h>

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
