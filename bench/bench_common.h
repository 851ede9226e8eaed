/* What the benchmarks share: a wall clock, the machine's load and a
   reproducible random stream (Steele, Lea, Flood, "Fast Splittable
   Pseudorandom Number Generators", 2014: SplitMix64). Header-only, as
   bench_usage.h: each bench is its own program in its own directory. */
#ifndef SKIM_BENCH_COMMON_H
#define SKIM_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* Monotonic wall-clock seconds. */
static inline double bench_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The machine's load over the last minute (it may be shared): -1 when
   unknown. */
static inline double bench_load_average(void)
{
    double load = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1.0;
        fclose(f);
    }
    return load;
}

/* The next 64 bits of the stream in *state. */
static inline uint64_t bench_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
