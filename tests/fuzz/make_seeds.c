/* Writes the generated seed corpora of the fuzz targets:
     make_seeds DIR   writes DIR/bake/NAME.seed and DIR/sweep_move/NAME.seed
   (the OBJ seeds are hand-written text files in corpus/obj/). Run it again
   when the baked format's version changes (old seeds stay useful: they are
   still inputs the loader must reject cleanly). Deterministic: the same
   library writes the same files. */
#include <skim/skim.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *out_dir;

static void die(const char *what)
{
    fprintf(stderr, "make_seeds: %s: %s (%s)\n", what, skim_last_error_message(), strerror(errno));
    exit(1);
}

static void write_seed(const char *target, const char *name, const void *bytes, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", out_dir, target);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s.seed", out_dir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0)
        die(path);
}

/* ---- baked worlds: control byte 0 + a file skim_world_save wrote ---- */
static void bake_seed(const char *name, const float *soup, uint32_t triangles, const uint16_t *materials,
                      skim_accelerator accelerator, int max_leaf)
{
    uint32_t *indices = malloc(sizeof(uint32_t) * 3 * (triangles ? triangles : 1));
    for (uint32_t i = 0; i < 3 * triangles; ++i)
        indices[i] = i;
    skim_mesh mesh = { soup, 3 * triangles, indices, triangles, materials };
    skim_world_def def = skim_world_def_default();
    def.accelerator = accelerator;
    def.max_leaf_triangles = max_leaf;
    skim_world *world = NULL;
    if (skim_world_create(&mesh, &def, &world) != SKIM_OK)
        die("skim_world_create");
    free(indices);
    char path[512];
    snprintf(path, sizeof path, "%s/bake.tmp", out_dir);
    if (skim_world_save(world, path) != SKIM_OK)
        die("skim_world_save");
    skim_world_destroy(world);
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)size + 1);
    bytes[0] = 0; /* control: no fix-ups, the file as saved */
    if (fread(bytes + 1, 1, (size_t)size, f) != (size_t)size)
        die("read back");
    fclose(f);
    remove(path);
    write_seed("bake", name, bytes, (size_t)size + 1);
    free(bytes);
}

