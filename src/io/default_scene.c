/* The built-in default scene, generated in C so the project needs no data
   files. z is up; units are Quake units (a player is a sphere of radius 16,
   a stair step up to 18, running speed 320/s).

   Layout (x, y ranges; everything stands on the floor z = 0):
     floor     [-2048, 2048]^2, 32 x 32 tiles of 128 (2048 coplanar triangles:
               the "floor of many triangles" movers must cross without bumps)
     walls     around the floor, height 256
     stairs    four staircases of 8 steps, step heights 8, 16, 24, 32, each
               step 32 deep, 128 wide, climbing toward +y:
               staircase i at x in [-1900 + 220 i, -1772 + 220 i], y in [200, 456],
               with a landing 128 deep at the top
     ramps     20, 40, 50, 70 degrees, 128 wide, rising toward +y to height
               128 from y = 200: ramp i at x in [-900 + 220 i, -772 + 220 i],
               followed by a plateau 128 deep
     V corner  two walls meeting at 30 degrees, apex at (400, 900), opening
               toward -y (x 400 +- ..., y < 900), height 128
     ceiling   a low slab z in [40, 56] over x [800, 1000], y [200, 400]
               (a radius-16 sphere fits under it: 40 > 32)
     thin wall 2 thick: x in [1200, 1202], y [200, 700], height 128
     room      closed box, x [1500, 1900], y [200, 600], z [0, 200], walls
               8 thick, sealed (ceiling included)
     corridor  walls at y = 1000 and y = 1080 (80 wide), x [-1800, -200],
               height 128
     seams     16 touching boxes 64 x 64 x 8, x [-1800, -776], y [-1800, -1736]:
               a raised path made of separate boxes (seams between touching
               boxes)
     pillars   12 boxes 32 x 32 x 200 scattered over the open half y < 0
     trough    a V valley along x, x [200, 600]: two closed prisms whose 70-degree
               slopes face each other and meet in the line y = 1500, z = 0, each
               rising 128 (to y = 1500 -+ 46.6); a radius-16 sphere rests wedged
               on both slopes (center z = 16 / cos 70 = 46.8) without a floor
   The open half y < 0 (but for the seams and pillars) is room for crowds.

   Materials: 0 floor, 1 walls, 2 stairs, 3 ramps, 4 props (pillars, V,
   thin wall, ceiling), 5 room. */
#include "base/skim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MATERIAL_FLOOR, MATERIAL_WALL, MATERIAL_STAIRS, MATERIAL_RAMP, MATERIAL_PROP,
       MATERIAL_ROOM, MATERIAL_COUNT };
static const char *const material_names[MATERIAL_COUNT] = { "floor", "wall", "stairs",
                                                            "ramp", "prop", "room" };

typedef struct scene_builder {
    skim_mesh_data *mesh;
    uint32_t vertex_capacity, triangle_capacity;
    bool failed;
} scene_builder;

static uint32_t add_vertex(scene_builder *b, float x, float y, float z)
{
    skim_mesh_data *m = b->mesh;
    if (b->failed)
        return 0;
    if (m->vertex_count == b->vertex_capacity) {
        uint32_t capacity = b->vertex_capacity ? 2 * b->vertex_capacity : 1024;
        float *grown = realloc(m->positions, (size_t)capacity * 3 * sizeof(float));
        if (!grown) {
            b->failed = true;
            return 0;
        }
        m->positions = grown;
        b->vertex_capacity = capacity;
    }
    float *p = m->positions + 3 * (size_t)m->vertex_count;
    p[0] = x;
    p[1] = y;
    p[2] = z;
    return m->vertex_count++;
}

