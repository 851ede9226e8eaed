/* Local avoidance: optimal reciprocal collision avoidance (ORCA; van den
   Berg, Guy, Lin, Manocha, "Reciprocal n-Body Collision Avoidance", 2011).

   Before the solver, every agent picks the velocity across up nearest the
   one it prefers (toward its target, or as set) among those that keep it
   clear of its nearest neighbours for the time horizon, assuming each of
   them takes its share of the effort (section 4: each pair's velocity
   obstacle, truncated at the horizon, gives one half-plane of allowed
   velocities, moved by the agent's share of the smallest change u that
   leaves the obstacle). The allowed velocities are the intersection of
   those half-planes with the disc of its top speed: a 2D linear program
   (section 5.1), solved by the incremental algorithm of the paper, with the
   half-planes in a fixed order (nearest neighbour first) rather than a
   random one, so the answer is the same bits every run. When the
   half-planes leave nothing (a dense crowd), the velocity that violates
   them least is taken instead: a 3D linear program reduced to 2D over the
   violated lines (section 5.2); an agent with a target keeps its wish
   instead unless it is queued behind someone going its way, or has been
   stuck a while where others cross its way (queued_behind,
   gather_neighbours, crowd_goal_keeps_wish in crowd_targets.c). Against a stream
   coming the other way an agent takes the greater share of the effort
   (against_stream).

   Each agent reads only the state the last step left (positions, last
   velocities, preferred velocities) and writes only its own plan, so the
   answer does not depend on who runs first or on the thread count. The
   neighbours come from crowd_neighbours.c. Avoidance only steers: the
   projection solver and the check still guarantee that no two agents
   overlap. */
#include "crowd/crowd_orca_lines.h"
#include "crowd/crowd_sense_grid.h"

#include <math.h>
#include <simde/x86/sse2.h>

/* How far an agent looks for others to avoid, beyond its radius, at most:
   in radii. Within the horizon it looks speed * horizon. A long horizon
   needs a longer look than four radii, or agents start to avoid only those
   already near; a much longer one lists more neighbours for little. */
#define SENSE_RADII 6.0f
/* The fraction of its top speed avoidance keeps under, so the planned move
   stays inside the reach the broadphase was built with. */
#define TOP_SHRINK 1e-5
#define AVOID_CHUNK 128
/* Coming the other way: two preferred velocities whose cosine is below
   this. */
#define ONCOMING_COSINE -0.5
/* Against a stream: an agent takes this share of the effort of avoiding
   those coming the other way, instead of half, unless they outnumber its
   own stream among its neighbours by more than OUTNUMBERED times. The
   whole effort opened the doorway a little more but left two agents of
   examples/crowd_goals.c standing face to face. */
#define AGAINST_SHARE 0.75
#define OUTNUMBERED 2.0
/* A neighbour within acos(0.7), 46 degrees, of straight ahead wishing to go
   within acos(0.95), 18 degrees, of one's own way: one is queued behind it. */
#define QUEUE_AHEAD_COSINE 0.7
#define QUEUE_SAME_WAY_COSINE 0.95
/* A neighbour whose wish is within acos(0.7), 46 degrees, of square to
   one's own crosses one's way. */
#define CROSSING_COSINE 0.7

#define LP_EPSILON 1e-9

static double det2(const double a[2], const double b[2])
{
    return a[0] * b[1] - a[1] * b[0];
}

static double dot2(const double a[2], const double b[2])
{
    return a[0] * b[0] + a[1] * b[1];
}

/* fminf and fmaxf as x86-64's libm computes them (as lesser and greater
   below), without the call into libm: bitwise the same answer. */
static inline float lesser_float(float x, float y)
{
    return x < y || y != y ? x : y;
}

static inline float greater_float(float x, float y)
{
    return x > y || y != y ? x : y;
}

