/* The contacts a mover already touches.

   Touching contacts. A kernel reports t = 0 for a triangle the sphere
   already touches at the start, whatever the direction of motion (that is
   the sweep's contract), and that report masks every later hit. Nettle's
   "embedded plane" case is the same thing. So a t = 0 hit means: find every
   triangle within 1 + skin of the center, push out along the separating
   direction (b2SolvePlanes over all of them), then keep each as a slide
   plane (never move into it) with its lane excluded from the sweeps while
   the plane lives. Moving only along v . n >= 0 keeps the mover in the half
   space beyond the contact's tangent plane, and the (convex) triangle lies
   behind that plane, so an excluded triangle cannot be entered. */
#include "move/move_contacts.h"

#include <math.h>
#include <simde/x86/sse2.h>

/* Closest point of triangle abc to the origin (Ericson, Real-Time Collision
   Detection 5.1.5, by Voronoi regions). */
void skim_move_closest_point_to_origin(const float a[3], const float b[3], const float c[3],
                                       float out[3])
{
    float ab[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    float ac[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
    float ap[3] = { -a[0], -a[1], -a[2] };
    float d1 = mv_dot(ab, ap), d2 = mv_dot(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f) {
        mv_copy(out, a);
        return;
    }
    float bp[3] = { -b[0], -b[1], -b[2] };
    float d3 = mv_dot(ab, bp), d4 = mv_dot(ac, bp);
    if (d3 >= 0.0f && d4 <= d3) {
        mv_copy(out, b);
        return;
    }
    float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
        float v = d1 / (d1 - d3);
        mv_add_scaled(out, a, ab, v);
        return;
    }
    float cp[3] = { -c[0], -c[1], -c[2] };
    float d5 = mv_dot(ab, cp), d6 = mv_dot(ac, cp);
    if (d6 >= 0.0f && d5 <= d6) {
        mv_copy(out, c);
        return;
    }
    float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
        float w = d2 / (d2 - d6);
        mv_add_scaled(out, a, ac, w);
        return;
    }
    float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
        float w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        float bc[3] = { c[0] - b[0], c[1] - b[1], c[2] - b[2] };
        mv_add_scaled(out, b, bc, w);
        return;
    }
    float denom = 1.0f / (va + vb + vc);
    float v = vb * denom, w = vc * denom;
    for (int k = 0; k < 3; ++k)
        out[k] = a[k] + ab[k] * v + ac[k] * w;
}

typedef struct contact {
    float normal[3];   /* from the contact toward the center */
    float point[3];    /* relative to pos */
    float depth;       /* push needed: 1 + skin - distance */
    uint32_t lane;
} contact;

