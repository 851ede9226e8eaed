/* The move's one candidate gather (one traversal with the box
   that holds the whole move), the skin's precision floor, and the region
   the snap pass is kept in.

   The box. Slides shorten what is left in unit-sphere space, where they
   happen, and each slide's world length is clamped to what is left, so a
   unit-space path of length L moves the center at most L * (largest
   radius) in the world, in any direction. What a move may do, pass by pass
   (move.c, step_and_snap.c, contacts.c):
     - the move pass: |displacement| (unit space), any direction, and a
       sweep looks a skin past its end;
     - the step: straight up by at most step_height (world), the
       displacement again from there, straight down by what was climbed
       and two skins: at most step_height (and a skin) above the start,
       and otherwise within |displacement| and three skins of it;
     - the gravity pass: |gravity| (unit space), any direction, and a lift
       off a floor of at most a skin;
     - the snap, only when no floor was met (so never after a step, which
       keeps only a landing): straight down by snap_distance (world) and
       two skins, and slides along what it meets on the way (the sphere
       rolling off an edge), any direction;
     - push-outs: SKIM_MOVE_PUSH_PER_MOVE over the whole move
       (contacts.c), any direction.
   So the box is start +- (largest radius (|displacement| + |gravity| +
   push + 4 skins) + the radius itself), grown along up by
   max(step_height, snap_distance) and along -up by snap_distance. The
   one part no length bounds in one direction is the snap's sliding; the
   box does not pay for it sideways (it would take snap_distance on every
   side, nearly twice the volume for a walking crowd): the snap pass is kept
   in the region the box covers instead (skim_move_region_fraction): it
   ends where it would leave. When it would have left, landed nowhere, and
   the mover walked (a sphere rolling off a stair's nosing, going down,
   goes as far sideways as down), the move gathers once more with the box
   grown on every side by the snap's drop, stretched as its slides may be
   (skim_move_widen_for_snap), and snaps again, rolling on only the way
   it walks; a snap that still does not land is dropped. */
#include "move/move_internal.h"
#include "gather/gather_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kept walk's box is the gather box grown by this fraction of its
   extent on each side (see gather_walked). */
#ifndef SKIM_MOVE_WALK_SLACK
#define SKIM_MOVE_WALK_SLACK 0.25f
#endif
/* And, in a batch, grown further to hold this mover's box moved to each of
   the next SKIM_MOVE_WALK_LOOKAHEAD movers of the thread's run (their start
   positions are known), while the union stays within
   SKIM_MOVE_WALK_LOOKAHEAD_LIMIT of this box's extents on every axis. A
   sparse world's Morton neighbours are often farther apart than the
   slack, so without the lookahead most moves there walk the tree again.
   On dense levels the larger walk runs more leaves through the
   per-triangle test, which about cancels the walks it saves (measured
   with bench/move against SKIM_MOVE_WALK_LOOKAHEAD 0,
   docs/performance.md). */
#ifndef SKIM_MOVE_WALK_LOOKAHEAD
#define SKIM_MOVE_WALK_LOOKAHEAD 32
#endif
#ifndef SKIM_MOVE_WALK_LOOKAHEAD_LIMIT
#define SKIM_MOVE_WALK_LOOKAHEAD_LIMIT 3.0f
#endif

/* The largest |coordinate| of the gathered triangles (unit space, relative
   to the start): the magnitude the kernel's rounding grows with. Real lanes
   only (padding lanes are parked far away on purpose). It runs once per
   move over every gathered coordinate, so it compares bit patterns: for
   finite floats with the sign bit cleared the unsigned order is the
   numeric order, and an unsigned max reduction vectorises where a float
   one (NaN rules) does not. */
static float largest_coordinate(const skim_candidates *g)
{
    uint32_t largest = 0;
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis) {
            const float *restrict a = g->vertex[v][axis];
            for (uint32_t lane = 0; lane < g->count; ++lane) {
                uint32_t bits;
                memcpy(&bits, &a[lane], sizeof bits);
                bits &= 0x7fffffffu;
                largest = bits > largest ? bits : largest;
            }
        }
    float out;
    memcpy(&out, &largest, sizeof out);
    return out;
}

/* The box's terms that depend only on the shape, up, step_height and
   snap_distance, kept in the scratch while those stay (a crowd moves one
   shape with one def): the same double operations as before they were
   kept, so the same box to the bit. */
