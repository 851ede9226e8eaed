/* The world's storage: its triangles as structure of arrays, the BVH over
   them (bvh/), and the ownership of both (a heap block or a mapped file). */
#ifndef SKIM_WORLD_H
#define SKIM_WORLD_H

#include "base/skim_internal.h"
#include "world/body.h"

/* ---- the world ---- */
struct skim_bvh;

/* Triangles are stored as structure of arrays, the way the packet kernels
   and the gather read them: vertex[v][axis][i] is coordinate axis of corner
   v of the i-th triangle in storage order (BVH leaf order when a BVH is
   built, so every leaf is a contiguous run). Each array holds stride lanes:
   the triangle count rounded up to a whole packet plus one spare packet, so
   a 4/8/16-lane load starting at any triangle stays inside the array. Lanes
   past triangle_count are zero. */
struct skim_world {
    uint32_t triangle_count;       /* kept triangles */
    uint32_t degenerate_count;     /* dropped at build */
    uint32_t stride;               /* lanes per array, see above */
    const float    *vertex[3][3];  /* vertex[v][axis][i]: v = a, b, c; axis = x, y, z */
    const uint32_t *triangle_index;/* caller's index per stored triangle */
    const uint16_t *material;      /* material per stored triangle */
    uint32_t *by_caller;           /* stored indices in increasing caller's index */
    skim_accelerator accelerator;
    struct skim_bvh *bvh;          /* NULL for brute force */
    skim_vec3 bounds_min, bounds_max;
    double    build_seconds;
    /* Ownership: one owned heap block holding all the arrays, either
       built (owned_storage) or a loaded file's bytes (file_block); freed
       on destroy. */
    void     *owned_storage;
    void     *file_block;
    /* Moving bodies (body.h), and how many bodies of other worlds use
       this one as their shape (atomic: two worlds may add it at once). */
    skim_body_table bodies;
    uint32_t  shape_uses;
};

/* Lanes per triangle array for count triangles (see struct skim_world). */
uint32_t skim_world_stride(uint32_t triangle_count);
/* Bytes of the triangle arrays for a stride: 9 float arrays, the caller's
   indices and the materials, each array starting on a 64-byte boundary. */
size_t   skim_world_storage_bytes(uint32_t stride);
/* Points world's arrays into block (64-byte aligned, skim_world_storage_bytes long). */
void     skim_world_bind_storage(skim_world *world, void *block, uint32_t stride);
/* Zeroes block's lanes from count to each array's 64-byte-aligned end (the
   padding a packet load past the last triangle may read); the lanes below
   count are the caller's to write. */
void     skim_world_zero_padding(void *block, uint32_t stride, uint32_t count);

/* The lookup of stored triangles by the caller's index (world_triangles.c),
   made when a world is built or loaded: skim_world_stored_of gives the
   stored index of the caller's triangle, or UINT32_MAX when the world does
   not hold it. */
skim_status skim_world_index_triangles(skim_world *world);
uint32_t    skim_world_stored_of(const skim_world *world, uint32_t triangle);
/* Stored triangle `stored`'s corners as doubles. */
void        skim_stored_corners(const skim_world *world, uint32_t stored, double corner[3][3]);

#endif /* SKIM_WORLD_H */
