/* The sorted box index that finds the bodies a query meets: it marks
   exactly the boxes a test of every box finds, for boxes of mixed sizes,
   after boxes move one at a time and when all are sorted again, also when
   boxes move far out of where its coarse map was laid and for a single
   box (a map of no extent). */
#include <criterion/criterion.h>

#include "world/body_boxes.h"

#include <stdlib.h>

TestSuite(bodies_boxes, .timeout = 60);

static uint64_t next(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

static float uniform(uint64_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)next(state) / 9007199254740992.0);
}

static void box_within(uint64_t *state, float reach, float lo[3], float hi[3])
{
    const float size = next(state) % 8 == 0 ? 400.0f : 40.0f; /* a few wide ones */
    for (int a = 0; a < 3; ++a) {
        lo[a] = uniform(state, -reach, reach);
        hi[a] = lo[a] + uniform(state, 0.0f, size);
    }
}

static void random_box(uint64_t *state, float lo[3], float hi[3])
{
    box_within(state, 1000.0f, lo, hi);
}

/* Every query's marks against a test of every box, for queries within
   reach of the origin. */
static void check_queries_within(const skim_box_index *index, uint64_t *state, int queries, float reach)
{
    uint64_t bits[16]; /* up to 1,024 boxes */
    for (int q = 0; q < queries; ++q) {
        float lo[3], hi[3];
        box_within(state, reach, lo, hi);
        uint32_t found = skim_box_index_query(index, lo, hi, bits);
        uint32_t expected = 0;
        for (uint32_t k = 0; k < index->count; ++k) {
            bool meets = true;
            for (int a = 0; a < 3; ++a)
                meets = meets && index->lo[a][k] <= hi[a] && index->hi[a][k] >= lo[a];
            expected += meets;
            if (found) /* bits may be left as they were when none meets */
                cr_assert_eq((bits[k / 64] >> (k % 64)) & 1u, (uint64_t)meets, "query %d, box %u: marked %d, meets %d",
                             q, k, (int)((bits[k / 64] >> (k % 64)) & 1u), meets);
        }
        cr_assert_eq(found, expected, "query %d: %u found, %u meet", q, found, expected);
    }
}

/* count random boxes within reach of the origin, set and sorted. */
static void fill_index(skim_box_index *index, uint64_t *state, uint32_t count, float reach)
{
    cr_assert(skim_box_index_reserve(index, count));
    for (uint32_t k = 0; k < count; ++k) {
        float lo[3], hi[3];
        box_within(state, reach, lo, hi);
        skim_box_index_set(index, k, lo, hi);
    }
    skim_box_index_sort(index, count);
}

static void check_queries(const skim_box_index *index, uint64_t *state, int queries)
{
    check_queries_within(index, state, queries, 1000.0f);
}

Test(bodies_boxes, the_index_marks_exactly_the_boxes_a_query_meets_as_boxes_move)
{
    enum { BOXES = 200 };
    skim_box_index index = { 0 };
    uint64_t state = 7;
    fill_index(&index, &state, BOXES, 1000.0f);
    cr_assert(index.mask_words > 0, "a few hundred boxes are masked per map cell");
    check_queries(&index, &state, 2000);
    /* Boxes moved one at a time, near and far. */
    for (int round = 0; round < 500; ++round) {
        const uint32_t k = (uint32_t)(next(&state) % BOXES);
        float lo[3], hi[3];
        if (round % 2) {
            random_box(&state, lo, hi);
        } else {
            for (int a = 0; a < 3; ++a) {
                const float step = uniform(&state, -8.0f, 8.0f);
                lo[a] = index.lo[a][k] + step;
                hi[a] = index.hi[a][k] + step;
            }
        }
        skim_box_index_update(&index, k, lo, hi);
        for (uint32_t s = 1; s < BOXES; ++s)
            cr_assert_leq(index.sorted[s - 1], index.sorted[s], "round %d: order broken at %u", round, s);
    }
    cr_assert(index.mask_words > 0, "moved boxes keep their cells' masks");
    check_queries(&index, &state, 2000);
    skim_box_index_sort(&index, BOXES / 2);
    check_queries(&index, &state, 500);
    skim_box_index_free(&index);
}

Test(bodies_boxes, boxes_that_leave_where_the_map_was_laid_are_still_found)
{
    enum { BOXES = 100 };
    skim_box_index index = { 0 };
    uint64_t state = 11;
    fill_index(&index, &state, BOXES, 1000.0f);
    /* Half the boxes go up to eight times as far out, one at a time. */
    for (int round = 0; round < 300; ++round) {
        float lo[3], hi[3];
        box_within(&state, 8000.0f, lo, hi);
        skim_box_index_update(&index, (uint32_t)(next(&state) % (BOXES / 2)), lo, hi);
    }
    check_queries_within(&index, &state, 3000, 9000.0f);
    check_queries(&index, &state, 1000);
    /* One box: the map spans nothing. */
    skim_box_index_sort(&index, 1);
    check_queries_within(&index, &state, 500, 9000.0f);
    skim_box_index_free(&index);
}

Test(bodies_boxes, more_boxes_than_the_cells_mask_are_found_through_the_sorted_boxes)
{
    enum { BOXES = SKIM_BOX_MASKED + 200 };
    skim_box_index index = { 0 };
    uint64_t state = 13;
    fill_index(&index, &state, BOXES, 1000.0f);
    cr_assert_eq(index.mask_words, 0, "%d boxes are searched in their sorted order", BOXES);
    check_queries(&index, &state, 1000);
    for (int round = 0; round < 300; ++round) {
        float lo[3], hi[3];
        random_box(&state, lo, hi);
        skim_box_index_update(&index, (uint32_t)(next(&state) % BOXES), lo, hi);
    }
    check_queries(&index, &state, 1000);
    /* Back under the limit: masked again, over the same boxes. */
    skim_box_index_sort(&index, SKIM_BOX_MASKED);
    cr_assert_gt(index.mask_words, 0);
    check_queries(&index, &state, 1000);
    skim_box_index_free(&index);
}