uint32_t skim_move_resolve_contacts(skim_move_ctx *ctx, float pos[3], const float motion[3],
                                    skim_move_planes *planes, skim_move_pass_result *result)
{
    uint32_t opposing = 0;
    const skim_candidates *g = &ctx->scratch->gathered;
    contact found[SKIM_MOVE_MAX_PLANES];
    int count = 0;
    const float reach = 1.0f + ctx->skin;
    for (uint32_t lane = 0; lane < g->count; ++lane) {
        bool excluded = false;
        for (int i = 0; i < ctx->excluded_count; ++i)
            excluded = excluded || ctx->excluded[i] == lane;
        if (excluded)
            continue;
        float v[3][3];
        float lo[3], hi[3];
        for (int corner = 0; corner < 3; ++corner)
            for (int axis = 0; axis < 3; ++axis)
                v[corner][axis] = g->vertex[corner][axis][lane] - pos[axis];
        /* Cheap reject: the triangle's box must come within reach. */
        bool far = false;
        for (int axis = 0; axis < 3 && !far; ++axis) {
            lo[axis] = mv_min(v[0][axis], mv_min(v[1][axis], v[2][axis]));
            hi[axis] = mv_max(v[0][axis], mv_max(v[1][axis], v[2][axis]));
            far = lo[axis] > reach || hi[axis] < -reach;
        }
        if (far)
            continue;
        float edge1[3] = { v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2] };
        float edge2[3] = { v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2] };
        float face[3];
        mv_cross(face, edge1, edge2);
        if (!skim_move_normalize(face))
            continue;
        float start_distance = -mv_dot(face, v[0]);
        if (ctx->cull && start_distance < 0.0f)
            continue; /* back face, as the kernels skip it */
        float closest[3];
        skim_move_closest_point_to_origin(v[0], v[1], v[2], closest);
        float distance_sq = mv_dot(closest, closest);
        if (!(distance_sq < reach * reach))
            continue;
        float distance = sqrtf(distance_sq);
        contact c;
        if (distance > 1e-6f) {
            mv_scale(c.normal, closest, -1.0f / distance);
        } else {
            /* Center on the triangle: the face normal on the start's side. */
            float side = start_distance < 0.0f ? -1.0f : 1.0f;
            mv_scale(c.normal, face, side);
        }
        mv_copy(c.point, closest);
        c.depth = reach - distance;
        c.lane = lane;
        if (count < SKIM_MOVE_MAX_PLANES) {
            found[count++] = c;
        } else {
            /* Keep the deepest. */
            int shallowest = 0;
            for (int i = 1; i < count; ++i)
                if (found[i].depth < found[shallowest].depth)
                    shallowest = i;
            if (c.depth > found[shallowest].depth)
                found[shallowest] = c;
        }
    }
    if (count == 0)
        return 0;

    /* Contacts hold before the push: they are planes of this pass, and their
       lanes stay excluded while the planes live. */
    float normals[SKIM_MOVE_MAX_PLANES][3], depths[SKIM_MOVE_MAX_PLANES];
    for (int i = 0; i < count; ++i) {
        mv_copy(normals[i], found[i].normal);
        depths[i] = found[i].depth;
        float world_normal[3];
        uint32_t kind = skim_move_classify(ctx, found[i].normal, world_normal);
        skim_move_note_touch(&result->touch, kind, world_normal, g->triangle[found[i].lane]);
        if (mv_dot(found[i].normal, motion) < 0.0f)
            opposing |= kind;
        skim_move_exclude(ctx, found[i].lane);
        float contact_point[3];
        mv_add_scaled(contact_point, pos, found[i].point, 1.0f);
        skim_move_log_contact(ctx, kind, world_normal, g->triangle[found[i].lane], contact_point);
        skim_move_add_contact(ctx, planes, found[i].normal,
                              mv_dot(found[i].normal, contact_point), found[i].lane, kind,
                              world_normal);
    }
    float push[3];
    if (!skim_move_solve_push(count, (const float(*)[3])normals, depths, push))
        return opposing; /* squeezed: stay, constrained not to go deeper */
    float length = sqrtf(mv_dot(push, push));
    if (!(length > 0.0f))
        return opposing;
    /* At most SKIM_MOVE_PUSH_PER_MOVE over the whole move, whatever passes
       meet touching starts: the gather box allows for that much once
       (move_gather.c). Deeper embeddings come out over several moves. */
    if (!(ctx->push_left > 0.0f))
        return opposing;
    if (length > ctx->push_left)
        mv_scale(push, push, ctx->push_left / length);
    /* The push-out is a sweep of the pass and counts within its budget
       (skim.h: iterations "at most max_iterations"; max_iterations bounds
       each pass's sweeps, i.e. its cost). Counting it on top let a
       touching start report, and sweep, max_iterations + 1 times. With no
       sweep left the push is dropped rather than made unswept (it could
       tunnel): the mover stays where it is, and the contacts' planes and
       exclusions above keep anything later from going deeper. */
    if (result->iterations >= ctx->pass_max_iterations)
        return opposing;
    ctx->push_left -= mv_min(length, ctx->push_left);
    /* The push itself is swept (it could meet another triangle) with the
       contacts excluded: it moves away from each of them. */
    skim_unit_hit best;
    skim_move_sweep(ctx, pos, push, &best);
    result->iterations++;
    float t = 1.0f;
    if (best.hit) {
        float into = -mv_dot(best.normal, push);
        t = into > 0.0f ? mv_max(0.0f, best.t - ctx->skin / into) : 0.0f;
        float world_normal[3];
        uint32_t kind = skim_move_classify(ctx, best.normal, world_normal);
        skim_move_note_touch(&result->touch, kind, world_normal, best.triangle);
        if (ctx->contacts) {
            float met[3];
            mv_add_scaled(met, pos, best.point, 1.0f);
            skim_move_log_contact(ctx, kind, world_normal, best.triangle, met);
        }
    }
    mv_add_scaled(pos, pos, push, t);
    return opposing;
}

/* Whether triangle v (relative to the center) is certainly farther than
   1 + clearance from the center, where no kernel can call it touching.
   The closest point (Ericson) may be off by a few units of roundoff times
   the triangle's extent, times |e1| |e2| / |n| for a needle (whose plane is
   ill-conditioned, as the kernels' is from any corner); that allowance
   goes with the distance, so a doubtful triangle is left to the reference. */