static void box_terms(const skim_move_ctx *ctx)
{
    skim_move_scratch *scratch = ctx->scratch;
    const skim_move_def *def = ctx->def;
    if (scratch->box_valid && memcmp(&scratch->box_step, &def->step_height, sizeof(float)) == 0 &&
        memcmp(&scratch->box_snap, &def->snap_distance, sizeof(float)) == 0)
        return;
    const double radius = ctx->space->bounding_radius;
    const double snap = (double)def->snap_distance, step = (double)def->step_height;
    const double rise = step > snap ? step : snap;
    for (int axis = 0; axis < 3; ++axis) {
        /* (no libm fmax: a call per use) */
        const double up = (double)ctx->up[axis];
        scratch->box_above[axis] = up > 0.0 ? rise * up : -snap * up;
        scratch->box_below[axis] = up > 0.0 ? snap * up : -rise * up;
    }
    scratch->box_radius = radius;
    scratch->box_margin = radius * 1.001;
    scratch->box_vertical_unit = (2.0 * step + snap) * sqrt((double)mv_dot(ctx->up_unit, ctx->up_unit));
    scratch->box_step = def->step_height;
    scratch->box_snap = def->snap_distance;
    scratch->box_valid = true;
}

/* Walks the BVH for the box [lo, hi] and keeps its leaves in the scratch. */
static skim_status walk(skim_move_scratch *scratch, const skim_world *world, const float lo[3],
                        const float hi[3])
{
    scratch->walk_valid = false;
    scratch->walk_count = 0;
    scratch->walk_triangles = 0;
    skim_bvh_walk w;
    skim_bvh_walk_begin(&w, world->bvh, world->bounds_min, world->bounds_max, lo, hi);
    for (;;) {
        if (scratch->walk_capacity - scratch->walk_count < 64) {
            /* Grown, never shrunk: no allocation once a crowd's walks fit. */
            uint32_t capacity = scratch->walk_capacity ? 2 * scratch->walk_capacity : 256;
            uint32_t *grown = realloc(scratch->walk_leaves, capacity * sizeof *grown);
            if (!grown)
                return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_move: no memory for a walk");
            scratch->walk_leaves = grown;
            scratch->walk_capacity = capacity;
        }
        uint32_t *refs = scratch->walk_leaves + scratch->walk_count;
        uint32_t leaves = skim_bvh_walk_leaves(&w, refs, 64);
        if (!leaves)
            break;
        for (uint32_t k = 0; k < leaves; ++k)
            scratch->walk_triangles += skim_bvh_leaf_count(refs[k]);
        scratch->walk_count += leaves;
    }
    /* Packed only when other movers may reuse it: for one move, copying
       the triangles costs more than the leaf gather it saves. */
    scratch->walk_packed = false;
    if (scratch->walk_reuse) {
        skim_status status = skim_walk_pack_build(&scratch->walk_pack, world, scratch->walk_leaves,
                                                  scratch->walk_count, scratch->walk_triangles);
        if (status != SKIM_OK)
            return status;
        scratch->walk_packed = true;
    }
    scratch->walk_world = world;
    memcpy(scratch->walk_min, lo, sizeof scratch->walk_min);
    memcpy(scratch->walk_max, hi, sizeof scratch->walk_max);
    scratch->walk_valid = true;
    return SKIM_OK;
}

/* Grows the walk box [lo, hi] to also hold this mover's box [box_min,
   box_max] (around start) moved to each of the batch's next movers, in
   order, while the union stays within SKIM_MOVE_WALK_LOOKAHEAD_LIMIT of
   the box's extents on every axis (see SKIM_MOVE_WALK_LOOKAHEAD). Any box
   that holds this mover's gives the same buffer: only which later movers
   can reuse the walk changes. */
static void cover_next_movers(const skim_move_scratch *scratch, const float start[3],
                              const float box_min[3], const float box_max[3], float lo[3],
                              float hi[3])
{
    int64_t end = scratch->ahead_at + SKIM_MOVE_WALK_LOOKAHEAD;
    if (end > scratch->ahead_end)
        end = scratch->ahead_end;
    for (int64_t k = scratch->ahead_at; k < end; ++k) {
        const float *p = &scratch->ahead_positions[scratch->ahead_order[k]].x;
        float next_lo[3], next_hi[3];
        for (int axis = 0; axis < 3; ++axis) {
            const float offset = p[axis] - start[axis];
            next_lo[axis] = mv_min(lo[axis], box_min[axis] + offset);
            next_hi[axis] = mv_max(hi[axis], box_max[axis] + offset);
            if (!(next_hi[axis] - next_lo[axis] <=
                  SKIM_MOVE_WALK_LOOKAHEAD_LIMIT * (box_max[axis] - box_min[axis])))
                return;
        }
        memcpy(lo, next_lo, sizeof next_lo);
        memcpy(hi, next_hi, sizeof next_hi);
    }
}

