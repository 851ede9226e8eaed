/* Stairs up and down.

   Up: Nettle's sphere rolls up a step lower than about half its height
   ("Our goal": it climbs "in a way that a ball naturally would"), and only
   as far as the contact normal stays walkable; a controller must also take
   steps a game calls stairs (Quake: 18 units for a 16-radius player). This
   is Quake's PM_StepSlideMove: when the plain move was blocked by a wall,
   try the same move from up to step_height higher, then come down by as
   much as was climbed; keep that path only if it landed on a walkable floor
   and went farther along the horizontal intent than the plain move (the
   Quake 1/2 comparison; Quake 3 keeps it always). The collision chapter
   (the collision chapter, "Gravity and sliding up stairs") does the same job with a
   scoot-up acceleration; an instant step is what servers ship.

   Down: walking off a step or down a slope leaves the mover in the air for
   a frame or more, and gravity brings it down in hops ("bouncing down
   stairs", the chapter's "instantly drop to the lower level"). Snapping
   sweeps down by snap_distance when nothing held the mover up and the move
   was not going up (no state is kept between moves, so "not going up" is
   what tells walking from jumping), and keeps the result only if it lands on
   a walkable floor. On a steep edge the snap slides around it (the sphere
   rolls off the edge onto the step below, the chapter's smooth descent),
   keeping its descent (move.c stretches its slides) and, past the move's
   gather box, with a second gather (skim_move_snap).
   Two skins are always added: a ground probe that keeps the floor flag
   steady for a mover walking at its skin above the floor. */
#include "move/move_contacts.h"

#include <math.h>

/* World distance moved along the horizontal intent (unit-space pos). */
float skim_move_progress(const skim_move_ctx *ctx, const float pos[3], const float direction[3])
{
    float world[3];
    mv_mat3(ctx->space->to_world, pos, world);
    return mv_dot(world, direction);
}

/* The most the descent (a straight pass along -up after the raised
   forward move) can add to the progress along the intent, when its first
   sweep does not start touching. It is pure vertical in the world, so no
   progress, and it ends after that sweep: either nothing is met, or the
   first contact stops it (step_and_snap's straight passes never slide past
   an opposing contact, and a contact met within the skin leaves nothing to
   slide with). What it can add is the lift off a floor met within half a
   skin (skim_move_pass's "restore"): at most a skin along the floor's
   unit-space normal, whose world length is at most skin * r_max and, for a
   sphere (M = r R), whose horizontal part is skin * r * sin(angle of the
   floor), the angle within the slope limit. */
static float descent_lift(const skim_move_ctx *ctx)
{
    const skim_ellipsoid_space *space = ctx->space;
    float lift = ctx->skin * space->bounding_radius;
    if (space->smallest_radius == space->bounding_radius) {
        const float c = ctx->cos_floor;
        lift *= sqrtf(1.0f - c * c) + 1e-3f;
    }
    return lift;
}

/* Whether coming down from p (after the raised forward move) can no
   longer end farther along intent than threshold, the plain move's
   progress plus the rounding allowance a step must beat. Then the step
   fails whatever the descent meets, and its sweep can be skipped with no
   change to any result. A touching start (rounding at a contact, a
   push-out) could move it sideways (descent_lift does not hold): then the
   descent runs. */
static bool descent_cannot_win(const skim_move_ctx *ctx, const float p[3],
                               const float descend[3], const float intent[3], float threshold)
{
    const float r_max = ctx->space->bounding_radius;
    /* Rounding of the positions and of skim_move_progress itself, with room. */
    const float rounding =
        1e-5f * r_max * (sqrtf(mv_dot(p, p)) + sqrtf(mv_dot(descend, descend)) + 1.0f);
    if (!(skim_move_progress(ctx, p, intent) + descent_lift(ctx) + rounding <= threshold))
        return false;
    return !skim_move_starts_touching(ctx, p, descend);
}

/* Whether a unit-space point relative to the start is within a step:
   no higher above the start's lowest point than step_height (and a skin),
   a step and not a ledge. The lowest point of the shape is its support
   along -up, |M^T up| below the center. */
static bool within_a_step(const skim_move_ctx *ctx, const float point[3])
{
    float world[3];
    mv_mat3(ctx->space->to_world, point, world);
    const float foot = sqrtf(mv_dot(ctx->up_grad, ctx->up_grad));
    return mv_dot(world, ctx->up) + foot <= ctx->def->step_height + ctx->skin * foot;
}

/* The contact normal (unit space) of the descent's landing at point,
   the descent having stopped at p: straight passes stop short along the
   motion (a skin off the contact plane), so the center at contact is
   p - s up_unit_dir for the least s >= 0 that puts it at distance 1 from
   the contact point (|rel - s u| = 1, rel = p - point), and the normal
   runs from the point to that center (the kernels' normal, Rouwé 3). Taking p - point instead would tilt it
   toward up by up to a skin: a nosing just past the slope limit would
   pass for a floor here and be a wall to the gravity pass. */
