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
#include "crowd/crowd_lanes.h"

#include <assert.h>
#include <math.h>
#include <simde/x86/sse2.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Agents i .. i + 4 of crowd_check_lists at once, each lane doing its
   float operations in their order (sqrtf is the correctly rounded square
   root, as sqrtps): the next contact bounds stored, and into *order_bad,
   *contacts_bad and *farthest (lane by lane) whether an agent outgrew a
   bound and how far it got across up from its start at the build. */
static inline void check_four(skim_crowd *c, uint32_t i, simde__m128 *order_bad, simde__m128 *contacts_bad,
                              simde__m128 *farthest)
{
    const simde__m128 reach = simde_mm_loadu_ps(c->reach + i);
    simde_mm_storeu_ps(c->next_contact_bound + i,
                       simde_mm_add_ps(reach, simde_mm_mul_ps(simde_mm_set1_ps(CROWD_CONTACT_SKIN),
                                                              simde_mm_loadu_ps(c->radius + i))));
    simde__m128 px, py, bx, by, lx, ly;
    crowd_columns_xy(c->proj + 3 * (size_t)i, &px, &py);
    crowd_columns_xy(c->built_proj + 3 * (size_t)i, &bx, &by);
    crowd_columns_xy(c->listed_proj + 3 * (size_t)i, &lx, &ly);
    const simde__m128 dx = simde_mm_sub_ps(px, bx), dy = simde_mm_sub_ps(py, by);
    const simde__m128 dz = simde_mm_andnot_ps(
        simde_mm_set1_ps(-0.0f),
        simde_mm_sub_ps(crowd_column_z(c->proj + 3 * (size_t)i), crowd_column_z(c->built_proj + 3 * (size_t)i)));
    const simde__m128 across = simde_mm_sqrt_ps(simde_mm_add_ps(simde_mm_mul_ps(dx, dx), simde_mm_mul_ps(dy, dy)));
    *order_bad = simde_mm_or_ps(
        *order_bad,
        simde_mm_or_ps(simde_mm_cmpgt_ps(simde_mm_add_ps(reach, across), simde_mm_loadu_ps(c->bound + i)),
                       simde_mm_cmpgt_ps(simde_mm_add_ps(simde_mm_loadu_ps(c->vreach + i), dz),
                                         simde_mm_loadu_ps(c->vbound + i))));
    const simde__m128 further = simde_mm_cmpgt_ps(across, *farthest);
    *farthest = simde_mm_or_ps(simde_mm_and_ps(further, across), simde_mm_andnot_ps(further, *farthest));
    const simde__m128 ex = simde_mm_sub_ps(px, lx), ey = simde_mm_sub_ps(py, ly);
    const simde__m128 since = simde_mm_sqrt_ps(simde_mm_add_ps(simde_mm_mul_ps(ex, ex), simde_mm_mul_ps(ey, ey)));
    *contacts_bad = simde_mm_or_ps(*contacts_bad, simde_mm_cmpgt_ps(simde_mm_add_ps(reach, since),
                                                                    simde_mm_loadu_ps(c->contact_bound + i)));
}

uint32_t crowd_check_lists(skim_crowd *c, uint32_t first, uint32_t last, bool valid, float *drift)
{
    bool order = true, contacts = true;
    float farthest = 0.0f;
    uint32_t i = first;
    if (valid) {
        /* Four agents at a time while four are left (each reads twelve
           floats of its three-float arrays from its own start), then one
           at a time; the farthest of the lanes is taken as the loop below
           takes it, which for numbers is the largest whatever the order. */
        simde__m128 order_bad = simde_mm_setzero_ps(), contacts_bad = order_bad, far = order_bad;
        for (; last - i >= 4; i += 4)
            check_four(c, i, &order_bad, &contacts_bad, &far);
        order = !simde_mm_movemask_ps(order_bad);
        contacts = !simde_mm_movemask_ps(contacts_bad);
        float lanes[4];
        simde_mm_storeu_ps(lanes, far);
        for (int k = 0; k < 4; ++k)
            farthest = lanes[k] > farthest ? lanes[k] : farthest;
    }
    for (; i < last; ++i) {
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

/* Whether the reaches of agents i and j overlap this step: across up and
   along it, from their projected starts. */
static inline bool reaches_overlap(const float *proj, const float *reach, const float *vreach, uint32_t i,
                                   uint32_t j)
{
    const float *a = proj + 3 * (size_t)i, *b = proj + 3 * (size_t)j;
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    float r = reach[i] + reach[j];
    return (dx * dx + dy * dy <= r * r) & (fabsf(dz) <= vreach[i] + vreach[j]);
}

/* Agent i's projected start and reaches, in every lane. */
typedef struct agent_reach {
    simde__m128 x, y, z, reach, vreach;
} agent_reach;

/* Agent j's projected start across up, x and y in the low half. */
static inline simde__m128 xy_of(const float *proj, uint32_t j)
{
    return simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)(proj + 3 * (size_t)j)));
}

