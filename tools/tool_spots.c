/* Standing spots in a level for agents of radius TOOL_AGENT_RADIUS: where
   `skim crowd` puts its agents (the densest placement it allows), and
   where --goals sends them. The library's skim_find_spawn_places finds
   them; this keeps the tool's and the crowd benchmark's one way of asking. */
#include "tool_spots.h"

#include <stdlib.h>

skim_vec3 *tool_find_spots(const skim_world *world, uint32_t *spot_count)
{
    const skim_ellipsoid shape = { { TOOL_AGENT_RADIUS, TOOL_AGENT_RADIUS, TOOL_AGENT_RADIUS },
                                   { 0, 0, 0, 1 } };
    *spot_count = 0;
    uint32_t count = 0;
    if (skim_find_spawn_places(world, &shape, NULL, NULL, 0, &count) != SKIM_OK)
        return NULL;
    skim_vec3 *spots = malloc((count ? count : 1) * sizeof *spots);
    if (!spots || skim_find_spawn_places(world, &shape, NULL, spots, count, &count) != SKIM_OK) {
        free(spots);
        return NULL;
    }
    *spot_count = count;
    return spots;
}
