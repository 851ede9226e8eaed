/* Candidate gathering: one query box per sweep or move, every triangle that
   may be touched copied into the SoA buffer in the mover's unit-sphere space,
   relative to the start (DESIGN.md, "the data path"). */
#include "skim_internal.h"
#include "bvh/bvh.h"

void skim_world_visit_box(const skim_world *world, const float box_min[3], const float box_max[3],
                          skim_triangle_run_fn visit, void *ctx)
{
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh)
        skim_bvh_visit_box(world, box_min, box_max, visit, ctx);
    else if (world->triangle_count)
        visit(ctx, 0, world->triangle_count); /* brute force: the oracle tests everything */
}

typedef struct gather_context {
    const skim_world *world;
    const skim_ellipsoid_space *space;
    const float *start;
    const float *box_min, *box_max;
    uint64_t material_mask;
    bool cull_by_box;
    skim_candidates *out;
    skim_status status;
} gather_context;

static bool material_collides(uint64_t mask, uint16_t material)
{
    return material >= 64 || ((mask >> material) & 1u);
}

static void gather_run(void *opaque, uint32_t first, uint32_t count)
{
    gather_context *ctx = opaque;
    if (ctx->status != SKIM_OK)
        return;
    skim_candidates *out = ctx->out;
    if (out->count + count > out->capacity) {
        ctx->status = skim_candidates_reserve(out, out->count + count);
        if (ctx->status != SKIM_OK)
            return;
    }
    const float(*m)[3] = ctx->space->to_unit;
    for (uint32_t i = first; i < first + count; ++i) {
        if (!material_collides(ctx->material_mask, ctx->world->material[i]))
            continue;
        const float *tri = ctx->world->vertices + 9 * (size_t)i;
        if (ctx->cull_by_box) {
            bool outside = false;
            for (int axis = 0; axis < 3 && !outside; ++axis) {
                float lo = tri[axis], hi = tri[axis];
                for (int v = 1; v < 3; ++v) {
                    lo = tri[3 * v + axis] < lo ? tri[3 * v + axis] : lo;
                    hi = tri[3 * v + axis] > hi ? tri[3 * v + axis] : hi;
                }
                outside = lo > ctx->box_max[axis] || hi < ctx->box_min[axis];
            }
            if (outside)
                continue;
        }
        uint32_t lane = out->count++;
        for (int v = 0; v < 3; ++v) {
            /* Relative to the start first: two nearby floats subtract exactly. */
            float rel[3] = { tri[3 * v] - ctx->start[0], tri[3 * v + 1] - ctx->start[1],
                             tri[3 * v + 2] - ctx->start[2] };
            for (int axis = 0; axis < 3; ++axis)
                out->vertex[v][axis][lane] =
                    m[axis][0] * rel[0] + m[axis][1] * rel[1] + m[axis][2] * rel[2];
        }
        out->triangle[lane] = ctx->world->triangle_index[i];
        out->material[lane] = ctx->world->material[i];
    }
}

skim_status skim_gather_candidates(const skim_world *world, const skim_ellipsoid_space *space,
                                   const float start[3], const float box_min[3],
                                   const float box_max[3], uint64_t material_mask,
                                   skim_candidates *out)
{
    out->count = 0;
    gather_context ctx = {
        .world = world, .space = space, .start = start, .box_min = box_min, .box_max = box_max,
        .material_mask = material_mask,
        .cull_by_box = world->accelerator == SKIM_ACCELERATOR_BVH,
        .out = out, .status = SKIM_OK,
    };
    skim_world_visit_box(world, box_min, box_max, gather_run, &ctx);
    if (ctx.status != SKIM_OK)
        return ctx.status;
    skim_status status = skim_candidates_reserve(out, out->count);
    if (status != SKIM_OK)
        return status;
    skim_candidates_pad(out);
    return SKIM_OK;
}
