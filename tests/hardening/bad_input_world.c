/* The bad-input table's runners for worlds (bad_input.h): create,
   destroy, get_stats, save and load, and the bad paths and files the save
   and load rows (and bad_input_mesh.c's load_obj rows) are given. */
#include "bad_input.h"

/* ================= world_create ================= */
skim_status bad_input_run_world_create(const row *r)
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

/* ================= world_destroy, world_get_stats ================= */
skim_status bad_input_run_world_destroy(const row *r)
{
    (void)r;
    skim_world_destroy(NULL); /* documented no-op */
    return SKIM_OK;
}

skim_status bad_input_run_world_get_stats(const row *r)
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

/* ================= world_save / world_load ================= */
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
const char *bad_input_make_path(const scratch_dir *d, int kind, char *buffer, size_t size)
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

skim_status bad_input_run_world_save(const row *r)
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
        path = bad_input_make_path(&d, P_VALID, buffer, sizeof buffer);
        cr_assert_eq(skim_world_load(path, &loaded), SKIM_OK);
    } else if (a.path == P_VALID) {
        scratch_file(&d, "saved.skim", buffer, sizeof buffer);
        path = buffer;
    } else {
        path = bad_input_make_path(&d, a.path, buffer, sizeof buffer);
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

skim_status bad_input_run_world_load(const row *r)
{
    file_args a = { 0 };
    apply(r, &a);
    scratch_dir d;
    scratch_make(&d);
    char buffer[128];
    const char *path = bad_input_make_path(&d, a.path, buffer, sizeof buffer);
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
