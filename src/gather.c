/* Candidate gathering: one query box per sweep or move, every triangle that
   may be touched copied into the SoA buffer in the mover's unit-sphere space,
   relative to the start (DESIGN.md, "the data path").

   Four stored triangles are handled at once (SSE2: native on x86-64,
   SIMDe's portable code elsewhere): their boxes tested against the query,
   their corners moved and transformed, and the survivors appended. Every
   lane performs exactly the scalar sequence (v - start, then
   (m0 * x + m1 * y) + m2 * z, no fused multiply-add), so a triangle lands in
   the buffer with the same bits whichever path gathered it: the BVH and the
   brute-force oracle hand the kernels identical numbers. */
#include "skim_internal.h"
#include "bvh/bvh_ordered.h"

#include <simde/x86/sse2.h>
#include <string.h>

void skim_world_visit_box(const skim_world *world, const float box_min[3], const float box_max[3],
                          skim_triangle_run_fn visit, void *ctx)
{
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh)
        skim_bvh_visit_box(world, box_min, box_max, visit, ctx);
    else if (world->triangle_count)
        visit(ctx, 0, world->triangle_count); /* brute force: the oracle tests everything */
}

/* The setup (skim_path_gather) lives in bvh/bvh_ordered.h: the ordered
   traversal gathers its leaves with the same code. */
typedef skim_path_gather gather_setup;

/* Lanes whose box, grown by reach, the segment crosses: the slab test, with
   1/delta replaced by +-1e30 for a zero component so that no lane computes
   0 * inf (a NaN): a point segment then passes exactly when it is inside. */
static unsigned segment_crosses(const gather_setup *g, simde__m128 lo[3], simde__m128 hi[3],
                                float t_limit)
{
    simde__m128 near = simde_mm_set1_ps(-SKIM_PATH_T_SLACK);
    simde__m128 far = simde_mm_set1_ps(t_limit);
    for (int axis = 0; axis < 3; ++axis) {
        simde__m128 t1 = simde_mm_mul_ps(simde_mm_sub_ps(simde_mm_sub_ps(lo[axis], g->reach[axis]),
                                                         g->start[axis]),
                                         g->inverse_delta[axis]);
        simde__m128 t2 = simde_mm_mul_ps(simde_mm_sub_ps(simde_mm_add_ps(hi[axis], g->reach[axis]),
                                                         g->start[axis]),
                                         g->inverse_delta[axis]);
        near = simde_mm_max_ps(near, simde_mm_min_ps(t1, t2));
        far = simde_mm_min_ps(far, simde_mm_max_ps(t1, t2));
    }
    return (unsigned)simde_mm_movemask_ps(simde_mm_cmple_ps(near, far));
}

static bool material_collides(uint64_t mask, uint16_t material)
{
    return material >= 64 || ((mask >> material) & 1u);
}

/* Appends the triangles of stored run [first, first + count) that pass the
   material mask and, when cull_by_box, whose box overlaps the query (and,
   for a swept setup, whose grown box the segment enters by t_limit). The
   caller has reserved count + SKIM_MAX_PACKET_WIDTH lanes past out->count:
   whole 4-lane stores may write past the last kept lane. */
