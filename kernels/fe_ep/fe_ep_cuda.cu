/* The quasi-static FE operations as CUDA kernels (fe_ep_kernels.h holds the physics): one
 * thread per element, node or matrix nonzero; the gathers need no atomics, so the result is
 * the cpu loops' to round-off of the same sums in the same order. The element kernel is compiled
 * per operation, shape and order, so that each has the registers of its own element size (one
 * kernel over all orders would take p = 3's for p = 1). */
#include "../common/launch_cuda.cuh"
#include "fe_ep_kernels.h"

template <int OP, int SHAPE, int ORDER>
__global__ void CL_PREC(fe_ep_element_kernel)(cl_fe_ep_args A) {
  CL_GRID_STRIDE(e, A.ne) cl_fe_ep_element_of(&A, OP, e, SHAPE, ORDER);
}

template <int OP>
static void CL_PREC(launch_elements)(const cl_fe_ep_args *A) {
  const unsigned grid = cl_grid_1d(A->ne);
  if (A->shape == CL_FE_QUAD && A->order == 1)
    CL_PREC(fe_ep_element_kernel)<OP, CL_FE_QUAD, 1><<<grid, CL_THREADS, 0, cudaStreamPerThread>>>(*A);
  else if (A->shape == CL_FE_QUAD && A->order == 2)
    CL_PREC(fe_ep_element_kernel)<OP, CL_FE_QUAD, 2><<<grid, CL_THREADS, 0, cudaStreamPerThread>>>(*A);
  else if (A->shape == CL_FE_QUAD)
    CL_PREC(fe_ep_element_kernel)<OP, CL_FE_QUAD, 3><<<grid, CL_THREADS, 0, cudaStreamPerThread>>>(*A);
  else if (A->order == 1)
    CL_PREC(fe_ep_element_kernel)<OP, CL_FE_TRI, 1><<<grid, CL_THREADS, 0, cudaStreamPerThread>>>(*A);
  else
    CL_PREC(fe_ep_element_kernel)<OP, CL_FE_TRI, 2><<<grid, CL_THREADS, 0, cudaStreamPerThread>>>(*A);
}

__global__ void CL_PREC(fe_ep_node_kernel)(cl_fe_ep_args A) {
  CL_GRID_STRIDE(n, A.nnodes) cl_fe_ep_gather_node(&A, n);
}

__global__ void CL_PREC(fe_ep_nonzero_kernel)(cl_fe_ep_args A) {
  CL_GRID_STRIDE(j, A.nnz) cl_fe_ep_gather_nonzero(&A, j);
}

__global__ void CL_PREC(fe_ep_permute_kernel)(cl_fe_ep_args A) {
  CL_GRID_STRIDE(k, A.nnz) cl_fe_ep_permute_value(&A, k);
}

__global__ void CL_PREC(fe_ep_row_kernel)(cl_fe_ep_args A, int op) {
  CL_GRID_STRIDE(i, A.ndof) {
    if (op == CL_FE_EP_CONSTRAIN) cl_fe_ep_constrain_row(&A, i);
    else cl_fe_ep_cg_vector(&A, op, i);
  }
}

extern "C" int CL_PREC(cl_fe_ep_run_cuda)(const cl_fe_ep_args *A, int op) {
  switch (op) {
    case CL_FE_EP_GATHER_FORCES:
      if (A->nnodes) CL_PREC(fe_ep_node_kernel)<<<cl_grid_1d(A->nnodes), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
      break;
    case CL_FE_EP_GATHER_TANGENT:
      if (A->nnz) CL_PREC(fe_ep_nonzero_kernel)<<<cl_grid_1d(A->nnz), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
      break;
    case CL_FE_EP_FORCES:
      if (A->ne) CL_PREC(launch_elements)<CL_FE_EP_FORCES>(A);
      break;
    case CL_FE_EP_FORCES_TANGENT:
      if (A->ne) CL_PREC(launch_elements)<CL_FE_EP_FORCES_TANGENT>(A);
      break;
    case CL_FE_EP_PERMUTE:
      if (A->nnz) CL_PREC(fe_ep_permute_kernel)<<<cl_grid_1d(A->nnz), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
      break;
    case CL_FE_EP_CONSTRAIN:
    case CL_FE_EP_CG_PRECONDITION:
    case CL_FE_EP_CG_STEP:
    case CL_FE_EP_CG_DIRECTION:
      if (A->ndof) CL_PREC(fe_ep_row_kernel)<<<cl_grid_1d(A->ndof), CL_THREADS, 0, cudaStreamPerThread>>>(*A, op);
      break;
    default:
      if (A->ne) CL_PREC(launch_elements)<CL_FE_EP_ELASTIC_TANGENT>(A);
  }
  return (int)cudaGetLastError();
}
