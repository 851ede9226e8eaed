/* The bad-input table's shared parts (bad_input_rows_*.c have the rows;
   test_bad_input_table.c says what each row checks and where each runner
   lives): the kinds
   and functions a row names, the row itself, and each function's args
   struct with the macro that makes its rows: a row's offset points into
   that struct, so the table and the runner must see the same one. */
#ifndef SKIM_BAD_INPUT_H
#define SKIM_BAD_INPUT_H

#include "hardening.h"

#include <stddef.h>
#include <stdint.h>

/* ---- kinds and functions ---- */
enum kind {
    K_NULL, K_NAN, K_INF, K_NEG_INF, K_ZERO, K_NEGATIVE, K_RANGE, K_HUGE, K_OVERFLOW, K_FILE,
    K_ALIAS, K_ALIGN, K_VALID, KIND_COUNT
};
extern const char *const kind_names[KIND_COUNT];

#define FUNCTIONS(X)                                                                          \
    X(status_string) X(last_error_message) X(world_def_default) X(world_create)               \
    X(world_destroy) X(world_save) X(world_load) X(world_get_stats) X(query_default) X(sweep)   \
    X(move_def_default) X(move) X(move_batch) X(isa_name) X(isa_available) X(isa_status) X(version) \
    X(mesh_data_view) X(mesh_data_free) X(scene_default) X(crowd_def_default)                \
    X(agent_def_default) X(crowd_create) X(crowd_destroy) X(crowd_add) X(crowd_remove)       \
    X(crowd_set_velocity) X(crowd_set_target) X(crowd_set_path) X(crowd_jump) X(crowd_teleport) X(crowd_step) X(crowd_get_agent)   \
    X(crowd_count) X(crowd_capacity) X(crowd_positions) X(crowd_velocities) X(crowd_states)  \
    X(crowd_hash) X(crowd_get_stats) X(mesh_load_obj) X(mesh_parse_obj) X(raycast)            \
    X(raycast_batch) X(overlap) X(closest_point) X(drop_to_floor) X(world_get_triangle)      \
    X(spawn_def_default) X(find_spawn_places) X(raycast_any) X(raycast_any_batch)            \
    X(move_contacts) X(move_batch_contacts) X(move_cache_create) X(move_cache_destroy)       \
    X(move_batch_cached)       \
    X(world_add_body) X(world_set_body_transform) X(world_remove_body) X(world_get_body_transform)    \
    X(scene_default_body) X(scene_default_body_transform)
#define AS_ENUM(name) F_##name,
enum function { FUNCTIONS(AS_ENUM) FUNCTION_COUNT };
extern const char *const function_names[FUNCTION_COUNT];

/* ---- rows ---- */
enum type { T_NONE, T_FLOAT, T_INT, T_U16, T_U32, T_SIZE, T_BOOL, T_U64 };

typedef struct row {
    enum function fn;
    const char *argument;
    enum kind kind;
    skim_status expected;
    size_t offset; /* into the function's args struct */
    enum type type;
    double value;
    const char *finding; /* the test_limits_*.c test that reproduces a known fault */
} row;

/* Sets the row's argument in the function's args struct (its offset and
   type). */
void apply(const row *r, void *args);
/* Checks the documented status, and that a failure leaves a message. */
void expect_status(const row *r, skim_status got);

#define CHECK_CANARY(guarded, what)                                                              \
    cr_expect(canary_intact((guarded).canary, CANARY_BYTES), "%s(%s = %s): wrote past %s",       \
              function_names[r->fn], r->argument, kind_names[r->kind], what)

/* ================= world_create ================= */
typedef struct world_create_args {
    float    positions[3 * SMALL_VERTICES];
    uint32_t indices[3 * SMALL_TRIANGLES];
    uint16_t materials[SMALL_TRIANGLES];
    uint32_t vertex_count, triangle_count;
    bool null_mesh, null_positions, null_indices, null_materials, null_def, null_out, min_aligned;
    int vertices_only; /* 1: triangle_count 0, vertex_count kept; 2: and positions NULL */
    skim_world_def def;
} world_create_args;
#define WC(arg, kind, field, type, value, status) \
    { F_world_create, arg, kind, status, offsetof(world_create_args, field), type, value, NULL }

