/* The neighbours an agent avoids, as the crowd's grid search finds them,
   are the ones a scan of every agent finds: the nearest within the sense
   distances whose cylinders overlap along up and whose layers meet,
   nearest first, equal distances by lower index, also across steps where
   agents are teleported and change speed. And a step's contacts,
   from half lists kept over several steps and made again when agents
   drift beyond them, are every pair whose reaches overlap, and the
   closest gap it reports is the least of theirs. Checked after
   steps of a packed lattice (equal distances everywhere) on two floors
   with layers and a ghost, in a row-major grid, and of clusters far apart,
   which the grid hashes. */
#include "crowd_scenarios.h"

#include "crowd/crowd_sense_grid.h"

#include <string.h>

TestSuite(crowd_neighbours, .timeout = 120);

typedef struct candidate {
    float    d;
    uint32_t j;
} candidate;

static int by_distance_then_index(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

/* Agent i's neighbours by a scan of every agent, as the search defines them. */
static uint32_t scan_every_agent(const skim_crowd *c, uint32_t n, uint32_t i, uint32_t *near, candidate *scratch)
{
    const float *pi = c->proj + 3 * (size_t)i;
    uint32_t count = 0;
    for (uint32_t j = 0; j < n; ++j) {
        const float *pj = c->proj + 3 * (size_t)j;
        float dx = pj[0] - pi[0], dy = pj[1] - pi[1], dz = pj[2] - pi[2];
        float reach = c->sense[i] + c->sense[j];
        float d = dx * dx + dy * dy;
        if (j == i || c->sense[j] == 0.0f || d > reach * reach || fabsf(dz) >= c->height[i] + c->height[j] ||
            !crowd_layers_meet(c, c->active[i], c->active[j]))
            continue;
        scratch[count++] = (candidate){ d, j };
    }
    qsort(scratch, count, sizeof *scratch, by_distance_then_index);
    count = count < CROWD_AVOID_NEIGHBOURS ? count : CROWD_AVOID_NEIGHBOURS;
    for (uint32_t k = 0; k < count; ++k)
        near[k] = scratch[k].j;
    return count;
}

/* Whether a contact of agent i is with j. */
static bool has_contact(const skim_crowd *c, uint32_t i, uint32_t j)
{
    for (size_t e = c->contact_begin[i]; e < c->contact_begin[i + 1]; ++e)
        if (c->contacts[e].other == j)
            return true;
    return false;
}

/* The step's contacts against a scan of every pair: the pairs whose
   reaches overlap, neither a ghost, whose layers meet. */
static void compare_contacts(const skim_crowd *c, int step)
{
    const uint32_t n = c->count;
    uint32_t pairs = 0;
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = i + 1; j < n; ++j) {
            const float *a = c->proj + 3 * (size_t)i, *b = c->proj + 3 * (size_t)j;
            float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
            float r = c->reach[i] + c->reach[j];
            bool ghost = (c->body[c->active[i]].flags | c->body[c->active[j]].flags) & SKIM_AGENT_GHOST;
            if (dx * dx + dy * dy > r * r || fabsf(dz) > c->vreach[i] + c->vreach[j] || ghost ||
                !crowd_layers_meet(c, c->active[i], c->active[j]))
                continue;
            pairs++;
            cr_assert(has_contact(c, i, j) && has_contact(c, j, i), "step %d: agents %u and %u have no contact", step,
                      i, j);
        }
    cr_assert_eq(c->pair_count, pairs, "step %d: %u contacts, a scan finds %u", step, c->pair_count, pairs);
}

/* The closest gap the step reports against a scan of every pair with a
   contact: the least gap between their cylinders where they ended,
   measured in double and rounded to float, bit for bit (the step skips
   most pairs on a bound and measures only the rest). */
