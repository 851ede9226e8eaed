/* The baked-world checksum (src/world/bake.c, docs/bake_format.md),
   recomputed by tests that edit a baked file and want the loader's later
   checks, not its checksum, to judge the edit: XXH3-64 of the bytes after
   the checksum field (bytes 24..31), seeded with XXH3-64 of the 24 bytes
   before it, stored at byte 24. One copy for the bake tests, the
   hardening tests and the bake fuzzer. */
#ifndef SKIM_TESTS_BAKE_CHECKSUM_H
#define SKIM_TESTS_BAKE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

enum { BAKE_CHECKSUM_AT = 24 };

static inline void bake_reseal(unsigned char *file, size_t size)
{
    const uint64_t seed = XXH3_64bits(file, BAKE_CHECKSUM_AT);
    const uint64_t checksum = XXH3_64bits_withSeed(file + BAKE_CHECKSUM_AT + 8, size - BAKE_CHECKSUM_AT - 8, seed);
    memcpy(file + BAKE_CHECKSUM_AT, &checksum, 8);
}

#endif
