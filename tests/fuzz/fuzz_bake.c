/* Fuzz target: the baked-world loader (skim_world_load) on arbitrary files.

   skim_world_load takes a path, so the input is written to an in-memory
   file (memfd) and loaded through /proc/self/fd/N: no disk traffic.

   Input: the first byte is a control byte, the rest is the file.
     bit 0: fix up the header's file_bytes to the file's size
     bit 1: recompute the checksum (format version 1, docs/bake_format.md)
   Without the fix-ups almost every mutation dies at the size or checksum
   check; with them the fuzzer reaches the section table, the counts and the
   tree validation, which is where a hostile file (a modder's, an old
   build's) can do harm. The fix-ups only touch a file that starts with the
   magic and version 1; for any other format they do nothing (the target
   then still checks that the loader rejects cleanly).

   What must hold (skim.h):
     - the status is SKIM_OK or SKIM_ERROR_FORMAT (SKIM_ERROR_OUT_OF_MEMORY
       tolerated), never a crash or an out-of-bounds read (ASan, UBSan);
     - a failed load leaves *out NULL and says why;
     - a loaded world answers skim_world_get_stats, and sweeps and moves
       through its bounds give SKIM_OK with finite outputs, t in [0, 1],
       unit normals, and a floor_triangle that is UINT32_MAX or a triangle
       index the file holds;
     - a loaded world saves and loads back, and the reloaded world answers
       every sweep bit for bit as the first did.
   SKIM_FUZZ_BAKE_DUMP=FILE writes the file as loaded (after the fix-ups),
   for triage. With SKIM_FUZZ_BAKE_STRICT=1 a loaded BVH world must also answer every
   sweep bit for bit as a brute-force world of the same triangles does
   (a crafted tree whose boxes do not hold their triangles passes the
   loader's structural checks and then misses hits). */
#include "fuzz_common.h"
#include "world/world.h"
#include "../bake_checksum.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static int memfd = -1;
static char memfd_path[64];
static char save_dir[64];
static bool strict;

static void remove_save_dir(void)
{
    rmdir(save_dir); /* empty: each save is removed after use */
}

