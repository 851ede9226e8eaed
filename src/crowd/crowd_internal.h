/* Crowd internals shared by crowd.c (the API), crowd_grid.c (broadphase),
   crowd_contacts.c (this step's contacts), crowd_contact_setup.c (their
   constraints), crowd_solver.c (the agent-agent solver), crowd_check.c
   (the check) and crowd_step.c (one step).

   Three index spaces. The user holds an agent's id. Its records live in
   a slot of the capacity-long arrays of struct skim_crowd (slot_of[id],
   id_of[slot]; every id has a slot, a free id a free one), and now and
   then the slots are put in the step's order (crowd_slots.c), so a pass
   over the agents reads their records in order; inside the crowd every
   record index is a slot (named `slot` in the step, `id` in the bodies'
   files, where `clear.slot` is another thing), and only the entry points
   see ids. During a step the active agents are numbered
   0..n-1 (the "active index") in an order that depends on the agents alone
   (with agent collisions, the grid's cell order from the last list build,
   crowd_grid.c; else id order), and every working array of the step is
   indexed that way. Iterating in that fixed order is what makes the step
   independent of the thread count; nothing is ordered by slot. */
#ifndef SKIM_CROWD_INTERNAL_H
#define SKIM_CROWD_INTERNAL_H

#include "base/skim_internal.h"
#include "world/body_boxes.h"
#include "base/team.h"
#include "move/move_internal.h"
#include "crowd/crowd_types.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The most arrays the grid's new order moves (crowd_reorder.c). */
#define CROWD_REORDERED_MAX 24

/* Everything a crowd holds; its record types are in crowd_types.h. */
struct skim_crowd {
    skim_crowd_def def;
    float up[3], axis1[3], axis2[3]; /* orthonormal: up and two directions across it */
    uint32_t capacity, count;
    uint32_t layered;                /* agents not in layer 0 alone or not colliding with all */
    crowd_setting *settings;         /* distinct settings of agents, [0] = the crowd's */
    uint32_t setting_count, setting_capacity;
    skim_move_def *setting_defs;     /* 2 per setting: standing, airborne (crowd_step.c) */
    uint32_t *batch_def_of;          /* per batch entry: its definition */
    uint32_t *batch_agent;           /* per batch entry: its agent's slot (its cache entry) */
    skim_move_cache world_cache;     /* each agent's kept world leaves (src/move/move_cache.c) */
    uint32_t lowest_free_hint;

    /* ---- ids and slots (crowd_slots.c) ---- */
    uint32_t       *slot_of, *id_of;  /* per id: its slot; per slot: its id (a permutation) */
    skim_vec3      *public_position, *public_velocity; /* per id: as the step left them */
    uint32_t       *public_state;    /* per id: its state, 0 when the id is free */
    uint32_t        slot_period;     /* steps at least between two reorderings of the slots */
    uint32_t        steps_since_slots; /* steps since the last reordering */
    uint32_t        builds_at_slots; /* list_builds at the last reordering */
    uint32_t       *slot_from;       /* 2 * capacity: a reordering's old slot of each new one,
                                        then its new slot of each old one */
    void           *slot_scratch;    /* capacity of the largest record: a reordering's gathered ones */

    /* ---- per slot ---- */
    skim_vec3      *position, *velocity, *floor_normal;
    uint32_t       *state;
    skim_ellipsoid *shape;
    crowd_body     *body;            /* 64-byte aligned: one cache line holds two */
    crowd_goal     *goal;
    uint32_t       *setting;         /* index into settings */
    uint32_t       *layers, *collides_with; /* as in skim_agent_def, 0s replaced */
    uint32_t       *support;         /* the slot of the agent it stands on, or UINT32_MAX */

