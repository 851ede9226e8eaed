/* Standing spots in a level for agents of radius TOOL_AGENT_RADIUS: where
   `skim crowd` puts its agents (the densest placement it allows), and
   where --goals sends them. The library's skim_find_spawn_places finds
   them; this keeps the tool's and the crowd benchmark's one way of asking. */
#include "tool_spots.h"

#include <stdlib.h>

/* Spots the first search has room for. */
#define TOOL_SPOTS_FIRST_ROOM (1u << 18)

skim_vec3 *tool_find_spots(const skim_world *world, uint32_t *spot_count)
{
    const skim_ellipsoid shape = { { TOOL_AGENT_RADIUS, TOOL_AGENT_RADIUS, TOOL_AGENT_RADIUS },
                                   { 0, 0, 0, 1 } };
    *spot_count = 0;
    /* One search with room for most levels' spots (a few MB), a second
       only when there are more: on a large world the search takes
       seconds, and asking for the count first would take them twice. */
    uint32_t capacity = TOOL_SPOTS_FIRST_ROOM, count = 0;
    skim_vec3 *spots = NULL;
    do {
        free(spots);
        capacity = count > capacity ? count : capacity;
        spots = malloc(capacity * sizeof *spots);
        if (!spots || skim_find_spawn_places(world, &shape, NULL, spots, capacity, &count) != SKIM_OK) {
            free(spots);
            return NULL;
        }
    } while (count > capacity);
    *spot_count = count;
    return spots;
}
