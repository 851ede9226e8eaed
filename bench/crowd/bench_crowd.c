/* Crowd benchmarks, one JSON object per line on stdout, progress on stderr.

   Scenarios (crowd_scenario.h):
     wander  agents walking in random directions (crowd_wander.c), the
             default;
     circle  agents on a circle, each to the opposite point;
     door    two groups swapping sides through a doorway three agents wide;
     level   agents on a real level (SKIM_SCENES_DIR) with goals they reach
             alone walking straight.
   The runs with goals report arrivals, time to arrive over the
   straight-line time, the worst overlap of two agents and the time per
   frame split into agents and world, on 1 and 2 threads.

   usage: bench_crowd [--scenario wander] [wander options: --help shows them]
          bench_crowd --scenario circle|door|level [--agents N[,N...]]
                      [--threads 1|2] [--scene NAME[,NAME...]]
                      [--steer target|velocity] [--avoidance on|off] [--avoidance-interval K]
                      [--stay-on-floor on|off] [--seed S] [--quiet]
   --stay-on-floor on flags the level's agents SKIM_AGENT_STAYS_ON_FLOOR,
   when their goals are picked too. Exit 77 (a skip) when the level
   scenario finds no level. */
#include "crowd_goals.h"
#include "crowd_wander.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 8

typedef struct goals_cli {
    const char *scenario;
    uint32_t agents[MAX_LIST];
    int agent_count;
    char scene_text[256];
    const char *scenes[MAX_LIST];
    int scene_count;
    int threads; /* 0 = 1 and 2 */
    uint64_t seed;
    uint32_t agent_flags; /* --stay-on-floor on: SKIM_AGENT_STAYS_ON_FLOOR (the level scenario) */
    crowd_goals_options run;
} goals_cli;

static int usage(void)
{
    fprintf(stderr, "usage: bench_crowd [--scenario wander] [--quick] [--threads 1|2] "
                    "[--only plaza|default AGENTS on|off] [--frames F]\n"
                    "       bench_crowd --scenario circle|door|level [--agents N[,N...]] [--threads 1|2]\n"
                    "                   [--scene NAME[,NAME...]] [--steer target|velocity] [--avoidance on|off]\n"
                    "                   [--avoidance-interval K] [--stay-on-floor on|off]\n"
                    "                   [--seed S] [--quiet]\n");
    return 2;
}

static int split_agents(const char *text, goals_cli *c)
{
    c->agent_count = 0;
    while (*text && c->agent_count < MAX_LIST) {
        char *end;
        unsigned long n = strtoul(text, &end, 10);
        if (end == text || n > 1000000 || (*end && *end != ','))
            return -1;
        c->agents[c->agent_count++] = (uint32_t)n;
        text = *end ? end + 1 : end;
    }
    return c->agent_count ? 0 : -1;
}

static int split_scenes(const char *text, goals_cli *c)
{
    snprintf(c->scene_text, sizeof c->scene_text, "%s", text);
    c->scene_count = 0;
    for (char *part = strtok(c->scene_text, ","); part && c->scene_count < MAX_LIST; part = strtok(NULL, ","))
        c->scenes[c->scene_count++] = part;
    return c->scene_count ? 0 : -1;
}

