/* This step's agent contacts, from neighbour lists kept over several steps
   (Verlet lists, as molecular dynamics keeps them).

   A pair needs a contact this step when the two agents' reaches overlap:
   the reach is how far an agent can get this step (radius, planned move,
   push margin, world slack; crowd_step.c), so agents whose reaches do not
   overlap cannot touch by the end of the step. Finding those pairs with the
   grid every step costs more than everything else the crowd does per
   agent, so the grid (crowd_grid.c) lists, for each agent, the agents
   within its BOUND: its reach at the build plus a skin. The lists stay good
   while every agent's reach plus the distance it has moved since the build
   stays within its bound: then any pair whose reaches overlap now had
   overlapping bounds at the build, so it is listed. Each step checks that
   (one pass, a logical AND over agents: the same for any thread count) and
   rebuilds when it fails, when agents came or went, or when the agents were
   put in a new order.

   The contact records are then made from the listed pairs whose reaches
   overlap now: the constraint is worked out once per pair, from the lower
   index's side (crowd_contact_setup), in the pair's slot (its entry in
   the half lists), and each agent copies it into its own contact list, as
   it is or mirrored, from its full list (crowd_lists.c), which names the
   slot: no agent searches another's list, and every agent writes only its
   own entries, so nothing is gathered from per-thread buffers. */
#include "crowd_internal.h"

#include <math.h>

/* The skin added to an agent's reach for its bound, as a fraction of its
   radius: larger keeps the lists good for longer but makes them longer. */
#define LIST_SKIN 1.0f

bool crowd_lists_still_good(const skim_crowd *c, uint32_t n)
{
    if (!c->lists_valid)
        return false;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (long i = 0; i < (long)n; ++i) {
        const float *p = c->proj + 3 * i, *b = c->built_proj + 3 * i;
        float dx = p[0] - b[0], dy = p[1] - b[1], dz = fabsf(p[2] - b[2]);
        float across = sqrtf(dx * dx + dy * dy);
        if (c->reach[i] + across > c->bound[i] || c->vreach[i] + dz > c->vbound[i])
            bad = 1;
    }
    return !bad;
}

static skim_status rebuild_lists(skim_crowd *c, uint32_t n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; ++i) {
        float skin = LIST_SKIN * c->radius[c->active[i]];
        c->bound[i] = c->reach[i] + skin;
        c->vbound[i] = c->vreach[i] + skin;
        for (int k = 0; k < 3; ++k)
            c->built_proj[3 * i + k] = c->proj[3 * i + k];
    }
    c->list_builds++;
    c->lists_valid = false;
    skim_status status = crowd_build_neighbours(c, n);
    if (status == SKIM_OK)
        status = crowd_complete_lists(c, n);
    if (status != SKIM_OK)
        return status;
    size_t pairs = c->half_begin[n], sides = c->list_begin[n];
    if (!crowd_reserve((void **)&c->pairs, &c->pair_capacity, pairs ? pairs : 1, sizeof *c->pairs) ||
        !crowd_reserve((void **)&c->pair_near, &c->pair_near_capacity, pairs ? pairs : 1, sizeof *c->pair_near) ||
        !crowd_reserve((void **)&c->contacts, &c->contact_capacity, sides ? sides : 1, sizeof *c->contacts))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for contacts");
    c->lists_valid = true;
    return SKIM_OK;
}

static inline bool reaches_overlap(const skim_crowd *c, uint32_t i, uint32_t j)
{
    const float *a = c->proj + 3 * (size_t)i, *b = c->proj + 3 * (size_t)j;
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    float r = c->reach[i] + c->reach[j];
    if (dx * dx + dy * dy > r * r)
        return false;
    return fabsf(dz) <= c->vreach[i] + c->vreach[j];
}

/* Agent i's contact with the pair in slot pair, the other agent being
   other: the pair's constraint as it is when i is the lower index, else
   its mirror, bitwise what crowd_contact_setup would give from i's side
   (it works in the pair's canonical order and negates for the higher). */
static void contact_from_pair(const crowd_pair *pair, uint32_t i, uint32_t other, crowd_contact *out)
{
    const bool lower = i < other;
    for (int k = 0; k < 3; ++k)
        out->n[k] = lower ? pair->n[k] : -pair->n[k];
    out->other = other;
    out->target = pair->target;
    out->allowed = pair->allowed;
    out->share = lower ? pair->share_lower : pair->share_higher;
}

skim_status crowd_find_contacts(skim_crowd *c, uint32_t n, bool lists_good)
{
    if (!c->lists_valid || !lists_good) {
        skim_status status = rebuild_lists(c, n);
        if (status != SKIM_OK)
            return status;
    }
    /* Each pair once, in its slot. */
    uint32_t pairs = 0;
#pragma omp parallel for schedule(static) reduction(+ : pairs)
    for (long i = 0; i < (long)n; ++i)
        for (size_t h = c->half_begin[i]; h < c->half_begin[i + 1]; ++h) {
            uint32_t j = c->half_other[h];
            bool near = reaches_overlap(c, (uint32_t)i, j);
            c->pair_near[h] = near;
            if (near) {
                crowd_contact_setup(c, (uint32_t)i, j, &c->pairs[h]);
                pairs++;
            }
        }
    c->pair_count = pairs;
    /* Each agent's contacts, in the order of its full list. */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; ++i) {
        size_t at = c->list_begin[i];
        for (size_t e = c->list_begin[i]; e < c->list_begin[i + 1]; ++e) {
            crowd_list_entry entry = c->list[e];
            if (c->pair_near[entry.pair])
                contact_from_pair(&c->pairs[entry.pair], (uint32_t)i, entry.other, &c->contacts[at++]);
        }
        c->contact_end[i] = at;
    }
    return SKIM_OK;
}
