#include "../backend.h"
#include "verlet.h"

void CL_PREC(cl_verlet_kick_drift_cpu)(size_t n, void *u_, void *v_, const void *a_, double dt) {
  real *u = u_, *v = v_;
  const real *a = a_;
#pragma omp parallel for schedule(static) if (n > CL_CPU_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) cl_verlet_kick_drift(&u[i], &v[i], a[i], (real)dt);
}

void CL_PREC(cl_verlet_kick_cpu)(size_t n, void *v_, const void *a_, double dt) {
  real *v = v_;
  const real *a = a_;
#pragma omp parallel for schedule(static) if (n > CL_CPU_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) cl_verlet_kick(&v[i], a[i], (real)dt);
}
