/* The binary SAH builder: binned surface area heuristic (Wald 2007, "On fast
   construction of SAH-based bounding volume hierarchies"), top-down, with a
   real leaf cost; OpenMP tasks over subtrees and over the binning of large
   nodes (bvh_sah_binning.c, the per-node steps). Deterministic: every
   decision depends only on the primitives of a node and their order, which
   one thread's in-place partitions gave them, never on which thread looked
   at them; node slots are fixed by primitive counts (bvh_binary.h), and
   the bin reductions are min, max and integer sums, which give the same
   bits in any order.

   A full-sweep variant (exact SAH over centroids sorted on each axis) is
   kept as the yardstick the binned builder is compared with. */
#include "bvh/bvh_leaf_split.h"
#include "bvh/bvh_sah_binning.h"

#include <math.h>
#include <omp.h>
#include <simde/x86/sse2.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* Past this depth splits go to the middle of the primitive order, which
       halves the count: the depth stays below SKIM_BVH_MAX_DEPTH for any
       input, however adversarial its geometry. */
    MEDIAN_SPLIT_DEPTH = 64,
    /* The treelet pass (bvh_treelet.c) restructures nodes over at least
       this many primitives, in builds of fewer than TREELET_MAX_PRIMS.
       Smaller nodes double the treelets for no better tree; larger ones
       leave more of the gap to the full sweep (measured with
       bench/bvh/bench_bvh.c, docs/performance.md). The pass is serial, a
       fixed cost per treelet, so in builds that large (binned from a
       sample at the top) it would be a large share of the build: they
       skip it. */
    TREELET_MIN_PRIMS = 64,
    TREELET_MAX_PRIMS = SKIM_SAH_LARGE_MIN_PRIMS,
    /* In builds that large, subtrees under this many primitives (not
       SKIM_SAH_TASK_MIN_PRIMS) number their nodes densely: no treelet pass
       reads slots by formula there, and each dense run leaves the rest of
       its 2n - 1 slots untouched, so fewer, longer runs fault fewer pages.
       Still a task per subtree above it: 32 or more. */
    DENSE_LARGE_PRIMS = SKIM_SAH_LARGE_MIN_PRIMS,
};

/* The SAH weights of the build's decisions, from what a query does: a
   leaf is read by the gather four triangles at a time (one SSE box test
   and transform, whether 1 or 4 lanes are used), and a binary node is
   about a seventh of an 8-wide node visit, i.e. a quarter of a leaf
   packet. So a leaf costs ceil(n / 4) packets and a split half a packet
   (neighbouring weights give the same bytes and query instructions within
   noise; measured with bench/bvh/bench_sweep_path.c, docs/performance.md):
   leaves fill up to four triangles unless their triangles are far apart,
   which also keeps the nodes few.

   The cost reported in the statistics (the binary tree's sah_cost, in
   bvh_binary.c) uses the conventional weights instead. */
static const float split_cost = 0.5f;
enum { LEAF_PACKET = 4 };

static float leaf_cost(uint32_t triangles)
{
    return (float)((triangles + LEAF_PACKET - 1) / LEAF_PACKET);
}

typedef struct build_context {
    const skim_sah_steps *steps;
    skim_bvh_prim        *prims;
    /* prims[k * SKIM_SAH_SAMPLE] for every k, as the build moves them: a
       large node's sample (choose_binned_split); NULL when no node is that
       large. */
    skim_bvh_prim        *sample;
    skim_bvh_binary_node *nodes;
    /* Each slot's subtree height, for the treelet pass (bvh_treelet.c),
       which runs as nodes are finished; NULL when the build has none. */
    uint8_t              *height;
    /* Whether small leaves get a second look (bvh_leaf_split.c): in the
       binned builds the treelet pass runs on (and the greedy one, which
       the tests compare with it). */
    bool                  split_leaves;
    int                   bin_count;
    uint32_t              max_leaf;
    uint32_t              dense_below; /* subtrees under this many primitives number their nodes densely */
    skim_bvh_split_method method;
    bool                  parallel;
} build_context;

static const float infinity = INFINITY;

/* The binning steps for this CPU: the AVX2 build where it runs (the same
   tree, fewer instructions), else the baseline. */
static const skim_sah_steps *steps_for_this_cpu(void)
{
#if defined(SKIM_SAH_HAVE_AVX2)
    if (__builtin_cpu_supports("avx2"))
        return &skim_sah_steps_avx2;
#endif
    return &skim_sah_steps_baseline;
}

