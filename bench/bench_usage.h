/* The benchmarks' answer to an argument they do not take: --help (or -h)
   prints the usage on stdout and exits 0; anything else is named on
   stderr with the usage and exits 2, rather than being ignored (a bench
   that ignores its arguments runs for minutes on a typo). Header-only:
   the benches are separate programs in separate directories. */
#ifndef SKIM_BENCH_USAGE_H
#define SKIM_BENCH_USAGE_H

#include <stdio.h>
#include <string.h>

/* The exit status for argument `arg` of program `program`, having printed
   usage where it belongs. */
static inline int bench_usage(const char *program, const char *arg, const char *usage)
{
    const int help = strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
    if (!help)
        fprintf(stderr, "%s: unknown option or missing value: %s\n", program, arg);
    fputs(usage, help ? stdout : stderr);
    return help ? 0 : 2;
}

#endif
