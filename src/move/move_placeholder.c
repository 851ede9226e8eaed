/* TEMPORARY until collide-and-slide lands (issue 5). */
#include "../skim_internal.h"

skim_status skim_move(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 position,
                      skim_vec3 displacement, const skim_move_def *def, skim_move_result *out)
{
    (void)world; (void)shape; (void)position; (void)displacement; (void)def; (void)out;
    return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_move: not built yet");
}

skim_status skim_move_batch(const skim_world *world, size_t count, const skim_ellipsoid *shapes,
                            const skim_vec3 *positions, const skim_vec3 *displacements,
                            const skim_move_def *def, skim_move_result *results)
{
    (void)world; (void)count; (void)shapes; (void)positions; (void)displacements; (void)def;
    (void)results;
    return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_move_batch: not built yet");
}
