/* skim_drop_to_floor: a shape put down on the walkable floor below it.

   The first contact of a sweep along -up decides (a floor within the slope
   limit, or nothing); the resting place is then the gravity pass of
   skim_move (Nettle's second collide-and-slide, which never slides on a
   floor) by the same drop, so the shape ends a skin above the floor
   exactly where a falling mover would. */
#include "query/query_internal.h"
#include "move/move_internal.h"

#include <math.h>
#include <string.h>

static void left_in_place(skim_vec3 position, skim_move_result *out)
{
    memset(out, 0, sizeof *out);
    out->position = position;
    out->floor_triangle = UINT32_MAX;
    out->floor_body = SKIM_STATIC;
}

skim_status skim_drop_to_floor(const skim_world *world, const skim_ellipsoid *shape,
                               skim_vec3 position, float max_drop, const skim_move_def *def,
                               skim_move_result *out)
{
    const char *who = "skim_drop_to_floor";
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: out is NULL", who);
    memset(out, 0, sizeof *out);
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    if (!(max_drop >= 0.0f && max_drop <= SKIM_COORDINATE_MAX))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: max_drop must be finite, >= 0 and at most %g world units (got %g)",
                         who, (double)SKIM_COORDINATE_MAX, (double)max_drop);
    skim_move_def defaults = skim_move_def_default();
    if (!def)
        def = &defaults;
    skim_status status = skim_move_check_def(def, who);
    if (status != SKIM_OK)
        return status;
    const skim_vec3 drop = { -def->up.x * max_drop, -def->up.y * max_drop, -def->up.z * max_drop };
    status = skim_move_check_mover(shape, position, drop, who, 0, false);
    if (status != SKIM_OK)
        return status;
    status = skim_check_sweep_length(shape, drop, who);
    if (status != SKIM_OK)
        return status;
    left_in_place(position, out);
    if (max_drop == 0.0f)
        return SKIM_OK;

    skim_hit hit;
    status = skim_sweep(world, shape, position, drop, &def->query, &hit);
    if (status != SKIM_OK) {
        left_in_place(position, out);
        return status;
    }
    /* Nothing below, a start touching or inside geometry, or a steep first
       contact: the shape stays where it is. */
    const double floor_cos = cos((double)def->max_slope_degrees * (3.14159265358979323846 / 180.0));
    const double facing_up = (double)hit.normal.x * def->up.x + (double)hit.normal.y * def->up.y +
                             (double)hit.normal.z * def->up.z;
    if (!hit.hit || hit.t == 0.0f || facing_up < floor_cos)
        return SKIM_OK;

    skim_move_def fall = *def;
    fall.gravity = drop;
    fall.step_height = 0.0f;
    fall.snap_distance = 0.0f;
    fall.material_friction = NULL;
    fall.material_friction_count = 0;
    skim_move_result rest;
    status = skim_move(world, shape, position, (skim_vec3){ 0.0f, 0.0f, 0.0f }, &fall, &rest);
    if (status != SKIM_OK) {
        left_in_place(position, out);
        return status;
    }
    if (rest.touched & SKIM_TOUCH_FLOOR)
        *out = rest;
    return SKIM_OK;
}
