/* The binary SAH builder: binned surface area heuristic (Wald 2007, "On fast
   construction of SAH-based bounding volume hierarchies"), top-down, with a
   real leaf cost; OpenMP tasks over subtrees and over the binning of large
   nodes. Deterministic: every decision depends only on the primitives of a
   node, never on which thread looked at them, node slots are fixed by
   primitive counts (bvh_binary.h), and the bin reductions are min, max and
   integer sums, which give the same bits in any order.

   A full-sweep variant (exact SAH over centroids sorted on each axis) is
   kept as the yardstick the binned builder is measured against. */
#include "bvh_binary.h"

#include <math.h>
#include <omp.h>
#include <simde/x86/sse2.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_BINS = 32,
    /* Below this many primitives a subtree is built by the thread that
       found it: a task costs more than the work. */
    TASK_MIN_PRIMS = 4096,
    /* Nodes this large are binned by several tasks, chunk by chunk. */
    PARALLEL_BIN_MIN_PRIMS = 1 << 17,
    BIN_CHUNK = 1 << 15,
    /* Past this depth splits go to the middle of the primitive order, which
       halves the count: the depth stays below SKIM_BVH_MAX_DEPTH for any
       input, however adversarial its geometry. */
    MEDIAN_SPLIT_DEPTH = 64,
};

/* The SAH weights of the build's decisions, from what a query does (counted
   with callgrind on oa_dm1): a leaf is read by the gather four triangles at
   a time (one SSE box test and transform of ~110 instructions, whether 1
   or 4 lanes are used), and a binary node is about a seventh of an 8-wide
   node visit (~60 instructions), i.e. a quarter of a leaf packet. So a leaf
   costs ceil(n / 4) packets and a split half a packet (0.25 and 1 measured:
   within 1% in bytes and query instructions): leaves fill up to four
   triangles unless their triangles are far apart (on the real levels they
   often are: about 3 a leaf), which also keeps the nodes few.

   The cost reported in the statistics (and the binary tree's sah_cost)
   uses the conventional weights instead, 1 per node and 1 per triangle,
   so it compares with other builders. */
static const float split_cost = 0.5f;
enum { LEAF_PACKET = 4 };
static const float traversal_cost = 1.0f;
static const float triangle_cost = 1.0f;

static float leaf_cost(uint32_t triangles)
{
    return (float)((triangles + LEAF_PACKET - 1) / LEAF_PACKET);
}

typedef struct range_info {
    simde__m128 lo, hi;                   /* box of the primitives */
    simde__m128 centroid_lo, centroid_hi; /* bounds of lo + hi (twice the centroid) */
} range_info;

typedef struct bin_map {
    simde__m128 offset, scale, top;
} bin_map;

typedef struct bins {
    simde__m128 lo[3][MAX_BINS], hi[3][MAX_BINS];
    uint32_t    count[3][MAX_BINS];
} bins;

typedef struct split {
    bool     found;
    int      axis, bin;
    float    cost;          /* A_left * N_left + A_right * N_right */
    uint32_t left_count, right_count;
    float    left_area, right_area;
} split;

typedef struct build_context {
    skim_bvh_prim        *prims;
    skim_bvh_binary_node *nodes;
    int                   bin_count;
    uint32_t              max_leaf;
    skim_bvh_split_method method;
    bool                  parallel;
} build_context;

static const float infinity = INFINITY;

/* The box halves of a primitive with the id lane zeroed. */
static inline simde__m128 load_lo(const skim_bvh_prim *p)
{
    const simde__m128 xyz = simde_mm_castsi128_ps(simde_mm_set_epi32(0, -1, -1, -1));
    return simde_mm_and_ps(simde_mm_load_ps(p->lo), xyz);
}
static inline simde__m128 load_hi(const skim_bvh_prim *p) { return simde_mm_load_ps(p->hi); }

static void range_clear(range_info *r)
{
    r->lo = r->centroid_lo = simde_mm_set1_ps(infinity);
    r->hi = r->centroid_hi = simde_mm_set1_ps(-infinity);
}

static void range_add(range_info *r, simde__m128 lo, simde__m128 hi)
{
    simde__m128 centroid = simde_mm_add_ps(lo, hi);
    r->lo = simde_mm_min_ps(r->lo, lo);
    r->hi = simde_mm_max_ps(r->hi, hi);
    r->centroid_lo = simde_mm_min_ps(r->centroid_lo, centroid);
    r->centroid_hi = simde_mm_max_ps(r->centroid_hi, centroid);
}

