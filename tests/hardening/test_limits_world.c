/* Regression tests named after the hardening findings about building, loading and reading worlds;
   test_limits_*.c hold the others, and hardening.h says what they
   accept. */
#include "hardening.h"
#include "../bake_checksum.h"

#include <float.h>

/* ---- skim_world_create ----
   check_mesh (src/world/world.c) tests positions for NULL only when there are
   triangles, then reads 3 * vertex_count floats from it: a mesh with
   vertices but no triangles and positions = NULL is a NULL dereference
   (SEGV) instead of SKIM_ERROR_INVALID_ARGUMENT. */
Test(limits, null_positions_are_refused_without_triangles_too)
{
    skim_mesh mesh = { .positions = NULL, .vertex_count = 3, .indices = NULL, .triangle_count = 0 };
    skim_world *world = (skim_world *)&mesh;
    cr_expect_eq(skim_world_create(&mesh, NULL, &world), SKIM_ERROR_INVALID_ARGUMENT);
    cr_expect_null(world);
    skim_world_destroy(world == (skim_world *)&mesh ? NULL : world);
}

/* ---- skim_world_load on a directory ----
   skim.h: SKIM_ERROR_IO when "a file could not be opened, read or
   written". skim_world_load (src/world/bake.c) opens a directory fine, then
   decides by its st_size: on ext4 (4096 bytes) mmap fails and the answer
   is SKIM_ERROR_IO with "cannot map: No such device"; on tmpfs (40 bytes)
   it is SKIM_ERROR_FORMAT "too short to be a skim baked world". Fix: after
   fstat, `if (!S_ISREG(info.st_mode))` fail with SKIM_ERROR_IO "not a
   regular file" (skim_mesh_load_obj already says IO: "Is a directory"). */
Test(limits, loading_a_directory_is_an_io_error)
{
    const char *bases[] = { "/dev/shm", "/tmp" };
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; ++i) {
        char path[64];
        snprintf(path, sizeof path, "%s/skim_hardening_dir_XXXXXX", bases[i]);
        if (!mkdtemp(path))
            continue; /* no such file system here */
        skim_world *world = NULL;
        skim_status status = skim_world_load(path, &world);
        cr_expect_eq(status, SKIM_ERROR_IO, "%s (a directory): status %d, %s", path, (int)status,
                     skim_last_error_message());
        cr_expect_null(world);
        rmdir(path);
    }
}

/* ---- coordinates beyond what float can square ----
   skim_world_create takes any finite vertex. Found by fuzz_sweep_move's
   wild mode: a needle triangle along the z axis from z = -64 to 6.2e26
   (length_sq of its normal is a finite 6.7e7, so it is kept). A sweep
   that starts on it returns hit at t = 0 with a NaN normal, and a unit
   sphere at the origin, which overlaps it, reports no hit at all: SKIM_OK
   with a wrong or non-finite answer. The move bounds positions to 1e18 for
   this reason; vertices are not bounded. Fix: skim_world_create rejects
   |coordinate| > 1e18 (documented next to the move's bound), and the sweep
   and move reject queries whose unit-space magnitudes would overflow
   (see the radius findings). */
Test(limits, coordinates_beyond_the_limit_are_refused)
{
    const float positions[9] = { 0, 0, 6.20169501e+26f, 0, -1.32219651e-23f, -63.6469345f,
                                 1.19390041e-38f, 1.17090258e-38f, 2.83763826e+20f };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world = NULL;
    skim_status status = skim_world_create(&mesh, NULL, &world);
    if (status != SKIM_OK) {
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
        return;
    }
    skim_ellipsoid shape = { { 6.48823547f, 0.25f, 0.25f }, { 0, 1, 0, 2.77555756e-17f } };
    skim_hit hit;
    status = skim_sweep(world, &shape, (skim_vec3){ 1.16632019e-38f, 2.31971302e-15f, 2.31971302e-15f },
                        (skim_vec3){ -9.40396938e-38f, -1.40129846e-45f, 1.24220264f }, NULL, &hit);
    if (status == SKIM_OK && hit.hit)
        cr_expect(isfinite(hit.normal.x) && isfinite(hit.normal.y) && isfinite(hit.normal.z) &&
                      isfinite(hit.point.x),
                  "SKIM_OK with the normal (%g %g %g)", (double)hit.normal.x, (double)hit.normal.y,
                  (double)hit.normal.z);
    else if (status != SKIM_OK)
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    skim_ellipsoid sphere = sphere_of(1);
    status = skim_sweep(world, &sphere, (skim_vec3){ 0, 0, 0 }, (skim_vec3){ 0, 0, 1 }, NULL, &hit);
    if (status == SKIM_OK)
        cr_expect(hit.hit && hit.t == 0.0f, "a unit sphere on the needle: hit %d t %g", hit.hit, (double)hit.t);
    else
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT);
    skim_world_destroy(world);
}

/* ---- OBJ coordinates the world does not take ----
   skim_mesh_io.h: SKIM_ERROR_FORMAT for "a coordinate beyond float range",
   with "FILE:LINE: reason". Since skim_world_create takes only |x| <=
   SKIM_COORDINATE_MAX (1e18), a level with a
   vertex at 1e30 parses fine and then fails in skim_world_create with
   INVALID_ARGUMENT and no file or line. Found by fuzz_obj (whose invariant
   is that a parsed mesh makes a world). Fix: parse_float
   (src/io/obj_parse.c) rejects |value| > SKIM_COORDINATE_MAX for vertex
   coordinates, as FORMAT "FILE:LINE: coordinate beyond 1e18"; or
   document the two-step failure. Either passes: a parse that succeeds must
   give a mesh skim_world_create accepts. */
