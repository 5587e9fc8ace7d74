/* The arguments of the per-block DDA kernels (block_kernels.h): the diagonal
 * submatrices and the block update. Pointers are arrays on the kernel's device
 * in its precision (real); per-block vectors are SoA (component c of block i at
 * [c n + i]); the 6x6 submatrices are block-major, row-major (36 i + 6 r + c). */
#ifndef CL_DDA_BLOCK_ARGS_H
#define CL_DDA_BLOCK_ARGS_H

#include "../common/portable.h"

typedef struct cl_dda_block_args {
  size_t n;                  /* blocks */
  const int32_t *vstart;     /* n + 1 offsets of each block's vertices (counter-clockwise) */
  void *vx, *vy;             /* vertex coordinates (moved by the update) */
  const void *rho, *E, *nu;  /* per block */
  int plane_strain;
  void *stress;              /* 3 x n: sxx, syy, sxy (accumulated by the update) */
  void *vel;                 /* 6 x n: the velocities of the six unknowns */
  void *rotation;            /* n: each block's rotation since the start (accumulated by the update) */
  double dt, gx, gy;
  double last_dt;            /* in (predict): the last accepted step's */
  int dynamic;               /* 0: static analysis, velocities zeroed after each step */
  /* points, sorted by block: offsets pstart (n + 1) into x, y (current position), and for
   * fixed points the target tx, ty (their first position); for loading points the load px, py */
  const int32_t *fstart;
  void *fx, *fy;
  const void *ftx, *fty;
  double fixed_penalty;
  const int32_t *lstart;
  void *lx, *ly;
  const void *lpx, *lpy;
  void *K;                   /* out: 36 n */
  void *F;                   /* out: 6 n */
  void *moments;             /* out (diagonal) / in (update): 6 x n: S, Sxx, Syy, Sxy, x0, y0 */
  void *mass;                /* out (diagonal), or NULL: n, each block's mass rho S */
  const void *D;             /* in (update, check): 6 x n, the step's solution */
  void *predicted;           /* out (predict): 6 x n, a dynamic step's first solve's start */
  void *check;               /* out (check): 2 x n: each block's largest vertex displacement under D, and
                                its index where D would change its area by more than a factor 2, else n */
  void *energy;              /* out (update), or NULL: 3 x n: each block's work of gravity and of its
                                loading points under D, and its kinetic energy after the update */
} cl_dda_block_args;

#endif
