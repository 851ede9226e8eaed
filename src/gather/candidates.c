/* The SoA candidate buffer the kernels read (see skim_internal.h). */
#include "gather/gather.h"

#include <simde/x86/sse2.h>

#include <stdlib.h>
#include <string.h>

void skim_candidates_init(skim_candidates *c)
{
    memset(c, 0, sizeof *c);
}

void skim_candidates_free(skim_candidates *c)
{
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            free(c->vertex[v][axis]);
    free(c->triangle);
    free(c->material);
    skim_candidates_init(c);
}

static uint32_t round_up_to_packet(uint32_t lanes)
{
    return (lanes + SKIM_MAX_PACKET_WIDTH - 1) / SKIM_MAX_PACKET_WIDTH * SKIM_MAX_PACKET_WIDTH;
}

static void *grow(void *old, size_t bytes)
{
    /* 64-byte aligned so AVX-512 loads of whole packets are aligned. */
    void *fresh = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (fresh && old)
        memcpy(fresh, old, bytes);
    return fresh;
}

skim_status skim_candidates_reserve(skim_candidates *c, uint32_t lanes)
{
    if (lanes > UINT32_MAX - SKIM_MAX_PACKET_WIDTH)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "candidate buffer of %u lanes", lanes);
    uint32_t needed = round_up_to_packet(lanes);
    if (needed <= c->capacity)
        return SKIM_OK;
    uint32_t capacity = c->capacity ? c->capacity : 64;
    while (capacity < needed)
        capacity = capacity > UINT32_MAX / 2 ? needed : capacity * 2;
    skim_candidates fresh = { .count = c->count, .padded_count = c->padded_count,
                              .capacity = capacity };
    bool ok = true;
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis) {
            fresh.vertex[v][axis] = grow(NULL, (size_t)capacity * sizeof(float));
            ok = ok && fresh.vertex[v][axis];
        }
    fresh.triangle = grow(NULL, (size_t)capacity * sizeof(uint32_t));
    fresh.material = grow(NULL, (size_t)capacity * sizeof(uint16_t));
    ok = ok && fresh.triangle && fresh.material;
    if (!ok) {
        skim_candidates_free(&fresh);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "candidate buffer of %u lanes", capacity);
    }
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            if (c->count)
                memcpy(fresh.vertex[v][axis], c->vertex[v][axis], c->count * sizeof(float));
    if (c->count) {
        memcpy(fresh.triangle, c->triangle, c->count * sizeof(uint32_t));
        memcpy(fresh.material, c->material, c->count * sizeof(uint16_t));
    }
    skim_candidates_free(c);
    *c = fresh;
    return SKIM_OK;
}

const float skim_far_triangle[3][3] = {
    { 1e6f, 1e6f, 1e6f }, { 1e6f + 1.0f, 1e6f, 1e6f }, { 1e6f, 1e6f + 1.0f, 1e6f }
};

void skim_candidates_pad_whole(skim_candidates *c)
{
    /* The same lanes as skim_candidates_pad, in whole 4-lane stores over
       SKIM_MAX_PACKET_WIDTH lanes: it runs after every gather and every
       kernel flush of the ordered traversal, where a lane-by-lane loop
       would be a visible share of a move. */
    const uint32_t count = c->count;
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis) {
            const simde__m128 far = simde_mm_set1_ps(skim_far_triangle[v][axis]);
            float *at = c->vertex[v][axis] + count;
            for (uint32_t k = 0; k < SKIM_MAX_PACKET_WIDTH; k += 4)
                simde_mm_storeu_ps(at + k, far);
        }
    const simde__m128i none = simde_mm_set1_epi32(-1), zero = simde_mm_setzero_si128();
    for (uint32_t k = 0; k < SKIM_MAX_PACKET_WIDTH; k += 4)
        simde_mm_storeu_si128((simde__m128i *)(void *)(c->triangle + count + k), none);
    for (uint32_t k = 0; k < SKIM_MAX_PACKET_WIDTH; k += 8)
        simde_mm_storeu_si128((simde__m128i *)(void *)(c->material + count + k), zero);
    c->padded_count = round_up_to_packet(count);
}

void skim_candidates_pad(skim_candidates *c)
{
    /* Padding lanes hold a finite, well-formed triangle (so no lane computes
       NaN or Inf) and the index UINT32_MAX. Kernels mask lanes >= count, so
       a padding lane never reports a hit whatever its geometry. */
    c->padded_count = round_up_to_packet(c->count);
    for (uint32_t lane = c->count; lane < c->padded_count; ++lane) {
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                c->vertex[v][axis][lane] = skim_far_triangle[v][axis];
        c->triangle[lane] = UINT32_MAX;
        c->material[lane] = 0;
    }
}
