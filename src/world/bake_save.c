/* skim_world_save: the baked world file (docs/bake_format.md), written
   beside its target under a random name made exclusively, then renamed
   over it. */
#include "world/bake_format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* ---- save ---- */
typedef struct writer {
    FILE    *file;
    XXH3_state_t *checksum; /* over the bytes after the checksum field */
    uint64_t written;
    bool     failed;
} writer;

static void write_bytes(writer *w, const void *data, size_t bytes)
{
    if (w->failed || bytes == 0)
        return;
    if (fwrite(data, 1, bytes, w->file) != bytes)
        w->failed = true;
    const uint64_t after = BAKE_CHECKSUM_AT + 8;
    if (w->written + bytes > after) {
        const uint64_t skip = w->written < after ? after - w->written : 0;
        if (XXH3_64bits_update(w->checksum, (const unsigned char *)data + skip, bytes - skip) != XXH_OK)
            w->failed = true;
    }
    w->written += bytes;
}

static void write_padding(writer *w)
{
    static const unsigned char zeros[BAKE_ALIGN];
    write_bytes(w, zeros, bake_align_up(w->written) - w->written);
}

/* The permissions a new file gets, 0666 less the umask, as fopen would
   give; mkostemp makes 0600. The umask is read from /proc (setting it to
   read it would race with other threads). */
static mode_t creation_mode(void)
{
    unsigned umask_bits = 022;
    FILE *status = fopen("/proc/self/status", "re");
    if (status) {
        char line[128];
        while (fgets(line, sizeof line, status))
            if (sscanf(line, "Umask: %o", &umask_bits) == 1)
                break;
        fclose(status);
    }
    return (mode_t)(0666 & ~umask_bits);
}

skim_status skim_world_save(const skim_world *world, const char *path)
{
    if (!world || !path)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_world_save: NULL argument");
    if (!BAKE_HOST_IS_LITTLE_ENDIAN)
        return skim_fail(SKIM_ERROR_FORMAT, "skim_world_save: baked worlds are little-endian and "
                                            "this host is not");
    const struct skim_bvh *bvh = world->bvh;
    const uint64_t float_array = bake_align_up((uint64_t)world->stride * sizeof(float));
    bake_section sections[SECTION_COUNT] = {
        { .kind = SECTION_VERTICES, .bytes = 9 * float_array },
        { .kind = SECTION_TRIANGLE_INDEX, .bytes = (uint64_t)world->stride * sizeof(uint32_t) },
        { .kind = SECTION_MATERIALS, .bytes = (uint64_t)world->stride * sizeof(uint16_t) },
        { .kind = SECTION_NODES, .bytes = bvh ? (uint64_t)bvh->node_count * sizeof(skim_bvh_node) : 0 },
    };
    uint64_t offset = bake_align_up(sizeof(bake_header) + sizeof sections);
    for (int s = 0; s < SECTION_COUNT; ++s) {
        sections[s].offset = offset;
        offset = bake_align_up(offset + sections[s].bytes);
    }
    bake_header header = {
        .version = BAKE_VERSION,
        .header_bytes = sizeof(bake_header),
        .file_bytes = offset,
        .section_count = SECTION_COUNT,
        .section_table_offset = sizeof(bake_header),
        .triangle_count = world->triangle_count,
        .degenerate_count = world->degenerate_count,
        .stride = world->stride,
        .accelerator = (uint32_t)world->accelerator,
        .node_count = bvh ? bvh->node_count : 0,
        .root = bvh ? bvh->root : 0,
        .leaf_count = bvh ? bvh->leaf_count : 0,
        .depth = bvh ? bvh->depth : 0,
        .binary_nodes = bvh ? bvh->binary_nodes : 0,
        .sah_cost = bvh ? bvh->sah_cost : (double)world->triangle_count,
        .bounds_min = { world->bounds_min.x, world->bounds_min.y, world->bounds_min.z },
        .bounds_max = { world->bounds_max.x, world->bounds_max.y, world->bounds_max.z },
    };
    memcpy(header.magic, BAKE_MAGIC, 8);

    /* Written beside the target and renamed over it: a process that loads
       the path meanwhile sees the old file or the new one, never half. The
       temporary name is random and created exclusively (mkostemp: O_CREAT
       | O_EXCL, which never follows a link), so nobody who can write to
       the folder can have the save write through a link planted there. */
    size_t path_length = strlen(path);
    char *temporary = malloc(path_length + 8);
    if (!temporary)
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_world_save");
    snprintf(temporary, path_length + 8, "%s.XXXXXX", path);
    writer w = { .checksum = XXH3_createState() };
    if (!w.checksum ||
        XXH3_64bits_reset_withSeed(w.checksum, skim_bake_checksum_seed((const unsigned char *)&header)) != XXH_OK) {
        XXH3_freeState(w.checksum);
        free(temporary);
        return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "skim_world_save");
    }
    int fd = mkostemp(temporary, O_CLOEXEC);
    if (fd >= 0 && fchmod(fd, creation_mode()) != 0) {
        close(fd);
        remove(temporary);
        fd = -1;
    }
    w.file = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !w.file) {
        close(fd);
        remove(temporary);
    }
    if (!w.file) {
        XXH3_freeState(w.checksum);
        skim_status status = skim_fail(SKIM_ERROR_IO, "skim_world_save: cannot create %s: %s",
                                       temporary, strerror(errno));
        free(temporary);
        return status;
    }
    write_bytes(&w, &header, sizeof header);
    write_bytes(&w, sections, sizeof sections);
    write_padding(&w);
    for (int v = 0; v < 3; ++v)
        for (int axis = 0; axis < 3; ++axis) {
            write_bytes(&w, world->vertex[v][axis], (size_t)world->stride * sizeof(float));
            write_padding(&w);
        }
    write_bytes(&w, world->triangle_index, (size_t)world->stride * sizeof(uint32_t));
    write_padding(&w);
    write_bytes(&w, world->material, (size_t)world->stride * sizeof(uint16_t));
    write_padding(&w);
    if (bvh && bvh->node_count)
        write_bytes(&w, bvh->nodes, (size_t)bvh->node_count * sizeof(skim_bvh_node));
    write_padding(&w);
    if (!w.failed && w.written != header.file_bytes)
        w.failed = true;
    header.checksum = XXH3_64bits_digest(w.checksum);
    XXH3_freeState(w.checksum);
    if (!w.failed && (fseek(w.file, BAKE_CHECKSUM_AT, SEEK_SET) != 0 ||
                      fwrite(&header.checksum, 8, 1, w.file) != 1))
        w.failed = true;
    if (fclose(w.file) != 0)
        w.failed = true;
    if (!w.failed && rename(temporary, path) != 0)
        w.failed = true;
    skim_status status = SKIM_OK;
    if (w.failed) {
        status = skim_fail(SKIM_ERROR_IO, "skim_world_save: writing %s failed: %s", path,
                           strerror(errno));
        remove(temporary);
    }
    free(temporary);
    return status;
}

