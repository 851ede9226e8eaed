/* The bad-input table's runner for the contacts of a move (bad_input.h):
   skim_move_contacts and skim_move_batch_contacts. A failure leaves the
   single call's count 0 and its result zeroed, and the batch's results,
   counts and contacts untouched; nothing is written past the first
   capacity contacts (a mover's), and what is written is what the call
   promises: skim_move's result, the whole count. */
#include "bad_input.h"

enum { CAPACITY = 4, BATCH = 3 };
typedef skim_contact four_contacts[CAPACITY];

static void contacts_defaults(contacts_args *a)
{
    memset(a, 0, sizeof *a);
    a->position = (skim_vec3){ 0, 0, 1.5f };
    a->displacement = (skim_vec3){ 5, 0, -1 };
    a->radius_x = 1;
    a->capacity = CAPACITY;
    a->count = BATCH;
    a->def = skim_move_def_default();
}

static skim_status run_single(const contacts_args *a, skim_world *world)
{
    skim_ellipsoid shape = sphere_of(1);
    shape.radii.x = a->radius_x;
    GUARDED(skim_move_result) out;
    GUARDED(four_contacts) contacts;
    memset(&out, CANARY, sizeof out);
    memset(&contacts, CANARY, sizeof contacts);
    uint32_t count = 77;
    const skim_move_def *def = a->null_def ? NULL : &a->def;
    skim_status status = skim_move_contacts(a->null_world ? NULL : world, a->null_shape ? NULL : &shape, a->position,
                                            a->displacement, def, a->null_out ? NULL : &out.value,
                                            a->null_contacts ? NULL : contacts.value, a->capacity,
                                            a->null_count ? NULL : &count);
    if (!a->null_out)
        cr_expect(canary_intact(out.canary, CANARY_BYTES), "skim_move_contacts wrote past the result");
    cr_expect(canary_intact(contacts.canary, CANARY_BYTES), "skim_move_contacts wrote past its capacity");
    if (status != SKIM_OK) {
        if (!a->null_count)
            cr_expect_eq(count, 0u, "a failed call counts %u", count);
        if (!a->null_out)
            cr_expect(all_bytes(&out.value, sizeof out.value, 0), "a failed call left a result");
        return status;
    }
    skim_move_result moved;
    cr_assert_eq(skim_move(world, &shape, a->position, a->displacement, def, &moved), SKIM_OK);
    cr_expect(memcmp(&moved, &out.value, sizeof moved) == 0, "the result is not skim_move's");
    const uint32_t kept = count < a->capacity ? count : a->capacity;
    cr_expect(all_bytes(contacts.value + kept, (CAPACITY - kept) * sizeof(skim_contact), CANARY),
              "wrote %u contacts of %u", CAPACITY, kept);
    for (uint32_t i = 0; i < kept; ++i)
        cr_expect(contacts.value[i].triangle < SMALL_TRIANGLES && contacts.value[i].body == SKIM_STATIC);
    return status;
}

static skim_status run_batch(const contacts_args *a, skim_world *world)
{
    skim_ellipsoid shapes[BATCH] = { sphere_of(1), sphere_of(2), { { 1, 2, 1.5f }, { 0, 0, 0.6f, 0.8f } } };
    skim_vec3 positions[BATCH] = { a->position, { -5, 5, 3 }, { 2, -3, 4 } };
    skim_vec3 displacements[BATCH] = { a->displacement, { 20, 0, 0 }, { 0, 0, -10 } };
    shapes[0].radii.x = a->radius_x;
    typedef skim_move_result batch_results[BATCH];
    typedef skim_contact batch_contacts[BATCH * CAPACITY];
    typedef uint32_t batch_counts[BATCH];
    GUARDED(batch_results) results;
    GUARDED(batch_contacts) contacts;
    GUARDED(batch_counts) counts;
    memset(&results, CANARY, sizeof results);
    memset(&contacts, CANARY, sizeof contacts);
    memset(&counts, CANARY, sizeof counts);
    skim_contact *contact_buffer = a->null_contacts ? NULL : contacts.value;
    uint32_t *count_buffer = a->null_count ? NULL : counts.value;
    if (a->alias_positions)
        contact_buffer = (skim_contact *)(void *)positions;
    if (a->alias_results)
        count_buffer = (uint32_t *)(void *)results.value;
    const skim_move_def *def = a->null_def ? NULL : &a->def;
    skim_status status = skim_move_batch_contacts(a->null_world ? NULL : world, a->count,
                                                  a->null_shape ? NULL : shapes, positions, displacements, def,
                                                  a->null_out ? NULL : results.value, contact_buffer, a->capacity,
                                                  count_buffer);
    cr_expect(canary_intact(results.canary, CANARY_BYTES) && canary_intact(contacts.canary, CANARY_BYTES) &&
                  canary_intact(counts.canary, CANARY_BYTES),
              "skim_move_batch_contacts wrote past its arrays");
    if (status != SKIM_OK || a->count == 0) {
        cr_expect(all_bytes(results.value, sizeof results.value, CANARY) &&
                      all_bytes(counts.value, sizeof counts.value, CANARY) &&
                      all_bytes(contacts.value, sizeof contacts.value, CANARY),
                  "skim_move_batch_contacts wrote although it %s", status != SKIM_OK ? "failed" : "had no movers");
        return status;
    }
    /* Each mover as skim_move_contacts answers it. */
    for (size_t i = 0; i < BATCH; ++i) {
        skim_move_result single;
        skim_contact one[CAPACITY];
        uint32_t count;
        cr_assert_eq(skim_move_contacts(world, &shapes[i], positions[i], displacements[i], def, &single, one,
                                        a->capacity, &count), SKIM_OK);
        cr_expect(memcmp(&single, &results.value[i], sizeof single) == 0, "mover %zu: result", i);
        cr_expect_eq(count, counts.value[i], "mover %zu: count", i);
        const uint32_t kept = count < a->capacity ? count : a->capacity;
        cr_expect(memcmp(one, contacts.value + i * a->capacity, kept * sizeof *one) == 0, "mover %zu: contacts", i);
    }
    return status;
}

skim_status bad_input_run_contacts(const row *r)
{
    contacts_args a;
    contacts_defaults(&a);
    apply(r, &a);
    const contacts_args before = a;
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    skim_status status = r->fn == F_move_contacts ? run_single(&a, world) : run_batch(&a, world);
    expect_status(r, status);
    cr_expect(memcmp(&before, &a, sizeof a) == 0, "%s changed its inputs", function_names[r->fn]);
    skim_world_destroy(world);
    return status;
}
