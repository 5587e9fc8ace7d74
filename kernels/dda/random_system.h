/* A random symmetric positive definite block system for the solver's tests and benchmarks
 * (tests/unit/test_dda.c, scripts/bench/dda_spmv.c): values on a given pattern, from a 64-bit
 * linear congruential generator (Knuth's MMIX constants) whose state the caller owns; and a
 * random block system for detection's (scripts/bench/dda_detection.c). */
#ifndef CL_DDA_RANDOM_SYSTEM_H
#define CL_DDA_RANDOM_SYSTEM_H

#include <stdint.h>

#include "../../runtime/status.h"
#include "bsr.h"

/* Uniform in [lo, hi) from 53 bits of the generator's next state. */
double cl_dda_random_uniform(uint64_t *state, double lo, double hi);

/* Zeroed values for pattern a (cl_dda_bsr_zero_values), then each block of the upper triangle and
 * its transpose: off-diagonal entries uniform in [-1, 1), diagonal entries diagonal + uniform in
 * [0, jitter) (jitter 0: no draw). With diagonal above 6 (1 + the blocks of the fullest row) the
 * matrix is diagonally dominant, hence positive definite. Blocks are filled row by row, entries
 * row-major: the same seed gives the same matrix everywhere. */
cl_status cl_dda_random_spd(cl_dda_bsr *a, double diagonal, double jitter, uint64_t *state, cl_error *err);

/* A jittered grid of nx x ny quadrilaterals, counter-clockwise: cells of 1, the blocks 0.02 apart,
 * each corner moved by up to 0.008; every third block has a short edge (0.03) at one corner, so
 * that a vertex near both its ends gives equal contact keys. *vstart (nx ny + 1), *vx, *vy are
 * allocated here (free them). */
cl_status cl_dda_random_grid(int nx, int ny, uint64_t *state, int32_t **vstart, double **vx, double **vy,
                             cl_error *err);

#endif
