/* The bodies' candidate triangles (body_gather.h). A body is searched the
   way Embree and Jolt search an instance: the query's box goes into the
   body's space and the body's own BVH is walked with it. The triangles
   found then go the other way, into the world (placed once per transform
   for a small body, body.h) and on into the query's unit-sphere space (in
   double, rounded once), so the kernels see one
   candidate set whatever holds the triangles: the ellipsoid keeps its
   space, and a move's slide planes, contacts and floors need not know
   about bodies. */
#include "gather/body_gather.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void skim_body_lanes_free(skim_body_lanes *lanes)
{
    free(lanes->ref);
    free(lanes->found);
    free(lanes->meets);
    memset(lanes, 0, sizeof *lanes);
}

typedef struct body_visit {
    const skim_body             *body;
    double                       to_unit[3][3]; /* space's, widened once: out's stores may alias it */
    double                       start[3];
    const float                 *box_min, *box_max;
    uint64_t                     material_mask;
    skim_candidates             *out;
    skim_body_lanes             *lanes;
    skim_status                  status;
} body_visit;

static skim_status reserve_lanes(skim_body_lanes *lanes, uint32_t more)
{
    if (lanes->count + more <= lanes->capacity)
        return SKIM_OK;
    if (more > SKIM_BODY_LANE_BASE - 1 - lanes->count)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "bodies: more than %u body triangles in one query",
                         SKIM_BODY_LANE_BASE - 1);
    uint32_t capacity = lanes->capacity ? lanes->capacity : 64;
    while (capacity < lanes->count + more)
        capacity *= 2;
    skim_triangle_ref *grown = realloc(lanes->ref, (size_t)capacity * sizeof *grown);
    if (!grown)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "bodies: no memory for %u body triangles", capacity);
    lanes->ref = grown;
    lanes->capacity = capacity;
    return SKIM_OK;
}

/* The BVH's leaves give a body's triangles in leaf order; they are kept
   here, ordered by the caller's index, and appended afterwards. */
static void visit_run(void *context, uint32_t first, uint32_t count)
{
    body_visit *v = context;
    if (v->status != SKIM_OK)
        return;
    skim_body_lanes *lanes = v->lanes;
    if (lanes->found_count + count > lanes->found_capacity) {
        uint32_t capacity = lanes->found_capacity ? lanes->found_capacity : 64;
        while (capacity < lanes->found_count + count)
            capacity *= 2;
        uint64_t *grown = realloc(lanes->found, (size_t)capacity * sizeof *grown);
        if (!grown) {
            v->status = skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "bodies: no memory for %u triangles", capacity);
            return;
        }
        lanes->found = grown;
        lanes->found_capacity = capacity;
    }
    const skim_world *shape = v->body->shape;
    for (uint32_t stored = first; stored < first + count; ++stored)
        lanes->found[lanes->found_count++] = (uint64_t)shape->triangle_index[stored] << 32 | stored;
}

