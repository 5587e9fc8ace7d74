/* The multigrid operations of the quasi-static FE as CUDA kernels (fe_ep_mg_kernels.h holds
 * them): one thread per row. */
#include "../common/launch_cuda.cuh"
#include "fe_ep_mg_kernels.h"

__global__ void CL_PREC(fe_ep_mg_csr_kernel)(cl_fe_ep_mg_args A) {
  CL_GRID_STRIDE(i, A.n) cl_fe_ep_mg_csr_row(&A, i);
}

__global__ void CL_PREC(fe_ep_mg_smooth_kernel)(cl_fe_ep_mg_args A) {
  CL_GRID_STRIDE(i, A.n) cl_fe_ep_mg_smooth_row(&A, i);
}

extern "C" int CL_PREC(cl_fe_ep_mg_run_cuda)(const cl_fe_ep_mg_args *A, int op) {
  if (!A->n) return 0;
  if (op == CL_FE_EP_MG_CSR)
    CL_PREC(fe_ep_mg_csr_kernel)<<<cl_grid_1d(A->n), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
  else
    CL_PREC(fe_ep_mg_smooth_kernel)<<<cl_grid_1d(A->n), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
  return (int)cudaGetLastError();
}