static void setup(void)
{
    memfd = memfd_create("skim_fuzz_bake", MFD_CLOEXEC);
    if (memfd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(memfd_path, sizeof memfd_path, "/proc/self/fd/%d", memfd);
    snprintf(save_dir, sizeof save_dir, "/tmp/skim_fuzz_bake_XXXXXX");
    if (!mkdtemp(save_dir)) {
        perror("mkdtemp");
        abort();
    }
    atexit(remove_save_dir);
    const char *s = getenv("SKIM_FUZZ_BAKE_STRICT");
    strict = s && *s == '1';
}

static void write_file(const uint8_t *bytes, size_t size)
{
    if (ftruncate(memfd, 0) != 0 || (size && pwrite(memfd, bytes, size, 0) != (ssize_t)size)) {
        perror("memfd write");
        abort();
    }
}

/* ---- version-1 fix-ups: header layout and checksum of src/world/bake.c ---- */
#define MAGIC "SKIMBAKE"
enum { OFFSET_VERSION = 8, OFFSET_FILE_BYTES = 16, HEADER_BYTES = 128 };

static bool is_version_1(const uint8_t *file, size_t size)
{
    uint32_t version;
    if (size < HEADER_BYTES || memcmp(file, MAGIC, 8) != 0)
        return false;
    memcpy(&version, file + OFFSET_VERSION, 4);
    return version == 1;
}

static void fix_file_bytes(uint8_t *file, size_t size)
{
    uint64_t bytes = size;
    memcpy(file + OFFSET_FILE_BYTES, &bytes, 8);
}

/* ---- probing a loaded world ---- */
static void check_hit(const skim_hit *hit, skim_status status)
{
    FUZZ_CHECK(status == SKIM_OK, "sweep on a loaded world: %s", skim_status_string(status));
    if (!hit->hit)
        return;
    FUZZ_CHECK(hit->t >= 0.0f && hit->t <= 1.0f, "t = %.9g", (double)hit->t);
    FUZZ_CHECK(finite_vec(hit->point) && finite_vec(hit->normal), "non-finite hit");
    FUZZ_CHECK(fabs(vec_length(hit->normal) - 1) < 1e-4, "|normal| = %.9g", vec_length(hit->normal));
}

static bool same_hit(const skim_hit *a, const skim_hit *b)
{
    return a->hit == b->hit && memcmp(&a->t, &b->t, sizeof a->t) == 0 &&
           memcmp(&a->point, &b->point, sizeof a->point) == 0 &&
           memcmp(&a->normal, &b->normal, sizeof a->normal) == 0 && a->triangle == b->triangle;
}

#define PROBES 6

/* Sweeps from around the world's box through it: 6 directions. */
static void probes(const skim_world_stats *stats, skim_ellipsoid *shape, skim_vec3 *start,
                   skim_vec3 *delta)
{
    skim_vec3 lo = stats->bounds_min, hi = stats->bounds_max;
    double mid[3] = { 0.5 * lo.x + 0.5 * hi.x, 0.5 * lo.y + 0.5 * hi.y, 0.5 * lo.z + 0.5 * hi.z };
    double extent = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    /* The probe's radius (5% of the extent) must stay inside
       [SKIM_RADIUS_MIN, SKIM_RADIUS_MAX]; its path is 50 radii. */
    if (!isfinite(extent) || !(extent > 1e-3) || extent > 1e9)
        extent = 1.0;
    for (int i = 0; i < 3; ++i)
        if (!isfinite(mid[i]) || fabs(mid[i]) > 1e12)
            mid[i] = 0;
    float r = (float)(extent * 0.05);
    *shape = (skim_ellipsoid){ { r, r, r }, { 0, 0, 0, 1 } };
    for (int p = 0; p < PROBES; ++p) {
        int axis = p % 3;
        double sign = p < 3 ? 1 : -1;
        double s[3] = { mid[0] + 0.1 * extent, mid[1] - 0.07 * extent, mid[2] + 0.03 * extent };
        double d[3] = { 0, 0, 0 };
        s[axis] = mid[axis] + sign * extent;
        d[axis] = -sign * 2.5 * extent;
        start[p] = (skim_vec3){ (float)s[0], (float)s[1], (float)s[2] };
        delta[p] = (skim_vec3){ (float)d[0], (float)d[1], (float)d[2] };
    }
}

/* A brute-force world of the loaded world's triangles, in storage order;
   hits come back as storage positions, mapped through triangle_index. */
static skim_world *brute_copy(const skim_world *world)
{
    uint32_t n = world->triangle_count;
    float *positions = malloc(sizeof(float) * 9 * (n ? n : 1));
    uint32_t *indices = malloc(sizeof(uint32_t) * 3 * (n ? n : 1));
    uint16_t *materials = malloc(sizeof(uint16_t) * (n ? n : 1));
    FUZZ_CHECK(positions && indices && materials, "out of memory");
    for (uint32_t i = 0; i < n; ++i) {
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis)
                positions[9 * (size_t)i + 3 * v + axis] = world->vertex[v][axis][i];
        for (int v = 0; v < 3; ++v)
            indices[3 * (size_t)i + v] = 3 * i + (uint32_t)v;
        materials[i] = world->material[i];
    }
    skim_mesh mesh = { positions, 3 * n, indices, n, materials };
    skim_world_def def = skim_world_def_default();
    def.accelerator = SKIM_ACCELERATOR_BRUTE_FORCE;
    skim_world *copy = NULL;
    skim_status status = skim_world_create(&mesh, &def, &copy);
    free(positions);
    free(indices);
    free(materials);
    return status == SKIM_OK ? copy : NULL;
}