static void gather_run(const skim_world *world, const gather_setup *g, uint32_t first,
                       uint32_t count, bool cull_by_box, float t_limit, skim_candidates *out)
{
    const uint32_t end = first + count;
    for (uint32_t i = first; i < end; i += 4) {
        uint32_t lanes = end - i < 4 ? end - i : 4;
        unsigned keep = (1u << lanes) - 1u;
        simde__m128 corner[3][3];
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                corner[v][axis] = simde_mm_loadu_ps(world->vertex[v][axis] + i);
        if (cull_by_box) {
            simde__m128 inside = simde_mm_castsi128_ps(simde_mm_set1_epi32(-1));
            simde__m128 lo[3], hi[3];
            for (int axis = 0; axis < 3; ++axis) {
                lo[axis] = simde_mm_min_ps(corner[0][axis],
                                           simde_mm_min_ps(corner[1][axis], corner[2][axis]));
                hi[axis] = simde_mm_max_ps(corner[0][axis],
                                           simde_mm_max_ps(corner[1][axis], corner[2][axis]));
                inside = simde_mm_and_ps(inside,
                                         simde_mm_and_ps(simde_mm_cmple_ps(lo[axis], g->box_max[axis]),
                                                         simde_mm_cmpge_ps(hi[axis], g->box_min[axis])));
            }
            keep &= (unsigned)simde_mm_movemask_ps(inside);
            /* Not only a cull: it makes the BVH's and brute force's
               candidates the same set (a triangle's grown box entered by
               the segment lies in a leaf's grown box entered by it), so
               their answers agree even where the kernel's float error
               makes a false contact within its stated accuracy (hardening
               finding 13). Dropping it saved 2% of a sweep's instructions
               and broke that guarantee; every suite still passed, so it
               is written here. */
            if (keep && g->swept)
                keep &= segment_crosses(g, lo, hi, t_limit);
        }
        if (!g->all_materials)
            for (uint32_t lane = 0; lane < lanes; ++lane)
                if (!material_collides(g->material_mask, world->material[i + lane]))
                    keep &= ~(1u << lane);
        if (!keep)
            continue;

        simde__m128 unit[3][3];
        for (int v = 0; v < 3; ++v) {
            simde__m128 rel[3];
            for (int axis = 0; axis < 3; ++axis)
                rel[axis] = simde_mm_sub_ps(corner[v][axis], g->start[axis]);
            /* Without rotation the off-diagonal products are zeros and the
               sums below return the diagonal product unchanged (up to the
               sign of an exact zero), so one multiply per coordinate does:
               the common case of spheres and upright shapes. Every gather
               (BVH, brute force, moves) takes the same branch for the same
               shape, so they still hand the kernels identical bits. */
            if (g->diagonal) {
                for (int k = 0; k < 3; ++k)
                    unit[v][k] = simde_mm_mul_ps(g->to_unit[k][k], rel[k]);
                continue;
            }
            for (int k = 0; k < 3; ++k)
                unit[v][k] = simde_mm_add_ps(
                    simde_mm_add_ps(simde_mm_mul_ps(g->to_unit[k][0], rel[0]),
                                    simde_mm_mul_ps(g->to_unit[k][1], rel[1])),
                    simde_mm_mul_ps(g->to_unit[k][2], rel[2]));
        }
        uint32_t at = out->count;
        if ((keep & (keep + 1u)) == 0) {
            /* The kept lanes are a prefix (the common case: a whole packet,
               or the tail of a run): store all four, advance by the kept. */
            for (int v = 0; v < 3; ++v)
                for (int k = 0; k < 3; ++k)
                    simde_mm_storeu_ps(out->vertex[v][k] + at, unit[v][k]);
            memcpy(out->triangle + at, world->triangle_index + i, 4 * sizeof(uint32_t));
            memcpy(out->material + at, world->material + i, 4 * sizeof(uint16_t));
            /* keep is a prefix mask: its length is the bit count, and
               without -mpopcnt __builtin_popcount is a library call. */
            static const uint8_t prefix_length[16] = { 0, 1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4 };
            out->count += prefix_length[keep];
            continue;
        }
        float lanes_out[3][3][4];
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                simde_mm_storeu_ps(lanes_out[v][k], unit[v][k]);
        for (uint32_t lane = 0; lane < 4; ++lane) {
            if (!((keep >> lane) & 1u))
                continue;
            for (int v = 0; v < 3; ++v)
                for (int k = 0; k < 3; ++k)
                    out->vertex[v][k][at] = lanes_out[v][k][lane];
            out->triangle[at] = world->triangle_index[i + lane];
            out->material[at] = world->material[i + lane];
            ++at;
        }
        out->count = at;
    }
}

enum { LEAF_BATCH = 64 };

