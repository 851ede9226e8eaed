/* The contacts of a move (move_contacts.c): a log the passes write to
   while a move runs with one (skim_move_contacts, skim_move_batch_contacts),
   and the hooks they call where they meet a triangle. A move without a log
   (skim_move, skim_move_batch, the crowd) pays one test of ctx->contacts
   at each hook. */
#ifndef SKIM_MOVE_CONTACTS_H
#define SKIM_MOVE_CONTACTS_H

#include "move/move_internal.h"

/* The contacts of one move in progress, in the order met, in world space.
   The passes of a stage (a public skim_pass: the slide, the step's three
   passes, the gravity pass, the snap's one or two tries) write to
   [stage_start, count); a stage that is not kept is cut off again. */
typedef struct skim_move_contact_log {
    skim_contact *entry;   /* grown as needed; freed by skim_move_contact_log_free */
    uint32_t count, capacity;
    uint32_t stage_start;  /* the running stage's first entry */
    uint8_t  stage;        /* the running stage's skim_pass */
    bool     stage_kept;   /* the running stage's path is the move's */
} skim_move_contact_log;

void skim_move_contact_log_free(skim_move_contact_log *log);

/* Notes what the running stage met: triangle (caller's index), its touch
   class and unit world normal, at contact (unit space, relative to the
   move's start). Once per triangle per stage: a later meeting adds its
   class to the first's. Out of memory sets ctx->status. */
void skim_move_contact_log_add(skim_move_ctx *ctx, uint32_t kind, const float world_normal[3],
                               uint32_t triangle, const float contact[3]);
static inline void skim_move_log_contact(skim_move_ctx *ctx, uint32_t kind,
                                         const float world_normal[3], uint32_t triangle,
                                         const float contact[3])
{
    if (ctx->contacts)
        skim_move_contact_log_add(ctx, kind, world_normal, triangle, contact);
}

/* move.c, around its stages: a stage begins (the slide and gravity are
   kept as they run; the step and the snap only once they say so), and
   ends: a stage not kept loses its contacts, a kept step replaces the
   slide's (the move's path is the step's, as the touched bits are). */
void skim_move_contacts_begin(skim_move_ctx *ctx, skim_pass stage);
void skim_move_contacts_end(skim_move_ctx *ctx);
/* step_and_snap.c: the running stage's path is kept (the step won, the
   snap landed); or it starts over (the snap tries again, wider). */
static inline void skim_move_contacts_keep(skim_move_ctx *ctx)
{
    if (ctx->contacts)
        ctx->contacts->stage_kept = true;
}
static inline void skim_move_contacts_restart(skim_move_ctx *ctx)
{
    if (ctx->contacts)
        ctx->contacts->count = ctx->contacts->stage_start;
}

/* move.c: skim_move_run with a log (NULL: none), emptied first. */
skim_status skim_move_run_logged(const skim_kernel_set *kernels, const skim_world *world,
                                 const skim_ellipsoid *shape, skim_vec3 position,
                                 skim_vec3 displacement, const skim_move_def *def,
                                 skim_move_result *out, skim_move_contact_log *log);

/* move_batch.c: the batch with each mover's contacts (arguments checked
   by the caller but for what batch_run checks itself). */
skim_status skim_move_batch_logged(const skim_kernel_set *kernels, const skim_world *world,
                                   size_t count, const skim_ellipsoid *shapes,
                                   const skim_vec3 *positions, const skim_vec3 *displacements,
                                   const skim_move_def *def, skim_move_result *results,
                                   skim_contact *contacts, uint32_t capacity, uint32_t *counts);

/* Copies the log's first capacity entries to contacts, with their
   materials from world, and its count to *count. */
void skim_move_contacts_copy(const skim_move_contact_log *log, const skim_world *world,
                             skim_contact *contacts, uint32_t capacity, uint32_t *count);

#endif /* SKIM_MOVE_CONTACTS_H */
