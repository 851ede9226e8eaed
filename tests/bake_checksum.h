/* The baked-world checksum (src/world/bake.c, docs/bake_format.md),
   recomputed by tests that edit a baked file and want the loader's later
   checks, not its checksum, to judge the edit: the sum and the running sum
   of the file's 64-bit little-endian words, the two checksum words
   (bytes 24..39) read as 0, stored back at bytes 24 and 32. One copy for
   the bake tests, the hardening findings and the bake fuzzer. */
#ifndef SKIM_TESTS_BAKE_CHECKSUM_H
#define SKIM_TESTS_BAKE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { BAKE_CHECKSUM_SUM_AT = 24, BAKE_CHECKSUM_FLETCHER_AT = 32 };

static inline void bake_reseal(unsigned char *file, size_t size)
{
    uint64_t sum = 0, fletcher = 0;
    for (size_t i = 0; i + 8 <= size; i += 8) {
        uint64_t word;
        memcpy(&word, file + i, 8);
        if (i == BAKE_CHECKSUM_SUM_AT || i == BAKE_CHECKSUM_FLETCHER_AT)
            word = 0;
        sum += word;
        fletcher += sum;
    }
    memcpy(file + BAKE_CHECKSUM_SUM_AT, &sum, 8);
    memcpy(file + BAKE_CHECKSUM_FLETCHER_AT, &fletcher, 8);
}

#endif
