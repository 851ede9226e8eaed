/* One collide-and-slide pass (Nettle, Generic Collision Detection for Games
   Using Ellipsoids, "Sliding", made iterative): sweep what is left of the
   pass's displacement, stop a skin short of the first contact, slide along
   every plane met so far (slide_planes.c), at most max_iterations sweeps.
   The move (move.c) runs it for the move itself, the step attempt, the
   gravity pass and the snap. */
#include "move/move_contacts.h"

#include <math.h>
#include <string.h>

static float friction_of(const skim_move_ctx *ctx, uint32_t triangle)
{
    if (!ctx->friction)
        return 0.0f;
    uint32_t lane = skim_move_find_lane(ctx, triangle);
    if (lane == UINT32_MAX)
        return 0.0f;
    uint16_t material = ctx->scratch->gathered.material[lane];
    return material < ctx->friction_count ? ctx->friction[material] : 0.0f;
}

/* Whether the rest of the step's raised move (step_and_snap.c) could still
   end farther along the intent than ctx->goal->beat. From here the pass
   moves the center by at most |remaining| in the world: each sweep goes at
   most what is left, each slide is a projection clamped to the world
   length of what is left (skim_move_pass), friction only shortens it. And
   while the planes met so far hold, every slide lies in their cone (the
   clip, and the restore step keeps out of every plane). The farthest a
   path of length L in a convex cone K gets along a unit direction u is
   L |P_K(u)|: max of d . u over the unit ball of K is the length of u's
   projection onto K (Moreau's decomposition u = P_K(u) + P_K°(u), the
   two parts orthogonal). Against one wall met at an angle that is exactly
   what the plain move made by sliding along it, so a raised move that
   meets the same wall is known to fail after its first sweep, not after
   two or three more and a descent (86% of the step attempts of the bench's
   crowd on oa_dm1, one sweep saved in each).

   Not counted: a push-out (the rounding of a touching start, at most
   SKIM_MOVE_PUSH_PER_MOVE) and a plane the pass retires later (the mover
   left it by two skins and comes back past its triangle's edge). Either
   could in principle have let an abandoned step win; over the bench
   crowds (10,000 movers x 300 frames on default, oa_dm1 and oa_dm4_hull)
   none did, and the state hashes are unchanged. */
static bool goal_reachable(const skim_move_ctx *ctx, const skim_move_planes *planes,
                           const float pos[3], const float remaining[3])
{
    const skim_ellipsoid_space *space = ctx->space;
    float left[3];
    mv_mat3(space->to_world, remaining, left);
    /* The cone in the world: d_unit . n >= 0 <=> d_world . (M^-T n) >= 0.
       A plane whose normal does not normalise is left out: a larger cone
       only makes the bound larger. */
    skim_move_planes world;
    world.count = 0;
    for (int i = 0; i < planes->count; ++i) {
        float *normal = world.plane[world.count].normal;
        mv_mat3(space->normal_to_world, planes->plane[i].normal, normal);
        if (skim_move_normalize(normal))
            world.count++;
    }
    float along[3];
    skim_move_planes_clip(&world, ctx->goal->intent, along);
    const float left_length = sqrtf(mv_dot(left, left));
    const float reach =
        skim_move_progress(ctx, pos, ctx->goal->intent) + left_length * sqrtf(mv_dot(along, along));
    /* The rounding of the positions, the norms and the clip, with room. */
    const float rounding =
        1e-4f * (space->bounding_radius * (sqrtf(mv_dot(pos, pos)) + 1.0f) + left_length);
    return reach + rounding > ctx->goal->beat;
}

