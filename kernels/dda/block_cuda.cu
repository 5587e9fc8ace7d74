#include "../common/launch_cuda.cuh"
#include "block_kernels.h"
#include "diagonal.h"

__global__ void CL_PREC(dda_diagonal_kernel)(cl_dda_block_args a) {
  CL_GRID_STRIDE(i, a.n) cl_dda_diagonal_block(&a, i);
}

__global__ void CL_PREC(dda_update_kernel)(cl_dda_block_args a) {
  CL_GRID_STRIDE(i, a.n) cl_dda_update_block(&a, i);
}

__global__ void CL_PREC(dda_predict_kernel)(cl_dda_block_args a) {
  CL_GRID_STRIDE(i, a.n) cl_dda_predict_block(&a, i);
}

__global__ void CL_PREC(dda_check_kernel)(cl_dda_block_args a) {
  CL_GRID_STRIDE(i, a.n) cl_dda_check_block(&a, i);
}

extern "C" int CL_PREC(cl_dda_diagonal_cuda)(const cl_dda_block_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(dda_diagonal_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_dda_update_cuda)(const cl_dda_block_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(dda_update_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_dda_predict_cuda)(const cl_dda_block_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(dda_predict_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_dda_check_cuda)(const cl_dda_block_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(dda_check_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}
