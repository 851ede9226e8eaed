/* Argument checks shared by every public entry point: bad input is an error
   with a clear message, never a crash and never silently wrong output. */
#include "skim_internal.h"

#include <math.h>

bool skim_finite3(skim_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
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
                         "%s radii must be > 0 (got %g, %g, %g)", what, r.x, r.y, r.z);
    const skim_quat q = shape->rotation;
    if (!(isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w)))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s rotation is not finite", what);
    double norm = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z +
                       (double)q.w * q.w);
    if (fabs(norm - 1.0) > 1e-3)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s rotation is not a unit quaternion (length %g, allowed 1 +- 1e-3)",
                         what, norm);
    /* The ratio of radii bounds how badly the unit-sphere transform can
       condition the geometry; beyond 1e6 float precision is gone. */
    float largest = fmaxf(r.x, fmaxf(r.y, r.z));
    float smallest = fminf(r.x, fminf(r.y, r.z));
    if (largest / smallest > 1e6f)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s radii ratio %g exceeds 1e6", what, largest / smallest);
    return SKIM_OK;
}
