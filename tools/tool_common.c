/* What the tool's commands share: messages and exit codes, strict number
   parsing, and opening a scene by name. */
#include "tool.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int tool_usage(const char *command, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "skim%s%s: ", *command ? " " : "", command);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\nTry 'skim --help'.\n");
    va_end(args);
    return EXIT_USAGE;
}

int tool_failed(const char *command, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "skim %s: ", command);
    vfprintf(stderr, format, args);
    const char *detail = skim_last_error_message();
    if (detail && *detail)
        fprintf(stderr, ": %s", detail);
    fprintf(stderr, "\n");
    va_end(args);
    return EXIT_RUNTIME;
}

bool tool_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool tool_parse_float(const char *text, float *out)
{
    if (!text || !*text)
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || !isfinite(v) || fabs(v) > 3.0e38)
        return false;
    *out = (float)v;
    return true;
}

bool tool_parse_vec3(const char *text, skim_vec3 *out)
{
    if (!text)
        return false;
    char buffer[128];
    if (strlen(text) >= sizeof buffer)
        return false;
    strcpy(buffer, text);
    float v[3];
    char *part = buffer;
    for (int k = 0; k < 3; ++k) {
        char *comma = strchr(part, ',');
        if ((k < 2) != (comma != NULL))
            return false;
        if (comma)
            *comma = '\0';
        if (!tool_parse_float(part, &v[k]))
            return false;
        part = comma ? comma + 1 : part;
    }
    *out = (skim_vec3){ v[0], v[1], v[2] };
    return true;
}

const char *tool_option_value(const char *command, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        tool_usage(command, "%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static bool ends_with(const char *text, const char *suffix)
{
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && strcasecmp(text + n - m, suffix) == 0;
}

int tool_scene_open(const char *command, const char *name, tool_scene *scene)
{
    memset(scene, 0, sizeof *scene);
    snprintf(scene->name, sizeof scene->name, "%s", name);
    if (strcmp(name, "default") != 0 && !ends_with(name, ".obj")) {
        if (skim_world_load(name, &scene->world) != SKIM_OK)
            return tool_failed(command, "cannot load the baked world '%s'", name);
        scene->baked = true;
        return EXIT_OK;
    }
    skim_mesh_data *mesh = &scene->mesh;
    skim_status status = strcmp(name, "default") == 0 ? skim_scene_default(mesh) : skim_mesh_load_obj(name, mesh);
    if (status != SKIM_OK)
        return tool_failed(command, "cannot read the scene '%s'", name);
    skim_mesh view = skim_mesh_data_view(mesh);
    status = skim_world_create(&view, NULL, &scene->world);
    if (status != SKIM_OK) {
        skim_mesh_data_free(mesh);
        return tool_failed(command, "cannot build a world from '%s'", name);
    }
    return EXIT_OK;
}

void tool_scene_close(tool_scene *scene)
{
    skim_world_destroy(scene->world);
    scene->world = NULL;
    skim_mesh_data_free(&scene->mesh);
}
