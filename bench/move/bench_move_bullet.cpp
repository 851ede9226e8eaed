// The comparison with Bullet (built only when Debian's libbullet-dev
// is found): the wandering crowd of move_workload.h, in one run, moved
//   - by skim_move_batch (one gather per move, the slide on the gathered
//     candidates; one thread),
//   - by a collide-and-slide loop whose every sweep is Bullet's sphere
//     sweep (btCollisionWorld::convexSweepTest of a btSphereShape against a
//     btBvhTriangleMeshShape, ClosestConvexResultCallback),
//   - and by the same loop on skim_sweep, which tells the sweep engines
//     apart from the rest (one gather per move, the loop's own work).
// JSON lines like bench_move's, then the ratios.
//
// The loop is skim_move's (move.c, step_and_snap.c) for a sphere in world
// space, kept small: sweep what is left plus a skin, stop a skin short
// along the contact normal, slide on the cone of the pass's planes
// (single planes and creases, PM_SlideMove made least-squares), a floor
// spends the downward part, steep slopes facing up are walls for the move;
// Quake's step (up, the move again, down; kept if it landed and went
// farther) and the snap down (kept if it lands). Not carried over: the
// push-out of touching starts and its exclusions, the lift back to a skin,
// friction, ellipsoids. Both engines run the very same loop code.
//
// Usage: bench_move_bullet [--movers N] [--frames N] [--reps N]
//                          [--scene default|oa_dm1|oa_dm4_hull|terrain|all] [--scenes-dir DIR]
// One thread throughout (Bullet's queries are not documented as safe from
// several threads).
#include "move_workload.h"

#include <btBulletCollisionCommon.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

const float radius = 16.0f;

struct vec {
    float x, y, z;
};
vec operator+(vec a, vec b) { return { a.x + b.x, a.y + b.y, a.z + b.z }; }
vec operator-(vec a, vec b) { return { a.x - b.x, a.y - b.y, a.z - b.z }; }
vec operator*(vec a, float s) { return { a.x * s, a.y * s, a.z * s }; }
float dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
vec cross(vec a, vec b) { return { a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x }; }
float length(vec a) { return std::sqrt(dot(a, a)); }

struct hit {
    float t;     // fraction of the sweep
    vec normal;  // unit, from the contact toward the center
};

// A sphere sweep engine: the first contact of the sphere moving from by delta.
struct engine {
    virtual ~engine() = default;
    virtual bool sweep(vec from, vec delta, hit *out) = 0;
};

struct skim_engine final : engine {
    const skim_world *world;
    explicit skim_engine(const skim_world *w) : world(w) {}
    bool sweep(vec from, vec delta, hit *out) override
    {
        static const skim_ellipsoid sphere = { { radius, radius, radius }, { 0, 0, 0, 1 } };
        skim_hit h;
        if (skim_sweep(world, &sphere, { from.x, from.y, from.z }, { delta.x, delta.y, delta.z },
                       nullptr, &h) != SKIM_OK || !h.hit)
            return false;
        *out = { h.t, { h.normal.x, h.normal.y, h.normal.z } };
        return true;
    }
};

struct bullet_engine final : engine {
    std::vector<int> indices;
    std::vector<btScalar> positions;
    btTriangleIndexVertexArray mesh;
    btBvhTriangleMeshShape shape;
    btCollisionObject object;
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher;
    btDbvtBroadphase broadphase;
    btCollisionWorld world;
    btSphereShape sphere;

    explicit bullet_engine(const skim_mesh_data &data)
        : indices(data.indices, data.indices + 3 * (size_t)data.triangle_count),
          positions(data.positions, data.positions + 3 * (size_t)data.vertex_count),
          mesh((int)data.triangle_count, indices.data(), 3 * sizeof(int), (int)data.vertex_count,
               positions.data(), 3 * sizeof(btScalar)),
          shape(&mesh, true), dispatcher(&configuration),
          world(&dispatcher, &broadphase, &configuration), sphere(radius)
    {
        shape.setMargin(0);
        object.setCollisionShape(&shape);
        world.addCollisionObject(&object);
        world.updateAabbs();
    }

    bool sweep(vec from, vec delta, hit *out) override
    {
        const btVector3 a(from.x, from.y, from.z), b(from.x + delta.x, from.y + delta.y,
                                                     from.z + delta.z);
        btTransform start, end;
        start.setIdentity();
        end.setIdentity();
        start.setOrigin(a);
        end.setOrigin(b);
        btCollisionWorld::ClosestConvexResultCallback result(a, b);
        world.convexSweepTest(&sphere, start, end, result);
        if (!result.hasHit())
            return false;
        const float t = result.m_closestHitFraction;
        // The normal from the contact toward the center at contact.
        const vec center = from + delta * t;
        const btVector3 &p = result.m_hitPointWorld;
        vec n = center - vec{ p.x(), p.y(), p.z() };
        float l = length(n);
        if (!(l > 1e-6f)) {
            const btVector3 &m = result.m_hitNormalWorld;
            n = { m.x(), m.y(), m.z() };
            if (dot(n, delta) > 0)
                n = n * -1.0f;
            l = length(n);
        }
        *out = { t, n * (1.0f / l) };
        return true;
    }
};

