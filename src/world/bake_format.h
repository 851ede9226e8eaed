/* The baked world file's layout (docs/bake_format.md), shared by the
   writer (bake_save.c) and the loader (bake.c). */
#ifndef SKIM_BAKE_FORMAT_H
#define SKIM_BAKE_FORMAT_H

#include "world/world_bvh.h"

#include <stddef.h>
#include <stdint.h>

#define BAKE_MAGIC "SKIMBAKE"
#define BAKE_VERSION 2u
#define BAKE_ALIGN 64u
#define BAKE_CHECKSUM_AT 24u

enum { SECTION_VERTICES = 1, SECTION_TRIANGLE_INDEX = 2, SECTION_MATERIALS = 3, SECTION_NODES = 4,
       SECTION_COUNT = 4 };

/* Every field little-endian, at the offset its position gives (no padding:
   the static asserts below pin the layout). */
typedef struct bake_header {
    char     magic[8];
    uint32_t version;
    uint32_t header_bytes;
    uint64_t file_bytes;
    uint64_t checksum;          /* skim_bake_checksum of the file */
    uint64_t reserved0;
    uint32_t section_count;
    uint32_t section_table_offset;
    uint32_t triangle_count;
    uint32_t degenerate_count;
    uint32_t stride;
    uint32_t accelerator;
    uint32_t node_count;
    uint32_t root;
    uint32_t leaf_count;
    uint32_t depth;
    uint32_t binary_nodes;
    uint32_t reserved;
    double   sah_cost;
    float    bounds_min[3];
    float    bounds_max[3];
    uint64_t reserved2;
} bake_header;

typedef struct bake_section {
    uint32_t kind;
    uint32_t reserved;
    uint64_t offset;
    uint64_t bytes;
} bake_section;

_Static_assert(sizeof(bake_header) == 128, "bake header layout");
_Static_assert(sizeof(bake_section) == 24, "bake section layout");
_Static_assert(sizeof(skim_bvh_node) == 96, "BVH node layout");
_Static_assert(offsetof(bake_header, checksum) == BAKE_CHECKSUM_AT, "checksum position");

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#define BAKE_HOST_IS_LITTLE_ENDIAN 0
#else
#define BAKE_HOST_IS_LITTLE_ENDIAN 1
#endif

static inline uint64_t bake_align_up(uint64_t bytes) { return (bytes + BAKE_ALIGN - 1) / BAKE_ALIGN * BAKE_ALIGN; }

/* The file's checksum (docs/bake_format.md): XXH3-64 of everything after
   the checksum field, seeded with XXH3-64 of everything before it. size is
   at least BAKE_CHECKSUM_AT + 8. */
uint64_t skim_bake_checksum(const unsigned char *file, size_t size);
uint64_t skim_bake_checksum_seed(const unsigned char *before_checksum);
/* Whether the checksum stored in file matches its bytes: the loader's test. */
bool skim_bake_checksum_holds(const unsigned char *file, size_t size);

#endif
