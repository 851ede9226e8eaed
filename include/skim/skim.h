/**
 * @file skim.h
 * @brief skim: swept ellipsoids and collide-and-slide through static triangle worlds.
 *
 * The whole public API; it also includes skim_mesh_io.h and skim_crowd.h.
 * Conventions: front faces are counter-clockwise (normal (b-a) x (c-a)),
 * triangles are two-sided unless a query culls back faces, up is whatever
 * the caller says, and every call that can fail returns a skim_status.
 * Behaviour is described in docs/guide.md.
 */
#ifndef SKIM_SKIM_H
#define SKIM_SKIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <skim/skim_version.h> /* SKIM_VERSION_MAJOR, _MINOR, _PATCH, _STRING */

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a function of the public API (exported from the shared library). */
#if defined(_WIN32)
#define SKIM_API
#else
#define SKIM_API __attribute__((visibility("default")))
#endif

/* ---- basics ---- */
/** What a call did; anything but SKIM_OK leaves a sentence in skim_last_error_message(). */
typedef enum skim_status {
    SKIM_OK = 0,
    SKIM_ERROR_INVALID_ARGUMENT, /**< NULL, NaN/Inf, index out of range, radius <= 0, ... */
    SKIM_ERROR_OUT_OF_MEMORY,    /**< an allocation failed */
    SKIM_ERROR_IO,               /**< a file could not be opened, read or written */
    SKIM_ERROR_FORMAT,           /**< a mesh or baked-world file is malformed, truncated or from another version */
} skim_status;
/** The status in a few words, e.g. "invalid argument". */
SKIM_API const char *skim_status_string(skim_status status);

/** skim extension: the most recent failure on the calling thread, as a
    sentence (which argument, which line of which file). Never NULL; "" when
    nothing failed yet; valid until the next failing call on this thread. */
SKIM_API const char *skim_last_error_message(void);

/** skim extension: the library's version, "MAJOR.MINOR.PATCH"; compare with
    SKIM_VERSION_STRING, the headers' version. */
SKIM_API const char *skim_version(void);

/** A point or vector in world units. */
typedef struct skim_vec3 {
    float x; /**< x component */
    float y; /**< y component */
    float z; /**< z component */
} skim_vec3;
/** A unit quaternion (renormalised internally; off unit length by more than 1e-3 is an error). */
typedef struct skim_quat {
    float x; /**< vector part, x */
    float y; /**< vector part, y */
    float z; /**< vector part, z */
    float w; /**< scalar part */
} skim_quat;

/** Smallest radius accepted, world units. */
#define SKIM_RADIUS_MIN 1e-6f
/** Largest radius accepted, world units. */
#define SKIM_RADIUS_MAX 1e9f
/** Largest ratio of an ellipsoid's largest radius to its smallest. */
#define SKIM_RADIUS_RATIO_MAX 1e3f
/** Largest magnitude of any coordinate, position, displacement or length. */
#define SKIM_COORDINATE_MAX 1e18f
/** Largest skim_world_def.build_threads. */
#define SKIM_BUILD_THREADS_MAX 1024
/** Longest sweep, in the shape's smallest radii. */
#define SKIM_SWEEP_MAX_RADII 1e6f
/** Widest float spacing at a sweep's or move's start and end, in the shape's smallest radii:
    |coordinate| < 2^(24 + floor(log2(radius / 8))) (3.4e7 for radius 16, 2 for SKIM_RADIUS_MIN).
    Positions stay float (no double positions planned): rebase the origin per region
    (docs/hardening.md, Precision). */
#define SKIM_POSITION_RESOLUTION_RADII 0.125f
/** An ellipsoid: semi-axes along its local x, y, z, turned by rotation.
    A sphere of radius r is { {r, r, r}, {0, 0, 0, 1} }. */
typedef struct skim_ellipsoid {
    skim_vec3 radii;    /**< world units, SKIM_RADIUS_MIN..SKIM_RADIUS_MAX */
    skim_quat rotation; /**< local to world */
} skim_ellipsoid;