static void range_clear(skim_sah_range *r)
{
    r->lo = r->centroid_lo = simde_mm_set1_ps(infinity);
    r->hi = r->centroid_hi = simde_mm_set1_ps(-infinity);
}

void skim_sah_range_of(const skim_bvh_prim *prims, uint32_t begin, uint32_t end, skim_sah_range *r)
{
    range_clear(r);
    for (uint32_t i = begin; i < end; ++i) {
        simde__m128 lo = skim_sah_load_lo(&prims[i]), hi = skim_sah_load_hi(&prims[i]);
        simde__m128 centroid = simde_mm_add_ps(lo, hi);
        r->lo = simde_mm_min_ps(r->lo, lo);
        r->hi = simde_mm_max_ps(r->hi, hi);
        r->centroid_lo = simde_mm_min_ps(r->centroid_lo, centroid);
        r->centroid_hi = simde_mm_max_ps(r->centroid_hi, centroid);
    }
}

skim_sah_bin_map skim_sah_make_bin_map(const skim_sah_range *r, int bin_count)
{
    /* Per axis, slightly under bin_count / extent so the largest centroid
       lands in the last bin rather than one past it; 0 where the centroids
       do not spread or the scale would not be finite. One vector division
       for the three axes (the same IEEE operations as the scalar
       bin_count * 0.99999f / extent per axis, so the same bits). */
    const simde__m128 xyz = simde_mm_castsi128_ps(simde_mm_set_epi32(0, -1, -1, -1));
    simde__m128 extent = simde_mm_sub_ps(r->centroid_hi, r->centroid_lo);
    simde__m128 scale = simde_mm_div_ps(simde_mm_set1_ps((float)bin_count * 0.99999f), extent);
    /* |scale|: scale and not the sign bit (andnot(a, b) is ~a & b). */
    simde__m128 magnitude = simde_mm_andnot_ps(simde_mm_set1_ps(-0.0f), scale);
    simde__m128 usable = simde_mm_and_ps(simde_mm_cmpgt_ps(extent, simde_mm_setzero_ps()),
                                         simde_mm_cmplt_ps(magnitude, simde_mm_set1_ps(infinity)));
    skim_sah_bin_map map = {
        .offset = simde_mm_and_ps(r->centroid_lo, xyz),
        .scale = simde_mm_and_ps(simde_mm_and_ps(scale, usable), xyz),
        .top = simde_mm_set1_ps((float)(bin_count - 1)),
        .bin_count = bin_count,
    };
    return map;
}

/* The best binned split of a node and the map of the bins it came from.
   Kept out of build_node so the bins' few kilobytes are off the stack
   while the recursion goes deeper. */
static skim_sah_split choose_binned_split(build_context *ctx, const skim_bvh_prim *prims, uint32_t begin,
                                          uint32_t end, const skim_sah_range *r, skim_sah_bin_map *map)
{
    skim_sah_bins b;
    /* Small nodes get fewer bins: 4 + n / 20, as Embree's binned builder
       does (BinMapping). Clearing and sweeping bins is per node, so at the
       many small nodes near the leaves it outweighs the binning itself;
       fewer bins there cost the tree almost nothing. */
    uint32_t n_prims = end - begin;
    uint32_t wanted = 4 + n_prims / 20;
    const int n = wanted < (uint32_t)ctx->bin_count ? (int)wanted : ctx->bin_count;
    *map = skim_sah_make_bin_map(r, n);
    /* A large node's split comes from its sample: in cache (a sixteenth
       of the node, 4 MB at the top of the 2-million-triangle terrain), so
       no pass over the node's own tens of megabytes. Its counts and boxes
       are the sample's; partition_large gathers the children's boxes. */
    if (n_prims >= SKIM_SAH_LARGE_MIN_PRIMS)
        ctx->steps->bin(ctx->sample, (begin + SKIM_SAH_SAMPLE - 1) / SKIM_SAH_SAMPLE,
                        (end + SKIM_SAH_SAMPLE - 1) / SKIM_SAH_SAMPLE, map, &b);
    else
        ctx->steps->bin(prims, begin, end, map, &b);
    return ctx->steps->best_split(&b, map, r);
}

