/* Far triangles in the gather: clipped in double to the query's clip box
   before the move to unit-sphere space.

   Why. The kernels work in the shape's unit-sphere space relative to the
   start (Rouwé, "Sweeping a sphere against a triangle", section 4: the
   ellipsoid becomes a unit sphere under M^-1) and their error grows with
   the magnitude L of what they read: 64 u (P + L) + 1e-5 radii (README,
   "Accuracy"). A triangle 1e6 radii long gathered whole cost ~0.2 radii of
   accuracy, and past L ~ 4e9 the plane normal's squared length (degree 4
   in L) overflows float: the sweep missed outright or, at 1e18, returned a
   NaN contact. Only the part of a triangle inside the query
   box can be touched, so a far triangle is cut down to that part first.

   What. A triangle whose world box leaves start +- SKIM_GATHER_FAR_RADII
   smallest radii (gather_clip.h) is, in double:
     1. clipped (Sutherland-Hodgman, one axis plane at a time) to the clip
        box: the query box grown on every side by half its largest extent,
        so that every new edge lies at least that far outside anything the
        shape can touch during the sweep or move (the sweep box holds the
        swept bounding sphere; a move's box every pass, move_gather.c). In
        exact arithmetic the shape then meets the clipped polygon exactly
        where it meets the triangle: the polygon is the triangle's part in
        the clip box, which holds every point the shape can reach;
     2. moved to unit space with the shape's own to_unit matrix;
     3. cleared of near-duplicate and near-collinear corners (below);
     4. fanned from its first corner into triangles (the polygon is convex
        and keeps the triangle's winding, so every piece does), each
        rounded to float and appended with the triangle's index and
        material.
   Deterministic: the same triangle and query give the same pieces, bit
   for bit, whichever gather (BVH leaf, brute force, move) meets it, so
   the BVH still hands the kernels what brute force hands them. Pieces of
   one triangle share its index: the kernels keep the lowest (t, triangle,
   lane), so between pieces that tie in t the one gathered first wins. At
   t = 0 (the start already touching) every piece within reach ties, so
   the piece nearest the start is emitted first (step 4), which makes the
   point and normal the whole triangle's. A tie at t > 0 is a contact on
   a fan diagonal, which both pieces hold: the same point and normal in
   exact arithmetic, up to rounding in float. t and the triangle index
   never depend on the order. */
#include "gather/gather_clip.h"
#include "gather/bvh_ordered.h"

#include <math.h>
#include <string.h>

/* Corners are removed (step 3) when they lie within this distance (unit
   space, radii) of the chord of their two neighbours. Removing corner b of
   a convex polygon cuts off the triangle (a, b, c), whose points all lie
   within that distance of the chord a-c, so the polygon moves by at most
   ETA in Hausdorff distance, and the distance from the shape to the
   polygon, which decides every contact, by at most ETA. At most 6 corners
   go (a polygon keeps 3), 6 ETA < 6e-6 radii in all, under the 1e-5 radii
   floor of the stated accuracy. A polygon never drops below 3 corners this
   way: a needle (a thin triangle crossing the path) must stay collidable. */
#define ETA 0x1p-20

enum { MAX_CORNERS = 12 };

typedef struct polygon {
    int    n;
    double p[MAX_CORNERS][3];
} polygon;

/* The clip box relative to the start and the map to unit space, in double,
   from g's own fields (lane 0 of its broadcasts): formed per far packet,
   so a sweep that meets none pays nothing for it. */
typedef struct clip_frame {
    double origin[3], min[3], max[3], to_unit[3][3];
} clip_frame;

