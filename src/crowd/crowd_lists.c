/* Neighbour lists both ways, from the grid's half lists (crowd_grid.c).

   The grid lists each pair once, on its lower index, and that entry is the
   pair's slot: the step works out the pair's constraint there once
   (crowd_contacts.c). The solver and the check read an agent's contacts
   from its own list, so every agent also needs the pairs in which it is
   the higher index, each with its slot; finding those by searching the
   other agent's list would cost a search per pair per step.

   An agent's full list is its lower partners, then its half list, all in
   index order: the lower partners are filled in by going through the
   agents in index order, and the half lists come in index order from the
   grid. Nothing depends on the thread count. */
#include "crowd_internal.h"

skim_status crowd_complete_lists(skim_crowd *c, uint32_t n)
{
    size_t *begin = c->list_begin;
    for (uint32_t i = 0; i < n; ++i)
        begin[i + 1] = c->half_begin[i + 1] - c->half_begin[i];
    for (size_t h = 0; h < c->half_begin[n]; ++h)
        begin[c->half_other[h] + 1]++;
    crowd_counts_to_offsets(begin, n);
    if (!crowd_reserve((void **)&c->list, &c->list_capacity, begin[n] ? begin[n] : 1, sizeof *c->list))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for neighbours");
    for (uint32_t i = 0; i < n; ++i)
        c->list_fill[i] = begin[i];
    /* Lower partners, a in increasing order: serial, as every a writes into
       the lists of others. */
    for (uint32_t a = 0; a < n; ++a)
        for (size_t h = c->half_begin[a]; h < c->half_begin[a + 1]; ++h) {
            uint32_t b = c->half_other[h];
            c->list[c->list_fill[b]++] = (crowd_list_entry){ a, (uint32_t)h };
        }
    /* Then each agent's own half list. */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; ++i) {
        size_t at = c->list_fill[i];
        for (size_t h = c->half_begin[i]; h < c->half_begin[i + 1]; ++h)
            c->list[at++] = (crowd_list_entry){ c->half_other[h], (uint32_t)h };
    }
    return SKIM_OK;
}
