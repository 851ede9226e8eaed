/* Collide-and-slide internals (src/move/): shared by move.c (the passes and
   skim_move), slide_planes.c (the plane solvers), view.c (the thread's
   scratch and the lanes a pass excludes),
   contacts.c (touching contacts and push-out), step_and_snap.c (step-up,
   snap-down) and move_batch.c (the OpenMP batch).

   Everything below works in the mover's unit-sphere space (Nettle, "Making
   it ellipsoidal": divide by the radius vector; Rouwé 4 for the rotated
   case), with positions relative to the move's start, which is where the
   one candidate gather of the move put its origin. */
#ifndef SKIM_MOVE_INTERNAL_H
#define SKIM_MOVE_INTERNAL_H

#include "gather/gather.h"
#include "gather/bvh_ordered.h"
#include "gather/body_gather.h"
#include "move/slide_planes.h"
#include "move/move_cache.h"

/* Largest max_iterations accepted: more is a caller bug, not a wish. */
#define SKIM_MOVE_MAX_ITERATIONS 64
/* Largest |coordinate| (world units) of a position, displacement, gravity,
   step_height or snap_distance a move accepts: keeps every coordinate the
   move computes finite in float. */
#define SKIM_MOVE_MAX_COORDINATE 1e18f
/* How far (unit-sphere space, i.e. in radii) a move may push an embedded
   start out, all passes together; deeper embeddings are resolved over
   several moves (Jolt's CharacterVirtual and PhysX's CCT also recover over
   updates). It bounds the one gather box. */
#define SKIM_MOVE_PUSH_PER_MOVE 0.125f

/* ---- scalars ----
   fmaxf/fminf are library calls unless NaN rules are waived (no
   -ffinite-math-only here); these are single instructions. For the finite
   values they see, the same results as fmaxf/fminf but for the sign of a
   zero, which no comparison here tells apart. */
static inline float mv_max(float a, float b)
{
    return a > b ? a : b;
}
static inline float mv_min(float a, float b)
{
    return a < b ? a : b;
}

/* ---- vectors ---- */
static inline float mv_dot(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void mv_copy(float out[3], const float a[3])
{
    out[0] = a[0];
    out[1] = a[1];
    out[2] = a[2];
}
static inline void mv_scale(float out[3], const float a[3], float s)
{
    out[0] = a[0] * s;
    out[1] = a[1] * s;
    out[2] = a[2] * s;
}
/* out = a + s * b */
static inline void mv_add_scaled(float out[3], const float a[3], const float b[3], float s)
{
    out[0] = a[0] + s * b[0];
    out[1] = a[1] + s * b[1];
    out[2] = a[2] + s * b[2];
}
static inline void mv_cross(float out[3], const float a[3], const float b[3])
{
    float x = a[1] * b[2] - a[2] * b[1];
    float y = a[2] * b[0] - a[0] * b[2];
    float z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}
/* skim_mat3_mul_vec, inlined for the move's hot path (same operations in
   the same order, so the same results). */
static inline void mv_mat3(const float m[3][3], const float v[3], float out[3])
{
    float x = m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2];
    float y = m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2];
    float z = m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}
/* Normalises in place; returns false (and leaves v) when v is ~zero. */
bool skim_move_normalize(float v[3]);

