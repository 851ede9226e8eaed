/* Helpers the crowd suites share: a generator, and the test's own overlap
   check (brute force over all pairs, in double), independent of the
   library's broadphase and check. */
#ifndef CROWD_CHECK_H
#define CROWD_CHECK_H

#include <skim/skim.h>

#include <math.h>
#include <stdint.h>

typedef struct rng { uint64_t state; } rng;

static inline uint64_t rng_next(rng *r)
{
    r->state ^= r->state >> 12;
    r->state ^= r->state << 25;
    r->state ^= r->state >> 27;
    return r->state * 2685821657736338717ull;
}

static inline double rng_uniform(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Sends agent id walking across up (z up) at speed in direction angle. */
static inline void set_walk(skim_crowd *crowd, uint32_t id, double speed, double angle)
{
    skim_crowd_set_velocity(crowd, id, (skim_vec3){ (float)(speed * cos(angle)), (float)(speed * sin(angle)), 0 });
}

/* The deepest overlap between two agents' cylinders (z up), as a fraction
   of the pair's touching distance across up; 0 if none overlaps. Also
   returns the pair. */
static inline double deepest_overlap(const skim_crowd *crowd, uint32_t *worst_a, uint32_t *worst_b)
{
    const skim_vec3 *p = skim_crowd_positions(crowd);
    const uint32_t *state = skim_crowd_states(crowd);
    uint32_t capacity = skim_crowd_capacity(crowd);
    double worst = 0.0;
    for (uint32_t a = 0; a < capacity; ++a) {
        if (!(state[a] & SKIM_AGENT_ACTIVE))
            continue;
        skim_agent_info ia;
        skim_crowd_get_agent(crowd, a, &ia);
        for (uint32_t b = a + 1; b < capacity; ++b) {
            if (!(state[b] & SKIM_AGENT_ACTIVE))
                continue;
            skim_agent_info ib;
            skim_crowd_get_agent(crowd, b, &ib);
            double dx = (double)p[a].x - p[b].x, dy = (double)p[a].y - p[b].y, dz = (double)p[a].z - p[b].z;
            double r = (double)ia.radius + ib.radius, h = (double)ia.half_height + ib.half_height;
            double across = r - sqrt(dx * dx + dy * dy), along = h - fabs(dz);
            if (across <= 0.0 || along <= 0.0)
                continue;
            double depth = fmin(across / r, along / h);
            if (depth > worst) {
                worst = depth;
                if (worst_a)
                    *worst_a = a;
                if (worst_b)
                    *worst_b = b;
            }
        }
    }
    return worst;
}

/* The tolerance the suites hold the crowd to: 1e-3 of the touching
   distance (the library's own check allows 1e-4). */
#define OVERLAP_TOLERANCE 1e-3

#endif
