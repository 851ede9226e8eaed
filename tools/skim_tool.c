/* `skim`: run a crowd through a level, bake and inspect worlds, answer one
   sweep. The commands live in tool_crowd.c and tool_world.c. */
#include "tool.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
    "usage: skim COMMAND [OPTIONS]\n"
    "\n"
    "Swept ellipsoids and collide-and-slide through static triangle worlds.\n"
    "\n"
    "commands:\n"
    "  crowd [--scene default|FILE] [--agents N] [--frames F] [--threads T] [--seed S]\n"
    "        [--svg FILE] [--json] [--world-only]\n"
    "      Run N wandering agents (spheres of radius 16 walking at 320/s, turning every\n"
    "      second, now and then jumping) for F frames of 1/60 s, and print agents,\n"
    "      frames, mover-steps/s, time per frame, agents on the floor and in the air,\n"
    "      and the closest approach between two agents. --svg writes a top-down\n"
    "      picture of the level with every agent's trail; --json prints one JSON\n"
    "      object instead of the summary; --world-only turns agent-agent collisions\n"
    "      off (for comparison). Defaults: default scene, 1000 agents, 300 frames,\n"
    "      OpenMP's thread count, seed 1.\n"
    "  bake MESH -o FILE\n"
    "      Build the BVH of MESH (default or an .obj file) and save it to FILE.\n"
    "  info FILE\n"
    "      Print a world's statistics: FILE is default, an .obj file or a baked world.\n"
    "  sweep [--scene default|FILE] --from X,Y,Z --delta DX,DY,DZ\n"
    "        [--radius R | --radii RX,RY,RZ] [--json]\n"
    "      Sweep one ellipsoid (default: a sphere of radius 16) and print the first hit.\n"
    "\n"
    "A scene FILE ending in .obj is read as Wavefront OBJ; any other FILE is a baked\n"
    "world (skim bake). Exit status: 0 ok, 1 the work failed, 2 bad command line.\n"
    "OpenMP's OMP_NUM_THREADS, OMP_WAIT_POLICY and GOMP_SPINCOUNT apply; unless one of the\n"
    "last two is set, skim runs with GOMP_SPINCOUNT=10000 (threads spin ~100 us at a barrier,\n"
    "then sleep: quick on an idle machine, polite on a busy one; on a machine that is busy\n"
    "with other work, GOMP_SPINCOUNT=1000 is politer still).\n";

/* How long OpenMP threads wait at a barrier before they sleep. A crowd
   step has a dozen parallel regions and barriers a few microseconds
   apart. Threads that spin long (libgomp's default, 300,000 spins) lose a
   whole time slice each time another program holds the core: on a busy
   two-core machine `skim crowd` ran 6x slower on average (mean 96 ms a
   frame against a 10.5 ms median). Threads that sleep at once
   (OMP_WAIT_POLICY=passive, this tool's default until the fourth session)
   pay a wake-up per region instead, ~150 us on the development VM when it
   is otherwise idle: the default crowd took 2.6 ms a frame on two threads
   against 0.70 ms on one. A short spin covers the gaps inside a step and
   still sleeps between frames: idle, 0.45 ms a frame (passive 2.6, default
   0.45); with one core taken by another program, means of 0.92-1.72 ms
   (passive 0.84-1.54, the default 1.45-1.92 with 127-144 ms worst frames).
   (10,000 pauses take ~100 us on that VM's Xeon, not the ~10 us once
   written here.) Since the crowd step's phases wait for each other
   without OpenMP barriers (src/base/team.h), what the spin count
   still governs is skim_move_batch's regions and the gaps between a
   step's regions: `skim crowd`, 5,000 agents, 2 threads, medians of 3 (ms
   a frame), 10,000: quiet 2.28, a busy loop on one core 4.64; 1,000: 2.37
   and 4.05 (one thread 3.87). Kept at 10,000 for the quiet case, which is
   what benchmarks see; a loaded server should say so.
   The settings are read when the OpenMP runtime loads, before main, so
   when the user has chosen neither the tool sets the spin count and starts
   itself again. (GOMP_SPINCOUNT is libgomp's, the runtime the tool is
   built with here; another runtime ignores it.) */
static void prefer_short_spins(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || getenv("SKIM_TOOL_REEXEC"))
        return;
    if (setenv("GOMP_SPINCOUNT", "10000", 1) != 0 || setenv("SKIM_TOOL_REEXEC", "1", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    /* No /proc (not Linux): carry on with the runtime's default. */
}

int main(int argc, char **argv)
{
    prefer_short_spins(argv);
    if (argc < 2)
        return tool_usage("", "no command given");
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 || strcmp(command, "help") == 0) {
        fputs(help, stdout);
        return EXIT_OK;
    }
    /* `skim sweep --help` and the like: the one help text covers every
       command, so any command's --help prints it (an option value that is
       literally "--help" is not a thing any command takes). */
    for (int i = 2; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(help, stdout);
            return EXIT_OK;
        }
    if (strcmp(command, "crowd") == 0)
        return tool_crowd(argc - 1, argv + 1);
    if (strcmp(command, "bake") == 0)
        return tool_bake(argc - 1, argv + 1);
    if (strcmp(command, "info") == 0)
        return tool_info(argc - 1, argv + 1);
    if (strcmp(command, "sweep") == 0)
        return tool_sweep(argc - 1, argv + 1);
    return tool_usage("", "unknown command '%s'", command);
}
