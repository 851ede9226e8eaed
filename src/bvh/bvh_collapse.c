/* Binary tree -> 8-wide quantised nodes, and the structural check a tree
   loaded from a file must pass before it is walked. */
#include "bvh/bvh_binary.h"

#include <math.h>
#include <simde/x86/sse2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct collapser {
    const skim_bvh_binary_tree *tree;
    skim_bvh_node *nodes;
    uint32_t       count;
    uint32_t       capacity;   /* of nodes */
    uint32_t       limit;      /* most nodes the tree can need (its internal nodes) */
    skim_bvh_node *owned;      /* nodes when allocated here, else NULL (in the caller's scratch) */
    bool           out_of_memory;
    uint32_t       leaves;
    uint32_t       depth;
    double         root_area;
    double         sah_cost;
} collapser;

/* The smallest power of two 2^e with 255 * 2^e >= extent, so 8-bit offsets
   from the node's lower corner reach its upper corner. The first guess is
   the binary exponent of extent / 255; exact comparisons settle it. */
static int grid_exponent(double extent)
{
    if (!(extent > 0.0))
        return SKIM_BVH_MIN_EXPONENT;
    double ratio = extent / 255.0;
    uint64_t bits;
    memcpy(&bits, &ratio, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023 + 1; /* 2^(e-1) <= ratio < 2^e */
    if (e < SKIM_BVH_MIN_EXPONENT)
        e = SKIM_BVH_MIN_EXPONENT;
    if (e > SKIM_BVH_MAX_EXPONENT)
        e = SKIM_BVH_MAX_EXPONENT;
    while (e < SKIM_BVH_MAX_EXPONENT && 255.0 * skim_bvh_power_of_two(e) < extent)
        ++e;
    while (e > SKIM_BVH_MIN_EXPONENT && 255.0 * skim_bvh_power_of_two(e - 1) >= extent)
        --e;
    return e;
}

/* Conservative 8-bit bounds: origin + q_lo * s <= lo and origin + q_hi * s
   >= hi, checked in double where origin + q * s is exact (q has 8 bits, s
   is a power of two and origin a float). Clamping comes before rounding,
   so floor and ceil are integer conversions of values in [0, 255].

   Without a branch until the checks, which almost never correct anything
   (so their tests come first): whether a child touches its node's face
   on an axis is a coin toss, and the branches a compiler makes of clamps
   written as cases would be mispredicted about half the time. The
   same values: truncation and the ceiling keep the clamped 0 and 255. */
static void quantize_child(double origin, double scale, double inverse_scale, float lo, float hi,
                           uint8_t *q_lo, uint8_t *q_hi)
{
    const simde__m128d zero = simde_mm_setzero_pd(), top = simde_mm_set_sd(255.0);
    simde__m128d l = simde_mm_set_sd(((double)lo - origin) * inverse_scale);
    simde__m128d h = simde_mm_set_sd(((double)hi - origin) * inverse_scale);
    l = simde_mm_min_sd(simde_mm_max_sd(l, zero), top);
    h = simde_mm_min_sd(simde_mm_max_sd(h, zero), top);
    double low = (double)(int)simde_mm_cvtsd_f64(l);
    simde__m128d whole = simde_mm_set_sd((double)(int)simde_mm_cvtsd_f64(h));
    /* whole + 1 where whole < h: the ceiling. */
    simde__m128d up = simde_mm_and_pd(simde_mm_cmplt_sd(whole, h), simde_mm_set_sd(1.0));
    double high = simde_mm_cvtsd_f64(simde_mm_add_sd(whole, up));
    while (origin + low * scale > (double)lo && low > 0.0)
        low -= 1.0;
    while (origin + high * scale < (double)hi && high < 255.0)
        high += 1.0;
    *q_lo = (uint8_t)low;
    *q_hi = (uint8_t)high;
}

static void encode_bounds(skim_bvh_node *node, const skim_bvh_binary_node *const *child, int count)
{
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (int i = 0; i < count; ++i)
        for (int axis = 0; axis < 3; ++axis) {
            /* Comparisons, not fminf (a library call): the bounds are finite. */
            lo[axis] = child[i]->lo[axis] < lo[axis] ? child[i]->lo[axis] : lo[axis];
            hi[axis] = child[i]->hi[axis] > hi[axis] ? child[i]->hi[axis] : hi[axis];
        }
    memset(node->bounds, 255, sizeof node->bounds);
    static const int lo_row[3] = { SKIM_BVH_LO_X, SKIM_BVH_LO_Y, SKIM_BVH_LO_Z };
    static const int chi_row[3] = { SKIM_BVH_CHI_X, SKIM_BVH_CHI_Y, SKIM_BVH_CHI_Z };
    for (int axis = 0; axis < 3; ++axis) {
        int e = grid_exponent((double)hi[axis] - (double)lo[axis]);
        node->origin[axis] = lo[axis];
        node->exponent[axis] = (int8_t)e;
        double scale = skim_bvh_power_of_two(e), inverse_scale = skim_bvh_power_of_two(-e);
        for (int i = 0; i < count; ++i) {
            uint8_t q_lo, q_hi;
            quantize_child(lo[axis], scale, inverse_scale, child[i]->lo[axis], child[i]->hi[axis], &q_lo,
                           &q_hi);
            node->bounds[lo_row[axis]][i] = q_lo;
            node->bounds[chi_row[axis]][i] = (uint8_t)(255 - q_hi);
        }
    }
}

/* Which binary nodes become wide nodes: the dynamic programme of Ylitie,
   Karras and Laine ("Efficient incoherent ray traversal on GPUs through
   compressed wide BVHs", 2017), with the cost of a wide node its surface
   area (the chance a query visits it) and leaves free (a leaf's triangles
   cost the same wherever it hangs). cost[slot][k-1] is the least cost of
   representing the subtree at slot as a forest of at most k roots: as one
   root (a wide node whose children are the best forest of 8 below it), or
   by giving a roots to the left child and k - a to the right. The greedy
   top-down collapse it replaces left the bottom level of a balanced tree
   with two children a node (55.7 bytes a triangle on a 2-million-triangle
   terrain); this fills nodes where that is cheapest.

   A wide node also costs NODE_VISIT_FLOOR on top of its relative area.
   The queries are boxes (a sweep's bounds), not rays: the chance that a
   box query visits a node is the half area of the Minkowski sum of the
   two boxes, which for nodes much smaller than the query no longer
   shrinks with their own area but stays near the query's own share of
   the root. 0.02 of the root's half area is a cube of 160 to 360 units on
   the real levels, the size of bench_bvh's sweep boxes (radius 16, moves
   up to 32 radii). The floor makes the collapse fill nodes, so the tree
   has fewer of them at about the same cost a sweep (measured with
   bench/bvh/bench_sweep_path.c, docs/performance.md); a tree whose nodes
   are already full is unchanged. */
static const float NODE_VISIT_FLOOR = 0.02f;

/* The plan of one binary internal node: the costs of its best forests of
   1..8 roots and how each shares its roots between the children, whose
   entries it also names. Entries are numbered densely in the order they
   are planned (post-order), so the plan occupies as many bytes as the
   tree has internal nodes, wherever the build put their slots: indexed
   by slot, it had been spread over the 2n - 1 slots' range, and on the
   2-million-triangle terrain faulted in some 13,000 fresh pages. */
typedef struct plan_entry {
    float    cost[SKIM_BVH_WIDTH];
    uint8_t  choice[SKIM_BVH_WIDTH]; /* 0: one root here; a: a roots left, k - a right */
    uint32_t left, right;            /* the children's entries; NO_ENTRY for a leaf */
} plan_entry;

#define NO_ENTRY UINT32_MAX

typedef struct collapse_plan {
    plan_entry *entries;
    uint32_t    used, capacity;
    plan_entry *owned;   /* entries when allocated here, else NULL (they are in the caller's scratch) */
    uint32_t    limit;   /* most entries any tree of this size needs: its prim count - 1 */
    uint32_t    leaves;  /* of the binary tree, counted while planning */
    bool        out_of_memory;
} collapse_plan;

/* A new entry's index. Entries start in the caller's scratch when it has
   room; a tree with more internal nodes than that moves them once to a
   block for the most it can have. */
static uint32_t plan_new_entry(collapse_plan *plan)
{
    if (plan->used == plan->capacity) {
        plan_entry *more = malloc((size_t)plan->limit * sizeof *more);
        if (!more) {
            plan->out_of_memory = true;
            return NO_ENTRY;
        }
        if (plan->used)
            memcpy(more, plan->entries, (size_t)plan->used * sizeof *more);
        free(plan->owned);
        plan->entries = plan->owned = more;
        plan->capacity = plan->limit;
    }
    return plan->used++;
}

/* The costs of a subtree's best forests: its entry's, or nothing for a
   leaf (a leaf's forests cost nothing: it has no entry). */
static const float no_cost[SKIM_BVH_WIDTH];

static inline const float *plan_cost_of(const collapse_plan *plan, uint32_t entry)
{
    return entry == NO_ENTRY ? no_cost : plan->entries[entry].cost;
}

/* Plans the subtree at slot, sets *entry to its plan entry (NO_ENTRY for a
   leaf) and returns how many roots its forests can use at most: min(8,
   its leaves). A forest of more roots than that costs what one of exactly
   that many does, so only shares a <= the left's roots and k - a <= the
   right's are tried (most binary nodes are near the leaves, where that is
   one or two shares instead of 28). */
static unsigned plan_subtree(const skim_bvh_binary_tree *tree, collapse_plan *plan, uint32_t slot,
                             double root_area, uint32_t *entry)
{
    const skim_bvh_binary_node *node = &tree->nodes[slot];
    *entry = NO_ENTRY;
    if (node->count) {
        plan->leaves++;
        return 1;
    }
    uint32_t left_entry, right_entry;
    unsigned left_roots = plan_subtree(tree, plan, node->first, root_area, &left_entry);
    unsigned right_roots = plan_subtree(tree, plan, node->right, root_area, &right_entry);
    uint32_t mine = plan_new_entry(plan);
    if (mine == NO_ENTRY)
        return 1;
    plan_entry *self = &plan->entries[mine];
    self->left = left_entry;
    self->right = right_entry;
    *entry = mine;
    unsigned roots = left_roots + right_roots < SKIM_BVH_WIDTH ? left_roots + right_roots : SKIM_BVH_WIDTH;
    const float *left = plan_cost_of(plan, left_entry), *right = plan_cost_of(plan, right_entry);
    /* split[k-1]: best cost with k roots shared between the two children. */
    float split[SKIM_BVH_WIDTH];
    uint8_t split_choice[SKIM_BVH_WIDTH];
    split[0] = INFINITY;
    split_choice[0] = 0;
    for (unsigned k = 2; k <= roots; ++k) {
        split[k - 1] = INFINITY;
        split_choice[k - 1] = 1;
        unsigned first = k > right_roots ? k - right_roots : 1;
        unsigned last = k - 1 < left_roots ? k - 1 : left_roots;
        for (unsigned a = first; a <= last; ++a) {
            float c = left[a - 1] + right[k - a - 1];
            if (c < split[k - 1]) {
                split[k - 1] = c;
                split_choice[k - 1] = (uint8_t)a;
            }
        }
    }
    for (unsigned k = roots + 1; k <= SKIM_BVH_WIDTH; ++k) {
        split[k - 1] = split[roots - 1];
        split_choice[k - 1] = split_choice[roots - 1];
    }
    float as_node = (float)(skim_bvh_half_area(node->lo, node->hi) / root_area) + NODE_VISIT_FLOOR +
                    split[SKIM_BVH_WIDTH - 1];
    for (unsigned k = 1; k <= SKIM_BVH_WIDTH; ++k) {
        if (k >= 2 && split[k - 1] < as_node) {
            self->cost[k - 1] = split[k - 1];
            self->choice[k - 1] = split_choice[k - 1];
        } else {
            self->cost[k - 1] = as_node;
            self->choice[k - 1] = 0;
        }
    }
    return roots;
}

/* A binary node and its plan entry. */
typedef struct planned {
    uint32_t slot, entry;
} planned;

/* Appends the roots of the best forest of at most k roots below at. */
static void expand_forest(const skim_bvh_binary_tree *tree, const collapse_plan *plan, planned at,
                          unsigned k, planned *roots, int *count)
{
    uint8_t a = at.entry == NO_ENTRY ? 0 : plan->entries[at.entry].choice[k - 1];
    if (a == 0) {
        roots[(*count)++] = at;
        return;
    }
    const skim_bvh_binary_node *node = &tree->nodes[at.slot];
    const plan_entry *e = &plan->entries[at.entry];
    expand_forest(tree, plan, (planned){ node->first, e->left }, a, roots, count);
    expand_forest(tree, plan, (planned){ node->right, e->right }, k - a, roots, count);
}

/* The binary nodes that become the children of the wide node made for
   binary internal node at: the split of eight roots between its children
   that plan_subtree's as_node was costed with. Returns how many. */
static int wide_children(const skim_bvh_binary_tree *tree, const collapse_plan *plan, planned at,
                         planned children[SKIM_BVH_WIDTH])
{
    const skim_bvh_binary_node *node = &tree->nodes[at.slot];
    const plan_entry *e = &plan->entries[at.entry];
    int used = 0;
    uint8_t first_share = 1;
    float best = INFINITY;
    const float *left = plan_cost_of(plan, e->left), *right = plan_cost_of(plan, e->right);
    for (unsigned share = 1; share < SKIM_BVH_WIDTH; ++share)
        if (left[share - 1] + right[SKIM_BVH_WIDTH - share - 1] < best) {
            best = left[share - 1] + right[SKIM_BVH_WIDTH - share - 1];
            first_share = (uint8_t)share;
        }
    expand_forest(tree, plan, (planned){ node->first, e->left }, first_share, children, &used);
    expand_forest(tree, plan, (planned){ node->right, e->right }, SKIM_BVH_WIDTH - first_share, children, &used);
    return used;
}

/* Room for the most nodes the tree can need, when the caller's scratch
   (what the plan left of it) runs out: the nodes so far are moved there
   (those of the nodes still being made are written after the move). */
static bool grow_nodes(collapser *c)
{
    skim_bvh_node *more = c->owned ? NULL : malloc((size_t)c->limit * sizeof *more);
    if (!more) {
        c->out_of_memory = true;
        return false;
    }
    if (c->count) /* (no nodes yet when the scratch had no room: nodes is NULL) */
        memcpy(more, c->nodes, (size_t)c->count * sizeof *more);
    c->nodes = c->owned = more;
    c->capacity = c->limit;
    return true;
}

/* Makes the wide node for binary internal node at, its children the best
   forest of eight below it. */
static uint32_t collapse_node(collapser *c, const collapse_plan *plan, planned at, uint32_t depth)
{
    const skim_bvh_binary_node *all = c->tree->nodes;
    if (c->count == c->capacity && !grow_nodes(c))
        return SKIM_BVH_EMPTY_CHILD;
    uint32_t index = c->count++;
    c->depth = depth > c->depth ? depth : c->depth;
    planned children[SKIM_BVH_WIDTH];
    int used = wide_children(c->tree, plan, at, children);
    const skim_bvh_binary_node *child[SKIM_BVH_WIDTH];
    for (int i = 0; i < used; ++i)
        child[i] = &all[children[i].slot];
    const skim_bvh_binary_node *self = &all[at.slot];
    c->sah_cost += skim_bvh_half_area(self->lo, self->hi) / c->root_area;

    skim_bvh_node node;
    memset(&node, 0, sizeof node);
    encode_bounds(&node, child, used);
    node.child_mask = (uint8_t)((1u << used) - 1u);
    for (int i = 0; i < (int)SKIM_BVH_WIDTH; ++i)
        node.child[i] = SKIM_BVH_EMPTY_CHILD;
    for (int i = 0; i < used; ++i) {
        if (child[i]->count) {
            node.child[i] = skim_bvh_leaf_ref(child[i]->first, child[i]->count);
            c->leaves++;
            c->sah_cost += skim_bvh_half_area(child[i]->lo, child[i]->hi) / c->root_area *
                           child[i]->count;
        } else {
            /* Children are numbered after their parent: depth-first
               pre-order, which keeps a subtree's nodes together in memory
               and lets the loader rule out cycles with one comparison. */
            node.child[i] = collapse_node(c, plan, children[i], depth + 1);
        }
    }
    c->nodes[index] = node;
    return index;
}

skim_status skim_bvh_collapse(const skim_bvh_binary_tree *tree, struct skim_bvh *out)
{
    return skim_bvh_collapse_with(tree, NULL, 0, out);
}

skim_status skim_bvh_collapse_with(const skim_bvh_binary_tree *tree, void *scratch, size_t scratch_bytes,
                                   struct skim_bvh *out)
{
    memset(out, 0, sizeof *out);
    const skim_bvh_binary_node *root = &tree->nodes[0];
    out->binary_nodes = 1;
    if (root->count) { /* the whole world is one leaf: no node at all */
        out->root = skim_bvh_leaf_ref(root->first, root->count);
        out->leaf_count = 1;
        out->depth = 0;
        out->sah_cost = root->count;
        return SKIM_OK;
    }
    double root_area = skim_bvh_half_area(root->lo, root->hi);
    root_area = root_area > 0.0 ? root_area : 1.0;
    collapse_plan plan = { .limit = tree->prim_count - 1 };
    if (scratch && scratch_bytes / sizeof(plan_entry) > 0) {
        plan.entries = scratch;
        plan.capacity = (uint32_t)(scratch_bytes / sizeof(plan_entry) < plan.limit
                                       ? scratch_bytes / sizeof(plan_entry) : plan.limit);
    }
    uint32_t root_entry;
    plan_subtree(tree, &plan, 0, root_area, &root_entry);
    if (plan.out_of_memory) {
        free(plan.owned);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH collapse: plan for %u internal nodes", plan.limit);
    }
    /* A binary tree of L leaves has L - 1 internal nodes, and every wide
       node consumes at least one of them, so the nodes are collapsed into
       room for that many (of which only the pages written are ever
       touched), then moved to a block of their final size: the statistics
       count what is allocated, and the larger block held about three times
       the nodes' bytes. The room is what the plan left of the caller's
       scratch, as far as it goes (its pages are in use already: the
       2-million-triangle terrain's 7.5 MB of nodes had been 1,800 fresh
       pages), then a block of its own (grow_nodes). */
    const uint32_t internal_count = plan.leaves - 1;
    out->binary_nodes = 2 * plan.leaves - 1;
    collapser c = { .tree = tree, .limit = internal_count, .root_area = root_area };
    if (!plan.owned && scratch) {
        size_t plan_bytes = ((size_t)plan.used * sizeof(plan_entry) + 63) / 64 * 64;
        if (scratch_bytes > plan_bytes) {
            size_t room = (scratch_bytes - plan_bytes) / sizeof(skim_bvh_node);
            c.nodes = (skim_bvh_node *)(void *)((char *)scratch + plan_bytes);
            c.capacity = room < internal_count ? (uint32_t)room : internal_count;
        }
    }
    out->root = collapse_node(&c, &plan, (planned){ 0, root_entry }, 1);
    free(plan.owned);
    skim_bvh_node *nodes = c.out_of_memory ? NULL : aligned_alloc(64, ((size_t)c.count * sizeof *nodes + 63) / 64 * 64);
    if (!nodes) {
        free(c.owned);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "BVH collapse: %u nodes", c.count);
    }
    memcpy(nodes, c.nodes, (size_t)c.count * sizeof *nodes);
    free(c.owned);
    out->nodes = nodes;
    out->owned_nodes = nodes;
    out->node_count = c.count;
    out->leaf_count = c.leaves;
    out->depth = c.depth;
    out->sah_cost = c.sah_cost;
    return SKIM_OK;
}

