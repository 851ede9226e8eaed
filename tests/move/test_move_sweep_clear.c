/* skim_move_sweep_proved_clear (sweep_clear.c), the test a step's climb
   makes before its kernel call: whenever it says a sweep meets nothing,
   every kernel set this CPU runs must report no hit for that sweep, for
   triangles placed within a hair of the swept sphere (inside, outside,
   at the half skin the test keeps as room), big and small, needles, both
   sides, with and without back-face culling. And it must prove the
   common case: a climb from a floor of a bumpy fan. */
#include "move_test_util.h"
#include "test_candidates.h"

TestSuite(move_sweep_clear, .timeout = 120);

typedef struct kernel_sets {
    const skim_kernel_set *set[8];
    int count;
    const skim_kernel_set *wide; /* one with eight lanes or more, or NULL */
} kernel_sets;

static kernel_sets every_set(void)
{
    kernel_sets sets = { .count = 0, .wide = NULL };
    char names[256];
    snprintf(names, sizeof names, "%s", skim_isa_available());
    for (char *name = strtok(names, " "); name && sets.count < 8; name = strtok(NULL, " "))
        sets.set[sets.count++] = skim_kernel_set_by_name(name);
    cr_assert(sets.count >= 1);
    for (int s = 0; s < sets.count; ++s)
        if (sets.set[s] && sets.set[s]->width >= 8)
            sets.wide = sets.set[s];
    return sets;
}

Test(move_sweep_clear, says_clear_only_when_no_kernel_set_hits)
{
    skim_move_scratch scratch;
    memset(&scratch, 0, sizeof scratch);
    skim_candidates_init(&scratch.gathered);
    const kernel_sets sets = every_set();

    uint64_t rng = 0x5C1EA2;
    enum { CASES = 6000, MOST = 4 };
    double t[MOST][9];
    int proved = 0, doubted = 0;
    for (int round = 0; round < CASES; ++round) {
        const uint32_t count = 1 + (uint32_t)(rng_next(&rng) % MOST);
        for (uint32_t i = 0; i < count; ++i)
            random_triangle(&rng, t[i]);
        float delta[3];
        for (int k = 0; k < 3; ++k)
            delta[k] = (float)(4.0 * rng_uniform(&rng) - 2.0);
        /* The swept center passes at 1 + gap from the first triangle at a
           random point of its path: from the triangle's closest point to a
           random point p, out to 1 + gap, then back along the path to its
           start. */
        double p[3], q[3];
        for (int k = 0; k < 3; ++k)
            p[k] = -4.0 + 8.0 * rng_uniform(&rng);
        d_closest_on_triangle(p, &t[0][0], &t[0][3], &t[0][6], q);
        double d[3] = { p[0] - q[0], p[1] - q[1], p[2] - q[2] };
        double length = sqrt(d_dot(d, d));
        if (!(length > 1e-3))
            continue;
        const float skins[] = { 1e-3f, 1e-2f, 0.25f };
        const float skin = skins[rng_next(&rng) % 3];
        static const double gaps[] = { 0.0, 1e-6, -1e-6, 1e-4, 1e-3, 1e-2, 0.3 };
        double gap = gaps[rng_next(&rng) % (sizeof gaps / sizeof gaps[0])];
        if (rng_next(&rng) % 4 == 0)
            gap = 0.5 * skin * (1.0 + 1e-3 * (rng_uniform(&rng) - 0.5));
        /* Half the sweeps start there and move away from the triangle (a
           climb off a floor), the others pass it on the way. */
        double along = rng_uniform(&rng);
        if (rng_next(&rng) % 2 == 0) {
            along = 0.0;
            if (delta[0] * d[0] + delta[1] * d[1] + delta[2] * d[2] < 0.0)
                for (int k = 0; k < 3; ++k)
                    delta[k] = -delta[k];
        }
        float pos[3];
        for (int k = 0; k < 3; ++k)
            pos[k] = (float)(q[k] + d[k] * ((1.0 + gap) / length) - along * delta[k]);
        const bool cull = rng_next(&rng) % 3 == 0;

        const float start[3] = { 0, 0, 0 };
        fill_candidates(&scratch.gathered, (const double(*)[9])t, count, start);
        skim_move_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.scratch = &scratch;
        ctx.cull = cull;
        ctx.skin = skin;
        /* Four lanes a step, and eight where a set has eight lanes. */
        bool clear = skim_move_sweep_proved_clear(&ctx, pos, delta);
        if (sets.wide) {
            ctx.kernels = sets.wide;
            const bool wide_clear = skim_move_sweep_proved_clear(&ctx, pos, delta);
            cr_assert_eq(wide_clear, clear, "round %d: the 8-lane proof says %d, the 4-lane %d",
                         round, wide_clear, clear);
        }
        proved += clear;
        doubted += !clear;
        if (!clear)
            continue;
        for (int s = 0; s < sets.count; ++s) {
            skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
            sets.set[s]->sweep_from(&scratch.gathered, pos, delta, cull, &best);
            cr_assert(!best.hit,
                      "round %d (%s, %u triangles, gap %.3g, skin %g, cull %d): proved clear, "
                      "but the kernel hits triangle %u at t = %.9g",
                      round, sets.set[s]->name, count, gap, (double)skin, cull, best.triangle,
                      (double)best.t);
        }
    }
    fprintf(stderr, "%d kernel sets: %d proved clear, %d left to the kernel\n", sets.count,
            proved, doubted);
    cr_expect(proved > CASES / 10 && doubted > CASES / 10, "proved %d, doubted %d", proved,
              doubted);
    skim_candidates_free(&scratch.gathered);
}

