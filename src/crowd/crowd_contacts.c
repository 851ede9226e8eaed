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
   overlap now: the constraint is worked out once per pair on the lower
   index's side (crowd_contact_setup) and mirrored to the other. */
#include "crowd_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The skin added to an agent's reach for its bound, as a fraction of its
   radius: larger keeps the lists good for longer but makes them longer. */
#define LIST_SKIN 1.0f

static bool is_ghost(const skim_crowd *c, uint32_t i)
{
    return (c->flags[c->active[i]] & SKIM_AGENT_GHOST) != 0;
}

static bool lists_still_good(const skim_crowd *c, uint32_t n)
{
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
    skim_status status = crowd_build_neighbours(c, n);
    c->lists_valid = status == SKIM_OK;
    c->list_builds++;
    return status;
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

static bool reserve_buffers(skim_crowd *c, int threads)
{
    if (c->thread_buffer_count >= threads)
        return true;
    crowd_contact_buffer *grown = realloc(c->thread_buffers, (size_t)threads * sizeof *grown);
    if (!grown)
        return false;
    for (int t = c->thread_buffer_count; t < threads; ++t)
        grown[t] = (crowd_contact_buffer){ 0 };
    c->thread_buffers = grown;
    c->thread_buffer_count = threads;
    return true;
}

/* Copies into ct (self i, other j) the mirror of j's record for i: the
   same constraint seen from the other side, bitwise what
   crowd_contact_setup would give (it works in the pair's canonical order and
   negates for the higher index). */
static void mirror(const skim_crowd *c, uint32_t i, crowd_contact *ct)
{
    uint32_t j = ct->other;
    for (size_t f = c->contact_begin[j]; f < c->contact_begin[j + 1]; ++f) {
        const crowd_contact *from = &c->contacts[f];
        if (from->other != i)
            continue;
        for (int k = 0; k < 3; ++k)
            ct->n[k] = -from->n[k];
        ct->target = from->target;
        ct->allowed = from->allowed;
        ct->share = from->share_other;
        ct->share_other = from->share;
        ct->vertical = from->vertical;
        ct->pending = 0;
        return;
    }
    /* The reach test is symmetric, so j always lists i; but never garbage. */
    crowd_contact_setup(c, i, j, ct);
}

skim_status crowd_find_contacts(skim_crowd *c, uint32_t n)
{
    if (!c->lists_valid || !lists_still_good(c, n)) {
        skim_status status = rebuild_lists(c, n);
        if (status != SKIM_OK)
            return status;
    }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    if (!reserve_buffers(c, threads))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory");
    for (int t = 0; t < c->thread_buffer_count; ++t)
        c->thread_buffers[t].count = 0;
    int failed = 0;
    /* Each thread takes a contiguous range of agents and makes their
       records in its own buffer; the ranges are then laid end to end in
       agent order, so the layout is the same for any thread count. */
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        int t = 0, used = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        used = omp_get_num_threads();
#endif
        crowd_contact_buffer *buffer = &c->thread_buffers[t];
        uint32_t first = (uint32_t)((uint64_t)n * (uint64_t)t / (uint64_t)used);
        uint32_t last = (uint32_t)((uint64_t)n * (uint64_t)(t + 1) / (uint64_t)used);
        for (uint32_t i = first; i < last && !failed; ++i) {
            size_t before = buffer->count;
            if (!is_ghost(c, i))
                for (size_t e = c->nb_begin[i]; e < c->nb_begin[i + 1]; ++e) {
                    uint32_t j = c->nb_other[e];
                    if (!reaches_overlap(c, i, j))
                        continue;
                    if (buffer->count == buffer->capacity &&
                        !crowd_reserve((void **)&buffer->items, &buffer->capacity, buffer->count + 1,
                                       sizeof *buffer->items)) {
                        failed = 1;
                        break;
                    }
                    crowd_contact *out = &buffer->items[buffer->count++];
                    if (i < j) {
                        crowd_contact_setup(c, i, j, out);
                    } else {
                        out->other = j;
                        out->pending = 1;
                    }
                }
            c->contact_begin[i + 1] = buffer->count - before; /* a count until the prefix below */
        }
    }
    if (failed)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for contacts");
    crowd_counts_to_offsets(c->contact_begin, n);
    size_t total = c->contact_begin[n];
    if (!crowd_reserve((void **)&c->contacts, &c->contact_capacity, total ? total : 1, sizeof *c->contacts))
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_crowd_step: out of memory for contacts");
    size_t at = 0;
    for (int t = 0; t < c->thread_buffer_count; ++t) {
        crowd_contact_buffer *buffer = &c->thread_buffers[t];
        if (buffer->count)
            memcpy(c->contacts + at, buffer->items, buffer->count * sizeof *buffer->items);
        at += buffer->count;
    }
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n; ++i)
        for (size_t e = c->contact_begin[i]; e < c->contact_begin[i + 1]; ++e)
            if (c->contacts[e].pending)
                mirror(c, (uint32_t)i, &c->contacts[e]);
    return SKIM_OK;
}
