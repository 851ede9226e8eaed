/* OBJ loading: the forms a real file uses come out right, and every
   malformation gives SKIM_ERROR_FORMAT naming the file and the line, never a
   crash (the suite also runs under ASan+UBSan in CI). */
#include <skim/skim.h>

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static skim_status parse(const char *text, skim_mesh_data *out)
{
    return skim_mesh_parse_obj(text, strlen(text), "test.obj", out);
}

/* The error must be FORMAT and the message must start "test.obj:LINE: ". */
static void expect_error(const char *text, unsigned line, const char *words)
{
    skim_mesh_data mesh;
    skim_status status = parse(text, &mesh);
    cr_assert_eq(status, SKIM_ERROR_FORMAT, "expected a format error for:\n%s\ngot %s (%s)", text,
                 skim_status_string(status), skim_last_error_message());
    char prefix[64];
    snprintf(prefix, sizeof prefix, "test.obj:%u: ", line);
    const char *message = skim_last_error_message();
    cr_assert(strncmp(message, prefix, strlen(prefix)) == 0, "message '%s' does not start with '%s'", message,
              prefix);
    cr_assert(strstr(message, words) != NULL, "message '%s' does not say '%s'", message, words);
    cr_assert_eq(mesh.triangle_count, 0);
    cr_assert_null(mesh.positions);
}