float crowd_avoid_plan(skim_crowd *c, uint32_t i, uint32_t slot, const float v[3], float rise, float dt)
{
    float *pref = c->avoid_pref + 2 * (size_t)i, *vel = c->avoid_velocity + 2 * (size_t)i;
    const skim_vec3 last = c->velocity[slot];
    pref[0] = v[0] * c->axis1[0] + v[1] * c->axis1[1] + v[2] * c->axis1[2];
    pref[1] = v[0] * c->axis2[0] + v[1] * c->axis2[1] + v[2] * c->axis2[2];
    vel[0] = last.x * c->axis1[0] + last.y * c->axis1[1] + last.z * c->axis1[2];
    vel[1] = last.x * c->axis2[0] + last.y * c->axis2[1] + last.z * c->axis2[2];
    /* An agent with a target may step aside at its walking speed even
       while it slows down or stands at its point. */
    float top = sqrtf(pref[0] * pref[0] + pref[1] * pref[1]);
    if (c->goal[slot].count)
        top = greater_float(top, c->goal[slot].speed);
    c->avoid_top[i] = top;
    c->height[i] = c->body[slot].half_height;
    c->along[i] = (v[0] * c->up[0] + v[1] * c->up[1] + v[2] * c->up[2]) * dt + rise;
    const float r = c->body[slot].radius;
    c->sense[i] = r + lesser_float(top * c->def.avoidance_horizon, SENSE_RADII * r);
    float across = top * dt;
    return sqrtf(across * across + c->along[i] * c->along[i]);
}

typedef simde__m128d lanes;

/* a where mask is set, else b. */
static inline lanes pick(lanes mask, lanes a, lanes b)
{
    return simde_mm_or_pd(simde_mm_and_pd(mask, a), simde_mm_andnot_pd(mask, b));
}

/* fmin and fmax as x86-64's libm computes them (the first argument when
   it is the smaller or larger, or when the second is not a number; else
   the second), without the call into libm, which the baseline target
   makes for them: bitwise the same answer. */
static inline double lesser(double x, double y)
{
    return x < y || y != y ? x : y;
}

static inline double greater(double x, double y)
{
    return x > y || y != y ? x : y;
}

/* lesser and greater, lane by lane. */
static inline lanes lesser_lanes(lanes x, lanes y)
{
    return pick(simde_mm_or_pd(simde_mm_cmplt_pd(x, y), simde_mm_cmpunord_pd(y, y)), x, y);
}

static inline lanes greater_lanes(lanes x, lanes y)
{
    return pick(simde_mm_or_pd(simde_mm_cmpgt_pd(x, y), simde_mm_cmpunord_pd(y, y)), x, y);
}

/* Linear program on line k of lines (section 5.1, one dimension): the
   point of line k inside the disc of radius top and left of lines [0, k)
   nearest optimum (or farthest along it, when direction_only). */
static bool solve_on_line(const crowd_line *lines, uint32_t k, double top, const double optimum[2], bool direction_only,
                          double result[2])
{
    const crowd_line *l = &lines[k];
    double along = dot2(l->point, l->direction);
    double discriminant = along * along + top * top - dot2(l->point, l->point);
    if (discriminant < 0.0)
        return false; /* the disc misses the line */
    double root = sqrt(discriminant);
    double lo = -along - root, hi = -along + root;
    /* The bounds in the low lane of a register, each taken and one kept,
       so that neither is a branch: the sign of the denominator is at
       random. */
    lanes low = simde_mm_set_sd(lo), high = simde_mm_set_sd(hi);
    for (uint32_t m = 0; m < k; ++m) {
        double denominator = det2(l->direction, lines[m].direction);
        double between[2] = { l->point[0] - lines[m].point[0], l->point[1] - lines[m].point[1] };
        double numerator = det2(lines[m].direction, between);
        if (fabs(denominator) <= LP_EPSILON) {
            if (numerator < 0.0)
                return false; /* parallel, and line k lies on m's wrong side */
            continue;
        }
        const lanes t = simde_mm_set_sd(numerator / denominator);
        const lanes upper = simde_mm_cmpge_sd(simde_mm_set_sd(denominator), simde_mm_setzero_pd());
        /* high = upper ? lesser(high, t) : high and low = upper ? low :
           greater(low, t), each as one mask of when the bound is kept:
           lesser keeps high when high < t or t is not a number, greater
           keeps low when low > t or t is not a number. */
        const lanes not_number = simde_mm_cmpunord_sd(t, t);
        const lanes keep_high = simde_mm_or_pd(simde_mm_cmplt_sd(high, t), not_number);
        const lanes keep_low = simde_mm_or_pd(upper, simde_mm_or_pd(simde_mm_cmplt_sd(t, low), not_number));
        high = pick(simde_mm_andnot_pd(keep_high, upper), t, high);
        low = pick(keep_low, low, t);
        if (simde_mm_comigt_sd(low, high))
            return false;
    }
    lo = simde_mm_cvtsd_f64(low);
    hi = simde_mm_cvtsd_f64(high);
    double t;
    if (direction_only)
        t = dot2(optimum, l->direction) > 0.0 ? hi : lo;
    else {
        double off[2] = { optimum[0] - l->point[0], optimum[1] - l->point[1] };
        t = lesser(hi, greater(lo, dot2(l->direction, off)));
    }
    result[0] = l->point[0] + t * l->direction[0];
    result[1] = l->point[1] + t * l->direction[1];
    return true;
}

