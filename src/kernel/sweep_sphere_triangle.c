/* The scalar reference: a unit sphere swept against one triangle, after
   Jorrit Rouwé, "Collision Detection with Swept Spheres and Ellipsoids"
  . Readable first: one triangle at a time, with branches, in the
   paper's vocabulary. The packet kernels in src/kernel/ must agree with it.

   Everything here happens in the mover's unit-sphere space (Rouwé 4.1: the
   caller has already applied M^-1 to the triangle) and relative to the start
   of the sweep, so the sphere has radius R = 1 and centre C(t) = t * D
   (Rouwé 3.1 with B = 0). Working relative to the start keeps precision far
   from the world origin: the caller subtracts two nearby floats, which is
   exact, instead of carrying 1e5-sized coordinates through the quadratics.

   Rouwé projects the polygon to 2D plane space (section 2); section 5 notes
   the same algorithm works on 3D points, which is what we do: the vertex and
   edge quadratics below are the 3D forms, with the plane distance folded in. */
#include "kernel/kernel.h"

#include <math.h>

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[0] - b[0];
    out[1] = a[1] - b[1];
    out[2] = a[2] - b[2];
}

static void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Rouwé 3.6 (FindLowestRootInInterval), for a quadratic a t^2 + b t + c
   given as c, the approach rate approach = -b/2 and the quarter
   discriminant b^2/4 - a c, each computed by the caller in a form that does
   not cancel (see the vertex and edge tests). Every quadratic here has
   a >= 0 and c > 0 (the sphere does not yet touch the feature at t = 0;
   touching at the start is handled before). Then both roots have the sign
   of approach, so a contact needs approach > 0, and the lower root is
   Numerical Recipes 5.6's stable c / q = c / (approach + sqrt(disc / 4)):
   no division by a, so no blow-up when a is tiny (motion nearly parallel
   to an edge, or tiny D). */
static bool lowest_root_in_interval(float approach, float c, float quarter_discriminant,
                                    float upper_bound, float *root)
{
    if (c < 0.0f || approach <= 0.0f)
        return false;
    if (quarter_discriminant < 0.0f)
        return false;
    float t = c / (approach + sqrtf(quarter_discriminant));
    if (!(t >= 0.0f && t <= upper_bound))
        return false;
    *root = t;
    return true;
}

/* Is point p (on the plane) inside the triangle? Rouwé 3.3's PolygonContains
   in 3D: p must lie on the inner side of every counter-clockwise edge, i.e.
   (v2 - v1) x (p - v1) points along the front normal n. */
static bool triangle_contains(const float *const vertex[3], const float n[3], const float p[3])
{
    for (int i = 0; i < 3; ++i) {
        float edge[3], to_point[3], side[3];
        sub3(vertex[(i + 1) % 3], vertex[i], edge);
        sub3(p, vertex[i], to_point);
        cross3(edge, to_point, side);
        if (dot3(side, n) < 0.0f)
            return false;
    }
    return true;
}

/* Closest point of the segment [v1, v2] to the origin. */
static void closest_on_segment_to_origin(const float v1[3], const float v2[3], float out[3])
{
    float edge[3];
    sub3(v2, v1, edge);
    float length_sq = dot3(edge, edge);
    float f = length_sq > 0.0f ? -dot3(v1, edge) / length_sq : 0.0f;
    f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
    for (int k = 0; k < 3; ++k)
        out[k] = v1[k] + f * edge[k];
}

/* Rouwé 3.3 at t = 0 in 3D: the closest point of the triangle to the sphere's
   centre (the origin): the centre's projection if it falls inside, else the
   nearest point of the three edges. */
static void closest_point_to_origin(const float *const vertex[3], const float n[3],
                                    float plane_distance, float out[3])
{
    float projection[3] = { -plane_distance * n[0], -plane_distance * n[1],
                            -plane_distance * n[2] };
    if (triangle_contains(vertex, n, projection)) {
        for (int k = 0; k < 3; ++k)
            out[k] = projection[k];
        return;
    }
    float best_sq = INFINITY;
    for (int i = 0; i < 3; ++i) {
        float candidate[3];
        closest_on_segment_to_origin(vertex[i], vertex[(i + 1) % 3], candidate);
        float distance_sq = dot3(candidate, candidate);
        if (distance_sq < best_sq) {
            best_sq = distance_sq;
            for (int k = 0; k < 3; ++k)
                out[k] = candidate[k];
        }
    }
}

