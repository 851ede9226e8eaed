/*
 * skim — moving bodies: doors, lifts and platforms placed in a world by a
 * rigid transform the caller changes between calls. Included by <skim/skim.h>;
 * docs/bodies.md says how they work.
 */
#ifndef SKIM_BODIES_H
#define SKIM_BODIES_H

#include <skim/skim.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A rigid placement: a body's point p (in its own mesh) stands at rotation * p + position. */
typedef struct skim_transform {
    skim_vec3 position; /**< world units, |coordinate| <= SKIM_COORDINATE_MAX */
    skim_quat rotation; /**< unit within 1e-3 (renormalised); identity is {0, 0, 0, 1} */
} skim_transform;

/** Places the triangles of `shape` (a built or loaded world without bodies of its own, not
    `world`; it must outlive the body) in `world` at `transform`. *out_id is the new body's id:
    ids count up from 0 in the order bodies are added and are never reused. Not concurrent with
    any other call on `world`. */
SKIM_API skim_status skim_world_add_body(skim_world *world, const skim_world *shape,
                                         skim_transform transform, uint32_t *out_id);
/** Moves body `id` to `transform`; the transform it had is kept as its previous one. Not
    concurrent with any other call on `world`. */
SKIM_API skim_status skim_world_set_body_transform(skim_world *world, uint32_t id,
                                                   skim_transform transform);
/** Takes body `id` out of `world`; its id is not given again. Not concurrent with any other
    call on `world`. */
SKIM_API skim_status skim_world_remove_body(skim_world *world, uint32_t id);
/** skim extension: body `id`'s transform now and the one before its last
    skim_world_set_body_transform (both the add's transform until then), renormalised as
    queries use them; either pointer may be NULL. */
SKIM_API skim_status skim_world_get_body_transform(const skim_world *world, uint32_t id,
                                                   skim_transform *now, skim_transform *before);

#ifdef __cplusplus
}
#endif

#endif /* SKIM_BODIES_H */