/* The 2D program over lines [0, count): returns count on success, else the
   line it failed on (result then is the best before it). */
static uint32_t solve_plane(const crowd_line *lines, uint32_t count, double top, const double optimum[2],
                            bool direction_only, double result[2])
{
    if (direction_only) {
        result[0] = optimum[0] * top;
        result[1] = optimum[1] * top;
    } else if (dot2(optimum, optimum) > top * top) {
        double length = sqrt(dot2(optimum, optimum));
        result[0] = optimum[0] / length * top;
        result[1] = optimum[1] / length * top;
    } else {
        result[0] = optimum[0];
        result[1] = optimum[1];
    }
    for (uint32_t k = 0; k < count; ++k) {
        double off[2] = { lines[k].point[0] - result[0], lines[k].point[1] - result[1] };
        if (det2(lines[k].direction, off) > 0.0) {
            double kept[2] = { result[0], result[1] };
            if (!solve_on_line(lines, k, top, optimum, direction_only, result)) {
                result[0] = kept[0];
                result[1] = kept[1];
                return k;
            }
        }
    }
    return count;
}

/* No velocity satisfies every line: the one that minimises the largest
   violation (section 5.2), found line by line from the first that failed. */
static void solve_least_violation(const crowd_line *lines, uint32_t count, uint32_t failed, double top,
                                  double result[2])
{
    double worst = 0.0;
    crowd_line projected[CROWD_AVOID_NEIGHBOURS];
    for (uint32_t k = failed; k < count; ++k) {
        double off[2] = { lines[k].point[0] - result[0], lines[k].point[1] - result[1] };
        if (det2(lines[k].direction, off) <= worst)
            continue;
        /* Within line k's violation of worst: the lines where k's and m's
           violations are equal bound the region. */
        uint32_t made = 0;
        for (uint32_t m = 0; m < k; ++m) {
            crowd_line p;
            double determinant = det2(lines[k].direction, lines[m].direction);
            if (fabs(determinant) <= LP_EPSILON) {
                if (dot2(lines[k].direction, lines[m].direction) > 0.0)
                    continue; /* same direction: m adds nothing */
                p.point[0] = 0.5 * (lines[k].point[0] + lines[m].point[0]);
                p.point[1] = 0.5 * (lines[k].point[1] + lines[m].point[1]);
            } else {
                double between[2] = { lines[k].point[0] - lines[m].point[0], lines[k].point[1] - lines[m].point[1] };
                double t = det2(lines[m].direction, between) / determinant;
                p.point[0] = lines[k].point[0] + t * lines[k].direction[0];
                p.point[1] = lines[k].point[1] + t * lines[k].direction[1];
            }
            double d[2] = { lines[m].direction[0] - lines[k].direction[0],
                            lines[m].direction[1] - lines[k].direction[1] };
            double length = sqrt(dot2(d, d));
            if (!(length > 0.0))
                continue;
            p.direction[0] = d[0] / length;
            p.direction[1] = d[1] / length;
            projected[made++] = p;
        }
        double kept[2] = { result[0], result[1] };
        const double normal[2] = { -lines[k].direction[1], lines[k].direction[0] };
        if (solve_plane(projected, made, top, normal, true, result) < made) {
            /* Rounding only: keep what we had. */
            result[0] = kept[0];
            result[1] = kept[1];
        }
        double now[2] = { lines[k].point[0] - result[0], lines[k].point[1] - result[1] };
        worst = det2(lines[k].direction, now);
    }
}

static inline lanes pair_from(float a, float b)
{
    return simde_mm_set_pd((double)b, (double)a);
}

/* The first two floats at a (lane 0) and at b (lane 1), in double: the
   first into *first, the second into *second. One load of both floats of
   each, where pair_from takes a load and a conversion a float. */
static inline void pairs_from_two(const float *a, const float *b, lanes *first, lanes *second)
{
    const simde__m128 both = simde_mm_unpacklo_ps(simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)a)),
                                                  simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)b)));
    *first = simde_mm_cvtps_pd(both);
    *second = simde_mm_cvtps_pd(simde_mm_movehl_ps(both, both));
}

