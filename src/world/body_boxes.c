/* The sorted box index (body_boxes.h). */
#include "world/body_boxes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The map's block: the rows' bits, then the cells' counts (32-bit, two
   to a word). */
#define MAP_CELLS ((size_t)SKIM_BOX_MAP * SKIM_BOX_MAP)
#define MAP_WORDS (SKIM_BOX_MAP + MAP_CELLS / 2)

bool skim_box_index_reserve(skim_box_index *index, uint32_t count)
{
    if (count <= index->capacity)
        return true;
    uint32_t capacity = index->capacity ? index->capacity : 8;
    while (capacity < count)
        capacity *= 2;
    float *block = malloc(6 * (size_t)capacity * sizeof *block);
    uint64_t *sorted = malloc((size_t)capacity * sizeof *sorted);
    uint64_t *covered = index->covered ? index->covered
                                       : calloc(MAP_WORDS, sizeof *covered);
    if (!block || !sorted || !covered) {
        free(block);
        free(sorted);
        if (covered != index->covered)
            free(covered);
        return false;
    }
    index->covered = covered;
    index->covering = (uint32_t *)(covered + SKIM_BOX_MAP);
    for (int a = 0; a < 3; ++a) {
        if (index->count) {
            memcpy(block + (size_t)a * capacity, index->lo[a], index->count * sizeof *block);
            memcpy(block + (size_t)(3 + a) * capacity, index->hi[a], index->count * sizeof *block);
        }
    }
    if (index->count)
        memcpy(sorted, index->sorted, index->count * sizeof *sorted);
    free(index->lo[0]);
    free(index->sorted);
    for (int a = 0; a < 3; ++a) {
        index->lo[a] = block + (size_t)a * capacity;
        index->hi[a] = block + (size_t)(3 + a) * capacity;
    }
    index->sorted = sorted;
    index->capacity = capacity;
    return true;
}

/* A float's bits as an unsigned key that sorts as the floats do (finite or
   infinite, not NaN; -0 just below +0). */
static uint32_t order_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

