/* Part of <skim/skim.h>; include that instead. */
#ifndef SKIM_SKIM_MESH_IO_H
#define SKIM_SKIM_MESH_IO_H
#include <skim/skim.h>
#endif