static bool fault(char *reason, size_t size, const char *what, uint32_t node)
{
    snprintf(reason, size, "%s (node %u)", what, node);
    return false;
}

bool skim_bvh_validate(const skim_bvh_node *nodes, uint32_t node_count, uint32_t root,
                       uint32_t triangle_count, char *reason, size_t reason_size, bool *out_of_memory)
{
    *out_of_memory = false;
    if (node_count == 0) {
        if (!skim_bvh_is_leaf(root) ||
            (uint64_t)skim_bvh_leaf_first(root) + skim_bvh_leaf_count(root) > triangle_count)
            return fault(reason, reason_size, "root leaf outside the triangles", 0);
        return true;
    }
    if (root != 0)
        return fault(reason, reason_size, "root is not node 0", 0);
    uint8_t *depth = calloc(node_count, 1);
    if (!depth) {
        *out_of_memory = true;
        return fault(reason, reason_size, "no memory to check the tree", 0);
    }
    depth[0] = 1;
    bool ok = true;
    for (uint32_t i = 0; i < node_count && ok; ++i) {
        const skim_bvh_node *node = &nodes[i];
        if (depth[i] == 0) {
            ok = fault(reason, reason_size, "node not reachable from its predecessors", i);
            break;
        }
        for (int axis = 0; axis < 3 && ok; ++axis)
            if (!isfinite(node->origin[axis]) || node->exponent[axis] < SKIM_BVH_MIN_EXPONENT ||
                node->exponent[axis] > SKIM_BVH_MAX_EXPONENT)
                ok = fault(reason, reason_size, "bad grid", i);
        for (uint32_t slot = 0; slot < SKIM_BVH_WIDTH && ok; ++slot) {
            if (!((node->child_mask >> slot) & 1u))
                continue;
            uint32_t ref = node->child[slot];
            if (skim_bvh_is_leaf(ref)) {
                if ((uint64_t)skim_bvh_leaf_first(ref) + skim_bvh_leaf_count(ref) > triangle_count)
                    ok = fault(reason, reason_size, "leaf outside the triangles", i);
            } else if (ref <= i || ref >= node_count) {
                ok = fault(reason, reason_size, "child not after its parent", i);
            } else if (depth[i] + 1u > SKIM_BVH_MAX_DEPTH) {
                ok = fault(reason, reason_size, "tree deeper than the traversal stack allows", i);
            } else if (depth[ref] < depth[i] + 1u) {
                depth[ref] = (uint8_t)(depth[i] + 1u);
            }
        }
    }
    free(depth);
    return ok;
}
