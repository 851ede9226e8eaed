/*
 * skim — swept ellipsoids through static triangle worlds, fast.
 *
 * The whole public API. Names, types and meanings follow the project's API
 * contract; additions are marked "skim extension".
 *
 * Conventions (see README.md, "Design"):
 *  - Front face is counter-clockwise; the front normal is (b-a) x (c-a).
 *    Triangles are two-sided unless a query asks to cull back faces.
 *  - A sweep reports t in [0, 1] as a fraction of the displacement; t = 0
 *    when the shape already touches a triangle at the start.
 *  - Up is whatever the caller says; nothing assumes y-up or z-up.
 *  - Functions that can fail return skim_status; skim_status_string() says
 *    why, and skim_last_error_message() gives the detail of the last failure
 *    on the calling thread.
 */
#ifndef SKIM_SKIM_H
#define SKIM_SKIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define SKIM_API
#else
#define SKIM_API __attribute__((visibility("default")))
#endif

/* ---- basics ---- */
typedef enum skim_status {
    SKIM_OK = 0,
    SKIM_ERROR_INVALID_ARGUMENT, /* NULL, NaN/Inf, index out of range, radius <= 0, ... */
    SKIM_ERROR_OUT_OF_MEMORY,
    SKIM_ERROR_IO,               /* a file could not be opened, read or written */
    SKIM_ERROR_FORMAT,           /* a mesh or baked-world file is malformed, truncated or from another version */
} skim_status;
SKIM_API const char *skim_status_string(skim_status status);

/* skim extension: a human-readable sentence about the most recent failure
   on the calling thread (which argument, which line of which file, ...).
   Never NULL; "" when nothing failed yet. Valid until the next failing call
   on the same thread. */
SKIM_API const char *skim_last_error_message(void);

typedef struct skim_vec3 { float x, y, z; } skim_vec3;
typedef struct skim_quat { float x, y, z, w; } skim_quat;   /* unit quaternion */

/* An ellipsoid: semi-axis lengths along its local x, y, z, turned by rotation.
   A sphere of radius r is { {r, r, r}, {0, 0, 0, 1} }.
   Radii must lie in [SKIM_RADIUS_MIN, SKIM_RADIUS_MAX] with the largest at
   most SKIM_RADIUS_RATIO_MAX times the smallest; the quaternion must be unit
   length within 1e-3 (it is renormalised internally). Outside this range
   float cannot resolve the contact, so calls return
   SKIM_ERROR_INVALID_ARGUMENT instead of a wrong answer. */
#define SKIM_RADIUS_MIN 1e-6f
#define SKIM_RADIUS_MAX 1e9f
#define SKIM_RADIUS_RATIO_MAX 1e3f
/* Largest magnitude of any world coordinate (mesh vertices, sweep starts and
   displacements, move positions and lengths): beyond it squares of
   coordinate differences overflow float. Larger values are
   SKIM_ERROR_INVALID_ARGUMENT. */
#define SKIM_COORDINATE_MAX 1e18f
/* Largest skim_world_def.build_threads. */
#define SKIM_BUILD_THREADS_MAX 1024
/* A single sweep may travel at most this many of the shape's smallest radii
   (the kernel's rounding grows with the square of the path in radii). */
#define SKIM_SWEEP_MAX_RADII 1e6f
typedef struct skim_ellipsoid { skim_vec3 radii; skim_quat rotation; } skim_ellipsoid;

/* ---- the static world ---- */
typedef struct skim_mesh {
    const float    *positions;      /* 3 floats per vertex */
    uint32_t        vertex_count;
    const uint32_t *indices;        /* 3 per triangle; counter-clockwise seen from the front */
    uint32_t        triangle_count;
    const uint16_t *materials;      /* optional: one per triangle, NULL = all 0 */
} skim_mesh;

typedef struct skim_world skim_world;          /* immutable once built; safe to query from many threads */

/* skim extension: how candidate triangles are found. */
typedef enum skim_accelerator {
    SKIM_ACCELERATOR_BVH = 0,        /* SAH bounding volume hierarchy (default) */
    SKIM_ACCELERATOR_BRUTE_FORCE = 1 /* test every triangle: the oracle the tests compare against */
} skim_accelerator;

