/* The wander scenario (crowd_wander.c): agents walking in random
   directions, with and without agent-agent collisions. */
#ifndef CROWD_WANDER_H
#define CROWD_WANDER_H

/* argv holds the options alone; returns the exit code. */
int crowd_wander_main(int argc, char **argv);

#endif
