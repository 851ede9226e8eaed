/* Ellipsoid space (Rouwé section 4; Nettle's "ellipsoid space" is the
   axis-aligned case, dividing by the radius vector). */
#include "gather/gather.h"

#include <math.h>

void skim_mat3_mul_vec(const float m[3][3], const float v[3], float out[3])
{
    for (int i = 0; i < 3; ++i)
        out[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
}

/* No rotation (the common case: spheres and upright characters): the
   general path below computes exactly these values, since the renormalised
   identity quaternion gives a rotation matrix of exact 0s and 1s and
   (float)(1.0 * r), (float)(1.0 / r), (float)(0.0 / r) are what its double
   expressions round to; skipping its double arithmetic pays on every
   sweep and move. */
static void axis_aligned_space(skim_ellipsoid_space *space, const skim_vec3 radii)
{
    const double r[3] = { radii.x, radii.y, radii.z };
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            space->to_world[i][j] = 0.0f;
            space->to_unit[i][j] = 0.0f;
            space->normal_to_world[i][j] = 0.0f;
        }
        space->to_world[i][i] = (float)r[i];
        space->to_unit[i][i] = (float)(1.0 / r[i]);
        space->normal_to_world[i][i] = (float)(1.0 / r[i]);
    }
    float largest = radii.x > radii.y ? radii.x : radii.y;
    float smallest = radii.x < radii.y ? radii.x : radii.y;
    space->bounding_radius = largest > radii.z ? largest : radii.z;
    space->smallest_radius = smallest < radii.z ? smallest : radii.z;
}

void skim_ellipsoid_space_init(skim_ellipsoid_space *space, const skim_ellipsoid *shape)
{
    if (shape->rotation.x == 0.0f && shape->rotation.y == 0.0f && shape->rotation.z == 0.0f &&
        shape->rotation.w == 1.0f) {
        axis_aligned_space(space, shape->radii);
        return;
    }
    /* Renormalise in double: the API accepts quaternions within 1e-3 of unit
       length, and a rotation matrix must be orthonormal for M^-1 = S^-1 R^T. */
    double qx = shape->rotation.x, qy = shape->rotation.y, qz = shape->rotation.z,
           qw = shape->rotation.w;
    double norm = sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    qx /= norm; qy /= norm; qz /= norm; qw /= norm;
    double rotation[3][3] = {
        { 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw) },
        { 2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw) },
        { 2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy) },
    };
    const double radii[3] = { shape->radii.x, shape->radii.y, shape->radii.z };
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            /* M = R S: column j of R scaled by radius j. */
            space->to_world[i][j] = (float)(rotation[i][j] * radii[j]);
            /* M^-1 = S^-1 R^T: row i is column i of R over radius i. */
            space->to_unit[i][j] = (float)(rotation[j][i] / radii[i]);
            /* M^-T = R S^-1: column j of R over radius j. */
            space->normal_to_world[i][j] = (float)(rotation[i][j] / radii[j]);
        }
    }
    space->bounding_radius = fmaxf(shape->radii.x, fmaxf(shape->radii.y, shape->radii.z));
    space->smallest_radius = fminf(shape->radii.x, fminf(shape->radii.y, shape->radii.z));
}

void skim_unit_hit_to_world(const skim_ellipsoid_space *space, const float start[3],
                            const skim_unit_hit *unit, skim_hit *out)
{
    float offset[3], normal[3];
    skim_mat3_mul_vec(space->to_world, unit->point, offset);
    skim_mat3_mul_vec(space->normal_to_world, unit->normal, normal);
    float length = sqrtf(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
    out->hit = true;
    out->t = unit->t;
    out->point = (skim_vec3){ start[0] + offset[0], start[1] + offset[1], start[2] + offset[2] };
    out->normal = (skim_vec3){ normal[0] / length, normal[1] / length, normal[2] / length };
    out->triangle = unit->triangle;
    out->body = SKIM_STATIC;
}
