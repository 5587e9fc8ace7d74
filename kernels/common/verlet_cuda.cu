#include "../backend.h"
#include "launch_cuda.cuh"
#include "verlet.h"

__global__ void CL_PREC(kick_drift_kernel)(size_t n, real *u, real *v, const real *a, real dt) {
  CL_GRID_STRIDE(i, n) cl_verlet_kick_drift(&u[i], &v[i], a[i], dt);
}

__global__ void CL_PREC(kick_kernel)(size_t n, real *v, const real *a, real dt) {
  CL_GRID_STRIDE(i, n) cl_verlet_kick(&v[i], a[i], dt);
}

extern "C" int CL_PREC(cl_verlet_kick_drift_cuda)(size_t n, void *u, void *v, const void *a, double dt) {
  if (n == 0) return 0;
  CL_PREC(kick_drift_kernel)<<<cl_grid_1d(n), CL_THREADS>>>(n, (real *)u, (real *)v, (const real *)a, (real)dt);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_verlet_kick_cuda)(size_t n, void *v, const void *a, double dt) {
  if (n == 0) return 0;
  CL_PREC(kick_kernel)<<<cl_grid_1d(n), CL_THREADS>>>(n, (real *)v, (const real *)a, (real)dt);
  return (int)cudaGetLastError();
}
