/* What the bodies phase's files share: crowd_bodies.c (carries and
   pushes), crowd_bodies_chain.c (pushes handed on along rows of agents)
   and crowd_bodies_clear.c (the grid of the agents' ways and the rounds
   that give up what no push could clear). */
#ifndef SKIM_CROWD_BODIES_H
#define SKIM_CROWD_BODIES_H

#include "crowd/crowd_internal.h"
#include "world/world.h"

#include <string.h>

/* clear.depth of an agent no round of the chains has reached: the list
   (crowd_bodies_grid.c) gives every agent it, or 0 to the agents the
   bodies moved. */
#define CROWD_NOT_PUSHED UINT8_MAX

/* How far inside touching a shift may bring a pair, as a fraction of the
   touching distance (the crowd's own check allows the same). A pair that
   stood deeper than that may end no deeper at all: a tolerance taken from
   where the pair stood would add up, step after step, while a body keeps
   pressing, until the pair counted as placed overlapping. */
#define CROWD_CLEAR_TOLERANCE 1e-4

/* Moves agent id from x by d against the static triangles alone (a slide,
   neither stepping nor snapping); sets *squeezed when they stop it short
   of the goal by more than the skin. Counts into *moves one per straight
   move, two per slide. */
skim_status crowd_move_clear_of_static(const skim_world *statics, const skim_crowd *crowd, uint32_t id, double x[3],
                                       const double d[3], bool *squeezed, int *moves);

/* crowd_reserve, with every byte of new room set to `byte`: per-id
   arrays the phase writes only where a value changes are read first. */
static inline bool crowd_reserve_filled(void **items, size_t *capacity, size_t need, size_t size, int byte)
{
    const size_t before = *capacity;
    if (!crowd_reserve(items, capacity, need, size))
        return false;
    if (*capacity > before)
        memset((char *)*items + before * size, byte, (*capacity - before) * size);
    return true;
}

/* The cell of a point across up, for cells `cell` wide. */
void crowd_clear_cell_of(const skim_crowd *crowd, const double p[3], double cell, int32_t out[2]);
/* Where the phase has left agent id so far: shifted is written only for
   the agents it moved (clear.away), which spares the lines of the many it
   does not. */
static inline skim_vec3 crowd_shifted(const skim_crowd *c, uint32_t id)
{
    return c->clear.away[id] ? c->shifted[id] : c->position[id];
}

/* Where agent id stands if it keeps the fraction f of its shift. */
static inline void crowd_clear_place(const skim_crowd *c, uint32_t id, float f, double p[3])
{
    const skim_vec3 a = c->position[id], b = crowd_shifted(c, id);
    if (f == 1.0f) {
        p[0] = b.x, p[1] = b.y, p[2] = b.z;
    } else if (f == 0.0f) {
        p[0] = a.x, p[1] = a.y, p[2] = a.z;
    } else {
        p[0] = a.x + f * ((double)b.x - a.x);
        p[1] = a.y + f * ((double)b.y - a.y);
        p[2] = a.z + f * ((double)b.z - a.z);
    }
}

/* The cells (lo to hi, inclusive) that agent id's way from where it stood
   to where the phase has left it covers, grown by `grow` cells; one point
   for an agent the list does not hold (crowd_bodies_grid.c). */
void crowd_clear_cells_of_way(const skim_crowd *crowd, uint32_t id, double cell, int32_t grow, int32_t lo[2],
                              int32_t hi[2]);
/* Slots a chunk of the carries and pushes, and of the list and grid,
   covers (the active agents among them). */
#define CROWD_BODIES_CHUNK 64

/* Room in the clearing's scratch for n active agents (crowd_bodies_grid.c);
   false if out of memory. */
bool crowd_clear_reserve(skim_crowd *crowd, uint32_t n);
/* Marks chunk k's colliding agents the phase moved (clear.slot) and keeps
   the chunk's widest radius, longest shift and count (clear.chunk[k]);
   every agent's depth to CROWD_NOT_PUSHED. */
/* n: the crowd's capacity (chunks run over slots). */
void crowd_clear_mark_chunk(skim_crowd *crowd, uint32_t n, uint32_t k);
/* What the list and grid give the clearing. */
typedef struct crowd_clear_listed {
    uint32_t moved; /* colliding agents the phase moved, listed */
    double   cell;  /* the grid's cell width */
    bool     room;  /* false: out of memory */
} crowd_clear_listed;

/* After every chunk's marks, by every thread of the region that made them
   (team phases from *cursor): lists the colliding agents the phase moved
   (clear.slot, clear.moved, their fractions at 1) and builds the hashed
   grid of every colliding agent's way (crowd_bodies_grid.c); sets *out,
   the cells as wide as the widest pair's touching distance and as the
   longest shift. */
void crowd_clear_list_and_grid(skim_crowd *crowd, uint32_t n, team_cursor *cursor, crowd_clear_listed *out);
/* After the chains: the agents they moved (clear.changed) listed or, back
   where they stood, taken off the list, and their new ways put in the
   small grid (clear.extra_*); *moved updated. Every pair the whole grid
   would meet is met in the two. False if out of memory. */
bool crowd_clear_relist(skim_crowd *crowd, double cell, uint32_t *moved);
/* The signed gap between two agents' cylinders at pa and pb (negative:
   overlapping). */
double crowd_clear_gap(const skim_crowd *crowd, uint32_t a, uint32_t b, const double pa[3], const double pb[3]);
/* The closest a shift may bring agents a and b: touching less the
   tolerance, or as close as they stood when that was closer. */
double crowd_clear_allowed(const skim_crowd *crowd, uint32_t a, uint32_t b);

/* The longest row a push travels along in one step. */
#define CROWD_CHAIN_ROUNDS 32