Test(obj, triangle_and_quad_with_every_corner_form)
{
    skim_mesh_data m;
    const char *text = "# a comment\n"
                       "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0 1.0\n"
                       "vt 0 0\nvt 1 0\nvt 1 1\nvn 0 0 1\n"
                       "f 1 2 3\n"
                       "f 1/1 2/2 3/3\n"
                       "f 1//1 2//1 3//1\n"
                       "f 1/1/1 2/2/1 3/3/1 4/1/1\n";
    cr_assert_eq(parse(text, &m), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_eq(m.vertex_count, 4);
    cr_assert_eq(m.triangle_count, 5);
    for (uint32_t i = 0; i < 3 * m.triangle_count; ++i)
        cr_assert_lt(m.indices[i], 4);
    cr_assert_eq(m.material_count, 1);
    cr_assert_str_eq(m.material_names[0], "default");
    skim_mesh_data_free(&m);
}

Test(obj, negative_indices_count_back_from_the_latest_vertex)
{
    skim_mesh_data m;
    cr_assert_eq(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 5 5 5\nf -4 -3 -1\n", &m), SKIM_OK, "%s",
                 skim_last_error_message());
    cr_assert_eq(m.triangle_count, 2);
    uint32_t expected[6] = { 0, 1, 2, 0, 1, 3 };
    for (int i = 0; i < 6; ++i)
        cr_assert_eq(m.indices[i], expected[i], "index %d", i);
    skim_mesh_data_free(&m);
}

/* Twice the signed area of triangle t seen from +z. */
static double area_z(const skim_mesh_data *m, uint32_t t)
{
    const float *a = m->positions + 3 * m->indices[3 * t], *b = m->positions + 3 * m->indices[3 * t + 1],
                *c = m->positions + 3 * m->indices[3 * t + 2];
    return ((double)b[0] - a[0]) * ((double)c[1] - a[1]) - ((double)b[1] - a[1]) * ((double)c[0] - a[0]);
}

Test(obj, concave_polygon_is_ear_clipped_keeping_its_area_and_winding)
{
    /* An L shape, counter-clockwise from +z, area 3. A fan from corner 1
       (the reflex corner's neighbour) would cover the notch. */
    skim_mesh_data m;
    const char *text = "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\n"
                       "f 3 4 5 6 1 2\n";
    cr_assert_eq(parse(text, &m), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_eq(m.triangle_count, 4);
    double total = 0;
    for (uint32_t t = 0; t < m.triangle_count; ++t) {
        double a = area_z(&m, t);
        cr_assert_geq(a, 0.0, "triangle %u turned over", t);
        total += a;
    }
    cr_assert_float_eq(total, 6.0, 1e-9, "twice the area is %g, not 6: the notch is covered", total);
    skim_mesh_data_free(&m);
}

Test(obj, polygon_facing_down_keeps_its_winding)
{
    skim_mesh_data m;
    cr_assert_eq(parse("v 0 0 0\nv 0 1 0\nv 1 1 0\nv 1 0 0\nf 1 2 3 4\n", &m), SKIM_OK);
    for (uint32_t t = 0; t < m.triangle_count; ++t)
        cr_assert_lt(area_z(&m, t), 0.0);
    skim_mesh_data_free(&m);
}

Test(obj, o_g_usemtl_become_material_ids_in_order_of_first_use)
{
    skim_mesh_data m;
    const char *text = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                       "f 1 2 3\n"          /* default */
                       "o crate\nf 1 2 3\n" /* crate */
                       "usemtl wood\nf 1 2 3\n"
                       "g wall  east\nf 1 2 3\n"
                       "usemtl crate\nf 1 2 3\n" /* the same name: the same id */
                       "g\nf 1 2 3\n";           /* an unnamed group: default */
    cr_assert_eq(parse(text, &m), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_eq(m.material_count, 4);
    cr_assert_str_eq(m.material_names[0], "default");
    cr_assert_str_eq(m.material_names[1], "crate");
    cr_assert_str_eq(m.material_names[2], "wood");
    cr_assert_str_eq(m.material_names[3], "wall east");
    uint16_t expected[6] = { 0, 1, 2, 3, 1, 0 };
    for (int t = 0; t < 6; ++t)
        cr_assert_eq(m.materials[t], expected[t], "triangle %d", t);
    skim_mesh_data_free(&m);
}

Test(obj, crlf_continuations_and_skipped_statements)
{
    skim_mesh_data m;
    const char *text = "mtllib level.mtl\r\ns off\r\nv 0 0 0\r\nv 1 0 \\\r\n 0\r\nv 0 1 0\r\n"
                       "l 1 2\r\nf 1 2 \\\n 3\r\n";
    cr_assert_eq(parse(text, &m), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_eq(m.vertex_count, 3);
    cr_assert_eq(m.triangle_count, 1);
    cr_assert_float_eq(m.positions[3], 1.0f, 0.0f);
    skim_mesh_data_free(&m);
}

Test(obj, the_mesh_builds_a_world)
{
    skim_mesh_data m;
    cr_assert_eq(parse("v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3 4\n", &m), SKIM_OK);
    skim_mesh view = skim_mesh_data_view(&m);
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&view, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
    skim_world_stats stats;
    cr_assert_eq(skim_world_get_stats(world, &stats), SKIM_OK);
    cr_assert_eq(stats.triangles, 2);
    skim_world_destroy(world);
    skim_mesh_data_free(&m);
}

/* ---- malformations ---- */
Test(obj, truncated_vertex) { expect_error("v 0 0 0\nv 1 2\n", 2, "truncated vertex"); }
Test(obj, truncated_face_corner) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/\n", 4, "index is missing"); }
Test(obj, truncated_last_line_without_newline) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2", 4, "2 corners"); }
Test(obj, bad_number) { expect_error("v 0 0 0\nv 1.2.3 0 0\n", 2, "bad number"); }
Test(obj, bad_number_letters) { expect_error("v 0 zero 0\n", 1, "bad number"); }
Test(obj, nan_coordinate) { expect_error("\nv nan 0 0\n", 2, "not a finite number"); }
Test(obj, infinite_coordinate) { expect_error("v inf 0 0\n", 1, "not a finite number"); }
Test(obj, huge_coordinate_beyond_float) { expect_error("v 0 0 0\nv 1e39 0 0\n", 2, "beyond float range"); }
Test(obj, huge_coordinate_beyond_double) { expect_error("v 1e400 0 0\n", 1, "beyond float range"); }
Test(obj, index_zero) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 4, "index 0"); }
Test(obj, index_out_of_range) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 4, "out of range"); }
Test(obj, negative_index_out_of_range) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", 4, "out of range"); }
Test(obj, index_beyond_32_bits) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", 4, "out of range"); }
Test(obj, index_not_a_number) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", 4, "bad vertex index"); }
Test(obj, texture_index_out_of_range) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", 5, "texture coordinate index 2"); }
Test(obj, normal_index_without_normals) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n", 4, "normal index 1"); }
Test(obj, face_with_two_vertices) { expect_error("v 0 0 0\nv 1 0 0\nf 1 2\n", 3, "2 corners"); }
Test(obj, face_with_no_vertices) { expect_error("v 0 0 0\nf\n", 2, "0 corners"); }
Test(obj, too_many_slashes) { expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1/1 2 3\n", 4, "more than two"); }
Test(obj, face_before_any_vertex) { expect_error("f 1 2 3\n", 1, "out of range"); }
Test(obj, empty_file) { expect_error("", 1, "empty file"); }
Test(obj, only_comments) { expect_error("# nothing\n\n# here\n", 3, "no faces"); }
Test(obj, vertices_but_no_faces) { expect_error("v 0 0 0\nv 1 0 0\n", 2, "no faces"); }
Test(obj, unknown_statement) { expect_error("v 0 0 0\nvertex 1 2 3\n", 2, "unknown statement 'vertex'"); }
Test(obj, too_many_vertex_values) { expect_error("v 1 2 3 4 5 6 7 8\n", 1, "more than 7"); }
Test(obj, bad_normal) { expect_error("vn 0 1\n", 1, "normal has 2 values"); }

Test(obj, binary_garbage)
{
    /* Bytes of a PNG header: the first line is a fine vertex; the second
       holds the header's high byte, CR and LF, the third its ^Z and the
       fourth its NULs. It fails on line 2 (an unknown statement: bytes
       above 0x7f may be UTF-8 names, so the high byte alone is not
       binary), and a file of control bytes fails as binary data. */
    const unsigned char garbage[] = { 'v', ' ', '1', ' ', '2', ' ', '3', '\n', 0x89, 'P', 'N', 'G', '\r', '\n',
                                      0x1a, '\n', 0x00, 0x00, 0x00, 0x0d };
    skim_mesh_data m;
    skim_status status = skim_mesh_parse_obj((const char *)garbage, sizeof garbage, "test.obj", &m);
    cr_assert_eq(status, SKIM_ERROR_FORMAT);
    cr_assert(strncmp(skim_last_error_message(), "test.obj:2: ", 12) == 0, "%s", skim_last_error_message());
    const char control[] = "v 1 2 3\nv 4 5 6\n\x01\x02\x03\n";
    status = skim_mesh_parse_obj(control, sizeof control - 1, "test.obj", &m);
    cr_assert_eq(status, SKIM_ERROR_FORMAT);
    cr_assert(strncmp(skim_last_error_message(), "test.obj:3: binary data", 23) == 0, "%s",
              skim_last_error_message());
}

Test(obj, random_bytes_never_crash)
{
    /* Random bytes, random printable text and random mutations of a valid
       file: any outcome but a crash (and, for random bytes, an error) is
       fine. */
    uint64_t state = 0x9E3779B97F4A7C15ull;
    char buffer[512];
    const char *valid = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3 4\nf -1 -2 -3\n";
    for (int round = 0; round < 3000; ++round) {
        size_t length = 0;
        int kind = round % 3;
        if (kind == 2) {
            length = strlen(valid);
            memcpy(buffer, valid, length);
        } else {
            length = 1 + (size_t)(round * 7919u % 500u);
        }
        for (size_t i = 0; i < length; ++i) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if (kind == 0)
                buffer[i] = (char)(state & 0xff);
            else if (kind == 1)
                buffer[i] = " \nvf/-0123456789.e#og"[state % 20];
            else if (state % 8 == 0)
                buffer[i] = " \n/-09.ex\\"[(state >> 8) % 10];
        }
        skim_mesh_data m;
        skim_status status = skim_mesh_parse_obj(buffer, length, "fuzz.obj", &m);
        if (status == SKIM_OK) {
            for (uint32_t t = 0; t < 3 * m.triangle_count; ++t)
                cr_assert_lt(m.indices[t], m.vertex_count);
            skim_mesh_data_free(&m);
        } else {
            cr_assert(status == SKIM_ERROR_FORMAT, "round %d: %s", round, skim_status_string(status));
            cr_assert(strncmp(skim_last_error_message(), "fuzz.obj:", 9) == 0);
        }
    }
}