static void compare_closest(const skim_crowd *c, int step)
{
    const uint32_t n = c->count;
    float closest = INFINITY;
    for (uint32_t i = 0; i < n; ++i)
        for (size_t e = c->contact_begin[i]; e < c->contact_begin[i + 1]; ++e) {
            const uint32_t j = c->contacts[e].other;
            if (j < i)
                continue;
            const float *fi = c->final + 3 * (size_t)i, *fj = c->final + 3 * (size_t)j;
            double d[3] = { (double)fi[0] - fj[0], (double)fi[1] - fj[1], (double)fi[2] - fj[2] };
            double z = d[0] * c->up[0] + d[1] * c->up[1] + d[2] * c->up[2];
            double hx = d[0] - z * c->up[0], hy = d[1] - z * c->up[1], hz = d[2] - z * c->up[2];
            double across = sqrt(hx * hx + hy * hy + hz * hz) - ((double)c->radius[i] + c->radius[j]);
            double along = fabs(z) - ((double)c->height[i] + c->height[j]);
            float gap = (float)(across > along ? across : along);
            closest = gap < closest ? gap : closest;
        }
    skim_crowd_stats stats;
    cr_assert_eq(skim_crowd_get_stats(c, &stats), SKIM_OK);
    cr_assert(stats.closest_gap == closest || (isinf(stats.closest_gap) && isinf(closest)),
              "step %d: closest gap %.9g, a scan of the pairs finds %.9g", step, (double)stats.closest_gap,
              (double)closest);
}

/* Every agent's neighbours by a scan: want[i] of them in
   expected[i * CROWD_AVOID_NEIGHBOURS ...]. */
typedef struct scanned {
    uint32_t *want, *expected;
} scanned;

/* Agent i's neighbours as the grid search finds them, with block, against
   the scan. */
static void compare_agent(const skim_crowd *c, int step, uint32_t i, crowd_sense_block *block, const char *how,
                          const scanned *scan)
{
    uint32_t found[CROWD_AVOID_NEIGHBOURS];
    const uint32_t count = crowd_nearest_neighbours(c, i, block, found), want = scan->want[i];
    const uint32_t *expected = scan->expected + (size_t)i * CROWD_AVOID_NEIGHBOURS;
    cr_assert_eq(count, want, "step %d, agent %u (%s): %u neighbours, a scan finds %u", step, i, how, count, want);
    for (uint32_t k = 0; k < count; ++k)
        cr_assert_eq(found[k], expected[k], "step %d, agent %u (%s), neighbour %u: %u, a scan finds %u", step, i, how,
                     k, found[k], expected[k]);
}

/* Every agent's neighbours as the grid search finds them against a scan:
   searched in the grid's order with one block (as a step searches),
   in index order with one block (a block gathered for one cell, then
   another's agents, then the first cell's again), and each with a block
   of its own. Returns how many agents had two neighbours at the same
   distance. */
static uint32_t compare_neighbours(const skim_crowd *c, int step, candidate *scratch)
{
    const uint32_t n = c->count;
    const crowd_sense_grid *g = &c->sense_grid;
    scanned scan = { malloc(n * sizeof *scan.want), malloc((size_t)n * CROWD_AVOID_NEIGHBOURS * sizeof *scan.expected) };
    crowd_sense_block *shared = malloc(sizeof *shared), *own = malloc(sizeof *own);
    cr_assert(scan.want && scan.expected && shared && own);
    uint32_t ties = 0;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t *expected = scan.expected + (size_t)i * CROWD_AVOID_NEIGHBOURS;
        scan.want[i] = 0;
        if (c->sense[i] == 0.0f)
            continue; /* a ghost avoids nobody */
        scan.want[i] = scan_every_agent(c, n, i, expected, scratch);
        const float *p = c->proj + 3 * (size_t)i;
        for (uint32_t k = 1; k < scan.want[i]; ++k) {
            const float *a = c->proj + 3 * (size_t)expected[k - 1], *b = c->proj + 3 * (size_t)expected[k];
            float da = (a[0] - p[0]) * (a[0] - p[0]) + (a[1] - p[1]) * (a[1] - p[1]);
            float db = (b[0] - p[0]) * (b[0] - p[0]) + (b[1] - p[1]) * (b[1] - p[1]);
            ties += da == db;
        }
    }
    crowd_forget_sense_block(shared);
    for (uint32_t m = 0; m < g->count; ++m)
        compare_agent(c, step, g->agent[m], shared, "in the grid's order", &scan);
    crowd_forget_sense_block(shared);
    for (uint32_t i = 0; i < n; ++i) {
        if (c->sense[i] == 0.0f)
            continue; /* a ghost avoids nobody */
        compare_agent(c, step, i, shared, "in index order", &scan);
        crowd_forget_sense_block(own);
        compare_agent(c, step, i, own, "alone", &scan);
    }
    free(scan.want);
    free(scan.expected);
    free(shared);
    free(own);
    return ties;
}

