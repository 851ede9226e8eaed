/* Fuzz target: the OBJ parser (skim_mesh_parse_obj) on arbitrary bytes.

   The input is handed over exactly as libFuzzer gives it, not
   NUL-terminated, so AddressSanitizer catches any read past the end. What
   must hold (skim_mesh_io.h):
     - the status is SKIM_OK, SKIM_ERROR_FORMAT or SKIM_ERROR_OUT_OF_MEMORY
       (never INVALID_ARGUMENT: every argument is valid);
     - on failure the mesh is left empty and the message reads
       "NAME:LINE: reason" with a line inside the input;
     - on success the mesh is self-consistent (finite positions, indices in
       range, one material per triangle, material ids below material_count,
       distinct non-NULL names) and skim_world_create accepts it; a sweep
       through it returns a well-formed answer. */
#include "fuzz_common.h"

#define NAME "fuzz.obj"

static uint32_t count_lines(const uint8_t *data, size_t size)
{
    uint32_t lines = 1;
    for (size_t i = 0; i < size; ++i)
        lines += data[i] == '\n';
    return lines;
}

static void check_failure(skim_status status, const skim_mesh_data *mesh, const uint8_t *data,
                          size_t size)
{
    FUZZ_CHECK(status == SKIM_ERROR_FORMAT || status == SKIM_ERROR_OUT_OF_MEMORY,
               "unexpected status %d (%s)", (int)status, skim_status_string(status));
    FUZZ_CHECK(!mesh->positions && !mesh->indices && !mesh->materials && !mesh->material_names &&
                   mesh->vertex_count == 0 && mesh->triangle_count == 0 && mesh->material_count == 0,
               "a failed parse left data in *out");
    const char *message = skim_last_error_message();
    FUZZ_CHECK(strncmp(message, NAME ":", strlen(NAME ":")) == 0, "message without the name: '%s'",
               message);
    char *end = NULL;
    unsigned long line = strtoul(message + strlen(NAME ":"), &end, 10);
    FUZZ_CHECK(end && *end == ':' && line >= 1 && line <= count_lines(data, size),
               "message line %lu outside 1..%u: '%s'", line, count_lines(data, size), message);
}

static void check_mesh(const skim_mesh_data *m)
{
    /* A face may repeat a vertex ("f 1 1 2" is 3 corners): fewer than 3
       vertices is valid, the degenerate triangle is dropped by the world. */
    FUZZ_CHECK(m->triangle_count > 0 && m->vertex_count >= 1, "%u triangles, %u vertices",
               m->triangle_count, m->vertex_count);
    FUZZ_CHECK(m->positions && m->indices && m->materials, "NULL arrays in a parsed mesh");
    for (size_t i = 0; i < 3 * (size_t)m->vertex_count; ++i)
        FUZZ_CHECK(isfinite(m->positions[i]), "position %zu is %g", i, (double)m->positions[i]);
    for (size_t i = 0; i < 3 * (size_t)m->triangle_count; ++i)
        FUZZ_CHECK(m->indices[i] < m->vertex_count, "index %zu = %u of %u vertices", i, m->indices[i],
                   m->vertex_count);
    FUZZ_CHECK(m->material_count >= 1 && m->material_count <= 65536 && m->material_names,
               "%u materials", m->material_count);
    for (uint32_t t = 0; t < m->triangle_count; ++t)
        FUZZ_CHECK(m->materials[t] < m->material_count, "triangle %u material %u of %u", t,
                   m->materials[t], m->material_count);
    for (uint32_t i = 0; i < m->material_count; ++i) {
        FUZZ_CHECK(m->material_names[i] != NULL, "material %u has no name", i);
        if (m->material_count <= 64)
            for (uint32_t j = 0; j < i; ++j)
                FUZZ_CHECK(strcmp(m->material_names[i], m->material_names[j]) != 0,
                           "materials %u and %u share the name '%s'", j, i, m->material_names[i]);
    }
}

