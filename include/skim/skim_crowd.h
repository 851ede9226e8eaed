/**
 * @file skim_crowd.h
 * @brief Crowds (skim extension): many movers that collide with the world the
 * way skim_move does, and with each other as upright cylinders.
 *
 * Part of <skim/skim.h>; include that instead. How a step works is in
 * docs/crowd.md; defaults are in Quake units like the default scene.
 */
#ifndef SKIM_SKIM_CROWD_H
#define SKIM_SKIM_CROWD_H
#include <skim/skim.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A crowd of agents; create with skim_crowd_create(). */
typedef struct skim_crowd skim_crowd;

/** Largest coordinate, speed (units/s), radius or half height a crowd takes. */
#define SKIM_CROWD_LIMIT 1e15f

/** How a crowd moves its agents. */
typedef struct skim_crowd_def {
    uint32_t      capacity;          /**< most agents at once, >= 1; default 1024 */
    skim_move_def move;              /**< moves against the world (gravity ignored); default skim_move_def_default() with step_height 18, snap_distance 18 */
    float         gravity;           /**< units/s^2 toward -move.up, >= 0; default 800 */
    bool          agent_collisions;  /**< agents collide with each other; default true */
    int           solver_iterations; /**< Jacobi sweeps per step, 1..64; default 8 */
    float         agent_skin;        /**< gap kept between agents, fraction of the touching distance, >= 0; default 0.05 */
    bool          avoidance;         /**< reciprocal velocity obstacles between agents; default true */
    float         avoidance_horizon; /**< seconds, (0, 60]: how far ahead agents avoid each other; default 2 */
    uint32_t      avoidance_interval; /**< steps between an agent's avoidance plans, 1..16, taken in turn by id; default 2 */
    bool          resting;           /**< an agent standing still on an unchanged world takes its last world move again; default true */
} skim_crowd_def;
/** The defaults of every skim_crowd_def field. */
SKIM_API skim_crowd_def skim_crowd_def_default(void);

/** skim_agent_def.flags bits. */
enum {
    SKIM_AGENT_NO_GRAVITY = 1u, /**< flies: gravity does not act on it */
    SKIM_AGENT_GHOST = 2u,      /**< passes through other agents (still collides with the world) */
    SKIM_AGENT_STAYS_ON_FLOOR = 4u, /**< never walks off a drop deeper than its snap distance (docs/crowd.md) */
};

/** skim_agent_def.overrides bits: which of the agent's own move settings replace the crowd's. */
enum {
    SKIM_AGENT_SET_STEP_HEIGHT = 1u, /**< use skim_agent_def.step_height */
    SKIM_AGENT_SET_SLOPE = 2u,       /**< use skim_agent_def.max_slope_degrees */
    SKIM_AGENT_SET_SNAP = 4u,        /**< use skim_agent_def.snap_distance */
    SKIM_AGENT_SET_MATERIALS = 8u,   /**< use skim_agent_def.material_mask */
};

/** One agent as skim_crowd_add() takes it. */
typedef struct skim_agent_def {
    skim_ellipsoid shape;        /**< its shape against the world */
    skim_vec3      position;     /**< center, world */
    float          radius;       /**< cylinder radius against agents, world units, >= 0; 0 = just holds the shape */
    float          half_height;  /**< cylinder half height, world units, >= 0; 0 = the shape's half extent along up */
    float          inverse_mass; /**< share of a push it takes, >= 0; 0 = cannot be pushed; default 1 */
    uint32_t       flags;        /**< SKIM_AGENT_NO_GRAVITY, SKIM_AGENT_GHOST, SKIM_AGENT_STAYS_ON_FLOOR; default 0 */
    uint32_t       overrides;    /**< SKIM_AGENT_SET_* bits; default 0 = the crowd's move settings */
    float          step_height;       /**< world units, >= 0; with SKIM_AGENT_SET_STEP_HEIGHT */
    float          max_slope_degrees; /**< degrees, (0, 90); with SKIM_AGENT_SET_SLOPE */
    float          snap_distance;     /**< world units, >= 0; with SKIM_AGENT_SET_SNAP */
    uint64_t       material_mask;     /**< bit m = material m collides; with SKIM_AGENT_SET_MATERIALS */
    uint32_t       layers;        /**< layers it is in, a bit each; 0 = layer 0; default 1 */
    uint32_t       collides_with; /**< layers it collides with and avoids; 0 = all; default all */
} skim_agent_def;
/** A sphere of radius 16 at the origin, inverse mass 1. */
SKIM_API skim_agent_def skim_agent_def_default(void);

