/* The thread's scratch, and the lanes of the move's one candidate buffer
   that the running pass ignores.

   A move gathers once (one traversal with the box that holds the
   whole move; sliding never leaves it), in unit-sphere space relative to
   the start, and every sweep of the move reads that buffer as it is: the
   kernels' sweep_from entry takes the sweep's start and re-bases each lane
   as it loads it, bit for bit what a re-based copy would give. Lanes the
   running pass excludes (touching contacts it is constrained against,
   contacts.c) are parked far away in the buffer itself while the exclusion
   lasts, their triangles kept aside and put back when it ends: exclusions
   are rare and short (a pass clears them when it ends), and nothing reads
   an excluded lane's geometry meanwhile. */
#include "move/move_internal.h"

#include <stdlib.h>
#include <string.h>

/* Per-thread scratch, made on a thread's first move and freed when the
   thread ends (thread_objects.c); the thread-local pointer makes the
   lookup free. */
static void init_scratch(void *object)
{
    skim_candidates_init(&((skim_move_scratch *)object)->gathered);
}

static void free_scratch(void *object)
{
    skim_move_scratch *s = object;
    skim_candidates_free(&s->gathered);
    free(s->order);
    free(s->walk_leaves);
    skim_walk_pack_free(&s->walk_pack);
    skim_body_lanes_free(&s->body_lanes);
    free(s);
}

static _Thread_local skim_move_scratch *thread_scratch;

skim_move_scratch *skim_move_thread_scratch(void)
{
    if (!thread_scratch)
        thread_scratch = skim_thread_object(SKIM_THREAD_MOVE_SCRATCH, sizeof(skim_move_scratch),
                                            init_scratch, free_scratch);
    return thread_scratch;
}

/* The far triangle skim_candidates_pad parks its padding lanes on:
   nothing a move sweeps from near the start can meet it. */
static void park(const skim_candidates *g, uint32_t lane)
{
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            g->vertex[v][axis][lane] = skim_far_triangle[v][axis];
}

static void save(const skim_candidates *g, uint32_t lane, float out[9])
{
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            out[3 * v + axis] = g->vertex[v][axis][lane];
}

static void restore(const skim_candidates *g, uint32_t lane, const float saved[9])
{
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            g->vertex[v][axis][lane] = saved[3 * v + axis];
}

void skim_move_exclude(skim_move_ctx *ctx, uint32_t lane)
{
    for (int i = 0; i < ctx->excluded_count; ++i)
        if (ctx->excluded[i] == lane)
            return;
    if (ctx->excluded_count == SKIM_MOVE_MAX_PLANES)
        return; /* the plane set holds at most as many: cannot happen */
    const skim_candidates *g = &ctx->scratch->gathered;
    save(g, lane, ctx->scratch->excluded_vertices[ctx->excluded_count]);
    park(g, lane);
    ctx->excluded[ctx->excluded_count++] = lane;
}

void skim_move_clear_exclusions(skim_move_ctx *ctx)
{
    const skim_candidates *g = &ctx->scratch->gathered;
    for (int i = ctx->excluded_count - 1; i >= 0; --i)
        restore(g, ctx->excluded[i], ctx->scratch->excluded_vertices[i]);
    ctx->excluded_count = 0;
}

void skim_move_sync_exclusions(skim_move_ctx *ctx, const skim_move_planes *planes)
{
    /* The lanes the planes still exclude: the others come back. */
    const skim_candidates *g = &ctx->scratch->gathered;
    int kept = 0;
    for (int i = 0; i < ctx->excluded_count; ++i) {
        const uint32_t lane = ctx->excluded[i];
        bool live = false;
        for (int j = 0; j < planes->count; ++j)
            live = live || planes->plane[j].lane == lane;
        if (!live) {
            restore(g, lane, ctx->scratch->excluded_vertices[i]);
            continue;
        }
        ctx->excluded[kept] = lane;
        memmove(ctx->scratch->excluded_vertices[kept], ctx->scratch->excluded_vertices[i],
                sizeof ctx->scratch->excluded_vertices[i]);
        kept++;
    }
    ctx->excluded_count = kept;
    for (int j = 0; j < planes->count; ++j)
        if (planes->plane[j].lane != UINT32_MAX)
            skim_move_exclude(ctx, planes->plane[j].lane);
}

uint32_t skim_move_find_lane(const skim_move_ctx *ctx, uint32_t triangle)
{
    const skim_candidates *g = &ctx->scratch->gathered;
    for (uint32_t lane = 0; lane < g->count; ++lane)
        if (g->triangle[lane] == triangle)
            return lane;
    return UINT32_MAX;
}