bool skim_move_closest_with_allowance(const float v[3][3], float path, float closest[3], float *allowance)
{
    const float e1[3] = { v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2] };
    const float e2[3] = { v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2] };
    float n[3];
    mv_cross(n, e1, e2);
    const float nn = mv_dot(n, n), e1e1 = mv_dot(e1, e1), e2e2 = mv_dot(e2, e2);
    if (!(nn > 0.0f))
        return false;
    skim_move_closest_point_to_origin(v[0], v[1], v[2], closest);
    const float extent = sqrtf(mv_dot(v[0], v[0])) + sqrtf(e1e1) + sqrtf(e2e2) + path;
    *allowance = 1e-6f * extent * (1.0f + sqrtf(e1e1 * e2e2 / nn));
    return true;
}

static bool clear_of_sphere(const float v[3][3], float clearance)
{
    float closest[3], allowance;
    if (!skim_move_closest_with_allowance(v, 0.0f, closest, &allowance))
        return false;
    const float reach = 1.0f + clearance + allowance;
    return mv_dot(closest, closest) > reach * reach;
}

bool skim_move_starts_touching(const skim_move_ctx *ctx, const float pos[3],
                               const float delta[3])
{
    /* Beyond the kernels' own rounding at a contact (the skin is at least
       that, move.c's precision floor) and this test's. */
    const float clearance = 0.5f * ctx->skin;
    const skim_candidates *g = &ctx->scratch->gathered;
    const simde__m128 origin[3] = { simde_mm_set1_ps(pos[0]), simde_mm_set1_ps(pos[1]),
                                    simde_mm_set1_ps(pos[2]) };
    const simde__m128 sign = simde_mm_set1_ps(-0.0f), reach = simde_mm_set1_ps(1.0f + clearance),
                      roundoff = simde_mm_set1_ps(1e-6f);
    /* Four lanes at a time (the gathered buffer is padded with far
       triangles to whole packets): a lane stays in doubt only if its box
       and its plane come within 1 + clearance of the center. A kernel reports a
       touch only for a plane within 1 (Rouwé 3.3 at t = 0), and the plane
       from corner 0 is off by a few units of roundoff times the extent
       (v0, e1, e2) times |e1| |e2| / |n| for a needle: that allowance,
       1e-6 (|v0| + |e1| + |e2|) (1 + |e1| |e2| / |n|), keeps the test on
       the safe side, leaving anything doubtful to the exact test below. */
    for (uint32_t base = 0; base < g->count; base += 4) {
        simde__m128 v[3][3];
        for (int corner = 0; corner < 3; ++corner)
            for (int axis = 0; axis < 3; ++axis)
                v[corner][axis] = simde_mm_sub_ps(
                    simde_mm_load_ps(g->vertex[corner][axis] + base), origin[axis]);
        /* The box first: clear of the center by 1 + clearance on some axis
           (and by the coordinate's own roundoff). */
        simde__m128 clear = simde_mm_setzero_ps();
        for (int axis = 0; axis < 3; ++axis) {
            const simde__m128 lo = simde_mm_min_ps(simde_mm_min_ps(v[0][axis], v[1][axis]),
                                                   v[2][axis]),
                              hi = simde_mm_max_ps(simde_mm_max_ps(v[0][axis], v[1][axis]),
                                                   v[2][axis]);
            const simde__m128 lo_clear = simde_mm_cmpgt_ps(
                lo, simde_mm_add_ps(reach, simde_mm_mul_ps(roundoff, lo)));
            const simde__m128 hi_clear = simde_mm_cmplt_ps(
                hi, simde_mm_sub_ps(simde_mm_xor_ps(reach, sign), simde_mm_mul_ps(roundoff,
                                                                       simde_mm_xor_ps(hi, sign))));
            clear = simde_mm_or_ps(clear, simde_mm_or_ps(lo_clear, hi_clear));
        }
        if (simde_mm_movemask_ps(clear) == 15)
            continue;
        simde__m128 e1[3], e2[3];
        for (int axis = 0; axis < 3; ++axis) {
            e1[axis] = simde_mm_sub_ps(v[1][axis], v[0][axis]);
            e2[axis] = simde_mm_sub_ps(v[2][axis], v[0][axis]);
        }
        simde__m128 n[3];
        for (int axis = 0; axis < 3; ++axis) {
            const int i = (axis + 1) % 3, j = (axis + 2) % 3;
            n[axis] = simde_mm_sub_ps(simde_mm_mul_ps(e1[i], e2[j]), simde_mm_mul_ps(e1[j], e2[i]));
        }
        simde__m128 nn = simde_mm_setzero_ps(), e1e1 = nn, e2e2 = nn, v0v0 = nn, nv = nn;
        for (int axis = 0; axis < 3; ++axis) {
            nn = simde_mm_add_ps(nn, simde_mm_mul_ps(n[axis], n[axis]));
            e1e1 = simde_mm_add_ps(e1e1, simde_mm_mul_ps(e1[axis], e1[axis]));
            e2e2 = simde_mm_add_ps(e2e2, simde_mm_mul_ps(e2[axis], e2[axis]));
            v0v0 = simde_mm_add_ps(v0v0, simde_mm_mul_ps(v[0][axis], v[0][axis]));
            nv = simde_mm_add_ps(nv, simde_mm_mul_ps(n[axis], v[0][axis]));
        }
        const simde__m128 n_length = simde_mm_sqrt_ps(nn),
                          e1_length = simde_mm_sqrt_ps(e1e1), e2_length = simde_mm_sqrt_ps(e2e2);
        const simde__m128 extent =
            simde_mm_add_ps(simde_mm_sqrt_ps(v0v0), simde_mm_add_ps(e1_length, e2_length));
        const simde__m128 allowance = simde_mm_mul_ps(
            simde_mm_mul_ps(roundoff, extent),
            simde_mm_add_ps(n_length, simde_mm_mul_ps(e1_length, e2_length)));
        /* Then the plane: |n . v0| > (1 + clearance) |n| + allowance (NaN-
           free for real lanes: world triangles are not degenerate). |n . v0|
           is nv and not the sign bit (andnot(a, b) is ~a & b). */
        clear = simde_mm_or_ps(
            clear, simde_mm_cmpgt_ps(simde_mm_andnot_ps(sign, nv),
                                     simde_mm_add_ps(simde_mm_mul_ps(reach, n_length), allowance)));
        unsigned doubtful = (unsigned)simde_mm_movemask_ps(clear) ^ 15u;
        for (; doubtful; doubtful &= doubtful - 1) {
            const uint32_t lane = base + (uint32_t)__builtin_ctz(doubtful);
            if (lane >= g->count)
                break;
            float t[3][3];
            for (int corner = 0; corner < 3; ++corner)
                for (int axis = 0; axis < 3; ++axis)
                    t[corner][axis] = g->vertex[corner][axis][lane] - pos[axis];
            if (clear_of_sphere(t, clearance))
                continue;
            /* Near: the reference computes what every packet kernel
               computes, bit for bit (test_simd_equivalence.c), and with
               t_max = 0 reports exactly what a sweep reports at t = 0. */
            skim_unit_hit hit;
            if (skim_reference_sweep_triangle(t[0], t[1], t[2], delta, 0.0f, ctx->cull, &hit))
                return true;
        }
    }
    return false;
}

