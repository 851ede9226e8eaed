/* skim_world_load: the baked world file (docs/bake_format.md).
   Read into one block of memory and used in place: the loader checks the
   header, the checksum and the tree's structure, then points the world's
   arrays into the block. Nothing is rebuilt.

   Why read rather than map: a mapping stays tied to the file. Truncating
   it (`cp new.bake live.bake` does) makes the next query touch a page past
   its end, SIGBUS; rewriting it in place changes the bytes under a world
   whose checks passed on the old ones (MAP_PRIVATE copies a page only when
   this process writes it). A world read into memory depends on nothing
   but itself. The read costs what the checksum pass cost the mapping: one
   pass over the file. */
#include "world/bake_format.h"
#include "bvh/bvh_binary.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* ---- checksum ----
   XXH3-64 (Collet, xxHash), a hash whose every output bit depends on every
   input bit: an error pattern goes unseen with probability 2^-64, whatever
   its shape. The sums the format used before missed two flipped top bits
   of words an even distance apart. */
uint64_t skim_bake_checksum_seed(const unsigned char *before_checksum)
{
    return XXH3_64bits(before_checksum, BAKE_CHECKSUM_AT);
}

uint64_t skim_bake_checksum(const unsigned char *file, size_t size)
{
    const size_t after = BAKE_CHECKSUM_AT + 8;
    return XXH3_64bits_withSeed(file + after, size - after, skim_bake_checksum_seed(file));
}

bool skim_bake_checksum_holds(const unsigned char *file, size_t size)
{
    uint64_t stored;
    memcpy(&stored, file + BAKE_CHECKSUM_AT, 8);
    return skim_bake_checksum(file, size) == stored;
}

/* ---- load ---- */
static skim_status format_error(const char *path, const char *what)
{
    return skim_fail(SKIM_ERROR_FORMAT, "skim_world_load: %s: %s", path, what);
}

/* Everything about the header and the section table that does not need the
   tree: called before the world points anywhere into the block. */
static skim_status check_layout(const char *path, const unsigned char *base, uint64_t size,
                                const bake_section **by_kind)
{
    const bake_header *h = (const bake_header *)base;
    if (size < sizeof *h || memcmp(h->magic, BAKE_MAGIC, 8) != 0)
        return format_error(path, "not a skim baked world");
    if (h->version != BAKE_VERSION)
        return format_error(path, "written by another version of skim");
    if (h->header_bytes != sizeof *h || h->file_bytes != size)
        return format_error(path, "truncated or extended (size differs from the header's)");
    if (size % BAKE_ALIGN)
        return format_error(path, "size is not a whole number of blocks");
    if (!skim_bake_checksum_holds(base, size))
        return format_error(path, "checksum mismatch (corrupted)");
    if (h->section_count != SECTION_COUNT || h->section_table_offset != sizeof *h)
        return format_error(path, "unexpected section table");
    /* Reserved for later versions: a writer of this one leaves them 0. */
    if (h->reserved0 || h->reserved || h->reserved2)
        return format_error(path, "a reserved header field is not 0");
    /* The caller's mesh had triangle_count + degenerate_count triangles,
       which skim_world_create bounds by UINT32_MAX / 3. */
    if ((uint64_t)h->triangle_count + h->degenerate_count > UINT32_MAX / 3)
        return format_error(path, "more triangles than a mesh can hold");
    if (h->accelerator != SKIM_ACCELERATOR_BVH && h->accelerator != SKIM_ACCELERATOR_BRUTE_FORCE)
        return format_error(path, "unknown accelerator");
    /* The stride comes from the mesh's count before degenerate triangles
       were dropped, so it may exceed what the kept count needs. */
    if (h->triangle_count > SKIM_BVH_MAX_TRIANGLES || h->stride % SKIM_MAX_PACKET_WIDTH != 0 ||
        h->stride < skim_world_stride(h->triangle_count))
        return format_error(path, "triangle count and array stride disagree");
    for (int axis = 0; axis < 3; ++axis)
        if (!isfinite(h->bounds_min[axis]) || !isfinite(h->bounds_max[axis]))
            return format_error(path, "bounds are not finite");
    const bake_section *table = (const bake_section *)(base + sizeof *h);
    const uint64_t table_end = sizeof *h + SECTION_COUNT * sizeof *table;
    const uint64_t float_array = bake_align_up((uint64_t)h->stride * sizeof(float));
    const uint64_t expected[SECTION_COUNT + 1] = {
        0, 9 * float_array, (uint64_t)h->stride * sizeof(uint32_t),
        (uint64_t)h->stride * sizeof(uint16_t), (uint64_t)h->node_count * sizeof(skim_bvh_node),
    };
    for (int k = 0; k <= SECTION_COUNT; ++k)
        by_kind[k] = NULL;
    for (int s = 0; s < SECTION_COUNT; ++s) {
        const bake_section *section = &table[s];
        if (section->kind < 1 || section->kind > SECTION_COUNT || by_kind[section->kind])
            return format_error(path, "unknown or repeated section");
        if (section->reserved)
            return format_error(path, "a reserved section field is not 0");
        if (section->offset % BAKE_ALIGN || section->offset < table_end || section->offset > size ||
            section->bytes > size - section->offset)
            return format_error(path, "section outside the file");
        if (section->bytes != expected[section->kind])
            return format_error(path, "section size disagrees with the header's counts");
        by_kind[section->kind] = section;
    }
    bool has_tree = h->accelerator == SKIM_ACCELERATOR_BVH && h->triangle_count > 0;
    if (!has_tree && h->node_count != 0)
        return format_error(path, "nodes in a world without a tree");
    return SKIM_OK;
}

