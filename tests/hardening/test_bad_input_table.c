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
   of the regression test in test_findings_*.c that reproduces them, and the
   table skips them so each finding fails in exactly one named place.

   What the API cannot check is the caller's contract (docs/hardening.md):
   a pointer to too small a buffer for the count that comes with it (mesh
   arrays, batch arrays, parse_obj's length), pointers to freed or foreign
   objects, misaligned pointers (C requires natural alignment; the API asks
   for nothing more, which the "minimal alignment" rows check), and outputs
   aliasing inputs. The "count overflow" rows check the counts the API CAN
   reject before reading anything. */
#include "hardening.h"

#include <criterion/parameterized.h>

#include <float.h>
#include <stddef.h>
#include <stdint.h>

/* ---- kinds and functions ---- */
enum kind {
    K_NULL, K_NAN, K_INF, K_NEG_INF, K_ZERO, K_NEGATIVE, K_RANGE, K_HUGE, K_OVERFLOW, K_FILE,
    K_ALIAS, K_ALIGN, K_VALID, KIND_COUNT
};
static const char *const kind_names[KIND_COUNT] = {
    "NULL", "NaN", "+Inf", "-Inf", "zero", "negative", "out of range", "huge finite",
    "count overflow", "bad file", "aliased", "min. aligned", "valid edge",
};

#define FUNCTIONS(X)                                                                          \
    X(status_string) X(last_error_message) X(world_def_default) X(world_create)               \
    X(world_destroy) X(world_save) X(world_load) X(world_get_stats) X(query_default) X(sweep)   \
    X(move_def_default) X(move) X(move_batch) X(isa_name) X(isa_available) X(isa_status)     \
    X(mesh_data_view) X(mesh_data_free) X(scene_default) X(crowd_def_default)                \
    X(agent_def_default) X(crowd_create) X(crowd_destroy) X(crowd_add) X(crowd_remove)       \
    X(crowd_set_velocity) X(crowd_jump) X(crowd_teleport) X(crowd_step) X(crowd_get_agent)   \
    X(crowd_count) X(crowd_capacity) X(crowd_positions) X(crowd_velocities) X(crowd_states)  \
    X(crowd_hash) X(crowd_get_stats) X(mesh_load_obj) X(mesh_parse_obj)
#define AS_ENUM(name) F_##name,
#define AS_NAME(name) "skim_" #name,
enum function { FUNCTIONS(AS_ENUM) FUNCTION_COUNT };
static const char *const function_names[FUNCTION_COUNT] = { FUNCTIONS(AS_NAME) };

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
    const char *finding; /* the test_findings_*.c test that reproduces a known fault */
} row;

static void apply(const row *r, void *args)
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

static void expect_status(const row *r, skim_status got)
{
    cr_expect_eq(got, r->expected, "%s(%s = %s): status %d (%s), documented %d (%s); message '%s'",
                 function_names[r->fn], r->argument, kind_names[r->kind], (int)got,
                 skim_status_string(got), (int)r->expected, skim_status_string(r->expected),
                 skim_last_error_message());
    if (got != SKIM_OK)
        cr_expect_neq(skim_last_error_message()[0], '\0', "%s(%s = %s): failed without a message",
                      function_names[r->fn], r->argument, kind_names[r->kind]);
}

#define CHECK_CANARY(guarded, what)                                                              \
    cr_expect(canary_intact((guarded).canary, CANARY_BYTES), "%s(%s = %s): wrote past %s",       \
              function_names[r->fn], r->argument, kind_names[r->kind], what)

static const float nan_f = NAN;
#define HUGE_F 3.0e38

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

static skim_status run_world_create(const row *r)
{
    world_create_args a = { .vertex_count = SMALL_VERTICES, .triangle_count = SMALL_TRIANGLES,
                            .def = skim_world_def_default() };
    memcpy(a.positions, small_positions, sizeof a.positions);
    memcpy(a.indices, small_indices, sizeof a.indices);
    memcpy(a.materials, small_materials, sizeof a.materials);
    apply(r, &a);
    if (a.vertices_only)
        a.triangle_count = 0;
    if (a.vertices_only == 2)
        a.null_positions = true;
    const world_create_args before = a;
    /* Minimal alignment: each array 4 (2 for materials) bytes past a
       64-byte boundary, the least C allows for the element type. */
    _Alignas(64) unsigned char block[3][256];
    float *positions = a.positions;
    uint32_t *indices = a.indices;
    uint16_t *materials = a.materials;
    if (a.min_aligned) {
        positions = (float *)(void *)(block[0] + 4);
        indices = (uint32_t *)(void *)(block[1] + 4);
        materials = (uint16_t *)(void *)(block[2] + 2);
        memcpy(positions, a.positions, sizeof a.positions);
        memcpy(indices, a.indices, sizeof a.indices);
        memcpy(materials, a.materials, sizeof a.materials);
    }
    skim_mesh mesh = { a.null_positions ? NULL : positions, a.vertex_count, a.null_indices ? NULL : indices,
                       a.triangle_count, a.null_materials ? NULL : materials };
    skim_world *world = (skim_world *)&mesh; /* garbage: must become NULL on failure */
    skim_status status = skim_world_create(a.null_mesh ? NULL : &mesh, a.null_def ? NULL : &a.def,
                                           a.null_out ? NULL : &world);
    expect_status(r, status);
    cr_expect(memcmp(&before, &a, sizeof a) == 0, "skim_world_create changed its inputs");
    if (a.null_out)
        return status;
    if (status != SKIM_OK) {
        cr_expect_null(world, "skim_world_create(%s = %s): *out not NULL on failure", r->argument,
                       kind_names[r->kind]);
    } else {
        cr_assert_not_null(world);
        skim_world_stats stats;
        cr_expect_eq(skim_world_get_stats(world, &stats), SKIM_OK);
        cr_expect_eq(stats.triangles + stats.degenerate_triangles, a.triangle_count);
        skim_world_destroy(world);
    }
    return status;
}

#define WC(arg, kind, field, type, value, status) \
    { F_world_create, arg, kind, status, offsetof(world_create_args, field), type, value, NULL }

/* ================= world_destroy, world_get_stats ================= */
typedef struct world_args {
    bool null_world, null_out;
} world_args;

static skim_status run_world_destroy(const row *r)
{
    (void)r;
    skim_world_destroy(NULL); /* documented no-op */
    return SKIM_OK;
}

static skim_status run_world_get_stats(const row *r)
{
    world_args a = { 0 };
    apply(r, &a);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    GUARDED(skim_world_stats) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_world_get_stats(a.null_world ? NULL : world, a.null_out ? NULL : &out.value);
    expect_status(r, status);
    CHECK_CANARY(out, "the stats");
    skim_world_destroy(world);
    return status;
}
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

/* Writes a valid baked world into the scratch directory. */
static void write_baked(const scratch_dir *d, const char *name, unsigned char **bytes, size_t *size)
{
    char path[128];
    scratch_file(d, name, path, sizeof path);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    cr_assert_eq(skim_world_save(world, path), SKIM_OK, "%s", skim_last_error_message());
    skim_world_destroy(world);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    *bytes = malloc(*size);
    cr_assert_eq(fread(*bytes, 1, *size, f), *size);
    fclose(f);
}

/* The path a row asks for, creating the file it needs. */
static const char *make_path(const scratch_dir *d, int kind, char *buffer, size_t size)
{
    unsigned char *bytes = NULL;
    size_t n = 0;
    switch (kind) {
    case P_NULL: return NULL;
    case P_EMPTY_STRING: return "";
    case P_MISSING_DIR: return "/nonexistent-skim-dir/world.skim";
    case P_DIRECTORY: return d->path;
    case P_DEV_NULL: return "/dev/null";
    case P_EMPTY_FILE: scratch_write(d, "empty", "", 0); scratch_file(d, "empty", buffer, size); return buffer;
    case P_TEXT: {
        const char text[] = "# not a baked world\nv 0 0 0\n";
        scratch_write(d, "text", text, sizeof text - 1);
        scratch_file(d, "text", buffer, size);
        return buffer;
    }
    case P_BINARY_OBJ: {
        const unsigned char binary[] = { 'v', ' ', '0', 0, 1, 2, 0xff, '\n' };
        scratch_write(d, "binary.obj", binary, sizeof binary);
        scratch_file(d, "binary.obj", buffer, size);
        return buffer;
    }
    case P_TRUNCATED:
    case P_FLIPPED_BYTE:
    case P_HEADER_ONLY:
        write_baked(d, "source.skim", &bytes, &n);
        if (kind == P_TRUNCATED)
            n -= 64;
        if (kind == P_FLIPPED_BYTE)
            bytes[n / 2] ^= 0x10;
        if (kind == P_HEADER_ONLY)
            n = 128;
        scratch_write(d, "bad.skim", bytes, n);
        free(bytes);
        scratch_file(d, "bad.skim", buffer, size);
        return buffer;
    default:
        write_baked(d, "valid.skim", &bytes, &n);
        free(bytes);
        scratch_file(d, "valid.skim", buffer, size);
        return buffer;
    }
}

