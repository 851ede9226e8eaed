/* The loader's check that a baked tree is the tree of its triangles.

   skim_bvh_validate (bvh_collapse.c) proves a file's tree cannot make a
   query read out of bounds or loop; the checksum proves the bytes are what
   some writer wrote. Neither proves the tree answers correctly: a tool that
   rewrites node bytes and recomputes the checksum could shrink a child box
   below its triangles, or leave a triangle out of every leaf, and sweeps
   would then silently pass through geometry. The traversals' exactness
   argument (bvh_ordered.c) needs exactly two facts, checked here:
   - every triangle is in exactly one leaf;
   - every child box contains the true bounds of everything below it.
   Containment is checked in double, where origin + q * 2^exponent is exact
   (q has 8 bits, origin is a float), the arithmetic the builder's
   quantize_child uses to round its boxes outward: a tree skim built always
   passes, bit for bit.

   One pass over the nodes from the last to the first (a child's index is
   greater than its parent's, which skim_bvh_validate has checked), each
   leaf's triangles read once; the per-triangle check of what
   skim_world_create keeps is folded into the same pass, so the triangles
   are read from memory once at load. It also gives the triangles' true
   bounds, which the loader holds against the header's (the far-triangle
   test trusts those). */
#include "world/world_bvh.h"

#include <float.h>
#include <math.h>
#include <simde/x86/sse2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *skim_stored_triangle_problem(const skim_world *world, uint32_t t)
{
    float corner[3][3];
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis) {
            corner[v][axis] = world->vertex[v][axis][t];
            if (!(fabsf(corner[v][axis]) <= SKIM_COORDINATE_MAX))
                return "a stored vertex is not finite or beyond SKIM_COORDINATE_MAX";
        }
    float ab[3], ac[3];
    for (int axis = 0; axis < 3; ++axis) {
        ab[axis] = corner[1][axis] - corner[0][axis];
        ac[axis] = corner[2][axis] - corner[0][axis];
    }
    const float n[3] = { ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2],
                         ab[0] * ac[1] - ab[1] * ac[0] };
    const float length_sq = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    /* +inf (a huge triangle) is kept, as skim_world_create keeps it. */
    if (!(length_sq > 0.0f))
        return "a stored triangle is degenerate (its normal cannot be formed)";
    return NULL;
}

typedef struct box {
    float lo[3], hi[3];
} box;

static void box_grow(box *b, const float lo[3], const float hi[3])
{
    for (int axis = 0; axis < 3; ++axis) {
        b->lo[axis] = lo[axis] < b->lo[axis] ? lo[axis] : b->lo[axis];
        b->hi[axis] = hi[axis] > b->hi[axis] ? hi[axis] : b->hi[axis];
    }
}

static const box empty_box = { { INFINITY, INFINITY, INFINITY }, { -INFINITY, -INFINITY, -INFINITY } };

/* Whether the child box in slot of node, dequantised, contains inner. */
static bool slot_contains(const skim_bvh_node *node, uint32_t slot, const box *inner)
{
    static const int lo_row[3] = { SKIM_BVH_LO_X, SKIM_BVH_LO_Y, SKIM_BVH_LO_Z };
    static const int chi_row[3] = { SKIM_BVH_CHI_X, SKIM_BVH_CHI_Y, SKIM_BVH_CHI_Z };
    for (int axis = 0; axis < 3; ++axis) {
        const double origin = node->origin[axis], scale = skim_bvh_power_of_two(node->exponent[axis]);
        const double lo = origin + node->bounds[lo_row[axis]][slot] * scale;
        const double hi = origin + (255 - node->bounds[chi_row[axis]][slot]) * scale;
        if (!(lo <= (double)inner->lo[axis] && (double)inner->hi[axis] <= hi))
            return false;
    }
    return true;
}

/* Checks leaf [first, first + count): each triangle once, each kept by
   skim_world_create's rules; grows bounds by them. Four triangles at a
   time (a leaf holds 3 to 4 on average): the load-time cost of this pass
   is what a user waits for, every start of a server. Lanes past the leaf
   read the stored arrays' padding or the next triangles (the arrays are
   padded to a multiple of 16 and followed by the rest of the file block, as
   the gather relies on too) and are masked out. */
