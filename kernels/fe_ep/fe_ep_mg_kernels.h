/* The two per-row operations of the multigrid preconditioner of the quasi-static FE
 * (fe_ep_mg.c), once for both backends: a CSR product y = beta y + alpha M x (the level's
 * stiffness for residuals, the prolongation P and restriction P^T between levels, the coarsest
 * level's dense inverse stored as a full CSR), and one step of the Chebyshev smoother
 * d = a d + c D^-1 r, x += d. Rows are independent: no atomics. A CPU row sums its entries in
 * order; a CUDA row is summed by CL_FE_EP_MG_ROW_LANES threads (interleaved partial sums, then a
 * shuffle reduction), so that a warp reads its rows' consecutive entries together instead of 32
 * rows' entries 32 apart: the two agree to round-off. */
#ifndef CL_FE_EP_MG_KERNELS_H
#define CL_FE_EP_MG_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/real.h"

typedef enum cl_fe_ep_mg_op {
  CL_FE_EP_MG_CSR = 0,    /* y = beta y + alpha M x (beta = 0: y is overwritten, its old contents unread) */
  CL_FE_EP_MG_SMOOTH = 1, /* d = a d + c dinv r; x += d (first: x = d, its old contents unread) */
} cl_fe_ep_mg_op;

typedef struct cl_fe_ep_mg_args {
  size_t n;                    /* rows */
  const uint32_t *rowptr, *col;
  const void *val, *in;        /* CSR: the matrix M and x */
  void *out;                   /* CSR: y */
  double alpha, beta;
  const void *dinv, *r;        /* SMOOTH */
  void *d, *x;
  double a, c;
  int first;
} cl_fe_ep_mg_args;

#define CL_FE_EP_MG_ROW_LANES 8 /* CUDA threads per matrix row (a power of 2, at most 32) */

/* the part of row i's product M x over its entries first, first + step, ... */
CL_HD static inline real cl_fe_ep_mg_csr_partial(const cl_fe_ep_mg_args *A, size_t i, uint32_t first, uint32_t step) {
  const real *val = (const real *)A->val, *x = (const real *)A->in;
  real v = 0;
  for (uint32_t k = A->rowptr[i] + first; k < A->rowptr[i + 1]; k += step) v += val[k] * x[A->col[k]];
  return v;
}

/* y_i = beta y_i + alpha (M x)_i */
CL_HD static inline void cl_fe_ep_mg_csr_store(const cl_fe_ep_mg_args *A, size_t i, real mx) {
  real *y = (real *)A->out;
  y[i] = (A->beta == 0 ? (real)0 : (real)A->beta * y[i]) + (real)A->alpha * mx;
}

CL_HD static inline void cl_fe_ep_mg_smooth_row(const cl_fe_ep_mg_args *A, size_t i) {
  real *d = (real *)A->d, *x = (real *)A->x;
  const real *dinv = (const real *)A->dinv, *r = (const real *)A->r;
  d[i] = (A->a == 0 ? (real)0 : (real)A->a * d[i]) + (real)A->c * dinv[i] * r[i];
  x[i] = (A->first ? (real)0 : x[i]) + d[i];
}

#endif
