/* Part of <skim/skim.h>; include that instead.

   Mesh loading (skim extension): Wavefront OBJ into a skim_mesh_data that
   skim_mesh_data_view() hands to skim_world_create().

   What is read:
     v x y z [w]          a vertex (w and trailing r g b vertex colours are ignored)
     f a b c ...          a polygon of 3 to 1024 corners, each "v", "v/vt", "v//vn" or
                          "v/vt/vn"; indices are 1-based, negative ones count back from
                          the last vertex read (-1 = the latest). Polygons are triangulated
                          by ear clipping in their own plane, so concave faces come out
                          right; a polygon that has no ear (self-intersecting or
                          degenerate) falls back to a fan from its first corner.
     o / g / usemtl NAME  the most recent of these names the material of the faces that
                          follow; each distinct name becomes one material id, numbered in
                          the order faces first use it, and skim_mesh_data.material_names
                          lists them. Faces before any name use "default".
   Everything else OBJ defines (vt, vn, vp, s, mtllib, l, p, curves, ...) is
   accepted and skipped; a line ending in a backslash continues on the next.

   Errors: SKIM_ERROR_IO when the file cannot be opened or read, or is not a
   regular file (a device, a FIFO, a folder);
   SKIM_ERROR_FORMAT for anything malformed (a truncated line, a bad or
   non-finite number, a coordinate beyond float range, index 0, an index out
   of range, a face of fewer than 3 or more than 1024 corners (ear clipping is
   quadratic in a polygon's corners; the bound keeps loading linear in the
   file), more than 65536 distinct names, an unknown statement, binary
   data (the read stops at the first NUL byte), a file with no faces). skim_last_error_message() then reads
   "FILE:LINE: reason", e.g. "level.obj:12: face corner 3: vertex index 9 is
   out of range (8 vertices so far)". On failure *out is left empty. */
#ifndef SKIM_SKIM_MESH_IO_H
#define SKIM_SKIM_MESH_IO_H
#include <skim/skim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the OBJ file at path. Free the result with skim_mesh_data_free(). */
SKIM_API skim_status skim_mesh_load_obj(const char *path, skim_mesh_data *out);

/* The same from memory: length bytes of OBJ text (need not be
   NUL-terminated). name is used in error messages in place of a file name
   (NULL = "<memory>"). */
SKIM_API skim_status skim_mesh_parse_obj(const char *text, size_t length, const char *name,
                                         skim_mesh_data *out);

#ifdef __cplusplus
}
#endif
#endif