/* ---- per-thread scratch (view.c) ---- */
typedef struct skim_move_scratch {
    skim_candidates gathered;   /* the move's one gather: relative to the start */
    float excluded_vertices[SKIM_MOVE_MAX_PLANES][9]; /* excluded lanes' triangles */
    /* The last shape's space and the last slope limit's cosine. */
    skim_ellipsoid space_shape;
    skim_ellipsoid_space space;
    bool     space_valid;
    /* up as given, and derived for the last shape (skim_move_ctx's up*) */
    skim_vec3 up_given;
    bool     up_valid;
    float    up[3], up_unit[3], up_unit_dir[3], up_grad[3];
    /* The gather box's terms for the last shape, up, step_height and
       snap_distance (move_gather.c): valid while box_valid (cleared with
       up_valid) and box_step/box_snap are bitwise the def's. */
    bool     box_valid;
    float    box_step, box_snap;
    double   box_radius;           /* the bounding radius */
    double   box_margin;           /* radius * 1.001 */
    double   box_above[3], box_below[3]; /* reach's growth along up and -up, per axis */
    double   box_vertical_unit;    /* (2 step + snap) |up_unit| */
    float    slope_degrees;        /* NaN-free: 0 until set (0 is never valid) */
    float    cos_floor;
    /* The leaves of the thread's last BVH walk (move_gather.c): the walk
       for a box grown by a slack, kept while the next movers' boxes fit in
       it. Reused only while walk_reuse is set, which a batch does on its
       threads for the time its moves run (and drops the walk first and
       after): a world can be destroyed and another made at its address
       between calls, and skim_move_run is also called on its own
       (skim_move, bench_simd). */
    bool      walk_reuse;
    bool      walk_valid;
    const skim_world *walk_world;
    float     walk_min[3], walk_max[3];
    uint32_t *walk_leaves;          /* leaf refs in the walk's order */
    uint32_t  walk_count, walk_capacity;
    uint32_t  walk_triangles;       /* triangles in those leaves */
    skim_walk_pack walk_pack;       /* their triangles, packed (move_walk_pack.c), */
    bool      walk_packed;          /* when the walk was made for a batch (walk_reuse) */
    /* The batch's next movers in this thread's run (move_batch.c), for
       sizing a walk to cover them: order[ahead_at, ahead_end) of
       ahead_positions; ahead_order NULL when there is no order. */
    const uint32_t  *ahead_order;
    const skim_vec3 *ahead_positions;
    int64_t          ahead_at, ahead_end;
    /* The walked gather's setup (move_gather.c): its transform part kept
       while the space's to_unit stays bitwise the same (a crowd of one
       shape), the rest set per move. */
    bool      setup_valid;
    float     setup_to_unit[3][3];
    skim_path_gather setup;
    /* A batch's mover order (move_order.c), on the calling thread's
       scratch: 4 * order_capacity words, order_sorted points into them. */
    uint32_t *order;
    size_t    order_capacity;
    const uint32_t *order_sorted;
    /* The running move's kept leaves (move_cache.c), NULL without a
       cache; the thread's counts for the cache (skim_move_cache). */
    skim_move_cache_entry *cache_entry;
    uint64_t  cache_moves, cache_kernel_calls, cache_gathers, cache_walks;
    skim_body_lanes body_lanes;     /* what the gathered bodies' lanes name, this move */
} skim_move_scratch;

/* move_walk_pack.c: builds pack from the walk's leaves; the walked
   gather from it. */
skim_status skim_walk_pack_build(skim_walk_pack *pack, const skim_world *world,
                                 const uint32_t *leaves, uint32_t leaf_count, uint32_t triangles);
/* wide: the kernel set has 8 lanes or more (so the CPU has AVX2): the
   8-lane box test where it is built (x86). */
void        skim_walk_pack_gather(const skim_walk_pack *pack, const skim_path_gather *g, bool wide,
                                  skim_candidates *out);
#if defined(__x86_64__) || defined(__i386__)
#define SKIM_MOVE_HAVE_AVX2_PACK 1
void        skim_walk_pack_gather_avx2(const skim_walk_pack *pack, const skim_path_gather *g,
                                       skim_candidates *out);
/* move_kept_gather.c: the gather from a mover's kept leaves, two four-lane
   steps at a time (AVX2): the leaf-by-leaf gather's buffer bit for bit,
   for a box setup without far triangles; out holds kept->triangles +
   SKIM_MAX_PACKET_WIDTH lanes past its count. */
void        skim_move_kept_gather_avx2(const skim_move_cache_entry *kept, const skim_world *world,
                                       const skim_path_gather *g, skim_candidates *out);
#endif
void        skim_walk_pack_free(skim_walk_pack *pack);

/* The calling thread's scratch (never freed; bounded by the largest gather,
   as sweep.c's buffer). */
