/* skim crowd: N agents in a level, with figures and a picture.

   The agents are spheres of radius 16 (a Quake player) walking at 320
   units/s, either wandering (a direction each picks anew every second, now
   and then jumping) or, with --goals, walking to spots they can reach and
   picking new ones on arrival (tool_goals.c). On the default scene a lift,
   a sliding door and a platform move on the scene's schedule
   (skim_scene_default_body_transform) unless --no-bodies. */
#include "tool.h"
#include "tool_goals.h"
#include "tool_spots.h"

#include <math.h>
#include <omp.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define AGENT_RADIUS TOOL_AGENT_RADIUS
/* The crowd's check lets two agents end at most 1e-4 of their touching
   distance inside it; across, that distance is two radii. The bound it
   checks is that distance rounded down to a float (crowd_solver.c), along
   a float unit axis: each within an ulp of two radii. Crowds on oa_dm1 and
   the default scene ended at -0.003202 against 0.0032, and the summary
   called that "deeper than" the tolerance; four ulps allow for both. */
#define CROSS_TOLERANCE (1e-4 * 2.0 * AGENT_RADIUS + 4.0 * 2.0 * AGENT_RADIUS * FLT_EPSILON)
#define WALK_SPEED 320.0f
#define JUMP_HEIGHT 40.0f
#define JUMP_CHANCE 0.05     /* per agent, each time it turns */
#define TRAIL_POINTS 300000u /* samples kept over all agents, for the SVG */
#define FRAME_DT (1.0f / 60.0f)

typedef struct options {
    const char *scene, *svg;
    uint64_t agents, frames, threads, seed, avoidance_interval;
    bool json, world_only, goals, no_bodies, no_resting, stay_on_floor;
} options;

/* The default scene's moving bodies, as this run placed them. */
typedef struct scene_bodies {
    skim_world *shape[SKIM_SCENE_DEFAULT_BODY_COUNT];
    skim_mesh_data mesh[SKIM_SCENE_DEFAULT_BODY_COUNT]; /* kept for the picture */
    uint32_t    id[SKIM_SCENE_DEFAULT_BODY_COUNT];
    const char *name[SKIM_SCENE_DEFAULT_BODY_COUNT];
    uint32_t    count;
} scene_bodies;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double random_unit(uint64_t *state)
{
    return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){ .scene = "default", .agents = 1000, .frames = 300, .threads = 0, .seed = 1,
                    .avoidance_interval = skim_crowd_def_default().avoidance_interval };
    for (int i = 1; i < argc; ++i) {
        const char *option = argv[i];
        if (strcmp(option, "--json") == 0) {
            o->json = true;
            continue;
        }
        if (strcmp(option, "--world-only") == 0) {
            o->world_only = true;
            continue;
        }
        if (strcmp(option, "--goals") == 0) {
            o->goals = true;
            continue;
        }
        if (strcmp(option, "--no-resting") == 0) {
            o->no_resting = true;
            continue;
        }
        if (strcmp(option, "--stay-on-floor") == 0) {
            o->stay_on_floor = true;
            continue;
        }
        if (strcmp(option, "--no-bodies") == 0) {
            o->no_bodies = true;
            continue;
        }
        const char *value = NULL;
        uint64_t *number = NULL, min = 1, max = 0;
        if (strcmp(option, "--scene") == 0 || strcmp(option, "--svg") == 0) {
        } else if (strcmp(option, "--agents") == 0) {
            number = &o->agents, max = 1u << 24;
        } else if (strcmp(option, "--frames") == 0) {
            number = &o->frames, max = 1000000;
        } else if (strcmp(option, "--threads") == 0) {
            number = &o->threads, max = 1024;
        } else if (strcmp(option, "--seed") == 0) {
            number = &o->seed, min = 0, max = UINT64_MAX;
        } else if (strcmp(option, "--avoidance-interval") == 0) {
            number = &o->avoidance_interval, max = 16;
        } else {
            return tool_usage("crowd", "unknown option '%s'", option);
        }
        if (!(value = tool_option_value("crowd", argc, argv, &i)))
            return EXIT_USAGE;
        if (strcmp(option, "--scene") == 0)
            o->scene = value;
        else if (strcmp(option, "--svg") == 0)
            o->svg = value;
        else if (!tool_parse_u64(value, min, max, number))
            return tool_usage("crowd", "%s needs a whole number from %llu to %llu (got '%s')", option,
                              (unsigned long long)min, (unsigned long long)max, value);
    }
    return EXIT_OK;
}