static int by_key(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Up to this many found keys are put in order by insertion: a body's
   triangles near one mover are few and come out of its tree nearly in
   order, where qsort's calls through by_key cost several times more. */
#define INSERTION_SORT_MAX 48

/* The keys ascending (they are distinct: the stored index is in them). */
static void sort_found(uint64_t *key, uint32_t count)
{
    if (count > INSERTION_SORT_MAX) {
        qsort(key, count, sizeof *key, by_key);
        return;
    }
    for (uint32_t i = 1; i < count; ++i) {
        const uint64_t k = key[i];
        uint32_t j = i;
        for (; j > 0 && key[j - 1] > k; --j)
            key[j] = key[j - 1];
        key[j] = k;
    }
}

/* The found triangles of one body that pass the material and box tests,
   placed and moved into unit space, appended. */
static skim_status append_found(body_visit *v)
{
    skim_body_lanes *lanes = v->lanes;
    const skim_world *shape = v->body->shape;
    skim_candidates *out = v->out;
    sort_found(lanes->found, lanes->found_count);
    skim_status status = skim_candidates_reserve(out, out->count + lanes->found_count + SKIM_MAX_PACKET_WIDTH);
    if (status == SKIM_OK)
        status = reserve_lanes(lanes, lanes->found_count);
    if (status != SKIM_OK)
        return status;
    for (uint32_t f = 0; f < lanes->found_count; ++f) {
        const uint32_t stored = (uint32_t)lanes->found[f];
        const uint16_t material = shape->material[stored];
        if (material < 64 && !((v->material_mask >> material) & 1u))
            continue;
        skim_placed_triangle scratch;
        const skim_placed_triangle *t = skim_body_triangle_at(v->body, stored, &scratch);
        bool overlaps = true;
        for (int axis = 0; axis < 3; ++axis)
            overlaps = overlaps && t->lo[axis] <= (double)v->box_max[axis] &&
                       t->hi[axis] >= (double)v->box_min[axis];
        if (!overlaps)
            continue;
        const uint32_t lane = out->count;
        for (int c = 0; c < 3; ++c) {
            const double d[3] = { t->corner[c][0] - v->start[0], t->corner[c][1] - v->start[1],
                                  t->corner[c][2] - v->start[2] };
            for (int axis = 0; axis < 3; ++axis) {
                const double *m = v->to_unit[axis];
                out->vertex[c][axis][lane] = (float)(m[0] * d[0] + m[1] * d[1] + m[2] * d[2]);
            }
        }
        out->triangle[lane] = SKIM_BODY_LANE_BASE + lanes->count;
        out->material[lane] = material;
        lanes->ref[lanes->count++] = (skim_triangle_ref){ shape->triangle_index[stored], v->body->id };
        out->count++;
    }
    return SKIM_OK;
}

skim_status skim_body_gather(const skim_world *world, const skim_ellipsoid_space *space,
                             const float start[3], const float box_min[3], const float box_max[3],
                             uint64_t material_mask, skim_candidates *out, skim_body_lanes *lanes)
{
    const skim_body_table *table = &world->bodies;
    const size_t words = skim_box_words(table->count);
    if (words > lanes->meets_capacity) {
        uint64_t *grown = realloc(lanes->meets, words * sizeof *grown);
        if (!grown)
            return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "bodies: no memory for %u bodies' marks", table->count);
        lanes->meets = grown;
        lanes->meets_capacity = words;
    }
    /* The bodies met, visited in table (increasing id) order. None met
       (most gathers): out is as the static gather left it, padded. */
    if (!skim_box_index_query(&table->boxes, box_min, box_max, lanes->meets))
        return SKIM_OK;
    body_visit v = { .start = { start[0], start[1], start[2] },
                     .box_min = box_min, .box_max = box_max, .material_mask = material_mask,
                     .out = out, .lanes = lanes, .status = SKIM_OK };
    for (int row = 0; row < 3; ++row)
        for (int column = 0; column < 3; ++column)
            v.to_unit[row][column] = space->to_unit[row][column];
    for (size_t w = 0; w < words && v.status == SKIM_OK; ++w)
        for (uint64_t bits = lanes->meets[w]; bits && v.status == SKIM_OK; bits &= bits - 1) {
            const skim_body *body = &table->body[64 * w + (size_t)__builtin_ctzll(bits)];
            float local_min[3], local_max[3];
            skim_body_box_to_local(body, box_min, box_max, local_min, local_max);
            v.body = body;
            lanes->found_count = 0;
            skim_world_visit_box(body->shape, local_min, local_max, visit_run, &v);
            if (v.status == SKIM_OK && lanes->found_count)
                v.status = append_found(&v);
        }
    if (v.status != SKIM_OK)
        return v.status;
    skim_status status = skim_candidates_reserve(out, out->count + SKIM_MAX_PACKET_WIDTH);
    if (status != SKIM_OK)
        return status;
    skim_candidates_pad_whole(out);
    return SKIM_OK;
}