/** Agent state bits, as skim_crowd_states() and skim_agent_info.state give them. */
enum {
    SKIM_AGENT_ON_FLOOR = 1u,        /**< stands on walkable world geometry */
    SKIM_AGENT_ON_AGENT = 2u,        /**< stands on another agent's head */
    SKIM_AGENT_TOUCHED_WALL = 4u,    /**< met a wall during the last step */
    SKIM_AGENT_TOUCHED_CEILING = 8u, /**< met a ceiling during the last step */
    SKIM_AGENT_TOUCHED_AGENT = 16u,  /**< was pushed by another agent during the last step */
    SKIM_AGENT_BLOCKED = 32u,        /**< could not move at all in the last step: kept its start */
    SKIM_AGENT_SQUEEZED = 64u,       /**< pressed between a moving body and static geometry in the last step */
    SKIM_AGENT_ARRIVED = 128u,       /**< reached its target or the last point of its path */
    SKIM_AGENT_ACTIVE = 1u << 31,    /**< the id is in use */
};

/** One agent's state after the last step. */
typedef struct skim_agent_info {
    skim_vec3 position;          /**< center, world */
    skim_vec3 velocity;          /**< (end - start) / dt of the last step, units/s */
    skim_vec3 desired_velocity;  /**< as set, less its component along up, units/s */
    uint32_t  state;             /**< SKIM_AGENT_* bits; in the air = neither ON_FLOOR nor ON_AGENT */
    skim_vec3 floor_normal;      /**< unit; valid with SKIM_AGENT_ON_FLOOR */
    float     radius;            /**< its cylinder against agents, world units */
    float     half_height;       /**< its cylinder against agents, world units */
    uint32_t  floor_body;        /**< the moving body it stands on (skim_bodies.h), SKIM_STATIC when none */
} skim_agent_info;

/** Creates an empty crowd (def NULL = defaults). */
SKIM_API skim_status skim_crowd_create(const skim_crowd_def *def, skim_crowd **out);
/** Frees a crowd; NULL is allowed. */
SKIM_API void        skim_crowd_destroy(skim_crowd *crowd);

/** Adds an agent, standing still, in the air until a step finds its floor; *out_id is the
    lowest free id in [0, capacity). A full crowd is SKIM_ERROR_INVALID_ARGUMENT. */
SKIM_API skim_status skim_crowd_add(skim_crowd *crowd, const skim_agent_def *agent, uint32_t *out_id);
/** Removes an agent; its id is given out again. */
SKIM_API skim_status skim_crowd_remove(skim_crowd *crowd, uint32_t id);

/** The velocity the agent walks at until told otherwise, units/s; the part along up is ignored; clears any target or path. */
SKIM_API skim_status skim_crowd_set_velocity(skim_crowd *crowd, uint32_t id, skim_vec3 desired);

/** Walk to target at speed (units/s, (0, SKIM_CROWD_LIMIT]), slowing on the last stretch and stopping within
    arrival_distance (units, >= 0, across up), then SKIM_AGENT_ARRIVED; replaces any velocity or path. */
SKIM_API skim_status skim_crowd_set_target(skim_crowd *crowd, uint32_t id, skim_vec3 target, float speed,
                                           float arrival_distance);
