/* The `skim` tool run as a user would: exit codes (0 ok, 1 the work failed,
   2 bad command line), the messages on bad arguments, and the output of
   each command. Sanitizer builds (SKIM_TOOL_TEST_SANITIZED) start the tool
   once per command and kind of error, where each start costs a sanitized
   process's start and leak check: the same crowd on 1 and 2 threads and
   the further bad numbers of one option are the plain build's. */
#include <skim/skim.h>

#include "tool_run.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

Test(tool, help_and_no_command)
{
    outcome *o = run("--help", NULL);
    cr_assert_eq(o->code, 0);
    cr_assert(strstr(o->out, "usage: skim COMMAND") != NULL);
    cr_assert(strstr(o->out, "crowd") && strstr(o->out, "bake") && strstr(o->out, "info") && strstr(o->out, "sweep"));
    free(o);
    expect_usage(run(NULL), "no command given");
    expect_usage(run("fly", NULL), "unknown command 'fly'");
    /* Every command's --help prints the help, exit 0. */
    const char *const commands[] = { "crowd", "bake", "info", "sweep" };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) {
        o = run(commands[i], "--scene", "default", "--help", NULL);
        cr_assert_eq(o->code, 0, "skim %s --help: exit %d (%s)", commands[i], o->code, o->err);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: skim %s", commands[i]);
        cr_assert(strstr(o->out, usage) != NULL, "skim %s --help: %s", commands[i], o->out);
        free(o);
    }
}

Test(tool, crowd_bad_arguments)
{
    expect_usage(run("crowd", "--agents", "abc", NULL), "--agents needs a whole number");
#ifndef SKIM_TOOL_TEST_SANITIZED
    expect_usage(run("crowd", "--agents", "0", NULL), "--agents needs a whole number");
    expect_usage(run("crowd", "--agents", "-5", NULL), "--agents needs a whole number");
    expect_usage(run("crowd", "--frames", "1.5", NULL), "--frames needs a whole number");
    expect_usage(run("crowd", "--threads", "", NULL), "--threads needs a whole number");
#endif
    expect_usage(run("crowd", "--frames", NULL), "--frames needs a value");
    expect_usage(run("crowd", "--fast", NULL), "unknown option '--fast'");
}

Test(tool, crowd_runtime_failures_exit_1)
{
    outcome *o = run("crowd", "--scene", "/nonexistent/level.obj", NULL);
    cr_assert_eq(o->code, 1, "exit %d: %s", o->code, o->err);
    cr_assert(strstr(o->err, "/nonexistent/level.obj") != NULL, "%s", o->err);
    free(o);
    o = run("crowd", "--agents", "100000", "--frames", "1", NULL);
    cr_assert_eq(o->code, 1, "exit %d: %s", o->code, o->err);
    cr_assert(strstr(o->err, "has room for") != NULL, "%s", o->err);
    free(o);
    char bad[] = "/tmp/skim_bad_XXXXXX.obj";
    int fd = mkstemps(bad, 4);
    cr_assert_geq(fd, 0);
    const char *text = "v 0 0 0\nv 1 0 0\nf 1 2 3\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    o = run("crowd", "--scene", bad, NULL);
    unlink(bad);
    cr_assert_eq(o->code, 1);
    cr_assert(strstr(o->err, ":3: face corner 3: vertex index 3 is out of range") != NULL, "%s", o->err);
    free(o);
}