static void frame_of(const skim_path_gather *g, clip_frame *f)
{
    double lo[3], hi[3];
    for (int axis = 0; axis < 3; ++axis) {
        f->origin[axis] = simde_mm_cvtss_f32(g->start[axis]);
        for (int j = 0; j < 3; ++j)
            f->to_unit[axis][j] = simde_mm_cvtss_f32(g->to_unit[axis][j]);
        if (g->swept) {
            const double radius = 1.001 * (double)g->clip_radius, d = g->clip_delta[axis];
            lo[axis] = (d < 0.0 ? d : 0.0) - radius;
            hi[axis] = (d > 0.0 ? d : 0.0) + radius;
        } else {
            lo[axis] = (double)simde_mm_cvtss_f32(g->box_min[axis]) - f->origin[axis];
            hi[axis] = (double)simde_mm_cvtss_f32(g->box_max[axis]) - f->origin[axis];
        }
    }
    double extent = 0.0;
    for (int axis = 0; axis < 3; ++axis)
        extent = hi[axis] - lo[axis] > extent ? hi[axis] - lo[axis] : extent;
    const double margin = 0.5 * extent;
    for (int axis = 0; axis < 3; ++axis) {
        f->min[axis] = lo[axis] - margin;
        f->max[axis] = hi[axis] + margin;
    }
}

void skim_gather_clip_setup(skim_path_gather *g, const skim_world *world,
                            const skim_ellipsoid_space *space, const float start[3])
{
    /* The fast path's region, in float: start +- W may round by half an
       ulp of start, so a fast triangle is within 2 W of it in the worst
       case (only where |start| > 2^24 W). When the world's bounds lie
       inside, no triangle can leave it and the per-packet test is
       skipped: the same answer, for nothing (the bench scenes, radius 16:
       W = 65,536 units). */
    const float w = SKIM_GATHER_FAR_RADII * space->smallest_radius;
    const float *lo = &world->bounds_min.x, *hi = &world->bounds_max.x;
    bool far = false;
    float near_min[3], near_max[3];
    for (int axis = 0; axis < 3; ++axis) {
        near_min[axis] = start[axis] - w;
        near_max[axis] = start[axis] + w;
        far |= !(lo[axis] >= near_min[axis] && hi[axis] <= near_max[axis]);
    }
    g->far_possible = far && world->triangle_count;
    if (g->far_possible)
        for (int axis = 0; axis < 3; ++axis) {
            g->near_min[axis] = simde_mm_set1_ps(near_min[axis]);
            g->near_max[axis] = simde_mm_set1_ps(near_max[axis]);
        }
}

/* One Sutherland-Hodgman pass: keeps the part of in with sign * (x[axis] -
   bound) <= 0. A corner on the plane is kept; a new corner is made only on
   an edge that strictly crosses it, and is put on the plane exactly. */
static void clip_plane(const polygon *in, polygon *out, int axis, double bound, double sign)
{
    out->n = 0;
    for (int j = 0; j < in->n; ++j) {
        const double *a = in->p[j], *b = in->p[j + 1 < in->n ? j + 1 : 0];
        const bool a_in = sign * (a[axis] - bound) <= 0.0, b_in = sign * (b[axis] - bound) <= 0.0;
        if (a_in)
            memcpy(out->p[out->n++], a, sizeof out->p[0]);
        if (a_in != b_in) {
            const double f = (bound - a[axis]) / (b[axis] - a[axis]);
            double *q = out->p[out->n++];
            for (int k = 0; k < 3; ++k)
                q[k] = a[k] + f * (b[k] - a[k]);
            q[axis] = bound;
        }
    }
}

static void sub3(const double a[3], const double b[3], double out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = a[k] - b[k];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double a[3], const double b[3])
{
    return (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2];
}

/* Step 3 (see ETA): the first corner within ETA of its neighbours' chord
   goes, then the scan starts again, while more than 3 corners remain. */
static void drop_near_collinear(polygon *poly)
{
    bool removed = true;
    while (removed && poly->n > 3) {
        removed = false;
        for (int j = 0; j < poly->n; ++j) {
            const double *a = poly->p[j ? j - 1 : poly->n - 1], *b = poly->p[j],
                         *c = poly->p[j + 1 < poly->n ? j + 1 : 0];
            double chord[3], ab[3], n[3];
            sub3(c, a, chord);
            sub3(b, a, ab);
            cross3(chord, ab, n);
            const double chord_sq = dot3(chord, chord);
            /* distance^2 = |chord x ab|^2 / |chord|^2, or |ab|^2 when the
               neighbours coincide. */
            const bool near = chord_sq > 0.0 ? dot3(n, n) <= ETA * ETA * chord_sq
                                             : dot3(ab, ab) <= ETA * ETA;
            if (near) {
                memmove(poly->p[j], poly->p[j + 1], (size_t)(poly->n - 1 - j) * sizeof poly->p[0]);
                --poly->n;
                removed = true;
                break;
            }
        }
    }
}