static skim_status run_world_save(const row *r)
{
    file_args a = { 0 };
    apply(r, &a);
    scratch_dir d;
    scratch_make(&d);
    char buffer[128];
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_world *loaded = NULL;
    const char *path;
    if (a.path == P_OWN_FILE) {
        /* Aliased: save a mapped world over the very file it maps. */
        path = make_path(&d, P_VALID, buffer, sizeof buffer);
        cr_assert_eq(skim_world_load(path, &loaded), SKIM_OK);
    } else if (a.path == P_VALID) {
        scratch_file(&d, "saved.skim", buffer, sizeof buffer);
        path = buffer;
    } else {
        path = make_path(&d, a.path, buffer, sizeof buffer);
    }
    skim_status status = skim_world_save(a.null_world ? NULL : loaded ? loaded : world, path);
    expect_status(r, status);
    if (status == SKIM_OK) {
        skim_world *again = NULL;
        cr_expect_eq(skim_world_load(path, &again), SKIM_OK, "the saved file does not load");
        skim_hit hit;
        skim_ellipsoid shape = sphere_of(1);
        const skim_world *probe[2] = { again, loaded ? loaded : world };
        for (int i = 0; i < 2; ++i)
            if (probe[i]) {
                cr_expect_eq(skim_sweep(probe[i], &shape, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 },
                                        NULL, &hit), SKIM_OK);
                cr_expect(hit.hit && fabsf(hit.t - 0.4f) < 1e-4f, "world %d answers wrongly after save", i);
            }
        skim_world_destroy(again);
    }
    skim_world_destroy(loaded);
    skim_world_destroy(world);
    scratch_remove(&d);
    return status;
}

static skim_status run_world_load(const row *r)
{
    file_args a = { 0 };
    apply(r, &a);
    scratch_dir d;
    scratch_make(&d);
    char buffer[128];
    const char *path = make_path(&d, a.path, buffer, sizeof buffer);
    skim_world *world = (skim_world *)&a;
    skim_status status = skim_world_load(path, a.null_out ? NULL : &world);
    expect_status(r, status);
    if (!a.null_out) {
        if (status != SKIM_OK)
            cr_expect_null(world, "skim_world_load: *out not NULL on failure");
        else
            skim_world_destroy(world);
    }
    scratch_remove(&d);
    return status;
}
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

static skim_status run_sweep(const row *r)
{
    sweep_args a = { .shape = sphere_of(1), .start = { 0, 0, 5 }, .delta = { 0, 0, -10 },
                     .query = skim_query_default() };
    apply(r, &a);
    if (a.sphere_radius > 0) {
        a.shape = sphere_of(a.sphere_radius);
        /* Keep the path within SKIM_SWEEP_MAX_RADII so the row tests the radius. */
        double length = sqrt((double)a.delta.x * a.delta.x + (double)a.delta.y * a.delta.y +
                             (double)a.delta.z * a.delta.z);
        double most = 1e5 * (double)a.sphere_radius;
        if (length > most) {
            a.delta.x = (float)(a.delta.x * most / length);
            a.delta.y = (float)(a.delta.y * most / length);
            a.delta.z = (float)(a.delta.z * most / length);
        }
    }
    const sweep_args before = a;
    skim_world *world = small_world(a.brute_force ? SKIM_ACCELERATOR_BRUTE_FORCE : SKIM_ACCELERATOR_BVH);
    GUARDED(skim_hit) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_sweep(a.null_world ? NULL : world, a.null_shape ? NULL : &a.shape, a.start,
                                    a.delta, a.null_query ? NULL : &a.query, a.null_out ? NULL : &out.value);
    expect_status(r, status);
    cr_expect(memcmp(&before, &a, sizeof a) == 0, "skim_sweep changed its inputs");
    if (!a.null_out) {
        CHECK_CANARY(out, "the hit");
        if (status != SKIM_OK)
            cr_expect_not(out.value.hit, "a failed sweep reports a hit");
        else if (out.value.hit) {
            cr_expect(out.value.t >= 0.0f && out.value.t <= 1.0f, "t = %g", (double)out.value.t);
            cr_expect(isfinite(out.value.point.x) && isfinite(out.value.normal.z), "non-finite hit");
            cr_expect_lt(out.value.triangle, (uint32_t)SMALL_TRIANGLES);
        }
    }
    skim_world_destroy(world);
    return status;
}
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

static void move_defaults(move_args *a)
{
    memset(a, 0, sizeof *a);
    a->shape = sphere_of(1);
    a->position = (skim_vec3){ 0, 0, 1.5f };
    a->displacement = (skim_vec3){ 5, 0, -1 };
    a->def = skim_move_def_default();
    a->friction[0] = 0.5f;
    a->friction[1] = 0.25f;
    a->def.material_friction_count = 2;
}

static void wire_friction(move_args *a)
{
    if (a->def.material_friction_count > 0 && !a->null_friction)
        a->def.material_friction = a->friction;
}

static skim_status run_move(const row *r)
{
    move_args a;
    move_defaults(&a);
    apply(r, &a);
    if (a.sphere_radius > 0)
        a.shape = sphere_of(a.sphere_radius);
    wire_friction(&a);
    const move_args before = a;
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    GUARDED(skim_move_result) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_move(a.null_world ? NULL : world, a.null_shape ? NULL : &a.shape, a.position,
                                   a.displacement, a.null_def ? NULL : &a.def, a.null_out ? NULL : &out.value);
    expect_status(r, status);
    cr_expect(memcmp(&before, &a, sizeof a) == 0, "skim_move changed its inputs");
    if (!a.null_out) {
        CHECK_CANARY(out, "the move result");
        if (status == SKIM_OK) {
            cr_expect(isfinite(out.value.position.x) && isfinite(out.value.position.y) &&
                          isfinite(out.value.position.z), "non-finite end");
            /* Started clear of the floor (z = 0) and the wall (x = 10): stays clear. */
            if (a.shape.radii.x == a.shape.radii.y && a.shape.radii.y == a.shape.radii.z)
                cr_expect(out.value.position.z >= a.shape.radii.z * 0.999f &&
                              out.value.position.x <= 10 - a.shape.radii.x * 0.999f,
                          "ended inside the floor or the wall: (%g %g %g)", (double)out.value.position.x,
                          (double)out.value.position.y, (double)out.value.position.z);
        }
    }
    skim_world_destroy(world);
    return status;
}
#define MV(arg, kind, field, type, value, status) \
    { F_move, arg, kind, status, offsetof(move_args, field), type, value, NULL }

/* ================= move_batch ================= */
#define BATCH 3
typedef struct batch_args {
    size_t count;
    bool null_world, null_shapes, null_positions, null_displacements, null_results, null_def;
    bool alias_positions, min_aligned;
    int bad_mover; /* index + 1 of a mover made invalid, 0 = none */
    int bad_field; /* 1 position NaN, 2 displacement Inf, 3 radius 0 */
    skim_move_def def;
} batch_args;

