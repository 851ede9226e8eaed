/* The checks skim_move and skim_move_batch make before any move: the
   def's fields (units and ranges as skim.h documents them), each mover's
   position and displacement, and its shape. Every bad input is an
   SKIM_ERROR_INVALID_ARGUMENT naming the field (and, in a batch, the
   mover's index), never a crash or a silently clamped value. A batch
   checks its movers a block at a time, most blocks in one vectorised pass
   (skim_move_check_movers). */
#include "move/move_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

skim_status skim_move_check_def(const skim_move_def *def, const char *who)
{
    if (skim_all_zero(def, sizeof *def))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: the def is all zeros (zero-initialised); start from "
                         "skim_move_def_default()", who);
    const skim_vec3 up = def->up;
    if (!skim_finite3(up))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: def->up is not finite", who);
    double up_length = sqrt((double)up.x * up.x + (double)up.y * up.y + (double)up.z * up.z);
    if (fabs(up_length - 1.0) > 1e-3)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->up must be a unit vector (length %.17g)", who, up_length);
    if (def->max_iterations < 1 || def->max_iterations > SKIM_MOVE_MAX_ITERATIONS)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->max_iterations must be in [1, %d] (got %d)", who,
                         SKIM_MOVE_MAX_ITERATIONS, def->max_iterations);
    if (!(def->skin_width >= 0.0f && def->skin_width <= 0.25f))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->skin_width must be in [0, 0.25] radii (got %.9g)", who,
                         def->skin_width);
    if (!(def->max_slope_degrees > 0.0f && def->max_slope_degrees < 90.0f))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->max_slope_degrees must be in (0, 90) (got %.9g)", who,
                         def->max_slope_degrees);
    /* Gravity, step_height and snap_distance are displacements the move
       adds to the path: the same 1e18 bound as skim_move_check_mover's on
       position and displacement, which keeps every coordinate the move
       computes finite in float (a gravity of -3e38 fell through the floor,
       -1.7e38 with step_height 1.7e38 ended at NaN with SKIM_OK). The
       negated comparisons also reject NaN. */
    const float limit = SKIM_MOVE_MAX_COORDINATE;
    if (!(def->step_height >= 0.0f && def->step_height <= limit))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->step_height must be in [0, 1e18] world units (got %.9g)", who,
                         def->step_height);
    if (!(def->snap_distance >= 0.0f && def->snap_distance <= limit))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->snap_distance must be in [0, 1e18] world units (got %.9g)", who,
                         def->snap_distance);
    if (!skim_finite3(def->gravity))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: def->gravity is not finite", who);
    if (!(fabsf(def->gravity.x) <= limit && fabsf(def->gravity.y) <= limit &&
          fabsf(def->gravity.z) <= limit))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->gravity (%g %g %g) has a component beyond 1e18 world units",
                         who, def->gravity.x, def->gravity.y, def->gravity.z);
    if (def->material_friction_count > 0 && !def->material_friction)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->material_friction is NULL but material_friction_count is %u",
                         who, def->material_friction_count);
    if (def->material_friction_count > 65536u)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->material_friction_count %u exceeds the 65536 materials", who,
                         def->material_friction_count);
    for (uint32_t m = 0; m < def->material_friction_count; ++m)
        if (!(def->material_friction[m] >= 0.0f && def->material_friction[m] <= 1.0f))
            return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                             "%s: def->material_friction[%u] must be in [0, 1] (got %.9g)", who, m,
                             def->material_friction[m]);
    if (def->threads < 0 || def->threads > SKIM_THREADS_MAX)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->threads must be in [0, %d] (0 = OpenMP's default; got %d)", who,
                         SKIM_THREADS_MAX, def->threads);
    if (def->wait != SKIM_WAIT_SPIN_BRIEFLY && def->wait != SKIM_WAIT_PASSIVE)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: def->wait must be SKIM_WAIT_SPIN_BRIEFLY or SKIM_WAIT_PASSIVE (got %d)",
                         who, (int)def->wait);
    char what[160];
    snprintf(what, sizeof what, "%s: def->query", who);
    return skim_check_query(&def->query, what);
}

skim_status skim_move_check_motion(skim_vec3 position, skim_vec3 displacement, const char *who,
                                   size_t index, bool indexed)
{
    /* Finite and within 1e18 (keeps every coordinate the move computes
       finite in float): one comparison each, NaN failing it too; the
       messages below say which rule a bad mover broke. */
    const float limit = SKIM_MOVE_MAX_COORDINATE;
    if (fabsf(position.x) <= limit && fabsf(position.y) <= limit && fabsf(position.z) <= limit &&
        fabsf(displacement.x) <= limit && fabsf(displacement.y) <= limit &&
        fabsf(displacement.z) <= limit)
        return SKIM_OK;
    if (!skim_finite3(position))
        return indexed ? skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                                   "%s: positions[%zu] is not finite", who, index)
                       : skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: position is not finite", who);
    if (!skim_finite3(displacement))
        return indexed ? skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                                   "%s: displacements[%zu] is not finite", who, index)
                       : skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                                   "%s: displacement is not finite", who);
    return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                     "%s: position or displacement beyond 1e18 (mover %zu)", who, index);
}

