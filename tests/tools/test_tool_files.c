/* The `skim` tool and the files it is given: an output that is one of the
   inputs is refused before anything is written, an output that cannot be
   written is found before the work starts (with the system's reason), and
   names are quoted in its JSON and its SVG so any name gives a valid
   document. */
#include "tool_run.h"

#include <sys/stat.h>

static void make_dir(char *path, size_t size)
{
    snprintf(path, size, "/tmp/skim_tool_files_XXXXXX");
    cr_assert_not_null(mkdtemp(path));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static long file_size(const char *path)
{
    struct stat info;
    return stat(path, &info) == 0 ? (long)info.st_size : -1;
}

static const char level[] = "v -200 -200 0\nv 200 -200 0\nv 200 200 0\nv -200 200 0\nf 1 2 3\nf 1 3 4\n";

/* `--svg x.obj --scene x.obj` and `bake x.obj -o x.obj`, and the same file
   under another name (a link): refused, exit 2, the input untouched. */
Test(tool_files, an_output_that_is_an_input_is_refused_and_the_input_kept)
{
    char dir[64], obj[128], other_name[128];
    make_dir(dir, sizeof dir);
    snprintf(obj, sizeof obj, "%s/x.obj", dir);
    snprintf(other_name, sizeof other_name, "%s/same.obj", dir);
    write_text(obj, level);
    cr_assert_eq(symlink(obj, other_name), 0);
    const long size = file_size(obj);
    const char *outputs[2] = { obj, other_name };
    for (int i = 0; i < 2; ++i) {
        outcome *o = run("crowd", "--scene", obj, "--agents", "1", "--frames", "1", "--svg", outputs[i], NULL);
        cr_expect_eq(o->code, 2, "exit %d: %s", o->code, o->err);
        cr_expect(strstr(o->err, "is the input") != NULL, "%s", o->err);
        free(o);
        o = run("bake", obj, "-o", outputs[i], NULL);
        cr_expect_eq(o->code, 2, "exit %d: %s", o->code, o->err);
        cr_expect(strstr(o->err, "is the input") != NULL, "%s", o->err);
        free(o);
        cr_expect_eq(file_size(obj), size, "the input was overwritten");
    }
    char command[160];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_expect_eq(system(command), 0);
}

/* An output in a folder that does not exist: exit 1 before the run, with
   the system's reason. */
Test(tool_files, an_unwritable_output_is_found_before_the_work)
{
    outcome *o = run("crowd", "--agents", "1", "--frames", "2000", "--svg", "/nonexistent/run.svg", NULL);
    cr_expect_eq(o->code, 1, "exit %d: %s", o->code, o->err);
    cr_expect(strstr(o->err, "/nonexistent/run.svg") != NULL && strstr(o->err, "No such file or directory") != NULL,
              "%s", o->err);
    cr_expect(strstr(o->out, "mover-steps") == NULL, "the run went ahead: %s", o->out);
    free(o);
    o = run("bake", "default", "-o", "/nonexistent/world.bake", NULL);
    cr_expect_eq(o->code, 1, "exit %d: %s", o->code, o->err);
    cr_expect(strstr(o->err, "No such file or directory") != NULL, "%s", o->err);
    free(o);
}

/* A scene and a picture whose names hold '"', '\', '<', '>' and '&': the
   JSON quotes them as JSON strings, the SVG's caption as XML text. */
Test(tool_files, names_are_quoted_in_the_json_and_the_svg)
{
    char dir[64], obj[160], svg[160];
    make_dir(dir, sizeof dir);
    snprintf(obj, sizeof obj, "%s/we\"ird\\<&>.bake", dir);
    snprintf(svg, sizeof svg, "%s/run\"&<>.svg", dir);
    outcome *o = run("bake", "default", "-o", obj, NULL);
    cr_assert_eq(o->code, 0, "exit %d: %s", o->code, o->err);
    free(o);
    o = run("crowd", "--scene", obj, "--agents", "2", "--frames", "2", "--svg", svg, "--json", NULL);
    cr_assert_eq(o->code, 0, "exit %d: %s", o->code, o->err);
    char expected[256];
    snprintf(expected, sizeof expected, "\"scene\":\"%s/we\\\"ird\\\\<&>.bake\"", dir);
    cr_expect(strstr(o->out, expected) != NULL, "'%s' not in %s", expected, o->out);
    snprintf(expected, sizeof expected, "\"svg\":\"%s/run\\\"&<>.svg\"}", dir);
    cr_expect(strstr(o->out, expected) != NULL, "'%s' not in %s", expected, o->out);
    free(o);
    FILE *f = fopen(svg, "r");
    cr_assert_not_null(f);
    static char picture[1 << 20];
    size_t n = fread(picture, 1, sizeof picture - 1, f);
    picture[n] = '\0';
    fclose(f);
    char *text = strstr(picture, "<text");
    cr_assert_not_null(text);
    char *end = strstr(text, "</text>");
    cr_assert_not_null(end);
    *end = '\0';
    cr_expect(strstr(text, "we&quot;ird\\&lt;&amp;&gt;.bake") != NULL, "caption: %s", text);
    const char *inside = strchr(text, '>') + 1;
    cr_expect(strchr(inside, '<') == NULL && strchr(inside, '"') == NULL, "raw markup in the caption: %s", inside);
    char command[160];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_expect_eq(system(command), 0);
}

/* A seed with a blank and a sign is not a whole number (strtoull took
   ' -5' as 2^64 - 5); a kernel set the machine cannot run is named, not
   reported as "room for 0 agents". */
Test(tool_files, bad_seeds_and_kernel_sets_are_named)
{
    expect_usage(run("crowd", "--seed", " -5", NULL), "--seed needs a whole number");
    expect_usage(run("crowd", "--seed", " 5", NULL), "--seed needs a whole number");
    setenv("SKIM_ISA", "bogus", 1);
    outcome *o = run("crowd", "--agents", "1", "--frames", "1", NULL);
    unsetenv("SKIM_ISA");
    cr_expect_eq(o->code, 1, "exit %d: %s", o->code, o->err);
    cr_expect(strstr(o->err, "SKIM_ISA=bogus") != NULL && strstr(o->err, "room for") == NULL, "%s", o->err);
    free(o);
}