/* Stair nosings (move.c's straight passes): going down, the sphere met
   the top edge of a riser, where the riser's face (not walkable) and the
   tread's (walkable) meet. Both are hit at the same t there, and the
   kernel reports the lower triangle index, so which face a mesh happened
   to list first decided whether a walker could get onto the step: a block
   whose riser came first could not be climbed below about 0.8 of the run
   speed, where the sphere's raised move ends over the edge rather than
   over the tread (tests/move/test_move_steps.c). Every gathered
   triangle through the contact point counts. "Through" allows for the
   rounding of the contact point (the kernel's finish, a few ulps of the
   coordinates) and of the closest point. */
bool skim_move_walkable_at(const skim_move_ctx *ctx, const float contact[3], uint32_t triangle,
                           float world_normal[3], uint32_t *floor_triangle)
{
    const skim_candidates *g = &ctx->scratch->gathered;
    const uint32_t reported = skim_move_find_lane(ctx, triangle);
    if (reported != UINT32_MAX && skim_move_lane_walkable(ctx, reported, world_normal)) {
        *floor_triangle = triangle;
        return true;
    }
    const float tolerance = 1e-4f * (1.0f + sqrtf(mv_dot(contact, contact)));
    uint32_t best = UINT32_MAX;
    for (uint32_t lane = 0; lane < g->count; ++lane) {
        if (lane == reported || g->triangle[lane] >= best)
            continue;
        float v[3][3];
        for (int corner = 0; corner < 3; ++corner)
            for (int axis = 0; axis < 3; ++axis)
                v[corner][axis] = g->vertex[corner][axis][lane] - contact[axis];
        float closest[3], normal[3];
        skim_move_closest_point_to_origin(v[0], v[1], v[2], closest);
        if (mv_dot(closest, closest) <= tolerance * tolerance &&
            skim_move_lane_walkable(ctx, lane, normal)) {
            best = g->triangle[lane];
            mv_copy(world_normal, normal);
        }
    }
    *floor_triangle = best;
    return best != UINT32_MAX;
}
