/* Wavefront OBJ text to skim_mesh_data (what is read: skim_mesh_io.h).

   Why our own parser rather than a packaged one: Debian ships
   tinyobjloader (C++ only, header; it warns and carries on past malformed
   faces instead of failing with a line number) and assimp (a large C++
   library whose OBJ importer splits faces into meshes per material and
   loses the o/g names as material ids, and reports errors without a line).
   The project is C17, and what matters here is that a bad file is an error
   naming file, line and reason, never a crash and never a silently wrong
   mesh; a strict parser of the geometric subset is small enough to own.

   Every line is copied into a NUL-terminated scratch buffer (lines ending
   in a backslash are joined with the next) and split into tokens there. */
#include "io/mesh_internal.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MATERIALS 65536u

typedef struct obj_parser {
    const char *name;
    uint32_t    line;           /* line the current statement starts on */
    skim_mesh_data *mesh;
    size_t vertex_capacity, triangle_capacity, name_capacity;
    uint64_t texcoord_count, normal_count;
    const char *current_name;   /* into names_pool below, or "default" */
    char       *current_owned;  /* the last o/g/usemtl name */
    int32_t     current_material; /* -1: look current_name up at the next face */
    uint32_t   *corners;
    size_t      corner_capacity;
    skim_polygon_scratch polygon;
    skim_obj_names names;       /* material_names' lookup */
    char       *text;           /* the current statement, NUL-terminated */
    size_t      text_capacity;
#if defined(__GLIBC__)
    locale_t    c_locale;
#endif
} obj_parser;

static skim_status format_error(const obj_parser *p, const char *reason, const char *detail)
{
    return skim_fail(SKIM_ERROR_FORMAT, "%s:%u: %s%s", p->name, p->line, reason, detail ? detail : "");
}

static skim_status out_of_memory(const obj_parser *p)
{
    return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "%s:%u: out of memory", p->name, p->line);
}

static bool grow(void **items, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity)
        return true;
    size_t grown = *capacity ? *capacity : 256;
    while (grown < need) {
        if (grown > SIZE_MAX / 4 / size)
            return false;
        grown *= 2;
    }
    void *q = realloc(*items, grown * size);
    if (!q)
        return false;
    *items = q;
    *capacity = grown;
    return true;
}

/* ---- tokens ---- */
static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\f' || ch == '\v' || ch == '\r';
}

/* Next token of *cursor (NUL-terminated in place), or NULL at the end. */
static char *next_token(char **cursor)
{
    char *s = *cursor;
    while (is_space(*s))
        ++s;
    if (!*s) {
        *cursor = s;
        return NULL;
    }
    char *token = s;
    while (*s && !is_space(*s))
        ++s;
    if (*s)
        *s++ = '\0';
    *cursor = s;
    return token;
}

/* A float coordinate: the whole token must be a finite number within
   float range. */
static skim_status parse_float(obj_parser *p, const char *token, float *out)
{
    char *end = NULL;
    errno = 0;
#if defined(__GLIBC__)
    double v = strtod_l(token, &end, p->c_locale); /* '.' as the decimal point whatever the locale */
#else
    double v = strtod(token, &end);
#endif
    char detail[96];
    snprintf(detail, sizeof detail, "'%.40s'", token);
    if (end == token || *end != '\0')
        return format_error(p, "bad number ", detail);
    if (isnan(v) || (isinf(v) && errno != ERANGE))
        return format_error(p, "not a finite number ", detail);
    if (isinf(v) || fabs(v) > (double)FLT_MAX)
        return format_error(p, "number beyond float range ", detail);
    /* errno == ERANGE with a finite result is an underflow toward zero:
       harmless for a coordinate. */
    *out = (float)v;
    return SKIM_OK;
}

/* "vertex" -> "vertices", "normal" -> "normals". */
static const char *plural_of(const char *what)
{
    if (strcmp(what, "vertex") == 0)
        return "vertices";
    if (strcmp(what, "normal") == 0)
        return "normals";
    return "texture coordinates";
}

/* One index of a face corner: a non-zero integer, resolved against count
   (negative = relative to the end) to a 0-based index. */