/* Where each agent walks (add_agent). */
static skim_vec3 goals[2048];

/* Steps the crowd and compares every agent's neighbours and the contacts
   after each step; returns how many agents had two neighbours at the same
   distance. The agents' speed rises step by step and falls back every
   sixth: the growing reach outgrows the half lists before anyone has
   drifted out of the grid's order, so they are made again in that
   order. */
static uint32_t compare_after_steps(const skim_world *world, skim_crowd *c, int steps, bool dense)
{
    candidate *scratch = malloc(c->count * sizeof *scratch);
    cr_assert_not_null(scratch);
    uint32_t ties = 0;
    for (int step = 0; step < steps; ++step) {
        for (uint32_t id = 0; id < c->count; ++id)
            cr_assert_eq(skim_crowd_set_target(c, id, goals[id], 300.0f + 150.0f * (float)(step % 6), 4.0f), SKIM_OK);
        cr_assert_eq(skim_crowd_step(world, c, 1.0f / 60.0f), SKIM_OK, "%s", skim_last_error_message());
        cr_assert_eq(c->sense_grid.dense, dense, "the grid's layout is not the one this case is for");
        compare_contacts(c, step);
        compare_closest(c, step);
        ties += compare_neighbours(c, step, scratch);
    }
    free(scratch);
    return ties;
}

static skim_world *floor_world(float half)
{
    box_soup soup = { .boxes = 0 };
    soup_add_box(&soup, -half, -half, -10.0f, half, half, 0.0f);
    soup_add_box(&soup, -half, -half, 200.0f, half, half, 210.0f); /* a second floor */
    return soup_world(&soup);
}

static void add_sized_agent(skim_crowd *c, float x, float y, float z, float radius, uint32_t layers, uint32_t flags,
                            float goal_x)
{
    skim_agent_def a = skim_agent_def_default();
    a.position = (skim_vec3){ x, y, z };
    a.radius = radius;
    a.layers = layers;
    a.collides_with = layers == 2u ? 2u : 0u; /* layer 1 keeps to itself */
    a.flags = flags;
    uint32_t id;
    cr_assert_eq(skim_crowd_add(c, &a, &id), SKIM_OK, "%s", skim_last_error_message());
    cr_assert_lt(id, sizeof goals / sizeof goals[0]);
    goals[id] = (skim_vec3){ goal_x, y, z - radius };
}

static void add_agent(skim_crowd *c, float x, float y, float z, uint32_t layers, uint32_t flags, float goal_x)
{
    add_sized_agent(c, x, y, z, AGENT_R, layers, flags, goal_x);
}

/* The most members one cell of the (row-major) sense grid holds. */
static uint32_t fullest_cell(const skim_crowd *c)
{
    const crowd_sense_grid *g = &c->sense_grid;
    const size_t cells = (size_t)g->width * (size_t)(g->max[1] - g->min[1] + 1);
    uint32_t most = 0;
    for (size_t b = 0; b < cells; ++b)
        most = g->bucket_start[b + 1] - g->bucket_start[b] > most ? g->bucket_start[b + 1] - g->bucket_start[b] : most;
    return most;
}

/* The most members a square of nine cells of the (row-major) sense grid
   holds. */
