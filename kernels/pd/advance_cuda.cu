#include "../common/launch_cuda.cuh"
#include "advance.h"
#include "force.h"

__global__ void CL_PREC(advance_kernel)(size_t n, int dim, real *u, const real *u_prev, real *v, const real *a,
                                        const uint8_t *held, real dt, int free_too) {
  CL_GRID_STRIDE(i, n) cl_pd_advance_point(n, dim, i, u, u_prev, v, a, held, dt, free_too);
}

extern "C" int CL_PREC(cl_pd_advance_cuda)(size_t n, int dim, void *u, const void *u_prev, void *v, const void *a,
                                           const uint8_t *held, double dt, int free_too) {
  if (n == 0) return 0;
  CL_PREC(advance_kernel)<<<cl_grid_1d(n), CL_THREADS>>>(n, dim, (real *)u, (const real *)u_prev, (real *)v,
                                                         (const real *)a, held, (real)dt, free_too);
  return (int)cudaGetLastError();
}