/* skim_gather_candidates for a BVH world, with the tree walked less often.
   Movers follow each other in Morton order (move_order.c), so the next
   mover's box usually lies inside the last one's grown by a slack: the
   leaves of one walk for the grown box serve every mover whose box fits,
   and each mover keeps, leaf by leaf, exactly the triangles the plain
   gather keeps (the same per-triangle box and material test and the same
   transform, skim_gather_run on a box setup). The lanes come out in
   the same order too: the walk (bvh_traverse.c) emits the leaves of a
   node in slot order when it pops the node and takes its inner children
   depth first in slot order, an order on the leaves that does not depend
   on the query; a larger box only adds leaves, which add no triangle that
   fails the mover's own box test. So the buffer is bit for bit the plain
   gather's. In a crowd most moves reuse a walk. */
static skim_status gather_walked(const skim_move_ctx *ctx, const skim_world *world,
                                 const float start[3], const float box_min[3],
                                 const float box_max[3])
{
    skim_move_scratch *scratch = ctx->scratch;
    /* The mover's own kept leaves (move_cache.c), when the batch has a
       cache and they fit in its entry; else the thread's kept walk. */
    const skim_move_cache_entry *kept = NULL;
    if (scratch->cache_entry) {
        bool walked = false;
        if (skim_move_cache_leaves(scratch->cache_entry, world, box_min, box_max, ctx->walk,
                                   &walked))
            kept = scratch->cache_entry;
        scratch->cache_gathers++;
        scratch->cache_walks += walked;
    }
    bool inside = kept || (scratch->walk_reuse && scratch->walk_valid && scratch->walk_world == world);
    for (int axis = 0; axis < 3 && inside && !kept; ++axis)
        inside = box_min[axis] >= scratch->walk_min[axis] &&
                 box_max[axis] <= scratch->walk_max[axis];
    if (!inside) {
        float lo[3], hi[3];
        for (int axis = 0; axis < 3; ++axis) {
            const float grow = SKIM_MOVE_WALK_SLACK * (box_max[axis] - box_min[axis]);
            lo[axis] = box_min[axis] - grow;
            hi[axis] = box_max[axis] + grow;
        }
        if (scratch->walk_reuse && scratch->ahead_order)
            cover_next_movers(scratch, start, box_min, box_max, lo, hi);
        skim_status status = walk(scratch, world, lo, hi);
        if (status != SKIM_OK)
            return status;
    }
    /* gather.c's box setup; the transform's part (nine broadcasts) only
       when the shape's to_unit changes, bitwise, which in a crowd of one
       shape is never after the first move. */
    const skim_ellipsoid_space *space = ctx->space;
    skim_path_gather *g = &scratch->setup;
    if (!scratch->setup_valid ||
        memcmp(scratch->setup_to_unit, space->to_unit, sizeof scratch->setup_to_unit) != 0) {
        skim_path_gather_shape(g, space);
        memcpy(scratch->setup_to_unit, space->to_unit, sizeof scratch->setup_to_unit);
        scratch->setup_valid = true;
    }
    skim_path_gather_place(g, world, space, start, box_min, box_max, ctx->def->query.material_mask);

    skim_candidates *out = &scratch->gathered;
    out->count = 0;
    const uint32_t triangles = kept ? kept->triangles : scratch->walk_triangles;
    skim_status status = skim_candidates_reserve(out, triangles + SKIM_MAX_PACKET_WIDTH);
    if (status != SKIM_OK)
        return status;
    /* From the packed walk (move_walk_pack.c), unless far triangles are
       possible: those are clipped by the leaf gather. A mover's own few
       leaves go leaf by leaf. */
    const uint32_t *leaves = kept ? kept->leaf : scratch->walk_leaves;
    const bool packed = !kept && scratch->walk_packed && !g->far_possible;
    /* A mover's kept leaves two steps at a time on eight lanes
       (move_kept_gather.c), unless far triangles are possible. */
    bool paired = false;
#if defined(SKIM_MOVE_HAVE_AVX2_PACK)
    paired = kept && !g->far_possible && !g->swept && ctx->kernels && ctx->kernels->width >= 8;
    if (paired)
        skim_move_kept_gather_avx2(kept, world, g, out);
#endif
    const uint32_t leaf_count = packed || paired ? 0 : kept ? kept->count : scratch->walk_count;
    if (packed)
        skim_walk_pack_gather(&scratch->walk_pack, g, ctx->kernels->width >= 8, out);
    for (uint32_t k = 0; k < leaf_count; ++k) {
        const uint32_t first = skim_bvh_leaf_first(leaves[k]), count = skim_bvh_leaf_count(leaves[k]);
        /* Room for this leaf and a packet's overrun, checked per leaf: a
           far triangle's pieces (gather_clip.h) can outgrow the walk's
           triangle count. */
        if (out->count + count + SKIM_MAX_PACKET_WIDTH > out->capacity) {
            status = skim_candidates_reserve(out, out->count + triangles + SKIM_MAX_PACKET_WIDTH);
            if (status != SKIM_OK)
                return status;
        }
        status = skim_gather_run_inlined(world, g, first, count, true, 1.0f + SKIM_PATH_T_SLACK,
                                         out);
        if (status != SKIM_OK)
            return status;
    }
    /* pad writes whole packets past count. */
    if (out->count + SKIM_MAX_PACKET_WIDTH > out->capacity) {
        status = skim_candidates_reserve(out, out->count + SKIM_MAX_PACKET_WIDTH);
        if (status != SKIM_OK)
            return status;
    }
    skim_candidates_pad_whole(out);
    return SKIM_OK;
}

