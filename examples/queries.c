/* The queries a game server asks besides "where does it stop", on the
   built-in default scene (z up, Quake units: a player is a sphere of
   radius 16): where players can spawn, what is under one, whether a spot
   is free, whether two players see each other, how near the closest wall
   is, what the surface under a ray is, and which triangles a walk meets.
   Built against the public API only; docs/queries.md explains each call. */
#include <skim/skim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what)
{
    fprintf(stderr, "queries: %s: %s\n", what, skim_last_error_message());
    return 1;
}

int main(void)
{
    skim_mesh_data scene;
    if (skim_scene_default(&scene) != SKIM_OK)
        return fail("the default scene");
    skim_mesh mesh = skim_mesh_data_view(&scene);
    skim_world *world;
    if (skim_world_create(&mesh, NULL, &world) != SKIM_OK)
        return fail("building the world");
    const skim_ellipsoid player = { { 16, 16, 16 }, { 0, 0, 0, 1 } };

    /* Spawn places: every standing spot, then the first two. */
    uint32_t count;
    if (skim_find_spawn_places(world, &player, NULL, NULL, 0, &count) != SKIM_OK || count < 2)
        return fail("spawn places");
    skim_vec3 *spots = malloc(count * sizeof *spots);
    if (!spots || skim_find_spawn_places(world, &player, NULL, spots, count, &count) != SKIM_OK)
        return fail("spawn places");
    printf("%u spawn places; the first at (%.1f, %.1f, %.1f)\n", count, spots[0].x, spots[0].y, spots[0].z);

    /* Put a player down on the floor under a spot. */
    skim_move_result rest;
    if (skim_drop_to_floor(world, &player, (skim_vec3){ spots[0].x, spots[0].y, spots[0].z + 100 }, 500, NULL,
                           &rest) != SKIM_OK)
        return fail("drop to floor");
    if (rest.touched & SKIM_TOUCH_FLOOR)
        printf("dropped from 100 above: rests at z = %.2f on triangle %u\n", rest.position.z, rest.floor_triangle);

    /* Is the spot free? */
    uint32_t touching;
    if (skim_overlap(world, &player, rest.position, NULL, NULL, 0, &touching) != SKIM_OK)
        return fail("overlap");
    printf("the resting player touches %u triangles%s\n", touching, touching ? "" : " (the floor is a skin below)");

    /* Line of sight between the first and the last spot, at eye height. */
    const skim_vec3 eye = { spots[0].x, spots[0].y, spots[0].z + 12 };
    const skim_vec3 other = { spots[count - 1].x, spots[count - 1].y, spots[count - 1].z + 12 };
    skim_hit hit;
    if (skim_raycast(world, eye, (skim_vec3){ other.x - eye.x, other.y - eye.y, other.z - eye.z }, NULL, &hit) !=
        SKIM_OK)
        return fail("raycast");
    if (hit.hit) {
        skim_triangle wall;
        if (skim_world_get_triangle(world, hit.triangle, &wall) != SKIM_OK)
            return fail("the hit triangle");
        printf("no line of sight: blocked %.0f%% of the way by triangle %u (material %u, %s)\n", 100.0 * hit.t,
               hit.triangle, wall.material,
               wall.normal.x * hit.normal.x + wall.normal.y * hit.normal.y + wall.normal.z * hit.normal.z > 0
                   ? "its front" : "its back");
    } else {
        printf("the two players see each other\n");
    }

    /* How far is the nearest geometry from the eye? */
    skim_closest closest;
    if (skim_closest_point(world, eye, 256, NULL, &closest) != SKIM_OK)
        return fail("closest point");
    if (closest.found)
        printf("nearest geometry %.1f away, on triangle %u\n", closest.distance, closest.triangle);

    /* Many rays at once: a ring of 360 probes around the eye. */
    skim_vec3 origins[360], deltas[360];
    skim_hit ring[360];
    for (int i = 0; i < 360; ++i) {
        origins[i] = eye;
        deltas[i] = (skim_vec3){ 1000.0f * cosf(0.0174533f * i), 1000.0f * sinf(0.0174533f * i), 0 };
    }
    if (skim_raycast_batch(world, 360, origins, deltas, NULL, ring) != SKIM_OK)
        return fail("raycast batch");
    int walls = 0;
    for (int i = 0; i < 360; ++i)
        walls += ring[i].hit;
    printf("%d of 360 directions meet a wall within 1000 units\n", walls);

    /* What a walk into the corner's wall meets: the contacts of one move,
       with gravity and steps. */
    skim_move_def walk = skim_move_def_default();
    walk.step_height = 18;
    walk.gravity = (skim_vec3){ 0, 0, -1 };
    skim_move_result walked;
    skim_contact met[8];
    uint32_t met_count;
    if (skim_move_contacts(world, &player, rest.position, (skim_vec3){ -100, 30, 0 }, &walk, &walked, met, 8,
                           &met_count) != SKIM_OK)
        return fail("move contacts");
    static const char *const pass_names[] = { "slide", "step", "gravity", "snap" };
    printf("a walk into the wall ends at (%.1f, %.1f) and meets %u triangle(s)\n", walked.position.x,
           walked.position.y, met_count);
    for (uint32_t i = 0; i < met_count && i < 8; ++i)
        printf("  %-7s triangle %u (material %u), %s, at (%.1f, %.1f, %.1f)\n", pass_names[met[i].pass],
               met[i].triangle, met[i].material,
               met[i].touched & SKIM_TOUCH_FLOOR ? "a floor" : met[i].touched & SKIM_TOUCH_WALL ? "a wall" : "a ceiling",
               met[i].point.x, met[i].point.y, met[i].point.z);

    free(spots);
    skim_world_destroy(world);
    skim_mesh_data_free(&scene);
    return 0;
}