/* ---- the static world ---- */
/** Triangles as the caller holds them; skim copies what it needs. */
typedef struct skim_mesh {
    const float    *positions;      /**< 3 floats per vertex, world units */
    uint32_t        vertex_count;   /**< vertices in positions */
    const uint32_t *indices;        /**< 3 per triangle, counter-clockwise seen from the front */
    uint32_t        triangle_count; /**< triangles in indices */
    const uint16_t *materials;      /**< optional, one per triangle; NULL = all 0 */
} skim_mesh;

/** A static world: immutable once built, safe to query from many threads. */
typedef struct skim_world skim_world;

/** skim extension: how candidate triangles are found. */
typedef enum skim_accelerator {
    SKIM_ACCELERATOR_BVH = 0,        /**< SAH bounding volume hierarchy (default) */
    SKIM_ACCELERATOR_BRUTE_FORCE = 1 /**< test every triangle: the oracle the tests compare against */
} skim_accelerator;

/** How skim_world_create builds a world. */
typedef struct skim_world_def {
    skim_accelerator accelerator;  /**< default SKIM_ACCELERATOR_BVH */
    int   max_leaf_triangles;      /**< most triangles per BVH leaf, 1..16; default 4 */
    int   sah_bins;                /**< binned SAH bins per axis, 8..32; default 32 */
    int   build_threads;           /**< 0..SKIM_BUILD_THREADS_MAX, 0 = OpenMP's default; at most the processors are used; same tree for any value */
    float degenerate_area;         /**< world units^2, >= 0; triangles of area <= this are dropped and counted; default 0 (a huge triangle is kept) */
} skim_world_def;
/** The defaults of every skim_world_def field. */
SKIM_API skim_world_def skim_world_def_default(void);
/** Builds a world from mesh (def NULL = defaults); free it with skim_world_destroy(). */
SKIM_API skim_status skim_world_create(const skim_mesh *mesh, const skim_world_def *def,
                                       skim_world **out);
/** Frees a world; NULL is allowed. */
SKIM_API void        skim_world_destroy(skim_world *world);
/** Writes the built world to path (docs/bake_format.md: versioned, checksummed). */
SKIM_API skim_status skim_world_save(const skim_world *world, const char *path);
/** Reads a file written by skim_world_save() into memory; checks it, does not rebuild. */
SKIM_API skim_status skim_world_load(const char *path, skim_world **out);

/** skim extension: what a world holds and what it cost. */
typedef struct skim_world_stats {
    uint32_t triangles;            /**< triangles kept (the caller's count less the dropped ones) */
    uint32_t degenerate_triangles; /**< triangles dropped at build */
    uint32_t nodes;                /**< BVH nodes (0 for brute force) */
    uint32_t leaves;               /**< BVH leaves */
    uint32_t depth;                /**< BVH depth, root = 1 */
    uint64_t bytes;                /**< bytes the world holds for queries, all included */
    double   sah_cost;             /**< SAH cost of the tree (traversal cost 1, triangle cost 1) */
    double   build_seconds;        /**< wall time of skim_world_create, 0 for a loaded world */
    skim_vec3 bounds_min;          /**< smallest corner of the kept triangles' box */
    skim_vec3 bounds_max;          /**< largest corner of the kept triangles' box */
    skim_accelerator accelerator;  /**< as built */
    bool     loaded_from_file;     /**< true for a world from skim_world_load() */
} skim_world_stats;
/** Fills *out with the world's figures. */
SKIM_API skim_status skim_world_get_stats(const skim_world *world, skim_world_stats *out);

/* ---- one sweep ---- */
/** Which triangles a sweep or move collides with. */
typedef struct skim_query {
    bool     cull_back_faces;   /**< ignore triangles the shape starts behind; default false */
    uint64_t material_mask;     /**< bit m set = material m (m < 64) collides; materials >= 64 always do; default all */
    uint32_t defaults_mark;     /**< skim extension: set by skim_query_default(); keep it. A mask of 0 in a query
                                     without it (a zero-initialised one) is refused, not taken as "collide with nothing" */
} skim_query;
/** Back faces collide, every material collides. */
SKIM_API skim_query skim_query_default(void);

/** The `body` of a hit, closest point or triangle reference on the world's own triangles. */
#define SKIM_STATIC UINT32_MAX

