#include "../backend.h"
#include "wave2d.h"

void CL_PREC(cl_wave2d_accel_cpu)(size_t nx, size_t ny, const void *u_, void *a_,
                                  double c2_over_dx2) {
  const real *u = u_;
  real *a = a_;
#pragma omp parallel for schedule(static)
  for (size_t j = 0; j < ny; j++)
    for (size_t i = 0; i < nx; i++) a[j * nx + i] = cl_wave2d_accel(u, i, j, nx, ny, (real)c2_over_dx2);
}
