#include "../backend.h"
#include "../common/launch_cuda.cuh"
#include "wave2d.h"

__global__ void CL_PREC(wave2d_accel_kernel)(size_t nx, size_t ny, const real *u, real *a, real k) {
  CL_GRID_STRIDE(p, nx * ny) a[p] = cl_wave2d_accel(u, p % nx, p / nx, nx, ny, k);
}

extern "C" int CL_PREC(cl_wave2d_accel_cuda)(size_t nx, size_t ny, const void *u, void *a, double k) {
  if (nx * ny == 0) return 0;
  CL_PREC(wave2d_accel_kernel)<<<cl_grid_1d(nx * ny), CL_THREADS>>>(nx, ny, (const real *)u, (real *)a, (real)k);
  return (int)cudaGetLastError();
}
