/* What the queries of src/query/ share: the ray set-up and its triangle
   test, the triangle lookup by the caller's index, and double-precision
   closest points. Internal. */
#ifndef SKIM_QUERY_INTERNAL_H
#define SKIM_QUERY_INTERNAL_H

#include "base/skim_internal.h"
#include "kernel/kernel.h"
#include "world/world.h"

/* A ray prepared once for every triangle and box it meets: Woop, Benthin
   and Wald, "Watertight Ray/Triangle Intersection" (JCGT 2013), section 3:
   kz is the axis where the direction is largest, kx and ky the other two
   (swapped when d[kz] < 0 so the winding keeps its sign), and (sx, sy, sz)
   the shear that turns the ray into the +z axis of unit length. */
typedef struct skim_ray {
    float    origin[3], delta[3];
    int      kx, ky, kz;
    float    sx, sy, sz;
    float    inverse_delta[3]; /* 1 / delta, +-1e30 for a zero or denormal component */
    float    reach[3];         /* how far node boxes are grown: covers their rounding */
    bool     cull_back_faces;
    uint64_t material_mask;
} skim_ray;

void skim_ray_init(skim_ray *ray, const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                   const skim_query *query);

/* Watertight test of stored triangle `stored`: true with *t in [0, limit]
   when the ray meets it (t = 0 for a start on the triangle). */
bool skim_ray_triangle(const skim_ray *ray, const skim_world *world, uint32_t stored, float limit,
                       float *t);

/* The first hit of the ray in world: the stored index of the winner (the
   lowest t, ties to the lowest caller index) or UINT32_MAX, and its t.
   The same bits for every kernel set; sets of 8 lanes or more run the
   8-lane build of the traversal (ray_traverse.c). */
uint32_t skim_ray_first_hit(const skim_ray *ray, const skim_world *world, const skim_kernel_set *kernels,
                            float *t);
/* Whether the ray meets any triangle: exactly whether skim_ray_first_hit
   finds one, with the search ended at the first found. */
bool skim_ray_blocked(const skim_ray *ray, const skim_world *world, const skim_kernel_set *kernels);
/* The 8-lane build of both (any: the second), x86 only
   (src/query/meson.build), for CPUs with AVX2. */
#if defined(__x86_64__) || defined(__i386__)
#define SKIM_RAY_HAVE_AVX2_TRAVERSAL 1
uint32_t skim_ray_search_avx2(const skim_ray *ray, const skim_world *world, bool any, float *t);
#endif

/* A checked ray against world's own triangles only (raycast.c): out as
   skim_raycast fills it. */
void skim_ray_cast_static(const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                          const skim_query *query, const skim_kernel_set *kernels, skim_hit *out);
/* The same ray against world's bodies (body_rays.c): out, holding the
   static answer, is replaced by a body's hit that comes strictly earlier
   (a tie keeps the static hit, then the lower body id). */
void skim_ray_cast_bodies(const skim_world *world, skim_vec3 origin, skim_vec3 delta,
                          const skim_query *query, const skim_kernel_set *kernels, skim_hit *out);

/* A checked sweep against world's bodies (body_sweep.c): out, holding the
   static answer, is replaced by a body's contact that comes strictly
   earlier (a tie keeps the static contact, then the lower body id).
   candidates is scratch. */
/* Whether skim_sweep's path from start by delta meets anything (*meets:
   skim_sweep's hit, with the default query), found with less work: the
   traversal ends at the first contact it finds rather than the first
   along the path. */
skim_status skim_sweep_meets(const skim_world *world, const skim_ellipsoid *shape, skim_vec3 start,
                             skim_vec3 delta, bool *meets);

skim_status skim_sweep_bodies(const skim_world *world, const skim_ellipsoid *shape,
                              const float start[3], const float delta[3], const skim_query *query,
                              const skim_kernel_set *kernels, skim_candidates *candidates,
                              skim_hit *out);

/* The point of triangle (a, b, c) nearest to p, in double (Ericson,
   Real-Time Collision Detection, 5.1.5). */
void skim_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                              const double c[3], double out[3]);
/* Whether stored triangle `stored` is one the query lets collide. */
static inline bool skim_query_material_collides(const skim_world *world, uint32_t stored,
                                                uint64_t mask)
{
    const uint16_t material = world->material[stored];
    return material >= 64 || ((mask >> material) & 1u);
}

#endif
