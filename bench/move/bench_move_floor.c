/* How fast a move could be if only its kernel calls cost anything: a floor
   for the 3 M mover-steps/s per core target, measured rather than
   argued.

   The crowd of bench_move (move_workload.h: 10,000 radius-16 spheres
   wandering for 300 frames) runs on one thread through the real batch
   (skim_move_batch_with: Morton order, kept walks) twice:
   1. with the CPU's kernel set, timed as a whole (the batch's own rate);
   2. with a wrapper around that set which, after each real call, runs the
      same call REPEAT (4) more times on the same buffer and times those
      alone. Their mean is what the kernel calls of a move cost with the
      buffer already in L1 and nothing else on the way: the gather, the
      slide logic, the step and snap decisions, the batch are all free.
   Both runs must end in the same state (hash), as the wrapper changes no
   result. The second figure is an upper bound for any move built on
   these kernels making the calls this move makes.

   Usage: bench_move_floor [--movers N] [--frames N]
                           [--scene default|oa_dm1|oa_dm4_hull|terrain|all] [--scenes-dir DIR]
   One JSON line per scene. */
#include "move_workload.h"
#include "move/move_internal.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPEAT = 4 };

/* The wrapper's state: one thread only (the bench sets it). */
static const skim_kernel_set *wrapped;
static double replay_seconds;
static uint64_t kernel_calls, kernel_candidates, kernel_survivors;

/* How many of c's candidates survive the kernel's first pass, the box
   cull (packet_kernel.c's cull_pass, the same formula in scalar): the
   lanes the plane, face and quadratic tests then run on. What a kernel
   that packed several movers' tests into full packets would have to
   test; counted, not timed. */
static uint32_t cull_survivors(const skim_candidates *c, const float origin[3],
                               const float delta[3], float t)
{
    float box_lo[3], box_hi[3], path_sq = 0.0f;
    for (int axis = 0; axis < 3; ++axis) {
        const float reach = delta[axis] * t;
        box_lo[axis] = (reach < 0.0f ? reach : 0.0f) - 1.0f;
        box_hi[axis] = (reach > 0.0f ? reach : 0.0f) + 1.0f;
        path_sq += reach * reach;
    }
    const float path_length = sqrtf(path_sq);
    uint32_t survivors = 0;
    for (uint32_t lane = 0; lane < c->count; ++lane) {
        float lo[3], hi[3], magnitude = 0.0f;
        for (int axis = 0; axis < 3; ++axis) {
            lo[axis] = hi[axis] = c->vertex[0][axis][lane] - origin[axis];
            for (int v = 1; v < 3; ++v) {
                const float x = c->vertex[v][axis][lane] - origin[axis];
                lo[axis] = x < lo[axis] ? x : lo[axis];
                hi[axis] = x > hi[axis] ? x : hi[axis];
            }
            magnitude = fmaxf(magnitude, fmaxf(hi[axis], -lo[axis]));
        }
        const float reach = 1.7320508f * magnitude + path_length;
        const float margin = 1e-3f + 1e-5f * (reach * reach);
        bool apart = false;
        for (int axis = 0; axis < 3; ++axis)
            apart = apart || lo[axis] > box_hi[axis] + margin || hi[axis] < box_lo[axis] - margin;
        survivors += !apart;
    }
    return survivors;
}

static void timed_sweep_from(const skim_candidates *c, const float origin[3], const float delta[3],
                             bool cull, skim_unit_hit *best)
{
    const skim_unit_hit given = *best;
    wrapped->sweep_from(c, origin, delta, cull, best);
    ++kernel_calls;
    kernel_candidates += c->count;
    kernel_survivors += cull_survivors(c, origin, delta, given.t);
    skim_unit_hit scratch;
    const double started = move_now();
    for (int k = 0; k < REPEAT; ++k) {
        scratch = given;
        wrapped->sweep_from(c, origin, delta, cull, &scratch);
    }
    replay_seconds += move_now() - started;
}

/* The clock's own cost per reading pair, taken off the replays. */
static double clock_pair_seconds(void)
{
    const int n = 100000;
    const double started = move_now();
    double sink = 0.0;
    for (int i = 0; i < n; ++i)
        sink += move_now() - move_now();
    const double each = (move_now() - started) / n;
    return sink > 1.0 ? 0.0 : each; /* sink is never > 1: keeps the loop */
}