    /* ---- moving bodies (crowd_bodies.c) ---- */
    crowd_ride      *ride;           /* per slot */
    uint8_t         *avoid_held;     /* per slot: its last avoidance plan turned it from its wish (crowd_avoid.c) */
    uint32_t         avoid_turn;     /* steps taken, modulo def.avoidance_interval: whose turn it is to plan */
    skim_vec3       *shifted;        /* per slot: where the bodies left it, this step, if clear.away */
    uint8_t         *squeezed;       /* per slot: this step, 0 or a crowd_squeeze */
    crowd_rest      *rest;           /* per slot: its last world move, valid when rest_kept */
    uint8_t         *rest_kept;      /* per slot: a crowd_rest_kept */
    uint32_t         rest_round;     /* steps taken: when agents kept from resting by a body ask again */
    bool             world_still;    /* this step's world and bodies are the last step's, moved or not (crowd_bodies.c) */
    float            rest_dt;        /* the dt of the last step that moved agents through the world */
    crowd_seen_body *seen;           /* the last step's bodies, increasing id */
    size_t           seen_capacity;
    uint32_t         seen_count;
    const skim_world *seen_world;    /* the world of the last step */
    crowd_world_identity seen_identity; /* and what told it apart, at the end of that step */
    crowd_moved_body *moved_bodies;  /* bodies moved since, increasing id */
    size_t           moved_capacity;
    skim_box_index   moved_boxes;    /* the boxes they swept, by moved index */
    uint32_t         moved_count;
    bool             bodies_moved;   /* this step: shifted and squeezed are valid */
    crowd_clear      clear;          /* crowd_bodies_clear.c */

    /* ---- per active index, rebuilt or rewritten each step ---- */
    uint32_t *active;        /* slots, in the grid's order (crowd_grid.c) */
    bool      active_dirty;
    uint32_t  active_id_end;  /* one past the highest active id, at the last rebuild of active */
    float    *start;         /* 3 per agent: position at the start of the step */
    float    *planned;       /* 3 per agent: displacement before agent contacts */
    float    *q, *q_next;    /* 3 per agent: solver positions (Jacobi double buffer) */
    float    *world_end;     /* 3 per agent: where the world move took it */
    float    *final;         /* 3 per agent: after the check */
    float    *lambda, *lambda_next; /* fraction of its move an agent keeps after the check */
    float    *proj;          /* 3 per agent: start along axis1, axis2, up */
    float    *reach, *vreach, *margin; /* broadphase extents across and along up; push limit */
    float    *radius;        /* the agent's radius, from its record: read in order by the step */
    float    *height;        /* its half height, from its record */
    float    *inverse_mass;  /* from its record, read by its neighbours' avoidance and contacts */
    uint8_t  *leaning;       /* it touched a wall in the last step (SKIM_AGENT_TOUCHED_WALL) */
    /* avoidance (crowd_avoid.c), per active index */
    float    *avoid_pref;    /* 2 per agent: preferred velocity across up (axis1, axis2) */
    float    *avoid_velocity; /* 2 per agent: last step's velocity across up */
    float    *avoid_top;     /* the fastest it may go across up, units/s */
    float    *along;         /* its planned displacement along up */
    float    *sense;         /* how far across up it looks for agents to avoid, from its center */
    uint8_t  *pushed, *grounded, *check_changed;
    uint8_t  *rest_now;      /* a crowd_rest_now: whether it rests this step (crowd_world.c) */
    uint32_t *work;          /* the solver's agents after its first sweep */
    uint32_t *solver_mark;   /* stamp of the sweep after which the agent or a partner moved */
    uint8_t  *moved;         /* the check: in a violated pair this round */
    uint32_t *check_next, *check_stamp; /* the check's next list, and who is on it */
    uint8_t  *free_path;     /* the world move went straight: any point between start and
                                world_end is free of geometry */
    skim_move_result *result;
    /* batch inputs for skim_move_batch, gathered per group */
    uint32_t       *group_index;
    skim_ellipsoid *batch_shape;
    skim_vec3      *batch_position, *batch_displacement;
    skim_move_result *batch_result;