static int by_key(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The map's cell of coordinate v on axis a. A function of v that never
   decreases as v grows (a float difference, a product by a positive
   scale, held to the map), so two boxes that meet on the axis have cell
   ranges that meet, wherever the map's bounds lie; a NaN goes to cell 0. */
static uint32_t map_cell(const skim_box_index *index, int a, float v)
{
    const float u = (v - index->map_lo[a]) * index->map_scale[a];
    if (!(u > 0.0f))
        return 0;
    return u < (float)(SKIM_BOX_MAP - 1) ? (uint32_t)u : SKIM_BOX_MAP - 1;
}

/* Adds step (+1 or -1) to the count of every cell box k, [lo, hi],
   covers, keeps the rows' bits of the cells that count any, and sets
   (step +1) or clears box k's bit in the cells' masks. */
static void map_box(skim_box_index *index, uint32_t k, const float lo[3], const float hi[3], uint32_t step)
{
    const uint32_t x0 = map_cell(index, 0, lo[0]), x1 = map_cell(index, 0, hi[0]);
    const uint32_t y0 = map_cell(index, 1, lo[1]), y1 = map_cell(index, 1, hi[1]);
    const uint32_t words = index->mask_words;
    const uint64_t bit = 1ull << (k % 64);
    for (uint32_t y = y0; y <= y1; ++y)
        for (uint32_t x = x0; x <= x1; ++x) {
            const size_t cell = (size_t)y * SKIM_BOX_MAP + x;
            const uint32_t count = index->covering[cell] += step;
            if (count)
                index->covered[y] |= 1ull << x;
            else
                index->covered[y] &= ~(1ull << x);
            if (words) {
                uint64_t *mask = index->cell_boxes + cell * words + k / 64;
                *mask = step == 1u ? *mask | bit : *mask & ~bit;
            }
        }
}

/* Room for the cells' masks of count boxes; without it (too many boxes,
   out of memory) mask_words is 0 and queries search the sorted boxes. */
static void reserve_masks(skim_box_index *index, uint32_t count)
{
    index->mask_words = 0;
    if (count > SKIM_BOX_MASKED)
        return;
    if (!index->cell_boxes &&
        !(index->cell_boxes = malloc(MAP_CELLS * skim_box_words(SKIM_BOX_MASKED) * sizeof *index->cell_boxes)))
        return;
    index->mask_words = (uint32_t)skim_box_words(count);
    memset(index->cell_boxes, 0, MAP_CELLS * index->mask_words * sizeof *index->cell_boxes);
}

void skim_box_index_sort(skim_box_index *index, uint32_t count)
{
    index->count = count;
    double widest = 0.0;
    float low[2] = { INFINITY, INFINITY }, high[2] = { -INFINITY, -INFINITY };
    for (uint32_t k = 0; k < count; ++k) {
        index->sorted[k] = (uint64_t)order_key(index->lo[0][k]) << 32 | k;
        widest = fmax(widest, (double)index->hi[0][k] - index->lo[0][k]);
        for (int a = 0; a < 2; ++a) {
            low[a] = index->lo[a][k] < low[a] ? index->lo[a][k] : low[a];
            high[a] = index->hi[a][k] > high[a] ? index->hi[a][k] : high[a];
        }
    }
    index->widest = widest;
    if (count > 1)
        qsort(index->sorted, count, sizeof *index->sorted, by_key);
    if (!index->covered)
        return; /* no room was ever reserved: no boxes */
    /* The map spans the boxes as they stand; boxes that move out later
       count in its edge cells (map_cell holds them there). */
    for (int a = 0; a < 2; ++a) {
        const double extent = (double)high[a] - low[a];
        index->map_lo[a] = count ? low[a] : 0.0f;
        index->map_scale[a] = count && extent > 0.0 && extent < INFINITY ? (float)(SKIM_BOX_MAP / extent) : 0.0f;
    }
    memset(index->covered, 0, MAP_WORDS * sizeof *index->covered);
    reserve_masks(index, count);
    for (uint32_t k = 0; k < count; ++k) {
        const float lo[3] = { index->lo[0][k], index->lo[1][k], index->lo[2][k] };
        const float hi[3] = { index->hi[0][k], index->hi[1][k], index->hi[2][k] };
        map_box(index, k, lo, hi, 1u);
    }
}

void skim_box_index_update(skim_box_index *index, uint32_t k, const float lo[3], const float hi[3])
{
    const float was_lo[3] = { index->lo[0][k], index->lo[1][k], index->lo[2][k] };
    const float was_hi[3] = { index->hi[0][k], index->hi[1][k], index->hi[2][k] };
    map_box(index, k, was_lo, was_hi, UINT32_MAX); /* -1, wrapping */
    map_box(index, k, lo, hi, 1u);
    skim_box_index_set(index, k, lo, hi);
    index->widest = fmax(index->widest, (double)hi[0] - lo[0]); /* may stay wider than needed: still safe */
    uint32_t at = 0;
    while ((uint32_t)index->sorted[at] != k)
        ++at;
    const uint64_t entry = (uint64_t)order_key(lo[0]) << 32 | k;
    uint64_t *s = index->sorted;
    for (; at > 0 && s[at - 1] > entry; --at)
        s[at] = s[at - 1];
    for (; at + 1 < index->count && s[at + 1] < entry; ++at)
        s[at] = s[at + 1];
    s[at] = entry;
}

/* A query over cells x0..x1, y0..y1 from their masks: every box that
   meets it covers one of them (the cell of a coordinate never decreases
   as it grows), and each is tested once. */
static uint32_t query_masks(const skim_box_index *index, const float lo[3], const float hi[3], uint32_t x0,
                            uint32_t x1, uint32_t y0, uint32_t y1, uint64_t *bits)
{
    const uint32_t words = index->mask_words;
    uint32_t found = 0;
    for (uint32_t w = 0; w < words; ++w) {
        uint64_t near = 0;
        for (uint32_t y = y0; y <= y1; ++y)
            for (uint32_t x = x0; x <= x1; ++x)
                near |= index->cell_boxes[((size_t)y * SKIM_BOX_MAP + x) * words + w];
        for (; near; near &= near - 1) {
            const uint32_t k = 64 * w + (uint32_t)__builtin_ctzll(near);
            if (index->lo[0][k] <= hi[0] && index->hi[0][k] >= lo[0] && index->lo[1][k] <= hi[1] &&
                index->hi[1][k] >= lo[1] && index->lo[2][k] <= hi[2] && index->hi[2][k] >= lo[2]) {
                bits[w] |= 1ull << (k % 64);
                ++found;
            }
        }
    }
    return found;
}

uint32_t skim_box_index_query(const skim_box_index *index, const float lo[3], const float hi[3], uint64_t *bits)
{
    const uint32_t count = index->count;
    if (!count)
        return 0;
    /* No box over any cell the query covers (a row's bits x0 to x1): none
       meets it. */
    const uint32_t x0 = map_cell(index, 0, lo[0]), x1 = map_cell(index, 0, hi[0]);
    const uint32_t y0 = map_cell(index, 1, lo[1]), y1 = map_cell(index, 1, hi[1]);
    const uint64_t span = (~0ull << x0) & (~0ull >> (SKIM_BOX_MAP - 1 - x1));
    uint64_t covered = 0;
    for (uint32_t y = y0; y <= y1 && !covered; ++y)
        covered = index->covered[y] & span;
    if (!covered)
        return 0;
    memset(bits, 0, skim_box_words(count) * sizeof *bits);
    if (index->mask_words)
        return query_masks(index, lo, hi, x0, x1, y0, y1, bits);
    /* Every box that meets has lo.x in [lo[0] - widest, hi[0]]; the start
       is taken in double and rounded down one more float to stay safe. */
    const float start = skim_float_below((float)((double)lo[0] - index->widest));
    const uint32_t from = order_key(start), to = order_key(hi[0]);
    uint32_t first = 0, last = count;
    while (first < last) {
        const uint32_t mid = first + (last - first) / 2;
        if ((uint32_t)(index->sorted[mid] >> 32) < from)
            first = mid + 1;
        else
            last = mid;
    }
    uint32_t found = 0;
    for (uint32_t s = first; s < count && (uint32_t)(index->sorted[s] >> 32) <= to; ++s) {
        const uint32_t k = (uint32_t)index->sorted[s];
        if (index->hi[0][k] >= lo[0] && index->lo[1][k] <= hi[1] && index->hi[1][k] >= lo[1] &&
            index->lo[2][k] <= hi[2] && index->hi[2][k] >= lo[2]) {
            bits[k / 64] |= 1ull << (k % 64);
            ++found;
        }
    }
    return found;
}

void skim_box_index_free(skim_box_index *index)
{
    free(index->lo[0]);
    free(index->sorted);
    free(index->covered);
    free(index->cell_boxes);
    memset(index, 0, sizeof *index);
}
