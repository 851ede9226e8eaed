/* Baked files against what happens to files on a server: a loaded world
   does not depend on its file any more (truncated, rewritten in place),
   saving never writes through a planted link, and running out of memory
   while loading is OUT_OF_MEMORY (never FORMAT, which a server might take
   for a corrupt file and delete). */
#include "hardening.h"
#include "../bake_checksum.h"

#include <fcntl.h>
#include <sys/stat.h>

/* The answers of a few sweeps across the small world, to compare. */
typedef struct answers {
    skim_hit hit[8];
} answers;

static answers sweep_answers(const skim_world *world)
{
    answers a;
    memset(&a, 0, sizeof a);
    const skim_ellipsoid shape = { { 1, 1, 1 }, { 0, 0, 0, 1 } };
    for (int i = 0; i < 8; ++i) {
        skim_vec3 start = { -15.0f + 4.0f * (float)i, -5, 3 };
        cr_assert_eq(skim_sweep(world, &shape, start, (skim_vec3){ 10, 0, -10 }, NULL, &a.hit[i]), SKIM_OK);
    }
    return a;
}

static void save_small_world(const scratch_dir *dir, const char *name, char *path, size_t size)
{
    scratch_file(dir, name, path, size);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    cr_assert_eq(skim_world_save(world, path), SKIM_OK, "%s", skim_last_error_message());
    skim_world_destroy(world);
}

/* `cp new.bake live.bake` truncates the live file, then writes it; a
   loaded world must keep answering as it did (it was SIGBUS at the next
   sweep), and so when the file is rewritten in place with other bytes
   (it was SIGSEGV: what the loader checked changed under it). */
Test(baked_files, a_loaded_world_outlives_changes_to_its_file)
{
    scratch_dir dir;
    scratch_make(&dir);
    char path[128];
    save_small_world(&dir, "live.bake", path, sizeof path);
    for (int change = 0; change < 2; ++change) {
        skim_world *world = NULL;
        cr_assert_eq(skim_world_load(path, &world), SKIM_OK, "%s", skim_last_error_message());
        const answers before = sweep_answers(world);
        struct stat info;
        cr_assert_eq(stat(path, &info), 0);
        int fd = open(path, O_RDWR);
        cr_assert_geq(fd, 0);
        if (change == 0) {
            cr_assert_eq(ftruncate(fd, 0), 0);
        } else {
            unsigned char *noise = malloc((size_t)info.st_size);
            for (off_t i = 0; i < info.st_size; ++i)
                noise[i] = (unsigned char)(0xFF ^ (i * 131));
            cr_assert_eq(pwrite(fd, noise, (size_t)info.st_size, 0), info.st_size);
            free(noise);
        }
        close(fd);
        const answers after = sweep_answers(world);
        cr_expect(memcmp(&before, &after, sizeof before) == 0, "the world answers differently after its file was %s",
                  change == 0 ? "truncated" : "rewritten");
        skim_world_stats stats;
        cr_expect_eq(skim_world_get_stats(world, &stats), SKIM_OK);
        cr_expect(stats.loaded_from_file);
        skim_world_destroy(world);
        save_small_world(&dir, "live.bake", path, sizeof path);
    }
    scratch_remove(&dir);
}

/* Someone who can write to the target's folder plants a link at the name
   a save would write first (it was PATH.tmpPID): the save must not write
   through it. The victim keeps its bytes, the target is a bake. */
Test(baked_files, world_save_never_writes_through_a_planted_link)
{
    scratch_dir dir;
    scratch_make(&dir);
    static const char precious[] = "precious bytes that are not a bake\n";
    scratch_write(&dir, "victim", precious, sizeof precious - 1);
    char victim[128], path[128], planted[160];
    scratch_file(&dir, "victim", victim, sizeof victim);
    scratch_file(&dir, "level.bake", path, sizeof path);
    snprintf(planted, sizeof planted, "%s.tmp%ld", path, (long)getpid());
    cr_assert_eq(symlink(victim, planted), 0);
    skim_world *world = small_world(SKIM_ACCELERATOR_BVH);
    cr_assert_eq(skim_world_save(world, path), SKIM_OK, "%s", skim_last_error_message());
    skim_world_destroy(world);
    char kept[128] = { 0 };
    FILE *f = fopen(victim, "rb");
    cr_assert_not_null(f);
    size_t n = fread(kept, 1, sizeof kept - 1, f);
    fclose(f);
    cr_expect(n == sizeof precious - 1 && memcmp(kept, precious, n) == 0, "the save wrote through the link");
    struct stat info;
    cr_expect(lstat(path, &info) == 0 && S_ISREG(info.st_mode), "the target is not a regular file");
    skim_world *loaded = NULL;
    cr_expect_eq(skim_world_load(path, &loaded), SKIM_OK, "%s", skim_last_error_message());
    skim_world_destroy(loaded);
    scratch_remove(&dir);
}

/* A resealed bake (checksum recomputed) with a reserved field set, or a
   stored triangle naming a mesh triangle that cannot exist: refused. */
Test(baked_files, resealed_reserved_fields_and_out_of_range_triangle_indices_are_refused)
{
    scratch_dir dir;
    scratch_make(&dir);
    char path[128], edited_path[128];
    save_small_world(&dir, "sealed.bake", path, sizeof path);
    scratch_file(&dir, "edited.bake", edited_path, sizeof edited_path);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    static unsigned char file[65536], edited[65536];
    size_t size = fread(file, 1, sizeof file, f);
    fclose(f);
    uint64_t index_offset;
    memcpy(&index_offset, file + 128 + 24 * 1 + 8, 8); /* section 2: TRIANGLE_INDEX */
    /* Bytes to set: header reserved (32, 84, 120), section reserved (132),
       the first stored triangle's mesh index (3 triangles: 3 and beyond). */
    const size_t at[5] = { 32, 84, 120, 128 + 4, (size_t)index_offset };
    const uint32_t value[5] = { 1, 1, 1, 1, 3 };
    for (int k = 0; k < 5; ++k) {
        memcpy(edited, file, size);
        memcpy(edited + at[k], &value[k], 4);
        bake_reseal(edited, size);
        scratch_write(&dir, "edited.bake", edited, size);
        skim_world *loaded = NULL;
        skim_status status = skim_world_load(edited_path, &loaded);
        cr_expect_eq(status, SKIM_ERROR_FORMAT, "byte %zu set: status %s", at[k], skim_status_string(status));
        skim_world_destroy(loaded);
    }
    scratch_remove(&dir);
}