/* reaches_overlap of agent i with agents j[0 .. 4), bit k for j[k]: the
   same float operations in the same order, a lane each. */
static inline int four_reaches_overlap(const float *proj, const float *reach, const float *vreach,
                                       const agent_reach *self, const uint32_t *j)
{
    const simde__m128 xy01 = simde_mm_unpacklo_ps(xy_of(proj, j[0]), xy_of(proj, j[1]));
    const simde__m128 xy23 = simde_mm_unpacklo_ps(xy_of(proj, j[2]), xy_of(proj, j[3]));
    const simde__m128 dx = simde_mm_sub_ps(self->x, simde_mm_movelh_ps(xy01, xy23));
    const simde__m128 dy = simde_mm_sub_ps(self->y, simde_mm_movehl_ps(xy23, xy01));
    const simde__m128 dz = simde_mm_sub_ps(self->z, crowd_four_of(proj + 2, 3, j));
    const simde__m128 r = simde_mm_add_ps(self->reach, crowd_four_of(reach, 1, j));
    const simde__m128 across = simde_mm_cmple_ps(simde_mm_add_ps(simde_mm_mul_ps(dx, dx), simde_mm_mul_ps(dy, dy)),
                                                 simde_mm_mul_ps(r, r));
    const simde__m128 along = simde_mm_cmple_ps(simde_mm_andnot_ps(simde_mm_set1_ps(-0.0f), dz),
                                                simde_mm_add_ps(self->vreach, crowd_four_of(vreach, 1, j)));
    return simde_mm_movemask_ps(simde_mm_and_ps(across, along));
}

/* Where lane k of four goes, given which lanes are near (bit k for lane
   k): as many entries past the first free one as lanes below k are near,
   in bytes; and how many are near. */
#define PAIR_BYTES sizeof(crowd_near_pair)
#define NEAR_BELOW(m, k) (((k) > 0 && ((m) & 1)) + ((k) > 1 && ((m) & 2)) + ((k) > 2 && ((m) & 4)))
#define NEAR_PLACES(m)                                                                                         \
    { 0, (uint8_t)(NEAR_BELOW(m, 1) * PAIR_BYTES), (uint8_t)(NEAR_BELOW(m, 2) * PAIR_BYTES),                  \
      (uint8_t)(NEAR_BELOW(m, 3) * PAIR_BYTES) }
static const uint8_t near_place[16][4] = { NEAR_PLACES(0),  NEAR_PLACES(1),  NEAR_PLACES(2),  NEAR_PLACES(3),
                                           NEAR_PLACES(4),  NEAR_PLACES(5),  NEAR_PLACES(6),  NEAR_PLACES(7),
                                           NEAR_PLACES(8),  NEAR_PLACES(9),  NEAR_PLACES(10), NEAR_PLACES(11),
                                           NEAR_PLACES(12), NEAR_PLACES(13), NEAR_PLACES(14), NEAR_PLACES(15) };
