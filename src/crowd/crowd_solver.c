/* Agent against agent: one linear constraint per nearby pair, solved by
   Jacobi projection (the collision chapter, "Object-to-Object Sliding"); the check after
   the world move is in crowd_check.c.

   Why a linear constraint along the axis that separated the pair at the
   START of the step: if (q_a - q_b) . n >= touching distance holds at both
   ends of a straight move, it holds all along it (it is linear in the
   positions), so the two cylinders never meet in between: no agent can pass
   through another however fast it goes (the chapter's "discrete time
   issue"). A projection onto the constraint removes only the component of
   motion into the other agent and keeps the rest, which is the chapter's
   "slide the least amount required to get the two objects out of each
   other's way": agents slide around each other instead of sticking.

   Why Jacobi: every agent computes its new position from the previous
   sweep's positions alone, in its fixed contact order, so the result does
   not depend on how agents are spread over threads. */
#include "crowd/crowd_internal.h"
#include "crowd/crowd_relax.h"

#include <string.h>

/* Marks agent i and its contact partners with stamp, right after the sweep
   moved i (its contacts are still in the cache). Threads may mark one agent
   at once, always with the same stamp: relaxed atomic stores, which are
   plain stores on the usual processors. */
static void mark_with_partners(skim_crowd *c, uint32_t i, uint32_t stamp)
{
    /* __atomic_store_n rather than `#pragma omp atomic write`: the same
       relaxed store, but GCC 12 does not count a parameter read only inside
       the pragma as used (-Werror=unused-but-set-parameter). */
    /* The bounds are read before the first store: GCC reads memory again
       after each atomic store. */
    uint32_t *mark = c->solver_mark;
    const crowd_contact *ct = c->contacts + c->contact_begin[i], *end = c->contacts + c->contact_begin[i + 1];
    __atomic_store_n(&mark[i], stamp, __ATOMIC_RELAXED);
    for (; ct < end; ++ct)
        __atomic_store_n(&mark[ct->other], stamp, __ATOMIC_RELAXED);
}

/* Keeps the agents of list[0 .. count) marked with stamp, in order;
   returns how many. Without a branch: the keep/drop pattern is random. */
static uint32_t keep_marked(const uint32_t *mark, uint32_t stamp, uint32_t *list, uint32_t count)
{
    uint32_t kept = 0;
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t i = list[k];
        list[kept] = i;
        kept += mark[i] == stamp;
    }
    return kept;
}

/* Work items per chunk of a sweep: a few microseconds of work. */
#define SWEEP_CHUNK 128
/* Below this many agents on the list, one thread makes the remaining
   sweeps alone: each parallel sweep is two phases, and the last sweeps
   hold a few hundred agents, a few microseconds of work. */
#define SWEEP_PARALLEL_MIN 1024

/* Relaxes the listed agents work[first, last) from q into next, marking
   those that moved, with their partners, for the next sweep (stamp).
   Whether any moved. */
static bool relax_listed(skim_crowd *c, const float *q, float *next, uint32_t first, uint32_t last,
                         uint32_t stamp)
{
    bool violated = false;
    for (uint32_t w = first; w < last; ++w) {
        uint32_t i = c->work[w];
        bool moved = crowd_relax_agent(c, q, next, i);
        c->pushed[i] |= moved;
        if (moved)
            mark_with_partners(c, i, stamp);
        violated |= moved;
    }
    return violated;
}

/* Sweeps from iteration on, one thread, over the list of m agents; the
   buffers swap each sweep, starting from buffer which. Returns the buffer
   that holds the result. */
static uint32_t sweep_alone(skim_crowd *c, float *const buffers[2], uint32_t which, int iteration, uint32_t m)
{
    for (; iteration < c->def.solver_iterations && m > 0; ++iteration) {
        const uint32_t stamp = (uint32_t)iteration + 1;
        const bool violated = relax_listed(c, buffers[which], buffers[which ^ 1], 0, m, stamp);
        which ^= 1;
        if (!violated)
            break;
        m = keep_marked(c->solver_mark, stamp, c->work, m);
    }
    return which;
}

