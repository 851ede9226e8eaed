/* The contacts of a move: skim_move_contacts and skim_move_batch_contacts.

   Which contacts count: every triangle the move notes a touch class for
   (skim_move_note_touch), which is every sweep hit that stopped or turned
   the shape in a pass, every touching contact a pass's start resolution
   found (contacts.c), the hit that shortened a push-out, and the tread a
   step's descent landed on at a stair's nosing. So the contacts' classes
   together are the move's touched bits. Only the path the move kept
   counts, as for the touched bits: a step that lost leaves nothing, a
   step that won replaces the slide's contacts, a snap that did not land
   leaves nothing, and a snap tried again wider keeps only the second try.
   Within a pass a triangle is reported once, at its first meeting, with
   the classes of every meeting: a slide along a wall meets it again after
   each turn, and a server reacting to "touched lava" wants it once.

   The log is the calling thread's for the call (a batch's thread reuses
   one over its movers): a stage cut off after it ran needs entries past
   the caller's capacity, so the cut to capacity is made at the end. */
#include "move/move_contacts.h"

#include "gather/body_gather.h"
#include "world/body.h"

#include <stdlib.h>
#include <string.h>

void skim_move_contact_log_free(skim_move_contact_log *log)
{
    free(log->entry);
    *log = (skim_move_contact_log){ 0 };
}

static bool grow(skim_move_contact_log *log)
{
    const uint32_t capacity = log->capacity ? 2 * log->capacity : 64;
    if (capacity <= log->capacity)
        return false;
    skim_contact *entry = realloc(log->entry, (size_t)capacity * sizeof *entry);
    if (!entry)
        return false;
    log->entry = entry;
    log->capacity = capacity;
    return true;
}

void skim_move_contact_log_add(skim_move_ctx *ctx, uint32_t kind, const float world_normal[3],
                               uint32_t triangle, const float contact[3])
{
    skim_move_contact_log *log = ctx->contacts;
    /* A body's lane names its entry in the move's body table
       (gather/body_gather.h): report the body and its own index. */
    const skim_triangle_ref ref = skim_body_lane_ref(&ctx->scratch->body_lanes, triangle);
    for (uint32_t i = log->stage_start; i < log->count; ++i) {
        if (log->entry[i].triangle == ref.triangle && log->entry[i].body == ref.body) {
            log->entry[i].touched |= (uint8_t)kind;
            return;
        }
    }
    if (log->count == log->capacity && !grow(log)) {
        if (ctx->status == SKIM_OK)
            ctx->status = skim_fail(SKIM_ERROR_OUT_OF_MEMORY,
                                    "skim_move_contacts: no memory for %u contacts", log->count + 1);
        return;
    }
    /* Unit space relative to the start, to the world: the map is affine,
       so the point stays on the triangle (Rouwé, Swept Spheres and
       Ellipsoids, 4). */
    float offset[3];
    mv_mat3(ctx->space->to_world, contact, offset);
    log->entry[log->count++] = (skim_contact){
        .point = { ctx->start[0] + offset[0], ctx->start[1] + offset[1], ctx->start[2] + offset[2] },
        .normal = { world_normal[0], world_normal[1], world_normal[2] },
        .triangle = ref.triangle,
        .body = ref.body,
        .pass = log->stage,
        .touched = (uint8_t)kind,
    };
}

void skim_move_contacts_begin(skim_move_ctx *ctx, skim_pass stage)
{
    skim_move_contact_log *log = ctx->contacts;
    if (stage == SKIM_MOVE_PASS_SLIDE)
        log->count = 0; /* a move's first stage */
    log->stage_start = log->count;
    log->stage = (uint8_t)stage;
    log->stage_kept = stage == SKIM_MOVE_PASS_SLIDE || stage == SKIM_MOVE_PASS_GRAVITY;
}

void skim_move_contacts_end(skim_move_ctx *ctx)
{
    skim_move_contact_log *log = ctx->contacts;
    if (!log->stage_kept) {
        log->count = log->stage_start;
    } else if (log->stage == SKIM_MOVE_PASS_STEP) {
        /* The step runs right after the slide: everything before it is the
           slide's, whose path the step's replaced. */
        const uint32_t stepped = log->count - log->stage_start;
        memmove(log->entry, log->entry + log->stage_start, (size_t)stepped * sizeof *log->entry);
        log->count = stepped;
    }
    log->stage_start = log->count;
}

