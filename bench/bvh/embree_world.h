/* A mesh as one Embree triangle geometry on a one-thread device, for the
   benchmarks that race skim against Embree (bench_embree, bench_rays).
   An Embree error ends the process with its message. */
#ifndef SKIM_BENCH_EMBREE_WORLD_H
#define SKIM_BENCH_EMBREE_WORLD_H

#include <skim/skim.h>

#include <embree3/rtcore.h>

typedef struct embree_world {
    RTCDevice device;
    RTCScene  scene;
} embree_world;

embree_world embree_build(const skim_mesh *mesh);
void         embree_release(embree_world *e);

#endif