/* Finding a_bake_with_vertices_beyond_the_limit_is_refused
   (tests/hardening): the loader checks the structure and the checksum,
   not the triangles, so a checksummed file with a vertex beyond
   SKIM_COORDINATE_MAX (or NaN), or a triangle world.c would have dropped
   as degenerate (zero area, or a normal whose length overflows), loads,
   and sweeps through it return NaN normals. 1 left such worlds unprobed;
   fixed (d98da7b: the loader refuses them), so 0: a loaded world must
   never hold one. */
#define LOADED_TRIANGLES_KNOWN 0

/* world.c's test, same float operations (-ffp-contract=off). */
static bool degenerate(const float a[3], const float b[3], const float c[3])
{
    float ab[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    float ac[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
    float n[3] = { ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0] };
    float length_sq = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    return !(length_sq > 0.0f) || !isfinite(length_sq);
}

static bool triangles_world_would_refuse(const skim_world *world)
{
    for (uint32_t i = 0; i < world->triangle_count; ++i) {
        float corner[3][3];
        for (int v = 0; v < 3; ++v)
            for (int axis = 0; axis < 3; ++axis) {
                corner[v][axis] = world->vertex[v][axis][i];
                if (!(fabsf(corner[v][axis]) <= SKIM_COORDINATE_MAX))
                    return true;
            }
        if (degenerate(corner[0], corner[1], corner[2]))
            return true;
    }
    return false;
}

/* Finding a_huge_triangle_gives_a_finite_normal: a triangle reaching more
   than ~1e9 probe radii from the probe gave NaN normals with SKIM_OK even
   when built by skim_world_create. Since 252fb14 such a sweep is refused
   with SKIM_ERROR_INVALID_ARGUMENT; with 0 the probes accept that refusal
   for such worlds (and only for them), with 1 they skip them. */
#define FAR_TRIANGLES_KNOWN 0

/* Some vertex lies more than limit away from some probe start. */
static bool reaches_beyond(const skim_world *world, const skim_vec3 *starts, int count, double limit)
{
    for (uint32_t i = 0; i < world->triangle_count; ++i)
        for (int v = 0; v < 3; ++v)
            for (int p = 0; p < count; ++p) {
                double dx = world->vertex[v][0][i] - (double)starts[p].x;
                double dy = world->vertex[v][1][i] - (double)starts[p].y;
                double dz = world->vertex[v][2][i] - (double)starts[p].z;
                if (!(sqrt(dx * dx + dy * dy + dz * dz) <= limit))
                    return true;
            }
    return false;
}

static void check_loaded(skim_world *world)
{
#if LOADED_TRIANGLES_KNOWN
    if (triangles_world_would_refuse(world))
        return;
#else
    FUZZ_CHECK(!triangles_world_would_refuse(world),
               "a loaded world holds triangles skim_world_create refuses (beyond 1e18, NaN or degenerate)");
#endif
    skim_world_stats stats;
    FUZZ_CHECK(skim_world_get_stats(world, &stats) == SKIM_OK, "stats of a loaded world");
    FUZZ_CHECK(stats.loaded_from_file, "loaded_from_file not set");
    skim_ellipsoid shape;
    skim_vec3 start[PROBES], delta[PROBES];
    probes(&stats, &shape, start, delta);
    const bool far = reaches_beyond(world, start, PROBES, 1e9 * (double)shape.radii.x);
#if FAR_TRIANGLES_KNOWN
    if (far)
        return;
#endif
    skim_hit hits[PROBES];
    for (int p = 0; p < PROBES; ++p) {
        /* Refused: beyond what float resolves (far triangles, or a probe
           where floats are spaced wider than the precision rule allows). */
        const bool refusable = far || fuzz_beyond_precision(shape.radii.x, start[p], delta[p]);
        skim_status swept = skim_sweep(world, &shape, start[p], delta[p], NULL, &hits[p]);
        if (refusable && swept == SKIM_ERROR_INVALID_ARGUMENT)
            hits[p] = (skim_hit){ .hit = false };
        else
            check_hit(&hits[p], swept);
        skim_move_result moved;
        skim_status status = skim_move(world, &shape, start[p], delta[p], NULL, &moved);
        if (refusable && status == SKIM_ERROR_INVALID_ARGUMENT)
            continue;
        FUZZ_CHECK(status == SKIM_OK, "move on a loaded world: %s", skim_status_string(status));
        FUZZ_CHECK(finite_vec(moved.position), "move ended at a non-finite position");
        FUZZ_CHECK(!(moved.touched & SKIM_TOUCH_FLOOR) ||
                       (finite_vec(moved.floor_normal) && fabs(vec_length(moved.floor_normal) - 1) < 1e-4),
                   "floor normal");
    }

    /* Save and load back: the same answers. */
    char path[96];
    snprintf(path, sizeof path, "%s/world.skim", save_dir);
    skim_status status = skim_world_save(world, path);
    FUZZ_CHECK(status == SKIM_OK, "a loaded world does not save: %s", skim_status_string(status));
    skim_world *again = NULL;
    status = skim_world_load(path, &again);
    FUZZ_CHECK(status == SKIM_OK, "a saved world does not load back: %s", skim_status_string(status));
    for (int p = 0; p < PROBES; ++p) {
        skim_hit hit;
        skim_status swept = skim_sweep(again, &shape, start[p], delta[p], NULL, &hit);
        if ((far || fuzz_beyond_precision(shape.radii.x, start[p], delta[p])) &&
            swept == SKIM_ERROR_INVALID_ARGUMENT)
            continue;
        check_hit(&hit, swept);
        FUZZ_CHECK(same_hit(&hit, &hits[p]), "probe %d: the reloaded world answers differently", p);
    }
    skim_world_destroy(again);
    remove(path);

    if (strict && world->bvh) {
        skim_world *brute = brute_copy(world);
        FUZZ_CHECK(brute != NULL, "the loaded triangles do not make a world: %s", skim_last_error_message());
        for (int p = 0; p < PROBES; ++p) {
            skim_hit hit;
            check_hit(&hit, skim_sweep(brute, &shape, start[p], delta[p], NULL, &hit));
            if (hit.hit)
                hit.triangle = world->triangle_index[hit.triangle];
            FUZZ_CHECK(same_hit(&hit, &hits[p]),
                       "probe %d: the loaded BVH answers hit %d t %.9g, its triangles brute force %d t %.9g",
                       p, hits[p].hit, (double)hits[p].t, hit.hit, (double)hit.t);
        }
        skim_world_destroy(brute);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0)
        setup();
    if (size == 0)
        return 0;
    uint8_t control = data[0];
    size_t file_size = size - 1;
    uint8_t *file = malloc(file_size ? file_size : 1);
    FUZZ_CHECK(file != NULL, "out of memory");
    memcpy(file, data + 1, file_size);
    if (is_version_1(file, file_size)) {
        if (control & 1)
            fix_file_bytes(file, file_size);
        if (control & 2)
            bake_reseal(file, file_size);
    }
    write_file(file, file_size);
    const char *dump = getenv("SKIM_FUZZ_BAKE_DUMP"); /* triage: the file as loaded */
    if (dump && *dump) {
        FILE *f = fopen(dump, "wb");
        if (f) {
            fwrite(file, 1, file_size, f);
            fclose(f);
        }
    }
    free(file);

    skim_world *world = (skim_world *)&control; /* must be overwritten */
    skim_status status = skim_world_load(memfd_path, &world);
    if (status != SKIM_OK) {
        FUZZ_CHECK(status == SKIM_ERROR_FORMAT || status == SKIM_ERROR_OUT_OF_MEMORY,
                   "skim_world_load: unexpected status %d (%s)", (int)status, skim_status_string(status));
        FUZZ_CHECK(world == NULL, "a failed load left *out set");
        FUZZ_CHECK(skim_last_error_message()[0] != '\0', "a failed load without a message");
        return 0;
    }
    FUZZ_CHECK(world != NULL, "SKIM_OK without a world");
    check_loaded(world);
    skim_world_destroy(world);
    return 0;
}
