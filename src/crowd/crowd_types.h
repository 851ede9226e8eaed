/* The crowd's records and scratch, one type each: per-pair constraints,
   per-chunk buffers, what a step's threads tell each other, and the
   per-agent records (body, goal, setting, ride) that struct skim_crowd
   (crowd_internal.h) holds in capacity-long arrays. */
#ifndef SKIM_CROWD_TYPES_H
#define SKIM_CROWD_TYPES_H

#include "base/skim_internal.h"
#include "world/body_boxes.h"
#include "base/team.h"
#include "move/move_internal.h"

/* One agent-agent constraint as seen from one agent of the pair ("self"):
   (q_self - q_other) . n >= target, n being the axis that separated the two
   cylinders at the start of the step, pointing from other toward self. */
typedef struct crowd_contact {
    uint32_t other;    /* active index */
    float    n[3];     /* unit: across up, or exactly +-up (a vertical contact: |n . up| is
                          then 1, and under 1e-6 otherwise) */
    float    target;   /* what the solver aims for: the touching distance plus the skin */
    float    allowed;  /* what the check accepts: min(touching, start separation) less a
                          tolerance, so a pair never ends closer than it started nor
                          closer than touching */
    float    share;    /* fraction of a violation self moves */
} crowd_contact;

/* A pair's constraint, worked out once, as its lower index sees it; the
   higher index holds the mirror (n negated, the shares swapped). */
typedef struct crowd_pair {
    float n[3];
    float target, allowed;
    float share_lower, share_higher;
} crowd_pair;

/* Growable array of agent indices (one per chunk of the neighbour search). */
typedef struct crowd_index_buffer {
    uint32_t *items;
    size_t count, capacity;
} crowd_index_buffer;

/* A pair whose reaches overlap this step, with its constraint. */
typedef struct crowd_near_pair {
    uint32_t   a, b;       /* active indices, a < b */
    crowd_pair pair;
    uint32_t   violated;   /* the plan already violates it */
    uint32_t   lower_rank; /* its place among b's partners of lower index */
} crowd_near_pair;

/* Growable array of near pairs (one per chunk of the near-pair phase). */
typedef struct crowd_near_buffer {
    crowd_near_pair *items;
    size_t count, capacity;
} crowd_near_buffer;

/* Slots per solver sweep or check round (the solver makes at most 64
   sweeps, the check at most 2 * 32 + 1 rounds). */
#define CROWD_ROUNDS 66

/* What the threads of a step's region tell each other (team.h),
   cleared before each region. Flags are ORed by chunks; counts are written
   by serial steps. Each sweep or round has its own slot, so a thread that
   runs late reads what its phase published, not a later one's. */
typedef struct crowd_shared {
    atomic_uint lists_bad;              /* plan: an agent got beyond its list bound */
    atomic_uint contacts_bad;           /* plan: an agent got beyond its contact bound */
    atomic_uint out_of_memory;
    atomic_uint violated[CROWD_ROUNDS]; /* solver sweep / check round r found a violated pair */
    atomic_uint gave_up[CROWD_ROUNDS];  /* the bodies' clearing round r gave up part of a shift */
    uint32_t    listed[CROWD_ROUNDS];   /* agents on the list of solver sweep / check round r */
    uint32_t    rest_ended;             /* the sweep or round a serial step that ran the rest
                                           stopped after */
    atomic_uint left;                   /* threads done with the region (team_leave_region) */
} crowd_shared;

/* A chunk or serial step of the region ran out of memory; whether one did
   (read after the wait that follows it). */
static inline void crowd_note_out_of_memory(crowd_shared *shared)
{
    atomic_store_explicit(&shared->out_of_memory, 1, memory_order_relaxed);
}
static inline bool crowd_out_of_memory(const crowd_shared *shared)
{
    return atomic_load_explicit(&shared->out_of_memory, memory_order_relaxed) != 0;
}

/* Agents per chunk of the step's last phase. */
#define CROWD_COMMIT_CHUNK 128

/* What a chunk of the step's last phase counts (crowd_step.c), summed or
   minimised in chunk order after the region. */
typedef struct crowd_chunk_stats {
    uint32_t on_floor, on_agent, blocked, shortened, arrived;
    float    closest;
    uint32_t squeezed;
} crowd_chunk_stats;

