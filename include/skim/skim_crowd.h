/* Part of <skim/skim.h>; include that instead.

   Crowds (skim extension): many movers that collide with the static world
   the way skim_move does, and with each other.

   Each agent has two shapes. Against the world it is an ellipsoid, moved
   by skim_move_batch (collide and slide, steps, slopes, floor snapping).
   Against other agents it is an upright cylinder around the ellipsoid: the
   collision chapter (the collision chapter, "Bounding Cylinders") recommends upright
   cylinders for tall, thin movers such as players and monsters, and they
   keep agent pushes horizontal, so one agent never presses another into the
   floor or lifts it off its feet the way two spheres of different sizes
   would. An agent can land on another's head from above and stand there; it
   never climbs onto one from the side.

   Each step (skim_crowd_step):
     1. plan: the desired horizontal velocity plus gravity (or a jump) gives
        every agent a displacement;
     1b. avoidance (on by default): each agent steers its velocity clear of
        its neighbours (reciprocal velocity obstacles; docs/crowd.md, which
        also covers targets, layers and per-agent settings);
     2. agents: a uniform grid (spatial hash) lists the agents each one may
        reach (lists kept over steps while they stay good); every such pair
        gets one linear constraint along the
        axis that separates the two cylinders at the START of the step, and
        a few Jacobi projection sweeps push the planned positions apart along
        those axes. A push only removes the component of motion into the
        other agent, so agents slide around each other (the collision
        chapter, "Object-to-Object Sliding"), and since both ends of every straight
        move stay on their side of that axis, no agent passes through another
        at any speed;
     3. world: skim_move_batch moves every agent from its start by its
        adjusted displacement;
     4. check: an agent in a pair the world left closer than allowed gives
        up part of its move: back along it when the world move went
        straight, else all of it (the chapter's "revert to its previous
        location"), repeated until no pair overlaps.
   Every phase is data-parallel over OpenMP with no order-dependent
   reduction, so a step gives bitwise the same state for any thread count.

   Defaults are in Quake units like the default scene (gravity 800/s^2,
   steps of 18). */
#ifndef SKIM_SKIM_CROWD_H
#define SKIM_SKIM_CROWD_H
#include <skim/skim.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skim_crowd skim_crowd;

/* The largest coordinate, speed (per second), radius or half height the
   crowd takes: with dt <= 1 every move it asks of skim_move stays far
   inside the 1e18 the move accepts. Agents that fall for ever have their
   speed held at this too, and a move is cut short rather than leave it. */
#define SKIM_CROWD_LIMIT 1e15f

typedef struct skim_crowd_def {
    uint32_t      capacity;          /* most agents at once, >= 1; default 1024 */
    skim_move_def move;              /* how agents move against the world: up, skin, slopes,
                                        steps, snapping, friction, query. move.gravity is
                                        ignored: the crowd integrates gravity itself.
                                        Default: skim_move_def_default() with step_height 18
                                        and snap_distance 18 */
    float         gravity;           /* acceleration toward -move.up, units/s^2, >= 0; default 800 */
    bool          agent_collisions;  /* agents collide with each other; default true */
    int           solver_iterations; /* Jacobi projection sweeps per step, 1..64; default 8 */
    float         agent_skin;        /* gap the solver aims to leave between agents, as a fraction
                                        of the touching distance; it absorbs what the solver
                                        leaves unsolved in a dense crowd; default 0.05 */
    bool          avoidance;         /* reciprocal velocity obstacles between agents; default true */
    float         avoidance_horizon; /* seconds, (0, 60]: how far ahead agents avoid each other;
                                        default 0.25 */
} skim_crowd_def;
SKIM_API skim_crowd_def skim_crowd_def_default(void);

enum {
    SKIM_AGENT_NO_GRAVITY = 1u, /* flies: gravity does not act on it */
    SKIM_AGENT_GHOST = 2u,      /* passes through other agents (still collides with the world) */
};

/* Which of an agent's own move settings replace the crowd's (skim_agent_def.overrides). */
enum {
    SKIM_AGENT_SET_STEP_HEIGHT = 1u,
    SKIM_AGENT_SET_SLOPE = 2u,
    SKIM_AGENT_SET_SNAP = 4u,
    SKIM_AGENT_SET_MATERIALS = 8u,
};

