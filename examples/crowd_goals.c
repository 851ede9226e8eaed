/* crowd_goals.c: a crowd whose agents walk to goals.

   Two groups of 20 agents stand facing each other across open ground and
   are each sent to the other side, so they must pass through each other:
   the crowd steers every agent toward its target, avoids the others
   (reciprocal velocity obstacles) and keeps the world between them
   (collide and slide against walls, steps and slopes). An agent that gets
   within arrival_distance of its target stops and is marked
   SKIM_AGENT_ARRIVED. Long routes around walls come from a navmesh:
   hand its corner points to skim_crowd_set_path() instead.

   Build against an installed skim:
       cc examples/crowd_goals.c $(pkg-config --cflags --libs skim) -o crowd_goals */
#include <skim/skim.h>

#include <math.h>
#include <stdio.h>

enum { PER_SIDE = 20, AGENTS = 2 * PER_SIDE, SPACING = 80 };

int main(void)
{
    skim_mesh_data level;
    if (skim_scene_default(&level) != SKIM_OK) {
        fprintf(stderr, "scene: %s\n", skim_last_error_message());
        return 1;
    }
    skim_mesh mesh = skim_mesh_data_view(&level);
    skim_world *world = NULL;
    skim_status status = skim_world_create(&mesh, NULL, &world);
    skim_mesh_data_free(&level);
    if (status != SKIM_OK) {
        fprintf(stderr, "world: %s\n", skim_last_error_message());
        return 1;
    }

    /* The defaults: Quake units, gravity 800, steps of 18, avoidance on. */
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = AGENTS;
    skim_crowd *crowd = NULL;
    if (skim_crowd_create(&def, &crowd) != SKIM_OK) {
        fprintf(stderr, "crowd: %s\n", skim_last_error_message());
        skim_world_destroy(world);
        return 1;
    }

    /* Two blocks of 4 x 5 agents facing each other across 600 units of
       clear ground in the open half of the default scene (y < 0, below its
       pillars). Each agent crosses to the other block's side, keeping its
       row: the front of a block goes to the back of the other, so agents
       that arrive first do not stand in the way of those still coming, and
       the blocks are loose enough (SPACING) for an agent to pass between
       two that stand. */
    for (uint32_t i = 0; i < AGENTS && status == SKIM_OK; ++i) {
        const float side = i < PER_SIDE ? -1.0f : 1.0f;
        const uint32_t column = i % 4, row = (i % PER_SIDE) / 4;
        skim_agent_def agent = skim_agent_def_default(); /* a sphere of radius 16 */
        agent.position = (skim_vec3){ side * (300.0f + SPACING * (float)column), -1300.0f - SPACING * (float)row, 20 };
        const skim_vec3 goal = { -side * (300.0f + SPACING * (float)(3 - column)), agent.position.y, 0 };
        uint32_t id;
        status = skim_crowd_add(crowd, &agent, &id);
        if (status == SKIM_OK)
            status = skim_crowd_set_target(crowd, id, goal, 200.0f /* units/s */, 8.0f /* units */);
    }
    if (status != SKIM_OK) {
        fprintf(stderr, "agents: %s\n", skim_last_error_message());
        skim_crowd_destroy(crowd);
        skim_world_destroy(world);
        return 1;
    }

    /* Step at 60 Hz until everyone has arrived, or 20 s of game time. */
    skim_crowd_stats stats = { 0 };
    int tick = 0;
    for (; tick < 20 * 60; ++tick) {
        if (skim_crowd_step(world, crowd, 1.0f / 60) != SKIM_OK) {
            fprintf(stderr, "step: %s\n", skim_last_error_message());
            break;
        }
        skim_crowd_get_stats(crowd, &stats);
        if (tick % 60 == 59) {
            printf("%2d s: %2u of %u arrived", (tick + 1) / 60, stats.arrived, stats.agents);
            if (isfinite(stats.closest_gap)) /* INFINITY when no two agents are near */
                printf(", closest gap between two agents %.1f", stats.closest_gap);
            printf("\n");
        }
        if (stats.arrived == stats.agents)
            break;
    }
    printf("%u of %u agents arrived after %.2f s\n", stats.arrived, stats.agents, (double)(tick + 1) / 60);

    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    return stats.arrived == stats.agents ? 0 : 1;
}