static const char *check_leaf(const skim_world *world, uint32_t ref, uint8_t *seen, box *bounds)
{
    const uint32_t first = skim_bvh_leaf_first(ref), count = skim_bvh_leaf_count(ref);
    for (uint32_t t = first; t < first + count; ++t) {
        if (seen[t >> 3] & (1u << (t & 7)))
            return "a triangle is in two leaves";
        seen[t >> 3] |= (uint8_t)(1u << (t & 7));
    }
    const simde__m128 limit = simde_mm_set1_ps(SKIM_COORDINATE_MAX);
    const simde__m128 sign = simde_mm_set1_ps(-0.0f);
    const simde__m128 zero = simde_mm_setzero_ps();
    const simde__m128 lane_index = simde_mm_set_ps(3.0f, 2.0f, 1.0f, 0.0f);
    simde__m128 lo[3], hi[3];
    for (int axis = 0; axis < 3; ++axis) {
        lo[axis] = simde_mm_set1_ps(INFINITY);
        hi[axis] = simde_mm_set1_ps(-INFINITY);
    }
    for (uint32_t t = first; t < first + count; t += 4) {
        const simde__m128 live =
            simde_mm_cmplt_ps(lane_index, simde_mm_set1_ps((float)(first + count - t)));
        simde__m128 corner[3][3];
        simde__m128 ok = live;
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis) {
                corner[v][axis] = simde_mm_loadu_ps(world->vertex[v][axis] + t);
                /* |x| <= limit is false for NaN. |x| is x and not the sign
                   bit (x86's andnot(a, b) is ~a & b). */
                ok = simde_mm_and_ps(ok, simde_mm_cmple_ps(simde_mm_andnot_ps(sign, corner[v][axis]), limit));
            }
        simde__m128 ab[3], ac[3];
        for (int axis = 0; axis < 3; ++axis) {
            ab[axis] = simde_mm_sub_ps(corner[1][axis], corner[0][axis]);
            ac[axis] = simde_mm_sub_ps(corner[2][axis], corner[0][axis]);
        }
        /* The normal exactly as skim_stored_triangle_problem forms it. */
        const simde__m128 n0 = simde_mm_sub_ps(simde_mm_mul_ps(ab[1], ac[2]), simde_mm_mul_ps(ab[2], ac[1]));
        const simde__m128 n1 = simde_mm_sub_ps(simde_mm_mul_ps(ab[2], ac[0]), simde_mm_mul_ps(ab[0], ac[2]));
        const simde__m128 n2 = simde_mm_sub_ps(simde_mm_mul_ps(ab[0], ac[1]), simde_mm_mul_ps(ab[1], ac[0]));
        const simde__m128 length_sq =
            simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(n0, n0), simde_mm_mul_ps(n1, n1)),
                            simde_mm_mul_ps(n2, n2));
        ok = simde_mm_and_ps(ok, simde_mm_cmpgt_ps(length_sq, zero));
        if (simde_mm_movemask_ps(ok) != simde_mm_movemask_ps(live)) {
            /* Say which rule failed, in the scalar terms. */
            for (uint32_t k = t; k < first + count && k < t + 4; ++k) {
                const char *problem = skim_stored_triangle_problem(world, k);
                if (problem)
                    return problem;
            }
            return "a stored triangle is degenerate (its normal cannot be formed)";
        }
        /* Dead lanes contribute +-infinity: live ? low : infinity, as
           (live and low) or (infinity and not live); andnot(a, b) is ~a & b. */
        for (int axis = 0; axis < 3; ++axis) {
            simde__m128 low = simde_mm_min_ps(corner[0][axis], simde_mm_min_ps(corner[1][axis], corner[2][axis]));
            simde__m128 high = simde_mm_max_ps(corner[0][axis], simde_mm_max_ps(corner[1][axis], corner[2][axis]));
            lo[axis] = simde_mm_min_ps(lo[axis], simde_mm_or_ps(simde_mm_and_ps(live, low),
                                                                simde_mm_andnot_ps(live, simde_mm_set1_ps(INFINITY))));
            hi[axis] = simde_mm_max_ps(hi[axis], simde_mm_or_ps(simde_mm_and_ps(live, high),
                                                                simde_mm_andnot_ps(live, simde_mm_set1_ps(-INFINITY))));
        }
    }
    for (int axis = 0; axis < 3; ++axis) {
        float l[4], h[4];
        simde_mm_storeu_ps(l, lo[axis]);
        simde_mm_storeu_ps(h, hi[axis]);
        for (int k = 0; k < 4; ++k) {
            bounds->lo[axis] = l[k] < bounds->lo[axis] ? l[k] : bounds->lo[axis];
            bounds->hi[axis] = h[k] > bounds->hi[axis] ? h[k] : bounds->hi[axis];
        }
    }
    return NULL;
}