void skim_move_pass(skim_move_ctx *ctx, float pos[3], const float delta[3],
                    skim_move_pass_kind kind, int max_iterations, skim_move_pass_result *result)
{
    memset(result, 0, sizeof *result);
    ctx->pass = kind;
    ctx->pass_max_iterations = max_iterations;
    if (ctx->excluded_count) /* (most passes exclude nothing: no call) */
        skim_move_clear_exclusions(ctx);
    skim_move_planes planes;
    planes.count = 0;
    float remaining[3], original[3];
    mv_copy(remaining, delta);
    mv_copy(original, delta);
    /* Nettle's "Do we need to bother?" EPSILON, in radii. */
    const float negligible_sq = 1e-12f;
    /* An ellipsoid slides in the world's metric (skim_move_planes_clip_world). */
    const bool is_sphere = ctx->space->smallest_radius == ctx->space->bounding_radius;
    float original_world[3];
    mv_mat3(ctx->space->to_world, original, original_world);

    while (result->iterations < max_iterations && ctx->status == SKIM_OK) {
        /* The snap's slides may go sideways farther than the gather box
           allows for (move_gather.c): it is kept inside, and ends where it
           would leave. */
        bool at_edge = false;
        if (kind == SKIM_PASS_SNAP) {
            float fraction = skim_move_region_fraction(ctx, pos, remaining);
            if (fraction < 1.0f) {
                mv_scale(remaining, remaining, fraction);
                at_edge = true;
                result->cut_at_region = true;
            }
        }
        if (mv_dot(remaining, remaining) < negligible_sq)
            break;
        /* The step's raised move, once a contact has given it planes. */
        if (ctx->goal && result->iterations > 0 &&
            !goal_reachable(ctx, &planes, pos, remaining)) {
            result->abandoned = true;
            break;
        }
        /* Sweep one skin past the end: a move that would end closer than
           the skin to a surface stops at the skin too, so a mover at rest
           always sits one skin off the floor however it got there. */
        float length = sqrtf(mv_dot(remaining, remaining));
        float reach = (length + ctx->skin) / length;
        float sweep[3];
        mv_scale(sweep, remaining, reach);
        skim_unit_hit best;
        skim_move_sweep(ctx, pos, sweep, &best);
        result->iterations++;
        if (!best.hit) {
            mv_add_scaled(pos, pos, remaining, 1.0f);
            break;
        }
        result->blocked = true;
        /* The contact point relative to the move's start. */
        float contact[3];
        mv_add_scaled(contact, pos, best.point, 1.0f);
        uint32_t opposing;
        float want[3];
        float friction = 0.0f;
        /* Closer than the skin to the sliding plane when the sweep began:
           the slide also steps back out to the skin (Box2D's mover solves
           its planes to a separation of linear slop the same way). */
        float restore = 0.0f;
        if (best.t <= 0.0f) {
            /* Touching at the start (Nettle's embedded plane): push out,
               keep the contacts as planes, sweep again without them. */
            int before = ctx->excluded_count;
            opposing = skim_move_resolve_contacts(ctx, pos, remaining, &planes, result);
            if (ctx->excluded_count == before) {
                /* The kernel saw a touch the scan did not (rounding at the
                   boundary): exclude that triangle, constrained by its
                   reported normal. */
                uint32_t lane = skim_move_find_lane(ctx, best.triangle);
                float world_normal[3];
                uint32_t k = skim_move_classify(ctx, best.normal, world_normal);
                skim_move_note_touch(&result->touch, k, world_normal, best.triangle);
                skim_move_log_contact(ctx, k, world_normal, best.triangle, contact);
                if (lane != UINT32_MAX)
                    skim_move_exclude(ctx, lane);
                skim_move_add_contact(ctx, &planes, best.normal, mv_dot(best.normal, contact),
                                      lane, k, world_normal);
                opposing = mv_dot(best.normal, remaining) < 0.0f ? k : 0;
            }
            friction = friction_of(ctx, best.triangle);
            mv_copy(want, remaining);
        } else {
            float world_normal[3];
            uint32_t k = skim_move_classify(ctx, best.normal, world_normal);
            skim_move_note_touch(&result->touch, k, world_normal, best.triangle);
            skim_move_log_contact(ctx, k, world_normal, best.triangle, contact);
            opposing = k;
            /* Move to the contact less a skin measured along the contact
               normal (Nettle backs off EPSILON along the motion, which
               leaves almost no gap at a grazing angle): the gap to the
               sliding plane is then exactly the skin, or whatever smaller
               gap the pass started with. */
            float into = -mv_dot(best.normal, remaining);
            float contact_t = best.t * reach; /* in fractions of remaining */
            float t_stop = into > 0.0f ? mv_max(0.0f, contact_t - ctx->skin / into) : 0.0f;
            t_stop = mv_min(t_stop, 1.0f);
            /* A hair's move (rounding of a contact met exactly at the skin)
               is not worth re-basing the candidates for. */
            if (t_stop * length < 1e-3f * ctx->skin)
                t_stop = 0.0f;
            float gap = into * contact_t;
            if (t_stop == 0.0f && gap < 0.5f * ctx->skin)
                restore = ctx->skin - mv_max(gap, 0.0f);
            if (t_stop >= 1.0f)
                opposing &= ~(uint32_t)SKIM_TOUCH_WALL; /* met within the skin: nothing lost */
            float offset = mv_dot(best.normal, contact);
            mv_add_scaled(pos, pos, remaining, t_stop);
            mv_scale(want, remaining, 1.0f - t_stop);
            skim_move_add_contact(ctx, &planes, best.normal, offset, UINT32_MAX, k,
                                  world_normal);
            friction = friction_of(ctx, best.triangle);
        }

        if (opposing & SKIM_TOUCH_FLOOR) {
            if (kind != SKIM_PASS_MOVE) {
                /* Gravity and snapping stop on a walkable floor: standing on
                   a slope within the limit does not slide down it. */
                result->landed = true;
                mv_copy(result->landed_point, contact);
                if (restore > 0.0f && result->iterations < max_iterations) {
                    float lift[3];
                    mv_scale(lift, best.normal, restore);
                    skim_unit_hit again;
                    skim_move_sweep(ctx, pos, lift, &again);
                    result->iterations++;
                    float t = 1.0f;
                    if (again.hit) {
                        float away = -mv_dot(again.normal, lift);
                        t = away > 0.0f ? mv_max(0.0f, again.t - ctx->skin / away) : 0.0f;
                    }
                    mv_add_scaled(pos, pos, lift, t);
                }
                break;
            }
            /* Moving: the part of what is left that goes down into a floor
               is spent (it was gravity or a fall); the rest walks on. */
            float down = mv_dot(want, ctx->up_grad);
            if (down < 0.0f)
                mv_add_scaled(want, want, ctx->up_unit, -down);
        }
        if (kind == SKIM_PASS_STRAIGHT && opposing) {
            /* Coming down from a step onto the stair's nosing: the contact
               is the top edge, whose normal may still be steep for a tall
               ellipsoid one frame past the riser; standing on the edge of
               a walkable face is landing on that face (Jolt's stair walk
               tests the face ahead the same way). */
            float face[3];
            uint32_t tread = UINT32_MAX;
            if (!(opposing & SKIM_TOUCH_FLOOR) && mv_dot(remaining, ctx->up_grad) < 0.0f &&
                best.t > 0.0f && skim_move_walkable_at(ctx, contact, best.triangle, face, &tread)) {
                skim_move_note_touch(&result->touch, SKIM_TOUCH_FLOOR, face, tread);
                skim_move_log_contact(ctx, SKIM_TOUCH_FLOOR, face, tread, contact);
                result->landed = true;
                mv_copy(result->landed_point, contact);
            }
            break;
        }
        if (opposing & SKIM_TOUCH_WALL)
            result->blocked_by_wall = true;

        if (skim_move_planes_retire(&planes, pos, 2.0f * ctx->skin))
            skim_move_sync_exclusions(ctx, &planes);
        float slide[3];
        if (is_sphere)
            skim_move_planes_clip(&planes, want, slide);
        else
            skim_move_planes_clip_world(&planes, ctx->space, want, slide);
        if (restore > 0.0f && mv_dot(slide, slide) > 0.0f) {
            float restored[3];
            mv_add_scaled(restored, slide, best.normal, restore);
            bool keeps_out = true; /* of every plane, the excluded ones above all */
            for (int i = 0; i < planes.count; ++i)
                keeps_out = keeps_out && mv_dot(restored, planes.plane[i].normal) >= 0.0f;
            if (keeps_out)
                mv_copy(slide, restored);
        }
        /* The slide is a projection in unit-sphere space (Nettle): it never
           lengthens what is left THERE, but the map back to the world
           stretches directions unequally (up to r_max / r_min), so for an
           elongated ellipsoid on a slanted wall the slid vector can be
           longer in the world than what was left to move (a 0.25 x 0.25 x
           4 shape asked for 40 units went 55.7): a speed exploit. Clamp its
           world length to what is left. Scaling keeps the slide inside the
           cone of the pass's planes (v . n >= 0 is scale-invariant), so the
           excluded contacts stay hard constraints exactly as the clip made
           them; projecting in the world metric instead would need the
           constraints re-solved after mapping back (rounding of order
           u * r_max / r_min), and would change every ellipsoid's slide
           direction, where the clamp only changes slides that lengthened.
           For a sphere (uniform stretch) it only ever trims the restore
           step above. So a pass never travels farther than asked, and the
           gather box's unit-space reach still holds. */
        float asked_world[3], slid_world[3];
        mv_mat3(ctx->space->to_world, want, asked_world);
        mv_mat3(ctx->space->to_world, slide, slid_world);
        float asked_sq = mv_dot(asked_world, asked_world);
        float slid_sq = mv_dot(slid_world, slid_world);
        if (slid_sq > asked_sq) {
            const float shorten = sqrtf(asked_sq / slid_sq);
            mv_scale(slide, slide, shorten);
            mv_scale(slid_world, slid_world, shorten);
        }
        /* The snap rolling off an edge: it slides only to get down, and
           the projection spends its length (a quarter-circle roll off a
           step as tall as the radius needs more than the drop's length
           along the slides). Keep the drop's descent: stretch the slide
           until it goes down by what is left to go down, its world length
           at most snap_stretch times what was left (move_gather.c widens
           the box for that). */
        if (kind == SKIM_PASS_SNAP) {
            const float left_down = -mv_dot(asked_world, ctx->up);
            const float slid_down = -mv_dot(slid_world, ctx->up);
            if (slid_down > 0.0f && left_down > slid_down) {
                const float now_sq = mv_max(mv_dot(slid_world, slid_world), 1e-30f);
                const float most = ctx->snap_stretch * sqrtf(asked_sq / now_sq);
                const float stretch = mv_min(left_down / slid_down, most);
                if (stretch > 1.0f) {
                    mv_scale(slide, slide, stretch);
                    mv_scale(slid_world, slid_world, stretch);
                }
            }
        }
        /* The widened snap (step_and_snap.c) rolls on only the way the
           mover walks. */
        if (kind == SKIM_PASS_SNAP && ctx->widened && !(mv_dot(slid_world, ctx->walk) > 0.0f))
            break;
        /* PM_SlideMove: "if velocity is against the original velocity, stop
           dead to avoid tiny oscillations in sloping corners". In the world:
           unit space's dot product is the world's only for a sphere. */
        if (is_sphere ? mv_dot(slide, original) <= 0.0f
                      : mv_dot(slid_world, original_world) <= 0.0f)
            break;
        /* Nettle's friction note: shorten the slide by the surface's
           friction. */
        if (kind != SKIM_PASS_STRAIGHT && kind != SKIM_PASS_SNAP && friction > 0.0f)
            mv_scale(slide, slide, 1.0f - friction);
        mv_copy(remaining, slide);
        if (at_edge)
            break;
    }
    if (ctx->excluded_count)
        skim_move_clear_exclusions(ctx);
}
