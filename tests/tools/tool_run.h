/* Runs the `skim` tool as a user would and collects its exit code,
   stdout and stderr (for the tools suites). */
#ifndef SKIM_TESTS_TOOL_RUN_H
#define SKIM_TESTS_TOOL_RUN_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct outcome {
    int code;
    char out[65536], err[8192];
} outcome;

static inline void drain(int fd, char *buffer, size_t size)
{
    size_t used = 0;
    ssize_t got;
    while ((got = read(fd, buffer + used, size - 1 - used)) > 0)
        used += (size_t)got;
    buffer[used] = '\0';
}

/* Runs the tool with the given arguments (NULL-terminated). */
static inline outcome *run(const char *first, ...)
{
    const char *argv[32] = { SKIM_TOOL_PATH };
    int argc = 1;
    va_list args;
    va_start(args, first);
    for (const char *a = first; a && argc < 31; a = va_arg(args, const char *))
        argv[argc++] = a;
    va_end(args);
    argv[argc] = NULL;
    int out_pipe[2], err_pipe[2];
    cr_assert_eq(pipe(out_pipe), 0);
    cr_assert_eq(pipe(err_pipe), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        close(out_pipe[0]);
        close(err_pipe[0]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    outcome *o = calloc(1, sizeof *o);
    /* The summaries are small; read stdout then stderr. */
    drain(out_pipe[0], o->out, sizeof o->out);
    drain(err_pipe[0], o->err, sizeof o->err);
    close(out_pipe[0]);
    close(err_pipe[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    o->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return o;
}

static inline void expect_usage(outcome *o, const char *words)
{
    cr_assert_eq(o->code, 2, "exit %d, stderr: %s", o->code, o->err);
    cr_assert(strstr(o->err, words) != NULL, "stderr '%s' does not say '%s'", o->err, words);
    cr_assert(strstr(o->err, "skim --help") != NULL, "no pointer to --help in '%s'", o->err);
    cr_assert_eq(o->out[0], '\0', "usage errors print nothing on stdout: %s", o->out);
    free(o);
}

#endif