    /* ---- broadphase (crowd_grid.c) ---- */
    uint32_t *order;                    /* n: the new order, as old active indices */
    void     *reorder_spare[CROWD_REORDERED_MAX]; /* crowd_reorder.c's, capacity long each */
    uint32_t *order_key;                /* n: bucket, in the old order */
    int32_t  *cell;                     /* 2 per agent: its home cell */
    uint32_t  grid_count, big_count;    /* grid agents are 0..grid_count-1, then the big
                                           ones, then the ghosts */
    uint32_t  bucket_mask;              /* hash layout */
    bool      grid_dense;               /* row-major layout over grid_min, grid_width */
    int32_t   grid_min[2], grid_max[2];
    uint32_t  grid_width;
    uint32_t *bucket_start;             /* buckets + 1: each bucket's agents */
    size_t    bucket_capacity;
    double    inverse_cell;             /* 1 / cell width */

    /* ---- neighbour lists (valid for several steps, crowd_contacts.c) ---- */
    float    *bound, *vbound;           /* reach and vreach grown by the
                                           skin, at the build: the grid's order holds while
                                           agents stay within them */
    float    *built_proj;               /* 3 per agent: proj at the build */
    float    *contact_bound;            /* reach grown by the skin when the half lists were
                                           last made: they hold while agents stay within it */
    float    *next_contact_bound;       /* the same from this step's reach (plan) */
    float    *listed_proj;              /* 3 per agent: proj when the half lists were last made */
    float    *chunk_drift;              /* per plan chunk: the farthest an agent got across up
                                           from its start at the build */
    uint32_t *chunk_standing;           /* per chunk of agents: how many stand (crowd_world.c) */
    uint32_t *chunk_resting;            /* per chunk of agents: how many rest (crowd_world.c) */
    float     list_reach;               /* largest contact bound in the grid plus the largest
                                           drift, when the half lists were last made */
    /* Half lists (crowd_grid.c): agent i's neighbours j > i in index order,
       each pair once. */
    size_t   *half_begin;               /* n + 1 */
    uint32_t *half_other;
    size_t    half_capacity;
    bool      lists_valid;
    crowd_index_buffer *index_buffers;
    int       index_buffer_count;
    uint32_t  list_builds;              /* count of rebuilds, for the stats */
    uint32_t  list_refreshes;           /* count of half lists made again in the same order */

    /* ---- who avoids whom (crowd_neighbours.c), rebuilt each step ---- */
    crowd_sense_grid sense_grid;

    /* ---- the step's regions (team.h) ---- */
    team_phase       *phases;          /* TEAM_PHASES, zero between regions */
    crowd_shared       shared;
    crowd_chunk_stats *chunk_stats;     /* per chunk of the last phase */

    /* ---- contacts ---- */
    crowd_near_buffer *near_buffers;    /* per chunk of agents: their near pairs, in order */
    int       near_buffer_count;
    uint32_t  pair_count;               /* pairs near this step */
    /* Agent i's contacts: contacts[contact_begin[i] .. contact_begin[i + 1]). */
    crowd_contact *contacts;
    size_t         contact_capacity;
    size_t        *contact_begin;       /* n + 1 */
    size_t        *contact_fill;        /* n: how many of its contacts have a lower index */

    skim_crowd_stats stats;
};

/* After a region of team phases: its phases and what its threads told
   each other back to zero for the next. The master's cursor says how many
   phases were used (every thread takes the same path; only a failure can
   part them, and then all are cleared). */
static inline void crowd_clear_region(skim_crowd *c, uint32_t used)
{
    memset(c->phases, 0, used * sizeof *c->phases);
    memset(&c->shared, 0, sizeof c->shared);
}

/* What the public arrays say of agent id, whose records are in slot: its
   position, velocity and state, copied to its id's entries. */
static inline void crowd_publish_id(skim_crowd *c, uint32_t id, uint32_t slot)
{
    c->public_position[id] = c->position[slot];
    c->public_velocity[id] = c->velocity[slot];
    c->public_state[id] = c->state[slot];
}

/* The same for the agent in slot. */
static inline void crowd_publish(skim_crowd *c, uint32_t slot)
{
    crowd_publish_id(c, c->id_of[slot], slot);
}