/* The bodies' triangles after the static ones, in the same space
   (src/gather/body_gather.c); out of line, so a world without bodies pays
   one test. */
__attribute__((noinline)) static skim_status gather_bodies(skim_move_ctx *ctx, const skim_world *world,
                                                           const float start[3], const float box_min[3],
                                                           const float box_max[3])
{
    return skim_body_gather(world, ctx->space, start, box_min, box_max,
                            ctx->def->query.material_mask, &ctx->scratch->gathered,
                            &ctx->scratch->body_lanes);
}

/* The gather with the box above for a given skin (unit space); the region
   the center may reach with everything it may touch gathered: the box less
   the radius and a sweep's look past its end. */
static skim_status gather(skim_move_ctx *ctx, const skim_world *world, const float start[3],
                          double unit_path, float skin)
{
    const skim_move_scratch *scratch = ctx->scratch;
    const double radius = scratch->box_radius;
    const double reach = radius * (unit_path + (double)SKIM_MOVE_PUSH_PER_MOVE + 4.0 * (double)skin);
    const double skin_radius = (double)skin * radius;
    float box_min[3], box_max[3];
    for (int axis = 0; axis < 3; ++axis) {
        double above = reach + scratch->box_above[axis];
        double below = reach + scratch->box_below[axis];
        ctx->region_max[axis] = (float)(above - skin_radius);
        ctx->region_min[axis] = (float)-(below - skin_radius);
        above += scratch->box_margin;
        below += scratch->box_margin;
        above += 1e-4 * (fabs((double)start[axis]) + above) + 1e-3 * reach;
        below += 1e-4 * (fabs((double)start[axis]) + below) + 1e-3 * reach;
        box_min[axis] = (float)(start[axis] - below);
        box_max[axis] = (float)(start[axis] + above);
        ctx->box_min[axis] = box_min[axis];
        ctx->box_max[axis] = box_max[axis];
    }
    skim_status status =
        world->accelerator == SKIM_ACCELERATOR_BVH && world->bvh
            ? gather_walked(ctx, world, start, box_min, box_max)
            : skim_gather_candidates(world, ctx->space, start, box_min, box_max,
                                     ctx->def->query.material_mask, &ctx->scratch->gathered);
    if (world->bodies.count && status == SKIM_OK)
        status = gather_bodies(ctx, world, start, box_min, box_max);
    return status;
}

