/* What the tool's commands share: messages and exit codes, strict number
   parsing, and opening a scene by name. */
#include "tool.h"
#include "terrain_scene.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    /* strtoull skips leading blanks and takes a sign: ' -5' would wrap to
       2^64 - 5. Only digits are a whole number here. */
    if (!text || !(*text >= '0' && *text <= '9'))
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
    const bool terrain = strcmp(name, "terrain") == 0;
    if (strcmp(name, "default") != 0 && !terrain && !ends_with(name, ".obj")) {
        if (skim_world_load(name, &scene->world) != SKIM_OK)
            return tool_failed(command, "cannot load the baked world '%s'", name);
        scene->baked = true;
        return EXIT_OK;
    }
    skim_mesh_data *mesh = &scene->mesh;
    skim_status status = terrain ? (terrain_scene_generate(mesh) ? SKIM_OK : SKIM_ERROR_OUT_OF_MEMORY)
                         : strcmp(name, "default") == 0 ? skim_scene_default(mesh)
                                                        : skim_mesh_load_obj(name, mesh);
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

int tool_check_output(const char *command, const char *output, const char *const *inputs, int input_count)
{
    struct stat out_info;
    const bool exists = stat(output, &out_info) == 0;
    for (int i = 0; exists && i < input_count; ++i) {
        struct stat in_info;
        if (inputs[i] && stat(inputs[i], &in_info) == 0 && in_info.st_dev == out_info.st_dev &&
            in_info.st_ino == out_info.st_ino)
            return tool_usage(command, "the output '%s' is the input '%s': it would be overwritten", output,
                              inputs[i]);
    }
    if (exists && S_ISDIR(out_info.st_mode)) {
        fprintf(stderr, "skim %s: cannot write '%s': %s\n", command, output, strerror(EISDIR));
        return EXIT_RUNTIME;
    }
    if (exists && access(output, W_OK) != 0) {
        fprintf(stderr, "skim %s: cannot write '%s': %s\n", command, output, strerror(errno));
        return EXIT_RUNTIME;
    }
    /* A new file (and skim_world_save's temporary one) is made in the
       output's folder. */
    char *copy = strdup(output);
    if (!copy) {
        fprintf(stderr, "skim %s: out of memory\n", command);
        return EXIT_RUNTIME;
    }
    const char *folder = dirname(copy);
    int code = EXIT_OK;
    if (access(folder, W_OK | X_OK) != 0) {
        fprintf(stderr, "skim %s: cannot write '%s': folder '%s': %s\n", command, output, folder,
                strerror(errno));
        code = EXIT_RUNTIME;
    }
    free(copy);
    return code;
}