/* The slot of agent id, after checking that the crowd has that agent
   (what: the calling function's name, for the message; crowd_slots.c). */
skim_status crowd_agent_slot(const skim_crowd *crowd, uint32_t id, const char *what, uint32_t *slot);
/* Slots (crowd_slots.c): every id in the slot of the same number; before
   a step, the slots in the order of the active agents when the grid's
   order was rebuilt since the last time and slot_period steps have
   passed (a reordering changes no result). */
void crowd_slots_init(skim_crowd *crowd);
void crowd_slots_follow_order(skim_crowd *crowd, uint32_t n);
void crowd_slots_release(skim_crowd *crowd);

/* Items [first, last) of chunk k of size items over n. */
static inline void crowd_chunk_range(uint32_t k, uint32_t size, uint32_t n, uint32_t *first, uint32_t *last)
{
    *first = k * size;
    *last = n - *first < size ? n : *first + size;
}

/* Nobody is sent beyond 100 times the crowd's limit (an agent that walks
   or falls for ever): the move would refuse it. */
static inline void crowd_clamp_far(const float start[3], float d[3])
{
    const float far = 100.0f * SKIM_CROWD_LIMIT;
    for (int k = 0; k < 3; ++k) {
        if (start[k] + d[k] > far)
            d[k] = far - start[k];
        else if (start[k] + d[k] < -far)
            d[k] = -far - start[k];
    }
}

/* World point p along the crowd's axes (axis1, axis2, up): what proj
   holds for an agent's start. */
static inline void crowd_project(const skim_crowd *c, const float p[3], float out[3])
{
    out[0] = p[0] * c->axis1[0] + p[1] * c->axis1[1] + p[2] * c->axis1[2];
    out[1] = p[0] * c->axis2[0] + p[1] * c->axis2[1] + p[2] * c->axis2[2];
    out[2] = p[0] * c->up[0] + p[1] * c->up[1] + p[2] * c->up[2];
}

/* Grid cells across up (crowd_grid.c, crowd_neighbours.c): coordinates
   stay well inside int32. */
#define CROWD_CELL_LIMIT 1073741824.0

static inline double crowd_clamp_cells(double v)
{
    /* A comparison: fmin and fmax are calls into libm. */
    return v < -CROWD_CELL_LIMIT ? -CROWD_CELL_LIMIT : v > CROWD_CELL_LIMIT ? CROWD_CELL_LIMIT : v;
}

/* Floor by hand: without SSE4.1 in the baseline x86-64 target, floor() is
   a call into libm, and this runs several times per agent. */
static inline int32_t crowd_floor_to_int(double v)
{
    int32_t i = (int32_t)v; /* toward zero */
    return (double)i > v ? i - 1 : i;
}

/* The cell a coordinate falls in, given 1 / cell size. */
static inline int32_t crowd_cell_of(double coordinate, double inverse_cell)
{
    double v = coordinate * inverse_cell;
    if (!(v > -CROWD_CELL_LIMIT))
        return (int32_t)-CROWD_CELL_LIMIT;
    if (v > CROWD_CELL_LIMIT)
        return (int32_t)CROWD_CELL_LIMIT;
    return crowd_floor_to_int(v);
}

/* A cell's bucket in a hashed layout, before the mask. */
static inline uint32_t crowd_hash_cell(int32_t cx, int32_t cy)
{
    uint64_t h = (uint64_t)(uint32_t)cx * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)cy * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(h >> 32);
}

/* Grows a buffer to hold at least need items of size bytes; false if out of memory. */
bool crowd_reserve(void **items, size_t *capacity, size_t need, size_t size);
/* Grows an array of *count per-chunk buffers (crowd_near_buffer,
   crowd_index_buffer) of size bytes to at least chunks, the new ones
   empty; never shrinks it. False if out of memory. */
bool crowd_reserve_chunk_buffers(void **buffers, int *count, uint32_t chunks, size_t size);