typedef struct skim_agent_def {
    skim_ellipsoid shape;     /* against the world */
    skim_vec3      position;  /* center */
    float          radius;    /* the upright cylinder against agents: 0 = just holds the shape */
    float          half_height; /* 0 = the shape's half extent along up */
    float          inverse_mass; /* share of a push this agent takes, >= 0: two agents of 1 share
                                    equally; 0 = others cannot push it; default 1 */
    uint32_t       flags;     /* SKIM_AGENT_* */
    uint32_t       overrides; /* SKIM_AGENT_SET_* bits: which settings below replace the crowd's
                                 move settings; 0 (default) = the crowd's */
    float          step_height;       /* units, >= 0; used with SKIM_AGENT_SET_STEP_HEIGHT */
    float          max_slope_degrees; /* degrees, in (0, 90); used with SKIM_AGENT_SET_SLOPE */
    float          snap_distance;     /* units, >= 0; used with SKIM_AGENT_SET_SNAP */
    uint64_t       material_mask;     /* bit m = triangles of material m collide; used with
                                         SKIM_AGENT_SET_MATERIALS */
    uint32_t       layers;        /* agent layers it is in, a bit each; 0 = layer 0 (1u); default 1u */
    uint32_t       collides_with; /* layers it collides with and avoids; 0 = all; default all.
                                     Two agents meet when each one's layers are in the other's
                                     collides_with */
} skim_agent_def;
/* A sphere of radius 16 at the origin, inverse mass 1, the crowd's move
   settings, layer 0, colliding with every layer. */
SKIM_API skim_agent_def skim_agent_def_default(void);

/* Agent state bits, as skim_crowd_states() and skim_agent_info.state give them. */
enum {
    SKIM_AGENT_ON_FLOOR = 1u,        /* stands on walkable world geometry */
    SKIM_AGENT_ON_AGENT = 2u,        /* stands on another agent's head */
    SKIM_AGENT_TOUCHED_WALL = 4u,    /* met a wall during the last step */
    SKIM_AGENT_TOUCHED_CEILING = 8u, /* met a ceiling during the last step */
    SKIM_AGENT_TOUCHED_AGENT = 16u,  /* was pushed by another agent during the last step */
    SKIM_AGENT_BLOCKED = 32u,        /* could not move at all in the last step: kept its start */
    SKIM_AGENT_ARRIVED = 128u,       /* reached its target or the last point of its path
                                        (64u is SKIM_AGENT_SQUEEZED) */
    SKIM_AGENT_ACTIVE = 1u << 31,    /* the id is in use */
};

typedef struct skim_agent_info {
    skim_vec3 position;
    skim_vec3 velocity;          /* (end - start) / dt of the last step */
    skim_vec3 desired_velocity;  /* as set, without the component along up */
    uint32_t  state;             /* SKIM_AGENT_* bits; in the air = neither ON_FLOOR nor ON_AGENT */
    skim_vec3 floor_normal;      /* valid with SKIM_AGENT_ON_FLOOR */
    float     radius, half_height; /* its cylinder against agents */
} skim_agent_info;

SKIM_API skim_status skim_crowd_create(const skim_crowd_def *def /* NULL = defaults */,
                                       skim_crowd **out);
SKIM_API void        skim_crowd_destroy(skim_crowd *crowd);

/* Adds an agent, standing still, in the air until its first step finds a
   floor. *out_id is its id, in [0, capacity): the lowest free one. Ids of
   removed agents are given out again. Fails with INVALID_ARGUMENT when the
   crowd is full or the definition is bad. */
SKIM_API skim_status skim_crowd_add(skim_crowd *crowd, const skim_agent_def *agent, uint32_t *out_id);
SKIM_API skim_status skim_crowd_remove(skim_crowd *crowd, uint32_t id);

/* The velocity the agent wants, units/s. Only the part across up is used:
   vertical motion comes from gravity and jumps. It walks at this velocity
   until told otherwise (0 = stand). Clears any target or path. */
