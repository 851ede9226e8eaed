/* Baked worlds: a saved then loaded world answers identically; every
   truncation and every single-byte corruption of a small bake is
   SKIM_ERROR_FORMAT; foreign files too; a file whose checksum is right but
   whose tree is malformed is caught by the structural check, and one
   whose tree is not the tree of its triangles by the geometry check. */
#include "bvh/bvh.h"
#include "bvh_scenes.h"
#include "../bake_checksum.h"

#include <criterion/criterion.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

/* In memory (/dev/shm) when the system has it: the truncation test writes
   and loads the bake some forty thousand times, which a loaded disk makes
   slow; elsewhere in /tmp. */
static void temp_path(char *buffer, size_t size, const char *tag)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(buffer, size, "%s/skim_test_bake_%d_%s.skim", dir, (int)getpid(), tag);
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(*size);
    cr_assert_eq(fread(bytes, 1, *size, f), *size);
    fclose(f);
    return bytes;
}

static void write_all(const char *path, const unsigned char *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(bytes, 1, size, f), size);
    fclose(f);
}

static skim_world *world_of(const skim_mesh *mesh, skim_accelerator accelerator)
{
    skim_world_def def = skim_world_def_default();
    def.accelerator = accelerator;
    skim_world *w = NULL;
    cr_assert_eq(skim_world_create(mesh, &def, &w), SKIM_OK, "%s", skim_last_error_message());
    return w;
}

static void expect_same_answers(const skim_world *a, const skim_world *b, const skim_mesh *mesh, int count)
{
    scene_rng rng = { 77 };
    scene_query_mix mix = { .radius = 16.0f, .max_radii = 32.0f, .ellipsoid_share = 0.3f,
                            .contact_share = 0.2f, .huge_share = 0.05f, .options_share = 0.3f };
    float level = scene_level_size(a);
    int hits = 0;
    for (int i = 0; i < count; ++i) {
        scene_query q = scene_make_query(&rng, mesh, level, &mix);
        skim_hit x, y;
        cr_assert_eq(skim_sweep(a, &q.shape, q.start, q.delta, &q.query, &x), SKIM_OK);
        cr_assert_eq(skim_sweep(b, &q.shape, q.start, q.delta, &q.query, &y), SKIM_OK);
        cr_assert(scene_hits_identical(&x, &y), "query %d differs after a round trip", i);
        hits += x.hit;
    }
    cr_expect(hits > 0);
}

Test(bvh_bake, round_trip_answers_identically)
{
    skim_mesh_data data;
    cr_assert_eq(skim_scene_default(&data), SKIM_OK);
    skim_mesh mesh = skim_mesh_data_view(&data);
    char path[256];
    temp_path(path, sizeof path, "roundtrip");
    for (int accelerator = 0; accelerator < 2; ++accelerator) {
        skim_world *built = world_of(&mesh, (skim_accelerator)accelerator);
        cr_assert_eq(skim_world_save(built, path), SKIM_OK, "%s", skim_last_error_message());
        skim_world *loaded = NULL;
        cr_assert_eq(skim_world_load(path, &loaded), SKIM_OK, "%s", skim_last_error_message());
        skim_world_stats a, b;
        skim_world_get_stats(built, &a);
        skim_world_get_stats(loaded, &b);
        cr_assert(b.loaded_from_file && !a.loaded_from_file);
        cr_assert_eq(a.triangles, b.triangles);
        cr_assert_eq(a.nodes, b.nodes);
        cr_assert_eq(a.leaves, b.leaves);
        cr_assert_eq(a.depth, b.depth);
        cr_assert_eq(a.accelerator, b.accelerator);
        cr_assert_eq(memcmp(&a.sah_cost, &b.sah_cost, sizeof a.sah_cost), 0);
        cr_assert_eq(memcmp(&a.bounds_min, &b.bounds_min, sizeof a.bounds_min), 0);
        expect_same_answers(built, loaded, &mesh, 3000);
        /* Saving a loaded world gives the same bytes. */
        char again[256];
        temp_path(again, sizeof again, "again");
        cr_assert_eq(skim_world_save(loaded, again), SKIM_OK);
        size_t n1, n2;
        unsigned char *f1 = read_all(path, &n1), *f2 = read_all(again, &n2);
        cr_assert(n1 == n2 && memcmp(f1, f2, n1) == 0);
        free(f1);
        free(f2);
        remove(again);
        skim_world_destroy(loaded);
        skim_world_destroy(built);
    }
    remove(path);
    skim_mesh_data_free(&data);
}