skim_move_scratch *skim_move_thread_scratch(void);

/* ---- one move in progress ---- */
typedef enum skim_move_pass_kind {
    SKIM_PASS_MOVE,     /* the caller's displacement: slide (Nettle), steep slopes are walls */
    SKIM_PASS_GRAVITY,  /* Nettle's second pass: slides down steep slopes, stops on floors */
    SKIM_PASS_SNAP,     /* snapping down: as gravity, kept only if it lands on a floor */
    SKIM_PASS_STRAIGHT, /* step-up / step-down: stop at the first blocking contact */
} skim_move_pass_kind;

/* What a path of passes met. */
typedef struct skim_move_touch {
    uint32_t touched;          /* SKIM_TOUCH_* */
    bool     floor;            /* floor_* valid */
    float    floor_normal[3];  /* world space, unit */
    uint32_t floor_triangle;
} skim_move_touch;

/* What the step's raised move must beat (step_and_snap.c): set on the
   context for that one pass, NULL otherwise. */
typedef struct skim_move_step_goal {
    float intent[3]; /* world, unit: the horizontal intent */
    float beat;      /* world progress along it that the pass must be able to pass */
} skim_move_step_goal;

typedef struct skim_move_ctx {
    const skim_kernel_set *kernels;
    const skim_ellipsoid_space *space;
    const skim_move_def *def;
    skim_move_scratch *scratch;
    const float *friction;      /* def->material_friction or NULL */
    uint32_t friction_count;
    bool   cull;
    float  up[3];               /* world, unit */
    float  up_unit[3];          /* M^-1 up: the unit-space displacement of one world unit up */
    float  up_unit_dir[3];      /* up_unit normalised */
    float  up_grad[3];          /* M^T up: (M v) . up = v . up_grad */
    float  cos_floor;           /* cos(max_slope) */
    float  skin;                /* unit space */
    /* Exclusions: lanes of the gathered buffer the current pass ignores
       (touching triangles it is constrained against, see contacts.c),
       parked far away meanwhile (their triangles kept in the scratch,
       view.c). */
    int    excluded_count;
    uint32_t excluded[SKIM_MOVE_MAX_PLANES];
    skim_move_pass_kind pass;   /* the pass running */
    int    pass_max_iterations; /* the running pass's sweep budget (result->iterations
                                   never exceeds it, push-out sweeps included) */
    int    sweeps;              /* kernel calls, all passes */
    bool   prove_clear;         /* the running pass's sweeps first try
                                   skim_move_sweep_proved_clear (the step's climb) */
    float  push_left;           /* unit space: what is left of SKIM_MOVE_PUSH_PER_MOVE */
    const skim_move_step_goal *goal; /* the step's raised move only: it stops
                                        when it can no longer beat this */
    /* The move's world, start (world) and unit-space path, for a second
       gather (skim_move_widen_for_snap). */
    const skim_world *world;
    const float *start;
    double unit_path;
    bool   widened;             /* the gather already covers the snap's slides */
    float  walk[3];             /* world: the displacement's part across up (the walk) */
    float  snap_stretch;        /* the most a snap's slide may be stretched to keep its
                                   descent: 1 / sin(slope limit), at most 4 */
    /* World offsets from the start the center may reach with everything it
       can touch gathered (move_gather.c): the snap pass is kept inside. */
    float  region_min[3], region_max[3];
    /* The last gather's box (world; tests compare the gather with it). */
    float  box_min[3], box_max[3];
    skim_status status;         /* first internal failure (out of memory) */
    struct skim_move_contact_log *contacts; /* the move's contacts (move_contacts.h), NULL: none */
    bool   step_held;           /* the step ended on a stair's nosing with a walkable
                                   tread just ahead (step_and_snap.c, the stair walk's
                                   forward test): the gravity pass does not roll it
                                   back off the nosing in this move */
} skim_move_ctx;