typedef struct skim_world_def {
    skim_accelerator accelerator;  /* default SKIM_ACCELERATOR_BVH */
    int   max_leaf_triangles;      /* upper bound on triangles per BVH leaf, 1..16; default 4 */
    int   sah_bins;                /* binned SAH bins per axis, 8..32; default 32 */
    int   build_threads;           /* 0 = OpenMP default, else 1..SKIM_BUILD_THREADS_MAX; at most the
                                      processors are used; the tree is identical for any value */
    float degenerate_area;         /* triangles with area <= this (world units^2) are dropped at build,
                                      and counted; default 0 (only zero area: a normal that is
                                      zero in float; a huge triangle is kept) */
} skim_world_def;
SKIM_API skim_world_def skim_world_def_default(void);
SKIM_API skim_status skim_world_create(const skim_mesh *mesh, const skim_world_def *def /* NULL = defaults */,
                                       skim_world **out);
SKIM_API void        skim_world_destroy(skim_world *world);
SKIM_API skim_status skim_world_save(const skim_world *world, const char *path);   /* baked BVH, versioned, checksummed */
SKIM_API skim_status skim_world_load(const char *path, skim_world **out);          /* reads the file; no rebuild */

/* skim extension: what a world holds and what it cost. */
typedef struct skim_world_stats {
    uint32_t triangles;            /* triangles kept (the caller's count less the dropped ones) */
    uint32_t degenerate_triangles; /* dropped at build: zero area */
    uint32_t nodes;                /* BVH nodes (0 for brute force) */
    uint32_t leaves;               /* BVH leaves */
    uint32_t depth;                /* BVH depth, root = 1 */
    uint64_t bytes;                /* bytes the world holds for queries, all included */
    double   sah_cost;             /* SAH cost of the tree (traversal cost 1, triangle cost 1) */
    double   build_seconds;        /* wall time of skim_world_create, 0 for a loaded world */
    skim_vec3 bounds_min, bounds_max;
    skim_accelerator accelerator;
    bool     loaded_from_file;
} skim_world_stats;
SKIM_API skim_status skim_world_get_stats(const skim_world *world, skim_world_stats *out);

/* ---- one sweep ---- */
typedef struct skim_query {
    bool     cull_back_faces;   /* ignore triangles whose back the shape starts behind; default false */
    uint64_t material_mask;     /* bit m set = triangles of material m (m < 64) collide; default all.
                                   Materials >= 64 always collide. */
} skim_query;
SKIM_API skim_query skim_query_default(void);

typedef struct skim_hit {
    bool      hit;
    float     t;          /* first contact at start + t * delta, t in [0, 1]; 0 if touching at the start */
    skim_vec3 point;      /* contact point on the triangle, world space */
    skim_vec3 normal;     /* unit, from the contact point toward the shape's center at contact.
                             For a sphere this is exactly normalize(center - point); for an
                             ellipsoid it is the shape's surface normal at the contact (the
                             sliding-plane normal), which points to the center's side */
    uint32_t  triangle;   /* index of the triangle in the caller's mesh */
} skim_hit;

SKIM_API skim_status skim_sweep(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 start,
                                skim_vec3 delta, const skim_query *query /* NULL = defaults */, skim_hit *out);

/* ---- collide and slide ---- */
/* How skim_move and skim_move_batch move a shape (Nettle's collide and
   slide (Generic Collision Detection for Games Using Ellipsoids), plus what Jolt's CharacterVirtual, PhysX's CCT,
   Godot's move_and_slide and Unity's CharacterController add). A move is:
   slide the displacement along what it meets; step up if a wall stopped it;
   fall by `gravity` in a second pass; snap down to a floor. World units are
   the caller's (the scenes' Quake units in the examples).
   In skim_move_result, `touched` collects the contacts of the path the move
   kept (a rejected step or snap adds nothing); floor_normal (world, unit,
   from the contact toward the center) and floor_triangle (the caller's
   index) are those of the last floor met, floor_triangle is UINT32_MAX
   when none was; `iterations` counts the sweeps of the pass that slid the
   displacement (at most max_iterations). */
