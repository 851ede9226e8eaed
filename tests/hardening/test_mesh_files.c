/* What skim_mesh_load_obj / skim_mesh_parse_obj take from a hostile or
   careless file: loading stays linear in the file (a huge polygon is
   refused with its limit, many names are looked up in constant time), and
   only regular files are read and binary data stops the read at once, a
   leading UTF-8 byte order mark is accepted, and messages speak English. */
#include "hardening.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>

/* A growing text buffer. */
typedef struct text {
    char  *bytes;
    size_t length, capacity;
} text;

static void append(text *t, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void append(text *t, const char *format, ...)
{
    for (;;) {
        va_list args;
        va_start(args, format);
        int n = vsnprintf(t->bytes ? t->bytes + t->length : NULL, t->bytes ? t->capacity - t->length : 0, format,
                          args);
        va_end(args);
        if (t->bytes && (size_t)n < t->capacity - t->length) {
            t->length += (size_t)n;
            return;
        }
        t->capacity = 2 * (t->capacity + (size_t)n + 1);
        t->bytes = realloc(t->bytes, t->capacity);
        cr_assert_not_null(t->bytes);
    }
}

/* A face of 160,000 corners (a 320 KB line) is refused at once with the
   limit named, where ear clipping it took more than a minute. Just under
   the limit, a convex polygon of 1,024 corners still loads. */
Test(mesh_files, a_face_beyond_the_corner_limit_is_refused_at_once, .timeout = 30)
{
    const int sizes[2] = { 160000, 1024 };
    for (int s = 0; s < 2; ++s) {
        const int corners = sizes[s];
        text t = { 0 };
        for (int i = 0; i < corners; ++i) {
            double angle = 6.283185307179586 * i / corners;
            append(&t, "v %.9g %.9g 0\n", 1000.0 * cos(angle), 1000.0 * sin(angle));
        }
        append(&t, "f");
        for (int i = 0; i < corners; ++i)
            append(&t, " %d", i + 1);
        append(&t, "\n");
        skim_mesh_data mesh;
        skim_status status = skim_mesh_parse_obj(t.bytes, t.length, "ring.obj", &mesh);
        if (corners > 1024) {
            cr_expect_eq(status, SKIM_ERROR_FORMAT, "%d corners: %s", corners, skim_last_error_message());
            cr_expect(strstr(skim_last_error_message(), "ring.obj:") != NULL &&
                          strstr(skim_last_error_message(), "at most 1024") != NULL,
                      "%s", skim_last_error_message());
        } else {
            cr_expect_eq(status, SKIM_OK, "%d corners: %s", corners, skim_last_error_message());
            cr_expect_eq(mesh.triangle_count, (uint32_t)corners - 2);
            skim_mesh_data_free(&mesh);
        }
        free(t.bytes);
    }
}

/* 65,536 distinct names, then 50,000 usemtl lines naming the last of them
   (each followed by a face): every face gets its name's id, in time
   linear in the file (a scan of every name per face took a minute). */
Test(mesh_files, many_material_names_are_looked_up_in_constant_time, .timeout = 30)
{
    text t = { 0 };
    append(&t, "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    for (int i = 0; i < 65536; ++i)
        append(&t, "usemtl name_%d\nf 1 2 3\n", i);
    for (int i = 0; i < 50000; ++i)
        append(&t, "usemtl name_%d\nf 1 2 3\n", 65535 - (i % 7));
    skim_mesh_data mesh;
    cr_assert_eq(skim_mesh_parse_obj(t.bytes, t.length, "names.obj", &mesh), SKIM_OK, "%s",
                 skim_last_error_message());
    cr_expect_eq(mesh.material_count, 65536);
    cr_expect_eq(mesh.triangle_count, 65536 + 50000);
    bool right = true;
    for (uint32_t f = 0; f < 65536; ++f)
        right &= mesh.materials[f] == f;
    for (uint32_t f = 0; f < 50000; ++f)
        right &= mesh.materials[65536 + f] == 65535 - (f % 7);
    cr_expect(right, "a face has another name's material id");
    skim_mesh_data_free(&mesh);
    free(t.bytes);
}

/* A device, a FIFO or a folder is not read (reading /dev/zero grew memory
   without end): SKIM_ERROR_IO naming the path. */
Test(mesh_files, only_regular_files_are_read, .timeout = 30)
{
    scratch_dir dir;
    scratch_make(&dir);
    char fifo[128];
    scratch_file(&dir, "level.obj", fifo, sizeof fifo);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    /* A writer that never writes keeps a reader of the FIFO waiting; open
       it for reading and writing here so that the loader's open returns. */
    int keep_open = open(fifo, O_RDWR | O_NONBLOCK);
    cr_assert_geq(keep_open, 0);
    const char *paths[3] = { "/dev/zero", fifo, dir.path };
    for (int i = 0; i < 3; ++i) {
        skim_mesh_data mesh;
        cr_expect_eq(skim_mesh_load_obj(paths[i], &mesh), SKIM_ERROR_IO, "%s: %s", paths[i],
                     skim_last_error_message());
        cr_expect(strstr(skim_last_error_message(), paths[i]) != NULL, "%s", skim_last_error_message());
        cr_expect_eq(mesh.triangle_count, 0);
    }
    close(keep_open);
    scratch_remove(&dir);
}

/* A regular file of binary data: the read stops at the first NUL byte
   (the loader does not take all of a large binary file into memory first),
   SKIM_ERROR_FORMAT naming where. */
Test(mesh_files, a_nul_byte_stops_the_read_with_its_offset)
{
    scratch_dir dir;
    scratch_make(&dir);
    static const char start[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    char bytes[4096] = { 0 };
    memcpy(bytes, start, sizeof start - 1);
    scratch_write(&dir, "binary.obj", bytes, sizeof bytes);
    char path[128];
    scratch_file(&dir, "binary.obj", path, sizeof path);
    skim_mesh_data mesh;
    cr_expect_eq(skim_mesh_load_obj(path, &mesh), SKIM_ERROR_FORMAT, "%s", skim_last_error_message());
    char where[32];
    snprintf(where, sizeof where, "byte %zu is NUL", sizeof start - 1);
    cr_expect(strstr(skim_last_error_message(), where) != NULL, "%s", skim_last_error_message());
    scratch_remove(&dir);
}

/* Some editors start a UTF-8 file with a byte order mark. */
Test(mesh_files, a_leading_utf8_byte_order_mark_is_accepted)
{
    static const char bom[] = "\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    skim_mesh_data mesh;
    cr_assert_eq(skim_mesh_parse_obj(bom, sizeof bom - 1, "bom.obj", &mesh), SKIM_OK, "%s",
                 skim_last_error_message());
    cr_expect_eq(mesh.triangle_count, 1);
    skim_mesh_data_free(&mesh);
    /* Only at the start: elsewhere it is not a statement. */
    static const char inside[] = "v 0 0 0\n\xEF\xBB\xBFv 1 0 0\n";
    cr_expect_eq(skim_mesh_parse_obj(inside, sizeof inside - 1, "bom.obj", &mesh), SKIM_ERROR_FORMAT);
    cr_expect(strstr(skim_last_error_message(), "bom.obj:2: unknown statement") != NULL, "%s",
              skim_last_error_message());
}

/* An index out of range counts what there is, in plural English. */
Test(mesh_files, out_of_range_messages_use_plural_nouns)
{
    static const struct {
        const char *text, *words;
    } cases[] = {
        { "v 0 0 0\nv 1 0 0\nf 1 2 3\n", "(2 vertices so far)" },
        { "v 0 0 0\nf 1 2 3\n", "(1 vertex so far)" },
        { "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nvn 0 0 1\nf 1//1 2//2 3//3\n", "(2 normals so far)" },
        { "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nf 1/1 2/2 3/3\n", "(2 texture coordinates so far)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        skim_mesh_data mesh;
        cr_expect_eq(skim_mesh_parse_obj(cases[i].text, strlen(cases[i].text), "plural.obj", &mesh),
                     SKIM_ERROR_FORMAT);
        cr_expect(strstr(skim_last_error_message(), cases[i].words) != NULL, "'%s' does not say '%s'",
                  skim_last_error_message(), cases[i].words);
        cr_expect(strstr(skim_last_error_message(), "vertexs") == NULL, "%s", skim_last_error_message());
    }
}
