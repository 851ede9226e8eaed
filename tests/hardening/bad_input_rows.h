/* The bad-input table's rows, one array an area of the API
   (bad_input_rows_world.c, bad_input_rows_motion.c); test_bad_input_table.c
   runs them in that order as one table. */
#ifndef SKIM_BAD_INPUT_ROWS_H
#define SKIM_BAD_INPUT_ROWS_H

#include "bad_input.h"

extern const row bad_input_rows_world[];
extern const size_t bad_input_rows_world_count;
extern const row bad_input_rows_motion[];
extern const size_t bad_input_rows_motion_count;

#endif
