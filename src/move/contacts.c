/* The move's one candidate buffer seen from where the mover is now, and the
   contacts it already touches.

   A move gathers once (DESIGN.md: one traversal with the box that holds the
   whole move; sliding never leaves it). The gathered triangles are in unit-
   sphere space relative to the start, and a kernel sweeps a unit sphere
   from the origin; a later slide iteration starts elsewhere, so its view is
   the gathered buffer minus the current position (the same subtraction the
   gather did, one float each, vectorised), built only when the position or
   the exclusions changed.

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
#include "move_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

/* Per-thread scratch, freed when its thread ends (OpenMP drops worker
   threads when a later team is smaller; their buffers must not leak). The
   thread-local pointer makes the lookup free; the tss key only carries the
   destructor. */
static _Thread_local skim_move_scratch *thread_scratch;
static tss_t scratch_key;
static once_flag scratch_key_once = ONCE_FLAG_INIT;
static bool scratch_key_ok;

static void free_scratch(void *opaque)
{
    skim_move_scratch *s = opaque;
    skim_candidates_free(&s->gathered);
    skim_candidates_free(&s->based);
    free(s);
}

static void make_scratch_key(void)
{
    scratch_key_ok = tss_create(&scratch_key, free_scratch) == thrd_success;
}

skim_move_scratch *skim_move_thread_scratch(void)
{
    if (thread_scratch)
        return thread_scratch;
    call_once(&scratch_key_once, make_scratch_key);
    skim_move_scratch *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    skim_candidates_init(&s->gathered);
    skim_candidates_init(&s->based);
    if (scratch_key_ok)
        tss_set(scratch_key, s);
    thread_scratch = s;
    return s;
}

void skim_move_exclude(skim_move_ctx *ctx, uint32_t lane)
{
    for (int i = 0; i < ctx->excluded_count; ++i)
        if (ctx->excluded[i] == lane)
            return;
    if (ctx->excluded_count == SKIM_MOVE_MAX_PLANES)
        return; /* the plane set holds at most as many: cannot happen */
    ctx->excluded[ctx->excluded_count++] = lane;
    ctx->exclusion_version++;
}

void skim_move_clear_exclusions(skim_move_ctx *ctx)
{
    if (ctx->excluded_count) {
        ctx->excluded_count = 0;
        ctx->exclusion_version++;
    }
}

void skim_move_sync_exclusions(skim_move_ctx *ctx, const skim_move_planes *planes)
{
    int count = 0;
    uint32_t lanes[SKIM_MOVE_MAX_PLANES];
    for (int i = 0; i < planes->count; ++i) {
        uint32_t lane = planes->plane[i].lane;
        if (lane == UINT32_MAX)
            continue;
        bool seen = false;
        for (int j = 0; j < count; ++j)
            seen = seen || lanes[j] == lane;
        if (!seen)
            lanes[count++] = lane;
    }
    bool same = count == ctx->excluded_count;
    for (int i = 0; same && i < count; ++i) {
        bool found = false;
        for (int j = 0; j < ctx->excluded_count; ++j)
            found = found || ctx->excluded[j] == lanes[i];
        same = found;
    }
    if (same)
        return;
    memcpy(ctx->excluded, lanes, sizeof lanes[0] * (size_t)count);
    ctx->excluded_count = count;
    ctx->exclusion_version++;
}

uint32_t skim_move_find_lane(const skim_move_ctx *ctx, uint32_t triangle)
{
    const skim_candidates *g = &ctx->scratch->gathered;
    for (uint32_t lane = 0; lane < g->count; ++lane)
        if (g->triangle[lane] == triangle)
            return lane;
    return UINT32_MAX;
}

const skim_candidates *skim_move_view(skim_move_ctx *ctx, const float pos[3],
                                      skim_candidates *view)
{
    skim_move_scratch *s = ctx->scratch;
    const skim_candidates *g = &s->gathered;
    if (ctx->excluded_count == 0 && pos[0] == 0.0f && pos[1] == 0.0f && pos[2] == 0.0f)
        return g;
    if (!(s->based_valid && s->based_version == ctx->exclusion_version &&
          s->based_at[0] == pos[0] && s->based_at[1] == pos[1] && s->based_at[2] == pos[2])) {
        if (s->based.capacity < g->padded_count) {
            skim_status status = skim_candidates_reserve(&s->based, g->padded_count);
            if (status != SKIM_OK) {
                ctx->status = status;
                return NULL;
            }
        }
        uint32_t n = g->padded_count;
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis) {
                const float *restrict src = g->vertex[v][axis];
                float *restrict dst = s->based.vertex[v][axis];
                const float offset = pos[axis];
                for (uint32_t lane = 0; lane < n; ++lane)
                    dst[lane] = src[lane] - offset;
            }
        /* Excluded lanes become a far triangle, like the padding lanes. */
        for (int i = 0; i < ctx->excluded_count; ++i) {
            uint32_t lane = ctx->excluded[i];
            for (int v = 0; v < 3; ++v)
                for (int axis = 0; axis < 3; ++axis)
                    s->based.vertex[v][axis][lane] =
                        1e6f + (v == axis + 1 ? 1.0f : 0.0f);
        }
        mv_copy(s->based_at, pos);
        s->based_version = ctx->exclusion_version;
        s->based_valid = true;
    }
    *view = *g;
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            view->vertex[v][axis] = s->based.vertex[v][axis];
    return view;
}

/* Closest point of triangle abc to the origin (Ericson, Real-Time Collision
   Detection 5.1.5, by Voronoi regions). */
static void closest_point_to_origin(const float a[3], const float b[3], const float c[3],
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
            lo[axis] = fminf(v[0][axis], fminf(v[1][axis], v[2][axis]));
            hi[axis] = fmaxf(v[0][axis], fmaxf(v[1][axis], v[2][axis]));
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
        closest_point_to_origin(v[0], v[1], v[2], closest);
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
    if (length > SKIM_MOVE_PUSH_PER_MOVE) /* bounded by the gather box, see move_internal.h */
        mv_scale(push, push, SKIM_MOVE_PUSH_PER_MOVE / length);
    /* The push-out is a sweep of the pass and counts within its budget
       (skim.h: iterations "at most max_iterations"; max_iterations bounds
       each pass's sweeps, i.e. its cost). Counting it on top let a
       touching start report, and sweep, max_iterations + 1 times. With no
       sweep left the push is dropped rather than made unswept (it could
       tunnel): the mover stays where it is, and the contacts' planes and
       exclusions above keep anything later from going deeper. */
    if (result->iterations >= ctx->pass_max_iterations)
        return opposing;
    /* The push itself is swept (it could meet another triangle) with the
       contacts excluded: it moves away from each of them. */
    skim_unit_hit best;
    skim_move_sweep(ctx, pos, push, &best);
    result->iterations++;
    float t = 1.0f;
    if (best.hit) {
        float into = -mv_dot(best.normal, push);
        t = into > 0.0f ? fmaxf(0.0f, best.t - ctx->skin / into) : 0.0f;
        float world_normal[3];
        uint32_t kind = skim_move_classify(ctx, best.normal, world_normal);
        skim_move_note_touch(&result->touch, kind, world_normal, best.triangle);
    }
    mv_add_scaled(pos, pos, push, t);
    return opposing;
}
