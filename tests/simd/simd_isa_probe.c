/* The SKIM_ISA probe: runs whole sweeps and whole moves over a scene through
   the public API, with whatever kernel set SKIM_ISA chose for this process,
   and prints one line digesting every result bit:

     isa=<set> status=ok sweeps=<hex> moves=<hex> batch=<hex> n=<count>
     isa=invalid status=error message=<skim_last_error_message()>

   test_simd_scenes.c runs it once per kernel set and compares the lines.
   Usage: simd_isa_probe SCENE COUNT   (SCENE: "default" or a level file) */
#include "simd_scene.h"

static uint64_t digest_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t digest_hit(uint64_t h, skim_status status, const skim_hit *hit)
{
    h = digest_bytes(h, &status, sizeof status);
    h = digest_bytes(h, &hit->hit, sizeof hit->hit);
    h = digest_bytes(h, &hit->t, sizeof hit->t);
    h = digest_bytes(h, &hit->point, sizeof hit->point);
    h = digest_bytes(h, &hit->normal, sizeof hit->normal);
    return digest_bytes(h, &hit->triangle, sizeof hit->triangle);
}

static uint64_t digest_move(uint64_t h, const skim_move_result *m)
{
    h = digest_bytes(h, &m->position, sizeof m->position);
    h = digest_bytes(h, &m->touched, sizeof m->touched);
    if (m->touched & SKIM_TOUCH_FLOOR) {
        h = digest_bytes(h, &m->floor_normal, sizeof m->floor_normal);
        h = digest_bytes(h, &m->floor_triangle, sizeof m->floor_triangle);
    }
    return digest_bytes(h, &m->iterations, sizeof m->iterations);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s SCENE COUNT\n", argv[0]);
        return 2;
    }
    if (skim_isa_status() != SKIM_OK) {
        printf("isa=invalid status=error message=%s\n", skim_last_error_message());
        return 0;
    }
    scene s;
    char why[512];
    if (!scene_open(argv[1], SKIM_ACCELERATOR_BVH, &s, why, sizeof why)) {
        printf("isa=%s status=absent message=%s\n", skim_isa_name(), why);
        return 0;
    }
    const long count = strtol(argv[2], NULL, 10);
    scene_sweep *sweeps = calloc((size_t)count, sizeof *sweeps);
    skim_ellipsoid *shapes = calloc((size_t)count, sizeof *shapes);
    skim_vec3 *starts = calloc((size_t)count, sizeof *starts);
    skim_vec3 *deltas = calloc((size_t)count, sizeof *deltas);
    skim_move_result *batch = calloc((size_t)count, sizeof *batch);
    if (!sweeps || !shapes || !starts || !deltas || !batch)
        return 2;
    rng r = { 0x2545f4914f6cdd1dull };
    uint64_t sweep_digest = 0xcbf29ce484222325ull, move_digest = sweep_digest;
    long hits = 0;
    bool moves_ok = true;
    skim_move_def def = skim_move_def_default();
    def.gravity = (skim_vec3){ 0, 0, -2 };
    for (long i = 0; i < count; ++i) {
        scene_sweep_make(&r, &s.mesh, &sweeps[i]);
        skim_query query = skim_query_default();
        query.cull_back_faces = sweeps[i].cull;
        skim_hit hit;
        skim_status status =
            skim_sweep(s.world, &sweeps[i].shape, sweeps[i].start, sweeps[i].delta, &query, &hit);
        sweep_digest = digest_hit(sweep_digest, status, &hit);
        hits += hit.hit;
        shapes[i] = sweeps[i].shape;
        starts[i] = sweeps[i].start;
        deltas[i] = sweeps[i].delta;
        skim_move_result moved;
        if (moves_ok && skim_move(s.world, &shapes[i], starts[i], deltas[i], &def, &moved) == SKIM_OK)
            move_digest = digest_move(move_digest, &moved);
        else
            moves_ok = false;
    }
    uint64_t batch_digest = 0xcbf29ce484222325ull;
    bool batch_ok = skim_move_batch(s.world, (size_t)count, shapes, starts, deltas, &def, batch) ==
                    SKIM_OK;
    for (long i = 0; batch_ok && i < count; ++i)
        batch_digest = digest_move(batch_digest, &batch[i]);
    printf("isa=%s status=ok sweeps=%016llx moves=", skim_isa_name(),
           (unsigned long long)sweep_digest);
    if (moves_ok)
        printf("%016llx", (unsigned long long)move_digest);
    else
        printf("unavailable");
    printf(" batch=");
    if (batch_ok)
        printf("%016llx", (unsigned long long)batch_digest);
    else
        printf("unavailable");
    printf(" n=%ld hits=%ld\n", count, hits);
    free(sweeps), free(shapes), free(starts), free(deltas), free(batch);
    scene_free(&s);
    return 0;
}