static void range_of(const skim_bvh_prim *prims, uint32_t begin, uint32_t end, range_info *r)
{
    range_clear(r);
    for (uint32_t i = begin; i < end; ++i)
        range_add(r, load_lo(&prims[i]), load_hi(&prims[i]));
}

/* skim_bvh_half_area in registers: dx*dy + dy*dz + dz*dx, summed in that
   order (so it equals the scalar form bit for bit). */
static inline float half_area_m128(simde__m128 lo, simde__m128 hi)
{
    simde__m128 d = simde_mm_sub_ps(hi, lo);
    simde__m128 products = simde_mm_mul_ps(d, simde_mm_shuffle_ps(d, d, SIMDE_MM_SHUFFLE(3, 0, 2, 1)));
    simde__m128 sum = simde_mm_add_ss(products, simde_mm_shuffle_ps(products, products, SIMDE_MM_SHUFFLE(1, 1, 1, 1)));
    sum = simde_mm_add_ss(sum, simde_mm_shuffle_ps(products, products, SIMDE_MM_SHUFFLE(2, 2, 2, 2)));
    return simde_mm_cvtss_f32(sum);
}

static bin_map make_bin_map(const range_info *r, int bin_count)
{
    float lo[4], hi[4], scale[4] = { 0 };
    simde_mm_storeu_ps(lo, r->centroid_lo);
    simde_mm_storeu_ps(hi, r->centroid_hi);
    for (int axis = 0; axis < 3; ++axis) {
        float extent = hi[axis] - lo[axis];
        /* Slightly under bin_count / extent so the largest centroid lands
           in the last bin rather than one past it. */
        scale[axis] = extent > 0.0f ? (float)bin_count * 0.99999f / extent : 0.0f;
        if (!isfinite(scale[axis]))
            scale[axis] = 0.0f;
    }
    lo[3] = 0.0f;
    bin_map map = {
        .offset = simde_mm_loadu_ps(lo),
        .scale = simde_mm_loadu_ps(scale),
        .top = simde_mm_set1_ps((float)(bin_count - 1)),
    };
    return map;
}

/* The bin of a primitive on each axis. Clamping happens in float before
   the conversion (max returns its second operand for NaN), so the index is
   in range for any input. The partition uses this very function, so a
   primitive always goes to the side its bin was counted on. */
static inline simde__m128i bin_of(const bin_map *map, simde__m128 lo, simde__m128 hi)
{
    simde__m128 t = simde_mm_mul_ps(simde_mm_sub_ps(simde_mm_add_ps(lo, hi), map->offset),
                                    map->scale);
    t = simde_mm_min_ps(simde_mm_max_ps(t, simde_mm_setzero_ps()), map->top);
    return simde_mm_cvttps_epi32(t);
}

static void bins_clear(bins *b, int bin_count)
{
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < bin_count; ++k) {
            b->lo[axis][k] = simde_mm_set1_ps(infinity);
            b->hi[axis][k] = simde_mm_set1_ps(-infinity);
            b->count[axis][k] = 0;
        }
}

static void bins_add(bins *b, const skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                     const bin_map *map)
{
    for (uint32_t i = begin; i < end; ++i) {
        simde__m128 lo = load_lo(&prims[i]), hi = load_hi(&prims[i]);
        int32_t k[4];
        simde_mm_storeu_si128((simde__m128i *)k, bin_of(map, lo, hi));
        for (int axis = 0; axis < 3; ++axis) {
            b->lo[axis][k[axis]] = simde_mm_min_ps(b->lo[axis][k[axis]], lo);
            b->hi[axis][k[axis]] = simde_mm_max_ps(b->hi[axis][k[axis]], hi);
            b->count[axis][k[axis]]++;
        }
    }
}

static void bins_merge(bins *into, const bins *from, int bin_count)
{
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < bin_count; ++k) {
            into->lo[axis][k] = simde_mm_min_ps(into->lo[axis][k], from->lo[axis][k]);
            into->hi[axis][k] = simde_mm_max_ps(into->hi[axis][k], from->hi[axis][k]);
            into->count[axis][k] += from->count[axis][k];
        }
}