/* NULL when every kept triangle passes skim_stored_triangle_problem; grows
   lo/hi (which start empty) by every triangle's corners. */
static const char *first_bad_triangle(const skim_world *world, float lo[3], float hi[3])
{
    for (uint32_t t = 0; t < world->triangle_count; ++t) {
        const char *problem = skim_stored_triangle_problem(world, t);
        if (problem)
            return problem;
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis) {
                const float x = world->vertex[v][axis][t];
                lo[axis] = x < lo[axis] ? x : lo[axis];
                hi[axis] = x > hi[axis] ? x : hi[axis];
            }
    }
    return NULL;
}

/* Whether the header's bounds are exactly those skim_world_create gives
   the stored triangles: their corners' minima and maxima, or zeros when
   there is none. The far-triangle test (gather_clip.c) and the moves'
   Morton order read these bounds instead of the triangles, so a writer
   that shrinks them (and recomputes the checksum) would have sweeps meet
   far triangles on the fast path, in float, silently wrong. */
static bool bounds_are_the_triangles(const skim_world *world, const float lo[3], const float hi[3])
{
    const float *min = &world->bounds_min.x, *max = &world->bounds_max.x;
    for (int axis = 0; axis < 3; ++axis) {
        const float true_lo = world->triangle_count ? lo[axis] : 0.0f;
        const float true_hi = world->triangle_count ? hi[axis] : 0.0f;
        if (!(min[axis] == true_lo && max[axis] == true_hi))
            return false;
    }
    return true;
}

/* pread until bytes are in: 1 done, 0 the file ended first, -1 an error
   (errno). */
