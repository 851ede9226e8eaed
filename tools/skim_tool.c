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
   step has several parallel regions a few microseconds apart. Threads that
   spin long (libgomp's default) lose a whole time slice each time another
   program holds the core; threads that sleep at once (passive) pay a
   wake-up per region. A short spin covers the gaps inside a step and still
   sleeps between frames (docs/performance.md has the figures).
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
    if (strcmp(command, "ray") == 0)
        return tool_ray(argc - 1, argv + 1);
    if (strcmp(command, "overlap") == 0)
        return tool_overlap(argc - 1, argv + 1);
    if (strcmp(command, "closest") == 0)
        return tool_closest(argc - 1, argv + 1);
    if (strcmp(command, "floor") == 0)
        return tool_floor(argc - 1, argv + 1);
    return tool_usage("", "unknown command '%s'", command);
}
