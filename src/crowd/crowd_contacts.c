/* This step's agent contacts, from neighbour lists kept over several steps
   (Verlet lists, as molecular dynamics keeps them).

   A pair needs a contact this step when the two agents' reaches overlap:
   the reach is how far an agent can get this step (radius, planned move,
   push margin, world slack; crowd_step.c), so agents whose reaches do not
   overlap cannot touch by the end of the step. Finding those pairs with the
   grid every step costs more than everything else the crowd does per
   agent, so the grid (crowd_grid.c) lists, for each agent, the agents
   within its CONTACT BOUND: its reach when the list was made plus a skin.
   The lists stay good while every agent's reach plus the distance it has
   moved since stays within its contact bound: then any pair whose reaches
   overlap now had overlapping contact bounds then, so it is listed. Along
   up the lists hold pairs whose extents overlapped at the last build of
   the grid's order, which holds while every agent stays within its BOUND
   (its reach plus a wider skin). Each step checks both (as each agent is
   planned, crowd_step.c: logical ANDs over agents, the same for any
   thread count); when the bound fails, or agents came or went, the grid
   is built again and the agents renumbered in its order (crowd_grid.c);
   when only the contact bound fails, the lists alone are made again in
   the order the agents have.

   The contact records are then made from the listed pairs whose reaches
   overlap now (a third of the listed ones in a walking crowd): each chunk
   of CROWD_NEAR_CHUNK agents (claimed by whichever thread is free,
   team.h) goes through their half lists, and for every near pair
   works out the constraint once, from the lower index's side
   (crowd_contact_setup), into the chunk's own list of near pairs. Those
   lists, taken in chunk order, hold the near pairs in the order of their
   lower index; one pass (a serial step) counts each agent's pairs on
   both sides and gives each pair its place among its higher agent's
   lower partners, then the chunks (in parallel) hand every pair to its
   two agents, as it is and mirrored, each into a slot of its own. So each agent's
   contacts come in index order of the other agent (the lower partners,
   then the higher), whatever the thread count, side by side in memory,
   and nobody ever searches another agent's list. */
#include "crowd/crowd_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t crowd_check_lists(skim_crowd *c, uint32_t first, uint32_t last, bool valid, float *drift)
{
    bool order = true, contacts = true;
    float farthest = 0.0f;
    for (uint32_t i = first; i < last; ++i) {
        c->next_contact_bound[i] = c->reach[i] + CROWD_CONTACT_SKIN * c->radius[i];
        if (!valid)
            continue;
        const float *p = c->proj + 3 * (size_t)i, *b = c->built_proj + 3 * (size_t)i;
        const float *l = c->listed_proj + 3 * (size_t)i;
        float dx = p[0] - b[0], dy = p[1] - b[1], dz = fabsf(p[2] - b[2]);
        float across = sqrtf(dx * dx + dy * dy);
        order &= !(c->reach[i] + across > c->bound[i] || c->vreach[i] + dz > c->vbound[i]);
        farthest = across > farthest ? across : farthest;
        float lx = p[0] - l[0], ly = p[1] - l[1];
        contacts &= !(c->reach[i] + sqrtf(lx * lx + ly * ly) > c->contact_bound[i]);
    }
    *drift = farthest;
    return (order ? 0u : (uint32_t)CROWD_ORDER_BAD) | (contacts ? 0u : (uint32_t)CROWD_CONTACTS_BAD);
}

static inline bool reaches_overlap(const float *proj, const float *reach, const float *vreach, uint32_t i,
                                   uint32_t j)
{
    const float *a = proj + 3 * (size_t)i, *b = proj + 3 * (size_t)j;
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    float r = reach[i] + reach[j];
    return (dx * dx + dy * dy <= r * r) & (fabsf(dz) <= vreach[i] + vreach[j]);
}

/* The two contacts of a pair, bitwise what crowd_contact_setup would give
   from each side (it works in the pair's canonical order and negates for
   the higher): the lower agent's as it is, the higher's mirrored. n is
   never NaN, so its negation is exactly -1 times it. */
static inline void lower_contact(const crowd_near_pair *near, crowd_contact *out)
{
    const crowd_pair *pair = &near->pair;
    out->other = near->b;
    for (int k = 0; k < 3; ++k)
        out->n[k] = pair->n[k];
    out->target = pair->target;
    out->allowed = pair->allowed;
    out->share = pair->share_lower;
}

static inline void higher_contact(const crowd_near_pair *near, crowd_contact *out)
{
    const crowd_pair *pair = &near->pair;
    out->other = near->a;
    for (int k = 0; k < 3; ++k)
        out->n[k] = -pair->n[k];
    out->target = pair->target;
    out->allowed = pair->allowed;
    out->share = pair->share_higher;
}

bool crowd_reserve_near_buffers(skim_crowd *c, uint32_t n)
{
    /* One buffer per chunk, not per thread: a chunk's pairs then have a
       place in the concatenated order whichever thread finds them. */
    return crowd_reserve_chunk_buffers((void **)&c->near_buffers, &c->near_buffer_count,
                                       team_chunks(n, CROWD_NEAR_CHUNK), sizeof *c->near_buffers);
}

