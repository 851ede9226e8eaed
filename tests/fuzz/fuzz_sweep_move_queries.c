/* The queries besides sweeps and moves, driven from each sweep of the fuzz
   input (fuzz_sweep_move.c): a ray along the sweep's path, the triangles
   the shape overlaps at its start, the nearest point within the path's
   length, and a drop to the floor. Each runs on both worlds; rays,
   overlaps and closest points must be bit for bit the same on the BVH and
   the brute-force world (no traversal may miss a triangle), and every
   answer must keep its promises: t in [0, 1], finite points and unit
   normals, indices in range and not degenerate, overlaps in increasing
   order, a distance within the bound. */
#include "fuzz_sweep_move.h"

static void check_ray(const scene *s, skim_vec3 origin, skim_vec3 delta)
{
    skim_hit hit, brute;
    skim_status status = skim_raycast(s->bvh, origin, delta, &s->query, &hit);
    skim_status status_brute = skim_raycast(s->brute, origin, delta, &s->query, &brute);
    FUZZ_CHECK(status == status_brute, "skim_raycast: BVH status %d, brute force %d", (int)status,
               (int)status_brute);
    if (status != SKIM_OK) {
        FUZZ_CHECK(s->wild && status == SKIM_ERROR_INVALID_ARGUMENT, "skim_raycast: %s", skim_status_string(status));
        return;
    }
    FUZZ_CHECK(memcmp(&hit, &brute, sizeof hit) == 0,
               "skim_raycast: BVH hit %d t %.9g tri %u, brute force hit %d t %.9g tri %u", hit.hit, (double)hit.t,
               hit.triangle, brute.hit, (double)brute.t, brute.triangle);
    if (!hit.hit)
        return;
    FUZZ_CHECK(hit.t >= 0.0f && hit.t <= 1.0f && hit.triangle < s->triangle_count && !s->degenerate[hit.triangle] &&
                   hit.body == SKIM_STATIC,
               "skim_raycast: t %.9g triangle %u", (double)hit.t, hit.triangle);
    const double n = sqrt((double)hit.normal.x * hit.normal.x + (double)hit.normal.y * hit.normal.y +
                          (double)hit.normal.z * hit.normal.z);
    FUZZ_CHECK(fabs(n - 1.0) < 1e-5 && isfinite(hit.point.x) && isfinite(hit.point.y) && isfinite(hit.point.z),
               "skim_raycast: normal length %.9g", n);
}

static void check_overlap(const scene *s, const skim_ellipsoid *shape, skim_vec3 center)
{
    skim_triangle_ref refs[MAX_TRIANGLES], brute[MAX_TRIANGLES];
    uint32_t count = 0, count_brute = 0;
    skim_status status = skim_overlap(s->bvh, shape, center, &s->query, refs, MAX_TRIANGLES, &count);
    skim_status status_brute = skim_overlap(s->brute, shape, center, &s->query, brute, MAX_TRIANGLES, &count_brute);
    FUZZ_CHECK(status == status_brute, "skim_overlap: BVH status %d, brute force %d", (int)status, (int)status_brute);
    if (status != SKIM_OK)
        return;
    FUZZ_CHECK(count == count_brute && memcmp(refs, brute, count * sizeof *refs) == 0,
               "skim_overlap: BVH found %u, brute force %u", count, count_brute);
    for (uint32_t i = 0; i < count; ++i)
        FUZZ_CHECK(refs[i].triangle < s->triangle_count && !s->degenerate[refs[i].triangle] &&
                       (i == 0 || refs[i].triangle > refs[i - 1].triangle),
                   "skim_overlap: entry %u is triangle %u", i, refs[i].triangle);
}

static void check_closest(const scene *s, skim_vec3 point, float reach)
{
    skim_closest closest, brute;
    skim_status status = skim_closest_point(s->bvh, point, reach, &s->query, &closest);
    skim_status status_brute = skim_closest_point(s->brute, point, reach, &s->query, &brute);
    FUZZ_CHECK(status == status_brute, "skim_closest_point: BVH status %d, brute force %d", (int)status,
               (int)status_brute);
    if (status != SKIM_OK)
        return;
    FUZZ_CHECK(memcmp(&closest, &brute, sizeof closest) == 0,
               "skim_closest_point: BVH found %d at %.9g (tri %u), brute force %d at %.9g (tri %u)", closest.found,
               (double)closest.distance, closest.triangle, brute.found, (double)brute.distance, brute.triangle);
    if (closest.found)
        FUZZ_CHECK(closest.distance >= 0.0f && closest.distance <= reach && closest.triangle < s->triangle_count &&
                       !s->degenerate[closest.triangle],
                   "skim_closest_point: distance %.9g of %.9g, triangle %u", (double)closest.distance, (double)reach,
                   closest.triangle);
}

static void check_drop(const scene *s, const skim_ellipsoid *shape, skim_vec3 position, float drop)
{
    skim_move_result out;
    skim_status status = skim_drop_to_floor(s->bvh, shape, position, drop, &s->def, &out);
    if (status != SKIM_OK) {
        FUZZ_CHECK(status == SKIM_ERROR_INVALID_ARGUMENT, "skim_drop_to_floor: %s", skim_status_string(status));
        return;
    }
    FUZZ_CHECK(isfinite(out.position.x) && isfinite(out.position.y) && isfinite(out.position.z),
               "skim_drop_to_floor: the rest position is not finite");
    if (!(out.touched & SKIM_TOUCH_FLOOR))
        FUZZ_CHECK(memcmp(&out.position, &position, sizeof position) == 0,
                   "skim_drop_to_floor: no floor, yet the shape moved");
    else
        FUZZ_CHECK(out.floor_triangle < s->triangle_count, "skim_drop_to_floor: floor triangle %u",
                   out.floor_triangle);
}

void check_queries(const scene *s, const skim_ellipsoid *shape, skim_vec3 start, skim_vec3 delta)
{
    check_ray(s, start, delta);
    check_overlap(s, shape, start);
    const float length = sqrtf(delta.x * delta.x + delta.y * delta.y + delta.z * delta.z);
    check_closest(s, start, isfinite(length) ? length : 0.0f);
    check_drop(s, shape, start, isfinite(length) ? length : 0.0f);
}
