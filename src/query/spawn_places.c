/* skim_find_spawn_places: standing spots for a shape inside a level.

   Columns on a grid across `up` are probed from several heights (a free
   start swept down to a floor), so floors under others (a room below a
   room) are found too. A spot is kept when the four neighbouring columns
   have ground within a step of it (no wall tops, pillars or ledges), and
   when sweeps across the whole level in eight directions all meet
   something (walled in: not the roof of a sealed level seen from
   outside). A sealed level, roofed almost everywhere inside, also needs
   a roof above each spot: there a spot open to the sky is a crevice
   between the hull's outer faces. Every decision reads only the probes'
   results, and every column is its own work, so the spots are the same
   for any thread count. */
#include "query/query_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

skim_spawn_def skim_spawn_def_default(void)
{
    return (skim_spawn_def){ .up = { 0.0f, 0.0f, 1.0f }, .spacing = 0.0f, .max_step = 18.0f,
                             .min_floor_cos = 0.7f, .layer_step = 64.0f, .per_column = 4 };
}

typedef struct spawn_grid {
    const skim_world *world;
    skim_ellipsoid shape;
    float r, spacing, max_step, min_floor_cos, layer_step;
    uint32_t per_column;
    float e1[3], e2[3], up[3];     /* across, across, up */
    float lo[3], hi[3];            /* the level's extent along e1, e2, up */
    int nx, ny, layers;
} spawn_grid;

/* Adding +0 turns a -0 (a zero axis times a negative length) into +0, so
   for up = +z every probe is bitwise the plain (x, y, h). */
static skim_vec3 grid_point(const spawn_grid *g, float x, float y, float h)
{
    return (skim_vec3){ (g->e1[0] * x + g->e2[0] * y + g->up[0] * h) + 0.0f,
                        (g->e1[1] * x + g->e2[1] * y + g->up[1] * h) + 0.0f,
                        (g->e1[2] * x + g->e2[2] * y + g->up[2] * h) + 0.0f };
}

static skim_vec3 along_up(const spawn_grid *g, float length)
{
    return (skim_vec3){ g->up[0] * length + 0.0f, g->up[1] * length + 0.0f, g->up[2] * length + 0.0f };
}

static float dot3f(const float a[3], skim_vec3 b) { return a[0] * b.x + a[1] * b.y + a[2] * b.z; }

/* The first spots of a column, highest first, as heights along up. */
static uint32_t probe_column(const spawn_grid *g, long column, float *height)
{
    const float x = g->lo[0] + g->r + 2.0f + g->spacing * (float)(column % g->nx);
    const float y = g->lo[1] + g->r + 2.0f + g->spacing * (float)(column / g->nx);
    uint32_t count = 0;
    /* Where the sweep that found the last spot kept stopped the shape's
       centre: a start above it lies on that sweep's free path, so its own
       sweep down could only meet the same floor again, within rounding,
       and that spot would be seen (below). Those layers are skipped: on
       open ground most layers start above the one floor. */
    float met = INFINITY;
    for (int layer = 0; layer < g->layers && count < g->per_column; ++layer) {
        const float start_h = g->hi[2] + g->r + 2.0f - g->layer_step * (float)layer;
        if (start_h > met + 1.0f)
            continue;
        const skim_vec3 start = grid_point(g, x, y, start_h);
        skim_hit hit;
        /* A start inside or touching geometry is no place to stand. */
        const skim_vec3 nudge = along_up(g, -0.01f);
        if (skim_sweep(g->world, &g->shape, start, nudge, NULL, &hit) != SKIM_OK || hit.hit)
            continue;
        const float drop = -(start_h - g->lo[2] + g->r);
        const skim_vec3 down = along_up(g, drop);
        if (skim_sweep(g->world, &g->shape, start, down, NULL, &hit) != SKIM_OK || !hit.hit ||
            dot3f(g->up, hit.normal) < g->min_floor_cos)
            continue;
        const float h = start_h + hit.t * drop + 1.0f;
        bool seen = false;
        for (uint32_t k = 0; k < count; ++k)
            seen |= fabsf(height[k] - h) < 2.0f * g->r + 2.0f;
        if (!seen) {
            height[count++] = h;
            met = h - 1.0f;
        }
    }
    return count;
}

/* Walled in: a sweep across the whole level in each of eight directions
   across up meets something (anything: not the first contact). */
static bool enclosed(const spawn_grid *g, skim_vec3 spot)
{
    const float reach = (g->hi[0] - g->lo[0]) + (g->hi[1] - g->lo[1]);
    for (int d = 0; d < 8; ++d) {
        const float angle = 0.785398163f * (float)d;
        const float c = reach * cosf(angle), s = reach * sinf(angle);
        const skim_vec3 delta = { (g->e1[0] * c + g->e2[0] * s) + 0.0f, (g->e1[1] * c + g->e2[1] * s) + 0.0f,
                                  (g->e1[2] * c + g->e2[2] * s) + 0.0f };
        bool meets;
        if (skim_sweep_meets(g->world, &g->shape, spot, delta, &meets) != SKIM_OK || !meets)
            return false;
    }
    return true;
}

