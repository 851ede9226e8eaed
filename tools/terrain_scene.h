/* A large open world for the move and crowd benchmarks, generated rather
   than checked in: a 512 x 512 heightfield of 32-unit cells (16,384 units
   across, rolling hills no steeper than about 25 degrees) with 2,000
   boxes standing on it, 548,288 triangles in all. The same bits on every
   run and machine (a fixed seed, float operations only in the order
   written). */
#ifndef SKIM_BENCH_TERRAIN_SCENE_H
#define SKIM_BENCH_TERRAIN_SCENE_H

#include <skim/skim.h>

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TERRAIN_CELLS = 512, TERRAIN_BOXES = 2000 };
#define TERRAIN_CELL_SIZE 32.0f

/* Fills out (free it with skim_mesh_data_free); false when out of memory. */
bool terrain_scene_generate(skim_mesh_data *out);

#ifdef __cplusplus
}
#endif

#endif