/* The end of a phase (phase, chunks chunks over n agents) whose chunks
   each filled a buffer of their own: once every chunk is done and none ran
   out of memory, one thread joins the buffers, join(c, n, chunks), as a
   serial step. Every thread returns whether all went well (crowd.c). */
bool crowd_join_chunks(skim_crowd *c, team_cursor *cursor, team_phase *phase, uint32_t n, uint32_t chunks,
                       bool (*join)(skim_crowd *, uint32_t, uint32_t));

/* The skins added to an agent's reach for the grid's order and
   to its reach for the half lists, as fractions of its radius: larger
   keeps them good for longer but makes the lists longer. The half lists
   are made again, in the order the agents have, whenever an agent
   outgrows them, which costs far less than a new order. */
#define CROWD_LIST_SKIN 2.0f
#define CROWD_CONTACT_SKIN 1.0f

/* Broadphase (crowd_grid.c), inside the region: puts the n active agents
   in the grid's order (crowd_reorder_gather) from proj, bound and vbound,
   sets built_proj, and makes their half lists half_begin / half_other
   from next_contact_bound. Sets shared.out_of_memory on failure; every
   thread returns false then. */
bool crowd_build_neighbours(skim_crowd *crowd, uint32_t n, team_cursor *cursor);
/* The half lists again, in the grid's order as it is, from
   next_contact_bound and the plan chunks' drift (chunks of them). The
   same on failure. */
bool crowd_refresh_neighbours(skim_crowd *crowd, uint32_t n, uint32_t chunks, team_cursor *cursor);
/* The grid's new order for active and every array the step has filled
   so far (crowd_reorder.c): new index k takes what old index order[k]
   held. Inside the region, every thread gathers the arrays into their
   spares, and built_proj from proj; then one thread, in a serial step,
   takes the gathered arrays in place of the old. The spares are made with
   the crowd (false if out of memory) and freed with it. */
bool crowd_reorder_init(skim_crowd *crowd);
void crowd_reorder_release(skim_crowd *crowd);
void crowd_reorder_gather(skim_crowd *crowd, uint32_t n, const uint32_t *order, team_cursor *cursor);
void crowd_reorder_take(skim_crowd *crowd);
/* Whether agents [first, last) still lie within the bounds the grid's
   order (CROWD_ORDER_BAD if not) and the half lists (CROWD_CONTACTS_BAD)
   were made for, given this step's plan; sets their next_contact_bound
   and *drift, the farthest one got across up from its start at the build
   (crowd_contacts.c). Without valid lists, only the bounds. */
enum { CROWD_ORDER_BAD = 1, CROWD_CONTACTS_BAD = 2 };
uint32_t crowd_check_lists(skim_crowd *crowd, uint32_t first, uint32_t last, bool valid, float *drift);

/* Agents per chunk of the near-pair phase. */
#define CROWD_NEAR_CHUNK 64
/* Before the region: a near-pair buffer for every chunk; false if out of memory. */
bool crowd_reserve_near_buffers(skim_crowd *crowd, uint32_t n);
/* This step's contacts (crowd_contacts.c), inside the region: the near
   pairs of every chunk (with reach, vreach and the plan), then, serially,
   crowd->contacts / contact_begin, pushed (the agents the plan puts in a
   violated contact) and stats.contacts. Sets shared.out_of_memory on
   failure; every thread returns false then. */
bool crowd_find_contacts(skim_crowd *crowd, uint32_t n, team_cursor *cursor);

/* Agent-agent constraints (crowd_contact_setup.c). The constraint of the
   pair of active agents a < b given the start positions, planned
   displacements and cylinders. */
void crowd_contact_setup(const skim_crowd *crowd, uint32_t a, uint32_t b, crowd_pair *out);
/* The constraints of near[0 .. count), bitwise crowd_contact_setup's, and
   whether the plan (q) already violates each. */
void crowd_contact_setup_near(const skim_crowd *crowd, crowd_near_pair *near, size_t count);