static bool landing_normal(const skim_move_ctx *ctx, const float p[3], const float point[3],
                           float normal[3])
{
    float rel[3];
    mv_add_scaled(rel, p, point, -1.0f);
    const float b = mv_dot(rel, ctx->up_unit_dir);
    const float c = mv_dot(rel, rel) - 1.0f;
    const float s = b - sqrtf(mv_max(0.0f, b * b - c));
    mv_add_scaled(normal, rel, ctx->up_unit_dir, -mv_max(0.0f, s));
    return skim_move_normalize(normal);
}

/* Jolt's CharacterVirtual::WalkStairs forward test (mWalkStairsStepForwardTest):
   the descent came down on a stair's nosing, the edge where the riser
   meets a walkable tread, with the center still out over the riser, so
   the contact normal is too steep to stand on. A slow walker gets there
   and no farther in one move (its raised move went a fraction of a
   radius), and gravity would roll it back off the edge every move.
   Whether there is a floor to stand on just ahead: from the raised
   position (raised, before the descent), move the center horizontally
   toward the nosing until the contact would be well within the slope
   limit, then come down by the same descend; the stair is real if that
   lands on a contact that is itself a floor, no higher than a step. The
   test only looks: the mover keeps the real move's result.

   How far: the contact's horizontal offset from the center (unit space,
   world-horizontal: v . up_grad = 0) down to half the slope limit's sine
   times r_min / r_max, where the contact normal of any shape is well
   inside the limit. Both sweeps are plain kernel calls (no push-out, no
   slide): a touching start or anything met on the way fails the test.
   What it sees is what the move gathered (move_gather.c): geometry past
   that box, less than a radius beyond the nosing, is not seen. */
static bool floor_ahead(skim_move_ctx *ctx, const float raised[3], const float nosing[3],
                        const float descend[3])
{
    const skim_ellipsoid_space *space = ctx->space;
    float g[3];
    mv_copy(g, ctx->up_grad);
    if (!skim_move_normalize(g))
        return false;
    float toward[3];
    mv_add_scaled(toward, nosing, raised, -1.0f);
    mv_add_scaled(toward, toward, g, -mv_dot(toward, g));
    const float offset = sqrtf(mv_dot(toward, toward));
    const float sine = sqrtf(mv_max(0.0f, 1.0f - ctx->cos_floor * ctx->cos_floor));
    const float keep = 0.5f * sine * space->smallest_radius / space->bounding_radius;
    if (!(offset > keep))
        return false;
    mv_scale(toward, toward, (offset - keep) / offset);
    skim_unit_hit hit;
    skim_move_sweep(ctx, raised, toward, &hit);
    if (hit.hit)
        return false;
    float at[3];
    mv_add_scaled(at, raised, toward, 1.0f);
    skim_move_sweep(ctx, at, descend, &hit);
    if (!hit.hit || !(hit.t > 0.0f))
        return false;
    float world_normal[3];
    if (skim_move_classify(ctx, hit.normal, world_normal) != SKIM_TOUCH_FLOOR)
        return false;
    float contact[3];
    mv_add_scaled(contact, at, hit.point, 1.0f);
    return within_a_step(ctx, contact);
}