typedef struct skim_move_def {
    skim_vec3 up;             /* unit up vector, default (0, 0, 1). Decides floor / wall /
                                 ceiling, the step and snap direction; nothing assumes z-up */
    int       max_iterations; /* slide iterations, default 5, 1..64: Nettle's recursion depth
                                 (PM_SlideMove's numbumps). Each pass (move, step, gravity,
                                 snap) may sweep this many times */
    /* skim extensions. Every length below, and the mover's position and displacement, must
       be finite and at most 1e18 in magnitude (so every coordinate a move computes stays
       finite in float); larger values are SKIM_ERROR_INVALID_ARGUMENT. */
    float     skin_width;     /* gap left between the shape and what it stops against, in radii
                                 (unit-sphere space: skin_width * r for a sphere of radius r;
                                 for an ellipsoid, that fraction of its radius toward the
                                 contact), 0..0.25, default 0.01. Nettle's EPSILON /
                                 "veryCloseDistance", measured along the contact normal.
                                 The move uses at least a precision floor, the kernel's
                                 rounding at the move's magnitude (64 * 2^-24 * L + 1e-5,
                                 L = the path and the nearby triangles' extent, in radii:
                                 1.4e-5 at L = 1, 1e-3 at L = 256; at most 0.25), so 0
                                 means that floor */
    float     max_slope_degrees; /* slope limit, degrees from `up`, in (0, 90), default 45.
                                 A contact whose world normal is within it of `up` is a floor
                                 (walkable: gravity does not slide on it, it stops the fall);
                                 within it of -up a ceiling; anything else a wall. A steeper
                                 slope facing up is a wall for the move pass (it cannot be
                                 walked up; Godot floor_max_angle, Unity slopeLimit, Jolt
                                 mMaxSlopeAngle) and the gravity pass slides down it */
    float     step_height;    /* world units, >= 0, default 0 (off): when a wall stops the move,
                                 try it again from up to this much higher and come down; keep
                                 it if it lands on a floor and gets farther (Quake's
                                 PM_StepSlideMove, STEPSIZE 18; Unity stepOffset). Not tried
                                 while the displacement goes up (a jump). The height is measured
                                 from the mover's lowest point, which rests up to a skin above
                                 the floor, and allows one skin more: a step up to about
                                 step_height + 2 skin_width x the vertical radius is climbed
                                 (18.5 with 18 for a shape 28 tall). Landing on a step's
                                 edge counts when a walkable face runs through the contact,
                                 whichever face the mesh lists first. A landing on such an
                                 edge with the center still out over the riser (a slow walker,
                                 or one at a grazing angle) is kept when a floor no higher than
                                 a step lies just ahead (Jolt's WalkStairs forward test, looked
                                 for with the move's own gathered triangles); the mover moves
                                 only its real distance and gravity does not roll it back off
                                 the edge in that move. No parameter: the test goes as far as
                                 the contact needs to come within the slope limit. Climbs at
                                 0.1 of 320 u/s at 60 Hz at any angle up to 70 degrees; at 0.05
                                 and steps near step_height or angles past 40 degrees some
                                 still stop (the descent, step_height plus two skins, no
                                 longer reaches the nosing from a mover held high on it) */
    float     snap_distance;  /* world units, >= 0, default 0: when nothing held the mover up
                                 and it is not going up, sweep down this far (plus two skins,
                                 always: the ground probe that keeps the floor flag steady) and
                                 keep it only if it lands on a floor. Walks down stairs and
                                 slopes without hopping (Godot floor_snap_length, Jolt
                                 StickToFloor) */
    skim_vec3 gravity;        /* world displacement of Nettle's two-pass gravity, default
                                 (0, 0, 0) (off): after the move, a second collide-and-slide by
                                 this vector that never slides on floors and slides down steep
                                 slopes. One value for every mover of a batch (e.g. a constant
                                 fall step); per-mover falling speed can instead be added to the
                                 displacement, whose downward part is spent on a floor */
    const float *material_friction; /* optional, material_friction_count entries in [0, 1]:
                                 a slide along a triangle of material m is shortened by the
                                 factor (1 - material_friction[m]) (Nettle's friction note);
                                 materials past the table, or NULL, are frictionless. Applies
                                 to the move and gravity passes, not to steps or snapping */
    uint32_t  material_friction_count;
    skim_query query;         /* which triangles collide (back-face culling, material mask);
                                 default skim_query_default() */
} skim_move_def;
SKIM_API skim_move_def skim_move_def_default(void);

