/* Slots: where an agent's records live, apart from the id its user holds.
   Each pass of a step goes through the agents in the grid's order (active
   indices, crowd_grid.c) and reads their records; with records in id
   order those reads land at random, a miss to memory each at 100,000
   agents. So now and then every slot-indexed record is moved into the
   active order: slot k holds the agent at active index k. Ids, the public
   arrays and the step's results do not change; only where the records
   sit does. */
#include "crowd/crowd_slots.h"
#include "crowd/crowd_internal.h"

#include <stdlib.h>
#include <string.h>

void crowd_slots_init(skim_crowd *c)
{
    for (uint32_t k = 0; k < c->capacity; ++k) {
        c->slot_of[k] = k;
        c->id_of[k] = k;
    }
    c->slot_period = CROWD_SLOT_PERIOD;
    c->steps_since_slots = UINT32_MAX; /* the first order the grid makes is taken at once */
}

skim_status crowd_agent_slot(const skim_crowd *c, uint32_t id, const char *what, uint32_t *slot)
{
    if (!c)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: crowd is NULL", what);
    if (id >= c->capacity || !(c->public_state[id] & SKIM_AGENT_ACTIVE))
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "%s: no agent with id %u", what, id);
    *slot = c->slot_of[id];
    return SKIM_OK;
}

void crowd_set_slot_period(skim_crowd *c, uint32_t steps)
{
    c->slot_period = steps;
}

void crowd_slots_release(skim_crowd *c)
{
    free(c->slot_from);
    free(c->slot_scratch);
    c->slot_from = NULL;
    c->slot_scratch = NULL;
}

/* The new slots: from[k] is the old slot new slot k takes, for k < m
   (slots m and up stay), and to[old] its new slot. The n active agents
   take slots 0..n-1 in active order; the free slots below m follow in
   their own order, so a free id keeps its (free) records too. Returns m. */
static uint32_t plan_moves(skim_crowd *c, uint32_t n, uint32_t *from, uint32_t *to)
{
    uint32_t m = n;
    for (uint32_t k = 0; k < n; ++k)
        if (c->active[k] >= m)
            m = c->active[k] + 1;
    memset(to, 0xff, (size_t)m * sizeof *to);
    for (uint32_t k = 0; k < n; ++k) {
        from[k] = c->active[k];
        to[c->active[k]] = k;
    }
    uint32_t next = n;
    for (uint32_t old = 0; old < m; ++old)
        if (to[old] == UINT32_MAX) {
            from[next] = old;
            to[old] = next++;
        }
    return m;
}

/* Records [0, m) of array in the new order, through the scratch. */
#define MOVE_RECORDS(type, array)                                                                            \
    do {                                                                                                     \
        type *moved_ = scratch;                                                                              \
        for (uint32_t k_ = 0; k_ < m; ++k_)                                                                  \
            moved_[k_] = (array)[from[k_]];                                                                  \
        memcpy((array), moved_, (size_t)m * sizeof *(array));                                               \
    } while (0)

/* The bodies' per-slot scratch (crowd_bodies*.c) when it was made: some
   of it holds between steps (what changed is all a step writes). */
static void move_bodies_scratch(skim_crowd *c, uint32_t m, const uint32_t *from, void *scratch)
{
    crowd_clear *s = &c->clear;
    if (s->slot && s->slot_capacity >= m)
        MOVE_RECORDS(uint32_t, s->slot);
    if (s->bent && s->bent_capacity >= m)
        MOVE_RECORDS(uint8_t, s->bent);
    if (s->away && s->away_capacity >= m)
        MOVE_RECORDS(uint8_t, s->away);
    if (s->depth && s->depth_capacity >= m)
        MOVE_RECORDS(uint8_t, s->depth);
    MOVE_RECORDS(skim_vec3, c->shifted);
    MOVE_RECORDS(uint8_t, c->squeezed);
}

static void move_slots(skim_crowd *c, uint32_t n, uint32_t m, const uint32_t *from, const uint32_t *to, void *scratch)
{
    MOVE_RECORDS(skim_vec3, c->position);
    MOVE_RECORDS(skim_vec3, c->velocity);
    MOVE_RECORDS(skim_vec3, c->floor_normal);
    MOVE_RECORDS(uint32_t, c->state);
    MOVE_RECORDS(skim_ellipsoid, c->shape);
    MOVE_RECORDS(crowd_body, c->body);
    MOVE_RECORDS(crowd_goal, c->goal); /* the record, its points buffer stays where it is */
    MOVE_RECORDS(uint32_t, c->setting);
    MOVE_RECORDS(uint32_t, c->layers);
    MOVE_RECORDS(uint32_t, c->collides_with);
    MOVE_RECORDS(uint32_t, c->support);
    MOVE_RECORDS(crowd_ride, c->ride);
    MOVE_RECORDS(uint8_t, c->avoid_held);
    MOVE_RECORDS(crowd_rest, c->rest);
    MOVE_RECORDS(uint8_t, c->rest_kept);
    MOVE_RECORDS(uint32_t, c->id_of);
    move_bodies_scratch(c, m, from, scratch);
    /* Who stands on whom is kept by slot: the new one. */
    for (uint32_t k = 0; k < m; ++k)
        if (c->support[k] != UINT32_MAX && c->support[k] < m)
            c->support[k] = to[c->support[k]];
    for (uint32_t k = 0; k < m; ++k)
        c->slot_of[c->id_of[k]] = k;
    for (uint32_t k = 0; k < n; ++k)
        c->active[k] = k;
    if (!skim_move_cache_permute(&c->world_cache, from, m, scratch))
        skim_move_cache_release(&c->world_cache); /* kept walks only save walks */
}

void crowd_slots_follow_order(skim_crowd *c, uint32_t n)
{
    if (c->steps_since_slots < UINT32_MAX)
        c->steps_since_slots++;
    if (!c->def.agent_collisions || c->list_builds == c->builds_at_slots || c->steps_since_slots < c->slot_period ||
        c->slot_period == CROWD_SLOTS_NEVER)
        return;
    /* Scratch: a reordering is an optimisation, so without memory for it
       the slots stay as they are. */
    if (!c->slot_from && !(c->slot_from = malloc(2 * (size_t)c->capacity * sizeof *c->slot_from)))
        return;
    size_t largest = sizeof(skim_move_cache_entry);
    const size_t sizes[] = { sizeof *c->goal, sizeof *c->body, sizeof *c->ride, sizeof *c->shape,
                             sizeof *c->rest };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
        largest = sizes[k] > largest ? sizes[k] : largest;
    if (!c->slot_scratch && !(c->slot_scratch = malloc((size_t)c->capacity * largest)))
        return;
    uint32_t *from = c->slot_from, *to = c->slot_from + c->capacity;
    const uint32_t m = plan_moves(c, n, from, to);
    move_slots(c, n, m, from, to, c->slot_scratch);
    c->steps_since_slots = 0;
    c->builds_at_slots = c->list_builds;
}