typedef struct skim_move_pass_result {
    skim_move_touch touch;
    int  iterations;            /* kernel sweeps in this pass */
    bool blocked_by_wall;       /* a wall or steep slope shortened the motion */
    bool landed;                /* stopped on a walkable floor (gravity, snap, straight) */
    float landed_point[3];      /* where, relative to the move's start (unit space) */
    bool blocked;               /* any contact stopped or turned the motion */
    bool abandoned;             /* stopped early: ctx->goal could no longer be beaten */
    bool cut_at_region;         /* the snap was stopped where it would leave the region */
} skim_move_pass_result;

/* The lane of a caller's triangle index in the gathered buffer, or UINT32_MAX. */
uint32_t skim_move_find_lane(const skim_move_ctx *ctx, uint32_t triangle);
/* Exclusions (view.c): lanes the running pass's sweeps ignore, parked far
   away in the gathered buffer until the pass clears them. */
void skim_move_exclude(skim_move_ctx *ctx, uint32_t lane);
void skim_move_clear_exclusions(skim_move_ctx *ctx);
void skim_move_sync_exclusions(skim_move_ctx *ctx, const skim_move_planes *planes);
/* contacts.c */
/* Nettle's "embedded" case made whole: every candidate within 1 + skin of
   the center at pos is a contact; push the mover out along the separating
   direction (b2SolvePlanes over all of them, swept with them excluded so
   the push cannot tunnel), add each contact as a plane with its lane
   excluded, and note their touch classes in result. The push sweep counts
   in result->iterations and is made only while the pass has a sweep left
   (ctx->pass_max_iterations); without one the mover stays, constrained
   by the contacts' planes. Returns the
   SKIM_TOUCH_* classes of the contacts that motion points into. */
uint32_t skim_move_resolve_contacts(skim_move_ctx *ctx, float pos[3], const float motion[3],
                                    skim_move_planes *planes, skim_move_pass_result *result);
/* Closest point of triangle abc to the origin (Ericson, Real-Time Collision
   Detection 5.1.5). */
void skim_move_closest_point_to_origin(const float a[3], const float b[3], const float c[3],
                                       float out[3]);
/* That closest point of triangle v (relative to the center) and the
   roundoff it may carry: a few units of roundoff times the triangle's
   extent (grown by path), times |e1| |e2| / |n| for a needle. False for a
   triangle without area. */
bool skim_move_closest_with_allowance(const float v[3][3], float path, float closest[3], float *allowance);
/* Whether a sweep from pos by delta against every gathered lane (no
   exclusions) would report a hit at t = 0: the exact answer of the
   kernels, found without a sweep (near lanes only, by the reference). */
bool skim_move_starts_touching(const skim_move_ctx *ctx, const float pos[3],
                               const float delta[3]);

/* move.c */
/* Classifies a unit-space contact normal: SKIM_TOUCH_FLOOR, _WALL or
   _CEILING; world_normal receives the unit world normal. */
uint32_t skim_move_classify(const skim_move_ctx *ctx, const float normal_unit[3],
                            float world_normal[3]);
void skim_move_note_touch(skim_move_touch *touch, uint32_t kind, const float world_normal[3],
                          uint32_t triangle);
void skim_move_merge_touch(skim_move_touch *into, const skim_move_touch *from);
/* Adds a contact to the pass's planes: its own normal and, in the move
   pass, for a slope too steep to walk that faces up, the same normal laid
   flat (a wall for uphill motion, as Godot's, Unity's and Jolt's
   controllers treat steep slopes). offset = normal . contact point. */
void skim_move_add_contact(const skim_move_ctx *ctx, skim_move_planes *planes,
                           const float normal[3], float offset, uint32_t lane, uint32_t kind,
                           const float world_normal[3]);
/* Whether the face of the gathered triangle in lane is walkable;
   world_normal receives its unit normal, turned to face up. */
bool skim_move_lane_walkable(const skim_move_ctx *ctx, uint32_t lane, float world_normal[3]);
/* Whether a walkable face passes through contact (unit space, relative to
   the move's start), the contact a sweep reported on triangle (caller's
   index): that triangle's face first, else the lowest-indexed other
   gathered triangle through the point (contacts.c). world_normal and
   *floor_triangle receive the face's up-facing unit normal and index. */
