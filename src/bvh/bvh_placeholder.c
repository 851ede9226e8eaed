/* TEMPORARY until the SAH BVH lands (issue 3): no tree, every query visits
   all triangles. Replaced by bvh_build.c / bvh_traverse.c / bake.c. */
#include "bvh.h"

#include <string.h>

skim_status skim_bvh_build(skim_world *world, const skim_world_def *def)
{
    (void)def;
    world->bvh = NULL;
    return SKIM_OK;
}

void skim_bvh_destroy(skim_world *world) { (void)world; }

void skim_bvh_add_stats(const skim_world *world, skim_world_stats *out)
{
    (void)world;
    (void)out;
}

void skim_bvh_visit_box(const skim_world *world, const float box_min[3], const float box_max[3],
                        skim_triangle_run_fn visit, void *ctx)
{
    (void)box_min;
    (void)box_max;
    if (world->triangle_count)
        visit(ctx, 0, world->triangle_count);
}

void skim_world_unmap(skim_world *world) { (void)world; }

skim_status skim_world_save(const skim_world *world, const char *path)
{
    (void)world;
    (void)path;
    return skim_fail(SKIM_ERROR_IO, "skim_world_save: not built yet");
}

skim_status skim_world_load(const char *path, skim_world **out)
{
    (void)path;
    if (out)
        *out = NULL;
    return skim_fail(SKIM_ERROR_IO, "skim_world_load: not built yet");
}
