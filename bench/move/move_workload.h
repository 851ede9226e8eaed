/* The wandering crowd, shared by bench_move (skim_move_batch at
   1 and 2 threads) and bench_move_bullet (the same crowd through a slide
   loop on Bullet's sphere sweep), so that their numbers compare.

   The crowd: radius-16 spheres (Quake players), 320 u/s (320/60 units per
   frame) in a direction changed every second (staggered over movers), a
   per-mover fall speed under 800 u/s^2 added to the displacement and reset
   on landing, step 18, snap 8. Spawned on floors: on the default scene in
   the open half (y < 0), on a level at random points that have a floor
   below, a roof above and room around, on the terrain anywhere (on the
   ground or on a box). */
#ifndef SKIM_BENCH_MOVE_WORKLOAD_H
#define SKIM_BENCH_MOVE_WORKLOAD_H

#include <skim/skim.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { MOVE_SCENES = 4 };
/* "default", "oa_dm1", "oa_dm4_hull", "terrain" (generated: tools/terrain_scene.h). */
extern const char *const move_scene_names[MOVE_SCENES];

typedef struct move_scene {
    skim_mesh_data data;
    skim_world *world;
    skim_world_stats stats;
    float spawn_lo[3], spawn_hi[3]; /* where spawn points are drawn */
    bool need_roof;                 /* levels: spawn only under a roof */
} move_scene;

/* Scene s from scenes_dir (the levels; the default scene is built in).
   False with the reason in why when it cannot be loaded or built. */
bool move_scene_load(int s, const char *scenes_dir, move_scene *out, char *why, size_t why_size);
void move_scene_free(move_scene *scene);

typedef struct move_crowd {
    int count;
    skim_ellipsoid *shapes;
    skim_vec3 *start, *positions, *displacements;
    skim_move_result *results;
    float *heading, *fall;
    uint64_t steer_seed;  /* the steering's random state */
    long on_floor;        /* moves that ended touching a floor */
    uint64_t hash;        /* FNV-1a of every result's position and flags */
} move_crowd;

/* count spawn points drawn with *rng (xorshift64*). False when the scene
   has no room for them. */
bool move_crowd_spawn(move_crowd *c, const move_scene *scene, int count, uint64_t *rng);
void move_crowd_free(move_crowd *c);
/* Back to the spawn points, steering and counters reset. */
void move_crowd_reset(move_crowd *c);
/* The displacements of a frame. */
void move_crowd_steer(move_crowd *c, int frame);
/* Takes the frame's results: new positions, fall speeds reset on landing,
   the on-floor count and the hash. */
void move_crowd_advance(move_crowd *c);
/* The crowd's move def: skim_move_def_default() with step 18, snap 8. */
skim_move_def move_crowd_def(void);

double move_now(void);

/* The crowd options every move benchmark takes: --movers N, --frames N,
   --scene NAME|all, --scenes-dir DIR. */
typedef struct move_bench_options {
    int movers, frames;
    const char *scene;      /* one of move_scene_names, or "all" */
    const char *scenes_dir; /* SKIM_SCENES_DIR unless --scenes-dir */
} move_bench_options;
/* 10,000 movers, 300 frames, every scene, SKIM_SCENES_DIR. */
move_bench_options move_bench_defaults(void);
/* Takes argv[*i] and its value when it is one of those options, leaving
   *i on the value; false when it is not one of them or has no value. */
bool move_bench_option(int argc, char **argv, int *i, move_bench_options *o);
/* Whether scene s is one the options ask for, then loads it and spawns
   o->movers movers from the benches' one spawn seed (every scene from the
   same seed, so a scene's crowd, and its state hash, is the same whether
   it runs alone or after others). False when the scene is not asked for,
   or is skipped: then {"bench":BENCH,"scene":...,"skipped":...} is printed
   and nothing is left to free. */
bool move_bench_open(const char *bench, int s, const move_bench_options *o, move_scene *scene,
                     move_crowd *crowd);

/* Who else used the machine: wall clock, this process's CPU time, and the
   machine's busy and stolen CPU time (Linux /proc/stat; -1 elsewhere). */
typedef struct move_cpu_sample {
    double wall, own, busy, steal;
} move_cpu_sample;
void move_cpu_sample_now(move_cpu_sample *s);
/* Between two samples: cores kept busy by other processes on average, and
   cores stolen by the hypervisor (-1 when unknown). */
void move_cpu_others(const move_cpu_sample *a, const move_cpu_sample *b, double *others,
                     double *steal);

#ifdef __cplusplus
}
#endif

#endif
