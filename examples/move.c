/* move.c: collide and slide a player-sized sphere through the built-in
   default scene, the way a game server moves a character each tick.

   Build against an installed skim:
       cc examples/move.c $(pkg-config --cflags --libs skim) -o move */
#include <skim/skim.h>

#include <stdio.h>

int main(void)
{
    /* The default scene: floors, walls, stairs and ramps in Quake units,
       z up. A real game loads its level with skim_mesh_load_obj(). */
    skim_mesh_data level;
    if (skim_scene_default(&level) != SKIM_OK) {
        fprintf(stderr, "scene: %s\n", skim_last_error_message());
        return 1;
    }
    skim_mesh mesh = skim_mesh_data_view(&level);
    skim_world *world = NULL;
    skim_status status = skim_world_create(&mesh, NULL, &world);
    skim_mesh_data_free(&level); /* the world keeps its own copy */
    if (status != SKIM_OK) {
        fprintf(stderr, "world: %s\n", skim_last_error_message());
        return 1;
    }

    /* How to move: start from the defaults (never from a zeroed struct),
       then climb steps up to 18 high and stick to floors going down. */
    skim_move_def def = skim_move_def_default();
    def.up = (skim_vec3){ 0, 0, 1 };
    def.step_height = 18;
    def.snap_distance = 18;

    const skim_ellipsoid player = { { 16, 16, 16 }, { 0, 0, 0, 1 } };
    /* Dropped in 48 above the floor, in front of the default scene's
       staircase of 8 steps 8 high (x -1900..-1772, from y = 200 on). */
    skim_vec3 position = { -1836, 0, 64 };
    const float tick = 1.0f / 60, run_speed = 320, gravity = 800;
    float fall_speed = 0;                /* units/s downward, the game's own state */

    for (int frame = 1; frame <= 90; ++frame) {
        /* The wanted displacement of this tick: run up the stairs (+y) and
           fall as fast as we are falling. */
        const skim_vec3 displacement = { 0, run_speed * tick, -fall_speed * tick };
        skim_move_result result;
        status = skim_move(world, &player, position, displacement, &def, &result);
        if (status != SKIM_OK) {
            fprintf(stderr, "move: %s\n", skim_last_error_message());
            break;
        }
        position = result.position;
        /* A floor stops the fall; in the air it speeds up. */
        fall_speed = result.touched & SKIM_TOUCH_FLOOR ? 0 : fall_speed + gravity * tick;
        if (frame % 15 == 0)
            printf("tick %3d: at (%7.2f, %7.2f, %7.2f)%s%s\n", frame, position.x, position.y, position.z,
                   result.touched & SKIM_TOUCH_FLOOR ? " on the floor" : " in the air",
                   result.touched & SKIM_TOUCH_WALL ? ", against a wall" : "");
    }

    skim_world_destroy(world);
    return status == SKIM_OK ? 0 : 1;
}
