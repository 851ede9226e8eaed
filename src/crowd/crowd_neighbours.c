/* The neighbours local avoidance looks at: the full neighbour lists (both
   directions of each pair the broadphase lists) and each agent's nearest
   ones within its sense distance. The lists come from crowd_grid.c, which
   holds every agent within the sense distance (crowd_contacts.c keeps them
   good for it). */
#include "crowd/crowd_internal.h"

#include <math.h>
#include <string.h>

/* Full lists from the half lists (a serial step after each build): agent
   i's partners of lower index, then of higher, each in index order. */
static bool join_full_lists(skim_crowd *c, uint32_t n, uint32_t chunks)
{
    (void)chunks;
    size_t *begin = c->full_begin;
    memset(begin, 0, ((size_t)n + 1) * sizeof *begin);
    for (uint32_t i = 0; i < n; ++i) {
        begin[i + 1] += c->half_begin[i + 1] - c->half_begin[i];
        for (size_t h = c->half_begin[i]; h < c->half_begin[i + 1]; ++h)
            begin[c->half_other[h] + 1]++;
    }
    crowd_counts_to_offsets(begin, n);
    if (!crowd_reserve((void **)&c->full_other, &c->full_capacity, begin[n] ? begin[n] : 1, sizeof *c->full_other))
        return false;
    size_t *fill = c->contact_fill; /* free until the contacts are found */
    memcpy(fill, begin, (size_t)n * sizeof *fill);
    for (uint32_t i = 0; i < n; ++i)
        for (size_t h = c->half_begin[i]; h < c->half_begin[i + 1]; ++h) {
            uint32_t j = c->half_other[h];
            c->full_other[fill[i]++] = j;
            c->full_other[fill[j]++] = i;
        }
    return true;
}

bool crowd_build_full_lists(skim_crowd *c, uint32_t n, team_cursor *cursor)
{
    team_phase *phase = team_phase_next(cursor); /* nothing parallel before the join: no chunks */
    return crowd_join_chunks(c, cursor, phase, n, 0, join_full_lists);
}

/* Agent i's nearest neighbours to avoid, nearest first (ties: lower
   index); returns how many. */
uint32_t crowd_nearest_neighbours(const skim_crowd *c, uint32_t i, uint32_t *near)
{
    const float *pi = c->proj + 3 * (size_t)i;
    const float hi = c->height[i];
    const float *proj = c->proj, *sense = c->sense, *height = c->height;
    const uint32_t *other = c->full_other;
    float dist[CROWD_AVOID_NEIGHBOURS];
    uint32_t found = 0;
    const float own = sense[i];
    for (size_t e = c->full_begin[i]; e < c->full_begin[i + 1]; ++e) {
        uint32_t j = other[e];
        const float *pj = proj + 3 * (size_t)j;
        float dx = pj[0] - pi[0], dy = pj[1] - pi[1], dz = pj[2] - pi[2];
        float reach = own + sense[j];
        float d = dx * dx + dy * dy;
        /* A ghost's sense is 0: never within reach of anyone's. */
        if (d > reach * reach || sense[j] == 0.0f || fabsf(dz) >= hi + height[j])
            continue;
        if (found == CROWD_AVOID_NEIGHBOURS && !(d < dist[found - 1]))
            continue;
        uint32_t at = found < CROWD_AVOID_NEIGHBOURS ? found++ : found - 1;
        /* Insert in order; the list arrives in index order, so an equal
           distance stays behind the lower index. */
        while (at > 0 && d < dist[at - 1]) {
            dist[at] = dist[at - 1];
            near[at] = near[at - 1];
            --at;
        }
        dist[at] = d;
        near[at] = j;
    }
    return found;
}
