/* The DDA solver's operations as CUDA kernels (assembly_ops.h, pcg_ops.h): one thread per
 * contact, matrix block, block row, matrix row or vector entry, on the default stream like the block kernels and the reductions. */
#include "../common/blas1.h"
#include "../common/launch_cuda.cuh"
#include "../common/reduce_cuda.cuh"
#include "assembly_ops.h"
#include "pcg_kernels.h"
#include "pcg_ops.h"

__global__ void CL_PREC(dda_springs_kernel)(cl_dda_pcg_args A) {
  CL_GRID_STRIDE(k, A.nc) cl_dda_contact_springs(&A, k);
}

__global__ void CL_PREC(dda_gather_kernel)(cl_dda_pcg_args A) {
  CL_GRID_STRIDE(t, A.ntarget) cl_dda_gather_block(&A, t);
}

__global__ void CL_PREC(dda_gather_rhs_kernel)(cl_dda_pcg_args A) {
  CL_GRID_STRIDE(i, A.n) cl_dda_gather_rhs(&A, i);
}

__global__ void CL_PREC(dda_pcg_block_kernel)(cl_dda_pcg_args A, int op) {
  CL_GRID_STRIDE(i, A.n) cl_dda_pcg_block(&A, op, i);
}

__global__ void CL_PREC(dda_spmv_kernel)(cl_dda_pcg_args A) {
  CL_GRID_STRIDE(row, 6 * A.n) cl_dda_spmv_row(&A, row);
}

__global__ void CL_PREC(dda_pcg_entry_kernel)(cl_dda_pcg_args A, int op) {
  CL_GRID_STRIDE(e, 6 * A.n) cl_dda_pcg_entry(&A, op, e);
}

/* r.z and r.r in one pass: two partial sums a block (the second reduction after a barrier: the
 * block reduction's shared words are reused) */
__global__ void CL_PREC(dda_dot2_kernel)(size_t n, const real *r, const real *z, double *partials) {
  double a = 0, b = 0;
  CL_GRID_STRIDE(i, n) a += cl_dot_term(r[i], z[i]), b += cl_dot_term(r[i], r[i]);
  a = cl_block_reduce(CL_COMBINE_SUM, a);
  __syncthreads();
  b = cl_block_reduce(CL_COMBINE_SUM, b);
  if (threadIdx.x == 0) partials[blockIdx.x] = a, partials[gridDim.x + blockIdx.x] = b;
}

__global__ void CL_PREC(dda_dot2_finish_kernel)(double *partials, int nparts) {
  double a = 0, b = 0;
  for (int i = threadIdx.x; i < nparts; i += blockDim.x) a += partials[i], b += partials[nparts + i];
  a = cl_block_reduce(CL_COMBINE_SUM, a);
  __syncthreads();
  b = cl_block_reduce(CL_COMBINE_SUM, b);
  if (threadIdx.x == 0) partials[2 * nparts] = a, partials[2 * nparts + 1] = b;
}

extern "C" int CL_PREC(cl_dda_dot2_cuda)(size_t n, const void *r, const void *z, double *partials, double out[2]) {
  int blocks = cl_reduce_blocks(n), e;
  CL_PREC(dda_dot2_kernel)<<<blocks, CL_REDUCE_THREADS>>>(n, (const real *)r, (const real *)z, partials);
  if ((e = (int)cudaGetLastError())) return e;
  CL_PREC(dda_dot2_finish_kernel)<<<1, CL_REDUCE_THREADS>>>(partials, blocks);
  if ((e = (int)cudaGetLastError())) return e;
  return (int)cudaMemcpy(out, partials + 2 * blocks, 2 * sizeof(double), cudaMemcpyDeviceToHost);
}

extern "C" int CL_PREC(cl_dda_pcg_cuda)(const cl_dda_pcg_args *A, int op) {
  if (A->n == 0) return 0;
  switch (op) {
    case CL_DDA_OP_SPRINGS:
      if (A->nc) CL_PREC(dda_springs_kernel)<<<cl_grid_1d(A->nc), CL_THREADS>>>(*A);
      break;
    case CL_DDA_OP_GATHER:
      CL_PREC(dda_gather_kernel)<<<cl_grid_1d(A->ntarget), CL_THREADS>>>(*A);
      break;
    case CL_DDA_OP_GATHER_RHS:
      CL_PREC(dda_gather_rhs_kernel)<<<cl_grid_1d(A->n), CL_THREADS>>>(*A);
      break;
    case CL_DDA_OP_FACTOR:
    case CL_DDA_OP_BLOCK_SOLVE:
    case CL_DDA_OP_SSOR_FINISH:
      CL_PREC(dda_pcg_block_kernel)<<<cl_grid_1d(A->n), CL_THREADS>>>(*A, op);
      break;
    case CL_DDA_OP_SPMV:
      CL_PREC(dda_spmv_kernel)<<<cl_grid_1d(6 * A->n), CL_THREADS>>>(*A);
      break;
    default:
      CL_PREC(dda_pcg_entry_kernel)<<<cl_grid_1d(6 * A->n), CL_THREADS>>>(*A, op);
  }
  return (int)cudaGetLastError();
}
