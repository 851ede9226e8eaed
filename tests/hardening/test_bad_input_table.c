/* The bad-input table: every public function of the headers in include/skim/, each
   argument made NULL, NaN, +-Inf, zero, negative, out of range, huge, a
   count that overflows the size computation, a missing or malformed file,
   aliased or minimally aligned buffers where the API allows them. Each row
   names the function, the argument and the kind, and the status the
   headers document; the row's runner makes the call on otherwise valid
   arguments and checks
     - the status, and a non-empty skim_last_error_message() on failure;
     - nothing written past the output struct (canary bytes), and on
       failure what the headers promise of the outputs (*out NULL, mesh
       data emptied, results untouched, jumped false, crowd unchanged);
     - inputs left as they were (the API takes them const);
     - no leak: the ASan build of scripts/dev runs this suite under
       LeakSanitizer, which fails the process on any leaked block.
   Rows that the library gets wrong today are findings: they carry the name
   of the regression test in test_limits_*.c that reproduces them, and the
   table skips them so each finding fails in exactly one named place.

   What the API cannot check is the caller's contract (docs/hardening.md):
   a pointer to too small a buffer for the count that comes with it (mesh
   arrays, batch arrays, parse_obj's length), pointers to freed or foreign
   objects, misaligned pointers (C requires natural alignment; the API asks
   for nothing more, which the "minimal alignment" rows check), and outputs
   aliasing inputs. The "count overflow" rows check the counts the API CAN
   reject before reading anything.

   The rows are in bad_input_rows_world.c and bad_input_rows_motion.c;
   this file has the tests. bad_input.h has the row, the
   kinds, and each function's args struct with its row macro; the runners
   live one file an area: bad_input_world.c, bad_input_motion.c (sweep,
   move, move_batch), bad_input_crowd.c, bad_input_mesh.c (meshes and the
   functions without arguments); bad_input_common.c has the names, the
   status check and the dispatch from a row to its runner. */
#include "bad_input_rows.h"

#include <criterion/parameterized.h>

/* The table: the areas' rows one after the other. */
static size_t row_count(void)
{
    return bad_input_rows_world_count + bad_input_rows_motion_count;
}

static const row *table_row(size_t index)
{
    return index < bad_input_rows_world_count ? &bad_input_rows_world[index]
                                              : &bad_input_rows_motion[index - bad_input_rows_world_count];
}

/* Rows in chunks of ROWS_PER_WORKER, each chunk in its own process
   (Criterion runs each parameter in a worker): a row that crashes fails its
   chunk alone, and the chunk's log names the row that was running. The
   parameter is the chunk's index: workers are separate processes, so
   pointers into the parent (the rows' strings) would not survive the copy.
   A process per row cost a loaded machine more than the rows themselves.
   Sanitizer builds (SKIM_BAD_INPUT_ONE_PROCESS) run every row in one test:
   each failure message still names its row, and LeakSanitizer still fails
   the process on a block any row leaks. Rows the library gets wrong today
   (findings) are left to their own tests and logged here. */
static void run_table_row(size_t index)
{
    const row *r = table_row(index);
    if (r->finding) {
        cr_log_warn("row %zu: %s(%s = %s): known finding, reproduced by findings::%s", index,
                    function_names[r->fn], r->argument, kind_names[r->kind], r->finding);
        return;
    }
    bad_input_run_row(r);
}

#ifdef SKIM_BAD_INPUT_ONE_PROCESS
Test(table, every_row)
{
    for (size_t i = 0; i < row_count(); ++i)
        run_table_row(i);
}
#else
enum { ROWS_PER_WORKER = 24, MAX_CHUNKS = 64 };
static size_t chunk_indices[MAX_CHUNKS];

/* A table grown past MAX_CHUNKS chunks runs every row left in the last
   chunk: no row is ever dropped. */
ParameterizedTestParameters(table, rows)
{
    size_t chunks = (row_count() + ROWS_PER_WORKER - 1) / ROWS_PER_WORKER;
    if (chunks > MAX_CHUNKS)
        chunks = MAX_CHUNKS;
    for (size_t i = 0; i < chunks; ++i)
        chunk_indices[i] = i;
    return cr_make_param_array(size_t, chunk_indices, chunks);
}

ParameterizedTest(size_t *chunk, table, rows)
{
    const size_t first = *chunk * ROWS_PER_WORKER;
    const size_t last = *chunk + 1 == MAX_CHUNKS ? row_count() : first + ROWS_PER_WORKER;
    for (size_t i = first; i < last && i < row_count(); ++i) {
        const row *r = table_row(i);
        cr_log_info("row %zu: %s(%s = %s)", i, function_names[r->fn], r->argument, kind_names[r->kind]);
        run_table_row(i);
    }
}
#endif

/* Coverage: every public function has rows, every pointer argument a NULL
   row; prints the function x kind matrix (docs/hardening.md has it). */
Test(table, coverage)
{
    unsigned counts[FUNCTION_COUNT][KIND_COUNT] = { { 0 } };
    for (size_t i = 0; i < row_count(); ++i)
        counts[table_row(i)->fn][table_row(i)->kind]++;
    char line[512];
    int at = snprintf(line, sizeof line, "%-28s", "function");
    for (int k = 0; k < KIND_COUNT; ++k)
        at += snprintf(line + at, sizeof line - (size_t)at, " %4.4s", kind_names[k]);
    printf("%s\n", line);
    unsigned total = 0;
    for (int f = 0; f < FUNCTION_COUNT; ++f) {
        unsigned per = 0;
        at = snprintf(line, sizeof line, "%-28s", function_names[f]);
        for (int k = 0; k < KIND_COUNT; ++k) {
            per += counts[f][k];
            if (counts[f][k])
                at += snprintf(line + at, sizeof line - (size_t)at, " %4u", counts[f][k]);
            else
                at += snprintf(line + at, sizeof line - (size_t)at, "    .");
        }
        printf("%s\n", line);
        cr_expect_gt(per, 0u, "%s has no row in the table", function_names[f]);
        total += per;
    }
    printf("%u rows over %d functions\n", total, FUNCTION_COUNT);
    /* Every function with a pointer argument has a NULL row. */
    static const enum function with_pointers[] = {
        F_world_create, F_world_destroy, F_world_save, F_world_load, F_world_get_stats, F_sweep, F_move,
        F_move_batch, F_mesh_data_view, F_mesh_data_free, F_scene_default, F_crowd_create, F_crowd_destroy,
        F_crowd_add, F_crowd_remove, F_crowd_set_velocity, F_crowd_set_target, F_crowd_set_path, F_crowd_jump, F_crowd_teleport, F_crowd_step,
        F_crowd_get_agent, F_crowd_count, F_crowd_capacity, F_crowd_positions, F_crowd_velocities,
        F_crowd_states, F_crowd_hash, F_crowd_get_stats, F_mesh_load_obj, F_mesh_parse_obj,
        F_raycast, F_raycast_batch, F_overlap, F_closest_point, F_drop_to_floor, F_world_get_triangle,
        F_find_spawn_places, F_raycast_any, F_raycast_any_batch, F_move_contacts, F_move_batch_contacts,
        F_move_cache_create, F_move_cache_destroy, F_move_batch_cached,
        F_world_add_body, F_world_set_body_transform, F_world_remove_body, F_world_get_body_transform,
        F_scene_default_body, F_scene_default_body_transform,
    };
    for (size_t i = 0; i < sizeof with_pointers / sizeof with_pointers[0]; ++i)
        cr_expect_gt(counts[with_pointers[i]][K_NULL], 0u, "%s has no NULL row",
                     function_names[with_pointers[i]]);
}