void skim_move_try_step(skim_move_ctx *ctx, const float delta[3], float pos[3],
                        skim_move_touch *touch, int *iterations)
{
    const skim_move_def *def = ctx->def;
    /* The horizontal intent, world space. */
    float intent[3];
    mv_mat3(ctx->space->to_world, delta, intent);
    mv_add_scaled(intent, intent, ctx->up, -mv_dot(intent, ctx->up));
    if (!skim_move_normalize(intent))
        return;
    float plain = skim_move_progress(ctx, pos, intent);

    float p[3] = { 0.0f, 0.0f, 0.0f };
    skim_move_pass_result up, forward, down;
    float climb[3];
    mv_scale(climb, ctx->up_unit, def->step_height);
    /* Straight up from where it stands: away from its floor, along the
       wall that blocked it; it almost never meets anything, so the sweep
       is first proved clear without a call where it can be (sweep_clear.c). */
    ctx->prove_clear = true;
    skim_move_pass(ctx, p, climb, SKIM_PASS_STRAIGHT, def->max_iterations, &up);
    ctx->prove_clear = false;
    /* How far up it got (world units): a low ceiling cuts the step short. */
    float raised = mv_dot(p, ctx->up_grad);
    if (!(raised > 0.0f))
        return;
    /* Farther by more than rounding: a skin of the smallest radius. */
    const float threshold = plain + ctx->skin * ctx->space->smallest_radius;
    /* The raised move stops as soon as it cannot end beyond the threshold
       even with all the descent can add (move.c, goal_reachable): most
       attempts meet the same wall as the plain move did. */
    skim_move_step_goal goal = { .beat = threshold - descent_lift(ctx) };
    mv_copy(goal.intent, intent);
    ctx->goal = &goal;
    skim_move_pass(ctx, p, delta, SKIM_PASS_MOVE, def->max_iterations, &forward);
    ctx->goal = NULL;
    if (forward.abandoned)
        return;
    float descend[3];
    mv_scale(descend, ctx->up_unit, -raised);
    mv_add_scaled(descend, descend, ctx->up_unit_dir, -2.0f * ctx->skin);
    /* A stair walk held on a nosing (below) need only get farther than
       the plain move by more than the rounding of the positions: the
       nosing adds no lift, and a slow walker at a grazing angle gains
       less than a skin over sliding along the riser. */
    const float held_threshold =
        plain + 1e-5f * ctx->space->bounding_radius *
                    (sqrtf(mv_dot(p, p)) + sqrtf(mv_dot(descend, descend)) + 1.0f);
    if (descent_cannot_win(ctx, p, descend, intent,
                           mv_min(threshold, held_threshold + descent_lift(ctx))))
        return;
    float raised_at[3];
    mv_copy(raised_at, p);
    skim_move_pass(ctx, p, descend, SKIM_PASS_STRAIGHT, def->max_iterations, &down);
    if (!down.landed)
        return;
    /* What it stands on must be a step, not a ledge. */
    if (!within_a_step(ctx, down.landed_point))
        return;
    float stepped = skim_move_progress(ctx, p, intent);
    /* Landed on a nosing (move.c's straight pass takes the edge of a
       walkable face as landing) with the contact itself too steep to
       stand on (landing_normal). Then the stair walk's forward test
       decides (floor_ahead): with a floor just ahead, the step is kept,
       needing only to beat held_threshold, and holds the mover on the
       nosing for the rest of this move. Steps that land on a floor, and
       nosings with nothing to stand on ahead, are as before. (The raised
       move's early stop still abandons an attempt that cannot beat
       goal.beat, so a stair walk gaining less than that over the plain
       move and meeting a wall on the way up is not tried.) */
    bool held = false;
    float normal[3], world_normal[3];
    if (stepped > held_threshold && landing_normal(ctx, p, down.landed_point, normal) &&
        skim_move_classify(ctx, normal, world_normal) != SKIM_TOUCH_FLOOR)
        held = floor_ahead(ctx, raised_at, down.landed_point, descend);
    if (!held && !(stepped > threshold))
        return;
    ctx->step_held = held;
    skim_move_contacts_keep(ctx);
    mv_copy(pos, p);
    skim_move_touch path = up.touch;
    skim_move_merge_touch(&path, &forward.touch);
    skim_move_merge_touch(&path, &down.touch);
    *touch = path;
    *iterations = forward.iterations;
}

void skim_move_snap(skim_move_ctx *ctx, float pos[3], skim_move_touch *touch)
{
    float drop[3];
    mv_scale(drop, ctx->up_unit, -ctx->def->snap_distance);
    mv_add_scaled(drop, drop, ctx->up_unit_dir, -2.0f * ctx->skin);
    if (!(mv_dot(drop, drop) > 0.0f))
        return;
    float p[3];
    mv_copy(p, pos);
    skim_move_pass_result snapped;
    skim_move_pass(ctx, p, drop, SKIM_PASS_SNAP, ctx->def->max_iterations, &snapped);
    if (!snapped.landed && snapped.cut_at_region && !ctx->widened &&
        mv_dot(ctx->walk, ctx->walk) > 0.0f) {
        /* Rolling off an edge it walked over (a stair's nosing going down),
           it would have left the region the move's gather covers
           (move_gather.c): gather once more with room for every slide of
           the drop, and snap again, rolling on only the way it walks (a
           slow walker on a nosing going up is not rolled back off it). Rare
           (a snap that slides sideways farther than the move went), so the
           box does not pay for it on every move. */
        ctx->status = skim_move_widen_for_snap(
            ctx, (double)ctx->snap_stretch * sqrt((double)mv_dot(drop, drop)));
        if (ctx->status != SKIM_OK)
            return;
        mv_copy(p, pos);
        skim_move_contacts_restart(ctx);
        skim_move_pass(ctx, p, drop, SKIM_PASS_SNAP, ctx->def->max_iterations, &snapped);
    }
    if (!snapped.landed)
        return;
    skim_move_contacts_keep(ctx);
    mv_copy(pos, p);
    skim_move_merge_touch(touch, &snapped.touch);
}
