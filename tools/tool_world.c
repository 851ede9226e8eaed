/* skim bake, skim info, skim sweep: worlds from the command line. */
#include "tool.h"

#include <math.h>
#include <string.h>

static void print_stats(const char *name, const skim_world_stats *s)
{
    printf("world %s\n", name);
    printf("  triangles        %u (%u degenerate dropped)\n", s->triangles, s->degenerate_triangles);
    printf("  accelerator      %s\n", s->accelerator == SKIM_ACCELERATOR_BVH ? "bvh" : "brute force");
    if (s->accelerator == SKIM_ACCELERATOR_BVH)
        printf("  bvh              %u nodes, %u leaves, depth %u, SAH cost %.1f\n", s->nodes, s->leaves, s->depth,
               s->sah_cost);
    printf("  memory           %.2f MiB\n", (double)s->bytes / (1024.0 * 1024.0));
    printf("  bounds           (%g, %g, %g) .. (%g, %g, %g)\n", s->bounds_min.x, s->bounds_min.y, s->bounds_min.z,
           s->bounds_max.x, s->bounds_max.y, s->bounds_max.z);
    if (s->loaded_from_file)
        printf("  loaded from a baked file\n");
    else
        printf("  build time       %.1f ms\n", s->build_seconds * 1e3);
}

int tool_bake(int argc, char **argv)
{
    const char *mesh = NULL, *output = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (!(output = tool_option_value("bake", argc, argv, &i)))
                return EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return tool_usage("bake", "unknown option '%s'", argv[i]);
        } else if (!mesh) {
            mesh = argv[i];
        } else {
            return tool_usage("bake", "more than one mesh given ('%s' and '%s')", mesh, argv[i]);
        }
    }
    if (!mesh)
        return tool_usage("bake", "no mesh given (default or an .obj file)");
    if (!output)
        return tool_usage("bake", "no output file given (-o FILE)");
    int code = tool_check_output("bake", output, &mesh, 1);
    if (code)
        return code;
    tool_scene scene;
    code = tool_scene_open("bake", mesh, &scene);
    if (code)
        return code;
    if (skim_world_save(scene.world, output) != SKIM_OK) {
        tool_scene_close(&scene);
        return tool_failed("bake", "cannot save '%s'", output);
    }
    skim_world_stats stats;
    skim_world_get_stats(scene.world, &stats);
    print_stats(mesh, &stats);
    printf("wrote %s\n", output);
    tool_scene_close(&scene);
    return EXIT_OK;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void print_json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    putchar('"');
}

static void print_stats_json(const char *name, const skim_world_stats *s)
{
    printf("{\"world\":");
    print_json_string(name);
    printf(",\"triangles\":%u,\"degenerate_triangles\":%u,\"accelerator\":\"%s\",\"nodes\":%u,"
           "\"leaves\":%u,\"depth\":%u,\"sah_cost\":%.9g,\"bytes\":%llu,"
           "\"bounds_min\":[%.9g,%.9g,%.9g],\"bounds_max\":[%.9g,%.9g,%.9g],"
           "\"loaded_from_file\":%s,\"build_seconds\":%.9g}\n",
           s->triangles, s->degenerate_triangles, s->accelerator == SKIM_ACCELERATOR_BVH ? "bvh" : "brute_force",
           s->nodes, s->leaves, s->depth, s->sah_cost, (unsigned long long)s->bytes, s->bounds_min.x,
           s->bounds_min.y, s->bounds_min.z, s->bounds_max.x, s->bounds_max.y, s->bounds_max.z,
           s->loaded_from_file ? "true" : "false", s->build_seconds);
}

int tool_info(int argc, char **argv)
{
    const char *file = NULL;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return tool_usage("info", "unknown option '%s'", argv[i]);
        else if (file)
            return tool_usage("info", "one file only (got '%s' too)", argv[i]);
        else
            file = argv[i];
    }
    if (!file)
        return tool_usage("info", "no file given");
    tool_scene scene;
    int code = tool_scene_open("info", file, &scene);
    if (code)
        return code;
    skim_world_stats stats;
    if (skim_world_get_stats(scene.world, &stats) != SKIM_OK) {
        tool_scene_close(&scene);
        return tool_failed("info", "no statistics");
    }
    if (json)
        print_stats_json(file, &stats);
    else
        print_stats(file, &stats);
    tool_scene_close(&scene);
    return EXIT_OK;
}

