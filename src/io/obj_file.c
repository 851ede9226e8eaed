/* skim_mesh_load_obj: reads the whole file, then parses it from memory
   (obj_parse.c). Only regular files are read: a device or FIFO (/dev/zero,
   a pipe that never ends) would grow the buffer without end. Reading in
   chunks rather than by the file's size also works for files that change
   size while read; a NUL byte stops the read at once, since an OBJ file
   is text and the parser would refuse it anyway. */
#include "io/mesh_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

skim_status skim_mesh_load_obj(const char *path, skim_mesh_data *out)
{
    if (!out)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_mesh_load_obj: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path)
        return skim_fail(SKIM_ERROR_INVALID_ARGUMENT, "skim_mesh_load_obj: path is NULL");
    FILE *file = fopen(path, "rb");
    if (!file)
        return skim_fail(SKIM_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat info;
    if (fstat(fileno(file), &info) != 0 || !S_ISREG(info.st_mode)) {
        fclose(file);
        return skim_fail(SKIM_ERROR_IO, "%s: not a regular file", path);
    }
    char *text = NULL;
    size_t length = 0, capacity = 0;
    for (;;) {
        if (length == capacity) {
            size_t grown = capacity ? 2 * capacity : 1 << 16;
            char *bigger = grown > capacity ? realloc(text, grown) : NULL;
            if (!bigger) {
                free(text);
                fclose(file);
                return skim_fail(SKIM_ERROR_OUT_OF_MEMORY, "%s: out of memory reading the file", path);
            }
            text = bigger;
            capacity = grown;
        }
        size_t got = fread(text + length, 1, capacity - length, file);
        const char *nul = memchr(text + length, '\0', got);
        if (nul) {
            size_t at = (size_t)(nul - text);
            free(text);
            fclose(file);
            return skim_fail(SKIM_ERROR_FORMAT, "%s: byte %zu is NUL: not an OBJ text file", path, at);
        }
        length += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(file) != 0;
    int error = errno;
    fclose(file);
    if (failed) {
        free(text);
        return skim_fail(SKIM_ERROR_IO, "%s: cannot read: %s", path, strerror(error));
    }
    skim_status status = skim_mesh_parse_obj(text, length, path, out);
    free(text);
    return status;
}