skim_status skim_move_check_mover(const skim_ellipsoid *shape, skim_vec3 position,
                                  skim_vec3 displacement, const char *who, size_t index,
                                  bool indexed)
{
    /* Name the shape only when it is bad: formatting a name costs more
       than checking, and a batch checks every mover. */
    skim_status status = skim_check_ellipsoid(shape, "shape");
    if (status != SKIM_OK) {
        char what[96];
        if (indexed)
            snprintf(what, sizeof what, "%s: shapes[%zu]", who, index);
        else
            snprintf(what, sizeof what, "%s: shape", who);
        return skim_check_ellipsoid(shape, what);
    }
    status = skim_move_check_motion(position, displacement, who, index, indexed);
    if (status != SKIM_OK)
        return status;
    return skim_move_check_resolution(shape, position, displacement, who, index, indexed);
}

skim_status skim_move_check_resolution(const skim_ellipsoid *shape, skim_vec3 position,
                                       skim_vec3 displacement, const char *who, size_t index,
                                       bool indexed)
{
    const float smallest = skim_smallest_radius(shape->radii);
    if (skim_position_resolves(smallest, position, displacement))
        return SKIM_OK;
    char what[96];
    if (indexed)
        snprintf(what, sizeof what, "%s: positions[%zu]", who, index);
    else
        snprintf(what, sizeof what, "%s: position", who);
    return skim_fail_position_resolution(smallest, position, displacement, what);
}

/* Whether movers [first, end) (first > 0) certainly pass the per-mover
   check: every position and displacement coordinate within
   SKIM_MOVE_MAX_COORDINATE, and every shape bitwise the one before it (so
   valid once mover first - 1 is). Bit patterns, in loops the compiler
   vectorises: with the sign bit cleared the unsigned order of finite
   floats is their numeric order, and a NaN's pattern is above every
   finite one, so it fails too. A block that is not clean goes through the
   per-mover check, which names the first bad mover. (A serial
   per-mover check would be a visible share of a batch's time, more so
   on several threads.) */
static bool block_is_clean(const skim_ellipsoid *shapes, const skim_vec3 *positions,
                           const skim_vec3 *displacements, size_t first, size_t end)
{
    /* The precision rule (skim_position_resolves) for the shape of mover
       first - 1, which every shape of a clean block equals: a quarter of
       its limit on position and displacement alike keeps their sum's
       rounding below the limit too. */
    const float precision = 0.25f * skim_position_limit(skim_smallest_radius(shapes[first - 1].radii));
    const float limit = precision > 0.0f && precision < SKIM_MOVE_MAX_COORDINATE
                            ? precision
                            : SKIM_MOVE_MAX_COORDINATE; /* (a bad shape fails its own check) */
    uint32_t limit_bits;
    memcpy(&limit_bits, &limit, sizeof limit_bits);
    const size_t words = 3 * (end - first);
    const unsigned char *p = (const unsigned char *)(positions + first);
    const unsigned char *d = (const unsigned char *)(displacements + first);
    uint32_t outside = 0;
    for (size_t k = 0; k < words; ++k) {
        uint32_t a, b;
        memcpy(&a, p + 4 * k, sizeof a);
        memcpy(&b, d + 4 * k, sizeof b);
        outside |= (uint32_t)((a & 0x7fffffffu) > limit_bits) |
                   (uint32_t)((b & 0x7fffffffu) > limit_bits);
    }
    /* Shape i against shape i - 1, word by word. */
    enum { SHAPE_WORDS = sizeof(skim_ellipsoid) / sizeof(uint32_t) };
    _Static_assert(sizeof(skim_ellipsoid) == SHAPE_WORDS * sizeof(uint32_t),
                   "a shape is whole 32-bit words");
    const unsigned char *s = (const unsigned char *)(shapes + first);
    const size_t shape_words = SHAPE_WORDS * (end - first);
    uint32_t differ = 0;
    for (size_t k = 0; k < shape_words; ++k) {
        uint32_t a, b;
        memcpy(&a, s + 4 * k, sizeof a);
        memcpy(&b, s + 4 * k - sizeof(skim_ellipsoid), sizeof b);
        differ |= a ^ b;
    }
    return outside == 0 && differ == 0;
}

/* The check of movers [first, end) (first a multiple of SKIM_MOVE_CHECK_BLOCK): the
   first bad mover's error, with its message recorded on this thread, or
   SKIM_OK. Clean blocks (block_is_clean) skip the per-mover checks, and
   a shape bitwise equal to the one before it needs only its motion
   checked: a crowd repeats its shapes. */
skim_status skim_move_check_movers(const skim_ellipsoid *shapes, const skim_vec3 *positions,
                                   const skim_vec3 *displacements, size_t first, size_t end,
                                   const char *who)
{
    for (size_t block = first; block < end; block += SKIM_MOVE_CHECK_BLOCK) {
        const size_t block_end = end - block < SKIM_MOVE_CHECK_BLOCK ? end : block + SKIM_MOVE_CHECK_BLOCK;
        if (block > 0 && block_is_clean(shapes, positions, displacements, block, block_end))
            continue;
        for (size_t i = block; i < block_end; ++i) {
            skim_status status;
            if (i > 0 && memcmp(&shapes[i], &shapes[i - 1], sizeof shapes[i]) == 0) {
                status = skim_move_check_motion(positions[i], displacements[i], who, i, true);
                if (status == SKIM_OK)
                    status = skim_move_check_resolution(&shapes[i], positions[i],
                                                        displacements[i], who, i, true);
            } else {
                status = skim_move_check_mover(&shapes[i], positions[i], displacements[i], who, i,
                                               true);
            }
            if (status != SKIM_OK)
                return status;
        }
    }
    return SKIM_OK;
}
