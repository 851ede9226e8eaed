/* skim_mesh_load_obj: reads the whole file, then parses it from memory
   (obj_parse.c). Reading in chunks rather than by the file's size also
   works for pipes and files that change size while read. */
#include "io/mesh_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
