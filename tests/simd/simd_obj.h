/* A minimal OBJ reader for the real levels in SKIM_SCENES_DIR: "v x y z"
   and "f a b c ..." (corners "v", "v/vt", "v//vn" or "v/vt/vn", 1-based or
   negative), polygons as fans; everything else is skipped. Enough for the
   levels' triangle soups; the library's own loader is tested elsewhere. */
#ifndef SKIM_SIMD_OBJ_H
#define SKIM_SIMD_OBJ_H

#include <skim/skim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct simd_obj {
    float *positions;
    uint32_t vertex_count, vertex_capacity;
    uint32_t *indices;
    uint32_t triangle_count, triangle_capacity;
} simd_obj;

static inline void simd_obj_free(simd_obj *o)
{
    free(o->positions);
    free(o->indices);
    memset(o, 0, sizeof *o);
}

static inline void *simd_obj_grow(void *p, uint32_t *capacity, uint32_t needed, size_t item)
{
    if (needed <= *capacity)
        return p;
    uint32_t fresh = *capacity ? *capacity : 1024;
    while (fresh < needed)
        fresh *= 2;
    void *q = realloc(p, fresh * item);
    if (!q)
        abort();
    *capacity = fresh;
    return q;
}

/* Returns false when the file cannot be read or is not what we expect. */
static inline bool simd_obj_load(const char *path, simd_obj *o)
{
    memset(o, 0, sizeof *o);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        if (line[0] == 'v' && line[1] == ' ') {
            float x, y, z;
            ok = sscanf(line + 2, "%f %f %f", &x, &y, &z) == 3;
            o->positions = simd_obj_grow(o->positions, &o->vertex_capacity, o->vertex_count + 1,
                                         3 * sizeof(float));
            float *p = o->positions + 3 * (size_t)o->vertex_count++;
            p[0] = x, p[1] = y, p[2] = z;
        } else if (line[0] == 'f' && line[1] == ' ') {
            uint32_t corner[64];
            int corners = 0;
            for (char *s = strtok(line + 2, " \t\r\n"); s && corners < 64;
                 s = strtok(NULL, " \t\r\n")) {
                long index = strtol(s, NULL, 10);
                index = index < 0 ? (long)o->vertex_count + index : index - 1;
                if (index < 0 || index >= (long)o->vertex_count) {
                    ok = false;
                    break;
                }
                corner[corners++] = (uint32_t)index;
            }
            for (int i = 2; ok && i < corners; ++i) {
                o->indices = simd_obj_grow(o->indices, &o->triangle_capacity,
                                           o->triangle_count + 1, 3 * sizeof(uint32_t));
                uint32_t *t = o->indices + 3 * (size_t)o->triangle_count++;
                t[0] = corner[0], t[1] = corner[i - 1], t[2] = corner[i];
            }
        }
    }
    fclose(f);
    if (!ok || o->triangle_count == 0) {
        simd_obj_free(o);
        return false;
    }
    return true;
}

static inline skim_mesh simd_obj_mesh(const simd_obj *o)
{
    return (skim_mesh){ .positions = o->positions, .vertex_count = o->vertex_count,
                        .indices = o->indices, .triangle_count = o->triangle_count };
}

#endif /* SKIM_SIMD_OBJ_H */