static skim_status run_move_batch(const row *r)
{
    batch_args a = { .count = BATCH, .def = skim_move_def_default() };
    apply(r, &a);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_ellipsoid shapes[BATCH] = { sphere_of(1), sphere_of(2), { { 1, 2, 1.5f }, { 0, 0, 0.6f, 0.8f } } };
    skim_vec3 positions[BATCH] = { { 0, 0, 1.5f }, { -5, 5, 3 }, { 2, -3, 4 } };
    skim_vec3 displacements[BATCH] = { { 5, 0, -1 }, { 20, 0, 0 }, { 0, 0, -10 } };
    if (a.alias_positions) /* the same array for both inputs: allowed, both are const */
        memcpy(displacements, positions, sizeof positions);
    if (a.bad_field && !a.bad_mover)
        a.bad_mover = 1;
    if (a.bad_mover) {
        int i = a.bad_mover - 1;
        if (a.bad_field == 0)
            a.bad_field = 1;
        if (a.bad_field == 1) positions[i].y = nan_f;
        if (a.bad_field == 2) displacements[i].x = INFINITY;
        if (a.bad_field == 3) shapes[i].radii.z = 0;
    }
    /* Minimal alignment: arrays 4 bytes past a 64-byte boundary. */
    _Alignas(64) unsigned char block[3][256];
    skim_ellipsoid *s = shapes;
    skim_vec3 *p = positions, *d = a.alias_positions ? positions : displacements;
    if (a.min_aligned) {
        s = (skim_ellipsoid *)(void *)(block[0] + 4);
        p = (skim_vec3 *)(void *)(block[1] + 4);
        d = (skim_vec3 *)(void *)(block[2] + 4);
        memcpy(s, shapes, sizeof shapes);
        memcpy(p, positions, sizeof positions);
        memcpy(d, displacements, sizeof displacements);
    }
    typedef skim_move_result batch_results[BATCH];
    GUARDED(batch_results) out;
    memset(&out, CANARY, sizeof out);
    skim_status status = skim_move_batch(a.null_world ? NULL : world, a.count, a.null_shapes ? NULL : s,
                                         a.null_positions ? NULL : p, a.null_displacements ? NULL : d,
                                         a.null_def ? NULL : &a.def, a.null_results ? NULL : out.value);
    expect_status(r, status);
    CHECK_CANARY(out, "results[count]");
    if (status != SKIM_OK || a.count == 0) {
        cr_expect(all_bytes(out.value, sizeof out.value, CANARY),
                  "skim_move_batch(%s = %s) wrote results although it %s", r->argument, kind_names[r->kind],
                  status != SKIM_OK ? "failed" : "had no movers");
    } else {
        /* Each result is what skim_move gives for that mover. */
        for (size_t i = 0; i < a.count; ++i) {
            skim_move_result single;
            cr_assert_eq(skim_move(world, &s[i], p[i], d[i], &a.def, &single), SKIM_OK);
            cr_expect(memcmp(&single.position, &out.value[i].position, sizeof single.position) == 0 &&
                          single.touched == out.value[i].touched,
                      "batch result %zu differs from skim_move", i);
        }
    }
    skim_world_destroy(world);
    return status;
}
#define MB(arg, kind, field, type, value, status) \
    { F_move_batch, arg, kind, status, offsetof(batch_args, field), type, value, NULL }

/* ================= crowds ================= */
#define CROWD_CAPACITY 4
typedef struct crowd_args {
    bool null_def, null_out, null_crowd, null_agent, null_out_id, null_world, null_jumped, fill;
    skim_crowd_def def;
    skim_agent_def agent;
    uint32_t id;
    skim_vec3 vector;
    float scalar;
} crowd_args;

/* A crowd of two agents (ids 0 and 2; id 1 was removed) standing on the
   small world's floor after 5 steps, capacity 4. */
static skim_crowd *small_crowd(const skim_world *world)
{
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = CROWD_CAPACITY;
    skim_crowd *crowd = NULL;
    cr_assert_eq(skim_crowd_create(&def, &crowd), SKIM_OK);
    skim_agent_def agent = skim_agent_def_default();
    agent.shape = sphere_of(1);
    uint32_t id;
    for (int i = 0; i < 3; ++i) {
        agent.position = (skim_vec3){ -10.0f + 5.0f * (float)i, 0, 1.2f };
        cr_assert_eq(skim_crowd_add(crowd, &agent, &id), SKIM_OK);
    }
    cr_assert_eq(skim_crowd_remove(crowd, 1), SKIM_OK);
    for (int frame = 0; frame < 5; ++frame)
        cr_assert_eq(skim_crowd_step(world, crowd, 0.02f), SKIM_OK);
    skim_agent_info info;
    cr_assert_eq(skim_crowd_get_agent(crowd, 0, &info), SKIM_OK);
    cr_assert(info.state & SKIM_AGENT_ON_FLOOR, "agent 0 should stand on the floor (state %#x)", info.state);
    return crowd;
}

static void crowd_defaults(crowd_args *a)
{
    memset(a, 0, sizeof *a);
    a->def = skim_crowd_def_default();
    a->agent = skim_agent_def_default();
    a->agent.shape = sphere_of(1);
    a->agent.position = (skim_vec3){ 5, 5, 1.2f };
    a->vector = (skim_vec3){ 1, 2, 0 };
    a->scalar = 0.02f;
}

/* After a call on a crowd: a failed call left it as it was (hash), and
   whatever was accepted, the crowd still steps. */
static void crowd_after(const row *r, skim_crowd *crowd, const skim_world *world, uint64_t hash_before,
                        uint32_t count_before, skim_status status)
{
    if (status != SKIM_OK) {
        cr_expect_eq(skim_crowd_hash(crowd), hash_before, "%s(%s = %s) failed but changed the crowd",
                     function_names[r->fn], r->argument, kind_names[r->kind]);
        cr_expect_eq(skim_crowd_count(crowd), count_before);
    }
    skim_status next = skim_crowd_step(world, crowd, 0.02f);
    cr_expect_eq(next, SKIM_OK, "%s(%s = %s): the crowd no longer steps: %s", function_names[r->fn], r->argument,
                 kind_names[r->kind], skim_last_error_message());
}

static skim_status run_crowd(const row *r)
{
    crowd_args a;
    crowd_defaults(&a);
    if (r->fn == F_crowd_set_velocity || r->fn == F_crowd_teleport)
        a.vector = (skim_vec3){ 1, 2, 3 };
    if (r->fn == F_crowd_jump)
        a.scalar = 10;
    apply(r, &a);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_crowd *crowd = NULL;
    skim_status status = SKIM_OK;
    if (r->fn == F_crowd_create) {
        skim_crowd *made = (skim_crowd *)&a;
        status = skim_crowd_create(a.null_def ? NULL : &a.def, a.null_out ? NULL : &made);
        expect_status(r, status);
        if (!a.null_out && status != SKIM_OK)
            cr_expect_null(made, "skim_crowd_create: *out not NULL on failure");
        if (!a.null_out && status == SKIM_OK) {
            skim_agent_def agent = a.agent;
            uint32_t id;
            cr_expect_eq(skim_crowd_add(made, &agent, &id), SKIM_OK);
            cr_expect_eq(skim_crowd_step(world, made, 0.02f), SKIM_OK,
                         "a crowd created with (%s = %s) cannot step: %s", r->argument, kind_names[r->kind],
                         skim_last_error_message());
            skim_crowd_destroy(made);
        }
        skim_world_destroy(world);
        return status;
    }
    crowd = small_crowd(world);
    if (a.fill) {
        skim_agent_def agent = a.agent;
        uint32_t id;
        for (int i = 0; i < 2; ++i) {
            agent.position.x += 3;
            cr_assert_eq(skim_crowd_add(crowd, &agent, &id), SKIM_OK);
        }
    }
    skim_crowd *target = a.null_crowd ? NULL : crowd;
    const uint64_t hash = skim_crowd_hash(crowd);
    const uint32_t count = skim_crowd_count(crowd);
    switch (r->fn) {
    case F_crowd_add: {
        GUARDED(uint32_t) id;
        memset(&id, CANARY, sizeof id);
        status = skim_crowd_add(target, a.null_agent ? NULL : &a.agent, a.null_out_id ? NULL : &id.value);
        expect_status(r, status);
        CHECK_CANARY(id, "the id");
        if (status != SKIM_OK && !a.null_out_id)
            cr_expect(all_bytes(&id.value, sizeof id.value, CANARY), "failed add wrote *out_id");
        if (status == SKIM_OK)
            cr_expect_eq(id.value, 1u, "the lowest free id is 1");
        break;
    }
    case F_crowd_remove:
        status = skim_crowd_remove(target, a.id);
        expect_status(r, status);
        break;
    case F_crowd_set_velocity:
        status = skim_crowd_set_velocity(target, a.id, a.vector);
        expect_status(r, status);
        break;
    case F_crowd_jump: {
        /* Agent 0 stands on the floor after the first step. */
        GUARDED(bool) jumped;
        memset(&jumped, CANARY, sizeof jumped);
        status = skim_crowd_jump(target, a.id, a.scalar, a.null_jumped ? NULL : &jumped.value);
        expect_status(r, status);
        if (!a.null_jumped) {
            CHECK_CANARY(jumped, "*jumped");
            if (status != SKIM_OK)
                cr_expect_not(jumped.value, "a failed jump says it jumped");
        }
        break;
    }
    case F_crowd_teleport:
        status = skim_crowd_teleport(target, a.id, a.vector);
        expect_status(r, status);
        break;
    case F_crowd_step:
        status = skim_crowd_step(a.null_world ? NULL : world, target, a.scalar);
        expect_status(r, status);
        break;
    case F_crowd_get_agent: {
        GUARDED(skim_agent_info) out;
        memset(&out, CANARY, sizeof out);
        status = skim_crowd_get_agent(target, a.id, a.null_out ? NULL : &out.value);
        expect_status(r, status);
        CHECK_CANARY(out, "the agent info");
        break;
    }
    case F_crowd_get_stats: {
        GUARDED(skim_crowd_stats) out;
        memset(&out, CANARY, sizeof out);
        status = skim_crowd_get_stats(target, a.null_out ? NULL : &out.value);
        expect_status(r, status);
        CHECK_CANARY(out, "the stats");
        break;
    }
    default:
        cr_assert_fail("no crowd runner for %s", function_names[r->fn]);
    }
    crowd_after(r, crowd, world, hash, count, status);
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    return status;
}
#define CR(fn, arg, kind, field, type, value, status) \
    { fn, arg, kind, status, offsetof(crowd_args, field), type, value, NULL }