/* Finding obj_coordinates_beyond_the_limit_are_format_errors (tests/hardening):
   the parser takes any coordinate within float range, skim_world_create
   only |x| <= SKIM_COORDINATE_MAX (1e18). 1 skipped the world for such
   meshes; fixed (6989ab0: the parser reports them as FORMAT with the
   line), so 0: a parsed mesh must make a world. */
#define OBJ_WORLD_RANGE_KNOWN 0

static void check_world(const skim_mesh_data *m)
{
    if (m->triangle_count > 4096)
        return; /* keep executions fast; the parser is what is fuzzed */
#if OBJ_WORLD_RANGE_KNOWN
    for (size_t i = 0; i < 3 * (size_t)m->vertex_count; ++i)
        if (fabsf(m->positions[i]) > SKIM_COORDINATE_MAX)
            return;
#endif
    skim_mesh view = skim_mesh_data_view(m);
    skim_world *world = NULL;
    skim_status status = skim_world_create(&view, NULL, &world);
    FUZZ_CHECK(status == SKIM_OK, "skim_world_create rejected a parsed mesh: %s",
               skim_status_string(status));
    skim_world_stats stats;
    FUZZ_CHECK(skim_world_get_stats(world, &stats) == SKIM_OK, "stats");
    FUZZ_CHECK(stats.triangles + stats.degenerate_triangles == m->triangle_count,
               "%u kept + %u dropped != %u", stats.triangles, stats.degenerate_triangles,
               m->triangle_count);
    /* One sweep through the middle of the mesh's box. */
    skim_vec3 lo = stats.bounds_min, hi = stats.bounds_max;
    skim_vec3 mid = { 0.5f * lo.x + 0.5f * hi.x, 0.5f * lo.y + 0.5f * hi.y, 0.5f * lo.z + 0.5f * hi.z };
    float extent = fmaxf(hi.x - lo.x, fmaxf(hi.y - lo.y, hi.z - lo.z));
    /* The probe's radius (5% of the extent) within [SKIM_RADIUS_MIN,
       SKIM_RADIUS_MAX]; its path is 60 radii. */
    if (isfinite(extent) && extent >= 1e-3f && extent <= 1e9f && finite_vec(mid) && fabsf(mid.x) < 1e15f &&
        fabsf(mid.y) < 1e15f && fabsf(hi.z) < 1e15f) {
        skim_ellipsoid shape = { { extent * 0.05f, extent * 0.05f, extent * 0.05f }, { 0, 0, 0, 1 } };
        skim_vec3 start = { mid.x, mid.y, hi.z + extent };
        skim_vec3 delta = { 0, 0, -3 * extent };
        skim_hit hit;
        if (finite_vec(start) && finite_vec(delta) && shape.radii.x > 0.0f) {
            status = skim_sweep(world, &shape, start, delta, NULL, &hit);
            FUZZ_CHECK(status == SKIM_OK ||
                           (status == SKIM_ERROR_INVALID_ARGUMENT &&
                            fuzz_beyond_precision(shape.radii.x, start, delta)),
                       "sweep: %s", skim_status_string(status));
            if (hit.hit) {
                FUZZ_CHECK(hit.t >= 0.0f && hit.t <= 1.0f, "t = %g", (double)hit.t);
                FUZZ_CHECK(hit.triangle < m->triangle_count, "hit triangle %u", hit.triangle);
                FUZZ_CHECK(finite_vec(hit.point) && finite_vec(hit.normal), "non-finite hit");
            }
        }
    }
    skim_world_destroy(world);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    skim_mesh_data mesh;
    memset(&mesh, 0x5A, sizeof mesh); /* the parser must clear it whatever it held */
    skim_status status = skim_mesh_parse_obj((const char *)data, size, NAME, &mesh);
    if (status != SKIM_OK) {
        check_failure(status, &mesh, data, size);
        return 0;
    }
    check_mesh(&mesh);
    check_world(&mesh);
    skim_mesh_data_free(&mesh);
    return 0;
}
