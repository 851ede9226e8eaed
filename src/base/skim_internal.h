/* Internal interfaces shared by the library's translation units. Nothing here
   is exported: the library is built with -fvisibility=hidden and only
   SKIM_API symbols leave it. */
#ifndef SKIM_INTERNAL_H
#define SKIM_INTERNAL_H

#include <skim/skim.h>

#include <stdarg.h>
#include <stddef.h>

/* The widest packet any kernel set reads (AVX-512: 16 floats). Candidate
   buffers are padded to a multiple of it so every kernel can read whole
   packets without a tail loop. */
#define SKIM_MAX_PACKET_WIDTH 16u

/* ---- errors ---- */
/* Records a printf-style message for skim_last_error_message() and returns
   status, so a failing path reads `return skim_fail(SKIM_ERROR_..., "...")`. */
skim_status skim_fail(skim_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- per-thread objects (thread_objects.c) ---- */
typedef enum skim_thread_object_kind {
    SKIM_THREAD_SWEEP_SCRATCH = 0, /* sweep.c */
    SKIM_THREAD_MOVE_SCRATCH = 1,  /* src/move/view.c */
    SKIM_THREAD_OBJECT_KINDS
} skim_thread_object_kind;
/* The calling thread's object of kind: made on first use (bytes, 64-byte
   aligned, zeroed, then init if not NULL) and freed with destroy when the
   thread ends. NULL only when there is no memory. */
void *skim_thread_object(skim_thread_object_kind kind, size_t bytes, void (*init)(void *object),
                         void (*destroy)(void *object));

/* ---- validation ---- */
bool skim_finite3(skim_vec3 v);
/* Finite and within SKIM_COORDINATE_MAX on every axis. */
bool skim_within_coordinate_range(skim_vec3 v);
/* Checks radii > 0 and finite, quaternion finite and unit within 1e-3.
   what names the argument in the error message. */
skim_status skim_check_ellipsoid(const skim_ellipsoid *shape, const char *what);
/* Checks |delta| <= SKIM_SWEEP_MAX_RADII smallest radii. */
skim_status skim_check_sweep_length(const skim_ellipsoid *shape, skim_vec3 delta, const char *what);

/* ---- ellipsoid space (Rouwé section 4, Nettle "ellipsoid space") ----
   M = R * S maps the unit sphere onto the ellipsoid (R from the quaternion,
   S = diag(radii)). Positions go to unit-sphere space with M^-1 = S^-1 R^T;
   normals come back with M^-T = R S^-1 (normals transform by the inverse
   transpose). */
typedef struct skim_ellipsoid_space {
    float to_unit[3][3];     /* M^-1, row-major: unit = to_unit * world */
    float to_world[3][3];    /* M */
    float normal_to_world[3][3]; /* M^-T */
    float bounding_radius;   /* largest radius: a sphere around the shape */
    float smallest_radius;
} skim_ellipsoid_space;

void skim_ellipsoid_space_init(skim_ellipsoid_space *space, const skim_ellipsoid *shape);
void skim_mat3_mul_vec(const float m[3][3], const float v[3], float out[3]);

/* ---- candidate triangles in unit-sphere space ----
   Structure of arrays: the packet kernels load 4/8/16 consecutive lanes.
   Vertices are relative to the sweep's start and already in the mover's
   unit-sphere space, so the swept shape is a unit sphere starting at the
   origin. count is the real number of triangles; padding lanes up to
   padded_count repeat a harmless triangle far away with triangle = UINT32_MAX. */
typedef struct skim_candidates {
    uint32_t count;
    uint32_t padded_count;   /* count rounded up to SKIM_MAX_PACKET_WIDTH */
    uint32_t capacity;       /* allocated lanes, a multiple of SKIM_MAX_PACKET_WIDTH */
    float   *vertex[3][3];   /* vertex[v][axis][lane]: v = a, b, c; axis = x, y, z */
    uint32_t *triangle;      /* caller's triangle index per lane */
    uint16_t *material;      /* material per lane */
} skim_candidates;

void        skim_candidates_init(skim_candidates *c);
void        skim_candidates_free(skim_candidates *c);
skim_status skim_candidates_reserve(skim_candidates *c, uint32_t lanes);
/* Pads lanes [count, padded_count) so whole packets can be read. */
void        skim_candidates_pad(skim_candidates *c);
/* The same with whole vector stores over lanes [count, count +
   SKIM_MAX_PACKET_WIDTH): the capacity must hold them. */
void        skim_candidates_pad_whole(skim_candidates *c);
/* The triangle padding lanes (and a move's parked lanes) hold: finite and
   well-formed, so no lane computes NaN or Inf, and a million units out, so
   nothing swept near the start meets it. One definition for every writer. */
extern const float skim_far_triangle[3][3];

/* ---- one hit in unit-sphere space ---- */
typedef struct skim_unit_hit {
    bool     hit;
    float    t;              /* in [0, t_max] */
    float    point[3];       /* contact point, unit space, relative to the start */
    float    normal[3];      /* unit, unit space, from the contact toward the center */
    uint32_t triangle;       /* caller's index */
} skim_unit_hit;

/* A kernel set: sweeps the unit sphere from the origin by delta against every
   candidate, keeping the lowest t <= best->t (ties: lower triangle index).
   best->t must be set by the caller to the largest t of interest (1 for a
   sweep); best->hit says whether anything was found. */
typedef void (*skim_sweep_candidates_fn)(const skim_candidates *candidates, const float delta[3],
                                         bool cull_back_faces, skim_unit_hit *best);
/* The same sweep started at `origin` (unit space, relative to where the
   candidates were gathered): each lane's vertices are taken as v - origin,
   the float subtraction a caller would do to re-base a copy of the buffer,
   so the result is bit for bit the sweep over such a copy, without making
   it (a move's slide iterations start from a new point each time). Points
   in best are relative to origin. An origin of zeros changes no bit. */
typedef void (*skim_sweep_candidates_from_fn)(const skim_candidates *candidates,
                                              const float origin[3], const float delta[3],
                                              bool cull_back_faces, skim_unit_hit *best);

/* The winning lane of a kernel call whose contact point and normal are left
   for later: a front-to-back traversal calls the kernel several times per
   sweep, and only the last winner's point and normal are wanted. feature
   is the packet kernels' feature code, or -1 when best is complete (the
   reference set always completes it). */
typedef struct skim_unit_winner {
    int   feature;
    float vertex[3][3]; /* the winner's triangle, unit space, as the kernel read it */
} skim_unit_winner;

/* The plain sweep, except that a call that finds a better contact sets
   best->hit, t and triangle and records the winner in *winner instead of
   computing best->point and normal; skim_unit_winner_finish() completes
   best afterwards with exactly the bits the plain sweep would have
   written. The caller sets winner->feature = -1 first. */
typedef void (*skim_sweep_candidates_deferred_fn)(const skim_candidates *candidates,
                                                  const float delta[3], bool cull_back_faces,
                                                  skim_unit_hit *best, skim_unit_winner *winner);
/* Completes best (point and normal) from the winner recorded by the
   deferred calls of one sweep by delta; nothing if feature is -1. */
void skim_unit_winner_finish(const skim_unit_winner *winner, const float delta[3],
                             skim_unit_hit *best);

typedef struct skim_kernel_set {
    const char *name;                 /* "reference", "portable", "sse41", ... */
    unsigned    width;                /* triangles per packet, 1 for reference */
    skim_sweep_candidates_fn sweep;
    skim_sweep_candidates_from_fn sweep_from;
    skim_sweep_candidates_deferred_fn sweep_deferred;
} skim_kernel_set;

/* The set chosen once (SKIM_ISA or the best the CPU offers); NULL when
   SKIM_ISA is invalid, with the error recorded. */
const skim_kernel_set *skim_kernels(void);
/* Looks a set up by name regardless of SKIM_ISA; NULL if unknown or the CPU
   cannot run it. For tests and benchmarks that compare sets in one process. */
const skim_kernel_set *skim_kernel_set_by_name(const char *name);

/* The scalar reference (src/kernel/sweep_sphere_triangle.c): one triangle, in the papers' terms.
   a, b, c are in unit-sphere space relative to the start; returns true and
   fills hit (with hit->t <= t_max) when the unit sphere moving from the
   origin by delta touches the triangle at some t in [0, t_max]. */
bool skim_reference_sweep_triangle(const float a[3], const float b[3], const float c[3],
                                   const float delta[3], float t_max, bool cull_back_faces,
                                   skim_unit_hit *hit);
void skim_reference_sweep_candidates_from(const skim_candidates *candidates, const float origin[3],
                                          const float delta[3], bool cull_back_faces,
                                          skim_unit_hit *best);
void skim_reference_sweep_candidates(const skim_candidates *candidates, const float delta[3],
                                     bool cull_back_faces, skim_unit_hit *best);
void skim_reference_sweep_candidates_deferred(const skim_candidates *candidates,
                                              const float delta[3], bool cull_back_faces,
                                              skim_unit_hit *best, skim_unit_winner *winner);

/* ---- the world ---- */
struct skim_bvh;

/* Triangles are stored as structure of arrays, the way the packet kernels
   and the gather read them: vertex[v][axis][i] is coordinate axis of corner
   v of the i-th triangle in storage order (BVH leaf order when a BVH is
   built, so every leaf is a contiguous run). Each array holds stride lanes:
   the triangle count rounded up to a whole packet plus one spare packet, so
   a 4/8/16-lane load starting at any triangle stays inside the array. Lanes
   past triangle_count are zero. */
struct skim_world {
    uint32_t triangle_count;       /* kept triangles */
    uint32_t degenerate_count;     /* dropped at build */
    uint32_t stride;               /* lanes per array, see above */
    const float    *vertex[3][3];  /* vertex[v][axis][i]: v = a, b, c; axis = x, y, z */
    const uint32_t *triangle_index;/* caller's index per stored triangle */
    const uint16_t *material;      /* material per stored triangle */
    skim_accelerator accelerator;
    struct skim_bvh *bvh;          /* NULL for brute force */
    skim_vec3 bounds_min, bounds_max;
    double    build_seconds;
    /* Ownership: either one owned heap block holding all the arrays (freed
       on destroy) or a mapped file (unmapped on destroy). */
    void     *owned_storage;
    void     *mapping;
    size_t    mapping_size;
};

/* Lanes per triangle array for count triangles (see struct skim_world). */
uint32_t skim_world_stride(uint32_t triangle_count);
/* Bytes of the triangle arrays for a stride: 9 float arrays, the caller's
   indices and the materials, each array starting on a 64-byte boundary. */
size_t   skim_world_storage_bytes(uint32_t stride);
/* Points world's arrays into block (64-byte aligned, skim_world_storage_bytes long). */
void     skim_world_bind_storage(skim_world *world, void *block, uint32_t stride);
/* Zeroes block's lanes from count to each array's 64-byte-aligned end (the
   padding a packet load past the last triangle may read); the lanes below
   count are the caller's to write. */
void     skim_world_zero_padding(void *block, uint32_t stride, uint32_t count);

/* Calls visit(ctx, first, count) for every run of triangles in storage order
   whose bounds may overlap the box [box_min, box_max] (world space).
   Triangles outside the box may be reported too; none inside is missed. */
typedef void (*skim_triangle_run_fn)(void *ctx, uint32_t first, uint32_t count);
void skim_world_visit_box(const skim_world *world, const float box_min[3], const float box_max[3],
                          skim_triangle_run_fn visit, void *ctx);

/* Gathers every triangle that may touch a shape moving from start by delta
   (box start +- bounding radius, grown by the displacement) into candidates,
   translated relative to start and transformed to unit-sphere space, skipping
   materials not in material_mask. With a BVH, exactly the triangles whose
   bounding box overlaps the box are gathered, in leaf order; brute force
   gathers every triangle (the oracle). Results never depend on the order,
   since the kernels break ties by triangle index. */
skim_status skim_gather_candidates(const skim_world *world, const skim_ellipsoid_space *space,
                                   const float start[3], const float box_min[3],
                                   const float box_max[3], uint64_t material_mask,
                                   skim_candidates *out);

/* The same for one straight sweep from start by delta (world space): the
   box is skim_sweep_box's, and a triangle is kept only if the segment
   start -> start + delta passes within that box's margin of the triangle's
   bounding box (a slab test), which drops most of a long diagonal move's
   box. Every triangle the kernels could report as the sweep's first hit is
   still kept (the margins are skim_sweep_box's), so a sweep on these
   candidates answers exactly what brute force answers. */
skim_status skim_gather_candidates_swept(const skim_world *world, const skim_ellipsoid_space *space,
                                         const float start[3], const float delta[3],
                                         uint64_t material_mask, skim_candidates *out);

void skim_sweep_box(const float start[3], const float delta[3], float bounding_radius,
                    float box_min[3], float box_max[3]);

/* Converts a unit-space hit back to world space (point, normal). */
void skim_unit_hit_to_world(const skim_ellipsoid_space *space, const float start[3],
                            const skim_unit_hit *unit, skim_hit *out);

#endif /* SKIM_INTERNAL_H */
