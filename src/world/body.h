/* Moving bodies (body.c): other worlds' triangles placed in a world by a
   rigid transform. The world keeps its bodies in increasing id with each
   one's world-space box, and those boxes sorted along x (body_boxes.h:
   sorted again on add and remove, one entry moved on a new transform); a
   move's gather finds the boxes it meets there, other queries scan them,
   and the met bodies' triangles come from the bodies' own BVHs. */
#ifndef SKIM_BODY_H
#define SKIM_BODY_H

#include "base/skim_internal.h"
#include "world/body_boxes.h"

/* Bodies' shapes of at most this many triangles keep them placed in the
   world (skim_body.placed), made again on each new transform. */
#define SKIM_BODY_PLACED_MAX 256

/* One of a body's triangles where the body stands now: its corners
   through skim_body_point_to_world and their box. */
typedef struct skim_placed_triangle {
    double corner[3][3];
    double lo[3], hi[3];
} skim_placed_triangle;

typedef struct skim_body {
    uint32_t          id;
    const skim_world *shape;
    skim_transform    now, before;  /* rotations renormalised */
    double            rotation[3][3]; /* of now, row-major: world = rotation * local + position */
    double            position[3];
    double            local_origin[3]; /* the world's origin in the body's mesh */
    float             box_min[3], box_max[3]; /* the placed shape's bounds, rounded outward */
    skim_placed_triangle *placed; /* by stored index; NULL past SKIM_BODY_PLACED_MAX triangles */
} skim_body;

typedef struct skim_body_table {
    skim_body *body;              /* increasing id */
    skim_box_index boxes;         /* the bodies' boxes, by table index */
    uint32_t   count, capacity;
    uint32_t   next_id;           /* ids are never reused */
    float      bounds_min[3], bounds_max[3]; /* every body's box; valid when count > 0 */
    skim_vec3  all_min, all_max;  /* those and the world's own bounds; valid when count > 0 */
} skim_body_table;

/* Frees the table of a world being destroyed and gives its shapes back. */
void skim_bodies_release(skim_world *world);
/* The box of the world's own triangles and of every body where it stands
   now: world->bounds_min/max when there are no bodies. */
void skim_world_all_bounds(const skim_world *world, skim_vec3 *lo, skim_vec3 *hi);
/* Body `id` of world, or NULL. */
const skim_body *skim_body_find(const skim_world *world, uint32_t id);

static inline bool skim_body_box_overlaps(const skim_body *body, const float lo[3],
                                          const float hi[3])
{
    return body->box_min[0] <= hi[0] && body->box_max[0] >= lo[0] && body->box_min[1] <= hi[1] &&
           body->box_max[1] >= lo[1] && body->box_min[2] <= hi[2] && body->box_max[2] >= lo[2];
}

/* A world point into the body's own mesh, and a world vector (no position). */
void skim_body_point_to_local(const skim_body *body, const double world[3], double local[3]);
void skim_body_vector_to_local(const skim_body *body, const double world[3], double local[3]);
/* A point of the body's mesh into the world, and a vector. */
void skim_body_point_to_world(const skim_body *body, const double local[3], double world[3]);
void skim_body_vector_to_world(const skim_body *body, const double local[3], double world[3]);
/* Stored triangle `stored` of the body's mesh where the body stands now,
   worked out into *out; skim_body_triangle_at takes it from body->placed
   when the body keeps them (the same bits), else works it out in *scratch. */
void skim_body_place_triangle(const skim_body *body, uint32_t stored, skim_placed_triangle *out);
static inline const skim_placed_triangle *skim_body_triangle_at(const skim_body *body, uint32_t stored,
                                                               skim_placed_triangle *scratch)
{
    if (body->placed)
        return &body->placed[stored];
    skim_body_place_triangle(body, stored, scratch);
    return scratch;
}
/* The box [lo, hi] (world) as a box of the body's mesh that holds it. */
void skim_body_box_to_local(const skim_body *body, const float lo[3], const float hi[3],
                            float local_lo[3], float local_hi[3]);
/* A rotation (unit quaternion, double) as a row-major matrix. */
void skim_quat_matrix(const double q[4], double m[3][3]);

#endif /* SKIM_BODY_H */
