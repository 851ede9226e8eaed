/* Candidate gathering: one query box per sweep or move, every triangle that
   may be touched copied into the SoA buffer in the mover's unit-sphere space,
   relative to the start. The per-leaf work is
   gather_run.h's, shared with the ordered traversal. */
#include "gather/gather_run.h"

void skim_world_visit_box(const skim_world *world, const float box_min[3], const float box_max[3],
                          skim_triangle_run_fn visit, void *ctx)
{
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh)
        skim_bvh_visit_box(world->bvh, world->bounds_min, world->bounds_max, box_min, box_max,
                           visit, ctx);
    else if (world->triangle_count)
        visit(ctx, 0, world->triangle_count); /* brute force: the oracle tests everything */
}

/* The setup (skim_path_gather) lives in bvh/bvh_ordered.h: the ordered
   traversal gathers its leaves with the same code. */
typedef skim_path_gather gather_setup;

enum { LEAF_BATCH = 64 };

void skim_path_gather_shape(skim_path_gather *g, const skim_ellipsoid_space *space)
{
    g->diagonal = true;
    for (int axis = 0; axis < 3; ++axis)
        for (int j = 0; j < 3; ++j) {
            g->to_unit[axis][j] = simde_mm_set1_ps(space->to_unit[axis][j]);
            if (j != axis && space->to_unit[axis][j] != 0.0f)
                g->diagonal = false;
        }
}

void skim_path_gather_place(skim_path_gather *g, const skim_world *world,
                            const skim_ellipsoid_space *space, const float start[3],
                            const float box_min[3], const float box_max[3],
                            uint64_t material_mask)
{
    /* Not zeroed as a whole (a dozen cache lines of broadcasts on every
       sweep): the segment fields are set by skim_path_gather_init and read
       only when swept. */
    g->swept = false;
    for (int axis = 0; axis < 3; ++axis) {
        g->start[axis] = simde_mm_set1_ps(start[axis]);
        g->box_min[axis] = simde_mm_set1_ps(box_min[axis]);
        g->box_max[axis] = simde_mm_set1_ps(box_max[axis]);
    }
    g->material_mask = material_mask;
    g->all_materials = material_mask == UINT64_MAX;
    skim_gather_clip_setup(g, world, space, start);
}

void skim_path_gather_box_init(skim_path_gather *g, const skim_world *world,
                               const skim_ellipsoid_space *space, const float start[3],
                               const float box_min[3], const float box_max[3],
                               uint64_t material_mask)
{
    skim_path_gather_shape(g, space);
    skim_path_gather_place(g, world, space, start, box_min, box_max, material_mask);
}

static skim_status gather(const skim_world *world, const gather_setup *g, const float box_min[3],
                          const float box_max[3], skim_candidates *out)
{
    out->count = 0;
    skim_status status;
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh) {
        skim_bvh_walk walk;
        skim_bvh_walk_begin(&walk, world->bvh, world->bounds_min, world->bounds_max, box_min,
                            box_max);
        if (g->swept)
            skim_bvh_walk_sweep(&walk, g->start_s, g->inverse_delta_s, g->reach_s);
        uint32_t refs[LEAF_BATCH];
        uint32_t leaves;
        while ((leaves = skim_bvh_walk_leaves(&walk, refs, LEAF_BATCH)) != 0) {
            for (uint32_t k = 0; k < leaves; ++k) {
                /* Room for a leaf (at most 16 triangles) and a packet's
                   overrun, checked per leaf: a far triangle's pieces
                   (gather_clip.h) may have used more than the leaf's
                   count. */
                if (out->count + SKIM_BVH_MAX_LEAF + SKIM_MAX_PACKET_WIDTH > out->capacity) {
                    status = skim_candidates_reserve(out, out->count + leaves * SKIM_BVH_MAX_LEAF +
                                                              SKIM_MAX_PACKET_WIDTH);
                    if (status != SKIM_OK)
                        return status;
                }
                status = skim_gather_run(world, g, skim_bvh_leaf_first(refs[k]),
                                         skim_bvh_leaf_count(refs[k]), true,
                                         1.0f + SKIM_PATH_T_SLACK, out);
                if (status != SKIM_OK)
                    return status;
            }
        }
    } else if (world->triangle_count) {
        /* Brute force: the oracle walks every triangle, no tree, and applies
           each triangle's own box test (the same one the BVH applies at its
           leaves). A triangle outside the grown path box cannot be touched
           in exact arithmetic, so this only removes answers that are pure
           float error in the kernel (unit-space coordinates of 1e7 and more,
           e.g. triangles 2^100 away), while any tree bug that misses a leaf
           still shows as a difference from this path. */
        status = skim_candidates_reserve(out, world->triangle_count + SKIM_MAX_PACKET_WIDTH);
        if (status != SKIM_OK)
            return status;
        status = skim_gather_run(world, g, 0, world->triangle_count, true,
                                 1.0f + SKIM_PATH_T_SLACK, out);
        if (status != SKIM_OK)
            return status;
    }
    status = skim_candidates_reserve(out, out->count + SKIM_MAX_PACKET_WIDTH);
    if (status != SKIM_OK)
        return status;
    skim_candidates_pad_whole(out);
    return SKIM_OK;
}