static void set_hit(skim_unit_hit *hit, float t, const float point[3], const float normal[3])
{
    hit->hit = true;
    hit->t = t;
    for (int k = 0; k < 3; ++k) {
        hit->point[k] = point[k];
        hit->normal[k] = normal[k];
    }
}

/* Normal of a vertex or edge contact: from the contact point toward the
   centre C(t) = t D; its length is 1 in unit-sphere space up to rounding. */
static void normal_toward_center(float t, const float delta[3], const float point[3],
                                 float normal[3])
{
    float to_center[3] = { t * delta[0] - point[0], t * delta[1] - point[1],
                           t * delta[2] - point[2] };
    float length = sqrtf(dot3(to_center, to_center));
    for (int k = 0; k < 3; ++k)
        normal[k] = to_center[k] / length;
}

/* The corner opposite the triangle's longest edge (ties: edge ab, then
   bc, then ca counts as the longest), where the plane normal is formed. */
static int plane_corner(const float *const vertex[3])
{
    float ab[3], bc[3], ca[3];
    sub3(vertex[1], vertex[0], ab);
    sub3(vertex[2], vertex[1], bc);
    sub3(vertex[0], vertex[2], ca);
    const float ab_sq = dot3(ab, ab), bc_sq = dot3(bc, bc), ca_sq = dot3(ca, ca);
    if (ab_sq >= bc_sq && ab_sq >= ca_sq)
        return 2;
    return bc_sq >= ca_sq ? 0 : 1;
}