/* A fan of six triangles around the mover's foot, each tilted a little
   (a bump of a terrain), the mover resting a skin above the one under
   it: the planes of its neighbours pass within 1 of the center. A climb
   straight up is proved clear; a sweep down into the floor is not. */
Test(move_sweep_clear, proves_a_climb_off_a_bumpy_floor)
{
    skim_move_scratch scratch;
    memset(&scratch, 0, sizeof scratch);
    skim_candidates_init(&scratch.gathered);
    const float skin = 0.01f;
    double t[6][9];
    const double hub[3] = { 0.3, -0.2, -1.0 - skin - 0.02 };
    for (int i = 0; i < 6; ++i) {
        const double a0 = 2.0 * M_PI * i / 6.0, a1 = 2.0 * M_PI * (i + 1) / 6.0;
        const double rim = 3.0, drop = 0.35; /* the rim lower than the hub: a bump */
        const double corner[3][3] = {
            { hub[0], hub[1], hub[2] },
            { hub[0] + rim * cos(a0), hub[1] + rim * sin(a0), hub[2] - drop },
            { hub[0] + rim * cos(a1), hub[1] + rim * sin(a1), hub[2] - drop },
        };
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k)
                t[i][3 * c + k] = corner[c][k];
    }
    const float start[3] = { 0, 0, 0 };
    fill_candidates(&scratch.gathered, (const double(*)[9])t, 6, start);
    skim_move_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.scratch = &scratch;
    ctx.skin = skin;
    const kernel_sets sets = every_set();
    const float climb[3] = { 0.0f, 0.0f, 1.2f }, down[3] = { 0.1f, 0.0f, -0.5f };
    cr_expect(skim_move_sweep_proved_clear(&ctx, start, climb));
    cr_expect(!skim_move_sweep_proved_clear(&ctx, start, down));
    if (sets.wide) {
        ctx.kernels = sets.wide;
        cr_expect(skim_move_sweep_proved_clear(&ctx, start, climb));
        cr_expect(!skim_move_sweep_proved_clear(&ctx, start, down));
    }
    for (int s = 0; s < sets.count; ++s) {
        skim_unit_hit best = { .hit = false, .t = 1.0f, .triangle = UINT32_MAX };
        sets.set[s]->sweep_from(&scratch.gathered, start, down, false, &best);
        cr_expect(best.hit && best.t > 0.0f, "%s: the floor is met going down",
                  sets.set[s]->name);
    }
    skim_candidates_free(&scratch.gathered);
}