/** The first contact of a sweep. */
typedef struct skim_hit {
    bool      hit;        /**< true when the shape met a triangle within delta */
    float     t;          /**< contact at start + t * delta, 0..1; 0 when touching at the start */
    skim_vec3 point;      /**< contact point on the triangle, world */
    skim_vec3 normal;     /**< unit, the shape's surface normal at the contact, toward its center */
    uint32_t  triangle;   /**< the triangle's index in the caller's mesh (the body's own mesh when body is a body id) */
    uint32_t  body;       /**< SKIM_STATIC for the world's own triangles, else a body id */
} skim_hit;

/** Sweeps shape from start by delta (world units) and reports the first contact (query NULL = defaults). */
SKIM_API skim_status skim_sweep(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 start,
                                skim_vec3 delta, const skim_query *query, skim_hit *out);

/* ---- threads (skim extension) ---- */
/** Most threads a def may ask for. */
#define SKIM_THREADS_MAX 256
/** How a call's threads wait for each other between its phases (docs/guide.md,
    "Threads"). Between calls, OpenMP's own idle threads follow the runtime's
    settings, which libgomp reads once at program start from OMP_WAIT_POLICY
    and GOMP_SPINCOUNT. */
typedef enum skim_wait_policy {
    SKIM_WAIT_SPIN_BRIEFLY = 0, /**< spin a few tens of microseconds, then nap: quickest when
                                     the cores are free */
    SKIM_WAIT_PASSIVE = 1       /**< nap at once: politest when other programs share the cores */
} skim_wait_policy;

/* ---- collide and slide ---- */
/** How skim_move and skim_move_batch move a shape; docs/guide.md, "Moves", says what each field does. */
typedef struct skim_move_def {
    skim_vec3 up;                /**< unit vector; decides floor, wall and ceiling; default (0, 0, 1) */
    int       max_iterations;    /**< sweeps per pass (slide, step, gravity, snap), 1..64; default 5 */
    float     skin_width;        /**< gap kept from what the shape stops against, in radii, 0..0.25; default 0.01 */
    float     max_slope_degrees; /**< steepest floor, degrees from up, (0, 90); default 45 */
    float     step_height;       /**< highest step climbed, world units, >= 0; default 0 (off) */
    float     snap_distance;     /**< farthest drop snapped down to a floor, world units, >= 0; default 0 (off) */
    skim_vec3 gravity;           /**< world displacement of the second (gravity) pass; default (0, 0, 0) (off) */
    const float *material_friction; /**< optional, per material, 0..1: a slide is shortened by (1 - friction); default NULL */
    uint32_t  material_friction_count; /**< entries in material_friction; default 0 */
    skim_query query;            /**< which triangles collide; default skim_query_default() */
    int       threads;           /**< skim extension: OpenMP threads skim_move_batch and a crowd's step use,
                                      0..SKIM_THREADS_MAX; default 0 = OpenMP's default; results do not depend on it */
    skim_wait_policy wait;       /**< skim extension: how those threads wait for each other inside a call;
                                      default SKIM_WAIT_SPIN_BRIEFLY */
} skim_move_def;
/** The defaults of every skim_move_def field. */
SKIM_API skim_move_def skim_move_def_default(void);

/** skim_move_result.touched bits. */
enum {
    SKIM_TOUCH_FLOOR = 1u,   /**< met a walkable surface */
    SKIM_TOUCH_WALL = 2u,    /**< met a surface too steep to walk */
    SKIM_TOUCH_CEILING = 4u, /**< met a surface facing down */
};

/** Where a move ended and what it met on the path it kept. */
typedef struct skim_move_result {
    skim_vec3 position;       /**< where the center ends, world */
    uint32_t  touched;        /**< SKIM_TOUCH_* bits */
    skim_vec3 floor_normal;   /**< unit, of the last floor met; valid with SKIM_TOUCH_FLOOR */
    uint32_t  floor_triangle; /**< caller's index of the last floor met (in floor_body's mesh); UINT32_MAX when none */
    int       iterations;     /**< sweeps of the slide pass, 0..max_iterations */
    uint32_t  floor_body;     /**< SKIM_STATIC, or the body id of the last floor met (skim_bodies.h); SKIM_STATIC when none */
} skim_move_result;