enum { SKIM_TOUCH_FLOOR = 1u, SKIM_TOUCH_WALL = 2u, SKIM_TOUCH_CEILING = 4u };

typedef struct skim_move_result {
    skim_vec3 position;       /* where the center ends */
    uint32_t  touched;        /* SKIM_TOUCH_* bits met during the move */
    skim_vec3 floor_normal;   /* valid when touched & SKIM_TOUCH_FLOOR */
    uint32_t  floor_triangle;
    int       iterations;     /* slide iterations used */
} skim_move_result;

/* Move one ellipsoid by displacement, sliding along what it meets. */
SKIM_API skim_status skim_move(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 position,
                               skim_vec3 displacement, const skim_move_def *def /* NULL = defaults */,
                               skim_move_result *out);

/* The same for count movers at once, spread over OpenMP threads. results[i] is
   bitwise the same whatever the thread count and whatever SIMD width runs.
   results must not overlap the inputs (SKIM_ERROR_INVALID_ARGUMENT if it does). */
SKIM_API skim_status skim_move_batch(const skim_world *world, size_t count, const skim_ellipsoid *shapes,
                                     const skim_vec3 *positions, const skim_vec3 *displacements,
                                     const skim_move_def *def, skim_move_result *results);

/* ---- kernel sets (skim extension) ---- */
/* The kernel set in use: "reference", "portable", "sse41", "avx2", "avx512" or "neon".
   Chosen once, at first use, from SKIM_ISA or the best the CPU offers. */
SKIM_API const char *skim_isa_name(void);
/* Space-separated list of the sets this CPU can run, e.g. "reference portable sse41 avx2". */
SKIM_API const char *skim_isa_available(void);
/* SKIM_OK, or SKIM_ERROR_INVALID_ARGUMENT when SKIM_ISA names an unknown or unavailable set
   (skim_last_error_message() then says what this CPU offers). Every call that needs the
   kernels returns this same error while SKIM_ISA is bad. */
SKIM_API skim_status skim_isa_status(void);

/* ---- meshes owned by skim (skim extension) ---- */
typedef struct skim_mesh_data {
    float    *positions;        /* 3 per vertex */
    uint32_t  vertex_count;
    uint32_t *indices;          /* 3 per triangle */
    uint32_t  triangle_count;
    uint16_t *materials;        /* one per triangle */
    char    **material_names;   /* material_count names (OBJ usemtl/o/g), may be NULL */
    uint32_t  material_count;
} skim_mesh_data;
/* A view of owned mesh data as the skim_mesh skim_world_create takes. */
SKIM_API skim_mesh skim_mesh_data_view(const skim_mesh_data *data);
SKIM_API void      skim_mesh_data_free(skim_mesh_data *data);

/* The built-in default scene: a proving ground (floor, walls, stairs of several step heights,
   ramps of 20/40/50/70 degrees, a corridor, pillars, an acute V corner, a low ceiling, a thin
   wall, a closed room) plus open space for crowds. z is up; units as in Quake levels
   (a player is a sphere of radius 16, a step up to 18). */
SKIM_API skim_status skim_scene_default(skim_mesh_data *out);

#ifdef __cplusplus
}
#endif

#include <skim/skim_mesh_io.h> /* OBJ loading (skim extension) */
#include <skim/skim_crowd.h>   /* crowds of movers that meet each other (skim extension) */

#endif /* SKIM_SKIM_H */