// ---- the slide loop (move.c's, for a sphere in world space) ----

enum pass_kind { MOVE, STRAIGHT, SNAP };

const float skin = 0.01f * radius, cos_floor = 0.70710678f, step_height = 18, snap_distance = 8;
const int max_iterations = 5;

struct planes {
    int count = 0;
    vec normal[16];
    void add(vec n)
    {
        for (int i = 0; i < count; ++i)
            if (dot(normal[i], n) > 1.0f - 1e-6f) {
                normal[i] = n;
                return;
            }
        if (count == 16)
            std::copy(normal + 1, normal + 16, normal), --count;
        normal[count++] = n;
    }
    bool feasible(vec v) const
    {
        float tolerance = -1e-5f * length(v);
        for (int i = 0; i < count; ++i)
            if (dot(v, normal[i]) < tolerance)
                return false;
        return true;
    }
    // The projection of want onto the cone of motions entering no plane.
    vec clip(vec want) const
    {
        if (feasible(want))
            return want;
        vec best = { 0, 0, 0 };
        float best_d = dot(want, want);
        for (int i = 0; i < count; ++i) {
            float into = dot(want, normal[i]);
            if (!(into < 0))
                continue;
            vec v = want - normal[i] * into;
            float d = dot(v - want, v - want);
            if (d < best_d && feasible(v))
                best = v, best_d = d;
        }
        for (int i = 0; i < count; ++i)
            for (int j = i + 1; j < count; ++j) {
                vec crease = cross(normal[i], normal[j]);
                float l = dot(crease, crease);
                if (!(l > 1e-8f))
                    continue;
                vec v = crease * (dot(want, crease) / l);
                float d = dot(v - want, v - want);
                if (d < best_d && feasible(v))
                    best = v, best_d = d;
            }
        return best;
    }
};

struct pass_result {
    bool floor = false, wall = false, landed = false;
};

pass_result pass(engine &e, vec &pos, vec delta, pass_kind kind)
{
    pass_result r;
    planes set;
    vec remaining = delta;
    for (int iteration = 0; iteration < max_iterations; ++iteration) {
        float len = length(remaining);
        if (len < 1e-6f * radius)
            break;
        float reach = (len + skin) / len;
        hit h;
        if (!e.sweep(pos, remaining * reach, &h)) {
            pos = pos + remaining;
            break;
        }
        float into = -dot(h.normal, remaining);
        float contact_t = h.t * reach;
        float t_stop = into > 0 ? std::max(0.0f, contact_t - skin / into) : 0.0f;
        t_stop = std::min(t_stop, 1.0f);
        pos = pos + remaining * t_stop;
        vec want = remaining * (1.0f - t_stop);
        bool floor = h.normal.z >= cos_floor, ceiling = h.normal.z <= -cos_floor;
        r.floor = r.floor || floor;
        if (floor && kind != MOVE) {
            r.landed = true;
            break;
        }
        if (kind == STRAIGHT)
            break;
        if (floor && want.z < 0)
            want.z = 0; // a floor spends the downward part
        set.add(h.normal);
        if (!floor && !ceiling) {
            r.wall = r.wall || t_stop < 1.0f;
            if (kind == MOVE && h.normal.z > 1e-4f) { // too steep to walk up: a wall
                vec flat = { h.normal.x, h.normal.y, 0 };
                if (length(flat) > 1e-6f)
                    set.add(flat * (1.0f / length(flat)));
            }
        }
        vec slide = set.clip(want);
        if (dot(slide, delta) <= 0)
            break;
        remaining = slide;
    }
    return r;
}

// One mover's move: the pass, Quake's step when a wall stopped it, the snap.
bool move(engine &e, vec start, vec delta, vec *end)
{
    vec pos = start;
    pass_result moved = pass(e, pos, delta, MOVE);
    bool floor = moved.floor;
    if (moved.wall && delta.z <= 0) {
        vec intent = { delta.x, delta.y, 0 };
        float l = length(intent);
        if (l > 0) {
            intent = intent * (1.0f / l);
            float plain = dot(pos - start, intent);
            vec p = start;
            pass(e, p, { 0, 0, step_height }, STRAIGHT);
            float raised = p.z - start.z;
            if (raised > 0) {
                pass_result forward = pass(e, p, delta, MOVE);
                pass_result down = pass(e, p, { 0, 0, -(raised + 2 * skin) }, STRAIGHT);
                if (down.landed && dot(p - start, intent) > plain + skin) {
                    pos = p;
                    floor = forward.floor || down.floor;
                }
            }
        }
    }
    if (!floor && delta.z <= 0) {
        vec p = pos;
        pass_result snapped = pass(e, p, { 0, 0, -(snap_distance + 2 * skin) }, SNAP);
        if (snapped.landed) {
            pos = p;
            floor = true;
        }
    }
    *end = pos;
    return floor;
}