/* A small world: a few dozen triangles, so its bake is a few kilobytes and
   every byte of it can be tried. */
static skim_world *small_world(skim_mesh_data *data)
{
    scene_rng rng = { 4 };
    cr_assert(scene_generate_terrain(6, 10.0f, 9, data)); /* 72 triangles */
    (void)rng;
    skim_mesh mesh = skim_mesh_data_view(data);
    return world_of(&mesh, SKIM_ACCELERATOR_BVH);
}

Test(bvh_bake, every_truncation_and_corruption_is_a_format_error, .timeout = 60)
{
    skim_mesh_data data;
    skim_world *w = small_world(&data);
    skim_world_stats stats;
    skim_world_get_stats(w, &stats);
    cr_assert(stats.nodes >= 2, "the small world should still have a multi-node tree");
    char path[256], bad[256];
    temp_path(path, sizeof path, "small");
    temp_path(bad, sizeof bad, "bad");
    cr_assert_eq(skim_world_save(w, path), SKIM_OK);
    size_t size;
    unsigned char *bytes = read_all(path, &size);
    cr_assert(size > 1000 && size < 16384, "%zu bytes", size);

    /* Every edit is made in a memory file (memfd) and loaded through
       /proc/self/fd: the loader's own path, without a disk write per try. */
    int memfd = memfd_create("skim_bake", MFD_CLOEXEC);
    cr_assert_geq(memfd, 0);
    char in_memory[64];
    snprintf(in_memory, sizeof in_memory, "/proc/self/fd/%d", memfd);
    cr_assert_eq(pwrite(memfd, bytes, size, 0), (ssize_t)size);
    /* Two corruptions per byte: every bit flipped, and one added (a carry). */
    for (size_t at = 0; at < size; ++at) {
        for (int kind = 0; kind < 2; ++kind) {
            unsigned char damaged = kind == 0 ? (unsigned char)~bytes[at] : (unsigned char)(bytes[at] + 1);
            cr_assert_eq(pwrite(memfd, &damaged, 1, (off_t)at), 1);
            skim_world *loaded = NULL;
            skim_status status = skim_world_load(in_memory, &loaded);
            cr_assert_eq(pwrite(memfd, bytes + at, 1, (off_t)at), 1);
            cr_assert_eq(status, SKIM_ERROR_FORMAT, "byte %zu corrupted (%d): status %d", at, kind, status);
            cr_assert_null(loaded);
        }
    }
    /* Every truncation, longest first (each keeps the bytes before it). */
    for (size_t length = size; length-- > 0;) {
        cr_assert_eq(ftruncate(memfd, (off_t)length), 0);
        skim_world *loaded = (skim_world *)1;
        skim_status status = skim_world_load(in_memory, &loaded);
        cr_assert_eq(status, SKIM_ERROR_FORMAT, "truncated to %zu bytes: status %d", length, status);
        cr_assert_null(loaded);
    }
    close(memfd);
    /* Grown by a block of zeros: the size no longer matches. */
    unsigned char *longer = calloc(size + 64, 1);
    memcpy(longer, bytes, size);
    write_all(bad, longer, size + 64);
    skim_world *loaded = NULL;
    cr_assert_eq(skim_world_load(bad, &loaded), SKIM_ERROR_FORMAT);
    free(longer);

    /* The untouched file still loads. */
    cr_assert_eq(skim_world_load(path, &loaded), SKIM_OK);
    skim_world_destroy(loaded);
    remove(bad);
    remove(path);
    free(bytes);
    skim_world_destroy(w);
    skim_mesh_data_free(&data);
}

/* Reseals the edited bake in bytes, writes it to path and loads it. */
static skim_status load_resealed(unsigned char *bytes, size_t size, const char *path,
                                 skim_world **out)
{
    bake_reseal(bytes, size);
    write_all(path, bytes, size);
    return skim_world_load(path, out);
}

