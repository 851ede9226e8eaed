/**
 * @file skim_scene_bodies.h
 * @brief The default scene's moving bodies (skim extension): a lift, a sliding door and a
 * platform, with the schedule `skim crowd` drives them by.
 *
 * Part of <skim/skim.h>; include that instead. docs/bodies.md shows them in use.
 */
#ifndef SKIM_SCENE_BODIES_H
#define SKIM_SCENE_BODIES_H

#include <skim/skim.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Moving bodies of skim_scene_default(): 0 the lift, 1 the door, 2 the platform. */
enum { SKIM_SCENE_DEFAULT_BODY_COUNT = 3 };

/** Body `index`'s mesh in its own space (free with skim_mesh_data_free()) and, if name is not
    NULL, its name ("lift", "door", "platform"). */
SKIM_API skim_status skim_scene_default_body(uint32_t index, skim_mesh_data *out, const char **name);

/** Where body `index` stands `seconds` after the start, seconds in [0, 1e9]: a periodic
    schedule, a function of time alone. */
SKIM_API skim_status skim_scene_default_body_transform(uint32_t index, double seconds, skim_transform *out);

#ifdef __cplusplus
}
#endif

#endif /* SKIM_SCENE_BODIES_H */