static int read_at(int fd, void *buffer, size_t bytes, off_t offset)
{
    for (size_t done = 0; done < bytes;) {
        ssize_t got = pread(fd, (char *)buffer + done, bytes - done, offset + (off_t)done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? -1 : 0;
        done += (size_t)got;
    }
    return 1;
}

/* The file's size bytes into a new 64-byte-aligned block. The header is
   read and its size checked first, so that a large file that is not a
   bake of this size is refused without taking its size in memory. */
static skim_status read_file(const char *path, int fd, size_t size, unsigned char **out)
{
    bake_header header;
    int got = read_at(fd, &header, sizeof header, 0);
    if (got < 0)
        return skim_fail(SKIM_ERROR_IO, "skim_world_load: cannot read %s: %s", path, strerror(errno));
    if (got == 0 || memcmp(header.magic, BAKE_MAGIC, 8) != 0)
        return format_error(path, "not a skim baked world");
    if (header.version != BAKE_VERSION)
        return format_error(path, "written by another version of skim");
    if (header.file_bytes != size || size % BAKE_ALIGN)
        return format_error(path, "truncated or extended (size differs from the header's)");
    unsigned char *block = aligned_alloc(BAKE_ALIGN, size);
    if (!block)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_world_load: %s: %zu bytes", path, size);
    skim_bvh_prefer_huge_pages(block, size);
    got = read_at(fd, block, size, 0);
    if (got <= 0) {
        free(block);
        return got < 0 ? skim_fail(SKIM_ERROR_IO, "skim_world_load: cannot read %s: %s", path, strerror(errno))
                       : format_error(path, "truncated while it was read");
    }
    *out = block;
    return SKIM_OK;
}

skim_status skim_world_load(const char *path, skim_world **out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_world_load: out is NULL");
    *out = NULL;
    if (!path)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_world_load: path is NULL");
    if (!BAKE_HOST_IS_LITTLE_ENDIAN)
        return skim_fail(SKIM_ERROR_FORMAT, "skim_world_load: baked worlds are little-endian and "
                                            "this host is not");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return skim_fail(SKIM_ERROR_IO, "skim_world_load: cannot open %s: %s", path, strerror(errno));
    struct stat info;
    if (fstat(fd, &info) != 0) {
        int error = errno;
        close(fd);
        return skim_fail(SKIM_ERROR_IO, "skim_world_load: cannot stat %s: %s", path, strerror(error));
    }
    /* A directory or device opens fine; what follows would then depend on
       the file system's st_size for it. It is not a file we can read. */
    if (!S_ISREG(info.st_mode)) {
        close(fd);
        return skim_fail(SKIM_ERROR_IO, "skim_world_load: %s is not a regular file", path);
    }
    if (info.st_size < (off_t)sizeof(bake_header)) {
        close(fd);
        return format_error(path, "too short to be a skim baked world");
    }
    size_t size = (size_t)info.st_size;
    unsigned char *block = NULL;
    skim_status read_status = read_file(path, fd, size, &block);
    close(fd);
    if (read_status != SKIM_OK)
        return read_status;
    const unsigned char *base = block;
    const bake_section *section[SECTION_COUNT + 1];
    skim_status status = check_layout(path, base, size, section);
    const bake_header *h = (const bake_header *)base;
    const skim_bvh_node *nodes =
        status == SKIM_OK ? (const skim_bvh_node *)(base + section[SECTION_NODES]->offset) : NULL;
    char reason[128];
    bool has_tree = status == SKIM_OK && h->accelerator == SKIM_ACCELERATOR_BVH && h->triangle_count > 0;
    bool out_of_memory = false;
    if (has_tree && !skim_bvh_validate(nodes, h->node_count, h->root, h->triangle_count, reason,
                                       sizeof reason, &out_of_memory))
        status = out_of_memory ? skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_world_load: %s: %s", path, reason)
                               : format_error(path, reason);
    skim_world *world = NULL;
    struct skim_bvh *bvh = NULL;
    if (status == SKIM_OK) {
        world = calloc(1, sizeof *world);
        bvh = has_tree ? calloc(1, sizeof *bvh) : NULL;
        if (!world || (has_tree && !bvh))
            status = skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_world_load");
    }
    if (status != SKIM_OK) {
        free(world);
        free(bvh);
        free(block);
        return status;
    }
    world->triangle_count = h->triangle_count;
    world->degenerate_count = h->degenerate_count;
    world->stride = h->stride;
    const uint64_t float_array = bake_align_up((uint64_t)h->stride * sizeof(float));
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis)
            world->vertex[v][axis] = (const float *)(base + section[SECTION_VERTICES]->offset +
                                                     (uint64_t)(3 * v + axis) * float_array);
    world->triangle_index = (const uint32_t *)(base + section[SECTION_TRIANGLE_INDEX]->offset);
    world->material = (const uint16_t *)(base + section[SECTION_MATERIALS]->offset);
    world->accelerator = (skim_accelerator)h->accelerator;
    world->bounds_min = (skim_vec3){ h->bounds_min[0], h->bounds_min[1], h->bounds_min[2] };
    world->bounds_max = (skim_vec3){ h->bounds_max[0], h->bounds_max[1], h->bounds_max[2] };
    world->file_block = block;
    /* The checksum proves the bytes are what some writer wrote, not that
       they are triangles skim_world_create would have kept, nor that the
       tree is theirs: a tool that recomputes the checksum can store a NaN
       or 1e30 vertex, a triangle whose normal cannot be formed (sweeps
       would answer with non-finite hits), a child box smaller than its
       triangles or a triangle in no leaf (sweeps would pass through it),
       bounds that do not hold the triangles (far ones would be met in
       float on the fast path).
       One pass over the tree and the triangles refuses them all. */
    char why[160];
    bool bad = false;
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    if (bvh) {
        bad = !skim_bvh_check_geometry(world, nodes, h->node_count, h->root, lo, hi, why, sizeof why,
                                       &out_of_memory);
    } else {
        const char *problem = first_bad_triangle(world, lo, hi);
        bad = problem != NULL;
        if (bad)
            snprintf(why, sizeof why, "%s", problem);
    }
    /* Each stored triangle names the mesh triangle a hit reports. */
    const uint32_t mesh_triangles = h->triangle_count + h->degenerate_count;
    for (uint32_t t = 0; !bad && t < world->triangle_count; ++t)
        if (world->triangle_index[t] >= mesh_triangles) {
            bad = true;
            snprintf(why, sizeof why, "stored triangle %u names mesh triangle %u of %u", t,
                     world->triangle_index[t], mesh_triangles);
        }
    if (!bad && !bounds_are_the_triangles(world, lo, hi)) {
        bad = true;
        snprintf(why, sizeof why, "the header's bounds are not the triangles' bounds");
    }
    if (bad) {
        free(world);
        free(bvh);
        free(block);
        return out_of_memory ? skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_world_load: %s: %s", path, why)
                             : format_error(path, why);
    }
    if (bvh) {
        bvh->nodes = nodes;
        bvh->node_count = h->node_count;
        bvh->root = h->root;
        bvh->leaf_count = h->leaf_count;
        bvh->depth = h->depth;
        bvh->binary_nodes = h->binary_nodes;
        bvh->sah_cost = h->sah_cost;
        world->bvh = bvh;
    }
    status = skim_world_index_triangles(world);
    if (status != SKIM_OK) {
        skim_world_destroy(world);
        return status;
    }
    *out = world;
    return SKIM_OK;
}