bool skim_reference_sweep_triangle(const float a[3], const float b[3], const float c[3],
                                   const float delta[3], float t_max, bool cull_back_faces,
                                   skim_unit_hit *hit)
{
    const float *const vertex[3] = { a, b, c };

    /* Rouwé 2: the plane N . P + C_p = 0 with the front (counter-clockwise)
       normal N = (b - a) x (c - a) / |...|, taken at the corner opposite the
       longest edge: N = (v[k+1] - v[k]) x (v[k+2] - v[k]), the same vector
       for every k in exact arithmetic. The cross product's rounding is
       u |e1| |e2| for the two edges it crosses, against |N| = 2 area; from
       a corner of a needle's far end both edges are long and nearly
       parallel, and N's direction is off by u L / width, enough to move a
       face contact seen from 200 radii by 0.006 radii (fuzz, after finding
       19). The two shortest edges meet at the largest angle (at least 60
       degrees), so only the inherently ill-posed cap (that angle near 180)
       stays ill-conditioned. Degenerate triangles never get here: the
       world drops them at build. */
    const int k0 = plane_corner(vertex);
    const float *corner = vertex[k0];
    float first_edge[3], second_edge[3], n[3];
    sub3(vertex[(k0 + 1) % 3], corner, first_edge);
    sub3(vertex[(k0 + 2) % 3], corner, second_edge);
    cross3(first_edge, second_edge, n);
    float n_length = sqrtf(dot3(n, n));
    if (!(n_length > 0.0f))
        return false;
    for (int k = 0; k < 3; ++k)
        n[k] /= n_length;

    /* Signed distance of the start B = 0 to the plane: N . B + C_p with
       C_p = -N . v[k]. */
    float start_distance = -dot3(n, corner);

    /* Back faces (Nettle's "back-face culling", a query option here): a
       triangle whose back the centre starts behind is ignored. */
    if (cull_back_faces && start_distance < 0.0f)
        return false;

    /* Two-sided by default: orient the plane toward the start so the sphere
       always approaches from the positive side. */
    float side = start_distance < 0.0f ? -1.0f : 1.0f;
    float plane_normal[3] = { side * n[0], side * n[1], side * n[2] };
    float distance = side * start_distance;

    /* Touching at the start (what the papers gloss over; Nettle's "embedded"
       case): if the triangle is within the unit sphere already, report t = 0
       at the closest point, normal from it toward the centre. */
    if (distance <= 1.0f) {
        float closest[3];
        closest_point_to_origin(vertex, n, start_distance, closest);
        float closest_sq = dot3(closest, closest);
        if (closest_sq <= 1.0f) {
            float normal[3];
            float length = sqrtf(closest_sq);
            /* Centre on the triangle itself: the contact direction is
               undefined, so use the face normal on the start's side. */
            if (length > 1e-6f) {
                for (int k = 0; k < 3; ++k)
                    normal[k] = -closest[k] / length;
            } else {
                for (int k = 0; k < 3; ++k)
                    normal[k] = plane_normal[k];
            }
            set_hit(hit, 0.0f, closest, normal);
            return true;
        }
    }

    /* Rouwé 3.1: the interval over which the sphere overlaps the plane. With
       the plane turned toward the start, the sphere first touches it at
       t1 = (distance - 1) / -(N . D) and only when N . D < 0. Motion parallel
       to the plane (N . D = 0) never changes the distance: if the sphere is
       clear of the plane it stays clear; if it already overlaps the plane
       only an edge or vertex can be met, which the quadratics below find. */
    float n_dot_d = dot3(plane_normal, delta);
    float upper_bound = t_max;
    bool found = false;
    if (distance > 1.0f) {
        if (!(n_dot_d < 0.0f))
            return false;
        float t1 = (distance - 1.0f) / -n_dot_d;
        if (!(t1 <= t_max))
            return false;
        /* Rouwé 3.3 at t1: the circle of the sphere on the plane has radius 0
           there, so the sphere touches the face iff the touching point, the
           centre C(t1) moved back by the unit normal, is inside the triangle. */
        float touching_point[3];
        for (int k = 0; k < 3; ++k)
            touching_point[k] = t1 * delta[k] - plane_normal[k];
        if (triangle_contains(vertex, n, touching_point)) {
            set_hit(hit, t1, touching_point, plane_normal);
            return true;
        }
    }

    float dd = dot3(delta, delta);

    /* Rouwé 3.4: the swept sphere against each vertex v, |v - C(t)|^2 = 1:
       a = |D|^2, b = -2 D . v, c = |v|^2 - 1. The paper's discriminant
       b^2 - 4ac subtracts two terms of size |D|^2 |v|^2 that cancel when the
       path grazes a far vertex (a long sweep), losing u P^2 of the distance
       (u = 2^-24, P the path in radii). By Lagrange's identity
       |D|^2 |v|^2 - (D . v)^2 = |D x v|^2, so b^2/4 - ac = |D|^2 - |D x v|^2,
       whose terms are of size |D|^2 and whose rounding is u P. Vertices in
       order a, b, c; a later feature replaces an earlier one only when
       strictly earlier, so ties resolve the same way in every kernel. */
    for (int i = 0; i < 3; ++i) {
        const float *v = vertex[i];
        float dxv[3];
        cross3(delta, v, dxv);
        float t;
        if (lowest_root_in_interval(dot3(delta, v), dot3(v, v) - 1.0f, dd - dot3(dxv, dxv),
                                    upper_bound, &t)) {
            if (!found || t < upper_bound) {
                float normal[3];
                normal_toward_center(t, delta, v, normal);
                set_hit(hit, t, v, normal);
                upper_bound = t;
                found = true;
            }
        }
    }

    /* Rouwé 3.5: the swept sphere against each edge v1 -> v2 (e = v2 - v1).
       First the infinite line: the centre C = t D is at distance
       |e x (v1 - C)| / |e| from it, so |e|^2 dist^2 = |e|^2 reads
         a = |e x D|^2,  b = -2 (e x v1) . (e x D),  c = |e x v1|^2 - |e|^2,
       the paper's coefficients (|e|^2 |D|^2 - (e . D)^2 and so on) rewritten
       with Lagrange's identity. Written as the paper writes them, c's terms
       are of size |e|^2 |v1|^2 and cancel to |e|^2 (dist^2 - 1), losing u L^2
       of the distance to rounding (u = 2^-24, L the unit-space size: a big
       floor triangle, a small sphere); the cross products lose u L. The
       discriminant likewise: b^2/4 - ac = |e|^2 (|e x D|^2 - h^2) with
       h = (e x D) . v1, the scalar triple product, h / |e x D| being the
       distance between the edge's line and the path's line. Formed as
       b^2 - 4ac its terms are of size |e|^4 |D|^2 |v1|^2 and cancel exactly
       when the path grazes the line (a near double root), which made a long
       sweep across a big triangle miss it outright; here they
       are of size |e|^2 |e x D|^2 and only the grazing itself is lost.
       Then the contact is on the segment iff f |e|^2 = t (e . D) - e . v1
       is in [0, |e|^2]. c < 0 means the start is already within distance 1
       of the infinite line but (having passed the start test) not of the
       segment: the sphere can then only reach the segment through an end
       vertex first, found above. */
    for (int i = 0; i < 3; ++i) {
        const float *v1 = vertex[i];
        const float *v2 = vertex[(i + 1) % 3];
        float e[3], exd[3], exv[3];
        sub3(v2, v1, e);
        cross3(e, delta, exd);
        cross3(e, v1, exv);
        float ee = dot3(e, e);
        float ed = dot3(e, delta);
        float ev = dot3(e, v1);
        float triple = dot3(exd, v1);
        float quarter_discriminant = ee * (dot3(exd, exd) - triple * triple);
        float t;
        if (!lowest_root_in_interval(dot3(exv, exd), dot3(exv, exv) - ee, quarter_discriminant,
                                     upper_bound, &t))
            continue;
        float f = t * ed - ev;
        if (!(f >= 0.0f && f <= ee))
            continue;
        if (found && !(t < upper_bound))
            continue;
        float point[3], normal[3];
        float fraction = f / ee;
        for (int k = 0; k < 3; ++k)
            point[k] = v1[k] + fraction * e[k];
        normal_toward_center(t, delta, point, normal);
        set_hit(hit, t, point, normal);
        upper_bound = t;
        found = true;
    }
    return found;
}

