/* The circle, door and level scenarios through DetourCrowd (Recast/Detour) and
   skim's crowd in the same run: the same agents (radius 16, 320 units/s),
   the same goals, the navmesh built by Recast from the scenario's own
   triangles. DetourCrowd plans its own path to each goal; skim's agents
   follow the scenario's waypoints. Both are measured the same way
   (crowd_measure.c): arrivals, worst overlap, ms per update. One JSON line
   per engine, then one with the ratios.

   usage: bench_crowd_detour [--scenario circle|door|level] [--agents N[,N...]]
                             [--scene NAME] [--stay-on-floor on|off] [--threads T]
                             [--steer target|velocity] [--avoidance on|off] [--seed S] [--quiet]
   (--threads, --steer, --avoidance: skim's run, as bench_crowd's; threads
   default 1: DetourCrowd runs on one. level: a real level from
   SKIM_SCENES_DIR, oa_dm1 unless --scene names another, all its spots
   unless --agents; exit 77, a skip, when the level is not there. It runs
   only when asked for. --stay-on-floor on flags skim's agents
   SKIM_AGENT_STAYS_ON_FLOOR, as DetourCrowd's keep to their navmesh; the
   level's goals are then picked with the flag too.) */
#include "crowd_goals.h"

#include <recastnavigation/DetourCrowd.h>
#include <recastnavigation/DetourNavMesh.h>
#include <recastnavigation/DetourNavMeshBuilder.h>
#include <recastnavigation/DetourNavMeshQuery.h>
#include <recastnavigation/Recast.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

const float frame_dt = 1.0f / 60.0f;
const float step_height = 18.0f; /* skim's crowd default */