/* Fills b for [begin, end): in chunks over tasks when the node is large. */
static void bin_node(const build_context *ctx, uint32_t begin, uint32_t end, const bin_map *map,
                     int bin_count, bins *b)
{
    bins_clear(b, bin_count);
    uint32_t n = end - begin;
    bins *partial = NULL;
    uint32_t chunks = (n + BIN_CHUNK - 1) / BIN_CHUNK;
    if (ctx->parallel && n >= PARALLEL_BIN_MIN_PRIMS)
        partial = aligned_alloc(64, (size_t)chunks * sizeof *partial);
    if (!partial) { /* small node, or no memory for the partial bins: bin here */
        bins_add(b, ctx->prims, begin, end, map);
        return;
    }
    for (uint32_t c = 0; c < chunks; ++c) {
        #pragma omp task firstprivate(c) shared(partial)
        {
            uint32_t from = begin + c * BIN_CHUNK;
            uint32_t to = n - c * BIN_CHUNK > BIN_CHUNK ? from + BIN_CHUNK : end;
            bins_clear(&partial[c], bin_count);
            bins_add(&partial[c], ctx->prims, from, to, map);
        }
    }
    #pragma omp taskwait
    for (uint32_t c = 0; c < chunks; ++c)
        bins_merge(b, &partial[c], bin_count);
    free(partial);
}

/* The best binned split of a node: sweep each axis's bins from the right
   recording areas and counts, then from the left. Ties keep the first
   (lowest axis, lowest bin), so the choice is deterministic. Kept out of
   build_node so the bins' few kilobytes are off the stack while the
   recursion goes deeper. */
static split choose_binned_split(const build_context *ctx, uint32_t begin, uint32_t end,
                                 const range_info *r, bin_map *map)
{
    bins b;
    /* A node of n primitives gets at most n bins: more cannot separate
       more centroids, and evaluating 16 or 32 bins on three axes at every
       small node was 40% of the build's instructions. */
    uint32_t n_prims = end - begin;
    const int n = n_prims < (uint32_t)ctx->bin_count ? (int)n_prims : ctx->bin_count;
    *map = make_bin_map(r, n);
    bin_node(ctx, begin, end, map, n, &b);
    split best = { .found = false, .cost = infinity };
    float centroid_lo[4], centroid_hi[4];
    simde_mm_storeu_ps(centroid_lo, r->centroid_lo);
    simde_mm_storeu_ps(centroid_hi, r->centroid_hi);
    for (int axis = 0; axis < 3; ++axis) {
        if (!(centroid_hi[axis] > centroid_lo[axis]))
            continue;
        float right_area[MAX_BINS];
        uint32_t right_count[MAX_BINS];
        simde__m128 lo = simde_mm_set1_ps(infinity), hi = simde_mm_set1_ps(-infinity);
        uint32_t count = 0;
        for (int k = n - 1; k > 0; --k) {
            lo = simde_mm_min_ps(lo, b.lo[axis][k]);
            hi = simde_mm_max_ps(hi, b.hi[axis][k]);
            count += b.count[axis][k];
            right_area[k] = count ? half_area_m128(lo, hi) : 0.0f;
            right_count[k] = count;
        }
        lo = simde_mm_set1_ps(infinity);
        hi = simde_mm_set1_ps(-infinity);
        count = 0;
        for (int k = 1; k < n; ++k) {
            lo = simde_mm_min_ps(lo, b.lo[axis][k - 1]);
            hi = simde_mm_max_ps(hi, b.hi[axis][k - 1]);
            count += b.count[axis][k - 1];
            if (count == 0 || right_count[k] == 0)
                continue;
            float left_area = half_area_m128(lo, hi);
            float cost = left_area * (float)count + right_area[k] * (float)right_count[k];
            if (cost < best.cost) {
                best = (split){ .found = true, .axis = axis, .bin = k, .cost = cost,
                                .left_count = count, .right_count = right_count[k],
                                .left_area = left_area, .right_area = right_area[k] };
            }
        }
    }
    return best;
}

/* Hoare partition by bin: [begin, mid) below split->bin, [mid, end) at or
   above, accumulating each side's box and centroid bounds on the way. */