/* ---- the full-sweep yardstick ---- */
static int compare_centroids(const void *a, const void *b, void *axis_ptr)
{
    int axis = *(const int *)axis_ptr;
    const skim_bvh_prim *p = a, *q = b;
    float cp = p->lo[axis] + p->hi[axis], cq = q->lo[axis] + q->hi[axis];
    if (cp != cq)
        return cp < cq ? -1 : 1;
    uint32_t ip = skim_bvh_prim_id(p), iq = skim_bvh_prim_id(q);
    return ip < iq ? -1 : (ip > iq);
}

static void accumulate_box(simde__m128 *lo, simde__m128 *hi, const skim_bvh_prim *p)
{
    *lo = simde_mm_min_ps(*lo, skim_sah_load_lo(p));
    *hi = simde_mm_max_ps(*hi, skim_sah_load_hi(p));
}

/* Exact SAH: every position between centroids sorted on every axis. Leaves
   [begin, end) sorted on the chosen axis. Returns false without memory. */
static bool choose_full_sweep_split(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                                    skim_sah_split *best)
{
    uint32_t n = end - begin;
    float *right_area = malloc((size_t)n * sizeof *right_area);
    if (!right_area)
        return false;
    *best = (skim_sah_split){ .found = false, .cost = infinity };
    for (int axis = 0; axis < 3; ++axis) {
        qsort_r(prims + begin, n, sizeof *prims, compare_centroids, &axis);
        simde__m128 lo = simde_mm_set1_ps(infinity), hi = simde_mm_set1_ps(-infinity);
        for (uint32_t k = n; k-- > 1;) {
            accumulate_box(&lo, &hi, &prims[begin + k]);
            right_area[k] = skim_sah_half_area(lo, hi);
        }
        lo = simde_mm_set1_ps(infinity);
        hi = simde_mm_set1_ps(-infinity);
        for (uint32_t k = 1; k < n; ++k) {
            accumulate_box(&lo, &hi, &prims[begin + k - 1]);
            float left_area = skim_sah_half_area(lo, hi);
            float cost = left_area * (float)k + right_area[k] * (float)(n - k);
            if (cost < best->cost)
                *best = (skim_sah_split){ .found = true, .axis = axis, .bin = (int)k, .cost = cost,
                                          .left_count = k, .right_count = n - k,
                                          .left_area = left_area, .right_area = right_area[k] };
        }
    }
    free(right_area);
    if (best->found && best->axis != 2)
        qsort_r(prims + begin, n, sizeof *prims, compare_centroids, &best->axis);
    return true;
}

/* Whether a node of at most LEAF_PACKET primitives is a leaf whatever its
   best split: any split puts the primitive with the largest box in one
   child, so A_left + A_right >= that box's half area, and when that is at
   least half the node's, the leaf test below (1 <= 1/2 + (A_left +
   A_right) / A for one-packet children) holds for every split. In float
   too: every step (box extents, their products and sums, the division,
   the addition of 1/2) is monotone under rounding. Most nodes small
   enough to be leaves are settled here, without binning them. */
static bool surely_leaf(const skim_bvh_prim *prims, uint32_t begin, uint32_t end, float area)
{
    if (end - begin > LEAF_PACKET || !(area > 0.0f))
        return end - begin <= LEAF_PACKET;
    float largest = 0.0f;
    for (uint32_t i = begin; i < end; ++i) {
        float a = skim_sah_half_area(skim_sah_load_lo(&prims[i]), skim_sah_load_hi(&prims[i]));
        largest = a > largest ? a : largest;
    }
    return largest / area >= 0.5f;
}

static void build_subtree(build_context *ctx, uint32_t slot, uint32_t begin, uint32_t end,
                          const skim_sah_range *r, uint32_t depth);

/* The node at slot stays a leaf: in builds that give small leaves a
   second look (bvh_leaf_split.c, which leaves single triangles alone), in
   subtrees that number their nodes densely, where the split's new nodes
   take the next slots. */
static void end_as_leaf(build_context *ctx, uint32_t slot, uint32_t depth, uint32_t *dense_next)
{
    if (ctx->split_leaves && dense_next)
        skim_bvh_split_leaf(ctx->nodes, ctx->height, ctx->prims, slot, depth, MEDIAN_SPLIT_DEPTH, dense_next);
}

/* Builds the node at slot over [begin, end) and its subtree. Slots (see
   bvh_binary.h): a node of at least ctx->dense_below primitives puts its
   children at the fixed slots of its range; below that, one thread builds
   the whole subtree and numbers its nodes densely in depth-first order
   from *dense_next, so the subtree touches only the start of its range
   (the rest is never written: no page faults for it, and the collapse's
   per-slot arrays stay as compact). */
