/* The planes met in one pass, solved together.

   Nettle (Generic Collision Detection for Games Using Ellipsoids, "Sliding") slides along one sliding plane at a time:
   the destination is projected onto the plane through the contact whose
   normal runs from the contact to the center. Done one plane at a time, a
   mover pushed into an acute corner slides along wall A into wall B, along B
   back into A, and so on: it jitters and, with enough iterations, creeps out.
   Quake's PM_SlideMove keeps the clip planes met during the move and, when no
   single plane's projection respects all of them, moves along the crease of
   two (their cross product) or stops; Box2D's mover (b2SolvePlanes,
   b2ClipVector) does the same job as a tiny constrained least-squares
   problem. Here: the motion kept is the projection of the wanted motion onto
   the cone of motions that enter no plane, which is exactly PM_SlideMove's
   choice made optimal (closest to what was wanted) rather than first-found. */
#include "move/move_internal.h"

#include <math.h>

bool skim_move_normalize(float v[3])
{
    float length_sq = mv_dot(v, v);
    if (!(length_sq > 1e-30f))
        return false;
    float inv = 1.0f / sqrtf(length_sq);
    mv_scale(v, v, inv);
    return true;
}

void skim_move_planes_add(skim_move_planes *set, const float normal[3],
                          const float contact_normal[3], float offset, uint32_t lane)
{
    /* The same constraint again (coplanar floor tiles, a seam, the same wall
       met twice): replace it, so the set stays small and the crease test
       never crosses two nearly parallel normals. */
    for (int i = 0; i < set->count; ++i) {
        skim_move_plane *p = &set->plane[i];
        if (mv_dot(p->normal, normal) > 1.0f - 1e-6f && (lane == UINT32_MAX || p->lane == UINT32_MAX
                                                         || p->lane == lane)) {
            mv_copy(p->normal, normal);
            mv_copy(p->contact_normal, contact_normal);
            p->offset = offset;
            if (lane != UINT32_MAX)
                p->lane = lane;
            return;
        }
    }
    if (set->count == SKIM_MOVE_MAX_PLANES) {
        int victim = 0;
        for (int i = 0; i < set->count; ++i)
            if (set->plane[i].lane == UINT32_MAX) {
                victim = i;
                break;
            }
        for (int i = victim; i + 1 < set->count; ++i)
            set->plane[i] = set->plane[i + 1];
        set->count--;
    }
    skim_move_plane *p = &set->plane[set->count++];
    mv_copy(p->normal, normal);
    mv_copy(p->contact_normal, contact_normal);
    p->offset = offset;
    p->lane = lane;
}

bool skim_move_planes_retire(skim_move_planes *set, const float pos[3], float gap)
{
    bool exclusion_changed = false;
    int kept = 0;
    for (int i = 0; i < set->count; ++i) {
        const skim_move_plane *p = &set->plane[i];
        /* Distance of the center from the contact's tangent plane: 1 when
           touching (unit sphere). Beyond 1 + gap the contact is off. The
           triangle lies behind that plane (it is convex and the contact was
           its closest point), so it is at least this far away too: an
           excluded lane can safely come back. */
        float separation = mv_dot(p->contact_normal, pos) - p->offset;
        if (separation >= 1.0f + gap) {
            exclusion_changed = exclusion_changed || p->lane != UINT32_MAX;
            continue;
        }
        if (kept != i) /* (the common case keeps every plane where it is) */
            set->plane[kept] = *p;
        kept++;
    }
    set->count = kept;
    return exclusion_changed;
}

static bool feasible(const skim_move_planes *set, const float v[3])
{
    /* Tolerance relative to |v|: the projections below land on planes up to
       rounding. */
    float tolerance = -1e-5f * sqrtf(mv_dot(v, v));
    for (int i = 0; i < set->count; ++i)
        if (mv_dot(v, set->plane[i].normal) < tolerance)
            return false;
    return true;
}

static float distance_sq(const float a[3], const float b[3])
{
    float d[3] = { a[0] - b[0], a[1] - b[1], a[2] - b[2] };
    return mv_dot(d, d);
}

