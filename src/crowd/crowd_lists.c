/* Neighbour lists both ways, from the grid's half lists (crowd_grid.c).

   The grid lists each pair once, on its lower index, and that entry is the
   pair's slot: the step works out the pair's constraint there once
   (crowd_contacts.c). The solver and the check read an agent's contacts
   from its own list, so every agent also needs the pairs in which it is
   the higher index, each with its slot; finding those by searching the
   other agent's list cost a search per pair per step.

   An agent's full list is its half list merged with its lower partners in
   exactly the order a grid scan for all partners gives (the grid's rank;
   a big agent lists by index), so the contact order, and with it every sum
   the solver makes, is the one such a scan would give. The lower partners
   are filled in serially by going through the agents in rank order, so
   each agent's lower part comes out in rank order; the merge is per agent.
   Nothing depends on the thread count. */
#include "crowd_internal.h"

/* Agent a's half list, entered at the front of each partner's full list. */
static void fill_lower(skim_crowd *c, uint32_t a)
{
    for (size_t h = c->half_begin[a]; h < c->half_begin[a + 1]; ++h) {
        uint32_t b = c->half_other[h];
        c->list[c->list_fill[b]++] = (crowd_list_entry){ a, (uint32_t)h };
    }
}

/* A big agent lists by index: its lower part, filled in rank order, is
   sorted by index (big agents are few: a very fast one now and then). */
static void sort_lower_by_index(skim_crowd *c, uint32_t b)
{
    crowd_list_entry *list = c->list;
    size_t first = c->list_begin[b], last = c->list_fill[b];
    for (size_t k = first + 1; k < last; ++k) {
        crowd_list_entry entry = list[k];
        size_t at = k;
        for (; at > first && list[at - 1].other > entry.other; --at)
            list[at] = list[at - 1];
        list[at] = entry;
    }
}

static inline uint32_t order_key(const skim_crowd *c, bool by_index, uint32_t agent)
{
    return by_index ? agent : c->rank[agent];
}

/* Merges agent b's lower part (at the front of its full list) with its half
   list from the back, so no entry of the lower part is overwritten before
   it is read. */
static void merge_list(skim_crowd *c, uint32_t b)
{
    const bool by_index = c->big[b] != 0;
    const size_t lower_first = c->list_begin[b], half_first = c->half_begin[b];
    size_t lower = c->list_fill[b], half = c->half_begin[b + 1], out = c->list_begin[b + 1];
    while (half > half_first) {
        uint32_t upper = c->half_other[half - 1];
        if (lower > lower_first &&
            order_key(c, by_index, c->list[lower - 1].other) > order_key(c, by_index, upper)) {
            c->list[--out] = c->list[--lower];
        } else {
            --half;
            c->list[--out] = (crowd_list_entry){ upper, (uint32_t)half };
        }
    }
    /* What is left of the lower part is already in place. */
}

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
    /* Rank order: the grid agents in sorted order, then the big ones (the
       ghosts list nobody and nobody lists them). */
    for (uint32_t e = 0; e < c->grid_count; ++e)
        fill_lower(c, c->sorted[e].agent);
    for (uint32_t k = 0; k < c->big_count; ++k)
        fill_lower(c, c->big_list[k]);
    for (uint32_t k = 0; k < c->big_count; ++k)
        sort_lower_by_index(c, c->big_list[k]);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; ++i)
        merge_list(c, (uint32_t)i);
    return SKIM_OK;
}