/* ================= world_destroy, world_get_stats ================= */
typedef struct world_args {
    bool null_world, null_out;
} world_args;
#define WS(fn, arg, kind, field, status) \
    { fn, arg, kind, status, offsetof(world_args, field), T_BOOL, 1, NULL }

/* ================= world_save / world_load ================= */
enum path_kind {
    P_VALID, P_NULL, P_EMPTY_STRING, P_MISSING_DIR, P_DIRECTORY, P_EMPTY_FILE, P_DEV_NULL,
    P_TRUNCATED, P_FLIPPED_BYTE, P_TEXT, P_HEADER_ONLY, P_OWN_FILE, P_BINARY_OBJ,
};
typedef struct file_args {
    bool null_world, null_out;
    int path;
} file_args;
#define FILE_ROW(fn, arg, kind, path_kind, status) \
    { fn, arg, kind, status, offsetof(file_args, path), T_INT, path_kind, NULL }
#define FILE_NULL(fn, arg, field, status) \
    { fn, arg, K_NULL, status, offsetof(file_args, field), T_BOOL, 1, NULL }

/* ================= sweep ================= */
typedef struct sweep_args {
    bool null_world, null_shape, null_query, null_out, brute_force;
    skim_ellipsoid shape;
    float sphere_radius; /* > 0: the shape becomes a sphere of this radius */
    skim_vec3 start, delta;
    skim_query query;
} sweep_args;
#define SW(arg, kind, field, type, value, status) \
    { F_sweep, arg, kind, status, offsetof(sweep_args, field), type, value, NULL }

/* ================= move ================= */
typedef struct move_args {
    bool null_world, null_shape, null_def, null_out, null_friction;
    skim_ellipsoid shape;
    float sphere_radius; /* > 0: the shape becomes a sphere of this radius */
    skim_vec3 position, displacement;
    skim_move_def def;
    float friction[4];
} move_args;
#define MV(arg, kind, field, type, value, status) \
    { F_move, arg, kind, status, offsetof(move_args, field), type, value, NULL }

/* ================= move_batch ================= */
typedef struct batch_args {
    size_t count;
    bool null_world, null_shapes, null_positions, null_displacements, null_results, null_def;
    bool alias_positions, min_aligned;
    int bad_mover; /* index + 1 of a mover made invalid, 0 = none */
    int bad_field; /* 1 position NaN, 2 displacement Inf, 3 radius 0 */
    bool null_cache, null_out; /* skim_move_batch_cached's cache, skim_move_cache_create's out */
    skim_move_def def;
} batch_args;
#define MB(arg, kind, field, type, value, status) \
    { F_move_batch, arg, kind, status, offsetof(batch_args, field), type, value, NULL }
/* The same rows for skim_move_batch_cached, and the cache's own. */
#define MBC(fn, arg, kind, field, type, value, status) \
    { fn, arg, kind, status, offsetof(batch_args, field), type, value, NULL }

/* ================= crowds ================= */
#define CROWD_CAPACITY 4
typedef struct crowd_args {
    bool null_def, null_out, null_crowd, null_agent, null_out_id, null_world, null_jumped, fill, null_waypoints;
    skim_crowd_def def;
    skim_agent_def agent;
    uint32_t id;
    skim_vec3 vector;
    float scalar;
    float arrival;   /* set_target, set_path */
    uint32_t count;  /* set_path: waypoints */
} crowd_args;
#define CR(fn, arg, kind, field, type, value, status) \
    { fn, arg, kind, status, offsetof(crowd_args, field), type, value, NULL }
#define CR_FINDING(fn, arg, kind, field, type, value, status, finding) \
    { fn, arg, kind, status, offsetof(crowd_args, field), type, value, finding }
