/* What the bad-input table's runners share (bad_input.h): the names a
   row's message prints, setting a row's argument, the status check, and
   the dispatch from a row to its function's runner. */
#include "bad_input.h"

const char *const kind_names[KIND_COUNT] = {
    "NULL", "NaN", "+Inf", "-Inf", "zero", "negative", "out of range", "huge finite",
    "count overflow", "bad file", "aliased", "min. aligned", "valid edge",
};

#define AS_NAME(name) "skim_" #name,
const char *const function_names[FUNCTION_COUNT] = { FUNCTIONS(AS_NAME) };

void apply(const row *r, void *args)
{
    char *at = (char *)args + r->offset;
    switch (r->type) {
    case T_NONE: break;
    case T_FLOAT: { float v = (float)r->value; memcpy(at, &v, sizeof v); break; }
    case T_INT: { int v = (int)r->value; memcpy(at, &v, sizeof v); break; }
    case T_U16: { uint16_t v = (uint16_t)r->value; memcpy(at, &v, sizeof v); break; }
    case T_U32: { uint32_t v = (uint32_t)r->value; memcpy(at, &v, sizeof v); break; }
    case T_SIZE: { size_t v = r->value >= 1.8e19 ? SIZE_MAX : (size_t)r->value; memcpy(at, &v, sizeof v); break; }
    case T_BOOL: { bool v = r->value != 0; memcpy(at, &v, sizeof v); break; }
    case T_U64: { uint64_t v = (uint64_t)r->value; memcpy(at, &v, sizeof v); break; }
    }
}

void expect_status(const row *r, skim_status got)
{
    cr_expect_eq(got, r->expected, "%s(%s = %s): status %d (%s), documented %d (%s); message '%s'",
                 function_names[r->fn], r->argument, kind_names[r->kind], (int)got,
                 skim_status_string(got), (int)r->expected, skim_status_string(r->expected),
                 skim_last_error_message());
    if (got != SKIM_OK)
        cr_expect_neq(skim_last_error_message()[0], '\0', "%s(%s = %s): failed without a message",
                      function_names[r->fn], r->argument, kind_names[r->kind]);
}

skim_status bad_input_run_row(const row *r)
{
    switch (r->fn) {
    case F_world_create: return bad_input_run_world_create(r);
    case F_world_destroy: return bad_input_run_world_destroy(r);
    case F_world_get_stats: return bad_input_run_world_get_stats(r);
    case F_world_save: return bad_input_run_world_save(r);
    case F_world_load: return bad_input_run_world_load(r);
    case F_sweep: return bad_input_run_sweep(r);
    case F_move: return bad_input_run_move(r);
    case F_move_batch:
    case F_move_batch_cached:
    case F_move_cache_create:
    case F_move_cache_destroy: return bad_input_run_move_batch(r);
    case F_mesh_data_view:
    case F_mesh_data_free:
    case F_scene_default:
    case F_scene_default_body:
    case F_scene_default_body_transform:
    case F_mesh_load_obj:
    case F_mesh_parse_obj: return bad_input_run_mesh(r);
    case F_crowd_create:
    case F_crowd_add:
    case F_crowd_remove:
    case F_crowd_set_velocity:
    case F_crowd_set_target:
    case F_crowd_set_path:
    case F_crowd_jump:
    case F_crowd_teleport:
    case F_crowd_step:
    case F_crowd_get_agent:
    case F_crowd_get_stats: return bad_input_run_crowd(r);
    case F_crowd_destroy:
    case F_crowd_count:
    case F_crowd_capacity:
    case F_crowd_positions:
    case F_crowd_velocities:
    case F_crowd_states:
    case F_crowd_hash: return bad_input_run_crowd_query_null(r);
    case F_raycast:
    case F_raycast_batch:
    case F_raycast_any:
    case F_raycast_any_batch:
    case F_overlap:
    case F_closest_point:
    case F_drop_to_floor:
    case F_world_get_triangle:
    case F_find_spawn_places: return bad_input_run_query(r);
    case F_move_contacts:
    case F_move_batch_contacts: return bad_input_run_contacts(r);
    case F_world_add_body:
    case F_world_set_body_transform:
    case F_world_remove_body:
    case F_world_get_body_transform: return bad_input_run_bodies(r);
    default: return bad_input_run_basics(r);
    }
}