/* Agent-agent solver (crowd_solver.c). Inside the region: Jacobi
   projection, q from start + planned (plan() set q), pushed apart. The
   result is in q after the region once crowd_solve_settle has run.
   Returns which of q (0) and q_next (1) holds it. */
uint32_t crowd_solve(skim_crowd *crowd, uint32_t n, team_cursor *cursor);
/* After the region: q is the buffer crowd_solve returned. */
void crowd_solve_settle(skim_crowd *crowd, uint32_t which);
/* Inside the region, the check after the world move (crowd_check.c):
   shortens or reverts the moves of agents in pairs closer than allowed
   until none is; fills final and lambda (lambda 0: reverted). The
   world move's scatter prepares it (crowd_step.c). Returns the number of
   rounds. */
uint32_t crowd_check(skim_crowd *crowd, uint32_t n, team_cursor *cursor);
/* Whether agent i ends standing on another's head; lowers *closest to the
   gap of its pairs with a higher index (crowd_check.c). */
uint8_t crowd_stands_on_agent(const skim_crowd *crowd, uint32_t i, float *closest, uint32_t *under);
/* Whether agents (slots) a and b collide and avoid each other (layers). */
/* Whether the boxes [lo, hi] and [a, b] meet (touching counts). */
static inline bool crowd_boxes_meet(const float lo[3], const float hi[3], const float a[3], const float b[3])
{
    return lo[0] <= b[0] && hi[0] >= a[0] && lo[1] <= b[1] && hi[1] >= a[1] && lo[2] <= b[2] && hi[2] >= a[2];
}

static inline bool crowd_layers_meet(const skim_crowd *c, uint32_t a, uint32_t b)
{
    return (c->layers[a] & c->collides_with[b]) && (c->layers[b] & c->collides_with[a]);
}

/* Per-agent settings (crowd_settings.c): the add's check; taking an
   agent's settings and layers (false if out of memory); giving them up on
   removal; the step's definitions, 2 per setting; how far the world move
   may take an agent along up beyond its plan (step plus snap). */
skim_status crowd_check_agent_settings(const skim_agent_def *agent);
bool crowd_take_settings(skim_crowd *crowd, uint32_t slot, const skim_agent_def *agent);
void crowd_drop_settings(skim_crowd *crowd, uint32_t slot);
void crowd_setting_defs(skim_crowd *crowd, const skim_move_def *on_floor, const skim_move_def *in_air);
float crowd_world_reach(const skim_crowd *crowd, uint32_t slot);
#define CROWD_SETTINGS_START 4

/* Targets (crowd_targets.c). The desired velocity of agent slot at start
   toward its target, at the step's dt, into body[slot].desired; its top
   speed across up for avoidance (its goal's speed, or |desired|). */
void crowd_steer(skim_crowd *crowd, uint32_t slot, const float start[3], float dt);
/* After its move ends at f: passes waypoints, notes arrival. Returns
   whether it has arrived. */
bool crowd_goal_after_move(skim_crowd *crowd, uint32_t slot, const float f[3]);
void crowd_goal_clear(skim_crowd *crowd, uint32_t slot);
/* Whether agent slot keeps the velocity it wishes rather than the one
   avoidance picks: while it steps aside, or when its half-planes leave
   nothing (infeasible) and it is not caught where others cross its way
   (crossing: how many of its neighbours do); the solver then makes room. */
bool crowd_goal_keeps_wish(const skim_crowd *crowd, uint32_t slot, bool infeasible, uint32_t crossing);
/* Agent i (slot) does not avoid the idle neighbours (wishing for
   nothing) that stand on its point, or in its way once it is stuck:
   drops them from near, keeping the others' order, and returns how many
   are left. */
uint32_t crowd_goal_makes_room(const skim_crowd *crowd, uint32_t i, uint32_t slot, uint32_t *near, uint32_t count);

/* Avoidance (crowd_avoid.c). In plan: agent i (slot) wants v (3D) and
   moves rise along up: its preferred and last velocities, top speed and
   sense. Returns the longest move avoidance may give it. */
