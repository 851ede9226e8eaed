/* The crowd's working memory: buffers that grow and stay, the per-chunk
   buffers of a parallel phase joined in chunk order (so the result does not
   depend on which thread ran which chunk), and the step's clock. */
#include "crowd/crowd_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double crowd_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

bool crowd_reserve(void **items, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity)
        return true;
    size_t grown = *capacity ? *capacity : 64;
    while (grown < need) {
        if (grown > SIZE_MAX / 2 / size)
            return false;
        grown *= 2;
    }
    void *p = realloc(*items, grown * size);
    if (!p)
        return false;
    *items = p;
    *capacity = grown;
    return true;
}

bool crowd_reserve_chunk_buffers(void **buffers, int *count, uint32_t chunks, size_t size)
{
    if ((uint32_t)*count >= chunks)
        return true;
    unsigned char *grown = realloc(*buffers, (size_t)chunks * size);
    if (!grown)
        return false;
    /* New buffers empty: no items, nothing allocated. */
    memset(grown + (size_t)*count * size, 0, (size_t)(chunks - (uint32_t)*count) * size);
    *buffers = grown;
    *count = (int)chunks;
    return true;
}

bool crowd_join_chunks(skim_crowd *c, team_cursor *cursor, team_phase *phase, uint32_t n, uint32_t chunks,
                       bool (*join)(skim_crowd *, uint32_t, uint32_t))
{
    team_wait(phase, chunks);
    if (crowd_out_of_memory(&c->shared))
        return false;
    phase = team_phase_next(cursor);
    if (team_serial(phase)) {
        if (!join(c, n, chunks))
            crowd_note_out_of_memory(&c->shared);
        team_finish(phase);
    }
    team_wait(phase, 1);
    return !crowd_out_of_memory(&c->shared);
}