/* The node section's offset: the last section, read from the table. */
static uint64_t nodes_offset_of(const unsigned char *bytes)
{
    uint64_t offset;
    memcpy(&offset, bytes + 128 + 3 * 24 + 8, 8);
    return offset;
}

/* With a valid checksum, a tree that points backwards (a cycle) or leaves
   the triangles is still refused: the structural check does not trust the
   writer. */
Test(bvh_bake, resealed_malformed_trees_are_refused)
{
    skim_mesh_data data;
    skim_world *w = small_world(&data);
    char path[256], bad[256];
    temp_path(path, sizeof path, "seal");
    temp_path(bad, sizeof bad, "sealbad");
    cr_assert_eq(skim_world_save(w, path), SKIM_OK);
    size_t size;
    unsigned char *bytes = read_all(path, &size);
    /* Reseal the untouched file first: the test's checksum must match. */
    skim_world *loaded = NULL;
    cr_assert_eq(load_resealed(bytes, size, bad, &loaded), SKIM_OK, "%s", skim_last_error_message());
    skim_world_destroy(loaded);

    /* Node 0's first child reference. */
    size_t child0 = nodes_offset_of(bytes) + offsetof(skim_bvh_node, child);
    uint32_t original;
    memcpy(&original, bytes + child0, 4);
    const uint32_t faults[] = {
        0,                                   /* node 0 as its own child: a cycle */
        5000,                                /* past the last node */
        skim_bvh_leaf_ref(70, 4),            /* leaf past the 72 triangles */
    };
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; ++f) {
        memcpy(bytes + child0, &faults[f], 4);
        skim_status status = load_resealed(bytes, size, bad, &loaded);
        cr_assert_eq(status, SKIM_ERROR_FORMAT, "fault %zu accepted", f);
        cr_assert(strstr(skim_last_error_message(), "node") != NULL, "%s", skim_last_error_message());
    }
    memcpy(bytes + child0, &original, 4);
    /* A version from the future. */
    uint32_t version = 3;
    memcpy(bytes + 8, &version, 4);
    cr_assert_eq(load_resealed(bytes, size, bad, &loaded), SKIM_ERROR_FORMAT);
    cr_assert(strstr(skim_last_error_message(), "version") != NULL);
    remove(bad);
    remove(path);
    free(bytes);
    skim_world_destroy(w);
    skim_mesh_data_free(&data);
}

/* With a valid checksum and a sound structure, a tree that is not the tree
   of its triangles is refused too: a child box moved off its triangles, a
   triangle left out of every leaf, a triangle in two leaves. Each would
   make sweeps pass through geometry without a word. */