/** The same along count >= 1 waypoints (copied), e.g. a navmesh path; arrival at the last one. */
SKIM_API skim_status skim_crowd_set_path(skim_crowd *crowd, uint32_t id, const skim_vec3 *waypoints,
                                         uint32_t count, float speed, float arrival_distance);

/** Jumps height world units above where the agent stands, if it stands; *jumped (may be NULL) says whether it did. */
SKIM_API skim_status skim_crowd_jump(skim_crowd *crowd, uint32_t id, float height, bool *jumped);

/** Puts the agent at position, standing still, in the air; collisions are not checked. */
SKIM_API skim_status skim_crowd_teleport(skim_crowd *crowd, uint32_t id, skim_vec3 position);

/** Advances every agent by dt seconds, 0 < dt <= 1 (world NULL = empty space).
    On failure the crowd is left as it was. */
SKIM_API skim_status skim_crowd_step(const skim_world *world, skim_crowd *crowd, float dt);

/** Fills *out with one agent's state. */
SKIM_API skim_status skim_crowd_get_agent(const skim_crowd *crowd, uint32_t id, skim_agent_info *out);
/** Agents in the crowd. */
SKIM_API uint32_t    skim_crowd_count(const skim_crowd *crowd);
/** Most agents the crowd holds. */
SKIM_API uint32_t    skim_crowd_capacity(const skim_crowd *crowd);

/** Positions of capacity entries indexed by id, valid until the next call that changes the crowd;
    entries of free ids are stale. */
SKIM_API const skim_vec3 *skim_crowd_positions(const skim_crowd *crowd);
/** Velocities, laid out as skim_crowd_positions(). */
SKIM_API const skim_vec3 *skim_crowd_velocities(const skim_crowd *crowd);
/** State bits, laid out as skim_crowd_positions(); free ids lack SKIM_AGENT_ACTIVE. */
SKIM_API const uint32_t  *skim_crowd_states(const skim_crowd *crowd);

/** FNV-1a over every active agent's id, position, velocity and state: equal hashes, equal crowds. */
SKIM_API uint64_t skim_crowd_hash(const skim_crowd *crowd);

/** Figures of the last step. */
typedef struct skim_crowd_stats {
    uint32_t agents;         /**< active agents */
    uint32_t on_floor;       /**< agents standing on the world */
    uint32_t on_agent;       /**< agents standing on another agent */
    uint32_t in_air;         /**< agents standing on nothing */
    uint32_t pairs;          /**< agent pairs near enough to meet this step */
    uint32_t contacts;       /**< pairs the solver pushed apart */
    uint32_t shortened;      /**< agents that gave up part of their move so as not to overlap */
    uint32_t blocked;        /**< agents kept at their start because any move would overlap */
    uint32_t check_rounds;   /**< rounds of the overlap check (1 = nothing to revert) */
    uint32_t arrived;        /**< agents with SKIM_AGENT_ARRIVED */
    float    closest_gap;    /**< smallest gap between two agents' cylinders, world units (< 0 overlap); INFINITY when none near */
    double   seconds_agents; /**< seconds in everything but the world moves */
    double   seconds_world;  /**< seconds in the world moves */
    double   seconds_total;  /**< seconds in the whole step */
    uint32_t squeezed;       /**< agents with SKIM_AGENT_SQUEEZED: pressed between a moving body and static geometry */
    uint32_t resting;        /**< agents that took their last world move again: standing still on an unchanged world */
    uint32_t world_moves;    /**< agents moved through the world (agents - resting, 0 without a world) */
    uint32_t world_kernel_calls; /**< calls of the exact swept tests those moves made (0 with SKIM_ACCELERATOR_BRUTE_FORCE) */
    uint32_t world_walks;    /**< tree walks those moves made; the others reused the leaves kept near them (0 likewise) */
} skim_crowd_stats;
/** Fills *out with the figures of the last step. */
SKIM_API skim_status skim_crowd_get_stats(const skim_crowd *crowd, skim_crowd_stats *out);

#ifdef __cplusplus
}
#endif
#endif
