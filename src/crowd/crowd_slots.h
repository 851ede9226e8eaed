/* The one knob of the crowd's slots (crowd_slots.c) that its tests turn:
   how many steps at least pass between two reorderings. Internal, never
   exported. */
#ifndef SKIM_CROWD_SLOTS_H
#define SKIM_CROWD_SLOTS_H

#include "skim/skim_crowd.h"

#include <stdint.h>

/* Steps between reorderings by default: a reordering moves every record
   once, about as much as a few steps read of them. */
#define CROWD_SLOT_PERIOD 16u
/* A period no crowd reaches: the slots stay where the ids put them. */
#define CROWD_SLOTS_NEVER UINT32_MAX

void crowd_set_slot_period(skim_crowd *crowd, uint32_t steps);

#endif