static void add_triangle(scene_builder *b, uint32_t i0, uint32_t i1, uint32_t i2, uint16_t material)
{
    skim_mesh_data *m = b->mesh;
    if (b->failed)
        return;
    if (m->triangle_count == b->triangle_capacity) {
        uint32_t capacity = b->triangle_capacity ? 2 * b->triangle_capacity : 1024;
        uint32_t *indices = realloc(m->indices, (size_t)capacity * 3 * sizeof(uint32_t));
        if (indices)
            m->indices = indices;
        uint16_t *materials = realloc(m->materials, (size_t)capacity * sizeof(uint16_t));
        if (materials)
            m->materials = materials;
        if (!indices || !materials) {
            b->failed = true;
            return;
        }
        b->triangle_capacity = capacity;
    }
    uint32_t *t = m->indices + 3 * (size_t)m->triangle_count;
    t[0] = i0;
    t[1] = i1;
    t[2] = i2;
    m->materials[m->triangle_count++] = material;
}

/* A quad p0 p1 p2 p3, counter-clockwise seen from the front. */
static void add_quad(scene_builder *b, const float p[4][3], uint16_t material)
{
    uint32_t v[4];
    for (int i = 0; i < 4; ++i)
        v[i] = add_vertex(b, p[i][0], p[i][1], p[i][2]);
    add_triangle(b, v[0], v[1], v[2], material);
    add_triangle(b, v[0], v[2], v[3], material);
}

/* An axis-aligned box with outward-facing sides (12 triangles). */
static void add_box(scene_builder *b, float x0, float y0, float z0, float x1, float y1, float z1,
                    uint16_t material)
{
    const float faces[6][4][3] = {
        { { x0, y0, z1 }, { x1, y0, z1 }, { x1, y1, z1 }, { x0, y1, z1 } }, /* top +z */
        { { x0, y0, z0 }, { x0, y1, z0 }, { x1, y1, z0 }, { x1, y0, z0 } }, /* bottom -z */
        { { x0, y0, z0 }, { x1, y0, z0 }, { x1, y0, z1 }, { x0, y0, z1 } }, /* -y */
        { { x1, y1, z0 }, { x0, y1, z0 }, { x0, y1, z1 }, { x1, y1, z1 } }, /* +y */
        { { x0, y1, z0 }, { x0, y0, z0 }, { x0, y0, z1 }, { x0, y1, z1 } }, /* -x */
        { { x1, y0, z0 }, { x1, y1, z0 }, { x1, y1, z1 }, { x1, y0, z1 } }, /* +x */
    };
    for (int f = 0; f < 6; ++f)
        add_quad(b, faces[f], material);
}

/* A wall standing on the floor from (xa, ya) to (xb, yb), thickness, height:
   a box turned to the segment's direction. */
static void add_slanted_wall(scene_builder *b, float xa, float ya, float xb, float yb,
                             float thickness, float height, uint16_t material)
{
    float dx = xb - xa, dy = yb - ya;
    float length = sqrtf(dx * dx + dy * dy);
    float nx = -dy / length * thickness * 0.5f, ny = dx / length * thickness * 0.5f;
    const float base[4][2] = { { xa - nx, ya - ny }, { xb - nx, yb - ny }, { xb + nx, yb + ny },
                               { xa + nx, ya + ny } };
    uint32_t lo[4], hi[4];
    for (int i = 0; i < 4; ++i) {
        lo[i] = add_vertex(b, base[i][0], base[i][1], 0.0f);
        hi[i] = add_vertex(b, base[i][0], base[i][1], height);
    }
    /* base[] runs counter-clockwise seen from above. */
    add_triangle(b, hi[0], hi[1], hi[2], material);
    add_triangle(b, hi[0], hi[2], hi[3], material);
    add_triangle(b, lo[0], lo[2], lo[1], material);
    add_triangle(b, lo[0], lo[3], lo[2], material);
    for (int i = 0; i < 4; ++i) {
        int j = (i + 1) % 4;
        add_triangle(b, lo[i], lo[j], hi[j], material);
        add_triangle(b, lo[i], hi[j], hi[i], material);
    }
}

/* A closed prism along x from x0 to x1 over the triangle yz[3] (y, z),
   every face turned outward. */
