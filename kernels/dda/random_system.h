/* A random symmetric positive definite block system for the solver's tests and benchmarks
 * (tests/unit/test_dda.c, scripts/bench/dda_spmv.c): values on a given pattern, from a 64-bit
 * linear congruential generator (Knuth's MMIX constants) whose state the caller owns; and a
 * random block system for detection's (scripts/bench/dda_detection.c); and a jointed mass's pattern
 * with DDA-like values for the preconditioners' comparison (scripts/bench/dda_precond.c). */
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

/* A jointed mass's pattern (scripts/bench/dda_spmv.c, dda_precond.c): n unit-square blocks on a grid
 * `width` columns wide (block b at column b % width, row b / width), each in contact with its
 * right, upper and two upper-diagonal neighbours (4 upper blocks a row, as the paper's case 1), and
 * with `base` > 0 block 0 also with blocks 1 .. base, as case 1's fixed base touches ~190 blocks. */
cl_status cl_dda_random_jointed_pattern(cl_dda_bsr *a, size_t n, size_t width, size_t base, cl_error *err);

/* DDA-like values on that pattern (the same n, width and base), symmetric positive definite and
 * conditioned as a step's matrix, not diagonally dominant: each diagonal block the block's inertia
 * (`inertia` times the unit square's integral of T^T T, T its first-order displacement function,
 * diag(1, 1, 1/6, 1/12, 1/12, 1/24)) and elasticity (E = 0.05, nu = 0.25 on the strains) plus its
 * contacts' springs; each contact of the pattern's pairs locked, its normal (kn = 1) and shear
 * (ks = 0.4) springs at random points of the shared edge (two points; one at the shared corner of
 * diagonal neighbours, its normal within 30 degrees of the diagonal; a tenth of the points open:
 * no spring), and block 0 held by three fixed points (penalty 100) -- a sum of positive
 * semidefinite springs and positive definite diagonals, so positive definite. The smaller the
 * inertia, the worse the condition (the graph Laplacian's of the grid). */
cl_status cl_dda_random_jointed_values(cl_dda_bsr *a, size_t width, size_t base, double inertia, uint64_t *state,
                                       cl_error *err);

/* A jittered grid of nx x ny quadrilaterals, counter-clockwise: cells of 1, the blocks 0.02 apart,
 * each corner moved by up to 0.008; every third block has a short edge (0.03) at one corner, so
 * that a vertex near both its ends gives equal contact keys. *vstart (nx ny + 1), *vx, *vy are
 * allocated here (free them). */
cl_status cl_dda_random_grid(int nx, int ny, uint64_t *state, int32_t **vstart, double **vx, double **vy,
                             cl_error *err);

#endif
