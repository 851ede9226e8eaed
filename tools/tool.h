/* The `skim` command-line tool: what its commands share. Exit codes: 0 ok,
   1 the work failed (a file could not be read, the library said no),
   2 the command line is wrong. */
#ifndef SKIM_TOOL_H
#define SKIM_TOOL_H

#include <skim/skim.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Prints "skim COMMAND: message" and a pointer to --help on stderr; returns 2. */
int tool_usage(const char *command, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Prints "skim COMMAND: message: <library's last error>" on stderr; returns 1. */
int tool_failed(const char *command, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Strict parsers: the whole text must be the value. */
bool tool_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);
bool tool_parse_float(const char *text, float *out);
bool tool_parse_vec3(const char *text, skim_vec3 *out); /* "x,y,z" */

/* Before any work: refuses (exit 2) an output that is one of the inputs
   (the same file by device and inode, whatever the names), and (exit 1,
   with strerror) an output that cannot be written: its folder does not
   take new files, or it exists and is not writable. Inputs that do not
   exist (a scene name such as "default") are skipped. Returns 0 or the
   exit code after printing why. */
int tool_check_output(const char *command, const char *output, const char *const *inputs, int input_count);

/* Writes text as a JSON string (quoted, escaped) / as XML character data. */
void tool_print_json_string(FILE *out, const char *text);
void tool_print_xml_text(FILE *out, const char *text);

/* Value of option argv[*i] (advances *i), or NULL with a usage message printed. */
const char *tool_option_value(const char *command, int argc, char **argv, int *i);

/* A scene: "default" (the built-in one), an .obj file, or a baked world. */
typedef struct tool_scene {
    skim_world    *world;
    skim_mesh_data mesh;   /* the triangles, kept for pictures; empty for a baked world */
    char           name[256];
    bool           baked;
} tool_scene;
/* Returns 0 or the exit code (after printing why). */
int  tool_scene_open(const char *command, const char *name, tool_scene *scene);
void tool_scene_close(tool_scene *scene);

/* Commands. */
int tool_crowd(int argc, char **argv);
int tool_bake(int argc, char **argv);
int tool_info(int argc, char **argv);
int tool_sweep(int argc, char **argv);
int tool_ray(int argc, char **argv);
int tool_overlap(int argc, char **argv);
int tool_closest(int argc, char **argv);
int tool_floor(int argc, char **argv);

/* SVG of a crowd run (tool_svg.c): the level seen from above (z up) and
   every agent's trail (a baked world has no triangles to draw: then only its
   bounds). trail holds frames x agents positions, agent-major
   within a frame; radius per agent. Returns false if the file could not be
   written. */
typedef struct tool_trails {
    const skim_vec3 *points;   /* samples * agents */
    uint32_t samples, agents;
    uint32_t frames_per_sample;
    const float *radius;       /* per agent */
    const uint8_t *marks;      /* per agent, MARK_* of tool_goals.h (ringed, with a legend); NULL = none */
} tool_trails;
/* Moving bodies to draw (in their own colour, in the legend): each one's
   mesh in its own space and where it stands. */
typedef struct tool_svg_bodies {
    uint32_t              count;
    const skim_mesh_data *mesh[4];
    skim_transform        at[4];
} tool_svg_bodies;
bool tool_write_svg(const char *path, const tool_scene *scene, const tool_trails *trails,
                    const tool_svg_bodies *bodies /* NULL = none */, const char *caption);

#endif