static void add_prism_x(scene_builder *b, float x0, float x1, const float yz[3][2],
                        uint16_t material)
{
    float center[3] = { 0.5f * (x0 + x1), (yz[0][0] + yz[1][0] + yz[2][0]) / 3.0f,
                        (yz[0][1] + yz[1][1] + yz[2][1]) / 3.0f };
    float p[6][3];
    for (int i = 0; i < 3; ++i) {
        p[i][0] = x0;
        p[i + 3][0] = x1;
        p[i][1] = p[i + 3][1] = yz[i][0];
        p[i][2] = p[i + 3][2] = yz[i][1];
    }
    const int faces[8][3] = { { 0, 1, 2 }, { 3, 4, 5 }, { 0, 1, 4 }, { 0, 4, 3 },
                              { 1, 2, 5 }, { 1, 5, 4 }, { 2, 0, 3 }, { 2, 3, 5 } };
    for (int f = 0; f < 8; ++f) {
        const float *a = p[faces[f][0]], *c1 = p[faces[f][1]], *c2 = p[faces[f][2]];
        float e1[3] = { c1[0] - a[0], c1[1] - a[1], c1[2] - a[2] };
        float e2[3] = { c2[0] - a[0], c2[1] - a[1], c2[2] - a[2] };
        float n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0] };
        float out = n[0] * (a[0] - center[0]) + n[1] * (a[1] - center[1]) +
                    n[2] * (a[2] - center[2]);
        uint32_t va = add_vertex(b, a[0], a[1], a[2]);
        uint32_t v1 = add_vertex(b, c1[0], c1[1], c1[2]);
        uint32_t v2 = add_vertex(b, c2[0], c2[1], c2[2]);
        if (out >= 0.0f)
            add_triangle(b, va, v1, v2, material);
        else
            add_triangle(b, va, v2, v1, material);
    }
}

/* A ramp rising toward +y at angle degrees to height, x in [x0, x1] starting
   at y0, closed (top slope, back, sides), then a plateau box. */
static void add_ramp(scene_builder *b, float x0, float x1, float y0, float height, float degrees)
{
    float run = height / tanf(degrees * (float)M_PI / 180.0f);
    float y1 = y0 + run;
    const float slope[4][3] = { { x0, y0, 0 }, { x1, y0, 0 }, { x1, y1, height }, { x0, y1, height } };
    add_quad(b, slope, MATERIAL_RAMP);
    uint32_t l0 = add_vertex(b, x0, y0, 0), l1 = add_vertex(b, x0, y1, 0), l2 = add_vertex(b, x0, y1, height);
    add_triangle(b, l0, l2, l1, MATERIAL_RAMP); /* -x side */
    uint32_t r0 = add_vertex(b, x1, y0, 0), r1 = add_vertex(b, x1, y1, 0), r2 = add_vertex(b, x1, y1, height);
    add_triangle(b, r0, r1, r2, MATERIAL_RAMP); /* +x side */
    add_box(b, x0, y1, 0, x1, y1 + 128, height, MATERIAL_RAMP);
}

