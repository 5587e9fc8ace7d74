/* The quasi-static FE operations as OpenMP loops (fe_ep_kernels.h holds the physics). A loop
 * runs in parallel only above about 64k units of work (element x nodes x Gauss points, or rows):
 * below that it takes well under a millisecond, and the solvers call it thousands of times, so
 * a fork and join per call -- which costs a scheduler quantum whenever a thread has to wait for
 * a core -- would dominate (test_fe.lua: 34 s with 2 threads on a loaded 2-core machine, 1.8 s
 * with one). */
#include "fe_ep_kernels.h"

#define PARALLEL_MIN 65536

/* The element loop of one operation, shape and order, which are constants in it as in the CUDA
 * kernels: the element's loops have fixed trip counts, and the forces alone do not compute the
 * law's tangent. */
#define ELEMENTS(OP, SHAPE, ORDER)                                                                          \
  do {                                                                                                      \
    _Pragma("omp parallel for schedule(static) if (parallel)") for (size_t e = 0; e < A->ne; e++)           \
        cl_fe_ep_element_of(A, OP, e, SHAPE, ORDER);                                                        \
  } while (0)
#define ELEMENTS_OF(OP)                                                                                     \
  do {                                                                                                      \
    if (A->shape == CL_FE_QUAD && A->order == 1) ELEMENTS(OP, CL_FE_QUAD, 1);                               \
    else if (A->shape == CL_FE_QUAD && A->order == 2) ELEMENTS(OP, CL_FE_QUAD, 2);                          \
    else if (A->shape == CL_FE_QUAD) ELEMENTS(OP, CL_FE_QUAD, 3);                                           \
    else if (A->order == 1) ELEMENTS(OP, CL_FE_TRI, 1);                                                     \
    else ELEMENTS(OP, CL_FE_TRI, 2);                                                                        \
  } while (0)

void CL_PREC(cl_fe_ep_run_cpu)(const cl_fe_ep_args *A, int op) {
  const int rows_parallel = A->ndof >= PARALLEL_MIN, nodes_parallel = A->nnodes >= PARALLEL_MIN;
  switch (op) {
    case CL_FE_EP_GATHER_FORCES:
#pragma omp parallel for schedule(static) if (nodes_parallel)
      for (size_t n = 0; n < A->nnodes; n++) cl_fe_ep_gather_node(A, n);
      break;
    case CL_FE_EP_GATHER_TANGENT:
#pragma omp parallel for schedule(static) if (A->nnz >= PARALLEL_MIN)
      for (size_t j = 0; j < A->nnz; j++) cl_fe_ep_gather_nonzero(A, j);
      break;
    case CL_FE_EP_PERMUTE:
#pragma omp parallel for schedule(static) if (A->nnz >= PARALLEL_MIN)
      for (size_t k = 0; k < A->nnz; k++) cl_fe_ep_permute_value(A, k);
      break;
    case CL_FE_EP_CONSTRAIN:
#pragma omp parallel for schedule(static) if (rows_parallel)
      for (size_t i = 0; i < A->ndof; i++) cl_fe_ep_constrain_row(A, i);
      break;
    case CL_FE_EP_CG_PRECONDITION:
    case CL_FE_EP_CG_STEP:
    case CL_FE_EP_CG_DIRECTION:
#pragma omp parallel for schedule(static) if (rows_parallel)
      for (size_t i = 0; i < A->ndof; i++) cl_fe_ep_cg_vector(A, op, i);
      break;
    default: {
      const int parallel = A->ne * (size_t)A->nn * (size_t)A->ngp >= PARALLEL_MIN;
      if (op == CL_FE_EP_FORCES) ELEMENTS_OF(CL_FE_EP_FORCES);
      else if (op == CL_FE_EP_FORCES_TANGENT) ELEMENTS_OF(CL_FE_EP_FORCES_TANGENT);
      else ELEMENTS_OF(CL_FE_EP_ELASTIC_TANGENT);
    }
  }
}
