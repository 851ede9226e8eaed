/* Where agents can stand in a level (tool_spots.c). */
#ifndef SKIM_TOOL_SPOTS_H
#define SKIM_TOOL_SPOTS_H

#include <skim/skim.h>

#define TOOL_AGENT_RADIUS 16.0f /* the tool's agents: spheres of this radius */

/* Spots on upward-facing ground, walled in, on a grid of columns 2r + 4
   apart: malloc'ed, in column order; NULL if out of memory. */
skim_vec3 *tool_find_spots(const skim_world *world, uint32_t *spot_count);

#endif