bool skim_move_walkable_at(const skim_move_ctx *ctx, const float contact[3], uint32_t triangle,
                           float world_normal[3], uint32_t *floor_triangle);
/* World distance along direction (world, unit) of unit-space pos, relative
   to the move's start: how far a step got along its intent
   (step_and_snap.c). */
float skim_move_progress(const skim_move_ctx *ctx, const float pos[3], const float direction[3]);
/* One pass of collide-and-slide from pos by delta (unit space), at most
   max_iterations kernel sweeps. */
void skim_move_pass(skim_move_ctx *ctx, float pos[3], const float delta[3],
                    skim_move_pass_kind kind, int max_iterations, skim_move_pass_result *result);
/* Runs one kernel sweep from pos by delta against the gathered buffer, less
   the excluded lanes (counts it). */
void skim_move_sweep(skim_move_ctx *ctx, const float pos[3], const float delta[3],
                     skim_unit_hit *best);

/* sweep_clear.c: whether a sweep from pos by delta is proved to meet none
   of the gathered lanes (every kernel would report no hit), without a
   kernel call; false when in doubt. */
bool skim_move_sweep_proved_clear(const skim_move_ctx *ctx, const float pos[3],
                                  const float delta[3]);
#if defined(SKIM_MOVE_HAVE_AVX2_PACK)
bool skim_move_sweep_proved_clear_avx2(const skim_move_ctx *ctx, const float pos[3],
                                       const float delta[3]);
#endif

/* step_and_snap.c */
/* Quake's PM_StepSlideMove for an ellipsoid: when the plain move was blocked
   by a wall, try again from start + step_height up, then down; keep
   whichever went farther along the horizontal intent and landed on a floor.
   pos/touch hold the plain result and are replaced when the step wins. */
void skim_move_try_step(skim_move_ctx *ctx, const float delta[3], float pos[3],
                        skim_move_touch *touch, int *iterations);
/* Snap down to a floor within snap_distance (plus two skins: the ground
   probe that keeps the floor flag steady); kept only if it lands. */
void skim_move_snap(skim_move_ctx *ctx, float pos[3], skim_move_touch *touch);

/* move_gather.c: drops the thread's kept walk (see skim_move_scratch). */
static inline void skim_move_forget_walk(skim_move_scratch *scratch)
{
    scratch->walk_valid = false;
}
/* move_gather.c: the move's one gather from start (world) for a unit-space
   path of unit_path (|displacement| + |gravity|): sets the region, and
   raises ctx->skin to its precision floor (gathering again if needed). */
skim_status skim_move_gather(skim_move_ctx *ctx, const skim_world *world, const float start[3],
                             double unit_path);
/* Gathers again with the box grown on every side by the snap's unit-space
   drop (drop_length), so that every slide of the snap lies inside the
   region: a snap rolling off a stair's edge goes sideways as far as down. */
skim_status skim_move_widen_for_snap(skim_move_ctx *ctx, double drop_length);
/* The largest fraction f <= 1 of motion from pos (unit space) that keeps
   the center in the region (0 when it is at the edge). */
float skim_move_region_fraction(const skim_move_ctx *ctx, const float pos[3],
                                const float motion[3]);

/* move.c: the whole move with a given kernel set; the scratch is the
   calling thread's. Arguments already validated. */
skim_status skim_move_run(const skim_kernel_set *kernels, const skim_world *world,
                          const skim_ellipsoid *shape, skim_vec3 position,
                          skim_vec3 displacement, const skim_move_def *def,
                          skim_move_result *out);
skim_status skim_move_check_def(const skim_move_def *def, const char *who);
skim_status skim_move_check_mover(const skim_ellipsoid *shape, skim_vec3 position,
                                  skim_vec3 displacement, const char *who, size_t index,
                                  bool indexed);
/* The precision rule for a checked mover (validate.c, skim_position_resolves). */
skim_status skim_move_check_resolution(const skim_ellipsoid *shape, skim_vec3 position,
                                       skim_vec3 displacement, const char *who, size_t index,
                                       bool indexed);