int tool_sweep(int argc, char **argv)
{
    const char *scene_name = "default";
    skim_vec3 from = { 0 }, delta = { 0 };
    bool have_from = false, have_delta = false, json = false;
    skim_ellipsoid shape = { { 16, 16, 16 }, { 0, 0, 0, 1 } };
    for (int i = 1; i < argc; ++i) {
        const char *option = argv[i], *value = NULL;
        if (strcmp(option, "--json") == 0) {
            json = true;
            continue;
        }
        if (strcmp(option, "--scene") != 0 && strcmp(option, "--from") != 0 && strcmp(option, "--delta") != 0 &&
            strcmp(option, "--radius") != 0 && strcmp(option, "--radii") != 0)
            return tool_usage("sweep", "unknown option '%s'", option);
        if (!(value = tool_option_value("sweep", argc, argv, &i)))
            return EXIT_USAGE;
        if (strcmp(option, "--scene") == 0) {
            scene_name = value;
        } else if (strcmp(option, "--from") == 0) {
            if (!(have_from = tool_parse_vec3(value, &from)))
                return tool_usage("sweep", "--from needs X,Y,Z (got '%s')", value);
        } else if (strcmp(option, "--delta") == 0) {
            if (!(have_delta = tool_parse_vec3(value, &delta)))
                return tool_usage("sweep", "--delta needs DX,DY,DZ (got '%s')", value);
        } else if (strcmp(option, "--radius") == 0) {
            float r;
            if (!tool_parse_float(value, &r) || !(r > 0.0f))
                return tool_usage("sweep", "--radius needs a number > 0 (got '%s')", value);
            shape.radii = (skim_vec3){ r, r, r };
        } else {
            skim_vec3 radii;
            if (!tool_parse_vec3(value, &radii) || !(radii.x > 0 && radii.y > 0 && radii.z > 0))
                return tool_usage("sweep", "--radii needs RX,RY,RZ all > 0 (got '%s')", value);
            shape.radii = radii;
        }
    }
    if (!have_from || !have_delta)
        return tool_usage("sweep", "--from X,Y,Z and --delta DX,DY,DZ are both needed");
    tool_scene scene;
    int code = tool_scene_open("sweep", scene_name, &scene);
    if (code)
        return code;
    skim_hit hit;
    skim_status status = skim_sweep(scene.world, &shape, from, delta, NULL, &hit);
    tool_scene_close(&scene);
    if (status != SKIM_OK)
        return tool_failed("sweep", "the sweep failed");
    skim_vec3 stop = { from.x + hit.t * delta.x, from.y + hit.t * delta.y, from.z + hit.t * delta.z };
    if (!hit.hit)
        stop = (skim_vec3){ from.x + delta.x, from.y + delta.y, from.z + delta.z };
    if (json) {
        printf("{\"hit\":%s", hit.hit ? "true" : "false");
        if (hit.hit)
            printf(",\"t\":%.9g,\"center\":[%.9g,%.9g,%.9g],\"point\":[%.9g,%.9g,%.9g],\"normal\":[%.9g,%.9g,%.9g],"
                   "\"triangle\":%u",
                   hit.t, stop.x, stop.y, stop.z, hit.point.x, hit.point.y, hit.point.z, hit.normal.x,
                   hit.normal.y, hit.normal.z, hit.triangle);
        printf("}\n");
    } else if (hit.hit) {
        printf("hit at t = %.6g of the way\n", hit.t);
        printf("  center    (%g, %g, %g)\n", stop.x, stop.y, stop.z);
        printf("  point     (%g, %g, %g)\n", hit.point.x, hit.point.y, hit.point.z);
        printf("  normal    (%.4f, %.4f, %.4f)\n", hit.normal.x, hit.normal.y, hit.normal.z);
        printf("  triangle  %u\n", hit.triangle);
    } else {
        printf("no hit: the shape reaches (%g, %g, %g)\n", stop.x, stop.y, stop.z);
    }
    return EXIT_OK;
}
