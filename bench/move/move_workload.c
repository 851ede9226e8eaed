/* The wandering crowd (move_workload.h). */
#include "move_workload.h"
#include "terrain_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const move_scene_names[MOVE_SCENES] = { "default", "oa_dm1", "oa_dm4_hull", "terrain" };

static const skim_ellipsoid player = { { 16, 16, 16 }, { 0, 0, 0, 1 } };

double move_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

move_bench_options move_bench_defaults(void)
{
    return (move_bench_options){ .movers = 10000, .frames = 300, .scene = "all",
                                 .scenes_dir = getenv("SKIM_SCENES_DIR") };
}

bool move_bench_option(int argc, char **argv, int *i, move_bench_options *o)
{
    if (*i + 1 >= argc)
        return false;
    const char *option = argv[*i], *value = argv[*i + 1];
    if (!strcmp(option, "--movers"))
        o->movers = atoi(value);
    else if (!strcmp(option, "--frames"))
        o->frames = atoi(value);
    else if (!strcmp(option, "--scene"))
        o->scene = value;
    else if (!strcmp(option, "--scenes-dir"))
        o->scenes_dir = value;
    else
        return false;
    ++*i;
    return true;
}

bool move_bench_open(const char *bench, int s, const move_bench_options *o, move_scene *scene,
                     move_crowd *crowd)
{
    const char *name = move_scene_names[s];
    if (strcmp(o->scene, "all") && strcmp(o->scene, name))
        return false;
    char why[512];
    if (!move_scene_load(s, o->scenes_dir, scene, why, sizeof why)) {
        printf("{\"bench\":\"%s\",\"scene\":\"%s\",\"skipped\":\"%s\"}\n", bench, name, why);
        return false;
    }
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    if (!move_crowd_spawn(crowd, scene, o->movers, &rng)) {
        printf("{\"bench\":\"%s\",\"scene\":\"%s\",\"skipped\":\"no room for %d movers\"}\n",
               bench, name, o->movers);
        move_crowd_free(crowd);
        move_scene_free(scene);
        return false;
    }
    return true;
}

static double uniform(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

bool move_scene_load(int s, const char *scenes_dir, move_scene *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    skim_status status;
    if (s == 0) {
        status = skim_scene_default(&out->data);
    } else if (s == 3) {
        status = terrain_scene_generate(&out->data) ? SKIM_OK : SKIM_ERROR_OUT_OF_MEMORY;
        if (status != SKIM_OK) {
            snprintf(why, why_size, "out of memory generating the terrain");
            return false;
        }
    } else {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.obj", scenes_dir ? scenes_dir : ".",
                 move_scene_names[s]);
        status = skim_mesh_load_obj(path, &out->data);
    }
    if (status != SKIM_OK) {
        snprintf(why, why_size, "%s", skim_last_error_message());
        return false;
    }
    skim_mesh mesh = skim_mesh_data_view(&out->data);
    if (skim_world_create(&mesh, NULL, &out->world) != SKIM_OK) {
        snprintf(why, why_size, "%s", skim_last_error_message());
        skim_mesh_data_free(&out->data);
        return false;
    }
    skim_world_get_stats(out->world, &out->stats);
    const skim_world_stats *st = &out->stats;
    const float lo[3] = { st->bounds_min.x, st->bounds_min.y, st->bounds_min.z };
    const float hi[3] = { st->bounds_max.x, st->bounds_max.y, st->bounds_max.z };
    memcpy(out->spawn_lo, lo, sizeof lo);
    memcpy(out->spawn_hi, hi, sizeof hi);
    if (s == 0) { /* the open half */
        const float open_lo[3] = { -2000, -2000, 20 }, open_hi[3] = { 2000, -100, 60 };
        memcpy(out->spawn_lo, open_lo, sizeof open_lo);
        memcpy(out->spawn_hi, open_hi, sizeof open_hi);
    }
    if (s == 3) { /* above everything, anywhere across */
        out->spawn_lo[2] = hi[2] + 20.0f;
        out->spawn_hi[2] = hi[2] + 40.0f;
    }
    out->need_roof = s == 1 || s == 2;
    return true;
}

void move_scene_free(move_scene *scene)
{
    skim_world_destroy(scene->world);
    skim_mesh_data_free(&scene->data);
}

/* A spawn point: a floor below (walkable, within 4096), something above (a
   roof or sky brush: inside the level), nothing touching. */
static bool spawn_at(const skim_world *world, skim_vec3 probe, bool need_roof, skim_vec3 *out)
{
    skim_hit down, up, here;
    if (skim_sweep(world, &player, probe, (skim_vec3){ 0, 0, -4096 }, NULL, &down) != SKIM_OK ||
        !down.hit || down.t == 0.0f || down.normal.z < 0.7f)
        return false;
    if (need_roof && (skim_sweep(world, &player, probe, (skim_vec3){ 0, 0, 4096 }, NULL, &up) !=
                          SKIM_OK || !up.hit))
        return false;
    skim_vec3 p = { probe.x, probe.y, probe.z - 4096.0f * down.t + 0.2f };
    if (skim_sweep(world, &player, p, (skim_vec3){ 0, 0, 0.01f }, NULL, &here) != SKIM_OK ||
        here.hit)
        return false;
    *out = p;
    return true;
}

