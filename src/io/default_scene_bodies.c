/* The default scene's moving bodies and their schedule: a lift, a sliding
   door and a platform, each a box mesh in its own space, placed where the
   static scene (default_scene.c) leaves room:
     lift      160 x 160, top at z = 0 in its mesh, centred on (1200, -250):
               rests flush with the floor, rises to 192 and comes back down
               (12 s: 3 down, 3 rising, 3 up, 3 falling)
     door      16 x 80 x 128 across the corridor at x = -1000: open it stands
               in the corridor's far wall (y 1080 to 1160), closing it slides
               toward -y until it spans the corridor (y 1000 to 1080) and
               presses what stands there against the near wall
               (8 s: 2 open, 2 closing, 2 shut, 2 opening)
     platform  192 x 192 x 16 on the floor at y = -204, gliding along x
               between -700 and 700 at 175 units/s (16 s a round trip),
               low enough to step onto
   The schedule is a function of time alone, so a run is the same for any
   frame rate that lands on the same instants. */
#include "base/skim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct scene_body {
    const char *name;
    float lo[3], hi[3]; /* the box, in the body's own space */
} scene_body;

static const scene_body scene_bodies[SKIM_SCENE_DEFAULT_BODY_COUNT] = {
    { "lift", { -80, -80, -16 }, { 80, 80, 0 } },
    { "door", { -8, 0, 0 }, { 8, 80, 128 } },
    { "platform", { -96, -96, 0 }, { 96, 96, 16 } },
};

skim_status skim_scene_default_body(uint32_t index, skim_mesh_data *out, const char **name)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_scene_default_body: out is NULL");
    if (index >= SKIM_SCENE_DEFAULT_BODY_COUNT)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_scene_default_body: index %u is not below %u", index,
                         (unsigned)SKIM_SCENE_DEFAULT_BODY_COUNT);
    memset(out, 0, sizeof *out);
    const scene_body *b = &scene_bodies[index];
    out->positions = malloc(3 * 8 * sizeof(float));
    out->indices = malloc(3 * 12 * sizeof(uint32_t));
    out->materials = calloc(12, sizeof(uint16_t));
    if (!out->positions || !out->indices || !out->materials) {
        skim_mesh_data_free(out);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_scene_default_body: out of memory");
    }
    out->vertex_count = 8;
    out->triangle_count = 12;
    for (uint32_t v = 0; v < 8; ++v)
        for (int axis = 0; axis < 3; ++axis)
            out->positions[3 * v + axis] = (v >> axis) & 1u ? b->hi[axis] : b->lo[axis];
    /* Counter-clockwise seen from outside. */
    static const uint32_t faces[12][3] = {
        { 0, 2, 3 }, { 0, 3, 1 }, { 4, 5, 7 }, { 4, 7, 6 }, /* -z, +z */
        { 0, 1, 5 }, { 0, 5, 4 }, { 2, 6, 7 }, { 2, 7, 3 }, /* -y, +y */
        { 0, 4, 6 }, { 0, 6, 2 }, { 1, 3, 7 }, { 1, 7, 5 }, /* -x, +x */
    };
    memcpy(out->indices, faces, sizeof faces);
    if (name)
        *name = b->name;
    return SKIM_OK;
}

/* 0 before `from`, 1 after `to`, linear between. */
static double ramp(double t, double from, double to)
{
    return t <= from ? 0.0 : t >= to ? 1.0 : (t - from) / (to - from);
}

skim_status skim_scene_default_body_transform(uint32_t index, double seconds, skim_transform *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_scene_default_body_transform: out is NULL");
    if (index >= SKIM_SCENE_DEFAULT_BODY_COUNT)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_scene_default_body_transform: index %u is not below %u",
                         index, (unsigned)SKIM_SCENE_DEFAULT_BODY_COUNT);
    if (!isfinite(seconds) || seconds < 0.0 || seconds > 1e9)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "skim_scene_default_body_transform: seconds must be in [0, 1e9] (got %.9g)", seconds);
    *out = (skim_transform){ { 0, 0, 0 }, { 0, 0, 0, 1 } };
    if (index == 0) {
        double t = fmod(seconds, 12.0);
        double up = ramp(t, 3.0, 6.0) - ramp(t, 9.0, 12.0);
        out->position = (skim_vec3){ 1200.0f, -250.0f, (float)(192.0 * up) };
    } else if (index == 1) {
        double t = fmod(seconds, 8.0);
        double shut = ramp(t, 2.0, 4.0) - ramp(t, 6.0, 8.0);
        out->position = (skim_vec3){ -1000.0f, (float)(1080.0 - 80.0 * shut), 0.0f };
    } else {
        double t = fmod(seconds, 16.0);
        double across = ramp(t, 0.0, 8.0) - ramp(t, 8.0, 16.0);
        out->position = (skim_vec3){ (float)(-700.0 + 1400.0 * across), -204.0f, 0.0f };
    }
    return SKIM_OK;
}
