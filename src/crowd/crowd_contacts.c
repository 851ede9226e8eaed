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

/* The symmetric pair test on proj, reach and vreach (passed in: the
   caller's loop stores bytes, which may alias any field of the crowd, so
   the compiler would load these pointers again for every pair). */
static inline bool reaches_overlap(const float *proj, const float *reach, const float *vreach, uint32_t i,
                                   uint32_t j)
{
    const float *a = proj + 3 * (size_t)i, *b = proj + 3 * (size_t)j;
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    float r = reach[i] + reach[j];
    if (dx * dx + dy * dy > r * r)
        return false;
    return fabsf(dz) <= vreach[i] + vreach[j];
}

/* A pair slot's state this step (pair_near). */
enum { PAIR_FAR, PAIR_NEAR, PAIR_VIOLATED };

/* Agent i's contact with the pair in slot pair, the other agent being
   other: the pair's constraint as it is when i is the lower index, else
   its mirror, bitwise what crowd_contact_setup would give from i's side
   (it works in the pair's canonical order and negates for the higher). */
static inline void contact_from_pair(const crowd_pair *pair, uint32_t i, uint32_t other, crowd_contact *out)
{
    const bool lower = i < other;
    const float sign = lower ? 1.0f : -1.0f; /* a product, not a branch: exact */
    for (int k = 0; k < 3; ++k)
        out->n[k] = sign * pair->n[k];
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
    /* Each pair once, in its slot, and whether the plan already violates
       it: exactly the test of the solver's first sweep (crowd_solver.c),
       which gives the same answer from both sides (the offset and the axis
       are both negated, exactly), so that sweep need only visit the agents
       with a violated contact. */
    uint32_t pairs = 0, violated_pairs = 0;
    const float *proj = c->proj, *reach = c->reach, *vreach = c->vreach, *q = c->q;
    const size_t *half_begin = c->half_begin;
    const uint32_t *half_other = c->half_other;
    uint8_t *pair_near = c->pair_near;
    crowd_pair *pair = c->pairs;
#pragma omp parallel for schedule(static) reduction(+ : pairs, violated_pairs)
    for (long i = 0; i < (long)n; ++i)
        for (size_t h = half_begin[i]; h < half_begin[i + 1]; ++h) {
            uint32_t j = half_other[h];
            bool near = reaches_overlap(proj, reach, vreach, (uint32_t)i, j);
            pair_near[h] = PAIR_FAR;
            if (near) {
                crowd_pair *p = &pair[h];
                crowd_contact_setup(c, (uint32_t)i, j, p);
                const float *qi = q + 3 * i, *qj = q + 3 * (size_t)j;
                float gap = (qi[0] - qj[0]) * p->n[0] + (qi[1] - qj[1]) * p->n[1] + (qi[2] - qj[2]) * p->n[2];
                bool violated = p->target - gap > 0.0f;
                pair_near[h] = violated ? PAIR_VIOLATED : PAIR_NEAR;
                pairs++;
                violated_pairs += violated;
            }
        }
    c->pair_count = pairs;
    c->stats.contacts = violated_pairs;
    /* Each agent's contacts, in the order of its full list. */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; ++i) {
        size_t at = c->list_begin[i];
        uint8_t violated = 0;
        for (size_t e = c->list_begin[i]; e < c->list_begin[i + 1]; ++e) {
            crowd_list_entry entry = c->list[e];
            uint8_t state = pair_near[entry.pair];
            if (state == PAIR_FAR)
                continue;
            contact_from_pair(&pair[entry.pair], (uint32_t)i, entry.other, &c->contacts[at++]);
            violated |= state == PAIR_VIOLATED;
        }
        c->contact_end[i] = at;
        c->pushed[i] = violated; /* the first sweep pushes exactly these */
    }
    return SKIM_OK;
}