bool skim_bvh_check_geometry(const skim_world *world, const skim_bvh_node *nodes,
                             uint32_t node_count, uint32_t root, float bounds_lo[3],
                             float bounds_hi[3], char *reason, size_t reason_size, bool *out_of_memory)
{
    *out_of_memory = false;
    const uint32_t triangles = world->triangle_count;
    uint8_t *seen = calloc((size_t)triangles / 8 + 1, 1);
    box *subtree = node_count ? malloc((size_t)node_count * sizeof *subtree) : NULL;
    if (!seen || (node_count && !subtree)) {
        free(seen);
        free(subtree);
        snprintf(reason, reason_size, "no memory to check the tree against its triangles");
        *out_of_memory = true;
        return false;
    }
    const char *problem = NULL;
    int64_t at = -1; /* the node whose box is wrong */
    box all = empty_box; /* every triangle's corners: the world's true bounds */
    if (node_count == 0)
        problem = check_leaf(world, root, seen, &all);
    /* Leaves first, nodes in index order: the builder stores leaves in the
       order its nodes are numbered, so the triangles stream through once,
       front to back. subtree[i] starts as the union of node i's leaves. */
    for (uint32_t i = 0; i < node_count && !problem; ++i) {
        const skim_bvh_node *node = &nodes[i];
        subtree[i] = empty_box;
        for (uint32_t slot = 0; slot < SKIM_BVH_WIDTH && !problem; ++slot) {
            const uint32_t ref = node->child[slot];
            if (!((node->child_mask >> slot) & 1u) || !skim_bvh_is_leaf(ref))
                continue;
            box below = empty_box;
            problem = check_leaf(world, ref, seen, &below);
            if (!problem && !slot_contains(node, slot, &below)) {
                problem = "a child box does not contain its triangles";
                at = i;
            }
            if (!problem)
                box_grow(&subtree[i], below.lo, below.hi);
        }
    }
    /* Then the inner children, last node first: a child's index is greater
       than its parent's (skim_bvh_validate), so its subtree is complete. */
    for (uint32_t i = node_count; i-- > 0 && !problem;) {
        const skim_bvh_node *node = &nodes[i];
        for (uint32_t slot = 0; slot < SKIM_BVH_WIDTH && !problem; ++slot) {
            const uint32_t ref = node->child[slot];
            if (!((node->child_mask >> slot) & 1u) || skim_bvh_is_leaf(ref))
                continue;
            if (!slot_contains(node, slot, &subtree[ref])) {
                problem = "a child box does not contain its triangles";
                at = i;
            } else {
                box_grow(&subtree[i], subtree[ref].lo, subtree[ref].hi);
            }
        }
    }
    for (uint32_t t = 0; t < triangles && !problem; ++t)
        if (!(seen[t >> 3] & (1u << (t & 7))))
            problem = "a triangle is in no leaf";
    if (node_count > 0 && !problem)
        all = subtree[root];
    memcpy(bounds_lo, all.lo, sizeof all.lo);
    memcpy(bounds_hi, all.hi, sizeof all.hi);
    free(seen);
    free(subtree);
    if (!problem)
        return true;
    if (at >= 0)
        snprintf(reason, reason_size, "%s (node %lld)", problem, (long long)at);
    else
        snprintf(reason, reason_size, "%s", problem);
    return false;
}