#define CR_FINDING(fn, arg, kind, field, type, value, status, finding) \
    { fn, arg, kind, status, offsetof(crowd_args, field), type, value, finding }

/* Functions that take only a crowd pointer and return a value: NULL gives
   the documented neutral value (0, NULL, the FNV offset basis). */
static skim_status run_crowd_query_null(const row *r)
{
    switch (r->fn) {
    case F_crowd_count: cr_expect_eq(skim_crowd_count(NULL), 0u); break;
    case F_crowd_capacity: cr_expect_eq(skim_crowd_capacity(NULL), 0u); break;
    case F_crowd_positions: cr_expect_null(skim_crowd_positions(NULL)); break;
    case F_crowd_velocities: cr_expect_null(skim_crowd_velocities(NULL)); break;
    case F_crowd_states: cr_expect_null(skim_crowd_states(NULL)); break;
    case F_crowd_hash: cr_expect_eq(skim_crowd_hash(NULL), 14695981039346656037ull); break;
    case F_crowd_destroy: skim_crowd_destroy(NULL); break;
    default: cr_assert_fail("no runner");
    }
    return SKIM_OK;
}
#define CQ(fn) { fn, "crowd", K_NULL, SKIM_OK, 0, T_NONE, 0, NULL }

/* ================= meshes ================= */
typedef struct mesh_args {
    bool null_out, null_text, null_name, alias_name, unterminated;
    int path;
    size_t length; /* 0 = the text's own length */
    bool zero_length;
} mesh_args;

static const char valid_obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

static void expect_empty_mesh(const row *r, const skim_mesh_data *m)
{
    cr_expect(!m->positions && !m->indices && !m->materials && !m->material_names && m->vertex_count == 0 &&
                  m->triangle_count == 0 && m->material_count == 0, "%s(%s = %s): *out not left empty on failure",
              function_names[r->fn], r->argument, kind_names[r->kind]);
}

static skim_status run_mesh(const row *r)
{
    mesh_args a = { 0 };
    apply(r, &a);
    skim_status status = SKIM_OK;
    GUARDED(skim_mesh_data) out;
    memset(&out, CANARY, sizeof out);
    switch (r->fn) {
    case F_mesh_data_view: {
        skim_mesh view = skim_mesh_data_view(NULL);
        cr_expect(!view.positions && !view.indices && !view.materials && view.vertex_count == 0 &&
                      view.triangle_count == 0, "view of NULL is not empty");
        return SKIM_OK;
    }
    case F_mesh_data_free: {
        skim_mesh_data_free(NULL);
        skim_mesh_data zeroed = { 0 };
        skim_mesh_data_free(&zeroed);
        cr_assert_eq(skim_scene_default(&zeroed), SKIM_OK);
        skim_mesh_data_free(&zeroed);
        skim_mesh_data_free(&zeroed); /* freeing twice: the first left it empty */
        return SKIM_OK;
    }
    case F_scene_default:
        status = skim_scene_default(a.null_out ? NULL : &out.value);
        expect_status(r, status);
        if (!a.null_out) {
            CHECK_CANARY(out, "the mesh data");
            if (status == SKIM_OK)
                skim_mesh_data_free(&out.value);
        }
        return status;
    case F_mesh_load_obj: {
        scratch_dir d;
        scratch_make(&d);
        char buffer[128];
        const char *path;
        if (a.path == P_VALID) {
            scratch_write(&d, "valid.obj", valid_obj, sizeof valid_obj - 1);
            scratch_file(&d, "valid.obj", buffer, sizeof buffer);
            path = buffer;
        } else {
            path = make_path(&d, a.path, buffer, sizeof buffer);
        }
        status = skim_mesh_load_obj(path, a.null_out ? NULL : &out.value);
        expect_status(r, status);
        if (!a.null_out) {
            CHECK_CANARY(out, "the mesh data");
            if (status != SKIM_OK)
                expect_empty_mesh(r, &out.value);
            else
                skim_mesh_data_free(&out.value);
        }
        scratch_remove(&d);
        return status;
    }
    case F_mesh_parse_obj: {
        /* Exactly sized heap copies: ASan catches a read past the length. */
        size_t n = sizeof valid_obj - 1;
        char *text = malloc(n);
        memcpy(text, valid_obj, n);
        size_t length = a.zero_length ? 0 : a.length ? a.length : n;
        const char *name = a.null_name ? NULL : a.alias_name ? text : "hardening.obj";
        status = skim_mesh_parse_obj(a.null_text ? NULL : text, length, name, a.null_out ? NULL : &out.value);
        expect_status(r, status);
        if (!a.null_out) {
            CHECK_CANARY(out, "the mesh data");
            if (status != SKIM_OK)
                expect_empty_mesh(r, &out.value);
            else {
                cr_expect_eq(out.value.triangle_count, 1u);
                skim_mesh_data_free(&out.value);
            }
        }
        if (status != SKIM_OK && a.null_name && !a.null_text && !a.null_out)
            cr_expect(strncmp(skim_last_error_message(), "<memory>:", 9) == 0, "message '%s'",
                      skim_last_error_message());
        cr_expect(memcmp(text, valid_obj, n) == 0, "skim_mesh_parse_obj changed its text");
        free(text);
        return status;
    }
    default:
        cr_assert_fail("no mesh runner for %s", function_names[r->fn]);
    }
    return status;
}
#define MS(fn, arg, kind, field, type, value, status) \
    { fn, arg, kind, status, offsetof(mesh_args, field), type, value, NULL }

/* ================= no-argument functions ================= */
static skim_status run_basics(const row *r)
{
    switch (r->fn) {
    case F_status_string:
        cr_expect_not_null(skim_status_string((skim_status)r->value));
        cr_expect_gt(strlen(skim_status_string((skim_status)r->value)), 0u);
        break;
    case F_last_error_message:
        cr_expect_not_null(skim_last_error_message());
        break;
    case F_isa_name: cr_expect_not_null(skim_isa_name()); break;
    case F_isa_available: cr_expect_not_null(skim_isa_available()); break;
    case F_isa_status: {
        skim_status status = skim_isa_status();
        cr_expect(status == SKIM_OK || status == SKIM_ERROR_INVALID_ARGUMENT);
        cr_expect_eq(status == SKIM_OK, strcmp(skim_isa_name(), "invalid") != 0);
        break;
    }
    case F_world_def_default: {
        skim_mesh mesh = small_mesh();
        skim_world_def def = skim_world_def_default();
        skim_world *world = NULL;
        cr_expect_eq(skim_world_create(&mesh, &def, &world), SKIM_OK, "the default world def is rejected");
        skim_world_destroy(world);
        break;
    }
    case F_query_default: {
        skim_query q = skim_query_default();
        cr_expect_eq(q.material_mask, UINT64_MAX);
        cr_expect_not(q.cull_back_faces);
        break;
    }
    case F_move_def_default:
    case F_crowd_def_default:
    case F_agent_def_default: {
        skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
        skim_move_def def = skim_move_def_default();
        skim_move_result out;
        skim_ellipsoid shape = sphere_of(1);
        cr_expect_eq(skim_move(world, &shape, (skim_vec3){ 0, 0, 2 }, (skim_vec3){ 1, 0, 0 }, &def, &out), SKIM_OK);
        skim_crowd_def cdef = skim_crowd_def_default();
        skim_crowd *crowd = NULL;
        cr_expect_eq(skim_crowd_create(&cdef, &crowd), SKIM_OK);
        skim_agent_def agent = skim_agent_def_default();
        uint32_t id;
        cr_expect_eq(skim_crowd_add(crowd, &agent, &id), SKIM_OK, "the default agent is rejected");
        cr_expect_eq(skim_crowd_step(world, crowd, 0.02f), SKIM_OK);
        skim_crowd_destroy(crowd);
        skim_world_destroy(world);
        break;
    }
    default:
        cr_assert_fail("no runner");
    }
    return SKIM_OK;
}
#define BASIC(fn, arg, kind, value) { fn, arg, kind, SKIM_OK, 0, T_NONE, value, NULL }

/* ================= the table ================= */
#define INV SKIM_ERROR_INVALID_ARGUMENT
#define IO SKIM_ERROR_IO
#define FMT SKIM_ERROR_FORMAT
#define OK SKIM_OK
#define U32MAX 4294967295.0

