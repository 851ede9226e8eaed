/* Status strings, the per-thread error message, and the defaults functions. */
#include "base/skim_internal.h"

#include <stdio.h>

/* Thread-local so that many threads can fail at once without racing; this is
   per-call diagnostic state, not shared mutable state. */
static _Thread_local char last_error_message[512];

const char *skim_status_string(skim_status status)
{
    switch (status) {
    case SKIM_OK: return "ok";
    case SKIM_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case SKIM_ERROR_OUT_OF_MEMORY: return "out of memory";
    case SKIM_ERROR_IO: return "input/output error";
    case SKIM_ERROR_FORMAT: return "malformed, truncated or foreign file";
    }
    return "unknown status";
}

const char *skim_last_error_message(void)
{
    return last_error_message;
}

skim_status skim_fail(skim_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(last_error_message, sizeof last_error_message, format, args);
    va_end(args);
    return status;
}

skim_world_def skim_world_def_default(void)
{
    skim_world_def def = {
        .accelerator = SKIM_ACCELERATOR_BVH,
        .max_leaf_triangles = 4,
        .sah_bins = 32,
        .build_threads = 0,
        .degenerate_area = 0.0f,
    };
    return def;
}

skim_query skim_query_default(void)
{
    skim_query query = { .cull_back_faces = false, .material_mask = UINT64_MAX,
                         .defaults_mark = SKIM_QUERY_DEFAULTS_MARK };
    return query;
}

skim_move_def skim_move_def_default(void)
{
    skim_move_def def = {
        .up = { 0.0f, 0.0f, 1.0f },
        .max_iterations = 5,
        .skin_width = 0.01f,
        .max_slope_degrees = 45.0f,
        .step_height = 0.0f,
        .snap_distance = 0.0f,
        .gravity = { 0.0f, 0.0f, 0.0f },
        .material_friction = NULL,
        .material_friction_count = 0,
        .query = skim_query_default(),
        .threads = 0,
        .wait = SKIM_WAIT_SPIN_BRIEFLY,
    };
    return def;
}