/* Runs the crowd through the batch with kernels; seconds in the batch calls. */
static double crowd_run(move_crowd *c, const skim_world *world, int frames,
                        const skim_kernel_set *kernels)
{
    move_crowd_reset(c);
    const skim_move_def def = move_crowd_def();
    double seconds = 0.0;
    for (int frame = 0; frame < frames; ++frame) {
        move_crowd_steer(c, frame);
        const double started = move_now();
        skim_status status = skim_move_batch_with(kernels, world, (size_t)c->count, c->shapes,
                                                  c->positions, c->displacements, &def,
                                                  c->results);
        seconds += move_now() - started;
        if (status != SKIM_OK) {
            fprintf(stderr, "bench_move_floor: %s\n", skim_last_error_message());
            exit(1);
        }
        move_crowd_advance(c);
    }
    return seconds;
}

int main(int argc, char **argv)
{
    move_bench_options options = move_bench_defaults();
    for (int i = 1; i < argc; ++i) {
        if (!move_bench_option(argc, argv, &i, &options)) {
            const bool help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
            fprintf(help ? stdout : stderr,
                    "usage: bench_move_floor [--movers N] [--frames N] "
                    "[--scene default|oa_dm1|oa_dm4_hull|terrain|all] [--scenes-dir DIR]\n"
                    "  bench_move's crowd on one thread, and the same moves' kernel calls alone\n"
                    "  (replayed on their buffers in L1): an upper bound for any move making\n"
                    "  those calls. Defaults: 10000 movers, 300 frames, every scene.\n");
            return help ? 0 : 2;
        }
    }
    const int movers = options.movers, frames = options.frames;
    if (movers < 1 || frames < 1)
        return 2;
    const skim_kernel_set *kernels = skim_kernels();
    if (!kernels) {
        fprintf(stderr, "bench_move_floor: %s\n", skim_last_error_message());
        return 1;
    }
    omp_set_num_threads(1);
    wrapped = kernels;
    const skim_kernel_set timed = { .name = kernels->name, .width = kernels->width,
                                    .sweep = kernels->sweep, .sweep_from = timed_sweep_from,
                                    .sweep_deferred = kernels->sweep_deferred };
    const double clock_pair = clock_pair_seconds();
    int exit_code = 0;
    for (int s = 0; s < MOVE_SCENES; ++s) {
        const char *name = move_scene_names[s];
        move_scene scene;
        move_crowd c;
        if (!move_bench_open("move_floor", s, &options, &scene, &c))
            continue;
        const double moves = (double)movers * frames;
        const double batch_seconds = crowd_run(&c, scene.world, frames, kernels);
        const uint64_t plain_hash = c.hash;
        replay_seconds = 0.0;
        kernel_calls = kernel_candidates = kernel_survivors = 0;
        crowd_run(&c, scene.world, frames, &timed);
        if (c.hash != plain_hash) {
            fprintf(stderr, "bench_move_floor: %s: the timed run ended in another state\n", name);
            exit_code = 1;
        }
        double kernel_seconds = (replay_seconds - clock_pair * (double)kernel_calls) / REPEAT;
        if (kernel_seconds < 0.0)
            kernel_seconds = 0.0;
        printf("{\"bench\":\"move_floor\",\"scene\":\"%s\",\"kernels\":\"%s\",\"movers\":%d,"
               "\"frames\":%d,\"threads\":1,\"batch_moves_per_s\":%.0f,"
               "\"kernel_calls_per_move\":%.2f,\"candidates_per_call\":%.1f,"
               "\"tested_lanes_per_move\":%.2f,"
               "\"kernel_only_ns_per_move\":%.1f,\"kernel_only_moves_per_s\":%.0f,"
               "\"kernel_share_of_batch\":%.3f,\"target_moves_per_s\":3000000,"
               "\"state_hash\":\"%016llx\"}\n",
               name, kernels->name, movers, frames, moves / batch_seconds,
               (double)kernel_calls / moves, (double)kernel_candidates / (double)kernel_calls,
               (double)kernel_survivors / moves,
               1e9 * kernel_seconds / moves, moves / kernel_seconds,
               kernel_seconds / batch_seconds, (unsigned long long)plain_hash);
        fflush(stdout);
        move_crowd_free(&c);
        move_scene_free(&scene);
    }
    return exit_code;
}