static skim_status parse_index(obj_parser *p, const char *text, size_t length, uint64_t count,
                               const char *what, uint32_t corner, uint32_t *out)
{
    char detail[160];
    if (length == 0) {
        snprintf(detail, sizeof detail, "corner %u: %s index is missing", corner, what);
        return format_error(p, "face ", detail);
    }
    size_t i = 0;
    bool negative = false;
    if (text[0] == '-' || text[0] == '+') {
        negative = text[0] == '-';
        i = 1;
    }
    if (i == length) {
        snprintf(detail, sizeof detail, "corner %u: bad %s index '%.*s'", corner, what, (int)length, text);
        return format_error(p, "face ", detail);
    }
    uint64_t value = 0;
    for (; i < length; ++i) {
        if (text[i] < '0' || text[i] > '9') {
            snprintf(detail, sizeof detail, "corner %u: bad %s index '%.*s'", corner, what,
                     (int)(length > 40 ? 40 : length), text);
            return format_error(p, "face ", detail);
        }
        value = value * 10 + (uint64_t)(text[i] - '0');
        if (value > (uint64_t)UINT32_MAX * 2)
            value = (uint64_t)UINT32_MAX * 2; /* saturate: out of range below */
    }
    if (value == 0) {
        snprintf(detail, sizeof detail, "corner %u: %s index 0 (OBJ indices start at 1)", corner, what);
        return format_error(p, "face ", detail);
    }
    if (value > count) {
        snprintf(detail, sizeof detail, "corner %u: %s index %s%llu is out of range (%llu %s so far)",
                 corner, what, negative ? "-" : "", (unsigned long long)value, (unsigned long long)count,
                 count == 1 ? what : plural_of(what));
        return format_error(p, "face ", detail);
    }
    *out = (uint32_t)(negative ? count - value : value - 1);
    return SKIM_OK;
}

/* ---- statements ---- */
static skim_status vertex_statement(obj_parser *p, char *cursor)
{
    float xyz[3];
    int found = 0;
    for (char *token; (token = next_token(&cursor)) != NULL; ++found) {
        float value = 0.0f;
        skim_status status = parse_float(p, token, &value);
        if (status != SKIM_OK)
            return status;
        if (found < 3) {
            /* The world takes coordinates up to SKIM_COORDINATE_MAX: a level
               that parses must make a world, and the error belongs here,
               where the file and line are known. */
            if (fabsf(value) > SKIM_COORDINATE_MAX) {
                char detail[96];
                snprintf(detail, sizeof detail, "'%.40s' (at most %g)", token,
                         (double)SKIM_COORDINATE_MAX);
                return format_error(p, "coordinate beyond the world's range ", detail);
            }
            xyz[found] = value;
        }
    }
    if (found < 3) {
        char detail[64];
        snprintf(detail, sizeof detail, "(got %d of 3 coordinates)", found);
        return format_error(p, "truncated vertex ", detail);
    }
    if (found > 7)
        return format_error(p, "vertex has more than 7 values (x y z [w] or x y z [w] r g b)", NULL);
    skim_mesh_data *m = p->mesh;
    if (m->vertex_count >= UINT32_MAX / 3)
        return format_error(p, "too many vertices", NULL);
    if (!grow((void **)&m->positions, &p->vertex_capacity, 3 * ((size_t)m->vertex_count + 1), sizeof(float)))
        return out_of_memory(p);
    memcpy(m->positions + 3 * (size_t)m->vertex_count, xyz, sizeof xyz);
    m->vertex_count++;
    return SKIM_OK;
}

/* vt and vn: counted (faces may refer to them) and their numbers checked. */
static skim_status attribute_statement(obj_parser *p, char *cursor, int least, int most, uint64_t *count,
                                       const char *what)
{
    int found = 0;
    for (char *token; (token = next_token(&cursor)) != NULL; ++found) {
        float value = 0.0f;
        skim_status status = parse_float(p, token, &value);
        if (status != SKIM_OK)
            return status;
    }
    if (found < least || found > most) {
        char detail[96];
        snprintf(detail, sizeof detail, "%s has %d values (%d to %d expected)", what, found, least, most);
        return format_error(p, detail, NULL);
    }
    (*count)++;
    return SKIM_OK;
}

static skim_status current_material(obj_parser *p, uint16_t *out)
{
    if (p->current_material < 0) {
        skim_mesh_data *m = p->mesh;
        uint32_t id = m->material_count;
        if (!skim_obj_names_find(&p->names, m->material_names, p->current_name, &id)) {
            if (id == MAX_MATERIALS)
                return format_error(p, "more than 65536 distinct o/g/usemtl names", NULL);
            if (!grow((void **)&m->material_names, &p->name_capacity, (size_t)id + 1, sizeof(char *)))
                return out_of_memory(p);
            char *copy = strdup(p->current_name);
            if (!copy)
                return out_of_memory(p);
            m->material_names[id] = copy;
            m->material_count++;
            if (!skim_obj_names_added(&p->names, m->material_names, m->material_count))
                return out_of_memory(p);
        }
        p->current_material = (int32_t)id;
    }
    *out = (uint16_t)p->current_material;
    return SKIM_OK;
}