skim_status skim_gather_candidates(const skim_world *world, const skim_ellipsoid_space *space,
                                   const float start[3], const float box_min[3],
                                   const float box_max[3], uint64_t material_mask,
                                   skim_candidates *out)
{
    gather_setup g;
    skim_path_gather_box_init(&g, world, space, start, box_min, box_max, material_mask);
    return gather(world, &g, box_min, box_max, out);
}

void skim_path_gather_init(skim_path_gather *g, const skim_world *world,
                           const skim_ellipsoid_space *space, const float start[3],
                           const float delta[3], uint64_t material_mask)
{
    skim_path_gather_shape(g, space);
    skim_path_gather_sweep(g, world, space, start, delta, material_mask);
}

void skim_path_gather_sweep(skim_path_gather *g, const skim_world *world,
                            const skim_ellipsoid_space *space, const float start[3],
                            const float delta[3], uint64_t material_mask)
{
    float box_min[3], box_max[3];
    skim_sweep_box(start, delta, space->bounding_radius, box_min, box_max);
    skim_path_gather_place(g, world, space, start, box_min, box_max, material_mask);
    g->swept = true;
    for (int axis = 0; axis < 3; ++axis) {
        /* The sweep box's own margin on this axis: the bounding radius plus
           the rounding allowances skim_sweep_box adds. */
        float end = start[axis] + delta[axis];
        float reach = box_max[axis] - (start[axis] > end ? start[axis] : end);
        g->reach[axis] = simde_mm_set1_ps(reach);
        float inverse = delta[axis] != 0.0f ? 1.0f / delta[axis] : 1e30f;
        if (!(inverse <= 1e30f && inverse >= -1e30f))
            inverse = delta[axis] < 0.0f ? -1e30f : 1e30f; /* 1/denormal overflows */
        g->inverse_delta[axis] = simde_mm_set1_ps(inverse);
        g->start_s[axis] = start[axis];
        g->inverse_delta_s[axis] = inverse;
        g->reach_s[axis] = reach;
        /* Far triangles are clipped to the sweep's own reach, not to this
           box (whose margins grow with |start|): see gather_clip.h. */
        g->clip_delta[axis] = delta[axis];
    }
    g->clip_radius = space->bounding_radius;
}

skim_status skim_gather_candidates_swept(const skim_world *world, const skim_ellipsoid_space *space,
                                         const float start[3], const float delta[3],
                                         uint64_t material_mask, skim_candidates *out)
{
    gather_setup g;
    skim_path_gather_init(&g, world, space, start, delta, material_mask);
    float box_min[3], box_max[3];
    skim_sweep_box(start, delta, space->bounding_radius, box_min, box_max);
    return gather(world, &g, box_min, box_max, out);
}

/* The box that holds the whole sweep: start +- the bounding radius, grown by
   the displacement, padded by a relative margin so rounding in the kernels
   can never make a triangle just outside it the first hit (the BVH must give
   exactly what brute force gives). */
void skim_sweep_box(const float start[3], const float delta[3], float bounding_radius,
                    float box_min[3], float box_max[3])
{
    for (int axis = 0; axis < 3; ++axis) {
        float from = start[axis], to = start[axis] + delta[axis];
        float lo = from < to ? from : to, hi = from < to ? to : from;
        float margin = bounding_radius * 1.001f + 1e-4f * (fabsf(lo) + fabsf(hi)) * 0.5f +
                       1e-3f * fabsf(delta[axis]);
        box_min[axis] = lo - margin;
        box_max[axis] = hi + margin;
    }
}