void skim_reference_sweep_candidates_from(const skim_candidates *candidates, const float origin[3],
                                          const float delta[3], bool cull_back_faces,
                                          skim_unit_hit *best)
{
    /* Each triangle is solved over the plane interval up to max(1, bound),
       not the caller's bound itself: Rouwé 3.6 notes that rounding can put a
       vertex or edge root slightly below t1, so a triangle whose t1 lies
       just above a tight bound could still report such a root under a looser
       one. Solving every triangle against the same interval makes its answer
       independent of the bound its call happened to get, so splitting the
       candidates over several calls (front-to-back traversal, slide
       iterations) never changes a result. The packet kernels do the same. */
    const float plane_bound = best->t > 1.0f ? best->t : 1.0f;
    for (uint32_t lane = 0; lane < candidates->count; ++lane) {
        float vertex[3][3];
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                vertex[v][axis] = candidates->vertex[v][axis][lane] - origin[axis];
        skim_unit_hit hit;
        if (!skim_reference_sweep_triangle(vertex[0], vertex[1], vertex[2], delta, plane_bound,
                                           cull_back_faces, &hit))
            continue;
        uint32_t triangle = candidates->triangle[lane];
        /* Lowest t within the caller's bound wins; equal t goes to the lower
           caller index, so the answer never depends on the order candidates
           were gathered in. */
        bool better = best->hit ? (hit.t < best->t ||
                                   (hit.t == best->t && triangle < best->triangle))
                                : hit.t <= best->t;
        if (better) {
            *best = hit;
            best->triangle = triangle;
        }
    }
}

void skim_reference_sweep_candidates(const skim_candidates *candidates, const float delta[3],
                                     bool cull_back_faces, skim_unit_hit *best)
{
    /* v - 0 is v, bit for bit (and -0 - 0 is -0). */
    static const float at_start[3] = { 0.0f, 0.0f, 0.0f };
    skim_reference_sweep_candidates_from(candidates, at_start, delta, cull_back_faces, best);
}

void skim_reference_sweep_candidates_deferred(const skim_candidates *candidates,
                                              const float delta[3], bool cull_back_faces,
                                              skim_unit_hit *best, skim_unit_winner *winner)
{
    /* The reference completes every hit as it finds it: nothing to defer. */
    (void)winner;
    skim_reference_sweep_candidates(candidates, delta, cull_back_faces, best);
}