static skim_status check_def(const skim_spawn_def *def)
{
    const char *who = "skim_find_spawn_places";
    const double up_length = sqrt((double)def->up.x * def->up.x + (double)def->up.y * def->up.y +
                                  (double)def->up.z * def->up.z);
    if (!skim_finite3(def->up) || fabs(up_length - 1.0) > 1e-3)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: def->up must be a finite unit vector", who);
    if (!(def->spacing >= 0.0f && def->spacing <= SKIM_COORDINATE_MAX))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: def->spacing must be finite and >= 0 (got %g)",
                         who, (double)def->spacing);
    if (!(def->max_step >= 0.0f && def->max_step <= SKIM_COORDINATE_MAX))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: def->max_step must be finite and >= 0 (got %g)",
                         who, (double)def->max_step);
    if (!(def->min_floor_cos > 0.0f && def->min_floor_cos <= 1.0f))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: def->min_floor_cos must be in (0, 1] (got %g)",
                         who, (double)def->min_floor_cos);
    if (!(def->layer_step > 0.0f && def->layer_step <= SKIM_COORDINATE_MAX))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: def->layer_step must be finite and > 0 (got %g)",
                         who, (double)def->layer_step);
    if (def->per_column < 1 || def->per_column > 16)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: def->per_column must be in [1, 16] (got %u)", who,
                         def->per_column);
    return SKIM_OK;
}

/* The grid: an orthonormal frame (e1, e2, up) and the level's extent in it. */
static skim_status make_grid(const skim_world *world, const skim_ellipsoid *shape, const skim_spawn_def *def,
                             spawn_grid *g)
{
    const char *who = "skim_find_spawn_places";
    const skim_vec3 r3 = shape->radii;
    g->world = world;
    g->shape = *shape;
    g->r = r3.x > r3.y ? (r3.x > r3.z ? r3.x : r3.z) : (r3.y > r3.z ? r3.y : r3.z);
    g->spacing = def->spacing > 0.0f ? def->spacing : 2.0f * g->r + 4.0f;
    g->max_step = def->max_step, g->min_floor_cos = def->min_floor_cos;
    g->layer_step = def->layer_step, g->per_column = def->per_column;
    const float up[3] = { def->up.x, def->up.y, def->up.z };
    const float pick[3] = { fabsf(up[0]) < 0.9f ? 1.0f : 0.0f, fabsf(up[0]) < 0.9f ? 0.0f : 1.0f, 0.0f };
    const float along = pick[0] * up[0] + pick[1] * up[1] + pick[2] * up[2];
    float e1[3] = { pick[0] - along * up[0], pick[1] - along * up[1], pick[2] - along * up[2] };
    const float length = sqrtf(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int i = 0; i < 3; ++i)
        g->e1[i] = e1[i] / length, g->up[i] = up[i];
    g->e2[0] = up[1] * g->e1[2] - up[2] * g->e1[1];
    g->e2[1] = up[2] * g->e1[0] - up[0] * g->e1[2];
    g->e2[2] = up[0] * g->e1[1] - up[1] * g->e1[0];
    const float *axes[3] = { g->e1, g->e2, g->up };
    skim_vec3 bounds_min, bounds_max; /* the bodies' too, where they stand */
    skim_world_all_bounds(world, &bounds_min, &bounds_max);
    for (int a = 0; a < 3; ++a) {
        g->lo[a] = INFINITY, g->hi[a] = -INFINITY;
        for (int corner = 0; corner < 8; ++corner) {
            const skim_vec3 p = { corner & 1 ? bounds_max.x : bounds_min.x,
                                  corner & 2 ? bounds_max.y : bounds_min.y,
                                  corner & 4 ? bounds_max.z : bounds_min.z };
            const float d = dot3f(axes[a], p);
            g->lo[a] = d < g->lo[a] ? d : g->lo[a];
            g->hi[a] = d > g->hi[a] ? d : g->hi[a];
        }
    }
    /* The probes sweep across the whole level: it must be within what one
       sweep of this shape resolves. */
    const float smallest = r3.x < r3.y ? (r3.x < r3.z ? r3.x : r3.z) : (r3.y < r3.z ? r3.y : r3.z);
    const double extent = (double)(g->hi[0] - g->lo[0]) + (g->hi[1] - g->lo[1]) + (g->hi[2] - g->lo[2]);
    if (extent + 4.0 * g->r > (double)SKIM_SWEEP_MAX_RADII * smallest)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: the level (%g across) is more than %g of the shape's smallest radius (%g) "
                         "across; one sweep cannot cross it", who, extent, (double)SKIM_SWEEP_MAX_RADII,
                         (double)smallest);
    const double nx = floor((g->hi[0] - g->lo[0] - 2.0f * g->r) / g->spacing);
    const double ny = floor((g->hi[1] - g->lo[1] - 2.0f * g->r) / g->spacing);
    if (nx * ny * g->per_column > 1e9)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: a spacing of %g makes %g columns; at most 1e9 spots are probed", who,
                         (double)g->spacing, nx * ny);
    g->nx = nx < 1 ? 0 : (int)nx;
    g->ny = ny < 1 ? 0 : (int)ny;
    g->layers = 1 + (int)ceilf((g->hi[2] - g->lo[2]) / g->layer_step);
    return SKIM_OK;
}

