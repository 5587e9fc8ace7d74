/* The multigrid operations of the quasi-static FE as CUDA kernels (fe_ep_mg_kernels.h holds
 * them): CL_FE_EP_MG_ROW_LANES threads per row of a CSR product, one per row of a smoothing step. */
#include "../common/launch_cuda.cuh"
#include "fe_ep_mg_kernels.h"

/* Each warp takes 32 / L consecutive rows at a time (L = CL_FE_EP_MG_ROW_LANES lanes each); the loop
 * bound is the same for the whole warp, so every lane reaches the shuffles. */
__global__ void CL_PREC(fe_ep_mg_csr_kernel)(cl_fe_ep_mg_args A) {
  const unsigned L = CL_FE_EP_MG_ROW_LANES, lane = threadIdx.x % L;
  const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32, warps = (size_t)gridDim.x * blockDim.x / 32;
  const size_t group = (threadIdx.x % 32) / L; /* the row of this lane's group within the warp's rows */
  for (size_t first = warp * (32 / L); first < A.n; first += warps * (32 / L)) {
    const size_t i = first + group;
    real v = i < A.n ? cl_fe_ep_mg_csr_partial(&A, i, lane, L) : (real)0;
    for (unsigned off = L / 2; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off, L);
    if (i < A.n && lane == 0) cl_fe_ep_mg_csr_store(&A, i, v);
  }
}

__global__ void CL_PREC(fe_ep_mg_smooth_kernel)(cl_fe_ep_mg_args A) {
  CL_GRID_STRIDE(i, A.n) cl_fe_ep_mg_smooth_row(&A, i);
}

extern "C" int CL_PREC(cl_fe_ep_mg_run_cuda)(const cl_fe_ep_mg_args *A, int op) {
  if (!A->n) return 0;
  if (op == CL_FE_EP_MG_CSR)
    CL_PREC(fe_ep_mg_csr_kernel)<<<cl_grid_1d(A->n * CL_FE_EP_MG_ROW_LANES), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
  else
    CL_PREC(fe_ep_mg_smooth_kernel)<<<cl_grid_1d(A->n), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
  return (int)cudaGetLastError();
}