struct timing {
    double seconds;
    double on_floor;
};

// The crowd moved by the loop on engine e.
timing run_loop(engine &e, move_crowd &c, int frames)
{
    move_crowd_reset(&c);
    double seconds = 0;
    for (int frame = 0; frame < frames; ++frame) {
        move_crowd_steer(&c, frame);
        double t0 = move_now();
        for (int i = 0; i < c.count; ++i) {
            const skim_vec3 p = c.positions[i], d = c.displacements[i];
            vec end;
            bool floor = move(e, { p.x, p.y, p.z }, { d.x, d.y, d.z }, &end);
            skim_move_result &r = c.results[i];
            std::memset(&r, 0, sizeof r);
            r.position = { end.x, end.y, end.z };
            r.touched = floor ? SKIM_TOUCH_FLOOR : 0;
        }
        seconds += move_now() - t0;
        move_crowd_advance(&c);
    }
    return { seconds, (double)c.on_floor / ((double)c.count * frames) };
}

// The crowd moved by skim_move_batch on one thread.
timing run_skim_move(const skim_world *world, move_crowd &c, int frames)
{
    omp_set_num_threads(1);
    move_crowd_reset(&c);
    const skim_move_def def = move_crowd_def();
    double seconds = 0;
    for (int frame = 0; frame < frames; ++frame) {
        move_crowd_steer(&c, frame);
        double t0 = move_now();
        if (skim_move_batch(world, (size_t)c.count, c.shapes, c.positions, c.displacements, &def,
                            c.results) != SKIM_OK) {
            std::fprintf(stderr, "bench_move_bullet: %s\n", skim_last_error_message());
            std::exit(1);
        }
        seconds += move_now() - t0;
        move_crowd_advance(&c);
    }
    return { seconds, (double)c.on_floor / ((double)c.count * frames) };
}

} // namespace

int main(int argc, char **argv)
{
    int reps = 3;
    move_bench_options options = move_bench_defaults();
    for (int i = 1; i < argc; ++i) {
        if (move_bench_option(argc, argv, &i, &options))
            continue;
        if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_move_bullet [--movers N] [--frames N] [--reps N] "
                                 "[--scene NAME|all] [--scenes-dir DIR]\n");
            return 2;
        }
    }
    const int movers = options.movers, frames = options.frames;
    if (movers < 1 || frames < 1 || reps < 1)
        return 2;
    for (int s = 0; s < MOVE_SCENES; ++s) {
        const char *name = move_scene_names[s];
        move_scene scene;
        move_crowd c;
        if (!move_bench_open("move_bullet", s, &options, &scene, &c))
            continue;
        bullet_engine bullet(scene.data);
        skim_engine skim(scene.world);
        // The three in turn, rep after rep (the machine is shared); medians.
        const char *engines[3] = { "skim_move", "slide_loop_skim_sweep", "slide_loop_bullet" };
        std::vector<double> seconds[3];
        double on_floor[3] = { 0, 0, 0 };
        for (int rep = 0; rep < reps; ++rep) {
            timing t[3] = { run_skim_move(scene.world, c, frames), run_loop(skim, c, frames),
                            run_loop(bullet, c, frames) };
            for (int k = 0; k < 3; ++k) {
                seconds[k].push_back(t[k].seconds);
                on_floor[k] = t[k].on_floor;
            }
        }
        double rate[3];
        for (int k = 0; k < 3; ++k) {
            std::sort(seconds[k].begin(), seconds[k].end());
            rate[k] = (double)movers * frames / seconds[k][seconds[k].size() / 2];
            std::printf("{\"bench\":\"move_bullet\",\"scene\":\"%s\",\"engine\":\"%s\",\"isa\":\"%s\","
                        "\"threads\":1,\"movers\":%d,\"frames\":%d,\"reps\":%d,"
                        "\"median_seconds\":%.4f,\"median_mover_steps_per_second\":%.0f,"
                        "\"on_floor\":%.3f}\n",
                        name, engines[k], skim_isa_name(), movers, frames, reps,
                        seconds[k][seconds[k].size() / 2], rate[k], on_floor[k]);
        }
        std::printf("{\"bench\":\"move_bullet_ratio\",\"scene\":\"%s\",\"skim_move_over_bullet\":%.2f,"
                    "\"skim_sweep_loop_over_bullet\":%.2f}\n",
                    name, rate[0] / rate[2], rate[1] / rate[2]);
        std::fflush(stdout);
        move_crowd_free(&c);
        move_scene_free(&scene);
    }
    return 0;
}