skim_status skim_find_spawn_places(const skim_world *world, const skim_ellipsoid *shape,
                                   const skim_spawn_def *def, skim_vec3 *out, uint32_t capacity,
                                   uint32_t *count)
{
    const char *who = "skim_find_spawn_places";
    if (!count)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: count is NULL", who);
    *count = 0;
    if (!out && capacity > 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: out is NULL with a capacity of %u", who, capacity);
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    skim_status status = skim_check_ellipsoid(shape, "skim_find_spawn_places: shape");
    if (status != SKIM_OK)
        return status;
    const skim_spawn_def defaults = skim_spawn_def_default();
    if (!def)
        def = &defaults;
    if ((status = check_def(def)) != SKIM_OK)
        return status;
    spawn_grid g;
    if ((status = make_grid(world, shape, def, &g)) != SKIM_OK)
        return status;
    if (g.nx < 1 || g.ny < 1 || world->triangle_count == 0)
        return SKIM_OK;
    const long columns = (long)g.nx * g.ny;
    const uint32_t per = g.per_column;
    float *height = malloc((size_t)columns * per * sizeof *height);
    uint8_t *found = calloc((size_t)columns, 1), *keep = calloc((size_t)columns * per, 1);
    if (!height || !found || !keep) {
        free(height), free(found), free(keep);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "%s: no memory for %ld columns", who, columns);
    }
#pragma omp parallel for schedule(dynamic, 16)
    for (long column = 0; column < columns; ++column)
        found[column] = (uint8_t)probe_column(&g, column, height + column * per);
    /* Marks in their own array: every decision reads the same spots. */
#pragma omp parallel for schedule(static)
    for (long column = 0; column < columns; ++column) {
        const long cx = column % g.nx, cy = column / g.nx;
        for (uint32_t k = 0; k < found[column]; ++k) {
            const float h = height[column * per + k];
            bool ground = true;
            const long neighbours[4][2] = { { cx - 1, cy }, { cx + 1, cy }, { cx, cy - 1 }, { cx, cy + 1 } };
            for (int d = 0; d < 4 && ground; ++d) {
                const long x = neighbours[d][0], y = neighbours[d][1];
                bool near = false;
                if (x >= 0 && x < g.nx && y >= 0 && y < g.ny)
                    for (uint32_t m = 0; m < found[y * g.nx + x]; ++m)
                        near |= fabsf(height[(y * g.nx + x) * per + m] - h) <= g.max_step;
                ground = near;
            }
            const float x = g.lo[0] + g.r + 2.0f + g.spacing * (float)cx;
            const float y = g.lo[1] + g.r + 2.0f + g.spacing * (float)cy;
            const skim_vec3 spot = grid_point(&g, x, y, h);
            uint8_t mark = ground && enclosed(&g, spot);
            if (mark) {
                const float rise = g.hi[2] - h + 2.0f * g.r;
                const skim_vec3 up = along_up(&g, rise);
                bool roofed;
                if (skim_sweep_meets(world, &g.shape, spot, up, &roofed) == SKIM_OK && roofed)
                    mark = 2;
            }
            keep[column * per + k] = mark;
        }
    }
    uint64_t walled = 0, roofed = 0;
    for (long i = 0; i < columns * (long)per; ++i) {
        walled += keep[i] != 0;
        roofed += keep[i] == 2;
    }
    const uint8_t needed = roofed * 2 > walled ? 2 : 1;
    uint32_t total = 0;
    for (long column = 0; column < columns; ++column)
        for (uint32_t k = 0; k < found[column]; ++k)
            if (keep[column * per + k] >= needed) {
                if (total < capacity) {
                    const float x = g.lo[0] + g.r + 2.0f + g.spacing * (float)(column % g.nx);
                    const float y = g.lo[1] + g.r + 2.0f + g.spacing * (float)(column / g.nx);
                    out[total] = grid_point(&g, x, y, height[column * per + k]);
                }
                ++total;
            }
    free(height), free(found), free(keep);
    *count = total;
    return SKIM_OK;
}
