/* Mesh loading internals: the polygon triangulator the OBJ parser uses. */
#ifndef SKIM_MESH_INTERNAL_H
#define SKIM_MESH_INTERNAL_H

#include "base/skim_internal.h"

/* Scratch the triangulator reuses between polygons (no allocation per face
   once it has grown). */
typedef struct skim_polygon_scratch {
    float    *xy;        /* 2 per corner: the polygon in its own plane */
    uint32_t *next, *prev;
    size_t    capacity;
} skim_polygon_scratch;

void skim_polygon_scratch_free(skim_polygon_scratch *scratch);

/* Splits the polygon corners[0..count) (vertex indices into positions,
   count >= 3, counter-clockwise seen from the front) into count - 2
   triangles written to triangles (3 indices each), keeping the winding.
   Ear clipping in the polygon's plane (Newell normal); a polygon with no
   ear left (self-intersecting, or degenerate to a line) is finished as a
   fan. Returns false only when out of memory. */
bool skim_triangulate_polygon(const float *positions, const uint32_t *corners, uint32_t count,
                              skim_polygon_scratch *scratch, uint32_t *triangles);

/* Largest polygon a face may have: ear clipping is quadratic in the
   corners of one polygon, so the limit keeps loading linear in the file. */
#define SKIM_OBJ_MAX_FACE_CORNERS 1024u

/* Name to id lookup over a growing list of names (obj_names.c). */
typedef struct skim_obj_names {
    uint32_t *slots;
    size_t    slot_count;
} skim_obj_names;

void skim_obj_names_free(skim_obj_names *names);
/* True with *id when list (its names known to names) holds name. */
bool skim_obj_names_find(const skim_obj_names *names, char *const *list, const char *name, uint32_t *id);
/* Records that list[count - 1] was appended; false when out of memory. */
bool skim_obj_names_added(skim_obj_names *names, char *const *list, uint32_t count);

#endif