#define CQ(fn) { fn, "crowd", K_NULL, SKIM_OK, 0, T_NONE, 0, NULL }

/* ================= meshes ================= */
typedef struct mesh_args {
    bool null_out, null_text, null_name, alias_name, unterminated;
    int path;
    size_t length; /* 0 = the text's own length */
    bool zero_length;
    uint32_t body;       /* the default scene's body asked for */
    float    seconds;    /* its schedule's time */
} mesh_args;
#define MS(fn, arg, kind, field, type, value, status) \
    { fn, arg, kind, status, offsetof(mesh_args, field), type, value, NULL }

/* ================= queries: rays, overlaps, closest points, floors, spawn places ================= */
typedef struct query_args {
    bool null_world, null_shape, null_query, null_out, null_count, null_def, null_origins, null_deltas;
    bool brute_force, bad_second_ray;
    skim_ellipsoid shape;
    skim_vec3 origin, delta;
    float distance;
    float sphere_radius; /* > 0: the shape becomes a sphere of this radius */
    uint32_t capacity, triangle;
    size_t count;
    skim_query query;
    skim_move_def move_def;
    skim_spawn_def spawn_def;
} query_args;
#define QR(fn, arg, kind, field, type, value, status) \
    { fn, arg, kind, status, offsetof(query_args, field), type, value, NULL }

/* ================= contacts of a move: move_contacts, move_batch_contacts ================= */
typedef struct contacts_args {
    bool null_world, null_shape, null_def, null_out, null_contacts, null_count;
    bool alias_positions, alias_results;  /* batch: contacts over positions, counts over results */
    skim_vec3 position, displacement;     /* the single move's, and mover 0's in the batch */
    float radius_x;                       /* the shape's (mover 0's) x radius */
    uint32_t capacity;
    size_t count;                         /* batch movers */
    skim_move_def def;
} contacts_args;
#define CT(fn, arg, kind, field, type, value, status) \
    { fn, arg, kind, status, offsetof(contacts_args, field), type, value, NULL }
/* ================= moving bodies ================= */
typedef struct body_args {
    bool null_world, null_shape, null_out, null_now, null_before;
    bool shape_is_world, shape_has_bodies, world_is_shape, removed;
    skim_transform transform;
    uint32_t id; /* set, remove, get: the body asked for; the runner's body is 0 */
} body_args;
#define BD(fn, arg, kind, field, type, value, status) \
    { fn, arg, kind, status, offsetof(body_args, field), type, value, NULL }

/* ================= no-argument functions ================= */
#define BASIC(fn, arg, kind, value) { fn, arg, kind, SKIM_OK, 0, T_NONE, value, NULL }

/* ================= the runners =================
   Each makes its row's call on otherwise valid arguments and checks what
   the headers promise; one type, so a runner's signature is said once. */
typedef skim_status row_runner(const row *r);
row_runner bad_input_run_row; /* bad_input_common.c: picks the row's runner */
row_runner bad_input_run_world_create, bad_input_run_world_destroy, bad_input_run_world_get_stats,
    bad_input_run_world_save, bad_input_run_world_load; /* bad_input_world.c */
row_runner bad_input_run_sweep, bad_input_run_move, bad_input_run_move_batch; /* bad_input_motion.c */
row_runner bad_input_run_crowd, bad_input_run_crowd_query_null; /* bad_input_crowd.c */
row_runner bad_input_run_mesh, bad_input_run_basics; /* bad_input_mesh.c */
row_runner bad_input_run_query; /* bad_input_query.c */
row_runner bad_input_run_contacts; /* bad_input_contacts.c */
row_runner bad_input_run_bodies; /* bad_input_bodies.c */

/* The path a row asks for, creating the file it needs (bad_input_world.c;
   mesh_load_obj's rows read the same bad files as world_load's). */
const char *bad_input_make_path(const scratch_dir *d, int kind, char *buffer, size_t size);

#endif
