/* skim_move_starts_touching (contacts.c), the test the step uses to skip a
   descent that cannot change the result: it must say exactly what a kernel
   sweep over the same candidates says about a hit at t = 0, for triangles
   placed within a hair of touching (inside, outside, at the skin's half
   where its own filters hand over to the reference), big and small,
   needles, both sides, with and without back-face culling, and for every
   kernel set this CPU runs. */
#include "move_test_util.h"
#include "test_candidates.h"

TestSuite(move_touching, .timeout = 120);

/* Closest point of triangle t (9 doubles) to p, in double (the suites' own). */
static void closest_on(const double t[9], const double p[3], double out[3])
{
    d_closest_on_triangle(p, &t[0], &t[3], &t[6], out);
}

/* The distances from 1 the positions are placed at: on both sides of
   touching, and on both sides of the half skin where the cheap filters
   stop deciding. */
static double random_gap(uint64_t *rng, float skin)
{
    static const double gaps[] = { 0.0, 1e-7, -1e-7, 1e-6, -1e-6, 1e-4, -1e-4, 1e-2, -1e-2, 0.3 };
    double gap = gaps[rng_next(rng) % (sizeof gaps / sizeof gaps[0])];
    if (rng_next(rng) % 4 == 0)
        gap = 0.5 * skin * (1.0 + 1e-3 * (rng_uniform(rng) - 0.5));
    return gap;
}

typedef struct fixture {
    skim_move_scratch scratch;
    skim_candidates view;
} fixture;

Test(move_touching, agrees_with_every_kernel_set_at_t_zero)
{
    fixture f;
    memset(&f, 0, sizeof f);
    skim_candidates_init(&f.scratch.gathered);
    skim_candidates_init(&f.view);
    char names[256];
    snprintf(names, sizeof names, "%s", skim_isa_available());
    const skim_kernel_set *sets[8];
    int set_count = 0;
    for (char *name = strtok(names, " "); name && set_count < 8; name = strtok(NULL, " "))
        sets[set_count++] = skim_kernel_set_by_name(name);
    cr_assert(set_count >= 1);

    uint64_t rng = 0x70C4ED;
    enum { CASES = 6000, MOST = 24 };
    double t[MOST][9];
    int touching = 0, apart = 0;
    for (int round = 0; round < CASES; ++round) {
        const uint32_t count = 1 + (uint32_t)(rng_next(&rng) % MOST);
        for (uint32_t i = 0; i < count; ++i)
            random_triangle(&rng, t[i]);
        /* The mover at 1 + gap from the first triangle, in a random
           direction from a random point of it (moving along the ray from
           the closest point keeps that point the closest). */
        double p[3], q[3];
        for (int k = 0; k < 3; ++k)
            p[k] = -4.0 + 8.0 * rng_uniform(&rng);
        closest_on(t[0], p, q);
        double d[3] = { p[0] - q[0], p[1] - q[1], p[2] - q[2] };
        double length = sqrt(d_dot(d, d));
        if (!(length > 1e-3))
            continue;
        const float skins[] = { 1e-3f, 1e-2f, 0.25f };
        const float skin = skins[rng_next(&rng) % 3];
        double reach = 1.0 + random_gap(&rng, skin);
        float pos[3];
        for (int k = 0; k < 3; ++k)
            pos[k] = (float)(q[k] + d[k] * (reach / length));
        float delta[3];
        for (int k = 0; k < 3; ++k)
            delta[k] = (float)(2.0 * rng_uniform(&rng) - 1.0);
        const bool cull = rng_next(&rng) % 3 == 0;

        const float start[3] = { 0, 0, 0 };
        fill_candidates(&f.scratch.gathered, (const double(*)[9])t, count, start);
        fill_candidates(&f.view, (const double(*)[9])t, count, pos); /* what a sweep from pos sees */
        /* The gathered floats re-based the way every move re-bases them. */
        for (uint32_t lane = 0; lane < count; ++lane)
            for (int corner = 0; corner < 3; ++corner)
                for (int k = 0; k < 3; ++k)
                    f.view.vertex[corner][k][lane] =
                        f.scratch.gathered.vertex[corner][k][lane] - pos[k];
        skim_move_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.scratch = &f.scratch;
        ctx.cull = cull;
        ctx.skin = skin;
        const bool said = skim_move_starts_touching(&ctx, pos, delta);
        for (int s = 0; s < set_count; ++s) {
            skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
            sets[s]->sweep(&f.view, delta, cull, &best);
            const bool at_zero = best.hit && best.t == 0.0f;
            cr_assert_eq(said, at_zero,
                         "round %d (%s, %u triangles, gap %.3g, skin %g, cull %d): "
                         "starts_touching says %d, the kernel's first hit is %s at t = %.9g",
                         round, sets[s]->name, count, reach - 1.0, (double)skin, cull, said,
                         best.hit ? "a hit" : "no hit", (double)best.t);
        }
        touching += said;
        apart += !said;
    }
    fprintf(stderr, "%d kernel sets: %d touching, %d apart\n", set_count, touching, apart);
    /* Both answers must have been exercised, many times. */
    cr_expect(touching > CASES / 10 && apart > CASES / 10, "touching %d, apart %d", touching,
              apart);
    skim_candidates_free(&f.scratch.gathered);
    skim_candidates_free(&f.view);
}