skim_status skim_move_gather(skim_move_ctx *ctx, const skim_world *world, const float start[3],
                             double unit_path)
{
    box_terms(ctx);
    if (world->bodies.count)
        ctx->scratch->body_lanes.count = 0;
    skim_status status = gather(ctx, world, start, unit_path, ctx->skin);
    if (status != SKIM_OK)
        return status;

    /* The skin is also what keeps rounding from putting the mover inside a
       surface: a contact the kernel places a little too far lets the stop
       "a skin short" end inside, and a start the kernel calls touching is
       met by the push-out and exclusion path, where a skin of 0 left no
       margin at all (findings a_zero_skin_keeps_a_touching_mover_out_of_the_wall and
       a_small_skin_keeps_an_elongated_mover_out_of_a_touched_triangle). The
       kernel's distance error (README, Accuracy) grows as u L with u =
       2^-24 and L the unit-space magnitude it works at: the path, and the
       gathered triangles' coordinates (the view re-bases them by the
       mover's position, adding at most the path). So the skin used is at
       least 64 u L + 1e-5 radii, the kernels' stated EPS less its
       grazing-path term (which would make long moves' skins grow with the
       path squared; a grazing contact's error is along the motion, not
       into the surface), and at most the 0.25 the def allows. With the
       default skin (0.01) this only matters past L ~ 2600 radii. */
    const double vertical_unit = ctx->scratch->box_vertical_unit;
    double magnitude = unit_path + vertical_unit > 1.0 ? unit_path + vertical_unit : 1.0;
    /* The world's bounds give a free upper bound on the gathered
       coordinates (|M^-1 v| <= |v| / smallest radius); only when that
       bound could raise the skin is the gathered buffer scanned, so the
       default skin never pays for the scan. */
    const float *lo = &world->bounds_min.x, *hi = &world->bounds_max.x;
    skim_vec3 all_min, all_max;
    if (world->bodies.count) { /* the bodies' box too, where they stand */
        skim_world_all_bounds(world, &all_min, &all_max);
        lo = &all_min.x;
        hi = &all_max.x;
    }
    double far[3], far_sum = 0.0;
    for (int axis = 0; axis < 3; ++axis) {
        const double above = fabs((double)hi[axis] - start[axis]),
                     below = fabs((double)lo[axis] - start[axis]);
        far[axis] = above > below ? above : below;
        far_sum += far[axis];
    }
    const double roundoff = 64.0 * 0x1p-24;
    const double smallest_radius = (double)ctx->space->smallest_radius;
    /* First with the sum of the distances, which is at least their root
       sum of squares (with a relative 1e-9 for its rounding): when even
       that bound cannot raise the skin (the default skin on any level
       under ~40,000 units), neither can the finer one, nor the scan, and
       the skin stays as it is. */
    const double coarse_bound = far_sum * (1.0 + 1e-9) / smallest_radius;
    if (roundoff * (magnitude > coarse_bound ? magnitude : coarse_bound) + 1e-5 <=
        (double)ctx->skin)
        return SKIM_OK;
    double coordinate_bound =
        sqrt(far[0] * far[0] + far[1] * far[1] + far[2] * far[2]) / smallest_radius;
    if (roundoff * fmax(magnitude, coordinate_bound) + 1e-5 > (double)ctx->skin)
        magnitude = fmax(magnitude, fmin(coordinate_bound,
                                         (double)largest_coordinate(&ctx->scratch->gathered)));
    float skin_floor = (float)fmin(0.25, roundoff * magnitude + 1e-5);
    if (skin_floor > ctx->skin) {
        /* The box allowed for 4 skins of def->skin_width; its 1.001 *
           radius margin absorbs a few 1e-4 radii more, a bigger floor (a
           skin of 0 far from the origin, huge triangles) gathers again for
           the larger skin. */
        bool regather = skin_floor > ctx->skin + 1e-4f;
        ctx->skin = skin_floor;
        if (regather)
            return gather(ctx, world, start, unit_path, ctx->skin);
    }
    return SKIM_OK;
}

skim_status skim_move_widen_for_snap(skim_move_ctx *ctx, double drop_length)
{
    ctx->widened = true;
    return gather(ctx, ctx->world, ctx->start, ctx->unit_path + drop_length, ctx->skin);
}

float skim_move_region_fraction(const skim_move_ctx *ctx, const float pos[3],
                                const float motion[3])
{
    /* World offsets from the start: M pos + f M motion, per axis linear. */
    float at[3], along[3];
    mv_mat3(ctx->space->to_world, pos, at);
    mv_mat3(ctx->space->to_world, motion, along);
    float fraction = 1.0f;
    for (int axis = 0; axis < 3; ++axis) {
        if (along[axis] > 0.0f)
            fraction = mv_min(fraction, (ctx->region_max[axis] - at[axis]) / along[axis]);
        else if (along[axis] < 0.0f)
            fraction = mv_min(fraction, (ctx->region_min[axis] - at[axis]) / along[axis]);
    }
    return fraction > 0.0f ? fraction : 0.0f;
}
