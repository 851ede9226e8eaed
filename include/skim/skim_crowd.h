/* Part of <skim/skim.h>; include that instead. */
#ifndef SKIM_SKIM_CROWD_H
#define SKIM_SKIM_CROWD_H
#include <skim/skim.h>
#endif
