/* The multigrid operations of the quasi-static FE as OpenMP loops (fe_ep_mg_kernels.h holds
 * them); in parallel only for large levels, as the FE's other loops (fe_ep_cpu.c says why). */
#include "fe_ep_mg_kernels.h"

#define PARALLEL_MIN 65536

void CL_PREC(cl_fe_ep_mg_run_cpu)(const cl_fe_ep_mg_args *A, int op) {
  if (op == CL_FE_EP_MG_CSR) {
#pragma omp parallel for schedule(static) if (A->n >= PARALLEL_MIN)
    for (size_t i = 0; i < A->n; i++) cl_fe_ep_mg_csr_store(A, i, cl_fe_ep_mg_csr_partial(A, i, 0, 1));
  } else {
#pragma omp parallel for schedule(static) if (A->n >= PARALLEL_MIN)
    for (size_t i = 0; i < A->n; i++) cl_fe_ep_mg_smooth_row(A, i);
  }
}