void skim_move_planes_clip(const skim_move_planes *set, const float want[3], float out[3])
{
    if (feasible(set, want)) {
        mv_copy(out, want);
        return;
    }
    /* Zero is always feasible; every other candidate is the projection of
       want onto the span of a face of the cone (one plane, or the crease of
       two). The projection onto a convex cone is the feasible one of these
       closest to want. */
    float best[3] = { 0.0f, 0.0f, 0.0f };
    float best_d = mv_dot(want, want);
    for (int i = 0; i < set->count; ++i) {
        const float *n = set->plane[i].normal;
        float into = mv_dot(want, n);
        if (!(into < 0.0f))
            continue;
        float v[3];
        mv_add_scaled(v, want, n, -into);
        /* Land exactly on the plane's side: rounding may leave v a hair
           inside it. */
        float residual = mv_dot(v, n);
        if (residual < 0.0f)
            mv_add_scaled(v, v, n, -residual);
        float d = distance_sq(v, want);
        if (d < best_d && feasible(set, v)) {
            mv_copy(best, v);
            best_d = d;
        }
    }
    for (int i = 0; i < set->count; ++i)
        for (int j = i + 1; j < set->count; ++j) {
            float crease[3];
            mv_cross(crease, set->plane[i].normal, set->plane[j].normal);
            float length_sq = mv_dot(crease, crease);
            if (!(length_sq > 1e-8f))
                continue; /* parallel planes: a single-plane candidate covers it */
            float v[3];
            mv_scale(v, crease, mv_dot(want, crease) / length_sq);
            float d = distance_sq(v, want);
            if (d < best_d && feasible(set, v)) {
                mv_copy(best, v);
                best_d = d;
            }
        }
    mv_copy(out, best);
}

bool skim_move_solve_push(int count, const float (*normals)[3], const float *depths,
                          float push[3])
{
    float accumulated[SKIM_MOVE_MAX_PLANES] = { 0 };
    push[0] = push[1] = push[2] = 0.0f;
    if (count > SKIM_MOVE_MAX_PLANES)
        count = SKIM_MOVE_MAX_PLANES;
    float tolerance = 1e-5f;
    for (int i = 0; i < count; ++i)
        tolerance = fmaxf(tolerance, 1e-3f * depths[i]);
    /* b2SolvePlanes: sweep the constraints, each taking the push it still
       needs, accumulated pushes clamped at zero (a contact can push, never
       pull). */
    for (int iteration = 0; iteration < 32; ++iteration) {
        float total = 0.0f;
        for (int i = 0; i < count; ++i) {
            float separation = mv_dot(push, normals[i]) - depths[i];
            float before = accumulated[i];
            float after = fmaxf(before - separation, 0.0f);
            float change = after - before;
            accumulated[i] = after;
            mv_add_scaled(push, push, normals[i], change);
            total += fabsf(change);
        }
        if (total < tolerance)
            break;
    }
    /* Safe to sweep with every contact excluded only if the push moves away
       from (or along) each of them: then none can come closer. */
    for (int i = 0; i < count; ++i)
        if (mv_dot(push, normals[i]) < 0.0f) {
            push[0] = push[1] = push[2] = 0.0f;
            return false;
        }
    return true;
}

void skim_move_planes_clip_world(const skim_move_planes *set, const skim_ellipsoid_space *space,
                                 const float want[3], float out[3])
{
    /* min |M (v - want)| over v . n_i >= 0 is, with w = M v, the
       projection of M want onto the cone w . (M^-T n_i) >= 0: the same
       clip on the world's normals, mapped back. */
    skim_move_planes world;
    world.count = 0;
    for (int i = 0; i < set->count; ++i) {
        float *normal = world.plane[world.count].normal;
        mv_mat3(space->normal_to_world, set->plane[i].normal, normal);
        if (skim_move_normalize(normal))
            world.count++;
    }
    float want_world[3], slid_world[3], slid[3];
    mv_mat3(space->to_world, want, want_world);
    skim_move_planes_clip(&world, want_world, slid_world);
    mv_mat3(space->to_unit, slid_world, slid);
    /* The map back rounds (by up to u r_max / r_min of |v|): clipped again
       in unit space, where the sweeps need the constraints to hold, which
       moves a feasible vector by that rounding at most. */
    skim_move_planes_clip(set, slid, out);
}