/* The default scene's lift, door and platform as bodies of world, where the
   schedule has them at time 0. */
static bool add_scene_bodies(skim_world *world, scene_bodies *bodies)
{
    for (uint32_t b = 0; b < SKIM_SCENE_DEFAULT_BODY_COUNT; ++b) {
        skim_transform at;
        if (skim_scene_default_body(b, &bodies->mesh[b], &bodies->name[b]) != SKIM_OK)
            return false;
        bodies->count = b + 1;
        skim_mesh view = skim_mesh_data_view(&bodies->mesh[b]);
        if (skim_world_create(&view, NULL, &bodies->shape[b]) != SKIM_OK)
            return false;
        if (skim_scene_default_body_transform(b, 0.0, &at) != SKIM_OK ||
            skim_world_add_body(world, bodies->shape[b], at, &bodies->id[b]) != SKIM_OK)
            return false;
    }
    return true;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct figures {
    double seconds, median_ms, mean_ms, max_ms, world_ms, agents_ms;
    float closest;
    double blocked, shortened, resting; /* per frame */
    uint64_t arrivals, give_ups;   /* with --goals */
    uint32_t agents_arrived;       /* with --goals: agents that reached a goal */
    uint32_t bodies;               /* moving bodies */
    uint64_t squeezed_steps;       /* agent-steps with SKIM_AGENT_SQUEEZED */
    uint32_t agents_squeezed;      /* agents squeezed at least once */
    uint32_t riding;               /* agents standing on a body at the end */
    skim_crowd_stats last;
    uint64_t hash;
    int threads;
    uint32_t triangles;
    uint64_t world_moves, kernel_calls, walks; /* summed over the frames */
    uint32_t spots;                /* standing spots the scene has */
    double spots_seconds;          /* the search for them */
} figures;

/* A world move's share of count, summed over the frames. */
static double per_move(const figures *f, uint64_t count)
{
    return f->world_moves ? (double)count / (double)f->world_moves : 0.0;
}

static void print_summary(const options *o, const figures *f)
{
    double steps = (double)o->agents * (double)o->frames;
    printf("skim crowd on %s (%u triangles), %d thread%s%s\n", o->scene, f->triangles, f->threads,
           f->threads == 1 ? "" : "s", o->world_only ? ", agent-agent collisions off" : "");
    printf("  agents             %llu of %u standing spots (found in %.2f s)\n", (unsigned long long)o->agents,
           f->spots, f->spots_seconds);
    printf("  frames             %llu of 1/60 s\n", (unsigned long long)o->frames);
    printf("  mover-steps/s      %.0f\n", steps / f->seconds);
    printf("  time per frame     %.2f ms median, %.2f ms mean, %.2f ms worst  (world %.2f ms, agents %.2f ms)\n",
           f->median_ms, f->mean_ms, f->max_ms, f->world_ms, f->agents_ms);
    printf("  on floor / in air  %u / %u  (%u standing on another agent)\n", f->last.on_floor, f->last.in_air,
           f->last.on_agent);
    if (o->world_only)
        printf("  closest approach   not measured (agent-agent collisions off)\n");
    else if (isinf(f->closest))
        printf("  closest approach   no two agents ever came near\n");
    else if (f->closest >= 0.0f)
        printf("  closest approach   %.4f units between two agents' cylinders\n", f->closest);
    else if (-f->closest <= CROSS_TOLERANCE)
        printf("  closest approach   %.4f units between two agents' cylinders (an overlap within the\n"
               "                     crowd's tolerance, 1e-4 of the touching distance: %.4f units)\n",
               f->closest, CROSS_TOLERANCE);
    else
        printf("  closest approach   %.4f units between two agents' cylinders: deeper than 1e-4 of the\n"
               "                     touching distance across (%.4f units), which the crowd allows only\n"
               "                     along the agents' height (1e-4 of it) or between agents placed overlapping\n",
               f->closest, CROSS_TOLERANCE);
    if (!o->world_only)
        printf("  held back          %.1f agents per frame kept at their start, %.1f shortened their move\n",
               f->blocked, f->shortened);
    if (f->world_moves)
        printf("  world moves        %.1f a frame, %.2f kernel calls and %.3f tree walks a move\n",
               (double)f->world_moves / (double)o->frames, per_move(f, f->kernel_calls), per_move(f, f->walks));
    printf("  resting            %.1f agents per frame stood still on an unchanged floor and took\n"
           "                     their last world move again\n",
           f->resting);
    if (f->bodies)
        printf("  moving bodies      %u (lift, door, platform): %u agents riding one at the end;\n"
               "                     %u agents squeezed by a body, %llu agent-steps in all (a squeezed\n"
               "                     agent overlaps the body that pressed it, not the level or an agent)\n",
               f->bodies, f->riding, f->agents_squeezed, (unsigned long long)f->squeezed_steps);
    if (o->goals)
        printf("  goals              %llu arrivals (%.1f per agent and minute), %llu given up;\n"
               "                     %u of %llu agents reached at least one\n",
               (unsigned long long)f->arrivals, (double)f->arrivals / (double)o->agents / (o->frames * FRAME_DT / 60.0),
               (unsigned long long)f->give_ups, f->agents_arrived, (unsigned long long)o->agents);
    printf("  state hash         %016llx\n", (unsigned long long)f->hash);
    if (f->mean_ms > 2.0 * f->median_ms && f->threads > 1)
        printf("  note               frame times vary a lot (mean %.1fx the median): other programs share the\n"
               "                     cores%s\n",
               f->mean_ms / f->median_ms,
               getenv("OMP_WAIT_POLICY") && strcmp(getenv("OMP_WAIT_POLICY"), "active") == 0
                   ? ", and OpenMP threads spin at every barrier (OMP_WAIT_POLICY=active); unset it"
                   : "");
    if (o->svg)
        printf("  picture            %s\n", o->svg);
}

static void print_json(const options *o, const figures *f)
{
    double steps = (double)o->agents * (double)o->frames;
    printf("{\"scene\":");
    tool_print_json_string(stdout, o->scene);
    printf(",\"triangles\":%u,\"agents\":%llu,\"frames\":%llu,\"dt\":%.9g,\"threads\":%d,"
           "\"agent_collisions\":%s,\"avoidance_interval\":%llu,\"resting\":%s,\"stay_on_floor\":%s,\"seconds\":%.6f,\"mover_steps_per_second\":%.0f,"
           "\"ms_per_frame_median\":%.4f,\"ms_per_frame_mean\":%.4f,\"ms_per_frame_max\":%.4f,"
           "\"ms_world_mean\":%.4f,\"ms_agents_mean\":%.4f,\"on_floor\":%u,\"in_air\":%u,\"on_agent\":%u,"
           "\"spots\":%u,\"spots_seconds\":%.3f,\"world_moves_per_frame\":%.1f,\"kernel_calls_per_move\":%.3f,"
           "\"walks_per_move\":%.4f,",
           f->triangles, (unsigned long long)o->agents, (unsigned long long)o->frames, FRAME_DT,
           f->threads, o->world_only ? "false" : "true", (unsigned long long)o->avoidance_interval, o->no_resting ? "false" : "true",
           o->stay_on_floor ? "true" : "false", f->seconds, steps / f->seconds, f->median_ms,
           f->mean_ms, f->max_ms, f->world_ms, f->agents_ms, f->last.on_floor, f->last.in_air, f->last.on_agent,
           f->spots, f->spots_seconds, (double)f->world_moves / (double)o->frames, per_move(f, f->kernel_calls),
           per_move(f, f->walks));
    if (isinf(f->closest) || o->world_only)
        printf("\"closest_approach\":null,");
    else
        printf("\"closest_approach\":%.6f,", f->closest);
    if (o->goals)
        printf("\"goals\":true,\"arrivals\":%llu,\"given_up\":%llu,\"agents_arrived\":%u,",
               (unsigned long long)f->arrivals, (unsigned long long)f->give_ups, f->agents_arrived);
    else
        printf("\"goals\":false,");
    printf("\"bodies\":%u,\"riding\":%u,\"agents_squeezed\":%u,\"squeezed_steps\":%llu,", f->bodies, f->riding,
           f->agents_squeezed, (unsigned long long)f->squeezed_steps);
    printf("\"blocked_per_frame\":%.3f,\"shortened_per_frame\":%.3f,\"resting_per_frame\":%.3f,"
           "\"state_hash\":\"%016llx\",\"svg\":",
           f->blocked, f->shortened, f->resting, (unsigned long long)f->hash);
    if (o->svg)
        tool_print_json_string(stdout, o->svg);
    else
        printf("null");
    printf("}\n");
}

/* Steps the crowd, sampling trails; fills the figures. goals: NULL = wander. */
static int run(const options *o, skim_world *world, skim_crowd *crowd, tool_trails *trails, figures *f,
               tool_goals *goals, const scene_bodies *bodies, uint8_t *squeezed)
{
    const uint32_t n = (uint32_t)o->agents;
    double *frame_ms = malloc(o->frames * sizeof *frame_ms);
    if (!frame_ms)
        return tool_failed("crowd", "out of memory");
    uint64_t random = o->seed * 0x2545F4914F6CDD1Dull + 1;
    const bool progress = isatty(fileno(stderr)) != 0;
    double last_progress = now_seconds(), world_ms = 0.0, agents_ms = 0.0;
    f->closest = INFINITY;
    f->blocked = f->shortened = f->resting = 0.0;
    uint32_t sample = 0;
    for (uint64_t frame = 0; frame < o->frames; ++frame) {
        if (goals)
            tool_goals_update(goals, world, crowd, (double)frame * FRAME_DT);
        /* Each agent turns once a second, agents spread over the second. */
        for (uint32_t i = 0; i < n && !goals; ++i)
            if ((frame + i) % 60 == 0) {
                double angle = 6.283185307179586 * random_unit(&random);
                skim_crowd_set_velocity(crowd, i, (skim_vec3){ WALK_SPEED * (float)cos(angle),
                                                               WALK_SPEED * (float)sin(angle), 0 });
                if (random_unit(&random) < JUMP_CHANCE)
                    skim_crowd_jump(crowd, i, JUMP_HEIGHT, NULL);
            }
        if (frame % trails->frames_per_sample == 0 && sample < trails->samples)
            memcpy((skim_vec3 *)trails->points + (size_t)sample++ * n, skim_crowd_positions(crowd), n * sizeof(skim_vec3));
        /* The bodies where the schedule has them at the end of this frame. */
        for (uint32_t b = 0; b < bodies->count; ++b) {
            skim_transform at;
            if (skim_scene_default_body_transform(b, (double)(frame + 1) * FRAME_DT, &at) != SKIM_OK ||
                skim_world_set_body_transform(world, bodies->id[b], at) != SKIM_OK) {
                free(frame_ms);
                return tool_failed("crowd", "cannot move the %s", bodies->name[b]);
            }
        }
        double t0 = now_seconds();
        if (skim_crowd_step(world, crowd, FRAME_DT) != SKIM_OK) {
            free(frame_ms);
            return tool_failed("crowd", "step %llu failed", (unsigned long long)frame);
        }
        double t1 = now_seconds();
        frame_ms[frame] = (t1 - t0) * 1e3;
        skim_crowd_stats stats;
        skim_crowd_get_stats(crowd, &stats);
        world_ms += stats.seconds_world * 1e3;
        agents_ms += stats.seconds_agents * 1e3;
        if (stats.closest_gap < f->closest)
            f->closest = stats.closest_gap;
        f->blocked += stats.blocked;
        f->shortened += stats.shortened;
        f->resting += stats.resting;
        f->world_moves += stats.world_moves;
        f->kernel_calls += stats.world_kernel_calls;
        f->walks += stats.world_walks;
        f->squeezed_steps += stats.squeezed;
        if (stats.squeezed) {
            const uint32_t *state = skim_crowd_states(crowd);
            for (uint32_t i = 0; i < n; ++i)
                squeezed[i] |= (state[i] & SKIM_AGENT_SQUEEZED) != 0;
        }
        f->last = stats;
        if (progress && (t1 - last_progress > 0.25 || frame + 1 == o->frames)) {
            fprintf(stderr, "\r  frame %llu/%llu  %.2f ms/frame ", (unsigned long long)(frame + 1),
                    (unsigned long long)o->frames, frame_ms[frame]);
            fflush(stderr);
            last_progress = t1;
        }
    }
    if (progress)
        fprintf(stderr, "\r\033[K");
    if (sample < trails->samples)
        memcpy((skim_vec3 *)trails->points + (size_t)sample++ * n, skim_crowd_positions(crowd), n * sizeof(skim_vec3));
    trails->samples = sample;
    double total = 0.0;
    for (uint64_t k = 0; k < o->frames; ++k)
        total += frame_ms[k];
    f->seconds = total * 1e-3;
    f->mean_ms = total / (double)o->frames;
    f->world_ms = world_ms / (double)o->frames;
    f->agents_ms = agents_ms / (double)o->frames;
    qsort(frame_ms, o->frames, sizeof *frame_ms, compare_doubles);
    f->median_ms = frame_ms[o->frames / 2];
    f->max_ms = frame_ms[o->frames - 1];
    f->blocked /= (double)o->frames;
    f->resting /= (double)o->frames;
    f->shortened /= (double)o->frames;
    f->hash = skim_crowd_hash(crowd);
    for (uint32_t i = 0; i < n; ++i) {
        skim_agent_info info;
        skim_crowd_get_agent(crowd, i, &info);
        f->riding += info.floor_body != SKIM_STATIC;
        f->agents_squeezed += squeezed[i];
    }
    free(frame_ms);
    return EXIT_OK;
}

int tool_crowd(int argc, char **argv)
{
    options o;
    int code = parse_options(argc, argv, &o);
    if (code)
        return code;
    if (o.svg && (code = tool_check_output("crowd", o.svg, &o.scene, 1)))
        return code;
    if (o.threads)
        omp_set_num_threads((int)o.threads);
    tool_scene scene;
    if ((code = tool_scene_open("crowd", o.scene, &scene)))
        return code;
    const uint32_t n = (uint32_t)o.agents;
    skim_vec3 *spots = NULL;
    skim_crowd *crowd = NULL;
    tool_trails trails = { 0 };
    tool_goals goals = { 0 };
    float *radius = NULL;
    uint8_t *marks = NULL;
    figures f = { .threads = omp_get_max_threads() };
    scene_bodies bodies = { .count = 0 };
    uint8_t *squeezed = NULL;
    skim_world_stats world_stats;
    skim_world_get_stats(scene.world, &world_stats);
    f.triangles = world_stats.triangles;
    code = EXIT_RUNTIME;
    if (strcmp(o.scene, "default") == 0 && !o.no_bodies && !add_scene_bodies(scene.world, &bodies)) {
        tool_failed("crowd", "cannot add the default scene's moving bodies");
        goto done;
    }
    f.bodies = bodies.count;
    /* find_spots takes a failed sweep for an occupied spot: when every
       sweep fails (SKIM_ISA names a kernel set this machine cannot run),
       say the library's reason rather than "room for 0 agents". */
    skim_hit probe;
    const skim_ellipsoid probe_shape = { { AGENT_RADIUS, AGENT_RADIUS, AGENT_RADIUS }, { 0, 0, 0, 1 } };
    if (skim_sweep(scene.world, &probe_shape, world_stats.bounds_min, (skim_vec3){ 0, 0, 1 }, NULL, &probe) != SKIM_OK) {
        tool_failed("crowd", "cannot sweep in '%s'", o.scene);
        goto done;
    }
    /* Every free spot, shuffled by the seed; the first n are used. */
    uint32_t available = 0;
    const bool progress = isatty(fileno(stderr)) != 0;
    if (progress) {
        fprintf(stderr, "  finding standing spots in '%s'...", o.scene);
        fflush(stderr);
    }
    const double search_start = now_seconds();
    spots = tool_find_spots(scene.world, &available);
    f.spots = available;
    f.spots_seconds = now_seconds() - search_start;
    if (progress)
        fprintf(stderr, "\r\033[K");
    if (!spots) {
        tool_failed("crowd", "cannot find places to put agents");
        goto done;
    }
    if (available < n) {
        fprintf(stderr, "skim crowd: the scene '%s' has room for %u agents of radius %g, not %u\n", o.scene,
                available, AGENT_RADIUS, n);
        goto done;
    }
    uint64_t random = o.seed ^ 0xD1B54A32D192ED03ull;
    for (uint32_t i = available - 1; i > 0; --i) {
        uint32_t j = (uint32_t)(next_random(&random) % (i + 1));
        skim_vec3 t = spots[i];
        spots[i] = spots[j];
        spots[j] = t;
    }
    skim_crowd_def def = skim_crowd_def_default();
    def.capacity = n;
    def.agent_collisions = !o.world_only;
    def.avoidance_interval = (uint32_t)o.avoidance_interval;
    def.resting = !o.no_resting;
    if (skim_crowd_create(&def, &crowd) != SKIM_OK) {
        tool_failed("crowd", "cannot make a crowd of %u", n);
        goto done;
    }
    for (uint32_t i = 0; i < n; ++i) {
        skim_agent_def agent = skim_agent_def_default();
        agent.position = spots[i];
        if (o.stay_on_floor)
            agent.flags |= SKIM_AGENT_STAYS_ON_FLOOR;
        uint32_t id;
        if (skim_crowd_add(crowd, &agent, &id) != SKIM_OK) {
            tool_failed("crowd", "cannot add agent %u", i);
            goto done;
        }
    }
    trails.agents = n;
    trails.frames_per_sample = (uint32_t)((o.frames * (uint64_t)n + TRAIL_POINTS - 1) / TRAIL_POINTS);
    if (trails.frames_per_sample < 1)
        trails.frames_per_sample = 1;
    trails.samples = o.svg ? (uint32_t)(o.frames / trails.frames_per_sample + 2) : 0;
    radius = malloc((size_t)n * sizeof *radius);
    marks = malloc(n);
    squeezed = calloc(n, 1);
    trails.points = o.svg ? malloc((size_t)trails.samples * n * sizeof(skim_vec3)) : NULL;
    if (!radius || !marks || !squeezed || (o.svg && !trails.points) ||
        (o.goals && !tool_goals_init(&goals, spots, available, n, WALK_SPEED, o.seed))) {
        tool_failed("crowd", "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n; ++i)
        radius[i] = AGENT_RADIUS;
    trails.radius = radius;
    if ((code = run(&o, scene.world, crowd, &trails, &f, o.goals ? &goals : NULL, &bodies, squeezed)))
        goto done;
    if (o.goals) {
        tool_goals_marks(&goals, crowd, marks);
        f.arrivals = goals.arrivals, f.give_ups = goals.give_ups;
        for (uint32_t i = 0; i < n; ++i)
            f.agents_arrived += goals.reached[i] > 0;
    } else {
        tool_wander_marks(crowd, n, marks);
    }
    for (uint32_t i = 0; i < n; ++i)
        if (squeezed[i])
            marks[i] = MARK_SQUEEZED;
    trails.marks = marks;
    if (o.svg) {
        char caption[256];
        snprintf(caption, sizeof caption, "skim crowd%s: %u agents, %llu frames on %s; trails sampled every %u frames",
                 o.goals ? " --goals" : "", n, (unsigned long long)o.frames, o.scene, trails.frames_per_sample);
        tool_svg_bodies drawn = { .count = bodies.count };
        for (uint32_t b = 0; b < bodies.count; ++b) {
            drawn.mesh[b] = &bodies.mesh[b];
            skim_world_get_body_transform(scene.world, bodies.id[b], &drawn.at[b], NULL);
        }
        if (!tool_write_svg(o.svg, &scene, &trails, &drawn, caption)) {
            code = tool_failed("crowd", "cannot write '%s'", o.svg);
            goto done;
        }
    }
    if (o.json)
        print_json(&o, &f);
    else
        print_summary(&o, &f);
    code = EXIT_OK;
done:
    tool_goals_free(&goals);
    free(spots);
    free(radius);
    free(marks);
    free(squeezed);
    free((void *)trails.points);
    skim_crowd_destroy(crowd);
    tool_scene_close(&scene);
    for (uint32_t b = 0; b < bodies.count; ++b) { /* after the world that holds them */
        skim_world_destroy(bodies.shape[b]);
        skim_mesh_data_free(&bodies.mesh[b]);
    }
    return code;
}
