/* The contacts of a move, driven from each move of the fuzz input
   (fuzz_sweep_move.c): skim_move_contacts must give the status and the
   result bit for bit as skim_move did, and contacts that keep their
   promises: triangles in range, not degenerate, of their own material,
   finite points, unit normals, a pass and touch classes that exist, whose
   classes together are the result's touched bits; a shorter buffer gets
   the same head and the same count. And skim_move_batch_contacts gives
   bit for bit what the single calls gave. */
#include "fuzz_sweep_move.h"

static void check_contact(const scene *s, const skim_contact *c)
{
    FUZZ_CHECK(c->triangle < s->triangle_count && !s->degenerate[c->triangle] &&
                   c->body == SKIM_STATIC && c->material == s->materials[c->triangle],
               "skim_move_contacts: triangle %u body %u material %u", c->triangle, c->body,
               (unsigned)c->material);
    FUZZ_CHECK(c->pass <= SKIM_MOVE_PASS_SNAP && c->touched != 0 &&
                   (c->touched & ~(uint32_t)(SKIM_TOUCH_FLOOR | SKIM_TOUCH_WALL | SKIM_TOUCH_CEILING)) == 0,
               "skim_move_contacts: pass %u touched %u", (unsigned)c->pass, (unsigned)c->touched);
    const double n = sqrt((double)c->normal.x * c->normal.x + (double)c->normal.y * c->normal.y +
                          (double)c->normal.z * c->normal.z);
    FUZZ_CHECK(fabs(n - 1.0) < 1e-5 && isfinite(c->point.x) && isfinite(c->point.y) && isfinite(c->point.z),
               "skim_move_contacts: normal length %.9g, point (%.9g %.9g %.9g)", n, (double)c->point.x,
               (double)c->point.y, (double)c->point.z);
}

void check_move_contacts(const scene *s, const skim_ellipsoid *shape, skim_vec3 position,
                         skim_vec3 displacement, skim_status moved_status, const skim_move_result *moved,
                         skim_contact *contacts, uint32_t *count)
{
    skim_move_result out;
    skim_status status = skim_move_contacts(s->bvh, shape, position, displacement, &s->def, &out, contacts,
                                            MOVE_CONTACTS, count);
    FUZZ_CHECK(status == moved_status, "skim_move_contacts: status %d, skim_move %d", (int)status,
               (int)moved_status);
    if (status != SKIM_OK) {
        FUZZ_CHECK(*count == 0, "skim_move_contacts failed and counted %u", *count);
        return;
    }
    FUZZ_CHECK(memcmp(&out, moved, sizeof out) == 0, "skim_move_contacts: the result is not skim_move's");
    uint32_t touched = 0;
    const uint32_t kept = *count < MOVE_CONTACTS ? *count : MOVE_CONTACTS;
    for (uint32_t i = 0; i < kept; ++i) {
        check_contact(s, &contacts[i]);
        touched |= contacts[i].touched;
    }
    if (*count <= MOVE_CONTACTS)
        FUZZ_CHECK(touched == out.touched, "skim_move_contacts: classes %u, touched %u", touched, out.touched);
    /* Counting only, then one: the same count and the same first. */
    uint32_t again = 0;
    skim_contact first;
    status = skim_move_contacts(s->bvh, shape, position, displacement, &s->def, &out, NULL, 0, &again);
    FUZZ_CHECK(status == SKIM_OK && again == *count, "skim_move_contacts counting: %u, then %u", *count, again);
    status = skim_move_contacts(s->bvh, shape, position, displacement, &s->def, &out, &first, 1, &again);
    FUZZ_CHECK(status == SKIM_OK && again == *count && (*count == 0 || memcmp(&first, contacts, sizeof first) == 0),
               "skim_move_contacts with room for one: count %u, then %u", *count, again);
}

void check_batch_contacts(const scene *s, size_t moves, const skim_ellipsoid *shapes,
                          const skim_vec3 *positions, const skim_vec3 *displacements,
                          skim_status expected, const skim_move_result *results,
                          const skim_contact *contacts, const uint32_t *counts)
{
    enum { MOVES = 8 };
    if (moves > MOVES)
        return;
    skim_move_result batch[MOVES];
    static skim_contact batch_contacts[MOVES * MOVE_CONTACTS];
    uint32_t batch_counts[MOVES];
    skim_status status = skim_move_batch_contacts(s->bvh, moves, shapes, positions, displacements, &s->def,
                                                  batch, batch_contacts, MOVE_CONTACTS, batch_counts);
    FUZZ_CHECK(status == expected, "skim_move_batch_contacts: %s, skim_move_batch %s", skim_status_string(status),
               skim_status_string(expected));
    if (status != SKIM_OK)
        return;
    for (size_t i = 0; i < moves; ++i) {
        const uint32_t kept = counts[i] < MOVE_CONTACTS ? counts[i] : MOVE_CONTACTS;
        FUZZ_CHECK(memcmp(&batch[i], &results[i], sizeof batch[i]) == 0 && batch_counts[i] == counts[i] &&
                       memcmp(batch_contacts + i * MOVE_CONTACTS, contacts + i * MOVE_CONTACTS,
                              kept * sizeof *contacts) == 0,
                   "skim_move_batch_contacts: mover %zu differs from skim_move_contacts", i);
    }
}