bool move_crowd_spawn(move_crowd *c, const move_scene *scene, int count, uint64_t *rng)
{
    memset(c, 0, sizeof *c);
    c->count = count;
    c->shapes = malloc((size_t)count * sizeof *c->shapes);
    c->start = malloc((size_t)count * sizeof *c->start);
    c->positions = malloc((size_t)count * sizeof *c->positions);
    c->displacements = malloc((size_t)count * sizeof *c->displacements);
    c->results = malloc((size_t)count * sizeof *c->results);
    c->heading = malloc((size_t)count * sizeof *c->heading);
    c->fall = malloc((size_t)count * sizeof *c->fall);
    if (!c->shapes || !c->start || !c->positions || !c->displacements || !c->results ||
        !c->heading || !c->fall)
        return false;
    const float *lo = scene->spawn_lo, *hi = scene->spawn_hi;
    int placed = 0;
    for (long tries = 0; placed < count && tries < 400L * count; ++tries) {
        skim_vec3 probe = { lo[0] + (hi[0] - lo[0]) * (float)uniform(rng),
                            lo[1] + (hi[1] - lo[1]) * (float)uniform(rng),
                            lo[2] + (hi[2] - lo[2]) * (float)uniform(rng) };
        if (spawn_at(scene->world, probe, scene->need_roof, &c->start[placed]))
            placed++;
    }
    for (int i = 0; i < count; ++i)
        c->shapes[i] = player;
    return placed == count;
}

void move_crowd_free(move_crowd *c)
{
    free(c->shapes);
    free(c->start);
    free(c->positions);
    free(c->displacements);
    free(c->results);
    free(c->heading);
    free(c->fall);
}

static float random_heading(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((*seed >> 11) * (1.0 / 9007199254740992.0)) * 6.2831853f;
}

void move_crowd_reset(move_crowd *c)
{
    memcpy(c->positions, c->start, (size_t)c->count * sizeof *c->positions);
    c->steer_seed = 12345;
    for (int i = 0; i < c->count; ++i) {
        c->heading[i] = random_heading(&c->steer_seed);
        c->fall[i] = 0;
    }
    c->on_floor = 0;
    c->hash = 1469598103934665603ull;
}

void move_crowd_steer(move_crowd *c, int frame)
{
    for (int i = 0; i < c->count; ++i) {
        if ((frame + i) % 60 == 0)
            c->heading[i] = random_heading(&c->steer_seed);
        c->fall[i] -= 800.0f / 60.0f;
        c->displacements[i] = (skim_vec3){ 320.0f / 60.0f * cosf(c->heading[i]),
                                           320.0f / 60.0f * sinf(c->heading[i]),
                                           c->fall[i] / 60.0f };
    }
}

static uint64_t hash_bytes(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; ++i) {
        h ^= p[i];
        h *= 1099511628211ull; /* FNV-1a */
    }
    return h;
}

void move_crowd_advance(move_crowd *c)
{
    for (int i = 0; i < c->count; ++i) {
        const skim_move_result *r = &c->results[i];
        c->hash = hash_bytes(c->hash, &r->position, sizeof r->position);
        c->hash = hash_bytes(c->hash, &r->touched, sizeof r->touched);
        c->positions[i] = r->position;
        if (r->touched & SKIM_TOUCH_FLOOR) {
            c->fall[i] = 0;
            c->on_floor++;
        }
    }
}

skim_move_def move_crowd_def(void)
{
    skim_move_def def = skim_move_def_default();
    def.step_height = 18;
    def.snap_distance = 8;
    return def;
}

void move_cpu_sample_now(move_cpu_sample *s)
{
    s->wall = move_now();
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    s->own = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
    s->busy = s->steal = -1.0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return;
    unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle,
               &iowait, &irq, &softirq, &steal) == 8) {
        const double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
        s->busy = (double)(user + nice + system + irq + softirq) * tick;
        s->steal = (double)steal * tick;
    }
    fclose(f);
}

void move_cpu_others(const move_cpu_sample *a, const move_cpu_sample *b, double *others,
                     double *steal)
{
    const double wall = b->wall - a->wall;
    *others = *steal = -1.0;
    if (!(wall > 0.0) || a->busy < 0.0 || b->busy < 0.0)
        return;
    const double o = ((b->busy - a->busy) - (b->own - a->own)) / wall;
    *others = o > 0.0 ? o : 0.0;
    *steal = (b->steal - a->steal) / wall;
}
