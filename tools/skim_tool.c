/* `skim`: run a crowd through a level, bake and inspect worlds, answer one
   sweep. The commands live in tool_crowd.c and tool_world.c. */
#include "tool.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The help: an overview, then one entry a command (`skim help COMMAND`,
   `skim COMMAND --help`). */
static const char help_overview[] =
    "usage: skim COMMAND [OPTIONS]        skim help [COMMAND]        skim --version\n"
    "\n"
    "Swept ellipsoids and collide-and-slide through static triangle worlds.\n"
    "\n"
    "commands:\n";

typedef struct command_help {
    const char *name;
    const char *text;
} command_help;

static const command_help command_helps[] = {
    { "crowd",
      "  crowd [--scene default|terrain|FILE] [--agents N] [--frames F] [--threads T] [--seed S]\n"
      "        [--svg FILE] [--json] [--world-only] [--goals] [--no-bodies]\n"
      "        [--avoidance-interval K] [--no-resting] [--stay-on-floor]\n"
      "      Run N wandering agents (spheres of radius 16 walking at 320/s, turning every\n"
      "      second, now and then jumping) for F frames of 1/60 s, and print agents,\n"
      "      frames, mover-steps/s, time per frame, agents on the floor and in the air,\n"
      "      and the closest approach between two agents. --svg writes a top-down\n"
      "      picture of the level with every agent's trail; --json prints one JSON\n"
      "      object instead of the summary; --world-only turns agent-agent collisions\n"
      "      off (for comparison); --goals sends every agent to a spot it can reach in a\n"
      "      straight line instead, a new one on arrival, and counts arrivals (the picture\n"
      "      rings arrived, stuck and squeezed agents). On the default scene a lift, a\n"
      "      sliding door and a platform move on a fixed schedule, carrying and pushing\n"
      "      agents (the summary counts riders and squeezed agents); --no-bodies leaves\n"
      "      them out. --avoidance-interval K has each agent plan its avoidance every K\n"
      "      steps (1..16, the crowd's default 2); --no-resting moves every agent through\n"
      "      the world every step, even one standing still; --stay-on-floor keeps every\n"
      "      agent from walking or being pushed off a ledge (SKIM_AGENT_STAYS_ON_FLOOR).\n"
      "      Defaults: default scene, 1000 agents, 300 frames, OpenMP's thread count;\n"
      "      --seed defaults to 1.\n" },
    { "bake",
      "  bake MESH -o FILE\n"
      "      Build the BVH of MESH (default or an .obj file) and save it to FILE.\n" },
    { "info",
      "  info FILE [--json]\n"
      "      Print a world's statistics: FILE is default, an .obj file or a baked world.\n"
      "      --json prints one JSON object instead.\n" },
    { "sweep",
      "  sweep [--scene default|terrain|FILE] --from X,Y,Z --delta DX,DY,DZ\n"
      "        [--radius R | --radii RX,RY,RZ] [--json]\n"
      "      Sweep one ellipsoid (default: a sphere of radius 16) and print the first hit.\n" },
};
enum { COMMANDS = sizeof command_helps / sizeof command_helps[0] };

static const char help_notes[] =
    "\n"
    "Options take their value as the next argument or after '=' (--agents 500 or\n"
    "--agents=500). The scene 'terrain' is a generated open world (16,384 units of\n"
    "rolling hills and 2,000 boxes). A scene FILE ending in .obj is read as Wavefront\n"
    "OBJ; any other FILE is a baked world (skim bake). Exit status: 0 ok, 1 the work failed, 2 bad\n"
    "command line. OpenMP's OMP_NUM_THREADS, OMP_WAIT_POLICY and GOMP_SPINCOUNT apply;\n"
    "unless one of the last two is set, skim runs with GOMP_SPINCOUNT=10000 (threads\n"
    "spin ~100 us at a barrier, then sleep: quick on an idle machine, polite on a busy\n"
    "one; on a machine that is busy with other work, GOMP_SPINCOUNT=1000 is politer\n"
    "still).\n";

static const command_help *find_command(const char *name)
{
    for (int c = 0; c < COMMANDS; ++c)
        if (strcmp(command_helps[c].name, name) == 0)
            return &command_helps[c];
    return NULL;
}

static void print_help(const command_help *only)
{
    if (only) {
        printf("usage: skim %s", only->text + 2);
    } else {
        fputs(help_overview, stdout);
        for (int c = 0; c < COMMANDS; ++c)
            fputs(command_helps[c].text, stdout);
    }
    fputs(help_notes, stdout);
}

static int print_version(void)
{
    /* The headers the tool was built with and the library it runs with. */
    printf("skim %s (library %s, kernels %s)\n", SKIM_VERSION_STRING, skim_version(), skim_isa_name());
    return EXIT_OK;
}

/* "--name=value" as the two arguments "--name" "value", so every command
   takes either spelling. Only long options are split (in place: the '='
   becomes the name's end); the rest, values included, pass through as they
   are. Returns the new argv (argc updated; free it), or NULL without
   memory. */
static char **split_option_values(int *argc, char **argv)
{
    char **split = calloc((size_t)*argc * 2 + 1, sizeof *split);
    if (!split)
        return NULL;
    int n = 0;
    for (int i = 0; i < *argc; ++i) {
        char *equals = strchr(argv[i], '=');
        split[n++] = argv[i];
        if (i > 0 && strncmp(argv[i], "--", 2) == 0 && equals && equals > argv[i] + 2) {
            *equals = '\0';
            split[n++] = equals + 1;
        }
    }
    split[n] = NULL;
    *argc = n;
    return split;
}

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

static int run_command(int argc, char **argv)
{
    if (argc < 2)
        return tool_usage("", "no command given");
    const char *command = argv[1];
    if (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0)
        return print_version();
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 || strcmp(command, "help") == 0) {
        if (argc > 2 && strcmp(command, "help") == 0) {
            const command_help *which = find_command(argv[2]);
            if (!which)
                return tool_usage("help", "unknown command '%s'", argv[2]);
            print_help(which);
        } else {
            print_help(NULL);
        }
        return EXIT_OK;
    }
    /* `skim sweep --help` and the like print that command's help (an
       option value that is literally "--help" is not a thing any command
       takes). */
    for (int i = 2; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_help(find_command(command));
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

int main(int argc, char **argv)
{
    prefer_short_spins(argv);
    char **split = split_option_values(&argc, argv);
    if (!split) {
        fprintf(stderr, "skim: out of memory\n");
        return EXIT_RUNTIME;
    }
    int code = run_command(argc, split);
    free(split);
    return code;
}