Test(bvh_bake, resealed_trees_that_lose_triangles_are_refused, .timeout = 60)
{
    skim_mesh_data data;
    skim_world *w = small_world(&data);
    char path[256], bad[256];
    temp_path(path, sizeof path, "geom");
    temp_path(bad, sizeof bad, "geombad");
    cr_assert_eq(skim_world_save(w, path), SKIM_OK);
    size_t size;
    unsigned char *bytes = read_all(path, &size);
    skim_world_stats stats;
    skim_world_get_stats(w, &stats);
    const uint64_t nodes_offset = nodes_offset_of(bytes);
    static const int lo_row[3] = { SKIM_BVH_LO_X, SKIM_BVH_LO_Y, SKIM_BVH_LO_Z };
    skim_world *loaded = NULL;
    int refused = 0, leaves = 0;
    for (uint32_t n = 0; n < stats.nodes; ++n) {
        unsigned char *node = bytes + nodes_offset + (size_t)n * sizeof(skim_bvh_node);
        uint8_t mask = node[offsetof(skim_bvh_node, child_mask)];
        for (uint32_t slot = 0; slot < SKIM_BVH_WIDTH; ++slot) {
            if (!((mask >> slot) & 1u))
                continue;
            /* The box's lower bound on one axis lifted to the node's top:
               no triangle below it has a vertex that high on every axis. */
            for (int axis = 0; axis < 3; ++axis) {
                unsigned char *lo = node + offsetof(skim_bvh_node, bounds) + lo_row[axis] * SKIM_BVH_WIDTH + slot;
                const unsigned char saved = *lo;
                *lo = 255;
                skim_status status = load_resealed(bytes, size, bad, &loaded);
                *lo = saved;
                cr_assert_eq(status, SKIM_ERROR_FORMAT, "node %u slot %u axis %d: box off its triangles accepted", n, slot, axis);
                cr_assert(strstr(skim_last_error_message(), "box") != NULL, "%s", skim_last_error_message());
                ++refused;
            }
            uint32_t ref;
            unsigned char *child = node + offsetof(skim_bvh_node, child) + 4 * slot;
            memcpy(&ref, child, 4);
            if (!skim_bvh_is_leaf(ref))
                continue;
            ++leaves;
            /* One triangle fewer (a leaf of one dropped from the tree):
               that triangle is in no leaf. One more, where it fits: a
               triangle in two leaves, or, at the end, past them all (the
               structural check). */
            const uint32_t first = skim_bvh_leaf_first(ref), count = skim_bvh_leaf_count(ref);
            const uint32_t shorter = count > 1 ? skim_bvh_leaf_ref(first, count - 1) : SKIM_BVH_EMPTY_CHILD;
            const uint8_t shorter_mask = count > 1 ? mask : (uint8_t)(mask & ~(1u << slot));
            const uint32_t longer = skim_bvh_leaf_ref(first, count + 1);
            for (int kind = 0; kind < (count < SKIM_BVH_MAX_LEAF ? 2 : 1); ++kind) {
                memcpy(child, kind == 0 ? &shorter : &longer, 4);
                if (kind == 0)
                    node[offsetof(skim_bvh_node, child_mask)] = shorter_mask;
                skim_status status = load_resealed(bytes, size, bad, &loaded);
                memcpy(child, &ref, 4);
                node[offsetof(skim_bvh_node, child_mask)] = mask;
                cr_assert_eq(status, SKIM_ERROR_FORMAT, "node %u slot %u: leaf of %u made %s accepted", n, slot,
                             count, kind == 0 ? "shorter" : "longer");
                ++refused;
            }
        }
    }
    cr_assert_gt(leaves, 10, "too few leaves (%d) to mean anything", leaves);
    /* The untouched file, resealed by the same code, loads. */
    cr_assert_eq(load_resealed(bytes, size, bad, &loaded), SKIM_OK, "%s", skim_last_error_message());
    skim_world_destroy(loaded);
    cr_log_info("%d resealed faults refused", refused);
    remove(bad);
    remove(path);
    free(bytes);
    skim_world_destroy(w);
    skim_mesh_data_free(&data);
}

/* With a valid checksum, header bounds that are not the triangles' are
   refused, for both accelerators: the far-triangle test and the moves'
   order read the bounds instead of the triangles, so bounds shrunk by a
   writer would send far triangles down the float fast path unnoticed.
   Grown bounds are refused too: skim never writes them. */
