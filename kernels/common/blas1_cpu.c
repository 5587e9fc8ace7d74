#include "../backend.h"
#include "blas1.h"

void CL_PREC(cl_axpy_cpu)(size_t n, double a, const void *x_, void *y_) {
  const real *x = x_;
  real *y = y_;
#pragma omp parallel for schedule(static) if (n > CL_CPU_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) y[i] = cl_axpy((real)a, x[i], y[i]);
}

void CL_PREC(cl_dot_cpu)(size_t n, const void *x_, const void *y_, double *scratch, double *out) {
  (void)scratch; /* the cpu reduces in OpenMP's own storage */
  const real *x = x_, *y = y_;
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (n > CL_CPU_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) s += cl_dot_term(x[i], y[i]);
  *out = s;
}
