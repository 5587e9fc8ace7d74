#include "../common/launch_cuda.cuh"
#include "contact_kernels.h"

__global__ void CL_PREC(dda_contact_setup_kernel)(cl_dda_setup_args a) {
  CL_GRID_STRIDE(k, a.nc) cl_dda_contact_setup(&a, k);
}

__global__ void CL_PREC(dda_account_kernel)(cl_dda_account_args a) {
  CL_GRID_STRIDE(k, a.nc) cl_dda_contact_account(&a, k);
}

extern "C" int CL_PREC(cl_dda_contact_setup_cuda)(const cl_dda_setup_args *a) {
  if (a->nc == 0) return 0;
  CL_PREC(dda_contact_setup_kernel)<<<cl_grid_1d(a->nc), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_dda_account_cuda)(const cl_dda_account_args *a) {
  if (a->nc == 0) return 0;
  CL_PREC(dda_account_kernel)<<<cl_grid_1d(a->nc), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

/* integers only: one copy, the f64 build's */
#ifndef CL_PRECISION_F32
__global__ void dda_pattern_kernel(cl_dda_pattern_args a, int pass, size_t items) {
  CL_GRID_STRIDE(k, items) cl_dda_pattern_item(&a, pass, k);
}

extern "C" int cl_dda_pattern_cuda_f64(const cl_dda_pattern_args *a, int pass, size_t items) {
  if (items == 0) return 0;
  dda_pattern_kernel<<<cl_grid_1d(items), CL_THREADS>>>(*a, pass, items);
  return (int)cudaGetLastError();
}

__global__ void dda_transfer_kernel(cl_dda_transfer_args a, int pass) {
  CL_GRID_STRIDE(k, a.nfound) cl_dda_transfer_item(&a, pass, k);
}

extern "C" int cl_dda_transfer_cuda_f64(const cl_dda_transfer_args *a, int pass) {
  if (a->nfound == 0) return 0;
  dda_transfer_kernel<<<cl_grid_1d(a->nfound), CL_THREADS>>>(*a, pass);
  return (int)cudaGetLastError();
}
#endif