Test(obj, missing_file_is_an_io_error)
{
    skim_mesh_data m;
    cr_assert_eq(skim_mesh_load_obj("/nonexistent/level.obj", &m), SKIM_ERROR_IO);
    cr_assert(strstr(skim_last_error_message(), "/nonexistent/level.obj") != NULL);
    cr_assert_eq(skim_mesh_load_obj(NULL, &m), SKIM_ERROR_INVALID_ARGUMENT);
}

Test(obj, file_errors_name_the_path_and_line)
{
    char path[] = "/tmp/skim_obj_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 0\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    skim_mesh_data m;
    skim_status status = skim_mesh_load_obj(path, &m);
    unlink(path);
    cr_assert_eq(status, SKIM_ERROR_FORMAT);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s:5: ", path);
    cr_assert(strncmp(skim_last_error_message(), prefix, strlen(prefix)) == 0, "%s", skim_last_error_message());
}

Test(obj, real_level_loads_when_present)
{
    const char *dir = getenv("SKIM_SCENES_DIR");
    if (!dir || !*dir)
        cr_skip_test("SKIM_SCENES_DIR is not set");
    char path[1024];
    snprintf(path, sizeof path, "%s/oa_dm4_hull.obj", dir);
    if (access(path, R_OK) != 0)
        cr_skip_test("%s not present", path);
    skim_mesh_data m;
    cr_assert_eq(skim_mesh_load_obj(path, &m), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_eq(m.triangle_count, 9052);
    skim_mesh_data_free(&m);
}