/* The position and displacement half of skim_move_check_mover. */
skim_status skim_move_check_motion(skim_vec3 position, skim_vec3 displacement, const char *who,
                                   size_t index, bool indexed);
/* A batch's movers [first, end) checked (first a multiple of
   SKIM_MOVE_CHECK_BLOCK, checked a block at a time): the first bad mover's
   error, its message recorded on this thread, or SKIM_OK. */
enum { SKIM_MOVE_CHECK_BLOCK = 256 };
skim_status skim_move_check_movers(const skim_ellipsoid *shapes, const skim_vec3 *positions,
                                   const skim_vec3 *displacements, size_t first, size_t end,
                                   const char *who);

/* move_order.c: a batch's movers along a Morton curve of their positions
   in the world's bounds. skim_move_order_reserve grows scratch->order for
   count movers (false when it cannot) and points order_sorted into it;
   skim_move_order_movers then fills it (order_sorted[i] is the i-th mover
   to move). */
bool skim_move_order_reserve(skim_move_scratch *scratch, size_t count);
void skim_move_order_movers(skim_move_scratch *scratch, const skim_world *world, size_t count,
                            const skim_vec3 *positions);

/* move_batch.c: the batch with a named kernel set (tests compare sets in
   one process; skim_move_batch uses skim_kernels()). */
skim_status skim_move_batch_with(const skim_kernel_set *kernels, const skim_world *world,
                                 size_t count, const skim_ellipsoid *shapes,
                                 const skim_vec3 *positions, const skim_vec3 *displacements,
                                 const skim_move_def *def, skim_move_result *results);
/* The same for two groups in one call: movers [0, split) with def and
   [split, count) with def_after (the crowd's standing and airborne
   agents). The same results as two calls, one per group, with one OpenMP
   region instead of two: on a busy machine every region's end waits for a
   thread the scheduler may have set aside. Errors name the mover's index
   in the whole call. */
skim_status skim_move_batch_split(const skim_kernel_set *kernels, const skim_world *world,
                                  size_t count, const skim_ellipsoid *shapes,
                                  const skim_vec3 *positions, const skim_vec3 *displacements,
                                  const skim_move_def *def, size_t split,
                                  const skim_move_def *def_after, skim_move_result *results);
/* The same, mover i keeping its leaves in cache entry slot_of[i] (i when
   slot_of is NULL) from one call to the next (move_cache.c): the same
   results with or without it. slot_of's values are below cache_slots. */
skim_status skim_move_batch_split_cached(const skim_kernel_set *kernels, const skim_world *world,
                                         size_t count, const skim_ellipsoid *shapes,
                                         const skim_vec3 *positions,
                                         const skim_vec3 *displacements, const skim_move_def *def,
                                         size_t split, const skim_move_def *def_after,
                                         skim_move_cache *cache, const uint32_t *slot_of,
                                         size_t cache_slots, skim_move_result *results);
/* The same with a definition per mover: mover i moves with
   defs[def_of[i]], def_of[i] < def_count (the crowd's per-agent settings). */
skim_status skim_move_batch_indexed(const skim_kernel_set *kernels, const skim_world *world, size_t count,
                                    const skim_ellipsoid *shapes, const skim_vec3 *positions,
                                    const skim_vec3 *displacements, const skim_move_def *defs, uint32_t def_count,
                                    const uint32_t *def_of, skim_move_result *results);
skim_status skim_move_batch_indexed_cached(const skim_kernel_set *kernels, const skim_world *world,
                                           size_t count, const skim_ellipsoid *shapes,
                                           const skim_vec3 *positions, const skim_vec3 *displacements,
                                           const skim_move_def *defs, uint32_t def_count,
                                           const uint32_t *def_of, skim_move_cache *cache,
                                           const uint32_t *slot_of, size_t cache_slots,
                                           skim_move_result *results);

#endif /* SKIM_MOVE_INTERNAL_H */
