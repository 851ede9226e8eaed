/* sweep.c: build a world from triangles, sweep a sphere through it, read the hit.

   Build against an installed skim:
       cc examples/sweep.c $(pkg-config --cflags --libs skim) -o sweep */
#include <skim/skim.h>

#include <stdio.h>

int main(void)
{
    /* A floor: two triangles of a 20 x 20 square at z = 0, counter-clockwise
       seen from above, so their front faces point up (+z). */
    const float positions[] = { -10, -10, 0,   10, -10, 0,   10, 10, 0,   -10, 10, 0 };
    const uint32_t indices[] = { 0, 1, 2,   0, 2, 3 };
    const skim_mesh mesh = { positions, 4, indices, 2, NULL };

    skim_world *world = NULL;
    if (skim_world_create(&mesh, NULL /* default BVH */, &world) != SKIM_OK) {
        fprintf(stderr, "world: %s\n", skim_last_error_message());
        return 1;
    }

    /* A sphere of radius 1 starting 5 above the floor and moving 10 down:
       it touches the floor when its center is 1 above it, 4 into the 10. */
    const skim_ellipsoid sphere = { { 1, 1, 1 }, { 0, 0, 0, 1 } };
    const skim_vec3 start = { 0, 0, 5 }, delta = { 0, 0, -10 };
    skim_hit hit;
    if (skim_sweep(world, &sphere, start, delta, NULL /* every triangle collides */, &hit) != SKIM_OK) {
        fprintf(stderr, "sweep: %s\n", skim_last_error_message());
        skim_world_destroy(world);
        return 1;
    }
    if (hit.hit)
        printf("hit triangle %u at t = %.3f, point (%.2f, %.2f, %.2f), normal (%.2f, %.2f, %.2f)\n",
               hit.triangle, hit.t, hit.point.x, hit.point.y, hit.point.z,
               hit.normal.x, hit.normal.y, hit.normal.z);
    else
        printf("no hit\n");

    skim_world_destroy(world);
    return hit.hit ? 0 : 1;
}