Test(limits, obj_coordinates_beyond_the_limit_are_format_errors)
{
    const char text[] = "v 0 0 0\nv 1 0 0\nv 0 1e30 0\nf 1 2 3\n";
    skim_mesh_data mesh;
    skim_status status = skim_mesh_parse_obj(text, sizeof text - 1, "far.obj", &mesh);
    if (status != SKIM_OK) {
        cr_expect_eq(status, SKIM_ERROR_FORMAT);
        cr_expect(strncmp(skim_last_error_message(), "far.obj:3:", 10) == 0, "message '%s'",
                  skim_last_error_message());
        return;
    }
    skim_mesh view = skim_mesh_data_view(&mesh);
    skim_world *world = NULL;
    cr_expect_eq(skim_world_create(&view, NULL, &world), SKIM_OK, "a parsed mesh is rejected: %s",
                 skim_last_error_message());
    skim_world_destroy(world);
    skim_mesh_data_free(&mesh);
}

/* ---- baked worlds whose triangles skim_world_create would refuse ----
   skim_world_load (src/world/bake.c) checks the header, the checksum and the
   tree's structure, then uses the triangle arrays as they are. A file with
   a correct checksum (a modder's tool, a corrupted build pipeline that
   recomputes it) whose vertex is 1e30 or NaN loads with SKIM_OK, and
   sweeps through it return non-finite hits (fuzz_bake, checksum fix-up
   mode: 514,758 executions in). skim_world_create refuses exactly these
   (|x| <= SKIM_COORDINATE_MAX, finite). Fix: in check_layout or after it,
   one pass over the kept triangles' coordinates (the checksum already
   reads every byte) rejecting non-finite or |x| > SKIM_COORDINATE_MAX as
   SKIM_ERROR_FORMAT; the padding lanes being zero and the degenerate test
   of world.c could be checked in the same pass. The test edits a saved
   file in place (format version 2: header 128 bytes, section table of 4
   entries {kind u32, reserved u32, offset u64, bytes u64}, vertices =
   kind 1) and recomputes the checksum as bake.c does (bake_reseal). */
Test(limits, a_bake_with_vertices_beyond_the_limit_is_refused)
{
    scratch_dir d;
    scratch_make(&d);
    char path[128];
    scratch_file(&d, "far.skim", path, sizeof path);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    cr_assert_eq(skim_world_save(world, path), SKIM_OK);
    skim_world_destroy(world);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    unsigned char file[65536];
    size_t size = fread(file, 1, sizeof file, f);
    fclose(f);
    uint32_t version;
    memcpy(&version, file + 8, 4);
    cr_assert(memcmp(file, "SKIMBAKE", 8) == 0 && version == 2,
              "the baked format changed (version %u): update this test's layout", version);
    /* k = 0, 1: corner a's x of the first stored triangle made 1e30, NaN;
       k = 2: corners b and c of that triangle made equal to a (zero area:
       world.c drops such triangles; the kernel divides by its normal). */
    const float values[2] = { 1e30f, NAN };
    for (int k = 0; k < 3; ++k) {
        unsigned char edited[65536];
        memcpy(edited, file, size);
        for (int s = 0; s < 4; ++s) {
            uint32_t kind;
            uint64_t offset;
            memcpy(&kind, edited + 128 + 24 * s, 4);
            memcpy(&offset, edited + 128 + 24 * s + 8, 8);
            if (kind != 1)
                continue;
            if (k < 2) { /* vertex[0][x][0] */
                memcpy(edited + offset, &values[k], 4);
            } else {
                /* 9 arrays vertex[v][axis] of stride lanes, each padded to 64
                   bytes: copy lane 0 of a's arrays into b's and c's. */
                uint32_t stride;
                memcpy(&stride, edited + 56, 4); /* header field "stride" */
                size_t array = ((size_t)stride * 4 + 63) / 64 * 64;
                for (int v = 1; v < 3; ++v)
                    for (int axis = 0; axis < 3; ++axis)
                        memcpy(edited + offset + (size_t)(3 * v + axis) * array,
                               edited + offset + (size_t)axis * array, 4);
            }
        }
        bake_reseal(edited, size);
        scratch_write(&d, "edited.skim", edited, size);
        char edited_path[128];
        scratch_file(&d, "edited.skim", edited_path, sizeof edited_path);
        skim_world *loaded = NULL;
        skim_status status = skim_world_load(edited_path, &loaded);
        if (status != SKIM_OK) {
            cr_expect_eq(status, SKIM_ERROR_FORMAT, "case %d", k);
            continue;
        }
        /* Loaded: every sweep through it must still be well formed. */
        skim_ellipsoid shape = sphere_of(1);
        bool finite = true;
        for (int i = 0; i < 8; ++i) {
            skim_hit hit;
            skim_vec3 start = { -15.0f + 4.0f * (float)i, -5, 3 };
            if (skim_sweep(loaded, &shape, start, (skim_vec3){ 0, 0, -10 }, NULL, &hit) == SKIM_OK && hit.hit)
                finite = finite && isfinite(hit.point.x) && isfinite(hit.normal.x) && isfinite(hit.normal.z);
        }
        static const char *const what[3] = { "a vertex at 1e30", "a NaN vertex", "a zero-area triangle" };
        cr_expect(finite, "a world loaded with %s answers non-finite hits", what[k]);
        cr_expect(false, "a baked file with %s loads (SKIM_OK); skim_world_create would refuse it", what[k]);
        skim_world_destroy(loaded);
    }
    scratch_remove(&d);
}
