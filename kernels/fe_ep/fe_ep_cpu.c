/* The quasi-static FE operations as OpenMP loops (fe_ep_kernels.h holds the physics). */
#include "fe_ep_kernels.h"

void CL_PREC(cl_fe_ep_run_cpu)(const cl_fe_ep_args *A, int op) {
  switch (op) {
    case CL_FE_EP_GATHER_FORCES:
#pragma omp parallel for schedule(static)
      for (size_t n = 0; n < A->nnodes; n++) cl_fe_ep_gather_node(A, n);
      break;
    case CL_FE_EP_GATHER_TANGENT:
#pragma omp parallel for schedule(static)
      for (size_t j = 0; j < A->nnz; j++) cl_fe_ep_gather_nonzero(A, j);
      break;
    case CL_FE_EP_CONSTRAIN:
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < A->ndof; i++) cl_fe_ep_constrain_row(A, i);
      break;
    case CL_FE_EP_SPMV:
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < A->ndof; i++) cl_fe_ep_spmv_row(A, i);
      break;
    case CL_FE_EP_CG_PRECONDITION:
    case CL_FE_EP_CG_STEP:
    case CL_FE_EP_CG_DIRECTION:
#pragma omp parallel for schedule(static)
      for (size_t i = 0; i < A->ndof; i++) cl_fe_ep_cg_vector(A, op, i);
      break;
    default:
#pragma omp parallel for schedule(static)
      for (size_t e = 0; e < A->ne; e++) cl_fe_ep_element(A, op, e);
  }
}
