/* The DDA solver's operations as OpenMP loops (assembly_ops.h, pcg_ops.h). A loop runs in parallel only above
 * PARALLEL_MIN rows: PCG calls each thousands of times a step, and below that a fork and join
 * costs more than the loop. */
#include "../common/blas1.h"
#include "assembly_ops.h"
#include "pcg_kernels.h"
#include "pcg_ops.h"

#define PARALLEL_MIN 4096

void CL_PREC(cl_dda_pcg_cpu)(const cl_dda_pcg_args *A, int op) {
  const size_t n = A->n, m = 6 * n;
  switch (op) {
    case CL_DDA_OP_SPRINGS:
#pragma omp parallel for schedule(static) if (A->nc >= PARALLEL_MIN)
      for (size_t k = 0; k < A->nc; k++) cl_dda_contact_springs(A, k);
      break;
    case CL_DDA_OP_GATHER:
#pragma omp parallel for schedule(static) if (A->ntarget >= PARALLEL_MIN)
      for (size_t t = 0; t < A->ntarget; t++) cl_dda_gather_block(A, t);
      break;
    case CL_DDA_OP_GATHER_RHS:
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)
      for (size_t i = 0; i < n; i++) cl_dda_gather_rhs(A, i);
      break;
    case CL_DDA_OP_FACTOR:
    case CL_DDA_OP_BLOCK_SOLVE:
    case CL_DDA_OP_SSOR_FINISH:
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)
      for (size_t i = 0; i < n; i++) cl_dda_pcg_block(A, op, i);
      break;
    case CL_DDA_OP_SPMV:
#pragma omp parallel for schedule(static) if (m >= PARALLEL_MIN)
      for (size_t row = 0; row < m; row++) cl_dda_spmv_row(A, row);
      break;
    default:
#pragma omp parallel for schedule(static) if (m >= PARALLEL_MIN)
      for (size_t e = 0; e < m; e++) cl_dda_pcg_entry(A, op, e);
  }
}

/* PCG's r.z and r.r in one pass (on cuda one synchronisation instead of two), each summed in the
 * order of cl_dda_dot_cpu's. */
void CL_PREC(cl_dda_dot2_cpu)(size_t m, const void *r_, const void *z_, double out[2]) {
  const real *r = r_, *z = z_;
  double a = 0, b = 0;
#pragma omp parallel for schedule(static) reduction(+ : a, b) if (m >= PARALLEL_MIN)
  for (size_t k = 0; k < m; k++) a += cl_dot_term(r[k], z[k]), b += cl_dot_term(r[k], r[k]);
  out[0] = a, out[1] = b;
}

/* The dot product of PCG, serial below PARALLEL_MIN for the same reason (the shared cl_k_dot forks
 * on every call: on a loaded 2-core machine the DDA tests took 40 times longer with it). */
double CL_PREC(cl_dda_dot_cpu)(size_t m, const void *x_, const void *y_) {
  const real *x = x_, *y = y_;
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (m >= PARALLEL_MIN)
  for (size_t k = 0; k < m; k++) s += cl_dot_term(x[k], y[k]);
  return s;
}
