/* What every stage of the library shares: errors, per-thread objects and
   argument validation. Each stage declares its own internals in its folder
   (world/world.h, gather/gather.h, kernel/kernel.h, ...). Nothing here is
   exported: the library is built with -fvisibility=hidden and only
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
/* Refuses a query whose material_mask is 0: it would collide with no
   triangle of materials 0..63, which is what a zero-initialised skim_query
   says by accident. what names the argument in the message. */
/* What skim_query_default() writes in defaults_mark: a query that has it
   came from the defaults, so a material_mask of 0 there is meant. */
#define SKIM_QUERY_DEFAULTS_MARK 0x5eedfa11u
/* A material_mask of 0 in a query that did not start from
   skim_query_default() (a zero-initialised one) is refused: it would
   silently collide with nothing. */
skim_status skim_check_query(const skim_query *query, const char *what);
/* True when all bytes of a def are zero: a `= {0}` struct, refused with a
   message naming the defaults function rather than field by field. */
bool skim_all_zero(const void *def, size_t bytes);

/* The precision rule (docs/hardening.md, Precision): the magnitude below
   which a float coordinate is spaced at most SKIM_POSITION_RESOLUTION_RADII
   of smallest_radius (a power of two), whether start and start + delta
   both lie below it on every axis, and the error naming the limit (what:
   "skim_move: positions[3]"). */
float skim_position_limit(float smallest_radius);
bool skim_position_resolves(float smallest_radius, skim_vec3 start, skim_vec3 delta);
skim_status skim_fail_position_resolution(float smallest_radius, skim_vec3 start, skim_vec3 delta,
                                          const char *what);
float skim_smallest_radius(skim_vec3 radii);

/* ---- building (world.c) ---- */
/* The threads a build runs on: def->build_threads (0 = OpenMP's default),
   at most the processors there are; the tree does not depend on it. */
int skim_build_thread_count(const skim_world_def *def);

#endif /* SKIM_INTERNAL_H */