/* Squared distance from the origin (the start, in unit space) to triangle
   (a, b, c): Ericson, "Real-Time Collision Detection" 5.1.5, the closest
   point by Voronoi regions. */
static double distance_sq_to_origin(const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3], q[3];
    sub3(b, a, ab);
    sub3(c, a, ac);
    for (int k = 0; k < 3; ++k) {
        ap[k] = -a[k];
        bp[k] = -b[k];
        cp[k] = -c[k];
    }
    const double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    const double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    const double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0.0 && d2 <= 0.0)
        memcpy(q, a, sizeof q);
    else if (d3 >= 0.0 && d4 <= d3)
        memcpy(q, b, sizeof q);
    else if (d6 >= 0.0 && d5 <= d6)
        memcpy(q, c, sizeof q);
    else if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        const double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; ++k)
            q[k] = a[k] + v * ab[k];
    } else if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        const double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; ++k)
            q[k] = a[k] + w * ac[k];
    } else if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; ++k)
            q[k] = b[k] + w * (c[k] - b[k]);
    } else {
        const double denom = 1.0 / (va + vb + vc);
        const double v = vb * denom, w = vc * denom;
        for (int k = 0; k < 3; ++k)
            q[k] = a[k] + ab[k] * v + ac[k] * w;
    }
    return dot3(q, q);
}

static uint32_t clip_triangle(const clip_frame *g, const float corner[3][3], uint32_t triangle,
                              uint16_t material, skim_candidates *out)
{
    polygon a, b;
    a.n = 3;
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            a.p[v][axis] = (double)corner[v][axis] - g->origin[axis];
    /* Step 1: six planes, min then max on x, y, z. */
    for (int axis = 0; axis < 3 && a.n; ++axis) {
        clip_plane(&a, &b, axis, g->min[axis], -1.0);
        clip_plane(&b, &a, axis, g->max[axis], 1.0);
    }
    if (a.n < 3)
        return 0;
    /* Step 2: unit space, and the original's front normal there (M^-1 has
       a positive determinant, so winding is kept). */
    double unit_corner[3][3];
    for (int v = 0; v < 3; ++v)
        for (int k = 0; k < 3; ++k) {
            const double x = (double)corner[v][0] - g->origin[0],
                         y = (double)corner[v][1] - g->origin[1],
                         z = (double)corner[v][2] - g->origin[2];
            unit_corner[v][k] =
                (g->to_unit[k][0] * x + g->to_unit[k][1] * y) + g->to_unit[k][2] * z;
        }
    double e1[3], e2[3], front[3];
    sub3(unit_corner[1], unit_corner[0], e1);
    sub3(unit_corner[2], unit_corner[0], e2);
    cross3(e1, e2, front);
    for (int v = 0; v < a.n; ++v) {
        const double x = a.p[v][0], y = a.p[v][1], z = a.p[v][2];
        for (int k = 0; k < 3; ++k)
            b.p[v][k] = (g->to_unit[k][0] * x + g->to_unit[k][1] * y) +
                        g->to_unit[k][2] * z;
    }
    b.n = a.n;
    /* Step 3. */
    drop_near_collinear(&b);
    /* Step 4: the fan, rounded to float. Rounding moves each corner by at
       most half an ulp of the clipped magnitude; where that turns a thin
       piece over (its rounded normal against the original's), its corners
       are swapped so it faces the original's way again: the same points,
       so nothing is lost, and back-face culling still sees the triangle's
       front (the kernels form the normal from the winding, Rouwé 2). A
       piece whose rounded corners are collinear has no plane (the kernels
       skip a zero normal) and is left out: a segment of the polygon the
       neighbouring pieces' edges still hold, unless the whole polygon
       rounds to a segment, thinner than float resolves at this magnitude. */
    /* The piece nearest the start goes first. A shape that starts touching
       the triangle touches every piece within reach at t = 0, and the
       kernels keep the lowest (t, triangle, lane): the first piece then
       wins, and its closest point to the start is the polygon's, so the
       contact point and normal are the ones the whole triangle gives (the
       normal from the closest point toward the centre). A move gathers
       once at its start, so this holds for its first sweep; later sweeps
       of the move start at a skin from what they touch. */
    int order[MAX_CORNERS];
    int nearest = 1;
    double nearest_sq = INFINITY;
    for (int j = 1; j + 1 < b.n; ++j) {
        const double d = distance_sq_to_origin(b.p[0], b.p[j], b.p[j + 1]);
        if (d < nearest_sq) {
            nearest_sq = d;
            nearest = j;
        }
    }
    int pieces_in_order = 0;
    order[pieces_in_order++] = nearest;
    for (int j = 1; j + 1 < b.n; ++j)
        if (j != nearest)
            order[pieces_in_order++] = j;
    uint32_t pieces = 0;
    for (int o = 0; o < pieces_in_order; ++o) {
        const int j = order[o];
        float f[3][3];
        const int from[3] = { 0, j, j + 1 };
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                f[v][k] = (float)b.p[from[v]][k];
        double r[3][3], d1[3], d2[3], n[3];
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                r[v][k] = f[v][k];
        sub3(r[1], r[0], d1);
        sub3(r[2], r[0], d2);
        cross3(d1, d2, n);
        const double facing = dot3(n, front);
        if (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0)
            continue;
        if (facing < 0.0)
            for (int k = 0; k < 3; ++k) {
                const float swap = f[1][k];
                f[1][k] = f[2][k];
                f[2][k] = swap;
            }
        const uint32_t at = out->count + pieces++;
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                out->vertex[v][k][at] = f[v][k];
        out->triangle[at] = triangle;
        out->material[at] = material;
    }
    out->count += pieces;
    return pieces;
}