double clock_seconds(clockid_t which)
{
    timespec t;
    clock_gettime(which, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double now() { return clock_seconds(CLOCK_MONOTONIC); }

/* Detour's y is up: (x, y, z) here is (x, z, -y) there, a rotation, so
   triangles keep their winding (Recast finds walkable ones by it). */
void to_detour(skim_vec3 p, float out[3]) { out[0] = p.x, out[1] = p.z, out[2] = -p.y; }
skim_vec3 from_detour(const float p[3]) { return skim_vec3{ p[0], -p[2], p[1] }; }

/* A single-tile navmesh for agents of SCENARIO_RADIUS, cells half a radius
   wide, following the Recast sample's solo-mesh pipeline. */
dtNavMesh *build_navmesh(const crowd_scenario &s)
{
    std::vector<float> verts(3 * (size_t)s.vertex_count);
    for (uint32_t v = 0; v < s.vertex_count; ++v) {
        const float *p = s.positions + 3 * (size_t)v;
        to_detour(skim_vec3{ p[0], p[1], p[2] }, &verts[3 * (size_t)v]);
    }
    std::vector<int> tris(s.indices, s.indices + 3 * (size_t)s.triangle_count);
    const int nv = (int)s.vertex_count, nt = (int)s.triangle_count;
    rcConfig cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.cs = SCENARIO_RADIUS / 2.0f;
    cfg.ch = SCENARIO_RADIUS / 8.0f;
    cfg.walkableSlopeAngle = 45.0f;
    cfg.walkableHeight = (int)std::ceil(2.0f * SCENARIO_RADIUS / cfg.ch);
    cfg.walkableClimb = (int)std::floor(step_height / cfg.ch);
    cfg.walkableRadius = (int)std::ceil(SCENARIO_RADIUS / cfg.cs);
    cfg.maxEdgeLen = (int)(20.0f * SCENARIO_RADIUS / cfg.cs);
    cfg.maxSimplificationError = 1.3f;
    cfg.minRegionArea = 8 * 8;
    cfg.mergeRegionArea = 20 * 20;
    cfg.maxVertsPerPoly = DT_VERTS_PER_POLYGON;
    cfg.detailSampleDist = 6.0f * cfg.cs;
    cfg.detailSampleMaxError = cfg.ch;
    rcCalcBounds(verts.data(), nv, cfg.bmin, cfg.bmax);
    rcCalcGridSize(cfg.bmin, cfg.bmax, cfg.cs, &cfg.width, &cfg.height);

    rcContext ctx(false);
    rcHeightfield *solid = rcAllocHeightfield();
    rcCompactHeightfield *chf = rcAllocCompactHeightfield();
    rcContourSet *cset = rcAllocContourSet();
    rcPolyMesh *pmesh = rcAllocPolyMesh();
    rcPolyMeshDetail *dmesh = rcAllocPolyMeshDetail();
    std::vector<unsigned char> areas((size_t)nt, 0);
    dtNavMesh *nav = nullptr;
    unsigned char *data = nullptr;
    int size = 0;
    bool ok = solid && chf && cset && pmesh && dmesh &&
              rcCreateHeightfield(&ctx, *solid, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch);
    if (ok) {
        rcMarkWalkableTriangles(&ctx, cfg.walkableSlopeAngle, verts.data(), nv, tris.data(), nt, areas.data());
        ok = rcRasterizeTriangles(&ctx, verts.data(), nv, tris.data(), areas.data(), nt, *solid, cfg.walkableClimb);
    }
    if (ok) {
        rcFilterLowHangingWalkableObstacles(&ctx, cfg.walkableClimb, *solid);
        rcFilterLedgeSpans(&ctx, cfg.walkableHeight, cfg.walkableClimb, *solid);
        rcFilterWalkableLowHeightSpans(&ctx, cfg.walkableHeight, *solid);
        ok = rcBuildCompactHeightfield(&ctx, cfg.walkableHeight, cfg.walkableClimb, *solid, *chf) &&
             rcErodeWalkableArea(&ctx, cfg.walkableRadius, *chf) && rcBuildDistanceField(&ctx, *chf) &&
             rcBuildRegions(&ctx, *chf, 0, cfg.minRegionArea, cfg.mergeRegionArea) &&
             rcBuildContours(&ctx, *chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *cset) &&
             rcBuildPolyMesh(&ctx, *cset, cfg.maxVertsPerPoly, *pmesh) &&
             rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, cfg.detailSampleDist, cfg.detailSampleMaxError, *dmesh);
    }
    if (ok) {
        for (int p = 0; p < pmesh->npolys; ++p)
            pmesh->flags[p] = pmesh->areas[p] == RC_WALKABLE_AREA ? 1 : 0;
        dtNavMeshCreateParams params;
        std::memset(&params, 0, sizeof params);
        params.verts = pmesh->verts;
        params.vertCount = pmesh->nverts;
        params.polys = pmesh->polys;
        params.polyAreas = pmesh->areas;
        params.polyFlags = pmesh->flags;
        params.polyCount = pmesh->npolys;
        params.nvp = pmesh->nvp;
        params.detailMeshes = dmesh->meshes;
        params.detailVerts = dmesh->verts;
        params.detailVertsCount = dmesh->nverts;
        params.detailTris = dmesh->tris;
        params.detailTriCount = dmesh->ntris;
        params.walkableHeight = 2.0f * SCENARIO_RADIUS;
        params.walkableRadius = SCENARIO_RADIUS;
        params.walkableClimb = step_height;
        rcVcopy(params.bmin, pmesh->bmin);
        rcVcopy(params.bmax, pmesh->bmax);
        params.cs = cfg.cs;
        params.ch = cfg.ch;
        params.buildBvTree = true;
        ok = dtCreateNavMeshData(&params, &data, &size);
    }
    if (ok) {
        nav = dtAllocNavMesh();
        if (!nav || dtStatusFailed(nav->init(data, size, DT_TILE_FREE_DATA))) {
            dtFreeNavMesh(nav);
            dtFree(data);
            nav = nullptr;
        }
    }
    rcFreeHeightField(solid);
    rcFreeCompactHeightfield(chf);
    rcFreeContourSet(cset);
    rcFreePolyMesh(pmesh);
    rcFreePolyMeshDetail(dmesh);
    return nav;
}

/* Every agent to its goal (the scenario's last waypoint) through
   DetourCrowd with its default avoidance settings and every steering
   option the Recast sample turns on. */
bool run_detour(const crowd_scenario &s, bool progress, crowd_result &r, uint32_t &off_navmesh)
{
    off_navmesh = 0;
    std::memset(&r, 0, sizeof r);
    r.engine = "detour";
    r.steer = "navmesh";
    r.threads = 1;
    r.avoidance = true;
    dtNavMesh *nav = build_navmesh(s);
    dtCrowd *crowd = dtAllocCrowd();
    dtNavMeshQuery *query = dtAllocNavMeshQuery();
    crowd_tracker tracker;
    bool ok = nav && crowd && query && crowd->init((int)s.agents, SCENARIO_RADIUS, nav) &&
              dtStatusSucceed(query->init(nav, 2048)) && crowd_tracker_init(&tracker, &s);
    if (!ok) {
        std::fprintf(stderr, "%s: cannot build DetourCrowd's navmesh or crowd\n", s.name);
        dtFreeCrowd(crowd);
        dtFreeNavMeshQuery(query);
        dtFreeNavMesh(nav);
        return false;
    }
    dtCrowdAgentParams ap;
    std::memset(&ap, 0, sizeof ap);
    ap.radius = SCENARIO_RADIUS;
    ap.height = 2.0f * SCENARIO_RADIUS;
    ap.maxSpeed = SCENARIO_SPEED;
    ap.maxAcceleration = 4.0f * SCENARIO_SPEED; /* full speed in a quarter second */
    ap.collisionQueryRange = 12.0f * SCENARIO_RADIUS;
    ap.pathOptimizationRange = 30.0f * SCENARIO_RADIUS;
    ap.separationWeight = 2.0f;
    ap.updateFlags = DT_CROWD_ANTICIPATE_TURNS | DT_CROWD_OBSTACLE_AVOIDANCE | DT_CROWD_SEPARATION |
                     DT_CROWD_OPTIMIZE_VIS | DT_CROWD_OPTIMIZE_TOPO;
    ap.obstacleAvoidanceType = 0;
    for (uint32_t i = 0; i < s.agents && ok; ++i) {
        float start[3], goal[3], nearest[3];
        to_detour(s.starts[i], start);
        start[1] -= SCENARIO_RADIUS + 1.0f; /* Detour's agents stand on their feet */
        ok = crowd->addAgent(start, &ap) == (int)i;
        if (!ok || !s.way_count[i])
            continue; /* no goal: it stands, as skim's agent does */
        to_detour(s.way[(size_t)i * SCENARIO_MAX_WAY + s.way_count[i] - 1], goal);
        goal[1] -= SCENARIO_RADIUS + 1.0f;
        dtPolyRef ref = 0;
        bool found = dtStatusSucceed(query->findNearestPoly(goal, crowd->getQueryHalfExtents(), crowd->getFilter(0),
                                                            &ref, nearest)) && ref;
        if (!found) {
            /* Recast left no walkable polygon there (a ledge narrower than
               the agent, say): DetourCrowd cannot take this goal, and the
               agent stands and counts as not arrived. */
            off_navmesh++;
            continue;
        }
        ok = crowd->requestMoveTarget((int)i, ref, nearest);
    }
    const uint32_t most = (uint32_t)std::ceil(s.time_limit / frame_dt);
    std::vector<double> ms, cpu_ms;
    std::vector<skim_vec3> positions(s.agents);
    double total = 0.0, last_report = now();
    uint32_t frame = 0;
    while (ok && frame < most && tracker.arrived < scenario_walkers(&s)) {
        double t0 = now(), c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        crowd->update(frame_dt, nullptr);
        double t1 = now();
        cpu_ms.push_back((clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3);
        ms.push_back((t1 - t0) * 1e3);
        total += ms.back();
        ++frame;
        for (uint32_t i = 0; i < s.agents; ++i) {
            positions[i] = from_detour(crowd->getAgent((int)i)->npos);
            positions[i].z += SCENARIO_RADIUS + 1.0f;
        }
        crowd_tracker_frame(&tracker, positions.data(), frame * (double)frame_dt);
        if (progress && t1 - last_report > 5.0) {
            std::fprintf(stderr, "  %s %u detour: %.1f of %.1f s, %u arrived, %.2f ms/frame\n", s.name, s.agents,
                         frame * (double)frame_dt, s.time_limit, tracker.arrived, total / frame);
            last_report = t1;
        }
    }
    if (ok) {
        crowd_tracker_summary(&tracker, &r);
        r.frames = frame;
        r.seconds = frame * (double)frame_dt;
        r.ms_mean = frame ? total / frame : 0.0;
        r.ms_median = crowd_median(ms.data(), frame);
        r.cpu_ms_median = crowd_median(cpu_ms.data(), frame);
        r.ms_agents_median = r.ms_median;
    } else {
        std::fprintf(stderr, "%s: DetourCrowd refused an agent or its goal\n", s.name);
    }
    crowd_tracker_free(&tracker);
    dtFreeCrowd(crowd);
    dtFreeNavMeshQuery(query);
    dtFreeNavMesh(nav);
    return ok;
}

int usage()
{
    std::fprintf(stderr, "usage: bench_crowd_detour [--scenario circle|door|level] [--agents N[,N...]] [--scene NAME]\n"
                         "                          [--stay-on-floor on|off] [--threads T] [--steer target|velocity]\n"
                         "                          [--avoidance on|off] [--seed S] [--quiet]\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    const char *scenario = nullptr, *scene = "oa_dm1";
    std::vector<uint32_t> counts;
    crowd_goals_options o = { 1, STEER_TARGET, true, skim_crowd_def_default().avoidance_interval, true };
    uint64_t seed = 1;
    uint32_t agent_flags = 0;
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (std::strcmp(argv[i], "--quiet") == 0)
            o.progress = false;
        else if (!v)
            return usage();
        else if (std::strcmp(argv[i], "--scenario") == 0 &&
                 (!std::strcmp(v, "circle") || !std::strcmp(v, "door") || !std::strcmp(v, "level")))
            scenario = v, ++i;
        else if (std::strcmp(argv[i], "--scene") == 0)
            scene = v, ++i;
        else if (std::strcmp(argv[i], "--stay-on-floor") == 0 && (!std::strcmp(v, "on") || !std::strcmp(v, "off")))
            agent_flags = !std::strcmp(v, "on") ? SKIM_AGENT_STAYS_ON_FLOOR : 0, ++i;
        else if (std::strcmp(argv[i], "--agents") == 0) {
            for (char *end = nullptr; *v; v = *end ? end + 1 : end) {
                unsigned long n = std::strtoul(v, &end, 10);
                if (end == v || n < 2 || n > 1000000)
                    return usage();
                counts.push_back((uint32_t)n);
            }
            ++i;
        } else if (std::strcmp(argv[i], "--steer") == 0 && (!std::strcmp(v, "target") || !std::strcmp(v, "velocity")))
            o.steer = !std::strcmp(v, "target") ? STEER_TARGET : STEER_VELOCITY, ++i;
        else if (std::strcmp(argv[i], "--avoidance") == 0 && (!std::strcmp(v, "on") || !std::strcmp(v, "off")))
            o.avoidance = !std::strcmp(v, "on"), ++i;
        else if (std::strcmp(argv[i], "--threads") == 0 && std::atoi(v) >= 1)
            o.threads = std::atoi(v), ++i;
        else if (std::strcmp(argv[i], "--seed") == 0)
            seed = std::strtoull(v, nullptr, 10), ++i;
        else
            return usage();
    }
    struct job { const char *scenario; uint32_t agents; };
    std::vector<job> jobs;
    if (!scenario || !std::strcmp(scenario, "circle"))
        for (uint32_t n : counts.empty() ? std::vector<uint32_t>{ 250, 1000 } : counts)
            jobs.push_back({ "circle", n });
    if (!scenario || !std::strcmp(scenario, "door"))
        for (uint32_t n : counts.empty() ? std::vector<uint32_t>{ 200 } : counts)
            jobs.push_back({ "door", n });
    if (scenario && !std::strcmp(scenario, "level"))
        for (uint32_t n : counts.empty() ? std::vector<uint32_t>{ 0 } : counts)
            jobs.push_back({ "level", n }); /* 0: every spot */
    for (const job &j : jobs) {
        crowd_scenario s;
        bool missing = false;
        bool built = !std::strcmp(j.scenario, "circle") ? scenario_circle(j.agents, seed, &s)
                     : !std::strcmp(j.scenario, "door") ? scenario_door(j.agents, seed, &s)
                                                        : scenario_level(scene, j.agents, seed, agent_flags, &s, &missing);
        if (missing) {
            std::fprintf(stderr, "bench_crowd_detour: skipped: no level %s.obj (set SKIM_SCENES_DIR)\n", scene);
            return 77;
        }
        crowd_result detour, skim;
        uint32_t off_navmesh = 0;
        if (!built || !run_detour(s, o.progress, detour, off_navmesh) || !crowd_goals_run(&s, &o, &skim)) {
            scenario_free(&s);
            return 1;
        }
        crowd_print(&s, &detour);
        crowd_print(&s, &skim);
        std::printf("{\"bench\":\"crowd_vs_detour\",\"scenario\":\"%s\",\"agents\":%u,\"threads\":%d,"
                    "\"skim_steer\":\"%s\",\"skim_avoidance\":%s,\"goals_off_detour_navmesh\":%u,"
                    "\"arrived_percent_skim\":%.2f,\"arrived_percent_detour\":%.2f,"
                    "\"worst_overlap_skim\":%.4f,\"worst_overlap_detour\":%.4f,"
                    "\"ms_per_frame_skim\":%.4f,\"ms_per_frame_detour\":%.4f,\"time_ratio_skim_over_detour\":%.3f,"
                    "\"cpu_ms_per_frame_skim\":%.4f,\"cpu_ms_per_frame_detour\":%.4f,\"cpu_ratio_skim_over_detour\":%.3f}\n",
                    s.name, s.agents, o.threads, skim.steer, o.avoidance ? "true" : "false", off_navmesh,
                    skim.arrived_percent, detour.arrived_percent, skim.worst_overlap,
                    detour.worst_overlap, skim.ms_median, detour.ms_median,
                    detour.ms_median > 0.0 ? skim.ms_median / detour.ms_median : 0.0, skim.cpu_ms_median,
                    detour.cpu_ms_median, detour.cpu_ms_median > 0.0 ? skim.cpu_ms_median / detour.cpu_ms_median : 0.0);
        std::fflush(stdout);
        scenario_free(&s);
    }
    return 0;
}