float crowd_avoid_plan(skim_crowd *crowd, uint32_t i, uint32_t slot, const float v[3], float rise, float dt);
/* Neighbours for avoidance (crowd_neighbours.c), inside the region, each
   step after the plan (and the lists, if rebuilt): the avoidance grid (a
   serial step). False if out of memory (noted in shared). */
bool crowd_build_sense_grid(skim_crowd *crowd, uint32_t n, team_cursor *cursor);
/* Neighbours an agent avoids at most, nearest first (the experiments of
   van den Berg et al., Reciprocal n-Body Collision Avoidance, use ten). */
#define CROWD_AVOID_NEIGHBOURS 10
/* Agent i's nearest neighbours to avoid into near (nearest first, ties:
   lower index); returns how many. A neighbour j is avoided when it is
   within sense[i] + sense[j] across up (sense 0: never), their cylinders
   overlap along up and their layers meet. block: the calling thread's
   gathered cells (crowd_sense_grid.h), reused by its next searches. */
typedef struct crowd_sense_block crowd_sense_block;
uint32_t crowd_nearest_neighbours(const skim_crowd *crowd, uint32_t i, crowd_sense_block *block, uint32_t *near);
/* Each agent's velocity across up by ORCA against its neighbours' last
   state, into planned and q. */
void crowd_avoid(skim_crowd *crowd, uint32_t n, float dt, team_cursor *cursor);

/* Moving bodies (crowd_bodies.c). Before the step: the bodies that moved
   since the last one (false if out of memory). Then, when any did, every
   active agent's carry and pushes (shifted, squeezed), in the step's first
   region (crowd_bodies.h). In commit: the
   floor it ends on. After the step: the bodies as they stand. */
bool        crowd_bodies_prepare(const skim_world *world, skim_crowd *crowd);
void        crowd_bodies_note_floor(skim_crowd *crowd, uint32_t id, bool reverted, bool on_floor,
                                    uint32_t floor_body);
bool        crowd_bodies_remember(const skim_world *world, skim_crowd *crowd);
/* The clearing's scratch (crowd_bodies_clear.c). */
void crowd_clear_release(crowd_clear *clear);
/* The world without its bodies: its own triangles (a shallow copy). */
void        crowd_static_view(const skim_world *world, skim_world *out);

double crowd_seconds(void);

/* Per-agent counts in begin[1..n] (begin[0] ignored) become offsets:
   begin[i] .. begin[i + 1] is agent i's range in the concatenated list. */
static inline void crowd_counts_to_offsets(size_t *begin, uint32_t n)
{
    begin[0] = 0;
    for (uint32_t i = 0; i < n; ++i)
        begin[i + 1] += begin[i];
}

/* How many agents ahead a pass over the agents asks for the records it
   will read by slot: the pass goes in the grid's order, which the slots
   follow only since their last reordering, and each record read cold is
   a miss to memory in a large crowd. Far enough ahead for a miss to come
   back before the agent's turn. */
#define CROWD_PREFETCH_AHEAD 16
/* The longest skim_crowd_def.avoidance_interval, in steps. */
#define CROWD_AVOID_INTERVAL_MAX 16u

/* Agents per chunk of the step's per-agent phases: a few microseconds of
   work (team.h). */
#define CROWD_AGENT_CHUNK 256

/* The step's world phase (crowd_world.c): the agents' moves into the batch
   arrays (standing first, then airborne, each in index order), one batch
   call moving both groups, and the results back to every agent (or, with
   no world, the solver's positions). */
crowd_world_groups crowd_gather_world(skim_crowd *c, uint32_t n, const float *q, float dt, team_cursor *cursor);
skim_status crowd_move_world(const skim_world *world, skim_crowd *c, crowd_world_groups groups, float dt);
void        crowd_scatter_world(skim_crowd *c, uint32_t n, bool world, crowd_world_groups groups, float dt,
                                team_cursor *cursor);

#endif