static skim_status face_statement(obj_parser *p, char *cursor)
{
    skim_mesh_data *m = p->mesh;
    uint32_t count = 0;
    for (char *token; (token = next_token(&cursor)) != NULL;) {
        if (count == SKIM_OBJ_MAX_FACE_CORNERS) {
            char detail[64];
            snprintf(detail, sizeof detail, "(at most %u)", SKIM_OBJ_MAX_FACE_CORNERS);
            return format_error(p, "face has too many corners ", detail);
        }
        if (!grow((void **)&p->corners, &p->corner_capacity, (size_t)count + 1, sizeof *p->corners))
            return out_of_memory(p);
        /* v, v/vt, v//vn or v/vt/vn */
        const char *parts[3] = { token, NULL, NULL };
        size_t lengths[3] = { strlen(token), 0, 0 };
        int part_count = 1;
        for (char *s = token; *s; ++s)
            if (*s == '/') {
                if (part_count == 3)
                    return format_error(p, "face corner has more than two '/'", NULL);
                lengths[part_count - 1] = (size_t)(s - parts[part_count - 1]);
                parts[part_count] = s + 1;
                lengths[part_count] = strlen(s + 1);
                part_count++;
            }
        skim_status status = parse_index(p, parts[0], lengths[0], m->vertex_count, "vertex", count + 1,
                                         &p->corners[count]);
        if (status != SKIM_OK)
            return status;
        uint32_t ignored;
        if (part_count >= 2 && !(part_count == 3 && lengths[1] == 0)) {
            status = parse_index(p, parts[1], lengths[1], p->texcoord_count, "texture coordinate",
                                 count + 1, &ignored);
            if (status != SKIM_OK)
                return status;
        }
        if (part_count == 3) {
            status = parse_index(p, parts[2], lengths[2], p->normal_count, "normal", count + 1, &ignored);
            if (status != SKIM_OK)
                return status;
        }
        ++count;
    }
    if (count < 3) {
        char detail[64];
        snprintf(detail, sizeof detail, "face has %u corner%s (at least 3 needed)", count, count == 1 ? "" : "s");
        return format_error(p, detail, NULL);
    }
    uint32_t new_triangles = count - 2;
    if ((uint64_t)m->triangle_count + new_triangles > UINT32_MAX / 3)
        return format_error(p, "too many triangles", NULL);
    uint16_t material = 0;
    skim_status status = current_material(p, &material);
    if (status != SKIM_OK)
        return status;
    size_t total = (size_t)m->triangle_count + new_triangles;
    size_t index_capacity = p->triangle_capacity * 3, material_capacity = p->triangle_capacity;
    if (!grow((void **)&m->indices, &index_capacity, 3 * total, sizeof *m->indices) ||
        !grow((void **)&m->materials, &material_capacity, total, sizeof *m->materials))
        return out_of_memory(p);
    p->triangle_capacity = material_capacity < index_capacity / 3 ? material_capacity : index_capacity / 3;
    if (!skim_triangulate_polygon(m->positions, p->corners, count, &p->polygon,
                                  m->indices + 3 * (size_t)m->triangle_count))
        return out_of_memory(p);
    for (uint32_t t = 0; t < new_triangles; ++t)
        m->materials[m->triangle_count + t] = material;
    m->triangle_count += new_triangles;
    return SKIM_OK;
}

/* o, g, usemtl: the rest of the line, tokens joined by one space. */
static skim_status name_statement(obj_parser *p, char *cursor)
{
    char *name = p->text; /* compacted in place, before cursor */
    size_t length = 0;
    for (char *token; (token = next_token(&cursor)) != NULL;) {
        if (length)
            name[length++] = ' ';
        size_t n = strlen(token);
        memmove(name + length, token, n);
        length += n;
    }
    name[length] = '\0';
    free(p->current_owned);
    p->current_owned = strdup(length ? name : "default");
    if (!p->current_owned)
        return out_of_memory(p);
    p->current_name = p->current_owned;
    p->current_material = -1;
    return SKIM_OK;
}

static const char *const skipped_statements[] = {
    "vp", "s", "mtllib", "l", "p", "maplib", "usemap", "lod", "bevel", "c_interp", "d_interp",
    "shadow_obj", "trace_obj", "cstype", "deg", "bmat", "step", "curv", "curv2", "surf", "parm",
    "trim", "hole", "scrv", "sp", "end", "con", "mg", "ctech", "stech", "call", "csh",
};

