/* server_tick.c: the skeleton of a game server's simulation loop.

   A world and a crowd, stepped at a fixed 60 Hz: each tick sets what the
   agents want, steps the crowd by exactly 1/60 s, then sleeps until the
   next tick's deadline (an absolute one, so small delays do not add up).
   It times every step and prints the median, the 99th percentile and the
   worst at the end. Ctrl-C (SIGINT) or SIGTERM stops it cleanly: the loop
   ends after the tick in progress and everything is freed.

   Threads: a crowd of a few hundred agents steps in well under a
   millisecond on one thread, which is what a server sharing its cores
   should use; more threads pay a wake-up each step, long when another
   program holds the cores. The thread count and the way threads wait are
   fields of the crowd's move def; OpenMP's idle threads between steps
   follow OMP_WAIT_POLICY / GOMP_SPINCOUNT from the environment (passive or
   1000 keep them from spinning on cores others need).

   Usage: server_tick [TICKS [THREADS]]   (default 120 ticks, i.e. 2 s, 0 = until
                                           stopped; 1 thread, 0 = OpenMP's default)

   Build against an installed skim:
       cc examples/server_tick.c $(pkg-config --cflags --libs skim) -o server_tick */
#define _POSIX_C_SOURCE 200809L
#include <skim/skim.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TICK_HZ = 60, AGENTS = 200, MAX_TIMED = 1 << 16 };

/* Set by the signal handler, read by the loop: the only state they share. */
static volatile sig_atomic_t stop_requested = 0;

static void request_stop(int signal_number)
{
    (void)signal_number;
    stop_requested = 1;
}

static double seconds_between(struct timespec a, struct timespec b)
{
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long ticks = argc > 1 ? strtol(argv[1], NULL, 10) : 120;
    long threads = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
    if (ticks < 0 || ticks > MAX_TIMED || threads < 0 || threads > SKIM_THREADS_MAX) {
        fprintf(stderr, "usage: server_tick [TICKS [THREADS]], TICKS 0..%d (0 = until stopped), "
                        "THREADS 0..%d (0 = OpenMP's default)\n", MAX_TIMED, SKIM_THREADS_MAX);
        return 2;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = request_stop;
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);

    /* Load once at start-up: the level and the crowd live as long as the server. */
    skim_mesh_data level;
    if (skim_scene_default(&level) != SKIM_OK) {
        fprintf(stderr, "scene: %s\n", skim_last_error_message());
        return 1;
    }
    skim_mesh mesh = skim_mesh_data_view(&level);
    skim_world *world = NULL;
    skim_crowd *crowd = NULL;
    double *step_seconds = malloc(MAX_TIMED * sizeof *step_seconds);
    int exit_code = 1;
    if (!step_seconds || skim_world_create(&mesh, NULL, &world) != SKIM_OK) {
        fprintf(stderr, "world: %s\n", skim_last_error_message());
        goto shutdown;
    }
    skim_crowd_def crowd_def = skim_crowd_def_default();
    crowd_def.capacity = AGENTS;
    crowd_def.move.threads = (int)threads;
    crowd_def.move.wait = SKIM_WAIT_PASSIVE; /* with more than one thread: nap rather than spin */
    if (skim_crowd_create(&crowd_def, &crowd) != SKIM_OK) {
        fprintf(stderr, "crowd: %s\n", skim_last_error_message());
        goto shutdown;
    }
    /* Players on a grid over the open ground, each walking its own way. */
    for (uint32_t i = 0; i < AGENTS; ++i) {
        skim_agent_def agent = skim_agent_def_default();
        agent.position = (skim_vec3){ -600.0f + 48.0f * (float)(i % 20), -1200.0f + 48.0f * (float)(i / 20), 40 };
        uint32_t id;
        if (skim_crowd_add(crowd, &agent, &id) != SKIM_OK ||
            skim_crowd_set_velocity(crowd, id, (skim_vec3){ (float)(i % 7) * 40 - 120, (float)(i % 5) * 50 - 100, 0 }) != SKIM_OK) {
            fprintf(stderr, "agent %u: %s\n", i, skim_last_error_message());
            goto shutdown;
        }
    }

    const long period_ns = 1000000000L / TICK_HZ;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    long tick = 0, timed = 0, late = 0;
    while (!stop_requested && (ticks == 0 || tick < ticks)) {
        /* Game logic would set velocities, targets and jumps here. */
        struct timespec before, after;
        clock_gettime(CLOCK_MONOTONIC, &before);
        if (skim_crowd_step(world, crowd, 1.0f / TICK_HZ) != SKIM_OK) {
            fprintf(stderr, "tick %ld: %s\n", tick, skim_last_error_message());
            goto shutdown;
        }
        clock_gettime(CLOCK_MONOTONIC, &after);
        step_seconds[timed++ % MAX_TIMED] = seconds_between(before, after);
        ++tick;

        /* Sleep to the next deadline. A tick that overran starts the next
           at once and moves the schedule: the lost time is dropped rather
           than made up by a burst of ticks. */
        deadline.tv_nsec += period_ns;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_nsec -= 1000000000L;
            deadline.tv_sec += 1;
        }
        if (seconds_between(deadline, after) > 0) {
            ++late;
            deadline = after;
        } else {
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
        }
    }

    skim_crowd_stats stats;
    skim_crowd_get_stats(crowd, &stats);
    long n = timed < MAX_TIMED ? timed : MAX_TIMED;
    if (n > 0) {
        qsort(step_seconds, (size_t)n, sizeof *step_seconds, compare_doubles);
        printf("%ld ticks at %d Hz, %u agents (%u on the floor), %ld thread(s): step median %.3f ms, p99 %.3f ms, "
               "worst %.3f ms; %ld ticks overran\n",
               tick, TICK_HZ, stats.agents, stats.on_floor, threads, step_seconds[n / 2] * 1e3,
               step_seconds[(n * 99) / 100] * 1e3, step_seconds[n - 1] * 1e3, late);
    }
    printf("crowd hash %016llx\n", (unsigned long long)skim_crowd_hash(crowd));
    exit_code = 0;

shutdown:
    skim_crowd_destroy(crowd);
    skim_world_destroy(world);
    skim_mesh_data_free(&level);
    free(step_seconds);
    return exit_code;
}
