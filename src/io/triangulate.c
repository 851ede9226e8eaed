/* Polygon to triangles by ear clipping.

   Why ear clipping rather than a fan: a fan from the first corner is right
   only for convex polygons; level editors export concave faces (an L-shaped
   floor, a wall with a notch) as one polygon, and a fan would cover the
   notch with triangles that are not part of the face, i.e. invisible walls.
   Ear clipping cuts off one convex corner whose triangle holds no other
   corner at a time, which is right for any simple polygon. It runs in the
   polygon's own plane: the corners are projected by dropping the axis the
   Newell normal is largest along. */
#include "io/mesh_internal.h"

#include <math.h>
#include <stdlib.h>

void skim_polygon_scratch_free(skim_polygon_scratch *scratch)
{
    free(scratch->xy);
    free(scratch->next);
    free(scratch->prev);
    *scratch = (skim_polygon_scratch){ 0 };
}

static bool reserve(skim_polygon_scratch *s, uint32_t count)
{
    if (count <= s->capacity)
        return true;
    size_t capacity = s->capacity ? s->capacity : 16;
    while (capacity < count)
        capacity *= 2;
    float *xy = realloc(s->xy, capacity * 2 * sizeof *xy);
    if (xy)
        s->xy = xy;
    uint32_t *next = realloc(s->next, capacity * sizeof *next);
    if (next)
        s->next = next;
    uint32_t *prev = realloc(s->prev, capacity * sizeof *prev);
    if (prev)
        s->prev = prev;
    if (!xy || !next || !prev)
        return false;
    s->capacity = capacity;
    return true;
}

/* Twice the signed area of the 2D triangle a b c (positive = counter-clockwise). */
static double cross2(const float *a, const float *b, const float *c)
{
    return ((double)b[0] - a[0]) * ((double)c[1] - a[1]) - ((double)b[1] - a[1]) * ((double)c[0] - a[0]);
}

static uint32_t fan(const uint32_t *corners, const uint32_t *ring_next, uint32_t first, uint32_t remaining,
                    uint32_t *triangles)
{
    uint32_t written = 0, b = ring_next[first];
    for (uint32_t k = 0; k + 2 < remaining; ++k) {
        uint32_t c = ring_next[b];
        triangles[3 * written + 0] = corners[first];
        triangles[3 * written + 1] = corners[b];
        triangles[3 * written + 2] = corners[c];
        ++written;
        b = c;
    }
    return written;
}

bool skim_triangulate_polygon(const float *positions, const uint32_t *corners, uint32_t count,
                              skim_polygon_scratch *s, uint32_t *triangles)
{
    if (count == 3) {
        triangles[0] = corners[0];
        triangles[1] = corners[1];
        triangles[2] = corners[2];
        return true;
    }
    if (!reserve(s, count))
        return false;
    for (uint32_t i = 0; i < count; ++i) {
        s->next[i] = (i + 1) % count;
        s->prev[i] = (i + count - 1) % count;
    }
    /* Newell's normal: robust for non-planar and nearly degenerate polygons. */
    double normal[3] = { 0, 0, 0 };
    for (uint32_t i = 0; i < count; ++i) {
        const float *a = positions + 3 * (size_t)corners[i];
        const float *b = positions + 3 * (size_t)corners[(i + 1) % count];
        normal[0] += ((double)a[1] - b[1]) * ((double)a[2] + b[2]);
        normal[1] += ((double)a[2] - b[2]) * ((double)a[0] + b[0]);
        normal[2] += ((double)a[0] - b[0]) * ((double)a[1] + b[1]);
    }
    int drop = 0;
    for (int k = 1; k < 3; ++k)
        if (fabs(normal[k]) > fabs(normal[drop]))
            drop = k;
    if (normal[drop] == 0.0) {
        fan(corners, s->next, 0, count, triangles);
        return true;
    }
    /* Keep the 2D winding counter-clockwise: swap the two kept axes when the
       normal points down the dropped one. */
    int u = (drop + 1) % 3, v = (drop + 2) % 3;
    if (normal[drop] < 0.0) {
        int t = u;
        u = v;
        v = t;
    }
    for (uint32_t i = 0; i < count; ++i) {
        const float *p = positions + 3 * (size_t)corners[i];
        s->xy[2 * i] = p[u];
        s->xy[2 * i + 1] = p[v];
    }

    uint32_t written = 0, remaining = count, at = 0;
    uint32_t misses = 0; /* corners looked at since the last ear */
    while (remaining > 3) {
        if (misses > remaining) {
            /* No ear in a whole turn: not a simple polygon. */
            written += fan(corners, s->next, at, remaining, triangles + 3 * written);
            return true;
        }
        uint32_t a = s->prev[at], b = at, c = s->next[at];
        const float *pa = s->xy + 2 * a, *pb = s->xy + 2 * b, *pc = s->xy + 2 * c;
        bool ear = cross2(pa, pb, pc) > 0.0;
        for (uint32_t k = s->next[c]; ear && k != a; k = s->next[k]) {
            const float *p = s->xy + 2 * k;
            /* A corner inside or on the candidate triangle spoils the ear
               (unless it sits exactly on one of its corners: a repeated
               vertex, which does not cross anything). */
            if ((p[0] == pa[0] && p[1] == pa[1]) || (p[0] == pb[0] && p[1] == pb[1]) ||
                (p[0] == pc[0] && p[1] == pc[1]))
                continue;
            if (cross2(pa, pb, p) >= 0.0 && cross2(pb, pc, p) >= 0.0 && cross2(pc, pa, p) >= 0.0)
                ear = false;
        }
        if (!ear) {
            at = c;
            ++misses;
            continue;
        }
        triangles[3 * written + 0] = corners[a];
        triangles[3 * written + 1] = corners[b];
        triangles[3 * written + 2] = corners[c];
        ++written;
        s->next[a] = c;
        s->prev[c] = a;
        --remaining;
        misses = 0;
        at = c;
    }
    uint32_t a = s->prev[at], c = s->next[at];
    triangles[3 * written + 0] = corners[a];
    triangles[3 * written + 1] = corners[at];
    triangles[3 * written + 2] = corners[c];
    return true;
}
