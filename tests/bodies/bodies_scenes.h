/* What the bodies suites share: small generated meshes (a slab, a floor),
   a mesh placed by a transform the way a body is (in double, rounded
   once), and a world built from a mesh. */
#ifndef SKIM_BODIES_SCENES_H
#define SKIM_BODIES_SCENES_H

#include "../query/query_scenes.h"

static const skim_quat identity_rotation = { 0.0f, 0.0f, 0.0f, 1.0f };

/* The quaternion of a turn by `angle` radians about the unit axis (x, y, z). */
static inline skim_quat axis_angle(double x, double y, double z, double angle)
{
    const double s = sin(0.5 * angle);
    return (skim_quat){ (float)(x * s), (float)(y * s), (float)(z * s), (float)cos(0.5 * angle) };
}

/* An axis-aligned box from lo to hi as 12 triangles, faces counter-clockwise from outside. */
static inline void box_mesh(const float lo[3], const float hi[3], skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    out->vertex_count = 8;
    out->triangle_count = 12;
    out->positions = malloc(3 * 8 * sizeof(float));
    out->indices = malloc(3 * 12 * sizeof(uint32_t));
    out->materials = calloc(12, sizeof(uint16_t));
    for (uint32_t v = 0; v < 8; ++v)
        for (int axis = 0; axis < 3; ++axis)
            out->positions[3 * v + axis] = (v >> axis) & 1u ? hi[axis] : lo[axis];
    static const uint32_t faces[12][3] = {
        { 0, 2, 3 }, { 0, 3, 1 }, { 4, 5, 7 }, { 4, 7, 6 }, /* -z, +z */
        { 0, 1, 5 }, { 0, 5, 4 }, { 2, 6, 7 }, { 2, 7, 3 }, /* -y, +y */
        { 0, 4, 6 }, { 0, 6, 2 }, { 1, 3, 7 }, { 1, 7, 5 }, /* -x, +x */
    };
    memcpy(out->indices, faces, sizeof faces);
}

/* The mesh with every vertex moved to rotation * p + position, in double
   from the renormalised quaternion, rounded once. */
static inline void placed_mesh(const skim_mesh_data *mesh, skim_transform t, skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    out->vertex_count = mesh->vertex_count;
    out->triangle_count = mesh->triangle_count;
    out->positions = malloc(3 * sizeof(float) * mesh->vertex_count);
    out->indices = malloc(3 * sizeof(uint32_t) * mesh->triangle_count);
    out->materials = calloc(mesh->triangle_count, sizeof(uint16_t));
    memcpy(out->indices, mesh->indices, 3 * sizeof(uint32_t) * mesh->triangle_count);
    if (mesh->materials)
        memcpy(out->materials, mesh->materials, sizeof(uint16_t) * mesh->triangle_count);
    double q[4] = { t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w };
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i)
        q[i] /= n;
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double m[3][3] = {
        { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
        { 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) },
        { 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) },
    };
    const double shift[3] = { t.position.x, t.position.y, t.position.z };
    for (uint32_t v = 0; v < mesh->vertex_count; ++v) {
        const float *p = mesh->positions + 3 * v;
        for (int i = 0; i < 3; ++i)
            out->positions[3 * v + i] =
                (float)(m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + shift[i]);
    }
}

static inline skim_world *world_of(const skim_mesh_data *mesh)
{
    skim_mesh view = skim_mesh_data_view(mesh);
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&view, NULL, &world), SKIM_OK, "%s", skim_last_error_message());
    return world;
}

#endif