static skim_status statement(obj_parser *p)
{
    char *cursor = p->text;
    char *comment = strchr(cursor, '#');
    if (comment)
        *comment = '\0';
    char *keyword = next_token(&cursor);
    if (!keyword)
        return SKIM_OK;
    if (strcmp(keyword, "v") == 0)
        return vertex_statement(p, cursor);
    if (strcmp(keyword, "f") == 0 || strcmp(keyword, "fo") == 0)
        return face_statement(p, cursor);
    if (strcmp(keyword, "vt") == 0)
        return attribute_statement(p, cursor, 1, 3, &p->texcoord_count, "texture coordinate");
    if (strcmp(keyword, "vn") == 0)
        return attribute_statement(p, cursor, 3, 3, &p->normal_count, "normal");
    if (strcmp(keyword, "o") == 0 || strcmp(keyword, "g") == 0 || strcmp(keyword, "usemtl") == 0)
        return name_statement(p, cursor);
    for (size_t i = 0; i < sizeof skipped_statements / sizeof skipped_statements[0]; ++i)
        if (strcmp(keyword, skipped_statements[i]) == 0)
            return SKIM_OK;
    char detail[80];
    snprintf(detail, sizeof detail, "'%.40s'", keyword);
    return format_error(p, "unknown statement ", detail);
}

static void parser_free(obj_parser *p)
{
    free(p->current_owned);
    free(p->corners);
    free(p->text);
    skim_polygon_scratch_free(&p->polygon);
    skim_obj_names_free(&p->names);
#if defined(__GLIBC__)
    if (p->c_locale)
        freelocale(p->c_locale);
#endif
}

/* Copies the statement starting at text[*at] (joining backslash-continued
   lines) into p->text, advancing *at and counting lines. */
static skim_status read_statement(obj_parser *p, const char *text, size_t length, size_t *at, uint32_t *line)
{
    size_t used = 0;
    p->line = *line;
    for (;;) {
        size_t begin = *at, end = begin;
        while (end < length && text[end] != '\n')
            ++end;
        for (size_t i = begin; i < end; ++i) {
            unsigned char ch = (unsigned char)text[i];
            if ((ch < 0x20 && ch != '\t' && ch != '\r' && ch != '\f' && ch != '\v') || ch == 0x7f) {
                char detail[48];
                p->line = *line;
                snprintf(detail, sizeof detail, "(byte 0x%02x): not an OBJ text file", ch);
                return format_error(p, "binary data ", detail);
            }
        }
        size_t n = end - begin;
        if (!grow((void **)&p->text, &p->text_capacity, used + n + 1, 1))
            return out_of_memory(p);
        memcpy(p->text + used, text + begin, n);
        used += n;
        *at = end < length ? end + 1 : end;
        ++*line;
        /* A backslash as the last non-blank character continues the line. */
        size_t last = used;
        while (last > 0 && is_space(p->text[last - 1]))
            --last;
        if (last > 0 && p->text[last - 1] == '\\' && *at < length) {
            used = last - 1;
            p->text[used++] = ' ';
            continue;
        }
        p->text[used] = '\0';
        return SKIM_OK;
    }
}

skim_status skim_mesh_parse_obj(const char *text, size_t length, const char *name, skim_mesh_data *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_mesh_parse_obj: out is NULL");
    memset(out, 0, sizeof *out);
    if (!text && length > 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_mesh_parse_obj: text is NULL");
    obj_parser p = { .name = name ? name : "<memory>", .line = 1, .mesh = out, .current_name = "default",
                     .current_material = -1 };
#if defined(__GLIBC__)
    p.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (!p.c_locale)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_mesh_parse_obj: cannot make the C locale");
#endif
    skim_status status = SKIM_OK;
    size_t at = 0;
    uint32_t line = 1;
    /* A UTF-8 byte order mark, which some editors write first. */
    if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        at = 3;
    while (at < length && status == SKIM_OK) {
        status = read_statement(&p, text, length, &at, &line);
        if (status == SKIM_OK)
            status = statement(&p);
    }
    if (status == SKIM_OK && out->triangle_count == 0) {
        p.line = line > 1 ? line - 1 : 1;
        status = format_error(&p, length == 0 ? "empty file" : "no faces in the file", NULL);
    }
    parser_free(&p);
    if (status != SKIM_OK)
        skim_mesh_data_free(out);
    return status;
}