Test(tool, crowd_prints_the_figures_and_json)
{
    outcome *o = run("crowd", "--agents", "200", "--frames", "30", "--threads", "2", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    const char *lines[] = { "agents             200", "frames             30", "mover-steps/s", "time per frame",
                            "on floor / in air", "closest approach", "state hash" };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i)
        cr_assert(strstr(o->out, lines[i]) != NULL, "no '%s' in:\n%s", lines[i], o->out);
    cr_assert_eq(o->err[0], '\0', "progress on a pipe: %s", o->err);
    free(o);
    o = run("crowd", "--agents", "200", "--frames", "30", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    cr_assert_eq(o->out[0], '{');
    cr_assert(strchr(o->out, '\n') == strrchr(o->out, '\n'), "more than one line: %s", o->out);
    const char *keys[] = { "\"agents\":200", "\"frames\":30", "\"mover_steps_per_second\":", "\"ms_per_frame_median\":",
                           "\"on_floor\":", "\"in_air\":", "\"closest_approach\":", "\"state_hash\":" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
        cr_assert(strstr(o->out, keys[i]) != NULL, "no %s in %s", keys[i], o->out);
    free(o);
}

#ifndef SKIM_TOOL_TEST_SANITIZED
Test(tool, crowd_same_seed_same_hash_any_thread_count)
{
    outcome *a = run("crowd", "--agents", "300", "--frames", "40", "--threads", "1", "--json", NULL);
    outcome *b = run("crowd", "--agents", "300", "--frames", "40", "--threads", "2", "--json", NULL);
    cr_assert_eq(a->code, 0);
    cr_assert_eq(b->code, 0);
    const char *ha = strstr(a->out, "\"state_hash\":"), *hb = strstr(b->out, "\"state_hash\":");
    cr_assert(ha && hb);
    cr_assert_eq(strncmp(ha, hb, 32), 0, "%.32s vs %.32s", ha, hb);
    free(a);
    free(b);
}
#endif

Test(tool, crowd_writes_an_svg)
{
    char path[] = "/tmp/skim_crowd_XXXXXX.svg";
    int fd = mkstemps(path, 4);
    cr_assert_geq(fd, 0);
    close(fd);
    outcome *o = run("crowd", "--agents", "50", "--frames", "20", "--svg", path, NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    free(o);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    static char svg[1 << 20];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    svg[n] = '\0';
    fclose(f);
    unlink(path);
    cr_assert(strncmp(svg, "<svg ", 5) == 0);
    cr_assert(strstr(svg, "</svg>") != NULL);
    int trails = 0;
    for (const char *p = svg; (p = strstr(p, "<polyline")) != NULL; ++p)
        ++trails;
    cr_assert_eq(trails, 50, "%d trails for 50 agents", trails);
}

Test(tool, bake_info_and_sweep)
{
    expect_usage(run("bake", NULL), "no mesh given");
    expect_usage(run("bake", "default", NULL), "no output file given");
    expect_usage(run("info", NULL), "no file given");
    expect_usage(run("sweep", "--from", "0,0,100", NULL), "are both needed");
    expect_usage(run("sweep", "--from", "0,0", "--delta", "0,0,-1", NULL), "--from needs X,Y,Z");
    expect_usage(run("sweep", "--from", "0,0,100", "--delta", "0,0,-1", "--radius", "-3", NULL), "--radius needs");
    outcome *o = run("info", "default", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    cr_assert(strstr(o->out, "triangles") != NULL);
    free(o);
    o = run("info", "/nonexistent.skim", NULL);
    cr_assert_eq(o->code, 1);
    free(o);
    o = run("sweep", "--from", "0,-1000,100", "--delta", "0,0,-200", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    cr_assert(strstr(o->out, "\"hit\":true") != NULL, "%s", o->out);
    cr_assert(strstr(o->out, "\"normal\":[0,0,1]") != NULL, "%s", o->out);
    free(o);
    char path[] = "/tmp/skim_bake_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    o = run("bake", "default", "-o", path, NULL);
    if (o->code == 0) {
        cr_assert(strstr(o->out, "wrote") != NULL);
        free(o);
        o = run("info", path, NULL);
        cr_assert_eq(o->code, 0, "%s", o->err);
        cr_assert(strstr(o->out, "loaded from a baked file") != NULL, "%s", o->out);
    } else {
        /* skim_world_save may not be there yet: then it must fail cleanly. */
        cr_assert_eq(o->code, 1, "%s", o->err);
    }
    free(o);
    unlink(path);
}

Test(tool, version_names_the_headers_and_the_library)
{
    outcome *o = run("--version", NULL);
    cr_assert_eq(o->code, 0, "exit %d (%s)", o->code, o->err);
    char expected[128];
    snprintf(expected, sizeof expected, "skim %s (library %s, kernels ", SKIM_VERSION_STRING, SKIM_VERSION_STRING);
    cr_assert(strncmp(o->out, expected, strlen(expected)) == 0, "'%s' does not start with '%s'", o->out, expected);
    free(o);
}

Test(tool, help_command_prints_that_command_only)
{
    outcome *o = run("help", "sweep", NULL);
    cr_assert_eq(o->code, 0, "exit %d (%s)", o->code, o->err);
    cr_assert(strstr(o->out, "usage: skim sweep") != NULL, "%s", o->out);
    cr_assert(strstr(o->out, "usage: skim COMMAND") == NULL && strstr(o->out, "bake MESH") == NULL &&
              strstr(o->out, "--agents N") == NULL, "%s", o->out);
    free(o);
    o = run("help", NULL);
    cr_assert_eq(o->code, 0);
    cr_assert(strstr(o->out, "usage: skim COMMAND") != NULL, "%s", o->out);
    free(o);
    expect_usage(run("help", "fly", NULL), "unknown command 'fly'");
}

Test(tool, options_take_their_value_after_an_equals_sign)
{
    outcome *spaced = run("sweep", "--from", "0,0,100", "--delta", "0,0,-200", "--json", NULL);
    outcome *joined = run("sweep", "--from=0,0,100", "--delta=0,0,-200", "--json", NULL);
    cr_assert_eq(spaced->code, 0, "exit %d (%s)", spaced->code, spaced->err);
    cr_assert_eq(joined->code, 0, "exit %d (%s)", joined->code, joined->err);
    cr_assert(strstr(joined->out, "\"hit\":true") != NULL, "%s", joined->out);
    cr_assert_str_eq(joined->out, spaced->out);
    free(spaced);
    free(joined);
    expect_usage(run("sweep", "--from=", "--delta=0,0,-200", NULL), "--from needs X,Y,Z");
    expect_usage(run("crowd", "--agents=abc", NULL), "--agents needs a whole number");
}

Test(tool, info_json_is_one_object_with_the_statistics)
{
    outcome *o = run("info", "default", "--json", NULL);
    cr_assert_eq(o->code, 0, "exit %d (%s)", o->code, o->err);
    cr_assert(o->out[0] == '{' && strstr(o->out, "}\n") != NULL && strchr(o->out, '\n') == o->out + strlen(o->out) - 1,
              "not one JSON object on one line: %s", o->out);
    cr_assert(strstr(o->out, "\"world\":\"default\"") != NULL, "%s", o->out);
    cr_assert(strstr(o->out, "\"accelerator\":\"bvh\"") != NULL, "%s", o->out);
    unsigned triangles = 0;
    const char *at = strstr(o->out, "\"triangles\":");
    cr_assert(at && sscanf(at, "\"triangles\":%u", &triangles) == 1 && triangles > 1000, "%s", o->out);
    free(o);
    expect_usage(run("info", "default", "--jsn", NULL), "unknown option '--jsn'");
}

/* --goals: agents walk to spots and arrive; the same crowd on 1 and 2
   threads; the picture rings agents by what became of them, with a legend. */
Test(tool, crowd_goals_agents_arrive)
{
    outcome *b = run("crowd", "--goals", "--agents", "200", "--frames", "240", "--threads", "2", "--json", NULL);
    cr_assert_eq(b->code, 0, "%s", b->err);
    cr_assert(strstr(b->out, "\"goals\":true") != NULL, "%s", b->out);
    cr_assert(strstr(b->out, "\"bodies\":3,") != NULL, "the default scene's bodies are missing: %s", b->out);
    const char *arrivals = strstr(b->out, "\"arrivals\":");
    cr_assert_not_null(arrivals, "%s", b->out);
    cr_assert_gt(strtoull(arrivals + strlen("\"arrivals\":"), NULL, 10), 100u, "%s", b->out);
#ifndef SKIM_TOOL_TEST_SANITIZED
    outcome *a = run("crowd", "--goals", "--agents", "200", "--frames", "240", "--threads", "1", "--json", NULL);
    cr_assert_eq(a->code, 0, "%s", a->err);
    const char *ha = strstr(a->out, "\"state_hash\":"), *hb = strstr(b->out, "\"state_hash\":");
    cr_assert(ha && hb);
    cr_assert_eq(strncmp(ha, hb, 32), 0, "%.32s vs %.32s", ha, hb);
    free(a);
#endif
    free(b);

    char path[] = "/tmp/skim_goals_XXXXXX.svg";
    int fd = mkstemps(path, 4);
    cr_assert_geq(fd, 0);
    close(fd);
    outcome *o = run("crowd", "--goals", "--agents", "100", "--frames", "120", "--svg", path, NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    cr_assert(strstr(o->out, "arrivals") != NULL, "%s", o->out);
    free(o);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    static char svg[1 << 20];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    svg[n] = '\0';
    fclose(f);
    unlink(path);
    cr_assert(strstr(svg, "</svg>") != NULL);
    cr_assert(strstr(svg, "arrived at a goal (") != NULL);
    cr_assert(strstr(svg, "stuck: gave up on a goal or could not move (") != NULL);
    cr_assert(strstr(svg, "squeezed by a moving body (") != NULL);
    cr_assert(strstr(svg, "moving body, where it ended (3)") != NULL, "the default scene's bodies are not drawn");
    cr_assert(strstr(svg, "stroke=\"#1a9850\"") != NULL, "no agent ringed as arrived");
}

Test(tool, ray_overlap_closest_and_floor)
{
    expect_usage(run("ray", "--from", "0,0,100", NULL), "--delta DX,DY,DZ is needed");
    expect_usage(run("ray", "--from", "0,nan,0", "--delta", "0,0,-1", NULL), "--from needs X,Y,Z");
    expect_usage(run("overlap", "--delta", "0,0,1", "--from", "0,0,16", NULL), "unknown option '--delta'");
    expect_usage(run("closest", "--from", "0,0,16", "--max-distance", "-1", NULL), "--max-distance needs");
    expect_usage(run("floor", NULL), "--from X,Y,Z is needed");
    outcome *o = run("ray", "--from", "0,0,100", "--delta", "0,0,-1000", "--json", NULL);
    cr_assert_eq(o->code, 0, "%s", o->err);
    cr_assert(strstr(o->out, "{\"hit\":true,\"t\":0.100000001,\"point\":[0,0,0],\"normal\":[0,0,1]"), "%s", o->out);
    free(o);
    o = run("overlap", "--from", "0,0,16", "--json", NULL);
    cr_assert(o->code == 0 && strstr(o->out, "{\"count\":") && strstr(o->out, "\"triangles\":["), "%s", o->out);
    cr_assert(strstr(o->out, "{\"count\":0") == NULL, "a sphere resting on the floor touches it: %s", o->out);
    free(o);
    o = run("closest", "--from", "0,0,50", "--json", NULL);
    cr_assert(o->code == 0 && strstr(o->out, "{\"found\":true,\"distance\":50,\"point\":[0,0,0]"), "%s", o->out);
    free(o);
    o = run("closest", "--from", "0,0,50", "--max-distance", "10", NULL);
    cr_assert(o->code == 0 && strstr(o->out, "nothing within 10"), "%s", o->out);
    free(o);
    o = run("floor", "--from", "0,0,100", "--json", NULL);
    cr_assert(o->code == 0 && strstr(o->out, "{\"floor\":true,\"position\":[0,0,16.16"), "%s", o->out);
    free(o);
    o = run("floor", "--from", "0,0,100", "--max-drop", "10", NULL);
    cr_assert(o->code == 0 && strstr(o->out, "no walkable floor within 10"), "%s", o->out);
    free(o);
}
