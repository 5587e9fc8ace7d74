#include "../backend.h"
#include "blas1.h"
#include "launch_cuda.cuh"
#include "reduce_cuda.cuh"

__global__ void CL_PREC(axpy_kernel)(size_t n, real a, const real *x, real *y) {
  CL_GRID_STRIDE(i, n) y[i] = cl_axpy(a, x[i], y[i]);
}

__global__ void CL_PREC(dot_kernel)(size_t n, const real *x, const real *y, double *partials) {
  double acc = 0;
  CL_GRID_STRIDE(i, n) acc += cl_dot_term(x[i], y[i]);
  acc = cl_block_reduce(CL_COMBINE_SUM, acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

extern "C" int CL_PREC(cl_axpy_cuda)(size_t n, double a, const void *x, void *y) {
  if (n == 0) return 0;
  CL_PREC(axpy_kernel)<<<cl_grid_1d(n), CL_THREADS>>>(n, (real)a, (const real *)x, (real *)y);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_dot_cuda)(size_t n, const void *x, const void *y, double *scratch, double *out) {
  int e;
  int blocks = cl_reduce_blocks(n);
  CL_PREC(dot_kernel)<<<blocks, CL_REDUCE_THREADS>>>(n, (const real *)x, (const real *)y, scratch);
  if ((e = (int)cudaGetLastError())) return e;
  return cl_cuda_reduce_finish(CL_COMBINE_SUM, scratch, blocks, out);
}