/* The avoidance grid (crowd_sense_grid.c): agents with a sense distance,
   bucketed by the cell of this step's start across up, each bucket in
   index order. Square cells; row-major over the box of occupied cells when
   it is small, else hashed. What the search reads of a member is kept a
   column per field, by bucket, so a run of members is tested four at a
   time. */
typedef struct crowd_sense_grid {
    float    *x, *y, *z;             /* per member: its start along axis1, axis2, up */
    float    *sense, *height;        /* per member */
    uint32_t *agent;                 /* per member: its active index */
    int32_t  *member_cell;           /* 2 per member: its cell (for the hashed layout) */
    float    *member_block;          /* the columns above, in one allocation */
    size_t    member_capacity;       /* members the block holds, the padding included */
    uint32_t *bucket_start;          /* buckets + 1 */
    size_t    bucket_capacity;
    uint32_t *key;                   /* n: each agent's bucket, UINT32_MAX if not a member */
    size_t    key_capacity;
    int32_t  *home;                  /* 2 per agent: a member's cell */
    size_t    home_capacity;
    double    cell, inverse_cell;    /* units */
    bool      dense;                 /* row-major over [min, max]; else hashed by bucket_mask */
    int32_t   min[2], max[2];
    uint32_t  width, bucket_mask;
    uint32_t  count;                 /* members */
    float     largest_sense;         /* among the members */
    double    per_occupied;          /* members per occupied cell; 0 before the first build */
} crowd_sense_grid;

/* What an agent is and wants, per slot, in one record: with agent
   collisions the step goes through the agents in the grid's order, which
   the slots follow only since their last reordering, and an agent's
   fields kept in separate arrays cost a cache miss each where they do
   not (at 100,000 agents, misses to L3). */
typedef struct crowd_body {
    skim_vec3 desired;           /* desired velocity, across up unless it flies */
    float     vertical_speed;    /* along up */
    uint32_t  flags;             /* SKIM_AGENT_NO_GRAVITY, SKIM_AGENT_GHOST */
    float     radius, half_height; /* its cylinder against agents */
    float     inverse_mass;
} crowd_body;

/* Where an agent walks to (crowd_targets.c): points[next .. count) still
   ahead; count 0 = no target, it walks at its desired velocity. */
typedef struct crowd_goal {
    skim_vec3 *points;
    skim_vec3  from;       /* where it stood when given the points */
    uint32_t   capacity, count, next;
    float      speed, arrival;
    bool       arrived;
    float      nearest;    /* the least distance left to points[next] since it last got on */
    float      stuck;      /* seconds without getting STUCK_PROGRESS nearer */
    float      aside;      /* seconds left stepping aside */
    float      best;       /* the least distance left to points[next] so far */
    float      search_way[3]; /* unit, across up: the way a step aside along a wall goes */
    bool       searching;  /* the step aside is one along a wall */
    bool       aside_started;
    uint32_t   searches;   /* steps aside since a wall held it and it last beat best */
} crowd_goal;

/* An agent's own move settings (skim_agent_def.overrides and the values
   it names); entry 0 of the crowd's table is none, the crowd's. */
typedef struct crowd_setting {
    uint32_t overrides;
    float    step_height, max_slope_degrees, snap_distance;
    uint64_t material_mask;
} crowd_setting;

/* What tells a world apart from one made later at the same address
   (crowd_bodies.c): its triangle counts, bounds, storage and the time its
   build took. */
typedef struct crowd_world_identity {
    const void *storage;
    uint32_t    triangles, degenerate;
    skim_vec3   bounds_min, bounds_max;
    double      build_seconds;
} crowd_world_identity;

/* An agent's last world move (crowd_world.c), kept when it ended where it
   started: the same move in the same world gives the same result, so the
   next step takes it again instead of moving the agent. */
typedef struct crowd_rest {
    skim_vec3        start, displacement;
    uint32_t         def_of; /* its move definition, as batch_def_of */
    skim_move_result result;
} crowd_rest;

/* What an agent's rest record holds (crowd_world.c). */
enum crowd_rest_kept {
    CROWD_REST_NONE = 0,    /* nothing: its last move did not end where it started */
    CROWD_REST_KEPT = 1,    /* its last move, which ended where it started */
    CROWD_REST_BY_BODY = 2, /* the same, but a moved body was within its reach last time */
};