uint32_t crowd_solve(skim_crowd *c, uint32_t n, team_cursor *cursor)
{
    /* Jacobi double buffer: sweep s reads buffers[which] and writes the
       other; c->q itself is set after the region (crowd_solve_settle), so
       every thread sees the same two pointers throughout. */
    float *const buffers[2] = { c->q, c->q_next };
    crowd_shared *shared = &c->shared;
    /* The first sweep, from the plan: only the agents in a contact the
       plan violates move (crowd_find_contacts found them, with the test
       crowd_relax_agent makes, and counted the pairs in stats.contacts);
       everyone else stays where it is, so both buffers start as the plan. */
    const uint32_t chunks = team_chunks(n, SWEEP_CHUNK);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, SWEEP_CHUNK, n, &first, &last);
        memcpy(buffers[1] + 3 * (size_t)first, buffers[0] + 3 * (size_t)first,
               3 * (size_t)(last - first) * sizeof *buffers[0]);
        memset(c->solver_mark + first, 0, (size_t)(last - first) * sizeof *c->solver_mark);
    }
    team_wait(phase, chunks);
    const uint32_t stamp = 1;
    phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, SWEEP_CHUNK, n, &first, &last);
        bool violated = false;
        for (uint32_t i = first; i < last; ++i)
            if (c->pushed[i]) {
                crowd_relax_agent(c, buffers[0], buffers[1], i);
                mark_with_partners(c, i, stamp);
                violated = true;
            }
        if (violated)
            atomic_store_explicit(&shared->violated[0], 1, memory_order_relaxed);
    }
    team_wait(phase, chunks);
    if (!atomic_load_explicit(&shared->violated[0], memory_order_relaxed) || c->def.solver_iterations < 2)
        return 1;
    /* The next sweeps only over agents that moved in the last sweep and
       their neighbours: any other agent would see exactly what it saw
       last time (itself and its neighbours where they were, and no
       violation then), so its update would change nothing. The list only
       shrinks: an agent outside it cannot be pushed unless a neighbour
       moves into it, and the first list holds every pushed agent's
       neighbours; what a later push does to an agent outside the list is
       left to the check. In a sparse crowd the list is a few percent of
       the agents and empties in a few sweeps. The agents near a mover are
       marked by the movers (contacts are symmetric), so the cost follows
       the movers, not the crowd; the list keeps agent order, which any
       thread count gives alike. */
    phase = team_phase_next(cursor);
    if (team_serial(phase)) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; ++i) {
            c->work[m] = i;
            m += c->solver_mark[i] == stamp;
        }
        shared->listed[1] = m;
        team_finish(phase);
    }
    team_wait(phase, 1);
    uint32_t which = 1;
    for (int iteration = 1; iteration < c->def.solver_iterations; ++iteration) {
        const uint32_t m = shared->listed[iteration];
        if (m == 0)
            break;
        if (m < SWEEP_PARALLEL_MIN) {
            phase = team_phase_next(cursor);
            if (team_serial(phase)) {
                shared->rest_ended = sweep_alone(c, buffers, which, iteration, m);
                team_finish(phase);
            }
            team_wait(phase, 1);
            return shared->rest_ended;
        }
        const uint32_t sweep_stamp = (uint32_t)iteration + 1, sweep_chunks = team_chunks(m, SWEEP_CHUNK);
        const float *q = buffers[which];
        float *next = buffers[which ^ 1];
        phase = team_phase_next(cursor);
        for (uint32_t k; team_claim(phase, sweep_chunks, &k); team_finish(phase)) {
            uint32_t first, last;
            crowd_chunk_range(k, SWEEP_CHUNK, m, &first, &last);
            if (relax_listed(c, q, next, first, last, sweep_stamp))
                atomic_store_explicit(&shared->violated[iteration], 1, memory_order_relaxed);
        }
        team_wait(phase, sweep_chunks);
        /* Every listed agent was written, and every agent off the list
           holds the same value in both buffers. */
        which ^= 1;
        if (!atomic_load_explicit(&shared->violated[iteration], memory_order_relaxed))
            break;
        phase = team_phase_next(cursor);
        if (team_serial(phase)) {
            shared->listed[iteration + 1] = keep_marked(c->solver_mark, sweep_stamp, c->work, m);
            team_finish(phase);
        }
        team_wait(phase, 1);
    }
    return which;
}

void crowd_solve_settle(skim_crowd *c, uint32_t which)
{
    if (which == 1) {
        float *swap = c->q;
        c->q = c->q_next;
        c->q_next = swap;
    }
}
