/* The exact swept tests' interface: the candidate triangles a kernel reads
   (in the mover's unit-sphere space, relative to the start), the hit it
   writes, and the kernel sets (the scalar reference and the packet kernels,
   chosen once by dispatch.c). */
#ifndef SKIM_KERNEL_H
#define SKIM_KERNEL_H

#include "base/skim_internal.h"

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

#endif /* SKIM_KERNEL_H */