static int parse(int argc, char **argv, goals_cli *c)
{
    c->run = (crowd_goals_options){ .steer = STEER_TARGET, .avoidance = true,
                                    .avoidance_interval = skim_crowd_def_default().avoidance_interval,
                                    .progress = true };
    c->seed = 1;
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--quiet") == 0) {
            c->run.progress = false;
            continue;
        }
        if (!v)
            return -1;
        ++i;
        if (strcmp(o, "--scenario") == 0)
            c->scenario = v;
        else if (strcmp(o, "--agents") == 0 && split_agents(v, c) == 0)
            continue;
        else if (strcmp(o, "--scene") == 0 && split_scenes(v, c) == 0)
            continue;
        else if (strcmp(o, "--threads") == 0 && (strcmp(v, "1") == 0 || strcmp(v, "2") == 0))
            c->threads = atoi(v);
        else if (strcmp(o, "--steer") == 0 && (strcmp(v, "target") == 0 || strcmp(v, "velocity") == 0))
            c->run.steer = strcmp(v, "target") == 0 ? STEER_TARGET : STEER_VELOCITY;
        else if (strcmp(o, "--stay-on-floor") == 0 && (strcmp(v, "on") == 0 || strcmp(v, "off") == 0))
            c->agent_flags = strcmp(v, "on") == 0 ? SKIM_AGENT_STAYS_ON_FLOOR : 0;
        else if (strcmp(o, "--avoidance") == 0 && (strcmp(v, "on") == 0 || strcmp(v, "off") == 0))
            c->run.avoidance = strcmp(v, "on") == 0;
        else if (strcmp(o, "--avoidance-interval") == 0 && atoi(v) >= 1 && atoi(v) <= 16)
            c->run.avoidance_interval = (uint32_t)atoi(v);
        else if (strcmp(o, "--seed") == 0)
            c->seed = strtoull(v, NULL, 10);
        else
            return -1;
    }
    return 0;
}

/* Builds the scenario; 0, 1 (failed) or 77 (no level). */
static int build(const goals_cli *c, const char *scene, uint32_t agents, crowd_scenario *s)
{
    bool ok, missing = false;
    if (strcmp(c->scenario, "circle") == 0)
        ok = scenario_circle(agents, c->seed, s);
    else if (strcmp(c->scenario, "door") == 0)
        ok = scenario_door(agents, c->seed, s);
    else
        ok = scenario_level(scene, agents, c->seed, c->agent_flags, s, &missing);
    if (missing) {
        fprintf(stderr, "bench_crowd: skipped: no level %s.obj (set SKIM_SCENES_DIR)\n", scene);
        return 77;
    }
    if (!ok) {
        fprintf(stderr, "bench_crowd: cannot build the %s scenario for %u agents\n", c->scenario, agents);
        return 1;
    }
    return 0;
}

static int run_goals(goals_cli *c)
{
    if (!c->agent_count) {
        bool circle = strcmp(c->scenario, "circle") == 0, door = strcmp(c->scenario, "door") == 0;
        c->agent_count = circle ? 2 : 1;
        c->agents[0] = circle ? 250 : door ? 200 : 0;
        c->agents[1] = 1000;
    }
    if (!c->scene_count)
        split_scenes("oa_dm1,oa_dm4_hull", c);
    const bool level = strcmp(c->scenario, "level") == 0;
    int skipped = 0, ran = 0;
    for (int k = 0; k < (level ? c->scene_count : 1); ++k)
        for (int a = 0; a < c->agent_count; ++a) {
            crowd_scenario s;
            int code = build(c, c->scenes[k], c->agents[a], &s);
            if (code == 77) {
                skipped++;
                continue;
            }
            if (code)
                return code;
            for (int threads = 1; threads <= 2; ++threads) {
                if (c->threads && threads != c->threads)
                    continue;
                c->run.threads = threads;
                crowd_result r;
                if (!crowd_goals_run(&s, &c->run, &r)) {
                    scenario_free(&s);
                    return 1;
                }
                crowd_print(&s, &r);
                ran++;
            }
            scenario_free(&s);
        }
    return skipped && !ran ? 77 : 0;
}

int main(int argc, char **argv)
{
    const char *scenario = "wander";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage();
            return 0;
        }
        if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc)
            scenario = argv[i + 1];
    }
    if (strcmp(scenario, "wander") == 0) {
        /* The wander options, without --scenario wander. */
        char **rest = malloc((size_t)argc * sizeof *rest);
        int n = 0;
        for (int i = 1; i < argc; ++i) {
            if (strcmp(argv[i], "--scenario") == 0) {
                ++i;
                continue;
            }
            rest[n++] = argv[i];
        }
        int code = crowd_wander_main(n, rest);
        free(rest);
        return code;
    }
    if (strcmp(scenario, "circle") && strcmp(scenario, "door") && strcmp(scenario, "level"))
        return usage();
    goals_cli c = { 0 };
    if (parse(argc, argv, &c))
        return usage();
    return run_goals(&c);
}
