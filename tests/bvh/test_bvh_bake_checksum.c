/* The baked world's checksum detects every error of 1 and 2 bits and every
   burst of up to 64 bits anywhere in the smallest bake, and every error of
   3 bits in its first 64 bytes (the counts, sizes and the checksum field):
   tried exhaustively against the loader's own check. A bake is at least
   960 bytes (7,680 bits); trying all 7.5e10 three-bit errors of it would
   take hours, so those are tried where the header's fields lie. Sanitizer
   builds, which check the loader's memory accesses rather than the
   arithmetic, try the errors whose first bit is every SKIM_BVH_TEST_SCALE-th
   one; the plain build tries them all. */
#include "world/bake_format.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SKIM_BVH_TEST_SCALE
#define SKIM_BVH_TEST_SCALE 1
#endif
enum { FIRST_BIT_STEP = SKIM_BVH_TEST_SCALE };

/* The smallest bake: a world without triangles (brute force, no nodes):
   the header, the section table and one packet of each array. */
static unsigned char *smallest_bake(size_t *size)
{
    skim_mesh mesh = { NULL, 0, NULL, 0, NULL };
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    skim_world *world = NULL;
    cr_assert_eq(skim_world_create(&mesh, &def, &world), SKIM_OK, "%s", skim_last_error_message());
    char path[64];
    snprintf(path, sizeof path, "/tmp/skim_test_bake_checksum_%d.skim", (int)getpid());
    cr_assert_eq(skim_world_save(world, path), SKIM_OK, "%s", skim_last_error_message());
    skim_world_destroy(world);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    unsigned char *bytes = malloc(4096);
    *size = fread(bytes, 1, 4096, f);
    fclose(f);
    remove(path);
    cr_assert_eq(*size, 960, "%zu bytes", *size);
    return bytes;
}

/* Whether the loader's checksum test passes the (possibly damaged) file. */
static bool checksum_holds(const unsigned char *file, size_t size) { return skim_bake_checksum_holds(file, size); }

static void flip(unsigned char *file, size_t bit) { file[bit >> 3] ^= (unsigned char)(1u << (bit & 7)); }

Test(bvh_bake_checksum, every_one_and_two_bit_error_is_detected, .timeout = 120)
{
    size_t size;
    unsigned char *file = smallest_bake(&size);
    cr_assert(checksum_holds(file, size));
    const size_t bits = 8 * size;
    uint64_t missed = 0;
    for (size_t i = 0; i < bits; i += FIRST_BIT_STEP) {
        flip(file, i);
        missed += checksum_holds(file, size);
        for (size_t j = i + 1; j < bits; ++j) {
            flip(file, j);
            missed += checksum_holds(file, size);
            flip(file, j);
        }
        flip(file, i);
    }
    cr_expect_eq(missed, 0, "%llu one- and two-bit errors of a %zu-byte bake pass the checksum",
                 (unsigned long long)missed, size);
    free(file);
}

Test(bvh_bake_checksum, every_burst_of_up_to_64_bits_is_detected)
{
    size_t size;
    unsigned char *file = smallest_bake(&size);
    const size_t bits = 8 * size;
    uint64_t missed = 0, tried = 0, random = 0x9E3779B97F4A7C15u;
    /* A burst of length n starts and ends with a flipped bit; between them
       any pattern: all flipped, and three patterns from a fixed generator. */
    for (size_t start = 0; start < bits; start += FIRST_BIT_STEP)
        for (size_t length = 1; length <= 64 && start + length <= bits; ++length)
            for (int pattern = 0; pattern < 4; ++pattern) {
                random ^= random << 13, random ^= random >> 7, random ^= random << 17;
                uint64_t inside = pattern == 0 ? ~0ull : random;
                uint64_t mask = length == 64 ? ~0ull : ((1ull << length) - 1);
                uint64_t burst = (inside & mask) | 1u | (1ull << (length - 1));
                for (size_t k = 0; k < length; ++k)
                    if ((burst >> k) & 1u)
                        flip(file, start + k);
                missed += checksum_holds(file, size);
                ++tried;
                for (size_t k = 0; k < length; ++k)
                    if ((burst >> k) & 1u)
                        flip(file, start + k);
            }
    cr_expect_eq(missed, 0, "%llu of %llu bursts pass the checksum", (unsigned long long)missed,
                 (unsigned long long)tried);
    free(file);
}

Test(bvh_bake_checksum, every_three_bit_error_in_the_header_fields_is_detected, .timeout = 120)
{
    size_t size;
    unsigned char *file = smallest_bake(&size);
    const size_t bits = 8 * 64;
    uint64_t missed = 0;
    for (size_t i = 0; i < bits; i += FIRST_BIT_STEP) {
        flip(file, i);
        for (size_t j = i + 1; j < bits; ++j) {
            flip(file, j);
            for (size_t k = j + 1; k < bits; ++k) {
                flip(file, k);
                missed += checksum_holds(file, size);
                flip(file, k);
            }
            flip(file, j);
        }
        flip(file, i);
    }
    cr_expect_eq(missed, 0, "%llu three-bit errors in the first 64 bytes pass the checksum",
                 (unsigned long long)missed);
    free(file);
}