static uint32_t fullest_square(const skim_crowd *c)
{
    const crowd_sense_grid *g = &c->sense_grid;
    uint32_t most = 0;
    for (int32_t cy = g->min[1]; cy <= g->max[1]; ++cy)
        for (int32_t cx = g->min[0]; cx <= g->max[0]; ++cx) {
            uint32_t held = 0;
            for (int32_t y = cy - 1; y <= cy + 1; ++y)
                for (int32_t x = cx - 1; x <= cx + 1; ++x)
                    if (x >= g->min[0] && x <= g->max[0] && y >= g->min[1] && y <= g->max[1]) {
                        const size_t b = (size_t)(y - g->min[1]) * g->width + (size_t)(x - g->min[0]);
                        held += g->bucket_start[b + 1] - g->bucket_start[b];
                    }
            most = held > most ? held : most;
        }
    return most;
}

Test(crowd_neighbours, grid_search_matches_a_scan_of_every_agent_in_a_packed_lattice)
{
    enum { SIDE = 24 };
    skim_world *world = floor_world(2000.0f);
    skim_crowd *c = goal_crowd(2 * SIDE * SIDE + 1);
    /* On each floor a lattice two and a quarter radii apart: everyone has
       neighbours at equal distances. Every seventh is in layer 1 and meets
       only layer 1. */
    for (int level = 0; level < 2; ++level)
        for (int k = 0; k < SIDE * SIDE; ++k) {
            float x = 36.0f * (float)(k % SIDE - SIDE / 2), y = 36.0f * (float)(k / SIDE - SIDE / 2);
            float z = level ? 210.0f + AGENT_R + 1.0f : AGENT_R + 1.0f;
            uint32_t layers = k % 7 == 0 ? 2u : 1u;
            add_agent(c, x, y, z, layers, 0, k % 2 ? 1500.0f : -1500.0f);
        }
    add_agent(c, 0.0f, 0.0f, AGENT_R + 1.0f, 1u, SKIM_AGENT_GHOST, 1500.0f);
    uint32_t ties = compare_after_steps(world, c, 40, true);
    cr_expect_gt(ties, 100, "only %u equal distances: the lattice tests too little of the order", ties);
    cr_expect_gt(c->list_refreshes, 2, "the half lists were made again %u times: too few to test", c->list_refreshes);
    skim_crowd_destroy(c);
    skim_world_destroy(world);
}

Test(crowd_neighbours, grid_search_matches_a_scan_of_every_agent_in_far_clusters)
{
    skim_world *world = floor_world(200000.0f);
    skim_crowd *c = goal_crowd(4 * 60);
    rng r = { 5 };
    /* Four clusters a quarter of a million units apart: too wide a box for
       a row-major grid. */
    const float centre[4][2] = { { -120000, -120000 }, { 120000, -120000 }, { -120000, 120000 }, { 120000, 120000 } };
    for (int cluster = 0; cluster < 4; ++cluster)
        for (int k = 0; k < 60; ++k) {
            float x = centre[cluster][0] + (float)rng_uniform(&r, -300, 300);
            float y = centre[cluster][1] + (float)rng_uniform(&r, -300, 300);
            add_agent(c, x, y, AGENT_R + 1.0f, 1u, 0, x + 1000.0f);
        }
    compare_after_steps(world, c, 40, false);
    cr_expect_gt(c->list_refreshes, 2, "the half lists were made again %u times: too few to test", c->list_refreshes);
    skim_crowd_destroy(c);
    skim_world_destroy(world);
}

/* 400 agents scattered over a square 3,000 units wide, half walking 1,000
   units each way: most have fewer than ten others within their sense
   distance, so the search goes to the edge of its disc. */
static void add_thin_crowd(skim_crowd *c, uint64_t seed)
{
    rng r = { seed };
    for (int k = 0; k < 400; ++k) {
        float x = (float)rng_uniform(&r, -1500, 1500), y = (float)rng_uniform(&r, -1500, 1500);
        add_agent(c, x, y, AGENT_R + 1.0f, 1u, 0, k % 2 ? x + 1000.0f : x - 1000.0f);
    }
}