static const uint8_t near_count[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
static_assert(3 * PAIR_BYTES < 256, "a lane's place fits a byte");
static_assert(offsetof(crowd_near_pair, a) == 0 && offsetof(crowd_near_pair, b) == sizeof(uint32_t),
              "a near pair begins with its indices, the lower first");

/* The pairs (i, j[k]) of the lanes set in near after the count pairs
   kept so far; returns how many. Every lane's pair is written, at its
   place among the near ones (which a later near lane takes over when it
   is not near): so no lane waits on another's test. */
static inline size_t keep_near(crowd_near_pair *items, size_t count, simde__m128i lower, const uint32_t *j, int near)
{
    const simde__m128i partners = simde_mm_loadu_si128((const simde__m128i *)j);
    const simde__m128i pairs01 = simde_mm_unpacklo_epi32(lower, partners);
    const simde__m128i pairs23 = simde_mm_unpackhi_epi32(lower, partners);
    char *out = (char *)(items + count);
    const uint8_t *place = near_place[near];
    simde_mm_storel_epi64((simde__m128i *)out, pairs01);
    simde_mm_storel_epi64((simde__m128i *)(out + place[1]), simde_mm_unpackhi_epi64(pairs01, pairs01));
    simde_mm_storel_epi64((simde__m128i *)(out + place[2]), pairs23);
    simde_mm_storel_epi64((simde__m128i *)(out + place[3]), simde_mm_unpackhi_epi64(pairs23, pairs23));
    return near_count[near];
}

/* The two contacts of a pair, bitwise what crowd_contact_setup would give
   from each side (it works in the pair's canonical order and negates for
   the higher): the lower agent's as it is, the higher's mirrored. n is
   never NaN, so its negation, a flip of its sign bits, is exactly -1
   times it. A near pair holds (a, b, n, target, allowed, share_lower,
   share_higher) in a row, so the lower agent's contact (b, n, target,
   allowed, share_lower) is a copy of its middle, and the higher's (a, -n,
   target, allowed, share_higher) nearly one: a few vector moves where a
   field at a time took fourteen loads and stores a contact (callgrind). */
static_assert(offsetof(crowd_near_pair, pair) == offsetof(crowd_near_pair, b) + sizeof(uint32_t) &&
                  offsetof(crowd_pair, share_lower) == offsetof(crowd_pair, allowed) + sizeof(float) &&
                  offsetof(crowd_pair, share_higher) == offsetof(crowd_pair, share_lower) + sizeof(float),
              "a near pair holds a, b, n, target, allowed and the shares in a row");
static_assert(offsetof(crowd_contact, n) == sizeof(uint32_t) &&
                  offsetof(crowd_contact, target) == offsetof(crowd_contact, n) + 3 * sizeof(float) &&
                  offsetof(crowd_contact, allowed) == offsetof(crowd_contact, target) + sizeof(float) &&
                  offsetof(crowd_contact, share) == offsetof(crowd_contact, allowed) + sizeof(float),
              "a contact holds other, n, target, allowed and share in a row");

static inline void lower_contact(const crowd_near_pair *near, crowd_contact *out)
{
    const char *from = (const char *)near + offsetof(crowd_near_pair, b);
    char *to = (char *)out;
    simde_mm_storeu_si128((simde__m128i *)to, simde_mm_loadu_si128((const simde__m128i *)from));
    simde_mm_storel_epi64((simde__m128i *)(to + 16), simde_mm_loadl_epi64((const simde__m128i *)(from + 16)));
    out->share = near->pair.share_lower;
}

static inline void higher_contact(const crowd_near_pair *near, crowd_contact *out)
{
    const char *from = (const char *)near + offsetof(crowd_near_pair, b);
    char *to = (char *)out;
    const simde__m128 b_n = simde_mm_loadu_ps((const float *)(const void *)from);
    const simde__m128 b_minus_n = simde_mm_xor_ps(b_n, simde_mm_setr_ps(0.0f, -0.0f, -0.0f, -0.0f));
    const simde__m128 a = simde_mm_castsi128_ps(simde_mm_cvtsi32_si128((int)near->a));
    simde_mm_storeu_ps((float *)(void *)to, simde_mm_move_ss(b_minus_n, a));
    simde_mm_storel_epi64((simde__m128i *)(to + 16), simde_mm_loadl_epi64((const simde__m128i *)(from + 16)));
    out->share = near->pair.share_higher;
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
       random): each listed pair is written and kept only if near (never
       past its own entry). Four of an agent's partners at a time while
       four are left, a lane each, then one at a time. */
    const size_t listed = half_begin[last] - half_begin[first];
    if (!crowd_reserve((void **)&buffer->items, &buffer->capacity, listed ? listed : 1, sizeof *buffer->items))
        return false;
    crowd_near_pair *items = buffer->items;
    size_t count = 0;
    for (uint32_t i = first; i < last; ++i) {
        const size_t end = half_begin[i + 1];
        size_t e = half_begin[i];
        if (end - e >= 4) {
            const float *p = proj + 3 * (size_t)i;
            const agent_reach self = { simde_mm_set1_ps(p[0]), simde_mm_set1_ps(p[1]), simde_mm_set1_ps(p[2]),
                                       simde_mm_set1_ps(reach[i]), simde_mm_set1_ps(vreach[i]) };
            const simde__m128i lower = simde_mm_set1_epi32((int)i);
            for (; e + 4 <= end; e += 4) {
                const uint32_t *j = half_other + e;
                count += keep_near(items, count, lower, j, four_reaches_overlap(proj, reach, vreach, &self, j));
            }
        }
        for (; e < end; ++e) {
            const uint32_t j = half_other[e];
            items[count].a = i;
            items[count].b = j;
            count += reaches_overlap(proj, reach, vreach, i, j);
        }
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