/* Whether an agent rests this step (crowd_world.c). */
enum crowd_rest_now {
    CROWD_MOVES = 0,
    CROWD_RESTS = 1,
    CROWD_MOVES_BY_BODY = 2, /* it would have rested but for a moved body (or could not ask this step) */
};

/* How the world move's batch entries are grouped (crowd_world.c):
   [0, standing) move standing, [standing, moving) airborne, and
   [moving, n) rest, taking their last move's result. */
typedef struct crowd_world_groups {
    uint32_t standing, moving;
} crowd_world_groups;

/* The body an agent stands on and its transform when the agent was last
   placed on it (crowd_bodies.c); body SKIM_STATIC: none. */
typedef struct crowd_ride {
    uint32_t       body;
    skim_transform seen;
} crowd_ride;

/* A body's transform as the last step saw it. */
typedef struct crowd_seen_body {
    uint32_t       id;
    skim_transform transform;
} crowd_seen_body;

/* A body that moved since the last step: where it stands now (the world's
   table), the placement the last step saw, and the box it swept. */
typedef struct crowd_moved_body {
    const struct skim_body *body;
    double old_rotation[3][3], old_position[3];
    float  lo[3], hi[3];
} crowd_moved_body;

/* Why the bodies phase squeezed an agent (crowd_bodies*.c). */
typedef enum crowd_squeeze {
    CROWD_SQUEEZED_BY_AGENTS = 1, /* pressed against agents that could not give way */
    CROWD_SQUEEZED_BY_LEVEL = 2,  /* pressed against static geometry */
} crowd_squeeze;

/* A chunk's share of the clearing's list and grid (crowd_bodies_clear.c). */
typedef struct crowd_clear_chunk {
    double longest; /* the longest shift of its agents, summed over the axes */
    size_t items;   /* cells of its agents' ways */
    size_t first;   /* where its items start among all */
    uint32_t marked, first_moved; /* its agents the phase moved; where they start in the list */
    float  widest;  /* the widest radius among its colliding agents */
} crowd_clear_chunk;

/* Scratch of the clearing between agents after the bodies' shifts
   (crowd_bodies_clear.c), grown as needed. */
typedef struct crowd_clear {
    uint32_t *slot;                  /* per slot: its entry in moved, or UINT32_MAX */
    uint8_t  *bent;                  /* per slot: its shift slid along static geometry */
    uint8_t  *away;                  /* per slot: 1 when shifted holds where the phase left it, 0: where it stood */
    uint32_t *moved;                 /* slots the bodies moved this step, in slot order */
    float    *fraction;              /* two per moved: this round's and the next */
    uint32_t *bucket_start, *items;  /* hashed cells of every colliding agent's way */
    int32_t  *range;                 /* per slot: its way's cells, lo x, lo y, hi x, hi y */
    uint32_t  bucket_mask;
    size_t    away_capacity;
    size_t    range_capacity, slot_capacity, bent_capacity, moved_capacity, fraction_capacity, bucket_capacity, item_capacity;
    uint8_t  *depth;                 /* per slot: the round of the chain that moved it (crowd_bodies_chain.c) */
    uint32_t *pairs;                 /* a chain round's (pushed, pusher) slots (ids while sorted),
                                        then where each pushed one's start */
    uint32_t *frontier;              /* the agents the last chain round moved */
    skim_vec3 *pushed_to;            /* where a chain round leaves each agent it pushes, before all move */
    crowd_clear_chunk *chunk;        /* per chunk of agents, the list and grid's figures */
    uint32_t *changed;               /* the agents the chains moved, each once, in the order they first moved */
    uint32_t  changed_count;
    uint32_t *extra_start, *extra_items; /* hashed cells of the new ways of changed agents (crowd_clear_relist) */
    uint32_t  extra_mask, extra_count;
    uint32_t *keys;                  /* per item of the grid: its bucket; then per item: its agent */
    size_t    item_count, key_capacity;
    size_t    changed_capacity, extra_start_capacity, extra_item_capacity;
    size_t    chunk_capacity;
    size_t    depth_capacity, pair_capacity, frontier_capacity, pushed_to_capacity;
} crowd_clear;

#endif
