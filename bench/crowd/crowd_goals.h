/* A scenario with goals run through skim's crowd. */
#ifndef CROWD_GOALS_H
#define CROWD_GOALS_H

#include "crowd_measure.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum crowd_steer {
    STEER_TARGET,   /* skim_crowd_set_path: the crowd steers and avoids */
    STEER_VELOCITY, /* the program points each agent's desired velocity at its
                       next waypoint every frame, as a user of a crowd without
                       targets would */
} crowd_steer;

typedef struct crowd_goals_options {
    int         threads;
    crowd_steer steer;
    bool        avoidance;
    uint32_t    avoidance_interval; /* skim_crowd_def.avoidance_interval */
    bool        progress;  /* a line on stderr every few seconds */
} crowd_goals_options;

/* Runs until every walker arrived or the scenario's time limit; false with
   a message on stderr when the library refused. */
bool crowd_goals_run(crowd_scenario *s, const crowd_goals_options *o, crowd_result *r);

#ifdef __cplusplus
}
#endif
#endif
