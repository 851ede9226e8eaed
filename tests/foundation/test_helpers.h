/* Small helpers shared by the foundation suites. */
#ifndef SKIM_TEST_HELPERS_H
#define SKIM_TEST_HELPERS_H

#include <skim/skim.h>
#include <criterion/criterion.h>

static inline skim_ellipsoid sphere(float radius)
{
    return (skim_ellipsoid){ { radius, radius, radius }, { 0, 0, 0, 1 } };
}

/* A brute-force or BVH world from triangle soup (9 floats per triangle). */
static inline skim_world *world_from_soup(const float *soup, uint32_t triangles,
                                          const uint16_t *materials, skim_accelerator accel)
{
    uint32_t *indices = malloc(3 * sizeof(uint32_t) * (triangles ? triangles : 1));
    for (uint32_t i = 0; i < 3 * triangles; ++i)
        indices[i] = i;
    skim_mesh mesh = { .positions = soup, .vertex_count = 3 * triangles, .indices = indices,
                       .triangle_count = triangles, .materials = materials };
    skim_world_def def = skim_world_def_default();
    def.accelerator = accel;
    skim_world *world = NULL;
    skim_status status = skim_world_create(&mesh, &def, &world);
    free(indices);
    cr_assert_eq(status, SKIM_OK, "world create: %s", skim_last_error_message());
    return world;
}

static inline skim_hit sweep_or_fail(const skim_world *world, skim_ellipsoid shape, skim_vec3 start,
                                     skim_vec3 delta, const skim_query *query)
{
    skim_hit hit;
    skim_status status = skim_sweep(world, &shape, start, delta, query, &hit);
    cr_assert_eq(status, SKIM_OK, "sweep: %s", skim_last_error_message());
    return hit;
}

#define expect_near(actual, expected, tolerance)                                               \
    cr_expect(fabs((double)(actual) - (double)(expected)) <= (tolerance),                      \
              "%s = %.9g, expected %.9g +- %g", #actual, (double)(actual), (double)(expected), \
              (double)(tolerance))

#endif
