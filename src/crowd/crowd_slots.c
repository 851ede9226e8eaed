/* Slots: where an agent's records live, apart from the id its user holds
   (crowd_internal.h). */
#include "crowd/crowd_internal.h"

void crowd_slots_init(skim_crowd *c)
{
    for (uint32_t k = 0; k < c->capacity; ++k) {
        c->slot_of[k] = k;
        c->id_of[k] = k;
    }
}
