/* skim ray, skim overlap, skim closest, skim floor: one query each, for
   one-off checks of a level, with --json for scripts. */
#include "tool.h"

#include <stdlib.h>
#include <string.h>

typedef struct query_options {
    const char *scene;
    skim_vec3 from, delta;
    bool have_from, have_delta, json;
    skim_ellipsoid shape;
    float distance;       /* closest: --max-distance; floor: --max-drop */
} query_options;

/* Parses the options every query command shares (--scene, --from, --json)
   and those `extra` names: "delta", "shape", "distance" (as --max-distance),
   "drop" (as --max-drop). Returns 0 or the exit code. */
static int parse_query_options(const char *command, const char *extra, int argc, char **argv,
                               query_options *o)
{
    *o = (query_options){ .scene = "default", .shape = { { 16, 16, 16 }, { 0, 0, 0, 1 } },
                          .distance = strstr(extra, "drop") ? 1000.0f : 64.0f };
    for (int i = 1; i < argc; ++i) {
        const char *option = argv[i], *value = NULL;
        if (strcmp(option, "--json") == 0) {
            o->json = true;
            continue;
        }
        const bool known = strcmp(option, "--scene") == 0 || strcmp(option, "--from") == 0 ||
                           (strstr(extra, "delta") && strcmp(option, "--delta") == 0) ||
                           (strstr(extra, "shape") && (strcmp(option, "--radius") == 0 || strcmp(option, "--radii") == 0)) ||
                           (strstr(extra, "distance") && strcmp(option, "--max-distance") == 0) ||
                           (strstr(extra, "drop") && strcmp(option, "--max-drop") == 0);
        if (!known)
            return tool_usage(command, "unknown option '%s'", option);
        if (!(value = tool_option_value(command, argc, argv, &i)))
            return EXIT_USAGE;
        if (strcmp(option, "--scene") == 0) {
            o->scene = value;
        } else if (strcmp(option, "--from") == 0) {
            if (!(o->have_from = tool_parse_vec3(value, &o->from)))
                return tool_usage(command, "--from needs X,Y,Z (got '%s')", value);
        } else if (strcmp(option, "--delta") == 0) {
            if (!(o->have_delta = tool_parse_vec3(value, &o->delta)))
                return tool_usage(command, "--delta needs DX,DY,DZ (got '%s')", value);
        } else if (strcmp(option, "--radius") == 0) {
            float r;
            if (!tool_parse_float(value, &r) || !(r > 0.0f))
                return tool_usage(command, "--radius needs a number > 0 (got '%s')", value);
            o->shape.radii = (skim_vec3){ r, r, r };
        } else if (strcmp(option, "--radii") == 0) {
            skim_vec3 radii;
            if (!tool_parse_vec3(value, &radii) || !(radii.x > 0 && radii.y > 0 && radii.z > 0))
                return tool_usage(command, "--radii needs RX,RY,RZ all > 0 (got '%s')", value);
            o->shape.radii = radii;
        } else {
            if (!tool_parse_float(value, &o->distance) || !(o->distance >= 0.0f))
                return tool_usage(command, "%s needs a number >= 0 (got '%s')", option, value);
        }
    }
    if (!o->have_from)
        return tool_usage(command, "--from X,Y,Z is needed");
    if (strstr(extra, "delta") && !o->have_delta)
        return tool_usage(command, "--delta DX,DY,DZ is needed");
    return 0;
}

int tool_ray(int argc, char **argv)
{
    query_options o;
    int code = parse_query_options("ray", "delta", argc, argv, &o);
    tool_scene scene;
    if (code || (code = tool_scene_open("ray", o.scene, &scene)))
        return code;
    skim_hit hit;
    skim_status status = skim_raycast(scene.world, o.from, o.delta, NULL, &hit);
    tool_scene_close(&scene);
    if (status != SKIM_OK)
        return tool_failed("ray", "the ray failed");
    if (o.json) {
        printf("{\"hit\":%s", hit.hit ? "true" : "false");
        if (hit.hit)
            printf(",\"t\":%.9g,\"point\":[%.9g,%.9g,%.9g],\"normal\":[%.9g,%.9g,%.9g],\"triangle\":%u",
                   hit.t, hit.point.x, hit.point.y, hit.point.z, hit.normal.x, hit.normal.y, hit.normal.z,
                   hit.triangle);
        printf("}\n");
    } else if (hit.hit) {
        printf("hit at t = %.6g of the way\n", hit.t);
        printf("  point     (%g, %g, %g)\n", hit.point.x, hit.point.y, hit.point.z);
        printf("  normal    (%.4f, %.4f, %.4f)\n", hit.normal.x, hit.normal.y, hit.normal.z);
        printf("  triangle  %u\n", hit.triangle);
    } else {
        printf("no hit: the ray is clear to (%g, %g, %g)\n", o.from.x + o.delta.x, o.from.y + o.delta.y,
               o.from.z + o.delta.z);
    }
    return EXIT_OK;
}

