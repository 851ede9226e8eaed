/* The thread's scratch, and the move's one candidate buffer seen from where
   the mover is now.

   A move gathers once (DESIGN.md: one traversal with the box that holds the
   whole move; sliding never leaves it). The gathered triangles are in unit-
   sphere space relative to the start, and a kernel sweeps a unit sphere
   from the origin; a later slide iteration starts elsewhere, so its view is
   the gathered buffer minus the current position (the same subtraction the
   gather did, one float each, vectorised), built only when the position or
   the exclusions changed. Lanes the current pass excludes (touching
   contacts it is constrained against, contacts.c) are moved far away. */
#include "move_internal.h"

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
            s->based.count = 0; /* nothing to keep */
            skim_status status = skim_candidates_reserve(&s->based, g->padded_count);
            if (status != SKIM_OK) {
                ctx->status = status;
                return NULL;
            }
            /* Finite, well-formed lanes everywhere to begin with. */
            s->based.padded_count = s->based.capacity;
            skim_candidates_pad(&s->based);
        }
        /* Only the real lanes, in whole groups of four: the kernels mask
           lanes past the count, and what re-basing left in those lanes
           before (a far padding triangle or an earlier move's triangle) is
           finite and well formed, which is all skim_candidates_pad asks of
           them. The view's indices are the gathered buffer's, whose padding
           lanes say UINT32_MAX. */
        const uint32_t n = (g->count + 3u) & ~3u;
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