#define ADD simde_mm_add_pd
#define SUB simde_mm_sub_pd
#define MUL simde_mm_mul_pd

/* What agent i's half-planes need of its neighbours near[0, count), two
   neighbours at a time, a lane each, into in: the relative positions and
   velocities, the distance to keep and i's share of the effort.

   Shares go as pushes are shared (inverse mass); all of it when the other
   will not move. The flow rule: agent i takes the greater share of the
   effort of avoiding the agents that come the other way (their wishes'
   cosine below ONCOMING_COSINE), instead of its half, when some of them
   are ahead and those of its own way among its neighbours are not
   outnumbered more than OUTNUMBERED times. Two streams that meet in a
   passage then both step aside by more than half, and lanes open before
   the fronts stand face to face; a stream only leaves the effort to a
   clearly denser one coming against it. One that cannot be pushed takes no
   share, against a stream too. Decided from the neighbours' last state
   alone, so the same for any order of agents.

   Avoidance aims for the gap the solver leaves (the skin). A pair already
   inside it but not touching keeps its distance rather than being driven
   apart at once (section 5.3's case for colliding agents), which would
   make a dense crowd tremble.

   Returns how many of the neighbours wish to cross agent i's way (within
   CROSSING_COSINE of square to its wish): the streams it is caught in
   come from more sides than ahead and behind (crowd_goal_keeps_wish). */
static uint32_t gather_neighbours(const skim_crowd *c, uint32_t i, const uint32_t *near, uint32_t count,
                                  const double vel[2], const double pref[2], crowd_orca_input *in)
{
    const float *pi = c->proj + 3 * (size_t)i;
    const lanes pix = simde_mm_set1_pd(pi[0]), piy = simde_mm_set1_pd(pi[1]);
    const lanes velx = simde_mm_set1_pd(vel[0]), vely = simde_mm_set1_pd(vel[1]);
    const lanes prefx = simde_mm_set1_pd(pref[0]), prefy = simde_mm_set1_pd(pref[1]);
    const double pref_sq = pref[0] * pref[0] + pref[1] * pref[1];
    const lanes pref_sq_lanes = simde_mm_set1_pd(pref_sq), zero = simde_mm_setzero_pd();
    const lanes mass_i = simde_mm_set1_pd(c->inverse_mass[i]), radius_i = simde_mm_set1_pd(c->radius[i]);
    const lanes skin = simde_mm_set1_pd(1.0 + c->def.agent_skin);
    uint32_t oncoming = 0, with = 0, against = 0, crossing = 0;
    for (uint32_t k = 0; k < count; k += 2) {
        const uint32_t j0 = near[k], j1 = k + 1 < count ? near[k + 1] : j0;
        const unsigned valid = k + 1 < count ? 3u : 1u;
        const float *p0 = c->proj + 3 * (size_t)j0, *p1 = c->proj + 3 * (size_t)j1;
        const float *v0 = c->avoid_velocity + 2 * (size_t)j0, *v1 = c->avoid_velocity + 2 * (size_t)j1;
        const float *w0 = c->avoid_pref + 2 * (size_t)j0, *w1 = c->avoid_pref + 2 * (size_t)j1;
        lanes px, py, vx, vy, otherx, othery;
        pairs_from_two(p0, p1, &px, &py);
        pairs_from_two(v0, v1, &vx, &vy);
        pairs_from_two(w0, w1, &otherx, &othery);
        const lanes rpx = SUB(px, pix), rpy = SUB(py, piy);
        simde_mm_storeu_pd(in->rel_pos_x + k, rpx);
        simde_mm_storeu_pd(in->rel_pos_y + k, rpy);
        simde_mm_storeu_pd(in->rel_vel_x + k, SUB(velx, vx));
        simde_mm_storeu_pd(in->rel_vel_y + k, SUB(vely, vy));

        const lanes mass_j = pair_from(c->inverse_mass[j0], c->inverse_mass[j1]), sum = ADD(mass_i, mass_j);
        const lanes still = simde_mm_cmpeq_pd(pair_from(c->avoid_top[j0], c->avoid_top[j1]), zero);
        const lanes by_mass = pick(simde_mm_cmpgt_pd(sum, zero), simde_mm_div_pd(mass_i, sum), simde_mm_set1_pd(0.5));
        simde_mm_storeu_pd(in->share + k, pick(still, simde_mm_set1_pd(1.0), by_mass));

        const lanes touching = ADD(radius_i, pair_from(c->radius[j0], c->radius[j1]));
        const lanes dist = simde_mm_sqrt_pd(ADD(MUL(rpx, rpx), MUL(rpy, rpy)));
        const lanes kept = greater_lanes(touching, MUL(dist, simde_mm_set1_pd(1.0 - 1e-3)));
        simde_mm_storeu_pd(in->combined + k, lesser_lanes(MUL(touching, skin), kept));

        const lanes other_pref = ADD(MUL(otherx, prefx), MUL(othery, prefy));
        const lanes other_sq = ADD(MUL(otherx, otherx), MUL(othery, othery));
        const lanes width = simde_mm_sqrt_pd(MUL(pref_sq_lanes, other_sq));
        const lanes coming = simde_mm_cmplt_pd(other_pref, MUL(simde_mm_set1_pd(ONCOMING_COSINE), width));
        const lanes crosses = simde_mm_and_pd(
            simde_mm_cmpgt_pd(other_sq, zero),
            simde_mm_cmplt_pd(simde_mm_andnot_pd(simde_mm_set1_pd(-0.0), other_pref),
                              MUL(simde_mm_set1_pd(CROSSING_COSINE), width)));
        const unsigned crossing_bits = (unsigned)simde_mm_movemask_pd(crosses) & valid;
        const lanes ahead = simde_mm_cmpgt_pd(ADD(MUL(rpx, prefx), MUL(rpy, prefy)), zero);
        const unsigned coming_bits = (unsigned)simde_mm_movemask_pd(coming) & valid;
        const unsigned against_bits = coming_bits & (unsigned)simde_mm_movemask_pd(ahead);
        const unsigned with_bits = ~coming_bits & valid & (unsigned)simde_mm_movemask_pd(simde_mm_cmpgt_pd(other_pref, zero));
        oncoming |= coming_bits << k;
        against += (against_bits & 1u) + (against_bits >> 1);
        with += (with_bits & 1u) + (with_bits >> 1);
        crossing += (crossing_bits & 1u) + (crossing_bits >> 1);
    }
    if (pref_sq > 0.0 && against > 0 && OUTNUMBERED * (double)with > (double)against)
        for (uint32_t k = 0; k < count; ++k)
            if (oncoming >> k & 1u && in->share[k] > 0.0)
                in->share[k] = greater(in->share[k], AGAINST_SHARE);
    return crossing;
}