static uint32_t partition_by_bin(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                                 const bin_map *map, const split *s, range_info *left,
                                 range_info *right)
{
    range_clear(left);
    range_clear(right);
    uint32_t i = begin, j = end;
    for (;;) {
        for (; i < j; ++i) {
            simde__m128 lo = load_lo(&prims[i]), hi = load_hi(&prims[i]);
            int32_t k[4];
            simde_mm_storeu_si128((simde__m128i *)k, bin_of(map, lo, hi));
            if (k[s->axis] >= s->bin)
                break;
            range_add(left, lo, hi);
        }
        for (; i < j; --j) {
            simde__m128 lo = load_lo(&prims[j - 1]), hi = load_hi(&prims[j - 1]);
            int32_t k[4];
            simde_mm_storeu_si128((simde__m128i *)k, bin_of(map, lo, hi));
            if (k[s->axis] < s->bin)
                break;
            range_add(right, lo, hi);
        }
        if (i >= j)
            return i;
        skim_bvh_prim swap = prims[i];
        prims[i] = prims[j - 1];
        prims[j - 1] = swap;
    }
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

/* Exact SAH: every position between centroids sorted on every axis. Leaves
   [begin, end) sorted on the chosen axis. Returns false without memory. */
static bool choose_full_sweep_split(skim_bvh_prim *prims, uint32_t begin, uint32_t end,
                                    split *best)
{
    uint32_t n = end - begin;
    float *right_area = malloc((size_t)n * sizeof *right_area);
    if (!right_area)
        return false;
    *best = (split){ .found = false, .cost = infinity };
    for (int axis = 0; axis < 3; ++axis) {
        qsort_r(prims + begin, n, sizeof *prims, compare_centroids, &axis);
        range_info acc;
        range_clear(&acc);
        for (uint32_t k = n; k-- > 1;) {
            range_add(&acc, load_lo(&prims[begin + k]), load_hi(&prims[begin + k]));
            right_area[k] = half_area_m128(acc.lo, acc.hi);
        }
        range_clear(&acc);
        for (uint32_t k = 1; k < n; ++k) {
            range_add(&acc, load_lo(&prims[begin + k - 1]),
                      load_hi(&prims[begin + k - 1]));
            float left_area = half_area_m128(acc.lo, acc.hi);
            float cost = left_area * (float)k + right_area[k] * (float)(n - k);
            if (cost < best->cost)
                *best = (split){ .found = true, .axis = axis, .bin = (int)k, .cost = cost,
                                 .left_count = k, .right_count = n - k,
                                 .left_area = left_area, .right_area = right_area[k] };
        }
    }
    free(right_area);
    if (best->found && best->axis != 2)
        qsort_r(prims + begin, n, sizeof *prims, compare_centroids, &best->axis);
    return true;
}

static void build_node(const build_context *ctx, uint32_t slot, uint32_t begin, uint32_t end,
                       const range_info *r, uint32_t depth)
{
    skim_bvh_binary_node *node = &ctx->nodes[slot];
    float lo[4], hi[4];
    simde_mm_storeu_ps(lo, r->lo);
    simde_mm_storeu_ps(hi, r->hi);
    memcpy(node->lo, lo, sizeof node->lo);
    memcpy(node->hi, hi, sizeof node->hi);
    uint32_t n = end - begin;
    node->first = begin;
    node->count = n;
    node->right = 0;
    if (n == 1)
        return;

    split s = { .found = false };
    bin_map map;
    bool binned = false;
    if (depth < MEDIAN_SPLIT_DEPTH) {
        if (ctx->method == SKIM_BVH_SPLIT_FULL_SWEEP && choose_full_sweep_split(ctx->prims, begin, end, &s)) {
        } else {
            s = choose_binned_split(ctx, begin, end, r, &map);
            binned = true;
        }
    }
    /* The leaf cost is real: a leaf costs its packets each time it is
       reached, a split costs a node visit plus the children's packets
       weighted by the chance of reaching them (the children of a node
       small enough to be a leaf would be leaves too). */
    float area = skim_bvh_half_area(lo, hi);
    if (n <= ctx->max_leaf) {
        bool leaf = !s.found || !(area > 0.0f) ||
                    leaf_cost(n) <= split_cost + (s.left_area * leaf_cost(s.left_count) +
                                                  s.right_area * leaf_cost(s.right_count)) / area;
        if (leaf)
            return;
    }

    uint32_t mid = begin + n / 2;
    range_info left, right;
    if (s.found && binned) {
        mid = partition_by_bin(ctx->prims, begin, end, &map, &s, &left, &right);
    } else if (s.found) {
        mid = begin + s.left_count;
    }
    if (!(s.found && binned) || mid == begin || mid == end) {
        /* No usable split (identical centroids, the depth cap, or the
           full sweep's sorted order): split the primitive order in two. */
        if (mid == begin || mid == end)
            mid = begin + n / 2;
        range_of(ctx->prims, begin, mid, &left);
        range_of(ctx->prims, mid, end, &right);
    }
    node->count = 0;
    node->first = slot + 1;
    node->right = slot + 2 * (mid - begin);
    uint32_t left_slot = node->first, right_slot = node->right;
    if (ctx->parallel && n >= TASK_MIN_PRIMS) {
        #pragma omp task firstprivate(left_slot, begin, mid, left, depth)
        build_node(ctx, left_slot, begin, mid, &left, depth + 1);
        build_node(ctx, right_slot, mid, end, &right, depth + 1);
        /* No taskwait: nothing here reads the left subtree, and the end of
           the parallel region waits for every task. */
    } else {
        build_node(ctx, left_slot, begin, mid, &left, depth + 1);
        build_node(ctx, right_slot, mid, end, &right, depth + 1);
    }
}

/* Depth, counts and SAH cost, by an explicit-stack walk (serial: cheap next
   to the build, and its sum is then in one fixed order). */
static void measure_binary(skim_bvh_binary_tree *tree)
{
    struct { uint32_t slot, depth; } stack[2 * SKIM_BVH_MAX_DEPTH + 2];
    uint32_t top = 0;
    stack[top++].slot = 0;
    stack[0].depth = 1;
    const skim_bvh_binary_node *root = &tree->nodes[0];
    double root_area = skim_bvh_half_area(root->lo, root->hi);
    double cost = 0.0;
    tree->internal_count = tree->leaf_count = tree->depth = 0;
    while (top) {
        --top;
        uint32_t slot = stack[top].slot, depth = stack[top].depth;
        const skim_bvh_binary_node *node = &tree->nodes[slot];
        double relative = root_area > 0.0 ? skim_bvh_half_area(node->lo, node->hi) / root_area : 1.0;
        tree->depth = depth > tree->depth ? depth : tree->depth;
        if (node->count) {
            tree->leaf_count++;
            cost += relative * node->count * triangle_cost;
            continue;
        }
        tree->internal_count++;
        cost += relative * traversal_cost;
        stack[top].slot = node->right;
        stack[top++].depth = depth + 1;
        stack[top].slot = node->first;
        stack[top++].depth = depth + 1;
    }
    tree->sah_cost = cost;
}

skim_status skim_bvh_build_binary(const skim_world *world, const skim_world_def *def,
                                  skim_bvh_split_method method, skim_bvh_binary_tree *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = world->triangle_count;
    if (n == 0 || n > SKIM_BVH_MAX_TRIANGLES)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT,
                         "BVH: %u triangles (a BVH holds 1 to %u)", n, SKIM_BVH_MAX_TRIANGLES);
    out->prim_count = n;
    out->prims = aligned_alloc(64, ((size_t)n * sizeof(skim_bvh_prim) + 63) / 64 * 64);
    out->nodes = malloc((2 * (size_t)n - 1) * sizeof(skim_bvh_binary_node));
    if (!out->prims || !out->nodes) {
        skim_bvh_binary_free(out);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH build: %u triangles", n);
    }
    int threads = def->build_threads > 0 ? def->build_threads : omp_get_max_threads();
    bool parallel = threads > 1 && n >= TASK_MIN_PRIMS && method == SKIM_BVH_SPLIT_BINNED;

    skim_bvh_prim *prims = out->prims;
    #pragma omp parallel for schedule(static) num_threads(threads) if(parallel)
    for (uint32_t i = 0; i < n; ++i) {
        for (int axis = 0; axis < 3; ++axis) {
            float a = world->vertex[0][axis][i], b = world->vertex[1][axis][i],
                  c = world->vertex[2][axis][i];
            /* Plain comparisons: the coordinates are finite, and fminf is a
               library call without -ffast-math. */
            float lo = a < b ? a : b, hi = a < b ? b : a;
            prims[i].lo[axis] = c < lo ? c : lo;
            prims[i].hi[axis] = c > hi ? c : hi;
        }
        memcpy(&prims[i].lo[3], &i, sizeof i);
        prims[i].hi[3] = 0.0f;
    }
    range_info root;
    range_of(prims, 0, n, &root);

    build_context ctx = {
        .prims = prims, .nodes = out->nodes, .bin_count = def->sah_bins,
        .max_leaf = (uint32_t)def->max_leaf_triangles, .method = method, .parallel = parallel,
    };
    if (parallel) {
        #pragma omp parallel num_threads(threads)
        #pragma omp single
        build_node(&ctx, 0, 0, n, &root, 1);
    } else {
        build_node(&ctx, 0, 0, n, &root, 1);
    }
    measure_binary(out);
    return SKIM_OK;
}

void skim_bvh_binary_free(skim_bvh_binary_tree *tree)
{
    free(tree->prims);
    free(tree->nodes);
    memset(tree, 0, sizeof *tree);
}
