/* The generated terrain (terrain_scene.h). */
#include "terrain_scene.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float uniform01(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (float)((x * 2685821657736338717ull) >> 40) * (1.0f / 16777216.0f);
}

/* Ground height at a grid corner: two long swells and a short one, whose
   steepest slope (the amplitudes over the wavelengths) stays walkable. */
static float ground_height(uint32_t x, uint32_t y)
{
    const float fx = (float)x * TERRAIN_CELL_SIZE, fy = (float)y * TERRAIN_CELL_SIZE;
    return 120.0f * sinf(fx / 700.0f) * cosf(fy / 900.0f) + 60.0f * sinf((fx + fy) / 350.0f) +
           8.0f * sinf(fx / 97.0f) * sinf(fy / 113.0f);
}

/* The corners and faces of an axis-aligned box, counter-clockwise seen
   from outside. */
static void add_box(skim_mesh_data *m, const float lo[3], const float hi[3], uint16_t material)
{
    static const uint32_t faces[6][4] = {
        { 0, 2, 3, 1 }, { 4, 5, 7, 6 }, /* bottom (-z), top (+z) */
        { 0, 1, 5, 4 }, { 2, 6, 7, 3 }, /* -y, +y */
        { 0, 4, 6, 2 }, { 1, 3, 7, 5 }, /* -x, +x */
    };
    const uint32_t first = m->vertex_count;
    for (uint32_t c = 0; c < 8; ++c) {
        float *p = m->positions + 3 * (size_t)(first + c);
        p[0] = (c & 1) ? hi[0] : lo[0];
        p[1] = (c & 2) ? hi[1] : lo[1];
        p[2] = (c & 4) ? hi[2] : lo[2];
    }
    m->vertex_count += 8;
    for (int f = 0; f < 6; ++f) {
        uint32_t *t = m->indices + 3 * (size_t)m->triangle_count;
        t[0] = first + faces[f][0];
        t[1] = first + faces[f][1];
        t[2] = first + faces[f][2];
        t[3] = first + faces[f][0];
        t[4] = first + faces[f][2];
        t[5] = first + faces[f][3];
        m->materials[m->triangle_count] = m->materials[m->triangle_count + 1] = material;
        m->triangle_count += 2;
    }
}

bool terrain_scene_generate(skim_mesh_data *out)
{
    memset(out, 0, sizeof *out);
    const uint32_t side = TERRAIN_CELLS + 1;
    const size_t vertices = (size_t)side * side + 8u * TERRAIN_BOXES;
    const size_t triangles = 2u * TERRAIN_CELLS * TERRAIN_CELLS + 12u * TERRAIN_BOXES;
    out->positions = malloc(vertices * 3 * sizeof(float));
    out->indices = malloc(triangles * 3 * sizeof(uint32_t));
    out->materials = malloc(triangles * sizeof(uint16_t));
    if (!out->positions || !out->indices || !out->materials) {
        skim_mesh_data_free(out);
        return false;
    }
    for (uint32_t y = 0; y < side; ++y)
        for (uint32_t x = 0; x < side; ++x) {
            float *p = out->positions + 3 * ((size_t)y * side + x);
            p[0] = (float)x * TERRAIN_CELL_SIZE;
            p[1] = (float)y * TERRAIN_CELL_SIZE;
            p[2] = ground_height(x, y);
        }
    out->vertex_count = side * side;
    for (uint32_t y = 0; y < TERRAIN_CELLS; ++y)
        for (uint32_t x = 0; x < TERRAIN_CELLS; ++x) {
            const uint32_t a = y * side + x, b = a + 1, c = a + side, d = c + 1;
            uint32_t *t = out->indices + 3 * (size_t)out->triangle_count;
            t[0] = a, t[1] = b, t[2] = d;
            t[3] = a, t[4] = d, t[5] = c;
            out->materials[out->triangle_count] = out->materials[out->triangle_count + 1] = 0;
            out->triangle_count += 2;
        }
    /* Boxes from 48 to 240 units wide and 24 to 320 high, sunk 16 units
       below the lowest ground corner under them so none floats. */
    uint64_t rng = 0x7E44A1Bull;
    for (int i = 0; i < TERRAIN_BOXES; ++i) {
        const float w = 48.0f + 192.0f * uniform01(&rng), d = 48.0f + 192.0f * uniform01(&rng);
        const float h = 24.0f + 296.0f * uniform01(&rng);
        const float extent = (float)TERRAIN_CELLS * TERRAIN_CELL_SIZE;
        const float x0 = (extent - w) * uniform01(&rng), y0 = (extent - d) * uniform01(&rng);
        float floor_z = INFINITY;
        const uint32_t cx0 = (uint32_t)(x0 / TERRAIN_CELL_SIZE), cy0 = (uint32_t)(y0 / TERRAIN_CELL_SIZE);
        const uint32_t cx1 = (uint32_t)((x0 + w) / TERRAIN_CELL_SIZE) + 1u;
        const uint32_t cy1 = (uint32_t)((y0 + d) / TERRAIN_CELL_SIZE) + 1u;
        for (uint32_t y = cy0; y <= cy1 && y < side; ++y)
            for (uint32_t x = cx0; x <= cx1 && x < side; ++x) {
                const float g = ground_height(x, y);
                floor_z = g < floor_z ? g : floor_z;
            }
        const float lo[3] = { x0, y0, floor_z - 16.0f }, hi[3] = { x0 + w, y0 + d, floor_z + h };
        add_box(out, lo, hi, 1);
    }
    return true;
}