SKIM_API skim_status skim_crowd_set_velocity(skim_crowd *crowd, uint32_t id, skim_vec3 desired);

/* Walk to a point: the crowd steers the agent's desired velocity toward
   target at speed (units/s, (0, SKIM_CROWD_LIMIT]), slows inside the last
   part of the way and stops within arrival_distance (units, >= 0) measured
   across up, then sets SKIM_AGENT_ARRIVED. Replaces any velocity or path. */
SKIM_API skim_status skim_crowd_set_target(skim_crowd *crowd, uint32_t id, skim_vec3 target, float speed,
                                           float arrival_distance);
/* The same along count >= 1 waypoints (copied), e.g. a navmesh path;
   arrival at the last one. */
SKIM_API skim_status skim_crowd_set_path(skim_crowd *crowd, uint32_t id, const skim_vec3 *waypoints,
                                         uint32_t count, float speed, float arrival_distance);

/* Jumps to a height above where it stands: upward speed v = sqrt(2 g h)
   (the collision chapter, "Make It Jump"). Only an agent standing on a floor or an agent
   jumps; *jumped (may be NULL) says whether it did. With gravity 0 or
   SKIM_AGENT_NO_GRAVITY nothing happens. */
SKIM_API skim_status skim_crowd_jump(skim_crowd *crowd, uint32_t id, float height, bool *jumped);

/* Puts the agent at position, standing still, in the air. No collision is
   checked: putting it inside geometry or another agent is the caller's
   choice (an overlap with another agent is pushed apart over the next
   steps; nothing pulls it out of geometry). */
SKIM_API skim_status skim_crowd_teleport(skim_crowd *crowd, uint32_t id, skim_vec3 position);

/* Advances every agent by dt seconds (0 < dt <= 1). world may be NULL: the
   agents then move in empty space (no floor), which is useful with
   gravity 0. On failure (the world move failed, out of memory) the crowd is
   left as it was before the call. */
SKIM_API skim_status skim_crowd_step(const skim_world *world, skim_crowd *crowd, float dt);

SKIM_API skim_status skim_crowd_get_agent(const skim_crowd *crowd, uint32_t id, skim_agent_info *out);
SKIM_API uint32_t    skim_crowd_count(const skim_crowd *crowd);
SKIM_API uint32_t    skim_crowd_capacity(const skim_crowd *crowd);

/* Arrays of capacity entries indexed by id, valid until the next call that
   changes the crowd. Entries of free ids hold stale values; their state has
   no SKIM_AGENT_ACTIVE bit. */
SKIM_API const skim_vec3 *skim_crowd_positions(const skim_crowd *crowd);
SKIM_API const skim_vec3 *skim_crowd_velocities(const skim_crowd *crowd);
SKIM_API const uint32_t  *skim_crowd_states(const skim_crowd *crowd);

/* FNV-1a over the bits of every active agent's id, position, velocity and
   state: equal hashes mean equal crowds (for lockstep and replay checks). */
SKIM_API uint64_t skim_crowd_hash(const skim_crowd *crowd);

/* Figures of the last step. */
typedef struct skim_crowd_stats {
    uint32_t agents;
    uint32_t on_floor, on_agent, in_air;
    uint32_t pairs;          /* agent pairs near enough to meet this step (broadphase) */
    uint32_t contacts;       /* pairs the solver had to push apart */
    uint32_t shortened;      /* agents that gave up part of their move so as not to overlap */
    uint32_t blocked;        /* agents kept at their start because any move would overlap */
    uint32_t check_rounds;   /* rounds of step 4 (1 = nothing to revert) */
    uint32_t arrived;        /* agents with SKIM_AGENT_ARRIVED */
    float    closest_gap;    /* smallest gap between two agents' cylinders after the step
                                (negative = overlap); INFINITY when no two agents are near */
    double   seconds_agents; /* everything but the world moves: plan, broadphase, solver,
                                check, commit */
    double   seconds_world;  /* the skim_move_batch calls alone */
    double   seconds_total;
} skim_crowd_stats;
SKIM_API skim_status skim_crowd_get_stats(const skim_crowd *crowd, skim_crowd_stats *out);

#ifdef __cplusplus
}
#endif
#endif
