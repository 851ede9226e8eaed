/**
 * @file skim_mesh_io.h
 * @brief Mesh loading (skim extension): Wavefront OBJ into a skim_mesh_data.
 *
 * Part of <skim/skim.h>; include that instead. What is read and which
 * errors come back is in docs/guide.md, "Worlds".
 */
#ifndef SKIM_SKIM_MESH_IO_H
#define SKIM_SKIM_MESH_IO_H
#include <skim/skim.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Loads the OBJ file at path; free the result with skim_mesh_data_free(). On failure *out is empty
    and skim_last_error_message() reads "FILE:LINE: reason". */
SKIM_API skim_status skim_mesh_load_obj(const char *path, skim_mesh_data *out);

/** The same from length bytes of OBJ text (need not end in NUL); name stands for the file in
    messages (NULL = "<memory>"). */
SKIM_API skim_status skim_mesh_parse_obj(const char *text, size_t length, const char *name,
                                         skim_mesh_data *out);

#ifdef __cplusplus
}
#endif
#endif