/* Whether agent i walks behind a neighbour going its way: one within
   QUEUE_AHEAD_COSINE of straight ahead whose wish is within
   QUEUE_SAME_WAY_COSINE of its own. Such an agent is in a queue (the mouth
   of a door), where pressing on only packs the queue tighter; elsewhere an
   agent with a goal keeps its wish when the half-planes leave nothing. */
static bool queued_behind(const skim_crowd *c, uint32_t i, const uint32_t *near, uint32_t count,
                          const double pref[2])
{
    const float *pi = c->proj + 3 * (size_t)i;
    for (uint32_t k = 0; k < count; ++k) {
        const float *pj = c->proj + 3 * (size_t)near[k];
        const double ahead[2] = { (double)pj[0] - pi[0], (double)pj[1] - pi[1] };
        const double other[2] = { c->avoid_pref[2 * (size_t)near[k]], c->avoid_pref[2 * (size_t)near[k] + 1] };
        if (dot2(ahead, pref) > QUEUE_AHEAD_COSINE * sqrt(dot2(ahead, ahead) * dot2(pref, pref))
            && dot2(other, pref) > QUEUE_SAME_WAY_COSINE * sqrt(dot2(pref, pref) * dot2(other, other)))
            return true;
    }
    return false;
}

/* Agent i's plan from a velocity across up: at most its top speed, less
   the margin the broadphase allows for, and the rise its plan had. */
static void plan_across(skim_crowd *c, uint32_t i, double vx_wanted, double vy_wanted, float dt)
{
    double result[2] = { vx_wanted, vy_wanted };
    const double top = c->avoid_top[i];
    double speed = sqrt(dot2(result, result)), limit = top * (1.0 - TOP_SHRINK);
    if (speed > limit) {
        result[0] *= limit / speed;
        result[1] *= limit / speed;
    }
    const float vx = (float)result[0], vy = (float)result[1], along = c->along[i];
    float *d = c->planned + 3 * (size_t)i, *q = c->q + 3 * (size_t)i;
    const float *start = c->start + 3 * (size_t)i;
    for (int k = 0; k < 3; ++k)
        d[k] = (vx * c->axis1[k] + vy * c->axis2[k]) * dt + along * c->up[k];
    crowd_clamp_far(start, d);
    for (int k = 0; k < 3; ++k)
        q[k] = start[k] + d[k];
}