static void setup_box(gather_setup *g, const skim_ellipsoid_space *space, const float start[3],
                      const float box_min[3], const float box_max[3], uint64_t material_mask)
{
    /* Not zeroed as a whole (a dozen cache lines of broadcasts on every
       sweep): the segment fields are set by skim_path_gather_init and read
       only when swept. */
    g->swept = false;
    g->diagonal = true;
    for (int axis = 0; axis < 3; ++axis) {
        g->start[axis] = simde_mm_set1_ps(start[axis]);
        g->box_min[axis] = simde_mm_set1_ps(box_min[axis]);
        g->box_max[axis] = simde_mm_set1_ps(box_max[axis]);
        for (int j = 0; j < 3; ++j) {
            g->to_unit[axis][j] = simde_mm_set1_ps(space->to_unit[axis][j]);
            if (j != axis && space->to_unit[axis][j] != 0.0f)
                g->diagonal = false;
        }
    }
    g->material_mask = material_mask;
    g->all_materials = material_mask == UINT64_MAX;
}

static skim_status gather(const skim_world *world, const gather_setup *g, const float box_min[3],
                          const float box_max[3], skim_candidates *out)
{
    out->count = 0;
    skim_status status;
    if (world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh) {
        skim_bvh_walk walk;
        skim_bvh_walk_begin(&walk, world, box_min, box_max);
        if (g->swept)
            skim_bvh_walk_sweep(&walk, g->start_s, g->inverse_delta_s, g->reach_s);
        uint32_t refs[LEAF_BATCH];
        uint32_t leaves;
        while ((leaves = skim_bvh_walk_leaves(&walk, refs, LEAF_BATCH)) != 0) {
            /* One reservation per batch: at most 16 triangles a leaf. */
            status = skim_candidates_reserve(out, out->count + leaves * SKIM_BVH_MAX_LEAF +
                                                      SKIM_MAX_PACKET_WIDTH);
            if (status != SKIM_OK)
                return status;
            for (uint32_t k = 0; k < leaves; ++k)
                gather_run(world, g, skim_bvh_leaf_first(refs[k]), skim_bvh_leaf_count(refs[k]),
                           true, 1.0f + SKIM_PATH_T_SLACK, out);
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
        gather_run(world, g, 0, world->triangle_count, true, 1.0f + SKIM_PATH_T_SLACK, out);
    }
    status = skim_candidates_reserve(out, out->count);
    if (status != SKIM_OK)
        return status;
    skim_candidates_pad(out);
    return SKIM_OK;
}

skim_status skim_gather_candidates(const skim_world *world, const skim_ellipsoid_space *space,
                                   const float start[3], const float box_min[3],
                                   const float box_max[3], uint64_t material_mask,
                                   skim_candidates *out)
{
    gather_setup g;
    setup_box(&g, space, start, box_min, box_max, material_mask);
    return gather(world, &g, box_min, box_max, out);
}

void skim_path_gather_init(skim_path_gather *g, const skim_ellipsoid_space *space,
                           const float start[3], const float delta[3], uint64_t material_mask)
{
    float box_min[3], box_max[3];
    skim_sweep_box(start, delta, space->bounding_radius, box_min, box_max);
    setup_box(g, space, start, box_min, box_max, material_mask);
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
    }
}

void skim_path_gather_run(const skim_world *world, const skim_path_gather *g, uint32_t first,
                          uint32_t count, float t_limit, skim_candidates *out)
{
    gather_run(world, g, first, count, true, t_limit, out);
}

skim_status skim_gather_candidates_swept(const skim_world *world, const skim_ellipsoid_space *space,
                                         const float start[3], const float delta[3],
                                         uint64_t material_mask, skim_candidates *out)
{
    gather_setup g;
    skim_path_gather_init(&g, space, start, delta, material_mask);
    float box_min[3], box_max[3];
    skim_sweep_box(start, delta, space->bounding_radius, box_min, box_max);
    return gather(world, &g, box_min, box_max, out);
}