/* A deterministic scatter of triangles (xorshift). */
static uint32_t rng = 2463534242u;
static float frand(float lo, float hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

static void bake_seeds(void)
{
    static const float one[9] = { -10, -10, 0, 10, -10, 0, 0, 10, 0 };
    bake_seed("one_triangle_bvh", one, 1, NULL, SKIM_ACCELERATOR_BVH, 4);
    bake_seed("one_triangle_brute", one, 1, NULL, SKIM_ACCELERATOR_BRUTE_FORCE, 4);
    bake_seed("empty", one, 0, NULL, SKIM_ACCELERATOR_BVH, 4);
    float soup[9 * 64];
    uint16_t materials[64];
    for (int t = 0; t < 64; ++t) {
        float cx = frand(-100, 100), cy = frand(-100, 100), cz = frand(-20, 20);
        for (int v = 0; v < 3; ++v) {
            soup[9 * t + 3 * v + 0] = cx + frand(-8, 8);
            soup[9 * t + 3 * v + 1] = cy + frand(-8, 8);
            soup[9 * t + 3 * v + 2] = cz + frand(-8, 8);
        }
        materials[t] = (uint16_t)(t % 5);
    }
    bake_seed("scatter_20", soup, 20, materials, SKIM_ACCELERATOR_BVH, 4);
    bake_seed("scatter_64_leaf1", soup, 64, materials, SKIM_ACCELERATOR_BVH, 1);
    bake_seed("scatter_64_leaf16", soup, 64, materials, SKIM_ACCELERATOR_BVH, 16);
    /* A degenerate triangle is dropped: stride from 3 triangles, 2 kept. */
    float with_degenerate[27] = { -10, -10, 0, 10, -10, 0, 0, 10, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3,
                                  0, 0, 5, 10, 0, 5, 0, 10, 5 };
    bake_seed("degenerate_dropped", with_degenerate, 3, NULL, SKIM_ACCELERATOR_BVH, 4);
}

/* ---- sweep_move: the byte layout of fuzz_sweep_move.c ---- */
typedef struct buffer {
    unsigned char bytes[4096];
    size_t size;
} buffer;

static void put(buffer *b, unsigned v) { b->bytes[b->size++] = (unsigned char)v; }

/* The (coarse, fine) pair fuzz_range decodes to the value nearest v in [lo, hi]. */
static void put_range(buffer *b, double v, double lo, double hi)
{
    double step = (hi - lo) / 255.0;
    double c = floor((v - lo) / step);
    if (c < 0)
        c = 0;
    if (c > 255)
        c = 255;
    double rest = v - (lo + c * step);
    int fine = (int)lround(rest / (step * 0.5) * 128.0);
    put(b, (unsigned)c);
    if (fine > 0 && fine < 128)
        put(b, 0x80u | (unsigned)fine);
    else
        put(b, 0);
}

static void put_triangle(buffer *b, const double v[9], unsigned material)
{
    for (int i = 0; i < 9; ++i)
        put_range(b, v[i], -64, 64);
    put(b, material);
}

/* def bytes for the sane, plain layout: up +z, 5 iterations, skin ~0.01, 45 degrees. */
static void put_plain_def(buffer *b, unsigned up_axis_byte)
{
    put(b, up_axis_byte); /* 80..119: +z */
    put(b, 4);            /* 1 + 4 = 5 iterations */
    put(b, 10);           /* skin 10/255 * 0.25 ~ 0.0098 */
    put(b, 44);           /* 1 + 44 = 45 degrees */
}

static void put_query(buffer *b, unsigned op, unsigned kind, double r, const double start[3],
                      const double delta[3])
{
    put(b, op);
    put(b, kind);
    put_range(b, r, 0.25, 16);
    if (!(kind & 1)) {
        put_range(b, r * 0.5, 0.25, 16);
        put_range(b, r * 1.5, 0.25, 16);
    }
    for (int i = 0; i < 3; ++i)
        put_range(b, start[i], -80, 80);
    for (int i = 0; i < 3; ++i)
        put_range(b, delta[i], -128, 128);
}

static void sweep_move_seeds(void)
{
    /* A floor of two triangles and a wall: spheres fall, walk into the
       wall, sweep along the floor. */
    buffer b = { .size = 0 };
    put(&b, 0x00);
    put(&b, 2);
    put_triangle(&b, (double[]){ -40, -40, 0, 40, -40, 0, 40, 40, 0 }, 0);
    put_triangle(&b, (double[]){ -40, -40, 0, 40, 40, 0, -40, 40, 0 }, 0);
    put_triangle(&b, (double[]){ 10, -40, 0, 10, 40, 0, 10, 40, 30 }, 1);
    put_plain_def(&b, 100);
    put_query(&b, 0, 1, 4, (double[]){ 0, 0, 20 }, (double[]){ 0, 0, -40 });
    put_query(&b, 1, 1, 4, (double[]){ 0, 0, 4.1 }, (double[]){ 30, 3, -1 });
    put_query(&b, 1, 0, 3, (double[]){ -10, 5, 10 }, (double[]){ 40, 0, -30 });
    put_query(&b, 0, 0, 2, (double[]){ -30, 0, 2.5 }, (double[]){ 60, 0, 0 });
    write_seed("sweep_move", "floor_and_wall", b.bytes, b.size);

    /* The same, rotated ellipsoids, culling, a material mask and a rich def
       (steps, snapping, gravity, friction). */
    b.size = 0;
    put(&b, 0x02 | 0x04 | 0x08 | 0x10);
    put(&b, 3);
    put_triangle(&b, (double[]){ -40, -40, 0, 40, -40, 0, 40, 40, 0 }, 0);
    put_triangle(&b, (double[]){ -40, -40, 0, 40, 40, 0, -40, 40, 0 }, 2);
    put_triangle(&b, (double[]){ 10, -40, 0, 10, 40, 0, 10, 40, 30 }, 1);
    put_triangle(&b, (double[]){ 0, -40, 0, 0, 40, 0, 20, 40, 8 }, 3); /* a ramp */
    put(&b, 0x0f); /* mask low byte: materials 0..3 */
    put(&b, 0x00);
    put_plain_def(&b, 100);
    put_range(&b, 6, 0, 16);  /* step height */
    put_range(&b, 4, 0, 16);  /* snap */
    put_range(&b, 0, -32, 32);
    put_range(&b, 0, -32, 32);
    put_range(&b, -5, -32, 32); /* gravity */
    put(&b, 0); put(&b, 128); put(&b, 255); put(&b, 30);
    put(&b, 3); /* 4 friction entries */
    for (int q = 0; q < 4; ++q) {
        put_query(&b, (unsigned)(1 + 2 * (q & 1)), (unsigned)q, 3 + q,
                  (double[]){ -20 + 5 * q, 3 * q, 3.5 + q }, (double[]){ 40, 7, -2 });
        put(&b, 10 * q); put(&b, 20); put(&b, 30 * q); put(&b, 100); /* quaternion, int8 */
    }
    write_seed("sweep_move", "ramp_rich_def", b.bytes, b.size);

    /* An acute V: the slide's hardest case. */
    b.size = 0;
    put(&b, 0x10);
    put(&b, 1);
    put_triangle(&b, (double[]){ 0, -30, 0, 0, 30, 0, -40, 0, 40 }, 0);
    put_triangle(&b, (double[]){ 0, -30, 0, 0, 30, 0, 40, 0, 40 }, 0);
    put_plain_def(&b, 100);
    for (int i = 0; i < 8; ++i)
        put(&b, i * 13);
    put_query(&b, 1, 1, 5, (double[]){ -3, 0, 30 }, (double[]){ 2, 1, -60 });
    put_query(&b, 1, 0, 5, (double[]){ 3, 0, 30 }, (double[]){ 0, 0, -60 });
    write_seed("sweep_move", "acute_v", b.bytes, b.size);

    /* Wild mode: raw float bits (NaN, Inf, huge). */
    b.size = 0;
    put(&b, 0x01);
    put(&b, 0);
    const float wild[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, NAN, 1e38f, -1e-40f, INFINITY, 1, 1, 1, 0, 0, 0, 1 };
    for (size_t i = 0; i < sizeof wild / sizeof wild[0]; ++i) {
        uint32_t bits;
        memcpy(&bits, &wild[i], 4);
        for (int k = 0; k < 4; ++k)
            put(&b, bits >> (8 * k) & 0xff);
    }
    write_seed("sweep_move", "wild", b.bytes, b.size);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    out_dir = argv[1];
    mkdir(out_dir, 0777);
    bake_seeds();
    sweep_move_seeds();
    return 0;
}