/* The near pairs of agents [first, last) into buffer, in order; false if
   out of memory. The pointers are read once: the loop stores to memory the
   compiler cannot tell apart from the crowd's fields. */
static bool find_near_pairs(const skim_crowd *c, uint32_t first, uint32_t last, crowd_near_buffer *buffer)
{
    const float *proj = c->proj, *reach = c->reach, *vreach = c->vreach;
    const size_t *half_begin = c->half_begin;
    const uint32_t *half_other = c->half_other;
    /* Room for every listed pair of the chunk, so the near ones go
       straight in without a branch (a third of the entries are near, at
       random): each listed pair is written and kept only if near. */
    const size_t listed = half_begin[last] - half_begin[first];
    if (!crowd_reserve((void **)&buffer->items, &buffer->capacity, listed ? listed : 1, sizeof *buffer->items))
        return false;
    crowd_near_pair *items = buffer->items;
    size_t count = 0;
    for (uint32_t i = first; i < last; ++i)
        for (size_t e = half_begin[i]; e < half_begin[i + 1]; ++e) {
            const uint32_t j = half_other[e];
            items[count].a = i;
            items[count].b = j;
            count += reaches_overlap(proj, reach, vreach, i, j);
        }
    buffer->count = count;
    crowd_contact_setup_near(c, items, count);
    return true;
}

/* The counts for the contacts (a serial step): each agent's contacts
   begin at contact_begin, the contacts with its lower partners first, of
   which it has contact_fill; each pair learns its place among its higher
   agent's lower partners (in pair order, which is the order of the lower
   index), so the chunks can then lay the pairs out in parallel, each
   contact in its own slot. */
static bool count_contacts(skim_crowd *c, uint32_t n, uint32_t chunks)
{
    size_t *begin = c->contact_begin, *lower = c->contact_fill;
    memset(begin, 0, ((size_t)n + 1) * sizeof *begin);
    memset(lower, 0, (size_t)n * sizeof *lower);
    uint8_t *pushed = c->pushed;
    uint32_t pairs = 0, violated = 0;
    for (uint32_t t = 0; t < chunks; ++t) {
        crowd_near_pair *near = c->near_buffers[t].items, *end = near + c->near_buffers[t].count;
        for (; near < end; ++near) {
            begin[near->a + 1]++;
            near->lower_rank = (uint32_t)lower[near->b]++;
            violated += near->violated;
            /* plan() cleared pushed, which the first sweep then pushes
               exactly. */
            pushed[near->a] |= (uint8_t)near->violated;
            pushed[near->b] |= (uint8_t)near->violated;
        }
        pairs += (uint32_t)c->near_buffers[t].count;
    }
    c->pair_count = pairs;
    c->stats.contacts = violated;
    for (uint32_t i = 0; i < n; ++i)
        begin[i + 1] += lower[i];
    crowd_counts_to_offsets(begin, n);
    return crowd_reserve((void **)&c->contacts, &c->contact_capacity, begin[n] ? begin[n] : 1, sizeof *c->contacts);
}

/* Chunk k's pairs to their two agents: the lower agent's contact after its
   lower partners, in its own pairs' order, the higher agent's at the
   pair's place among its lower partners. */
static void lay_out_contacts(skim_crowd *c, uint32_t k)
{
    const size_t *begin = c->contact_begin, *lower = c->contact_fill;
    crowd_contact *contacts = c->contacts;
    const crowd_near_pair *near = c->near_buffers[k].items, *end = near + c->near_buffers[k].count;
    uint32_t current = UINT32_MAX;
    size_t at = 0;
    for (; near < end; ++near) {
        if (near->a != current) {
            current = near->a;
            at = begin[current] + lower[current];
        }
        lower_contact(near, &contacts[at++]);
        higher_contact(near, &contacts[begin[near->b] + near->lower_rank]);
    }
}

bool crowd_find_contacts(skim_crowd *c, uint32_t n, team_cursor *cursor)
{
    const uint32_t chunks = team_chunks(n, CROWD_NEAR_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, CROWD_NEAR_CHUNK, n, &first, &last);
        /* Filled through a copy on this thread's stack and stored back
           once: the chunks' buffers sit side by side in one array, and a
           count stored per pair put two threads working on neighbouring
           chunks on one cache line (perf, 10,000 agents on the default
           scene: find_near_pairs' samples went from 120 on one thread to
           376 on two). */
        crowd_near_buffer buffer = c->near_buffers[k];
        buffer.count = 0;
        if (!find_near_pairs(c, first, last, &buffer))
            crowd_note_out_of_memory(&c->shared);
        c->near_buffers[k] = buffer;
    }
    if (!crowd_join_chunks(c, cursor, phase, n, chunks, count_contacts))
        return false;
    /* The contacts written by chunks (in a large crowd they are mostly
       misses to memory, which two threads wait on at once). */
    phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase))
        lay_out_contacts(c, k);
    team_wait(phase, chunks);
    return true;
}