int tool_overlap(int argc, char **argv)
{
    query_options o;
    int code = parse_query_options("overlap", "shape", argc, argv, &o);
    tool_scene scene;
    if (code || (code = tool_scene_open("overlap", o.scene, &scene)))
        return code;
    uint32_t count = 0;
    skim_status status = skim_overlap(scene.world, &o.shape, o.from, NULL, NULL, 0, &count);
    skim_triangle_ref *refs = status == SKIM_OK ? malloc((count ? count : 1) * sizeof *refs) : NULL;
    if (status == SKIM_OK && !refs) {
        tool_scene_close(&scene);
        fprintf(stderr, "skim overlap: no memory for %u triangles\n", count);
        return EXIT_RUNTIME;
    }
    if (status == SKIM_OK)
        status = skim_overlap(scene.world, &o.shape, o.from, NULL, refs, count, &count);
    tool_scene_close(&scene);
    if (status != SKIM_OK) {
        free(refs);
        return tool_failed("overlap", "the overlap query failed");
    }
    if (o.json) {
        printf("{\"count\":%u,\"triangles\":[", count);
        for (uint32_t i = 0; i < count; ++i)
            printf("%s%u", i ? "," : "", refs[i].triangle);
        printf("]}\n");
    } else if (count == 0) {
        printf("free: the shape touches nothing\n");
    } else {
        printf("the shape overlaps or touches %u triangle%s:", count, count == 1 ? "" : "s");
        for (uint32_t i = 0; i < count; ++i)
            printf(" %u", refs[i].triangle);
        printf("\n");
    }
    free(refs);
    return EXIT_OK;
}

int tool_closest(int argc, char **argv)
{
    query_options o;
    int code = parse_query_options("closest", "distance", argc, argv, &o);
    tool_scene scene;
    if (code || (code = tool_scene_open("closest", o.scene, &scene)))
        return code;
    skim_closest closest;
    skim_status status = skim_closest_point(scene.world, o.from, o.distance, NULL, &closest);
    tool_scene_close(&scene);
    if (status != SKIM_OK)
        return tool_failed("closest", "the closest-point query failed");
    if (o.json) {
        printf("{\"found\":%s", closest.found ? "true" : "false");
        if (closest.found)
            printf(",\"distance\":%.9g,\"point\":[%.9g,%.9g,%.9g],\"triangle\":%u", closest.distance,
                   closest.point.x, closest.point.y, closest.point.z, closest.triangle);
        printf("}\n");
    } else if (closest.found) {
        printf("nearest point (%g, %g, %g), %g away, on triangle %u\n", closest.point.x, closest.point.y,
               closest.point.z, closest.distance, closest.triangle);
    } else {
        printf("nothing within %g\n", o.distance);
    }
    return EXIT_OK;
}

int tool_floor(int argc, char **argv)
{
    query_options o;
    int code = parse_query_options("floor", "shape drop", argc, argv, &o);
    tool_scene scene;
    if (code || (code = tool_scene_open("floor", o.scene, &scene)))
        return code;
    skim_move_result result;
    skim_status status = skim_drop_to_floor(scene.world, &o.shape, o.from, o.distance, NULL, &result);
    tool_scene_close(&scene);
    if (status != SKIM_OK)
        return tool_failed("floor", "the drop failed");
    const bool floor = result.touched & SKIM_TOUCH_FLOOR;
    if (o.json) {
        printf("{\"floor\":%s,\"position\":[%.9g,%.9g,%.9g]", floor ? "true" : "false", result.position.x,
               result.position.y, result.position.z);
        if (floor)
            printf(",\"normal\":[%.9g,%.9g,%.9g],\"triangle\":%u", result.floor_normal.x, result.floor_normal.y,
                   result.floor_normal.z, result.floor_triangle);
        printf("}\n");
    } else if (floor) {
        printf("rests at (%g, %g, %g) on triangle %u, normal (%.4f, %.4f, %.4f)\n", result.position.x,
               result.position.y, result.position.z, result.floor_triangle, result.floor_normal.x,
               result.floor_normal.y, result.floor_normal.z);
    } else {
        printf("no walkable floor within %g below; the shape stays at (%g, %g, %g)\n", o.distance, o.from.x,
               o.from.y, o.from.z);
    }
    return EXIT_OK;
}