/** Moves one shape from position by displacement, sliding along what it meets (def NULL = defaults). */
SKIM_API skim_status skim_move(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 position,
                               skim_vec3 displacement, const skim_move_def *def,
                               skim_move_result *out);

/** Moves count shapes at once over OpenMP threads; results are bitwise the same for any thread count and kernel set.
    results must not overlap the inputs (SKIM_ERROR_INVALID_ARGUMENT if it does). */
SKIM_API skim_status skim_move_batch(const skim_world *world, size_t count, const skim_ellipsoid *shapes,
                                     const skim_vec3 *positions, const skim_vec3 *displacements,
                                     const skim_move_def *def, skim_move_result *results);

/** skim extension: what each mover of a batch keeps of the world near it from one call to the next
    (docs/guide.md, "Moving a crowd frame after frame"). */
typedef struct skim_move_cache skim_move_cache;
/** Makes an empty cache (*out NULL on failure). */
SKIM_API skim_status skim_move_cache_create(skim_move_cache **out);
/** Frees a cache (NULL is allowed). */
SKIM_API void skim_move_cache_destroy(skim_move_cache *cache);
/** skim_move_batch, mover i keeping what it gathered in the cache's entry i for its next call:
    bitwise the same results, with fewer tree walks when the same movers move again in the same world. */
SKIM_API skim_status skim_move_batch_cached(const skim_world *world, skim_move_cache *cache, size_t count,
                                            const skim_ellipsoid *shapes, const skim_vec3 *positions,
                                            const skim_vec3 *displacements, const skim_move_def *def,
                                            skim_move_result *results);

/* ---- kernel sets (skim extension) ---- */
/** The kernel set in use ("reference", "portable", "sse41", "avx2", "avx512", "avx512vl", "neon"),
    chosen at first use from SKIM_ISA or the best the CPU runs. */
SKIM_API const char *skim_isa_name(void);
/** The sets this CPU can run, space-separated. */
SKIM_API const char *skim_isa_available(void);
/** SKIM_OK, or SKIM_ERROR_INVALID_ARGUMENT while SKIM_ISA names an unknown or unavailable set. */
SKIM_API skim_status skim_isa_status(void);

/* ---- meshes owned by skim (skim extension) ---- */
/** A mesh skim allocated (OBJ loading, the default scene); free with skim_mesh_data_free(). */
typedef struct skim_mesh_data {
    float    *positions;        /**< 3 per vertex */
    uint32_t  vertex_count;     /**< vertices in positions */
    uint32_t *indices;          /**< 3 per triangle */
    uint32_t  triangle_count;   /**< triangles in indices */
    uint16_t *materials;        /**< one per triangle */
    char    **material_names;   /**< material_count names (OBJ usemtl/o/g); may be NULL */
    uint32_t  material_count;   /**< entries in material_names */
} skim_mesh_data;
/** A view of owned mesh data as the skim_mesh skim_world_create() takes. */
SKIM_API skim_mesh skim_mesh_data_view(const skim_mesh_data *data);
/** Frees what data holds and empties it. */
SKIM_API void      skim_mesh_data_free(skim_mesh_data *data);

/** The built-in proving ground: floor, walls, stairs, ramps, a corridor, pillars, a low ceiling
    and open space; z up, Quake units (a player is a sphere of radius 16, a step 18). */
SKIM_API skim_status skim_scene_default(skim_mesh_data *out);

#ifdef __cplusplus
}
#endif

#include <skim/skim_mesh_io.h> /* OBJ loading (skim extension) */
#include <skim/skim_crowd.h>   /* crowds of movers that meet each other (skim extension) */
#include <skim/skim_query.h>   /* rays, overlaps, closest points, floors, spawn places */
#include <skim/skim_contacts.h> /* the contacts of a move */
#include <skim/skim_bodies.h>  /* moving bodies: doors, lifts, platforms */
#include <skim/skim_scene_bodies.h> /* the default scene's lift, door and platform */

#endif /* SKIM_SKIM_H */
