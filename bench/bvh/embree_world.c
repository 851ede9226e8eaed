/* The Embree side of the benchmarks that race it (embree_world.h). */
#include "embree_world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void embree_error(void *user, enum RTCError code, const char *message)
{
    (void)user;
    fprintf(stderr, "Embree error %d: %s\n", (int)code, message ? message : "");
    exit(1);
}

/* The mesh as one Embree triangle geometry, built with one thread. */
embree_world embree_build(const skim_mesh *mesh)
{
    embree_world e;
    e.device = rtcNewDevice("threads=1");
    if (!e.device) {
        fprintf(stderr, "rtcNewDevice failed\n");
        exit(1);
    }
    rtcSetDeviceErrorFunction(e.device, embree_error, NULL);
    e.scene = rtcNewScene(e.device);
    RTCGeometry geometry = rtcNewGeometry(e.device, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *vertices = rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                              3 * sizeof(float), mesh->vertex_count);
    unsigned *indices = rtcSetNewGeometryBuffer(geometry, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                                3 * sizeof(unsigned), mesh->triangle_count);
    memcpy(vertices, mesh->positions, 3 * sizeof(float) * (size_t)mesh->vertex_count);
    memcpy(indices, mesh->indices, 3 * sizeof(unsigned) * (size_t)mesh->triangle_count);
    rtcCommitGeometry(geometry);
    rtcAttachGeometry(e.scene, geometry);
    rtcReleaseGeometry(geometry);
    rtcCommitScene(e.scene);
    return e;
}

void embree_release(embree_world *e)
{
    rtcReleaseScene(e->scene);
    rtcReleaseDevice(e->device);
}
