/* skim_move_batch's arrays: results written over an input (results over
   positions, over displacements, over shapes, over def) is refused, since
   threads write results while others still read the inputs; separate
   arrays, even back to back, are fine. */
#include "hardening.h"

enum { MOVERS = 64 };

Test(move_batch_arrays, results_over_an_input_are_refused)
{
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    /* One block big enough for results, carved so that results start on
       each input in turn. */
    const size_t bytes = MOVERS * sizeof(skim_move_result) + 4096;
    unsigned char *block = aligned_alloc(64, bytes);
    cr_assert_not_null(block);
    skim_ellipsoid shapes[MOVERS];
    skim_vec3 positions[MOVERS], displacements[MOVERS];
    for (int i = 0; i < MOVERS; ++i) {
        shapes[i] = (skim_ellipsoid){ { 1, 1, 1 }, { 0, 0, 0, 1 } };
        positions[i] = (skim_vec3){ -15.0f + 0.4f * (float)i, 0, 2 };
        displacements[i] = (skim_vec3){ 30, 0, 0 };
    }
    skim_move_def def = skim_move_def_default();
    for (int target = 0; target < 4; ++target) {
        skim_ellipsoid *s = shapes;
        skim_vec3 *p = positions, *d = displacements;
        skim_move_def *f = &def;
        skim_move_result *results = (skim_move_result *)(void *)block;
        /* The input lives at the start of the results' block. */
        if (target == 0)
            p = memcpy(block, positions, sizeof positions);
        else if (target == 1)
            d = memcpy(block, displacements, sizeof displacements);
        else if (target == 2)
            s = memcpy(block, shapes, sizeof shapes);
        else
            f = memcpy(block + 64 * sizeof(skim_move_result) - sizeof def, &def, sizeof def);
        skim_status status = skim_move_batch(world, MOVERS, s, p, d, f, results);
        cr_expect_eq(status, SKIM_ERROR_INVALID_ARGUMENT, "results over input %d: status %s", target,
                     skim_status_string(status));
        if (status == SKIM_ERROR_INVALID_ARGUMENT)
            cr_expect(strstr(skim_last_error_message(), "overlap") != NULL, "%s", skim_last_error_message());
    }
    /* Results right after the positions, sharing no byte: accepted. */
    skim_vec3 *packed_positions = memcpy(block, positions, sizeof positions);
    skim_move_result *after = aligned_alloc(64, MOVERS * sizeof *after);
    cr_assert_eq(skim_move_batch(world, MOVERS, shapes, packed_positions, displacements, &def, after), SKIM_OK,
                 "%s", skim_last_error_message());
    for (int i = 0; i < MOVERS; ++i)
        cr_expect(isfinite(after[i].position.x), "mover %d ends at %g", i, (double)after[i].position.x);
    free(after);
    free(block);
    skim_world_destroy(world);
}