Test(bvh_bake, resealed_bounds_that_are_not_the_triangles_are_refused)
{
    skim_mesh_data data;
    cr_assert(scene_generate_terrain(6, 10.0f, 9, &data));
    skim_mesh mesh = skim_mesh_data_view(&data);
    const skim_accelerator kinds[2] = { SKIM_ACCELERATOR_BVH, SKIM_ACCELERATOR_BRUTE_FORCE };
    char path[256], bad[256];
    temp_path(path, sizeof path, "bounds");
    temp_path(bad, sizeof bad, "boundsbad");
    enum { BOUNDS_AT = 96 }; /* bounds_min[3], then bounds_max[3] */
    int refused = 0;
    for (int kind = 0; kind < 2; ++kind) {
        skim_world *w = world_of(&mesh, kinds[kind]);
        cr_assert_eq(skim_world_save(w, path), SKIM_OK);
        size_t size;
        unsigned char *bytes = read_all(path, &size);
        float bounds[6];
        memcpy(bounds, bytes + BOUNDS_AT, sizeof bounds);
        skim_world_stats stats;
        skim_world_get_stats(w, &stats);
        cr_assert_eq(bounds[0], stats.bounds_min.x, "the header's bounds are at byte %d", BOUNDS_AT);
        cr_assert_eq(bounds[5], stats.bounds_max.z);
        skim_world *loaded = NULL;
        cr_assert_eq(load_resealed(bytes, size, bad, &loaded), SKIM_OK, "%s", skim_last_error_message());
        skim_world_destroy(loaded);
        for (int k = 0; k < 6; ++k)
            for (int grow = 0; grow < 2; ++grow) {
                float edited[6];
                memcpy(edited, bounds, sizeof edited);
                /* Inward or outward by a little: one float step, then 1. */
                const bool lower = k < 3;
                const float out = lower ? -1.0f : 1.0f;
                edited[k] = grow ? edited[k] + out : nextafterf(edited[k], edited[k] - out);
                memcpy(bytes + BOUNDS_AT, edited, sizeof edited);
                loaded = NULL;
                skim_status status = load_resealed(bytes, size, bad, &loaded);
                cr_assert_eq(status, SKIM_ERROR_FORMAT, "accelerator %d, bound %d %s: status %d", kind, k,
                             grow ? "grown" : "shrunk", status);
                cr_assert_null(loaded);
                cr_assert(strstr(skim_last_error_message(), "bounds") != NULL, "%s",
                          skim_last_error_message());
                ++refused;
            }
        free(bytes);
        skim_world_destroy(w);
    }
    cr_assert_eq(refused, 24);
    remove(bad);
    remove(path);
    skim_mesh_data_free(&data);
}

Test(bvh_bake, foreign_missing_and_bad_arguments)
{
    char path[256];
    temp_path(path, sizeof path, "foreign");
    const char *obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    unsigned char block[256];
    memset(block, 0, sizeof block);
    memcpy(block, obj, strlen(obj));
    write_all(path, block, sizeof block);
    skim_world *loaded = NULL;
    cr_assert_eq(skim_world_load(path, &loaded), SKIM_ERROR_FORMAT);
    write_all(path, block, 0);
    cr_assert_eq(skim_world_load(path, &loaded), SKIM_ERROR_FORMAT);
    remove(path);
    cr_assert_eq(skim_world_load("/nonexistent/dir/world.skim", &loaded), SKIM_ERROR_IO);
    cr_assert_null(loaded);
    cr_assert_eq(skim_world_load(NULL, &loaded), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_world_load(path, NULL), SKIM_ERROR_INVALID_ARGUMENT);
    skim_mesh_data data;
    skim_world *w = small_world(&data);
    cr_assert_eq(skim_world_save(NULL, path), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_world_save(w, NULL), SKIM_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(skim_world_save(w, "/nonexistent/dir/world.skim"), SKIM_ERROR_IO);
    skim_world_destroy(w);
    skim_mesh_data_free(&data);
}

/* A world with no triangle left (all degenerate) bakes and loads too. */
Test(bvh_bake, empty_world)
{
    const float flat[9] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
    const uint32_t indices[3] = { 0, 1, 2 };
    skim_mesh mesh = { .positions = flat, .vertex_count = 3, .indices = indices, .triangle_count = 1 };
    skim_world *w = world_of(&mesh, SKIM_ACCELERATOR_BVH);
    char path[256];
    temp_path(path, sizeof path, "empty");
    cr_assert_eq(skim_world_save(w, path), SKIM_OK);
    skim_world *loaded = NULL;
    cr_assert_eq(skim_world_load(path, &loaded), SKIM_OK, "%s", skim_last_error_message());
    skim_world_stats s;
    skim_world_get_stats(loaded, &s);
    cr_assert_eq(s.triangles, 0);
    cr_assert_eq(s.degenerate_triangles, 1);
    skim_ellipsoid ball = { { 1, 1, 1 }, { 0, 0, 0, 1 } };
    skim_hit hit;
    cr_assert_eq(skim_sweep(loaded, &ball, (skim_vec3){ 0, 0, 0 }, (skim_vec3){ 5, 0, 0 }, NULL, &hit), SKIM_OK);
    cr_assert(!hit.hit);
    remove(path);
    skim_world_destroy(loaded);
    skim_world_destroy(w);
}