Test(crowd_neighbours, grid_search_matches_a_scan_of_every_agent_in_a_thin_crowd)
{
    skim_world *world = floor_world(4000.0f);
    skim_crowd *c = goal_crowd(400);
    add_thin_crowd(c, 11);
    compare_after_steps(world, c, 40, true);
    skim_crowd_destroy(c);
    skim_world_destroy(world);
}

/* A thin crowd of walkers among agents that barely move: their sense
   distances differ several times over, and the grid takes cells as wide
   as the largest rather than the mean. */
Test(crowd_neighbours, grid_search_matches_a_scan_in_a_thin_crowd_of_wide_cells)
{
    skim_world *world = floor_world(4000.0f);
    skim_crowd *c = goal_crowd(400);
    add_thin_crowd(c, 17);
    candidate *scratch = malloc(c->count * sizeof *scratch);
    cr_assert_not_null(scratch);
    int wide = 0;
    for (int step = 0; step < 30; ++step) {
        for (uint32_t id = 0; id < c->count; ++id) {
            const float speed = id % 3 == 0 ? 400.0f : 5.0f;
            cr_assert_eq(skim_crowd_set_target(c, id, goals[id], speed, 4.0f), SKIM_OK);
        }
        cr_assert_eq(skim_crowd_step(world, c, 1.0f / 60.0f), SKIM_OK, "%s", skim_last_error_message());
        const crowd_sense_grid *g = &c->sense_grid;
        double senses = 0.0;
        for (uint32_t i = 0; i < c->count; ++i)
            senses += c->sense[i];
        wide += g->cell > 1.5 * senses / c->count;
        compare_neighbours(c, step, scratch);
    }
    cr_expect_gt(wide, 20, "the cells were wider than the mean sense distance in only %d of 30 steps", wide);
    free(scratch);
    skim_crowd_destroy(c);
    skim_world_destroy(world);
}

Test(crowd_neighbours, grid_search_matches_a_scan_across_teleports_and_changes_of_speed)
{
    skim_world *world = floor_world(4000.0f);
    skim_crowd *c = goal_crowd(600);
    rng r = { 23 };
    /* A packed square 900 units wide, half walking each way across it. */
    for (int k = 0; k < 600; ++k) {
        float x = (float)rng_uniform(&r, -450, 450), y = (float)rng_uniform(&r, -450, 450);
        add_agent(c, x, y, AGENT_R + 1.0f, 1u, 0, k % 2 ? 1500.0f : -1500.0f);
    }
    candidate *scratch = malloc(c->count * sizeof *scratch);
    cr_assert_not_null(scratch);
    for (int step = 0; step < 60; ++step) {
        /* Slow enough that the sense distance follows the speed: it grows
           and shrinks every tenth step. */
        const float speed = step % 20 < 10 ? 30.0f : 40.0f;
        for (uint32_t id = 0; id < c->count; ++id)
            cr_assert_eq(skim_crowd_set_target(c, id, goals[id], speed, 4.0f), SKIM_OK);
        if (step % 7 == 3) {
            /* Teleported into the crowd from afar, and out of it. */
            uint32_t id = (uint32_t)(step * 37) % c->count;
            skim_vec3 to = { (float)rng_uniform(&r, -300, 300), (float)rng_uniform(&r, -300, 300), AGENT_R + 1.0f };
            cr_assert_eq(skim_crowd_teleport(c, id, to), SKIM_OK, "%s", skim_last_error_message());
            cr_assert_eq(skim_crowd_teleport(c, (id + 1) % c->count, (skim_vec3){ 1800.0f, 1800.0f, AGENT_R + 1.0f }),
                         SKIM_OK, "%s", skim_last_error_message());
        }
        cr_assert_eq(skim_crowd_step(world, c, 1.0f / 60.0f), SKIM_OK, "%s", skim_last_error_message());
        compare_neighbours(c, step, scratch);
        /* The sense distance follows the speed (radius plus twice it). */
        cr_assert_lt(fabsf(c->sense[0] - (AGENT_R + 2.0f * speed)), 1e-3f, "step %d: sense distance %g", step,
                     (double)c->sense[0]);
    }
    free(scratch);
    skim_crowd_destroy(c);
    skim_world_destroy(world);
}

