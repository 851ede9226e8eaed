/* The step's arrays put in the grid's new order (crowd_grid.c) by the
   whole team: what the plan wrote (crowd_step.c), the avoidance's inputs
   and the grid's own bounds and cells. Each array is gathered into a spare
   of its own, so all of them move in one phase, a range of agents of one
   array per chunk, whichever thread takes which; then the spares take the
   arrays' places and the arrays become the spares. A gather is a copy:
   the same bits as one thread moving the arrays one by one. */
#include "crowd/crowd_internal.h"

#include <stdlib.h>
#include <string.h>

/* One array the reordering moves: the crowd's field and its element size
   (1, 4, 8 or 12 bytes). */
typedef struct reordered {
    void **field;
    size_t size;
} reordered;

/* The arrays; the avoidance's come last and are moved only when the crowd
   avoids (unused otherwise), so every array keeps its spare's index. */
static uint32_t list_arrays(skim_crowd *c, bool avoidance, reordered *out)
{
    uint32_t k = 0;
#define ARRAY(name, count) out[k++] = (reordered){ (void **)&c->name, (count) * sizeof *c->name }
    ARRAY(active, 1);
    ARRAY(start, 3);
    ARRAY(planned, 3);
    ARRAY(q, 3);
    ARRAY(proj, 3);
    ARRAY(reach, 1);
    ARRAY(vreach, 1);
    ARRAY(margin, 1);
    ARRAY(radius, 1);
    ARRAY(height, 1);
    ARRAY(inverse_mass, 1);
    ARRAY(leaning, 1);
    ARRAY(grounded, 1);
    ARRAY(sense, 1);
    ARRAY(next_contact_bound, 1);
    ARRAY(bound, 1);
    ARRAY(vbound, 1);
    ARRAY(cell, 2);
    if (avoidance) {
        ARRAY(avoid_pref, 2);
        ARRAY(avoid_velocity, 2);
        ARRAY(avoid_top, 1);
        ARRAY(along, 1);
    }
#undef ARRAY
    /* pushed is all zero until the solver runs. */
    return k;
}

bool crowd_reorder_init(skim_crowd *c)
{
    reordered arrays[CROWD_REORDERED_MAX];
    const uint32_t count = list_arrays(c, true, arrays);
    for (uint32_t a = 0; a < count; ++a)
        if (!(c->reorder_spare[a] = calloc(c->capacity ? c->capacity : 1, arrays[a].size)))
            return false;
    return true;
}

void crowd_reorder_release(skim_crowd *c)
{
    for (uint32_t a = 0; a < CROWD_REORDERED_MAX; ++a) {
        free(c->reorder_spare[a]);
        c->reorder_spare[a] = NULL;
    }
}

/* Agents [first, last) of one array: to[k] = from[order[k]], elements of
   size bytes. Inlined with size a constant, memcpy of it is a plain move. */
static inline __attribute__((always_inline)) void gather_sized(char *to, const char *from, size_t size,
                                                               const uint32_t *order, uint32_t first, uint32_t last)
{
    for (size_t k = first; k < last; ++k)
        memcpy(to + k * size, from + (size_t)order[k] * size, size);
}

/* One loop per element size, chosen once per chunk: a switch inside the
   loop, which GCC 12 keeps there, cost half of the gather's instructions
   (callgrind). */
static void gather(void *to, const void *from, size_t size, const uint32_t *order, uint32_t first, uint32_t last)
{
    switch (size) {
    case 1: gather_sized(to, from, 1, order, first, last); break;
    case 4: gather_sized(to, from, 4, order, first, last); break;
    case 8: gather_sized(to, from, 8, order, first, last); break;
    default: gather_sized(to, from, 12, order, first, last); break;
    }
}

/* Agents per chunk of one array. A chunk reads and writes one run of
   memory, which the hardware prefetchers follow (a chunk moving every
   array at once would make dozens of runs, more than they track); the
   chunks of one range of agents come one after another, so the range of
   order they all read stays in cache. */
#define REORDER_CHUNK 4096

void crowd_reorder_gather(skim_crowd *c, uint32_t n, const uint32_t *order, team_cursor *cursor)
{
    reordered arrays[CROWD_REORDERED_MAX + 1];
    const uint32_t count = list_arrays(c, c->def.avoidance, arrays);
    /* The starts the grid's order is built for, from proj like its spare. */
    arrays[count] = (reordered){ (void **)&c->proj, 3 * sizeof *c->proj };
    void *targets[CROWD_REORDERED_MAX + 1];
    for (uint32_t a = 0; a < count; ++a)
        targets[a] = c->reorder_spare[a];
    targets[count] = c->built_proj;
    const uint32_t per_range = count + 1, chunks = team_chunks(n, REORDER_CHUNK) * per_range;
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        const uint32_t a = k % per_range;
        crowd_chunk_range(k / per_range, REORDER_CHUNK, n, &first, &last);
        gather(targets[a], *arrays[a].field, arrays[a].size, order, first, last);
    }
    team_wait(phase, chunks);
}

void crowd_reorder_take(skim_crowd *c)
{
    reordered arrays[CROWD_REORDERED_MAX];
    const uint32_t count = list_arrays(c, c->def.avoidance, arrays);
    for (uint32_t a = 0; a < count; ++a) {
        void *gathered = c->reorder_spare[a];
        c->reorder_spare[a] = *arrays[a].field;
        *arrays[a].field = gathered;
    }
}