/* What a round of the chains decides, for every thread of the region. */
typedef struct crowd_chain_round {
    uint32_t count;  /* agents of its frontier (from the round before) */
    uint32_t unique; /* agents it pushes */
    atomic_size_t fill; /* its pairs gathered by the threads */
    size_t   pairs;  /* its pairs */
    bool     room;   /* false: out of memory for them */
    bool     split;  /* its pushes are shared among the threads */
} crowd_chain_round;

/* What the chains' and the clearing's phases share across the region's
   threads. Each value that decides a thread's way is written once, in a
   serial phase, and read after that phase's wait: a thread that runs
   late must not read what a later phase wrote. */
typedef struct crowd_chain_run {
    atomic_int        failed; /* the lowest status a push along a row failed with, or SKIM_OK */
    crowd_chain_round round[CROWD_CHAIN_ROUNDS + 2];
    const uint32_t   *first;  /* where each pushed agent's pairs start, then the end */
    uint32_t          pushed; /* agents the chains moved, all rounds */
    uint32_t          moved;  /* agents listed after the chains (crowd_clear_relist) */
    bool              tail_room, relist_room; /* false: out of memory in rounds run on one thread, the relist */
    const float      *serial_kept; /* the clearing's fractions, when its rounds ended on one thread */
    bool              room;   /* false: out of memory; by the master thread alone, for after the region */
} crowd_chain_run;

/* Hands the pushes of the agents the bodies moved on to the agents they
   were pushed into, round after round (crowd_bodies_chain.c), from the
   first round's pairs, as team phases from *cursor, leaving `spare`
   phases of the region unused; the list of the agents the bodies moved
   and the grid of every colliding agent's way must be built. False if
   out of memory. */
bool crowd_bodies_chain_phases(const skim_world *statics, skim_crowd *crowd, team_cursor *cursor,
                               const crowd_clear_listed *listed, uint32_t spare, crowd_chain_run *run);

/* With the list and grid made, by every thread of their region: hands
   pushes on along rows, then gives up what of the bodies' shifts would
   still bring agents closer than their pairs allow, marking those agents
   squeezed (crowd_bodies_clear.c). run must be zero but for room, true.
   False if a push failed or memory ran out (every thread the same). */
bool crowd_bodies_clear_phases(const skim_world *statics, skim_crowd *crowd, team_cursor *cursor,
                               crowd_clear_listed *listed, crowd_chain_run *run);

/* The most phases the bodies take of the step's first region, whose
   other phases are the step's own (the solver's 64 sweeps at most, two
   phases each, and a few more). */
#define CROWD_BODIES_PHASES 96

/* The bodies phase of a step: what the threads of the step's first region
   share. */
typedef struct crowd_bodies_work {
    skim_world         statics; /* the world without its bodies */
    const skim_world  *world;
    uint32_t           n;       /* active agents */
    atomic_int         failed;  /* the lowest status a carry or push failed with, or SKIM_OK */
    crowd_clear_listed listed;
    crowd_chain_run    run;
} crowd_bodies_work;

/* Before the region, when bodies moved: room for the phase's scratch and
   *work made ready; a status (with its message) if out of memory. */
skim_status crowd_bodies_begin(const skim_world *world, skim_crowd *crowd, uint32_t n, crowd_bodies_work *work);
/* By every thread of the region, first: every active agent's carry and
   pushes, the rows and the clearing, as team phases from *cursor. False
   when something failed (every thread the same): the step goes no
   further, and crowd_bodies_end says why after the region. */
bool crowd_bodies_phases(skim_crowd *crowd, team_cursor *cursor, crowd_bodies_work *work);
/* After the region: the failure, with its message, or SKIM_OK. */
skim_status crowd_bodies_end(const crowd_bodies_work *work);

/* Keeps in *failed the lowest failing status: it does not depend on
   which thread met which failure first. */
static inline void crowd_note_failure(atomic_int *failed, skim_status status)
{
    for (int was = atomic_load(failed); status != SKIM_OK && (was == SKIM_OK || (int)status < was);)
        if (atomic_compare_exchange_weak(failed, &was, (int)status))
            break;
}

/* A team phase of chunks, each by work(k) (src/base/team.h). */
#define CHUNK_PHASE(cursor, chunks, work)                                                                      \
    do {                                                                                                       \
        team_phase *phase_ = team_phase_next(cursor);                                                          \
        for (uint32_t k; team_claim(phase_, (chunks), &k); team_finish(phase_))                                \
            work;                                                                                              \
        team_wait(phase_, (chunks));                                                                           \
    } while (0)

/* A serial step, by one thread, before every thread goes on. */
#define SERIAL_PHASE(cursor, work)                                                                             \
    do {                                                                                                       \
        team_phase *phase_ = team_phase_next(cursor);                                                          \
        if (team_serial(phase_)) {                                                                             \
            work;                                                                                              \
            team_finish(phase_);                                                                               \
        }                                                                                                      \
        team_wait(phase_, 1);                                                                                  \
    } while (0)

/* Leaves a region of team phases: one thread keeps how many phases ran
   (for crowd_clear_region after the region), and each thread says it left. */
#ifdef _OPENMP
#define LEAVE_PHASES(c, cursor, used)                                                                          \
    do {                                                                                                       \
        if (omp_get_thread_num() == 0)                                                                         \
            (used) = (cursor).at;                                                                              \
        team_leave_region(&(c)->shared.left);                                                                  \
    } while (0)
#else
#define LEAVE_PHASES(c, cursor, used)                                                                          \
    do {                                                                                                       \
        (used) = (cursor).at;                                                                                  \
        team_leave_region(&(c)->shared.left);                                                                  \
    } while (0)
#endif

#endif