/* A square lattice of side x side small agents of radius, spacing apart
   around the origin at height z, and a row of wide agents (radius 48)
   100 apart at y = 400; odd ones walk east, even ones west. */
static void add_lattice_and_wide_row(skim_crowd *c, int side, float spacing, float z, float radius, int wide)
{
    for (int k = 0; k < side * side; ++k) {
        float x = spacing * (float)(k % side - side / 2), y = spacing * (float)(k / side - side / 2);
        add_sized_agent(c, x, y, z, radius, 1u, 0, k % 2 ? 1500.0f : -1500.0f);
    }
    for (int k = 0; k < wide; ++k)
        add_sized_agent(c, 100.0f * (float)(k - wide / 2), 400.0f, 49.0f, 48.0f, 1u, 0, k % 2 ? 1500.0f : -1500.0f);
}

Test(crowd_neighbours, grid_search_matches_a_scan_of_every_agent_in_cells_of_many_members)
{
    enum { SIDE = 19, WIDE = 39 };
    skim_world *world = floor_world(4000.0f);
    skim_crowd *c = goal_crowd(SIDE * SIDE + WIDE);
    /* A lattice of small agents nine units apart, and a row of agents
       twelve times as wide farther off: the wide ones' sense distances make
       the cells many small agents wide, and reach across many cells into
       the lattice. */
    add_lattice_and_wide_row(c, SIDE, 9.0f, 5.0f, 4.0f, WIDE);
    compare_after_steps(world, c, 8, true);
    cr_expect_gt(fullest_cell(c), 30, "the fullest cell holds %u members: too few for this case", fullest_cell(c));
    skim_crowd_destroy(c);
    skim_world_destroy(world);
}

Test(crowd_neighbours, grid_search_matches_a_scan_of_every_agent_in_squares_too_full_for_a_block)
{
    enum { SIDE = 25, WIDE = 39 };
    skim_world *world = floor_world(4000.0f);
    skim_crowd *c = goal_crowd(SIDE * SIDE + WIDE);
    /* As in cells of many members, packed closer: the squares of nine
       cells in the lattice's middle hold more members than a block can,
       and are searched cell row by cell row instead; those at its edges
       fit in a block. */
    add_lattice_and_wide_row(c, SIDE, 7.0f, 4.0f, 3.0f, WIDE);
    compare_after_steps(world, c, 4, true);
    cr_expect_gt(fullest_square(c), CROWD_BLOCK_MEMBERS, "the fullest square holds %u members: a block holds them",
                 fullest_square(c));
    skim_crowd_destroy(c);
    skim_world_destroy(world);
}

Test(crowd_neighbours, grid_search_matches_a_scan_of_every_agent_on_cell_edges)
{
    enum { SIDE = 16 };
    skim_world *world = floor_world(4000.0f);
    skim_crowd *c = goal_crowd(SIDE * SIDE);
    /* Everyone at its goal with the same sense distance, so the cells are
       exactly one sense distance wide; a lattice half a cell apart puts
       every other agent on a cell's edge and every agent's tenth
       neighbour among several at the same distance. */
    for (int k = 0; k < SIDE * SIDE; ++k) {
        float x = 56.0f * (float)(k % SIDE - SIDE / 2), y = 56.0f * (float)(k / SIDE - SIDE / 2);
        add_agent(c, x, y, AGENT_R + 1.0f, 1u, 0, x);
    }
    uint32_t ties = compare_after_steps(world, c, 6, true);
    cr_assert_eq(c->sense_grid.cell, (double)c->sense[0], "cells %g wide, not one sense distance %g",
                 c->sense_grid.cell, (double)c->sense[0]);
    cr_assert_eq(fmod(56.0, c->sense_grid.cell / 2.0), 0.0, "the lattice is not on the cells' edges: cells %g wide",
                 c->sense_grid.cell);
    cr_expect_gt(ties, 1000, "only %u equal distances: the lattice tests too little of the order", ties);
    skim_crowd_destroy(c);
    skim_world_destroy(world);
}
