/**
 * @file skim_query.h
 * @brief The queries a server asks besides "where does it stop": rays,
 * overlaps, closest points, floors, spawn places and the world's triangles.
 *
 * Included by <skim/skim.h>; docs/queries.md says how each one works.
 * Every skim_query argument may be NULL: the defaults of skim_query_default().
 */
#ifndef SKIM_QUERY_H
#define SKIM_QUERY_H

#include <skim/skim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rays ---- */
/** The first triangle the ray origin -> origin + delta (t in [0, 1]) meets; two-sided unless
    the query culls back faces; watertight; a ray starting on a triangle hits it at t = 0.
    out->normal is the triangle's unit normal turned toward the origin, out->point is
    origin + t * delta. A miss: out->hit false, out->t 1. */
SKIM_API skim_status skim_raycast(const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                                  const skim_query *query, skim_hit *out);
/** count rays over OpenMP; hits[i] is bitwise what skim_raycast answers for ray i. */
SKIM_API skim_status skim_raycast_batch(const skim_world *world, size_t count, const skim_vec3 *origins,
                                        const skim_vec3 *deltas, const skim_query *query, skim_hit *hits);
/** Line of sight: whether the ray origin -> origin + delta meets any triangle. *blocked is
    exactly skim_raycast's out->hit for the same arguments; the search ends at the first
    triangle found, so it costs at most what skim_raycast does. */
SKIM_API skim_status skim_raycast_any(const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                                      const skim_query *query, bool *blocked);
/** count rays over OpenMP; blocked[i] is what skim_raycast_any answers for ray i. */
SKIM_API skim_status skim_raycast_any_batch(const skim_world *world, size_t count, const skim_vec3 *origins,
                                            const skim_vec3 *deltas, const skim_query *query, bool *blocked);

/* ---- overlaps ---- */
/** A triangle of the world. */
typedef struct skim_triangle_ref {
    uint32_t triangle; /**< the caller's index */
    uint32_t body;     /**< which mesh: SKIM_STATIC (the world's own) or a body id */
} skim_triangle_ref;
/** Every triangle the ellipsoid centred at `center` overlaps or touches: the world's own in
    increasing index, then each body's (skim_bodies.h) in increasing body id and index.
    Writes the first `capacity` (out may be NULL when capacity is 0); *count is how many there
    are in all. */
SKIM_API skim_status skim_overlap(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 center,
                                  const skim_query *query, skim_triangle_ref *out, uint32_t capacity,
                                  uint32_t *count);

/* ---- closest points ---- */
/** What skim_closest_point found. */
typedef struct skim_closest {
    bool      found;      /**< false: nothing within max_distance */
    float     distance;   /**< world units, >= 0 */
    skim_vec3 point;      /**< the nearest point, on the triangle */
    uint32_t  triangle;   /**< the caller's index */
    uint32_t  body;       /**< SKIM_STATIC or a body id */
} skim_closest;
/** The nearest point of the world to `point` within max_distance (world units, finite, >= 0;
    a point exactly at max_distance is found). Ties: the world's own triangles, then the lower
    body id, then the lowest triangle index. */
SKIM_API skim_status skim_closest_point(const skim_world *world, skim_vec3 point, float max_distance,
                                        const skim_query *query, skim_closest *out);

/* ---- floors ---- */
/** Puts a shape down on the walkable floor below `position` (along -def->up, at most max_drop
    world units): resting def->skin_width above it as skim_move leaves a mover, with
    SKIM_TOUCH_FLOOR, floor_normal and floor_triangle set; a steep first contact, nothing within
    max_drop, or a start overlapping geometry: SKIM_OK, no SKIM_TOUCH_FLOOR, position unchanged. */
SKIM_API skim_status skim_drop_to_floor(const skim_world *world, const skim_ellipsoid *shape,
                                        skim_vec3 position, float max_drop,
                                        const skim_move_def *def /* NULL = defaults */,
                                        skim_move_result *out);

/* ---- the world's triangles (skim extension) ---- */
/** One triangle of a world, as skim_world_get_triangle reports it. */
typedef struct skim_triangle {
    skim_vec3 corner[3];  /**< world space, in the caller's order (a, b, c) */
    skim_vec3 normal;     /**< unit front normal, (b - a) x (c - a) normalised */
    uint16_t  material;   /**< the caller's material (0 when the mesh had none) */
} skim_triangle;
/** Triangle `triangle` (the caller's index, as skim_hit reports it) of a built or loaded world.
    SKIM_ERROR_INVALID_ARGUMENT when the world does not hold it (out of range, or dropped at
    build as degenerate). */
SKIM_API skim_status skim_world_get_triangle(const skim_world *world, uint32_t triangle,
                                             skim_triangle *out);

/* ---- spawn places (skim extension) ---- */
/** Where skim_find_spawn_places looks for standing spots. */
typedef struct skim_spawn_def {
    skim_vec3 up;          /**< unit up vector, default (0, 0, 1) */
    float     spacing;     /**< world units between probed columns, > 0; 0 (default) =
                                2 x the shape's largest radius + 4 */
    float     max_step;    /**< world units, >= 0, default 18: a spot needs a spot in each of the four
                                neighbouring columns at most this much higher or lower */
    float     min_floor_cos; /**< cosine of the steepest floor a spot may stand on, in (0, 1],
                                  default 0.7 */
    float     layer_step;  /**< world units between the heights each column is probed from, > 0,
                                default 64 */
    uint32_t  per_column;  /**< spots kept a column at most (floors above each other), 1..16,
                                default 4 */
} skim_spawn_def;
/** The defaults of every skim_spawn_def field. */
SKIM_API skim_spawn_def skim_spawn_def_default(void);
/** Standing spots for `shape` inside the level: centres on walkable ground (lifted one unit off
    it), on a grid of columns def->spacing apart across `up`, in column order (rows across the
    first horizontal axis, then the second), higher first within a column. Writes the first
    `capacity` (out may be NULL when capacity is 0); *count is how many there are in all. */
SKIM_API skim_status skim_find_spawn_places(const skim_world *world, const skim_ellipsoid *shape,
                                            const skim_spawn_def *def /* NULL = defaults */,
                                            skim_vec3 *out, uint32_t capacity, uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif /* SKIM_QUERY_H */
