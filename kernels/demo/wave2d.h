/* The demonstration physics: the scalar wave equation u_tt = c^2 lap(u) on
 * an nx x ny grid (row-major, i fastest) with u = 0 held on the boundary.
 * Five-point Laplacian; boundary points get zero acceleration. */
#ifndef CL_WAVE2D_H
#define CL_WAVE2D_H

#include <stddef.h>

#include "../common/real.h"

CL_HD static inline real cl_wave2d_accel(const real *u, size_t i, size_t j, size_t nx, size_t ny,
                                        real c2_over_dx2) {
  if (i == 0 || j == 0 || i + 1 == nx || j + 1 == ny) return 0;
  size_t p = j * nx + i;
  real lap = u[p - 1] + u[p + 1] + u[p - nx] + u[p + nx] - 4 * u[p];
  return c2_over_dx2 * lap;
}

#endif
