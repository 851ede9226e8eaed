/**
 * @file skim_contacts.h
 * @brief The contacts of a move: which triangles a skim_move met, where, and
 * in which pass, so a server can react to what its movers touch.
 *
 * Included by <skim/skim.h>; docs/queries.md, "Contacts of a move", says
 * which contacts count, their order, duplicates and the cut.
 */
#ifndef SKIM_CONTACTS_H
#define SKIM_CONTACTS_H

#include <skim/skim.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The pass of a move that met a contact (docs/guide.md, "Moves"). */
typedef enum skim_pass {
    SKIM_MOVE_PASS_SLIDE = 0,   /**< the caller's displacement, sliding */
    SKIM_MOVE_PASS_STEP = 1,    /**< the step up, over and down (reported only when the step was kept) */
    SKIM_MOVE_PASS_GRAVITY = 2, /**< the gravity pass */
    SKIM_MOVE_PASS_SNAP = 3,    /**< the snap down to a floor (reported only when it landed) */
} skim_pass;

/** One triangle a move met in one pass. */
typedef struct skim_contact {
    skim_vec3 point;    /**< contact point on the triangle, world, at the first meeting in the pass */
    skim_vec3 normal;   /**< unit, the shape's surface normal there, toward its center (as skim_hit) */
    uint32_t  triangle; /**< the triangle's index in the caller's mesh */
    uint32_t  body;     /**< SKIM_STATIC for the world's own triangles, else a body id */
    uint16_t  material; /**< the triangle's material (0 when the mesh had none) */
    uint8_t   pass;     /**< a skim_pass */
    uint8_t   touched;  /**< SKIM_TOUCH_* classes the triangle counted as in that pass */
} skim_contact;

/** skim_move, and the contacts of the path it kept, in the order met: the first `capacity` go
   to contacts (NULL allowed when capacity is 0), *count is how many there are in all.
   *out is bitwise what skim_move gives. */
SKIM_API skim_status skim_move_contacts(const skim_world *world, const skim_ellipsoid *shape,
                                        skim_vec3 position, skim_vec3 displacement,
                                        const skim_move_def *def /* NULL = defaults */,
                                        skim_move_result *out, skim_contact *contacts,
                                        uint32_t capacity, uint32_t *count);

/** skim_move_batch with each mover's contacts: mover i's first `capacity` go to
   contacts[i * capacity ...], counts[i] is how many it met in all. results and counts are
   bitwise what skim_move_contacts gives for each mover, for any thread count. contacts and
   counts must not overlap the inputs or results (SKIM_ERROR_INVALID_ARGUMENT). */
SKIM_API skim_status skim_move_batch_contacts(const skim_world *world, size_t count,
                                              const skim_ellipsoid *shapes,
                                              const skim_vec3 *positions,
                                              const skim_vec3 *displacements,
                                              const skim_move_def *def, skim_move_result *results,
                                              skim_contact *contacts, uint32_t capacity,
                                              uint32_t *counts);

#ifdef __cplusplus
}
#endif

#endif /* SKIM_CONTACTS_H */