void skim_move_contacts_copy(const skim_move_contact_log *log, const skim_world *world,
                             skim_contact *contacts, uint32_t capacity, uint32_t *count)
{
    const uint32_t kept = log->count < capacity ? log->count : capacity;
    if (kept)
        memcpy(contacts, log->entry, (size_t)kept * sizeof *contacts);
    /* Materials only for what the caller gets: a lookup by the caller's
       index is a binary search (world_triangles.c). */
    for (uint32_t i = 0; i < kept; ++i) {
        const skim_world *mesh = world;
        if (contacts[i].body != SKIM_STATIC) {
            const skim_body *body = skim_body_find(world, contacts[i].body);
            mesh = body ? body->shape : NULL;
        }
        const uint32_t stored = mesh ? skim_world_stored_of(mesh, contacts[i].triangle) : UINT32_MAX;
        contacts[i].material = stored == UINT32_MAX ? 0 : mesh->material[stored];
    }
    *count = log->count;
}

skim_status skim_move_contacts(const skim_world *world, const skim_ellipsoid *shape,
                               skim_vec3 position, skim_vec3 displacement,
                               const skim_move_def *def, skim_move_result *out,
                               skim_contact *contacts, uint32_t capacity, uint32_t *count)
{
    static const char who[] = "skim_move_contacts";
    if (count)
        *count = 0;
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: out is NULL", who);
    memset(out, 0, sizeof *out);
    if (!count)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: count is NULL", who);
    if (!contacts && capacity > 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: contacts is NULL with capacity %u (NULL needs capacity 0)", who,
                         capacity);
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    skim_status status = skim_move_check_mover(shape, position, displacement, who, 0, false);
    if (status != SKIM_OK)
        return status;
    skim_move_def defaults = skim_move_def_default();
    if (!def)
        def = &defaults;
    status = skim_move_check_def(def, who);
    if (status != SKIM_OK)
        return status;
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    skim_move_contact_log log = { 0 };
    status = skim_move_run_logged(kernels, world, shape, position, displacement, def, out, &log);
    if (status == SKIM_OK)
        skim_move_contacts_copy(&log, world, contacts, capacity, count);
    else
        memset(out, 0, sizeof *out);
    skim_move_contact_log_free(&log);
    return status;
}

/* Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte. */
static bool overlaps(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + b_bytes && y < x + a_bytes;
}

skim_status skim_move_batch_contacts(const skim_world *world, size_t count,
                                     const skim_ellipsoid *shapes, const skim_vec3 *positions,
                                     const skim_vec3 *displacements, const skim_move_def *def,
                                     skim_move_result *results, skim_contact *contacts,
                                     uint32_t capacity, uint32_t *counts)
{
    static const char who[] = "skim_move_batch_contacts";
    if (count == 0)
        return world ? SKIM_OK : skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    /* Every array's size must be a size: count movers of capacity contacts,
       and of the largest per-mover element (64 bytes covers each). */
    if (count > SIZE_MAX / 64 ||
        (capacity > 0 && count > SIZE_MAX / ((size_t)capacity * sizeof *contacts)))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: count %zu x capacity %u contacts is beyond memory", who, count,
                         capacity);
    if (!counts)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: counts is NULL", who);
    if (!contacts && capacity > 0)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: contacts is NULL with capacity %u (NULL needs capacity 0)", who,
                         capacity);
    /* Threads write contacts and counts while others read the inputs. */
    const size_t contact_bytes = count * capacity * sizeof *contacts;
    const size_t count_bytes = count * sizeof *counts;
    const void *others[6] = { counts, shapes, positions, displacements, results, def };
    const size_t other_bytes[6] = { count_bytes, count * sizeof *shapes, count * sizeof *positions,
                                    count * sizeof *displacements, count * sizeof *results,
                                    sizeof *def };
    bool overlap = false;
    for (int k = 0; k < 6; ++k)
        overlap = overlap ||
                  (others[k] && ((contact_bytes && overlaps(contacts, contact_bytes, others[k],
                                                            other_bytes[k])) ||
                                 (k > 0 && overlaps(counts, count_bytes, others[k], other_bytes[k]))));
    if (overlap)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: contacts or counts overlap each other, shapes, positions, "
                         "displacements, results or def", who);
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    return skim_move_batch_logged(kernels, world, count, shapes, positions, displacements, def,
                                  results, contacts, capacity, counts);
}
