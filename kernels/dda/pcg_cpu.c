/* The DDA solver's operations as OpenMP loops (assembly_ops.h, pcg_ops.h). A loop runs in parallel only above
 * PARALLEL_MIN rows: PCG calls each thousands of times a step, and below that a fork and join
 * costs more than the loop. */
#include "../common/blas1.h"
#include "assembly_ops.h"
#include "open_close_ops.h"
#include "pcg_kernels.h"
#include "pcg_ops.h"

#define PARALLEL_MIN 4096

/* A dot operation: its sums, then its scalar step (pcg_scalars.h). */
static void dots(const cl_dda_pcg_args *A, int op) {
  const void *x[2], *y[2];
  const size_t m = 6 * A->n;
  const int count = cl_dda_dot_vectors(A, op, x, y);
  double d[2] = {0, 0};
  for (int k = 0; k < count; k++) d[k] = CL_PREC(cl_dda_dot_cpu)(m, x[k], y[k]);
  cl_dda_pcg_scalars(A, op, d[0], d[1]);
}

/* The pipelined PCG's rows (cl_dda_pipelined_op_row), then its three sums in entry order and its
 * scalar step. */
static void pipelined(const cl_dda_pcg_args *A, int op) {
  const size_t n = A->n, m = 6 * n;
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) cl_dda_pipelined_op_row(A, op, i, NULL);
  cl_dda_pcg_pipelined_scalars(A, op, CL_PREC(cl_dda_dot_cpu)(m, A->r, A->u), CL_PREC(cl_dda_dot_cpu)(m, A->w, A->u),
                               CL_PREC(cl_dda_dot_cpu)(m, A->r, A->r));
}

/* The open-close rule over the contacts, in contact order, and its counts. */
static void open_close(const cl_dda_pcg_args *A) {
  double changed = 0, unsettled = 0;
  for (size_t k = 0; k < A->nc; k++) {
    const int flag = cl_dda_contact_rule_listed(A, k);
    changed += flag == 1, unsettled += flag == 2;
  }
  cl_dda_pcg_scalars(A, CL_DDA_OP_OPEN_CLOSE, changed, unsettled);
}

/* The gather (assembly_ops.h): the incremental one's claimed blocks one after another (a claim is
 * released as its block is done, and read by the other items of the same block), then the rest. */
static void gather(const cl_dda_pcg_args *A) {
  const size_t items = cl_dda_gather_items(A), serial = A->incremental ? 4 * A->nlisted : 0;
  for (size_t u = 0; u < serial; u++) {
    const int64_t t = cl_dda_gather_target(A, u);
    if (t < 0) continue;
    cl_dda_gather_item(A, (size_t)t);
    cl_dda_gather_release(A, u, (size_t)t);
  }
#pragma omp parallel for schedule(static) if (items - serial >= PARALLEL_MIN)
  for (size_t u = serial; u < items; u++) cl_dda_gather_item(A, (size_t)cl_dda_gather_target(A, u));
  cl_dda_gather_empty_list(A);
}

/* The listed contacts' slots and their blocks' claims, in list order; the sliding contacts'
 * right-hand sides. */
static void springs_changed(const cl_dda_pcg_args *A) {
  for (size_t v = 0; v < A->nlisted; v++) {
    const size_t k = (size_t)A->clist[1 + v];
    for (int e = 0; e < 36; e++) cl_dda_listed_spring_entry(A, k, e);
    for (int role = 0; role < 4; role++) cl_dda_claim_block(A, v, role);
  }
#pragma omp parallel for schedule(static) if (A->nc >= PARALLEL_MIN)
  for (size_t k = 0; k < A->nc; k++)
    for (int e = 0; e < 12; e++) cl_dda_sliding_force_entry(A, k, e);
}

void CL_PREC(cl_dda_pcg_cpu)(const cl_dda_pcg_args *A, int op) {
  const size_t n = A->n, m = 6 * n;
  switch (op) {
    case CL_DDA_OP_SPRINGS:
#pragma omp parallel for schedule(static) if (A->nc >= PARALLEL_MIN)
      for (size_t k = 0; k < A->nc; k++)
        for (int e = 0; e < 36; e++) cl_dda_contact_spring_entry(A, k, e);
      break;
    case CL_DDA_OP_GATHER:
      gather(A);
      break;
    case CL_DDA_OP_SHARE_TARGETS:
#pragma omp parallel for schedule(static) if (A->ntarget >= PARALLEL_MIN)
      for (size_t t = 0; t < A->ntarget; t++) cl_dda_share_targets(A, t);
      break;
    case CL_DDA_OP_SPRINGS_CHANGED:
      springs_changed(A);
      break;
    case CL_DDA_OP_FACTOR:
    case CL_DDA_OP_BLOCK_SOLVE:
    case CL_DDA_OP_SSOR_FINISH:
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)
      for (size_t i = 0; i < n; i++) cl_dda_pcg_block(A, op, i);
      break;
    case CL_DDA_OP_SPMV:
#pragma omp parallel for schedule(static) if (m >= PARALLEL_MIN)
      for (size_t i = 0; i < n; i++) cl_dda_spmv_block_row(A, i);
      break;
    case CL_DDA_OP_LONG_ROWS: /* only cuda's product is steered by them */
      break;
    case CL_DDA_OP_DOT_BB:
    case CL_DDA_OP_BEGIN:
    case CL_DDA_OP_ALPHA:
    case CL_DDA_OP_BETA:
    case CL_DDA_OP_FACTOR_CHECK:
      dots(A, op);
      break;
    case CL_DDA_OP_OPEN_CLOSE:
      open_close(A);
      break;
    case CL_DDA_OP_PIPE_BEGIN:
    case CL_DDA_OP_PIPE_STEP:
    case CL_DDA_OP_PIPE_CHECK:
    case CL_DDA_OP_PIPE_RESTART:
      pipelined(A, op);
      break;
    case CL_DDA_OP_STEP_JACOBI: /* on one core fusing saves nothing: the unfused order of the sums */
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)
      for (size_t i = 0; i < n; i++) cl_dda_step_jacobi(A, i, NULL);
      dots(A, CL_DDA_OP_BETA);
      break;
    default:
#pragma omp parallel for schedule(static) if (m >= PARALLEL_MIN)
      for (size_t e = 0; e < m; e++) cl_dda_pcg_entry(A, op, e);
  }
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
