/* skim_move_batch: many movers over OpenMP threads.

   Each mover is independent: it reads the shared, immutable world and
   writes only its own result, with its own thread's scratch buffers (no
   allocation once they have grown). So any schedule gives the same results;
   dynamic chunks of 64 balance movers that meet a lot of geometry against
   movers in open space, and 64 results (2.5 KiB) per chunk keep two threads
   off each other's cache lines except at the chunk edges. The kernels give
   bitwise the same hits at every SIMD width (DESIGN.md), and everything in
   src/move/ is plain scalar float code compiled without contraction, so the
   results are bitwise the same for any thread count and any kernel set but
   the reference. */
#include "move_internal.h"

#include <omp.h>
#include <string.h>

skim_status skim_move_batch_with(const skim_kernel_set *kernels, const skim_world *world,
                                 size_t count, const skim_ellipsoid *shapes,
                                 const skim_vec3 *positions, const skim_vec3 *displacements,
                                 const skim_move_def *def, skim_move_result *results)
{
    static const char who[] = "skim_move_batch";
    if (!world)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: world is NULL", who);
    if (count == 0)
        return SKIM_OK;
    if (!shapes || !positions || !displacements || !results)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "%s: shapes, positions, displacements and results must not be NULL", who);
    if (count > (size_t)INT64_MAX)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: count %zu too large", who, count);
    skim_move_def defaults = skim_move_def_default();
    if (!def)
        def = &defaults;
    skim_status status = skim_move_check_def(def, who);
    if (status != SKIM_OK)
        return status;
    if (!kernels)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: no kernel set", who);
    /* Every mover is checked before any result is written, so a bad one
       fails the call with nothing written; the checks are shared out over
       the threads too (run serially they were 3.7% of a default-scene
       batch, which caps two threads at 1.93 times one). Static chunks come
       in index order, so each thread's first bad mover is its lowest, and
       the lowest of those is reported, whatever the thread count: checked
       again on the calling thread, whose error message the caller reads. */
    int64_t first_bad = INT64_MAX;
    /* An internal failure (out of memory growing a thread's scratch) is
       reported for the lowest failing mover, whatever the thread count. */
    int64_t first_failure = INT64_MAX;
    skim_status failure = SKIM_OK;
    const int64_t n = (int64_t)count;
#pragma omp parallel
    {
        int64_t bad = INT64_MAX;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; ++i)
            if (bad == INT64_MAX && skim_move_check_mover(&shapes[i], positions[i], displacements[i],
                                                          who, (size_t)i, true) != SKIM_OK)
                bad = i;
        if (bad != INT64_MAX) {
#pragma omp critical(skim_move_batch_check)
            if (bad < first_bad)
                first_bad = bad;
        }
#pragma omp barrier
        if (first_bad == INT64_MAX) {
#pragma omp for schedule(dynamic, 64)
            for (int64_t i = 0; i < n; ++i) {
                skim_status s = skim_move_run(kernels, world, &shapes[i], positions[i],
                                              displacements[i], def, &results[i]);
                if (s != SKIM_OK) {
                    memset(&results[i], 0, sizeof results[i]);
#pragma omp critical(skim_move_batch_failure)
                    if (i < first_failure) {
                        first_failure = i;
                        failure = s;
                    }
                }
            }
        }
    }
    if (first_bad != INT64_MAX)
        return skim_move_check_mover(&shapes[first_bad], positions[first_bad],
                                     displacements[first_bad], who, (size_t)first_bad, true);
    if (failure != SKIM_OK)
        return skim_fail(failure, "%s: mover %lld: %s", who, (long long)first_failure,
                         skim_status_string(failure));
    return SKIM_OK;
}

skim_status skim_move_batch(const skim_world *world, size_t count, const skim_ellipsoid *shapes,
                            const skim_vec3 *positions, const skim_vec3 *displacements,
                            const skim_move_def *def, skim_move_result *results)
{
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels)
        return SKIM_ERROR_INVALID_ARGUMENT; /* message recorded by skim_kernels() */
    return skim_move_batch_with(kernels, world, count, shapes, positions, displacements, def,
                                results);
}