skim_status skim_scene_default(skim_mesh_data *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_scene_default: out is NULL");
    memset(out, 0, sizeof *out);
    scene_builder b = { .mesh = out };

    /* Floor: many coplanar tiles sharing edges. */
    for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 32; ++j) {
            float x0 = -2048.0f + 128.0f * i, y0 = -2048.0f + 128.0f * j;
            const float tile[4][3] = { { x0, y0, 0 }, { x0 + 128, y0, 0 }, { x0 + 128, y0 + 128, 0 },
                                       { x0, y0 + 128, 0 } };
            add_quad(&b, tile, MATERIAL_FLOOR);
        }
    /* Outer walls. */
    add_box(&b, -2080, -2080, 0, 2080, -2048, 256, MATERIAL_WALL);
    add_box(&b, -2080, 2048, 0, 2080, 2080, 256, MATERIAL_WALL);
    add_box(&b, -2080, -2048, 0, -2048, 2048, 256, MATERIAL_WALL);
    add_box(&b, 2048, -2048, 0, 2080, 2048, 256, MATERIAL_WALL);

    /* Stairs of step heights 8, 16, 24, 32. */
    for (int i = 0; i < 4; ++i) {
        float step = 8.0f * (float)(i + 1);
        float x0 = -1900.0f + 220.0f * (float)i, x1 = x0 + 128.0f;
        for (int s = 0; s < 8; ++s) {
            float y0 = 200.0f + 32.0f * (float)s;
            add_box(&b, x0, y0, 0, x1, y0 + 32, step * (float)(s + 1), MATERIAL_STAIRS);
        }
        add_box(&b, x0, 456, 0, x1, 584, step * 8.0f, MATERIAL_STAIRS);
    }
    /* Ramps of 20, 40, 50, 70 degrees. */
    const float ramp_degrees[4] = { 20, 40, 50, 70 };
    for (int i = 0; i < 4; ++i) {
        float x0 = -900.0f + 220.0f * (float)i;
        add_ramp(&b, x0, x0 + 128, 200, 128, ramp_degrees[i]);
    }
    /* Acute V corner: two walls meeting at 30 degrees at the apex. */
    {
        float apex_x = 400, apex_y = 900, length = 300;
        float half = 15.0f * (float)M_PI / 180.0f;
        add_slanted_wall(&b, apex_x, apex_y, apex_x - length * sinf(half),
                         apex_y - length * cosf(half), 8, 128, MATERIAL_PROP);
        add_slanted_wall(&b, apex_x, apex_y, apex_x + length * sinf(half),
                         apex_y - length * cosf(half), 8, 128, MATERIAL_PROP);
    }
    /* Low ceiling slab. */
    add_box(&b, 800, 200, 40, 1000, 400, 56, MATERIAL_PROP);
    /* Thin wall. */
    add_box(&b, 1200, 200, 0, 1202, 700, 128, MATERIAL_PROP);
    /* Closed room: floor, ceiling and four walls, sealed. */
    add_box(&b, 1500, 200, -8, 1900, 600, 0, MATERIAL_ROOM);
    add_box(&b, 1500, 200, 200, 1900, 600, 208, MATERIAL_ROOM);
    add_box(&b, 1500, 200, 0, 1508, 600, 200, MATERIAL_ROOM);
    add_box(&b, 1892, 200, 0, 1900, 600, 200, MATERIAL_ROOM);
    add_box(&b, 1508, 200, 0, 1892, 208, 200, MATERIAL_ROOM);
    add_box(&b, 1508, 592, 0, 1892, 600, 200, MATERIAL_ROOM);
    /* Corridor. */
    add_box(&b, -1800, 992, 0, -200, 1000, 128, MATERIAL_WALL);
    add_box(&b, -1800, 1080, 0, -200, 1088, 128, MATERIAL_WALL);
    /* Seams: a raised path of touching boxes. */
    for (int i = 0; i < 16; ++i) {
        float x0 = -1800.0f + 64.0f * (float)i;
        add_box(&b, x0, -1800, 0, x0 + 64, -1736, 8, MATERIAL_PROP);
    }
    /* Pillars over the open half. */
    for (int i = 0; i < 12; ++i) {
        float x = -1500.0f + 280.0f * (float)i;
        float y = -1200.0f + (float)((i * 7) % 5) * 200.0f;
        add_box(&b, x, y, 0, x + 32, y + 32, 200, MATERIAL_PROP);
    }

    /* Trough: two 70-degree slopes facing each other. */
    {
        float run = 128.0f / tanf(70.0f * (float)M_PI / 180.0f);
        const float left[3][2] = { { 1500, 0 }, { 1500 - run, 128 }, { 1500 - run, 0 } };
        const float right[3][2] = { { 1500, 0 }, { 1500 + run, 0 }, { 1500 + run, 128 } };
        add_prism_x(&b, 200, 600, left, MATERIAL_RAMP);
        add_prism_x(&b, 200, 600, right, MATERIAL_RAMP);
    }

    if (b.failed) {
        skim_mesh_data_free(out);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_scene_default: out of memory");
    }
    out->material_names = calloc(MATERIAL_COUNT, sizeof(char *));
    if (out->material_names) {
        out->material_count = MATERIAL_COUNT;
        for (int i = 0; i < MATERIAL_COUNT; ++i)
            out->material_names[i] = strdup(material_names[i]);
    }
    return SKIM_OK;
}
