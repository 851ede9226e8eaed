/* The parent project's program: one sweep through skim, built from the
   subproject. */
#include <skim/skim.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    const float positions[] = { -10, -10, 0, 10, -10, 0, 0, 10, 0 };
    const uint32_t indices[] = { 0, 1, 2 };
    const skim_mesh mesh = { positions, 3, indices, 1, NULL };
    skim_world *world = NULL;
    if (skim_world_create(&mesh, NULL, &world) != SKIM_OK)
        return 1;
    const skim_ellipsoid sphere = { { 1, 1, 1 }, { 0, 0, 0, 1 } };
    skim_hit hit;
    skim_status status = skim_sweep(world, &sphere, (skim_vec3){ 0, 0, 5 }, (skim_vec3){ 0, 0, -10 }, NULL, &hit);
    skim_world_destroy(world);
    if (status != SKIM_OK || !hit.hit || strcmp(skim_version(), SKIM_VERSION_STRING) != 0)
        return 1;
    printf("skim %s as a subproject: hit at t = %.3f\n", skim_version(), hit.t);
    return 0;
}
