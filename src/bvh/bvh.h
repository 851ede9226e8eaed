/* The BVH's interface to the rest of the library (src/bvh/).

   Layout: an 8-wide tree whose child boxes are quantised to 8 bits on a
   per-node power-of-two grid, 96 bytes a node, in the spirit of Ylitie et
   al.'s compressed wide BVH. The 8-bit boxes make box queries visit only a
   few more leaves than exact boxes would, while float or 16-bit child
   boxes make every node larger for every triangle: neither pays for
   itself (measured with bench/bvh, "leaves_walked_per_box" against
   "leaves_overlapping_exactly", docs/performance.md). Leaves are not
   nodes: a child slot refers either to another node or directly to a run
   of at most 16 triangles that are contiguous in the world's storage
   order. */
#ifndef SKIM_BVH_H
#define SKIM_BVH_H

#include "base/skim_internal.h"

#include <string.h>

#define SKIM_BVH_WIDTH 8u

/* A child reference. Bit 31 set: a leaf, bits 4..30 its first triangle in
   storage order and bits 0..3 its triangle count less one (1..16 triangles).
   Bit 31 clear: the index of another node. Unused slots hold
   SKIM_BVH_EMPTY_CHILD and are also absent from child_mask. */
#define SKIM_BVH_LEAF_BIT 0x80000000u
#define SKIM_BVH_EMPTY_CHILD 0xffffffffu
#define SKIM_BVH_MAX_TRIANGLES (1u << 27)
#define SKIM_BVH_MAX_LEAF 16u

static inline uint32_t skim_bvh_leaf_ref(uint32_t first, uint32_t count)
{
    return SKIM_BVH_LEAF_BIT | (first << 4) | (count - 1u);
}
static inline bool skim_bvh_is_leaf(uint32_t ref) { return (ref & SKIM_BVH_LEAF_BIT) != 0; }
static inline uint32_t skim_bvh_leaf_first(uint32_t ref) { return (ref & ~SKIM_BVH_LEAF_BIT) >> 4; }
static inline uint32_t skim_bvh_leaf_count(uint32_t ref) { return (ref & 15u) + 1u; }

/* Child boxes live on the node's grid: world = origin + q * 2^exponent,
   q in 0..255, with lower bounds rounded down and upper bounds rounded up,
   so a quantised box always contains the true one. bounds[] is laid out so
   that three 16-byte loads test all eight children against a query box:
   upper bounds are stored as 255 - q, which turns every test into "child
   byte <= query byte", and rows are paired (lo x | lo y), (255-hi x |
   255-hi y), (lo z | 255-hi z) so the query's bytes can be broadcast with
   SSE2 unpacks alone. */
enum { SKIM_BVH_LO_X, SKIM_BVH_LO_Y, SKIM_BVH_CHI_X, SKIM_BVH_CHI_Y, SKIM_BVH_LO_Z,
       SKIM_BVH_CHI_Z };
typedef struct skim_bvh_node {
    uint8_t  bounds[6][SKIM_BVH_WIDTH]; /* rows in the order of the enum above */
    float    origin[3];
    int8_t   exponent[3];
    uint8_t  child_mask;                /* bit i: slot i holds a child */
    uint32_t child[SKIM_BVH_WIDTH];
} skim_bvh_node;

/* 2^e as a double, exactly, for e in the node exponents' range (and its
   negation): ldexp without the library call. The builder quantises child
   boxes with it and the loader's geometry check dequantises them with it,
   so both use the same exact arithmetic. */
static inline double skim_bvh_power_of_two(int e)
{
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* Exponents are clamped to this range so 2^-exponent stays a normal float. */
#define SKIM_BVH_MIN_EXPONENT (-100)
#define SKIM_BVH_MAX_EXPONENT 125
/* The builder caps the binary depth (falling back to median splits), so a
   traversal stack of this many entries can never overflow. The loader
   checks the same bound on files. */
#define SKIM_BVH_MAX_DEPTH 96u
#define SKIM_BVH_STACK_SIZE (SKIM_BVH_MAX_DEPTH * (SKIM_BVH_WIDTH - 1u) + 1u)

struct skim_bvh {
    const skim_bvh_node *nodes;
    uint32_t node_count;
    uint32_t root;          /* a child reference: a node index or, for tiny worlds, a leaf */
    uint32_t leaf_count;
    uint32_t depth;         /* wide levels, root = 1 */
    uint32_t binary_nodes;  /* nodes of the binary tree it was collapsed from */
    double   sah_cost;      /* of the wide tree: traversal cost 1 a node, 1 a triangle */
    void    *owned_nodes;   /* NULL when the nodes live in a mapped file */
};

/* Checks a tree that came from a file: every reference in range, children
   after their parent (so no cycles), leaves within the triangles, depth
   within SKIM_BVH_MAX_DEPTH. Returns false with a reason on the first fault. */
bool skim_bvh_validate(const skim_bvh_node *nodes, uint32_t node_count, uint32_t root,
                       uint32_t triangle_count, char *reason, size_t reason_size, bool *out_of_memory);

/* ---- box queries ----
   A resumable walk: skim_bvh_walk_leaves fills refs with leaf references
   whose (quantised) boxes overlap the query box, at most capacity at a time
   (capacity >= SKIM_BVH_WIDTH), and returns 0 when the tree is exhausted.
   Resumable so that a caller can process leaves in batches without a
   callback per leaf or a buffer as large as the tree. */
typedef struct skim_bvh_walk {
    const skim_bvh_node *nodes;
    float    query_min[3], query_max[3];
    /* Swept walks also drop children whose box, grown by reach, the
       segment start + t / inverse_delta, t in [0, 1], does not cross. */
    bool     swept;
    float    start[3], inverse_delta[3], reach[3];
    uint32_t top;
    uint32_t stack[SKIM_BVH_STACK_SIZE];
} skim_bvh_walk;

/* bounds_min, bounds_max: the exact bounds of everything under the root
   (a world's bounds), which the root's own test needs. */
void     skim_bvh_walk_begin(skim_bvh_walk *walk, const struct skim_bvh *bvh, skim_vec3 bounds_min,
                             skim_vec3 bounds_max, const float box_min[3], const float box_max[3]);
/* Makes a begun walk swept (see gather.c for how reach and inverse_delta
   are chosen: the slab test must stay conservative). */
void     skim_bvh_walk_sweep(skim_bvh_walk *walk, const float start[3], const float inverse_delta[3],
                             const float reach[3]);
uint32_t skim_bvh_walk_leaves(skim_bvh_walk *walk, uint32_t *refs, uint32_t capacity);

/* A run of count triangles in storage order, from first: a leaf. */
typedef void (*skim_triangle_run_fn)(void *ctx, uint32_t first, uint32_t count);
/* Calls visit for every leaf whose box overlaps [box_min, box_max]. */
void        skim_bvh_visit_box(const struct skim_bvh *bvh, skim_vec3 bounds_min,
                               skim_vec3 bounds_max, const float box_min[3],
                               const float box_max[3], skim_triangle_run_fn visit, void *ctx);

#endif