uint32_t skim_gather_clip_triangle(const skim_path_gather *g, const float corner[3][3],
                                   uint32_t triangle, uint16_t material, skim_candidates *out)
{
    clip_frame frame;
    frame_of(g, &frame);
    return clip_triangle(&frame, corner, triangle, material, out);
}

skim_status skim_gather_clip_packet(const skim_world *world, const skim_path_gather *g,
                                    uint32_t first, unsigned keep, unsigned far,
                                    const float fast[3][3][4], uint32_t later,
                                    skim_candidates *out)
{
    /* Four lanes may each become SKIM_GATHER_CLIP_MAX_PIECES. */
    const uint64_t need = (uint64_t)out->count + 4u * SKIM_GATHER_CLIP_MAX_PIECES + later +
                          SKIM_MAX_PACKET_WIDTH;
    if (need > UINT32_MAX)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "candidate buffer of %llu lanes",
                         (unsigned long long)need);
    skim_status status = skim_candidates_reserve(out, (uint32_t)need);
    if (status != SKIM_OK)
        return status;
    clip_frame frame;
    frame_of(g, &frame);
    for (uint32_t lane = 0; lane < 4; ++lane) {
        if (!((keep >> lane) & 1u))
            continue;
        const uint32_t i = first + lane;
        if ((far >> lane) & 1u) {
            float corner[3][3];
            for (int v = 0; v < 3; ++v)
                for (int axis = 0; axis < 3; ++axis)
                    corner[v][axis] = world->vertex[v][axis][i];
            clip_triangle(&frame, corner, world->triangle_index[i], world->material[i], out);
            continue;
        }
        const uint32_t at = out->count++;
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k)
                out->vertex[v][k][at] = fast[v][k][lane];
        out->triangle[at] = world->triangle_index[i];
        out->material[at] = world->material[i];
    }
    return SKIM_OK;
}