static const row table_rows[] = {
    /* basics */
    BASIC(F_status_string, "status", K_RANGE, 99),
    BASIC(F_status_string, "status", K_NEGATIVE, -1),
    BASIC(F_status_string, "status", K_VALID, SKIM_ERROR_FORMAT),
    BASIC(F_last_error_message, "(none)", K_VALID, 0),
    BASIC(F_isa_name, "(none)", K_VALID, 0),
    BASIC(F_isa_available, "(none)", K_VALID, 0),
    BASIC(F_isa_status, "(none)", K_VALID, 0),
    BASIC(F_world_def_default, "(none)", K_VALID, 0),
    BASIC(F_query_default, "(none)", K_VALID, 0),
    BASIC(F_move_def_default, "(none)", K_VALID, 0),
    BASIC(F_crowd_def_default, "(none)", K_VALID, 0),
    BASIC(F_agent_def_default, "(none)", K_VALID, 0),

    /* skim_world_create */
    WC("(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    WC("mesh", K_NULL, null_mesh, T_BOOL, 1, INV),
    WC("out", K_NULL, null_out, T_BOOL, 1, INV),
    WC("def", K_NULL, null_def, T_BOOL, 1, OK),
    WC("mesh->positions", K_NULL, null_positions, T_BOOL, 1, INV),
    WC("mesh->indices", K_NULL, null_indices, T_BOOL, 1, INV),
    WC("mesh->materials", K_NULL, null_materials, T_BOOL, 1, OK),
    WC("mesh->positions[0]", K_NAN, positions[0], T_FLOAT, NAN, INV),
    WC("mesh->positions[10]", K_INF, positions[10], T_FLOAT, INFINITY, INV),
    WC("mesh->positions[20]", K_NEG_INF, positions[20], T_FLOAT, -INFINITY, INV),
    WC("mesh->positions[20] (3e38, beyond SKIM_COORDINATE_MAX)", K_HUGE, positions[20], T_FLOAT, HUGE_F, INV),
    WC("mesh->positions[3] (-3e38)", K_HUGE, positions[3], T_FLOAT, -HUGE_F, INV),
    WC("mesh->positions[3] (-1e18, at SKIM_COORDINATE_MAX)", K_HUGE, positions[3], T_FLOAT, -1e18, OK),
    WC("mesh->triangle_count", K_ZERO, triangle_count, T_U32, 0, OK),
    WC("mesh->vertex_count", K_ZERO, vertex_count, T_U32, 0, INV),
    WC("mesh->indices[8]", K_RANGE, indices[8], T_U32, SMALL_VERTICES, INV),
    WC("mesh->indices[0]", K_RANGE, indices[0], T_U32, U32MAX, INV),
    WC("mesh->materials[2]", K_HUGE, materials[2], T_U16, 65535, OK),
    WC("mesh->vertex_count > UINT32_MAX / 3", K_OVERFLOW, vertex_count, T_U32, 1431655766.0, INV),
    WC("mesh->triangle_count = UINT32_MAX", K_OVERFLOW, triangle_count, T_U32, U32MAX, INV),
    WC("mesh->triangle_count > UINT32_MAX / 3", K_OVERFLOW, triangle_count, T_U32, 1431655766.0, INV),
    WC("mesh arrays", K_ALIGN, min_aligned, T_BOOL, 1, OK),
    WC("def->accelerator", K_RANGE, def.accelerator, T_INT, 7, INV),
    WC("def->accelerator", K_NEGATIVE, def.accelerator, T_INT, -1, INV),
    WC("def->max_leaf_triangles", K_ZERO, def.max_leaf_triangles, T_INT, 0, INV),
    WC("def->max_leaf_triangles", K_RANGE, def.max_leaf_triangles, T_INT, 17, INV),
    WC("def->max_leaf_triangles", K_NEGATIVE, def.max_leaf_triangles, T_INT, -4, INV),
    WC("def->sah_bins", K_RANGE, def.sah_bins, T_INT, 7, INV),
    WC("def->sah_bins", K_HUGE, def.sah_bins, T_INT, 2147483647.0, INV),
    WC("def->build_threads", K_NEGATIVE, def.build_threads, T_INT, -1, INV),
    WC("def->build_threads", K_HUGE, def.build_threads, T_INT, 1000, OK),
    WC("def->degenerate_area", K_NAN, def.degenerate_area, T_FLOAT, NAN, INV),
    WC("def->degenerate_area", K_INF, def.degenerate_area, T_FLOAT, INFINITY, INV),
    WC("def->degenerate_area", K_NEGATIVE, def.degenerate_area, T_FLOAT, -1, INV),
    WC("def->degenerate_area (drops every triangle)", K_HUGE, def.degenerate_area, T_FLOAT, HUGE_F, OK),
    /* Was a SEGV: findings::world_create_null_positions_without_triangles_crashes. */
    WC("mesh->positions (vertex_count 7, triangle_count 0)", K_NULL, vertices_only, T_INT, 2, INV),
    WC("mesh (vertices, no triangles)", K_ZERO, vertices_only, T_INT, 1, OK),

    /* skim_world_destroy, skim_world_get_stats */
    { F_world_destroy, "world", K_NULL, OK, 0, T_NONE, 0, NULL },
    WS(F_world_get_stats, "world", K_NULL, null_world, INV),
    WS(F_world_get_stats, "out", K_NULL, null_out, INV),
    { F_world_get_stats, "(all valid)", K_VALID, OK, 0, T_NONE, 0, NULL },

    /* skim_world_save */
    FILE_ROW(F_world_save, "(all valid)", K_VALID, P_VALID, OK),
    FILE_NULL(F_world_save, "world", null_world, INV),
    FILE_ROW(F_world_save, "path", K_NULL, P_NULL, INV),
    FILE_ROW(F_world_save, "path = \"\"", K_FILE, P_EMPTY_STRING, IO),
    FILE_ROW(F_world_save, "path in a missing directory", K_FILE, P_MISSING_DIR, IO),
    FILE_ROW(F_world_save, "path = a directory", K_FILE, P_DIRECTORY, IO),
    FILE_ROW(F_world_save, "path = the file the (loaded) world maps", K_ALIAS, P_OWN_FILE, OK),

    /* skim_world_load */
    FILE_ROW(F_world_load, "(all valid)", K_VALID, P_VALID, OK),
    FILE_NULL(F_world_load, "out", null_out, INV),
    FILE_ROW(F_world_load, "path", K_NULL, P_NULL, INV),
    FILE_ROW(F_world_load, "path = \"\"", K_FILE, P_EMPTY_STRING, IO),
    FILE_ROW(F_world_load, "path missing", K_FILE, P_MISSING_DIR, IO),
    /* Was FORMAT on tmpfs: findings::world_load_directory_status_depends_on_filesystem. */
    FILE_ROW(F_world_load, "path = a directory", K_FILE, P_DIRECTORY, IO),
    FILE_ROW(F_world_load, "an empty file", K_FILE, P_EMPTY_FILE, FMT),
    FILE_ROW(F_world_load, "/dev/null (not a regular file)", K_FILE, P_DEV_NULL, IO),
    FILE_ROW(F_world_load, "a truncated file", K_FILE, P_TRUNCATED, FMT),
    FILE_ROW(F_world_load, "a flipped byte", K_FILE, P_FLIPPED_BYTE, FMT),
    FILE_ROW(F_world_load, "a text file", K_FILE, P_TEXT, FMT),
    FILE_ROW(F_world_load, "the header alone", K_FILE, P_HEADER_ONLY, FMT),

    /* skim_sweep */
    SW("(all valid)", K_VALID, null_query, T_NONE, 0, OK),
    SW("world", K_NULL, null_world, T_BOOL, 1, INV),
    SW("shape", K_NULL, null_shape, T_BOOL, 1, INV),
    SW("query", K_NULL, null_query, T_BOOL, 1, OK),
    SW("out", K_NULL, null_out, T_BOOL, 1, INV),
    SW("start.x", K_NAN, start.x, T_FLOAT, NAN, INV),
    SW("start.y", K_INF, start.y, T_FLOAT, INFINITY, INV),
    SW("start.z", K_NEG_INF, start.z, T_FLOAT, -INFINITY, INV),
    SW("delta.x", K_INF, delta.x, T_FLOAT, INFINITY, INV),
    SW("delta.y", K_NEG_INF, delta.y, T_FLOAT, -INFINITY, INV),
    SW("delta.z", K_NAN, delta.z, T_FLOAT, NAN, INV),
    SW("delta", K_ZERO, delta.z, T_FLOAT, 0, OK),
    SW("start.x (1e30, beyond SKIM_COORDINATE_MAX)", K_HUGE, start.x, T_FLOAT, 1e30, INV),
    SW("start.x (1e17, far from everything)", K_HUGE, start.x, T_FLOAT, 1e17, OK),
    SW("delta.z (-3e38)", K_HUGE, delta.z, T_FLOAT, -HUGE_F, INV),
    SW("delta.z (-1e6 radii = SKIM_SWEEP_MAX_RADII)", K_VALID, delta.z, T_FLOAT, -1e6, OK),
    SW("delta.z (-1.01e6 radii)", K_RANGE, delta.z, T_FLOAT, -1.01e6, INV),
    SW("shape->radii.x", K_NAN, shape.radii.x, T_FLOAT, NAN, INV),
    SW("shape->radii.y", K_INF, shape.radii.y, T_FLOAT, INFINITY, INV),
    SW("shape->radii.z", K_ZERO, shape.radii.z, T_FLOAT, 0, INV),
    SW("shape->radii.x", K_NEGATIVE, shape.radii.x, T_FLOAT, -1, INV),
    SW("shape->radii.x (ratio 1e7)", K_RANGE, shape.radii.x, T_FLOAT, 1e7, INV),
    SW("shape->radii.x (ratio 1e3 = SKIM_RADIUS_RATIO_MAX)", K_VALID, shape.radii.x, T_FLOAT, 1e3, OK),
    SW("shape->radii.x (ratio 1.01e3)", K_RANGE, shape.radii.x, T_FLOAT, 1.01e3, INV),
    SW("shape->rotation.w", K_NAN, shape.rotation.w, T_FLOAT, NAN, INV),
    SW("shape->rotation.x", K_NEG_INF, shape.rotation.x, T_FLOAT, -INFINITY, INV),
    SW("shape->rotation.w (zero quaternion)", K_ZERO, shape.rotation.w, T_FLOAT, 0, INV),
    SW("shape->rotation.w (length 2)", K_RANGE, shape.rotation.w, T_FLOAT, 2, INV),
    SW("query->material_mask", K_ZERO, query.material_mask, T_U64, 0, OK),
    SW("query->cull_back_faces", K_VALID, query.cull_back_faces, T_BOOL, 1, OK),
    SW("world (brute force)", K_VALID, brute_force, T_BOOL, 1, OK),
    /* Were wrong answers with SKIM_OK (findings::sweep_tiny_radius_reports_contact_at_start,
       sweep_huge_radius_misses_overlap); now outside [SKIM_RADIUS_MIN, SKIM_RADIUS_MAX]. */
    SW("shape->radii (all 1e-12)", K_RANGE, sphere_radius, T_FLOAT, 1e-12, INV),
    SW("shape->radii (all 9.9e-7, below SKIM_RADIUS_MIN)", K_RANGE, sphere_radius, T_FLOAT, 9.9e-7, INV),
    SW("shape->radii (all 1e-6 = SKIM_RADIUS_MIN)", K_VALID, sphere_radius, T_FLOAT, 1e-6, OK),
    SW("shape->radii (all 1e9 = SKIM_RADIUS_MAX)", K_VALID, sphere_radius, T_FLOAT, 1e9, OK),
    SW("shape->radii (all 1e15)", K_HUGE, sphere_radius, T_FLOAT, 1e15, INV),

    /* skim_move */
    MV("(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    MV("world", K_NULL, null_world, T_BOOL, 1, INV),
    MV("shape", K_NULL, null_shape, T_BOOL, 1, INV),
    MV("def", K_NULL, null_def, T_BOOL, 1, OK),
    MV("out", K_NULL, null_out, T_BOOL, 1, INV),
    MV("position.x", K_NAN, position.x, T_FLOAT, NAN, INV),
    MV("position.y", K_INF, position.y, T_FLOAT, INFINITY, INV),
    MV("position.z", K_NEG_INF, position.z, T_FLOAT, -INFINITY, INV),
    MV("displacement.x", K_NAN, displacement.x, T_FLOAT, NAN, INV),
    MV("displacement.y", K_NEG_INF, displacement.y, T_FLOAT, -INFINITY, INV),
    MV("displacement.z", K_INF, displacement.z, T_FLOAT, INFINITY, INV),
    MV("displacement", K_ZERO, displacement.x, T_FLOAT, 0, OK),
    MV("position.x (1e19, beyond the 1e18 limit)", K_HUGE, position.x, T_FLOAT, 1e19, INV),
    MV("displacement.y (-1e19)", K_HUGE, displacement.y, T_FLOAT, -1e19, INV),
    MV("shape->radii.x", K_ZERO, shape.radii.x, T_FLOAT, 0, INV),
    MV("shape->radii.y", K_NAN, shape.radii.y, T_FLOAT, NAN, INV),
    MV("shape->rotation.z", K_INF, shape.rotation.z, T_FLOAT, INFINITY, INV),
    MV("def->up", K_ZERO, def.up.z, T_FLOAT, 0, INV),
    MV("def->up.x", K_NAN, def.up.x, T_FLOAT, NAN, INV),
    MV("def->up.z (length 2)", K_RANGE, def.up.z, T_FLOAT, 2, INV),
    MV("def->max_iterations", K_ZERO, def.max_iterations, T_INT, 0, INV),
    MV("def->max_iterations", K_NEGATIVE, def.max_iterations, T_INT, -1, INV),
    MV("def->max_iterations", K_RANGE, def.max_iterations, T_INT, 65, INV),
    MV("def->max_iterations = 64", K_VALID, def.max_iterations, T_INT, 64, OK),
    MV("def->skin_width", K_NEGATIVE, def.skin_width, T_FLOAT, -0.01, INV),
    MV("def->skin_width", K_RANGE, def.skin_width, T_FLOAT, 0.26, INV),
    MV("def->skin_width", K_NAN, def.skin_width, T_FLOAT, NAN, INV),
    MV("def->skin_width = 0.25", K_VALID, def.skin_width, T_FLOAT, 0.25, OK),
    MV("def->max_slope_degrees", K_ZERO, def.max_slope_degrees, T_FLOAT, 0, INV),
    MV("def->max_slope_degrees", K_RANGE, def.max_slope_degrees, T_FLOAT, 90, INV),
    MV("def->max_slope_degrees", K_NEGATIVE, def.max_slope_degrees, T_FLOAT, -10, INV),
    MV("def->max_slope_degrees", K_NAN, def.max_slope_degrees, T_FLOAT, NAN, INV),
    MV("def->step_height", K_NEGATIVE, def.step_height, T_FLOAT, -1, INV),
    MV("def->step_height", K_INF, def.step_height, T_FLOAT, INFINITY, INV),
    MV("def->step_height", K_NAN, def.step_height, T_FLOAT, NAN, INV),
    MV("def->snap_distance", K_NEGATIVE, def.snap_distance, T_FLOAT, -1, INV),
    MV("def->snap_distance", K_INF, def.snap_distance, T_FLOAT, INFINITY, INV),
    MV("def->gravity.z", K_NAN, def.gravity.z, T_FLOAT, NAN, INV),
    MV("def->gravity.x", K_NEG_INF, def.gravity.x, T_FLOAT, -INFINITY, INV),
    MV("def->material_friction (count 2)", K_NULL, null_friction, T_BOOL, 1, INV),
    MV("def->material_friction_count (65537)", K_OVERFLOW, def.material_friction_count, T_U32, 65537, INV),
    MV("def->material_friction[0]", K_NEGATIVE, friction[0], T_FLOAT, -0.1, INV),
    MV("def->material_friction[1]", K_RANGE, friction[1], T_FLOAT, 1.1, INV),
    MV("def->material_friction[1]", K_NAN, friction[1], T_FLOAT, NAN, INV),
    /* Were SKIM_OK with a fall through the floor or NaN
       (findings::move_huge_gravity_falls_through_floor,
       move_tiny_radius_tunnels_through_floor). */
    MV("def->step_height (3e38)", K_HUGE, def.step_height, T_FLOAT, HUGE_F, INV),
    MV("def->snap_distance (1e19)", K_HUGE, def.snap_distance, T_FLOAT, 1e19, INV),
    MV("def->gravity.z (-3e38)", K_HUGE, def.gravity.z, T_FLOAT, -HUGE_F, INV),
    MV("def->step_height (1e18)", K_VALID, def.step_height, T_FLOAT, 1e18, OK),
    MV("shape->radii (all 1e-19)", K_RANGE, sphere_radius, T_FLOAT, 1e-19, INV),
    MV("shape->radii.z (ratio 1e4)", K_RANGE, shape.radii.z, T_FLOAT, 1e4, INV),

    /* skim_move_batch */
    MB("(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    MB("world", K_NULL, null_world, T_BOOL, 1, INV),
    MB("shapes", K_NULL, null_shapes, T_BOOL, 1, INV),
    MB("positions", K_NULL, null_positions, T_BOOL, 1, INV),
    MB("displacements", K_NULL, null_displacements, T_BOOL, 1, INV),
    MB("results", K_NULL, null_results, T_BOOL, 1, INV),
    MB("def", K_NULL, null_def, T_BOOL, 1, OK),
    MB("count (arrays valid)", K_ZERO, count, T_SIZE, 0, OK),
    MB("count = SIZE_MAX", K_OVERFLOW, count, T_SIZE, 1.9e19, INV),
    MB("positions[2].y (mover 3 of 3)", K_NAN, bad_mover, T_INT, 3, INV),
    { F_move_batch, "displacements[0].x (mover 1 of 3)", K_INF, INV, offsetof(batch_args, bad_field), T_INT, 2, NULL },
    { F_move_batch, "shapes[0].radii.z", K_ZERO, INV, offsetof(batch_args, bad_field), T_INT, 3, NULL },
    MB("positions == displacements", K_ALIAS, alias_positions, T_BOOL, 1, OK),
    MB("shapes, positions, displacements", K_ALIGN, min_aligned, T_BOOL, 1, OK),
    MB("def->max_iterations", K_ZERO, def.max_iterations, T_INT, 0, INV),
    MB("def->skin_width", K_INF, def.skin_width, T_FLOAT, INFINITY, INV),
    MB("def->gravity.y", K_NAN, def.gravity.y, T_FLOAT, NAN, INV),

    /* meshes */
    MS(F_mesh_data_view, "data", K_NULL, null_out, T_BOOL, 1, OK),
    MS(F_mesh_data_free, "data (NULL, empty, freed twice)", K_NULL, null_out, T_BOOL, 1, OK),
    MS(F_scene_default, "out", K_NULL, null_out, T_BOOL, 1, INV),
    MS(F_scene_default, "(all valid)", K_VALID, null_text, T_NONE, 0, OK),
    MS(F_mesh_load_obj, "(all valid)", K_VALID, path, T_INT, P_VALID, OK),
    MS(F_mesh_load_obj, "out", K_NULL, null_out, T_BOOL, 1, INV),
    MS(F_mesh_load_obj, "path", K_NULL, path, T_INT, P_NULL, INV),
    MS(F_mesh_load_obj, "path missing", K_FILE, path, T_INT, P_MISSING_DIR, IO),
    MS(F_mesh_load_obj, "path = \"\"", K_FILE, path, T_INT, P_EMPTY_STRING, IO),
    MS(F_mesh_load_obj, "path = a directory", K_FILE, path, T_INT, P_DIRECTORY, IO),
    MS(F_mesh_load_obj, "an empty file", K_FILE, path, T_INT, P_EMPTY_FILE, FMT),
    MS(F_mesh_load_obj, "binary data", K_FILE, path, T_INT, P_BINARY_OBJ, FMT),
    MS(F_mesh_load_obj, "/dev/null", K_FILE, path, T_INT, P_DEV_NULL, FMT),
    MS(F_mesh_parse_obj, "(all valid, not NUL-terminated)", K_VALID, null_name, T_NONE, 0, OK),
    MS(F_mesh_parse_obj, "out", K_NULL, null_out, T_BOOL, 1, INV),
    MS(F_mesh_parse_obj, "text (length > 0)", K_NULL, null_text, T_BOOL, 1, INV),
    MS(F_mesh_parse_obj, "name", K_NULL, null_name, T_BOOL, 1, OK),
    MS(F_mesh_parse_obj, "length", K_ZERO, zero_length, T_BOOL, 1, FMT),
    MS(F_mesh_parse_obj, "length (cuts the face line)", K_RANGE, length, T_SIZE, 29, FMT),
    MS(F_mesh_parse_obj, "name == text", K_ALIAS, alias_name, T_BOOL, 1, OK),

    /* crowds */
    CR(F_crowd_create, "(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    CR(F_crowd_create, "def", K_NULL, null_def, T_BOOL, 1, OK),
    CR(F_crowd_create, "out", K_NULL, null_out, T_BOOL, 1, INV),
    CR(F_crowd_create, "def->capacity", K_ZERO, def.capacity, T_U32, 0, INV),
    CR(F_crowd_create, "def->capacity (2^28 + 1)", K_OVERFLOW, def.capacity, T_U32, 268435457.0, INV),
    CR(F_crowd_create, "def->capacity = UINT32_MAX", K_OVERFLOW, def.capacity, T_U32, U32MAX, INV),
    CR(F_crowd_create, "def->gravity", K_NEGATIVE, def.gravity, T_FLOAT, -1, INV),
    CR(F_crowd_create, "def->gravity", K_NAN, def.gravity, T_FLOAT, NAN, INV),
    CR(F_crowd_create, "def->gravity", K_INF, def.gravity, T_FLOAT, INFINITY, INV),
    CR(F_crowd_create, "def->gravity", K_ZERO, def.gravity, T_FLOAT, 0, OK),
    CR(F_crowd_create, "def->solver_iterations", K_ZERO, def.solver_iterations, T_INT, 0, INV),
    CR(F_crowd_create, "def->solver_iterations", K_RANGE, def.solver_iterations, T_INT, 65, INV),
    CR(F_crowd_create, "def->agent_skin", K_NEGATIVE, def.agent_skin, T_FLOAT, -0.1, INV),
    CR(F_crowd_create, "def->agent_skin", K_RANGE, def.agent_skin, T_FLOAT, 1.5, INV),
    CR(F_crowd_create, "def->agent_skin", K_NAN, def.agent_skin, T_FLOAT, NAN, INV),
    CR(F_crowd_create, "def->move.up", K_ZERO, def.move.up.z, T_FLOAT, 0, INV),
    CR(F_crowd_create, "def->move.up.y", K_NAN, def.move.up.y, T_FLOAT, NAN, INV),
    CR(F_crowd_create, "def->move.step_height", K_NEGATIVE, def.move.step_height, T_FLOAT, -1, INV),
    CR(F_crowd_create, "def->move.snap_distance", K_INF, def.move.snap_distance, T_FLOAT, INFINITY, INV),
    /* Fixed findings (crowd_create_accepts_a_move_def_every_step_rejects): */
    CR(F_crowd_create, "def->move.max_iterations", K_ZERO, def.move.max_iterations, T_INT, 0, INV),
    CR(F_crowd_create, "def->move.skin_width", K_RANGE, def.move.skin_width, T_FLOAT, 0.5, INV),
    CR(F_crowd_create, "def->move.max_slope_degrees", K_RANGE, def.move.max_slope_degrees, T_FLOAT, 95, INV),

    CR(F_crowd_add, "(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    CR(F_crowd_add, "crowd", K_NULL, null_crowd, T_BOOL, 1, INV),
    CR(F_crowd_add, "agent", K_NULL, null_agent, T_BOOL, 1, INV),
    CR(F_crowd_add, "out_id", K_NULL, null_out_id, T_BOOL, 1, INV),
    CR(F_crowd_add, "agent->shape.radii.x", K_ZERO, agent.shape.radii.x, T_FLOAT, 0, INV),
    CR(F_crowd_add, "agent->shape.rotation.y", K_NAN, agent.shape.rotation.y, T_FLOAT, NAN, INV),
    CR(F_crowd_add, "agent->position.z", K_INF, agent.position.z, T_FLOAT, INFINITY, INV),
    CR(F_crowd_add, "agent->position.x", K_NAN, agent.position.x, T_FLOAT, NAN, INV),
    CR(F_crowd_add, "agent->radius", K_NEGATIVE, agent.radius, T_FLOAT, -1, INV),
    CR(F_crowd_add, "agent->radius", K_NAN, agent.radius, T_FLOAT, NAN, INV),
    CR(F_crowd_add, "agent->half_height", K_INF, agent.half_height, T_FLOAT, INFINITY, INV),
    CR(F_crowd_add, "agent->half_height", K_NEGATIVE, agent.half_height, T_FLOAT, -2, INV),
    CR(F_crowd_add, "agent->inverse_mass", K_NEGATIVE, agent.inverse_mass, T_FLOAT, -1, INV),
    CR(F_crowd_add, "agent->inverse_mass", K_NAN, agent.inverse_mass, T_FLOAT, NAN, INV),
    CR(F_crowd_add, "agent->inverse_mass", K_ZERO, agent.inverse_mass, T_FLOAT, 0, OK),
    CR(F_crowd_add, "agent->flags (unknown bit)", K_RANGE, agent.flags, T_U32, 128, INV),
    CR(F_crowd_add, "crowd (full)", K_OVERFLOW, fill, T_BOOL, 1, INV),
    /* Fixed findings (crowd_huge_agent_radius_overflows_grid_sum,
       crowd_accepts_values_that_stop_every_step): beyond SKIM_CROWD_LIMIT. */
    CR(F_crowd_add, "agent->radius (1e30)", K_HUGE, agent.radius, T_FLOAT, 1e30, INV),
    CR(F_crowd_add, "agent->half_height (1e16)", K_HUGE, agent.half_height, T_FLOAT, 1e16, INV),
    CR(F_crowd_add, "agent->position.x (1e30)", K_HUGE, agent.position.x, T_FLOAT, 1e30, INV),
    CR(F_crowd_add, "agent->radius (1e14, within the limit)", K_VALID, agent.radius, T_FLOAT, 1e14, OK),

    CR(F_crowd_remove, "(all valid)", K_VALID, id, T_U32, 2, OK),
    CR(F_crowd_remove, "crowd", K_NULL, null_crowd, T_BOOL, 1, INV),
    CR(F_crowd_remove, "id (free)", K_RANGE, id, T_U32, 1, INV),
    CR(F_crowd_remove, "id = capacity", K_RANGE, id, T_U32, CROWD_CAPACITY, INV),
    CR(F_crowd_remove, "id = UINT32_MAX", K_OVERFLOW, id, T_U32, U32MAX, INV),

    CR(F_crowd_set_velocity, "(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    CR(F_crowd_set_velocity, "crowd", K_NULL, null_crowd, T_BOOL, 1, INV),
    CR(F_crowd_set_velocity, "id (free)", K_RANGE, id, T_U32, 1, INV),
    CR(F_crowd_set_velocity, "desired.x", K_NAN, vector.x, T_FLOAT, NAN, INV),
    CR(F_crowd_set_velocity, "desired.y", K_INF, vector.y, T_FLOAT, INFINITY, INV),
    CR(F_crowd_set_velocity, "desired.z", K_NEG_INF, vector.z, T_FLOAT, -INFINITY, INV),
    CR(F_crowd_set_velocity, "desired.x (3e38)", K_HUGE, vector.x, T_FLOAT, HUGE_F, INV),

    CR(F_crowd_jump, "(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    CR(F_crowd_jump, "crowd", K_NULL, null_crowd, T_BOOL, 1, INV),
    CR(F_crowd_jump, "jumped", K_NULL, null_jumped, T_BOOL, 1, OK),
    CR(F_crowd_jump, "id = UINT32_MAX", K_RANGE, id, T_U32, U32MAX, INV),
    CR(F_crowd_jump, "height", K_NEGATIVE, scalar, T_FLOAT, -1, INV),
    CR(F_crowd_jump, "height", K_NAN, scalar, T_FLOAT, NAN, INV),
    CR(F_crowd_jump, "height", K_INF, scalar, T_FLOAT, INFINITY, INV),
    CR(F_crowd_jump, "height", K_ZERO, scalar, T_FLOAT, 0, OK),
    CR(F_crowd_jump, "height (3e38)", K_HUGE, scalar, T_FLOAT, HUGE_F, INV),

    CR(F_crowd_teleport, "(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    CR(F_crowd_teleport, "crowd", K_NULL, null_crowd, T_BOOL, 1, INV),
    CR(F_crowd_teleport, "id (free)", K_RANGE, id, T_U32, 3, INV),
    CR(F_crowd_teleport, "position.x", K_NAN, vector.x, T_FLOAT, NAN, INV),
    CR(F_crowd_teleport, "position.z", K_NEG_INF, vector.z, T_FLOAT, -INFINITY, INV),
    CR(F_crowd_teleport, "position.y (1e30)", K_HUGE, vector.y, T_FLOAT, 1e30, INV),

    CR(F_crowd_step, "(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    CR(F_crowd_step, "crowd", K_NULL, null_crowd, T_BOOL, 1, INV),
    CR(F_crowd_step, "world", K_NULL, null_world, T_BOOL, 1, OK),
    CR(F_crowd_step, "dt", K_ZERO, scalar, T_FLOAT, 0, INV),
    CR(F_crowd_step, "dt", K_NEGATIVE, scalar, T_FLOAT, -0.02, INV),
    CR(F_crowd_step, "dt", K_NAN, scalar, T_FLOAT, NAN, INV),
    CR(F_crowd_step, "dt", K_INF, scalar, T_FLOAT, INFINITY, INV),
    CR(F_crowd_step, "dt (1.5 > 1)", K_RANGE, scalar, T_FLOAT, 1.5, INV),
    CR(F_crowd_step, "dt = 1", K_VALID, scalar, T_FLOAT, 1, OK),

    CR(F_crowd_get_agent, "(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    CR(F_crowd_get_agent, "crowd", K_NULL, null_crowd, T_BOOL, 1, INV),
    CR(F_crowd_get_agent, "out", K_NULL, null_out, T_BOOL, 1, INV),
    CR(F_crowd_get_agent, "id (free)", K_RANGE, id, T_U32, 1, INV),
    CR(F_crowd_get_agent, "id = UINT32_MAX", K_OVERFLOW, id, T_U32, U32MAX, INV),

    CR(F_crowd_get_stats, "(all valid)", K_VALID, null_def, T_NONE, 0, OK),
    CR(F_crowd_get_stats, "crowd", K_NULL, null_crowd, T_BOOL, 1, INV),
    CR(F_crowd_get_stats, "out", K_NULL, null_out, T_BOOL, 1, INV),

    CQ(F_crowd_destroy), CQ(F_crowd_count), CQ(F_crowd_capacity), CQ(F_crowd_positions),
    CQ(F_crowd_velocities), CQ(F_crowd_states), CQ(F_crowd_hash),
};
#define ROW_COUNT (sizeof table_rows / sizeof table_rows[0])

static skim_status run_row(const row *r)
{
    switch (r->fn) {
    case F_world_create: return run_world_create(r);
    case F_world_destroy: return run_world_destroy(r);
    case F_world_get_stats: return run_world_get_stats(r);
    case F_world_save: return run_world_save(r);
    case F_world_load: return run_world_load(r);
    case F_sweep: return run_sweep(r);
    case F_move: return run_move(r);
    case F_move_batch: return run_move_batch(r);
    case F_mesh_data_view:
    case F_mesh_data_free:
    case F_scene_default:
    case F_mesh_load_obj:
    case F_mesh_parse_obj: return run_mesh(r);
    case F_crowd_create:
    case F_crowd_add:
    case F_crowd_remove:
    case F_crowd_set_velocity:
    case F_crowd_jump:
    case F_crowd_teleport:
    case F_crowd_step:
    case F_crowd_get_agent:
    case F_crowd_get_stats: return run_crowd(r);
    case F_crowd_destroy:
    case F_crowd_count:
    case F_crowd_capacity:
    case F_crowd_positions:
    case F_crowd_velocities:
    case F_crowd_states:
    case F_crowd_hash: return run_crowd_query_null(r);
    default: return run_basics(r);
    }
}

/* One test per row, each in its own process (Criterion runs each parameter
   in a worker): a row that crashes fails alone, and LeakSanitizer checks
   each row's process. The parameter is the row's index: workers are
   separate processes, so pointers into the parent (the rows' strings)
   would not survive the copy. */
static size_t row_indices[ROW_COUNT];

ParameterizedTestParameters(table, rows)
{
    for (size_t i = 0; i < ROW_COUNT; ++i)
        row_indices[i] = i;
    return cr_make_param_array(size_t, row_indices, ROW_COUNT);
}

ParameterizedTest(size_t *index, table, rows)
{
    const row *r = &table_rows[*index];
    if (r->finding)
        cr_skip_test("%s(%s = %s): known finding, reproduced by findings::%s", function_names[r->fn], r->argument,
                     kind_names[r->kind], r->finding);
    cr_log_info("row %zu: %s(%s = %s)", *index, function_names[r->fn], r->argument, kind_names[r->kind]);
    run_row(r);
}

/* Coverage: every public function has rows, every pointer argument a NULL
   row; prints the function x kind matrix (docs/hardening.md has it). */
Test(table, coverage)
{
    unsigned counts[FUNCTION_COUNT][KIND_COUNT] = { { 0 } };
    for (size_t i = 0; i < ROW_COUNT; ++i)
        counts[table_rows[i].fn][table_rows[i].kind]++;
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
        F_crowd_add, F_crowd_remove, F_crowd_set_velocity, F_crowd_jump, F_crowd_teleport, F_crowd_step,
        F_crowd_get_agent, F_crowd_count, F_crowd_capacity, F_crowd_positions, F_crowd_velocities,
        F_crowd_states, F_crowd_hash, F_crowd_get_stats, F_mesh_load_obj, F_mesh_parse_obj,
    };
    for (size_t i = 0; i < sizeof with_pointers / sizeof with_pointers[0]; ++i)
        cr_expect_gt(counts[with_pointers[i]][K_NULL], 0u, "%s has no NULL row",
                     function_names[with_pointers[i]]);
}