static void build_node(build_context *ctx, uint32_t slot, uint32_t begin, uint32_t end,
                       const skim_sah_range *r, uint32_t depth, uint32_t *dense_next)
{
    skim_bvh_binary_node *node = &ctx->nodes[slot];
    uint32_t n = end - begin;
    skim_bvh_prim *prims = ctx->prims;
    skim_bvh_node_set_box(node, r->lo, r->hi);
    node->first = begin;
    node->count = n;
    node->right = 0;
    float area = skim_bvh_half_area(node->lo, node->hi);
    if (ctx->height)
        ctx->height[slot] = 0; /* as a leaf; an internal node's is set once its children are built */
    if (n == 1 || (n <= ctx->max_leaf && surely_leaf(prims, begin, end, area))) {
        end_as_leaf(ctx, slot, depth, dense_next);
        return;
    }

    /* Only found is set: every other field is read only when it is true
       (an initialiser would zero the whole struct with a rep stos, whose
       start-up is costly next to build_node's own work). */
    skim_sah_split s;
    s.found = false;
    skim_sah_bin_map map;
    bool binned = false;
    if (depth < MEDIAN_SPLIT_DEPTH) {
        if (ctx->method == SKIM_BVH_SPLIT_FULL_SWEEP && choose_full_sweep_split(prims, begin, end, &s)) {
        } else {
            s = choose_binned_split(ctx, prims, begin, end, r, &map);
            binned = true;
        }
    }
    /* The leaf cost is real: a leaf costs its packets each time it is
       reached, a split costs a node visit plus the children's packets
       weighted by the chance of reaching them (the children of a node
       small enough to be a leaf would be leaves too). */
    if (n <= ctx->max_leaf) {
        bool leaf = !s.found || !(area > 0.0f) ||
                    leaf_cost(n) <= split_cost + (s.left_area * leaf_cost(s.left_count) +
                                                  s.right_area * leaf_cost(s.right_count)) / area;
        if (leaf) {
            end_as_leaf(ctx, slot, depth, dense_next);
            return;
        }
    }

    uint32_t mid = begin + n / 2;
    skim_sah_range left, right;
    if (s.found && binned && n >= SKIM_SAH_LARGE_MIN_PRIMS)
        mid = ctx->steps->partition_large(prims, begin, end, &map, &s, &left, &right, ctx->sample);
    else if (s.found && binned)
        mid = ctx->steps->partition(prims, begin, end, &map, &s, &left, &right);
    else if (s.found)
        mid = begin + s.left_count;
    if (!(s.found && binned) || mid == begin || mid == end) {
        /* No usable split (identical centroids, the depth cap, the full
           sweep's sorted order, or a large node's split, chosen from a
           sample, that leaves a side empty): split the primitive order in
           two. */
        if (mid == begin || mid == end)
            mid = begin + n / 2;
        skim_sah_range_of(prims, begin, mid, &left);
        skim_sah_range_of(prims, mid, end, &right);
    }
    node->count = 0;
    if (dense_next) {
        node->first = (*dense_next)++;
        build_node(ctx, node->first, begin, mid, &left, depth + 1, dense_next);
        node->right = (*dense_next)++;
        build_node(ctx, node->right, mid, end, &right, depth + 1, dense_next);
        /* The treelet pass's step here, while the subtree is in cache (the
           same post-order as a pass over the finished tree: a step reads
           and writes only its own subtree, all of it done). Nodes built
           with tasks are done after the build (restructure_top). */
        if (ctx->height) {
            if (n >= TREELET_MIN_PRIMS)
                skim_bvh_treelet_at(ctx->nodes, ctx->height, slot, depth, MEDIAN_SPLIT_DEPTH);
            else
                skim_bvh_set_height(ctx->nodes, ctx->height, slot);
        }
        return;
    }
    node->first = slot + 1;
    node->right = slot + 2 * (mid - begin);
    uint32_t left_slot = node->first, right_slot = node->right;
    if (ctx->parallel && n >= SKIM_SAH_TASK_MIN_PRIMS) {
        #pragma omp task firstprivate(left_slot, begin, mid, left, depth)
        build_subtree(ctx, left_slot, begin, mid, &left, depth + 1);
        build_subtree(ctx, right_slot, mid, end, &right, depth + 1);
        /* No taskwait: nothing here reads the left subtree, and the end of
           the parallel region waits for every task. */
    } else {
        build_subtree(ctx, left_slot, begin, mid, &left, depth + 1);
        build_subtree(ctx, right_slot, mid, end, &right, depth + 1);
    }
}