/* Agent i plans its avoidance (slot its slot), and notes whether the plan
   turned it from its wish. */
static void avoid_agent(skim_crowd *c, uint32_t i, uint32_t slot, float dt, crowd_sense_block *block)
{
    c->avoid_held[slot] = 0;
    uint32_t near[CROWD_AVOID_NEIGHBOURS];
    uint32_t count = crowd_goal_makes_room(c, i, slot, near, crowd_nearest_neighbours(c, i, block, near));
    if (count == 0)
        return; /* the plan stands */
    const double vel[2] = { c->avoid_velocity[2 * (size_t)i], c->avoid_velocity[2 * (size_t)i + 1] };
    const double pref[2] = { c->avoid_pref[2 * (size_t)i], c->avoid_pref[2 * (size_t)i + 1] };
    crowd_orca_input in;
    const uint32_t crossing = gather_neighbours(c, i, near, count, vel, pref, &in);
    crowd_line lines[CROWD_ORCA_LANES];
    crowd_orca_lines(&in, count, vel, c->def.avoidance_horizon, dt, lines);
    const double top = c->avoid_top[i];

    double result[2];
    uint32_t failed = solve_plane(lines, count, top, pref, false, result);
    const bool infeasible = failed < count && !queued_behind(c, i, near, count, pref);
    if (crowd_goal_keeps_wish(c, slot, infeasible, crossing))
        return; /* the plan stands: the solver makes room (crowd_targets.c) */
    if (failed < count)
        solve_least_violation(lines, count, failed, top, result);
    c->avoid_held[slot] = result[0] != pref[0] || result[1] != pref[1];
    plan_across(c, i, result[0], result[1], dt);
}

void crowd_avoid(skim_crowd *c, uint32_t n, float dt, team_cursor *cursor)
{
    /* Agents take turns by id: agent `id` plans when (id + avoid_turn) is
       a multiple of the interval, so each step a share of the crowd
       plans, the same agents whatever the thread count. In between, an
       agent whose last plan turned it from its wish (it is steering round
       someone) keeps the velocity across up it last moved at, which is
       what its neighbours' plans assumed it would do (section 4); any
       other takes its wish, as a plan that finds no one in the way does. */
    const uint32_t interval = c->def.avoidance_interval, turn = c->avoid_turn;
    /* In the row-major grid the agents go in its order, a cell's agents
       one after another, so they share the square of cells they search
       (crowd_sense_block); each agent writes only its own plan, so the
       order changes nothing else. */
    const crowd_sense_grid *g = &c->sense_grid;
    const uint32_t *order = g->dense ? g->agent : NULL, count = g->dense ? g->count : n;
    const uint32_t chunks = team_chunks(count, AVOID_CHUNK);
    crowd_sense_block block;
    crowd_forget_sense_block(&block);
    team_phase *phase = team_phase_next(cursor);
    for (uint32_t k; team_claim(phase, chunks, &k); team_finish(phase)) {
        uint32_t first, last;
        crowd_chunk_range(k, AVOID_CHUNK, count, &first, &last);
        for (uint32_t at = first; at < last; ++at) {
            if (at + CROWD_PREFETCH_AHEAD < last) {
                const uint32_t ahead = order ? order[at + CROWD_PREFETCH_AHEAD] : at + CROWD_PREFETCH_AHEAD;
                __builtin_prefetch(&c->goal[c->active[ahead]]);
            }
            const uint32_t i = order ? order[at] : at;
            /* One whose top speed is zero (standing, steered by a zero
               velocity) can only be given nothing across up, which its
               plan already has: it is still searched for by others, and
               searches for no one. */
            if (!(c->sense[i] > 0.0f && c->avoid_top[i] > 0.0f))
                continue;
            const uint32_t slot = c->active[i];
            if ((c->id_of[slot] + turn) % interval == 0)
                avoid_agent(c, i, slot, dt, &block);
            else if (c->avoid_held[slot])
                plan_across(c, i, c->avoid_velocity[2 * (size_t)i], c->avoid_velocity[2 * (size_t)i + 1], dt);
        }
    }
    team_wait(phase, chunks);
}