/* The subtree rooted at slot, which owns the 2n - 1 slots from there:
   numbered densely when it is small (see build_node). */
static void build_subtree(build_context *ctx, uint32_t slot, uint32_t begin, uint32_t end,
                          const skim_sah_range *r, uint32_t depth)
{
    uint32_t dense_next = slot + 1;
    build_node(ctx, slot, begin, end, r, depth, end - begin < ctx->dense_below ? &dense_next : NULL);
}

/* The treelet pass's steps at the nodes built with fixed slots (at least
   SKIM_SAH_TASK_MIN_PRIMS primitives, children at slot + 1 and
   slot + 2 * n_left), in post-order after the build: their subtrees may
   have been built by other threads, and are all done now. The smaller
   subtrees took their steps as they were built. */
static void restructure_top(build_context *ctx, uint32_t slot, uint32_t n, uint32_t depth)
{
    const skim_bvh_binary_node *node = &ctx->nodes[slot];
    if (n < SKIM_SAH_TASK_MIN_PRIMS || node->count)
        return;
    uint32_t left = node->first, right = node->right, n_left = (right - slot) / 2;
    restructure_top(ctx, left, n_left, depth + 1);
    restructure_top(ctx, right, n - n_left, depth + 1);
    skim_bvh_treelet_at(ctx->nodes, ctx->height, slot, depth, MEDIAN_SPLIT_DEPTH);
}

skim_status skim_bvh_build_binary_over(skim_bvh_prim *prims, uint32_t n, const skim_world_def *def,
                                       skim_bvh_split_method method, skim_bvh_binary_tree *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > SKIM_BVH_MAX_TRIANGLES) {
        free(prims);
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "BVH: %u triangles (a BVH holds 1 to %u)", n, SKIM_BVH_MAX_TRIANGLES);
    }
    out->prim_count = n;
    out->prims = prims;
    out->nodes = malloc((2 * (size_t)n - 1) * sizeof(skim_bvh_binary_node));
    if (!out->nodes) {
        skim_bvh_binary_free(out);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH build: %u triangles", n);
    }
    int threads = skim_build_thread_count(def);
    bool binned = method != SKIM_BVH_SPLIT_FULL_SWEEP;
    bool parallel = threads > 1 && n >= SKIM_SAH_TASK_MIN_PRIMS && binned;

    skim_sah_range root;
    skim_sah_range_of(prims, 0, n, &root);

    build_context ctx = {
        .steps = steps_for_this_cpu(), .prims = prims, .nodes = out->nodes, .bin_count = def->sah_bins,
        .max_leaf = (uint32_t)def->max_leaf_triangles, .method = method, .parallel = parallel,
        .split_leaves = binned && n < TREELET_MAX_PRIMS,
        .dense_below = n < TREELET_MAX_PRIMS ? SKIM_SAH_TASK_MIN_PRIMS : DENSE_LARGE_PRIMS,
    };
    if (method == SKIM_BVH_SPLIT_BINNED && n < TREELET_MAX_PRIMS) {
        ctx.height = malloc(2 * (size_t)n - 1);
        if (!ctx.height) {
            skim_bvh_binary_free(out);
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH build: %u triangles", n);
        }
    }
    if (n >= SKIM_SAH_LARGE_MIN_PRIMS && binned) {
        size_t sampled = (n + SKIM_SAH_SAMPLE - 1) / SKIM_SAH_SAMPLE;
        ctx.sample = aligned_alloc(64, (sampled * sizeof *ctx.sample + 63) / 64 * 64);
        if (!ctx.sample) {
            free(ctx.height);
            skim_bvh_binary_free(out);
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH build: sample of %u triangles", n);
        }
        for (size_t k = 0; k < sampled; ++k)
            ctx.sample[k] = prims[k * SKIM_SAH_SAMPLE];
    }
    if (parallel) {
        #pragma omp parallel num_threads(threads)
        #pragma omp single
        build_subtree(&ctx, 0, 0, n, &root, 1);
    } else {
        build_subtree(&ctx, 0, 0, n, &root, 1);
    }
    free(ctx.sample);
    if (ctx.height)
        restructure_top(&ctx, 0, n, 1);
    free(ctx.height);
    return SKIM_OK;
}
