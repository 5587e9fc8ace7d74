/* The global DDA matrix: block-sparse (BSR, 6x6 blocks, row-major inside a
 * block), symmetric, stored whole; the diagonal blocks always present, an
 * off-diagonal pair (i, j) and (j, i) wherever blocks i and j are in contact.
 * Solved by conjugate gradients preconditioned with the inverse diagonal
 * blocks (block Jacobi) or SSOR's approximate inverse, warm-started from the
 * caller's x. */
#ifndef CL_DDA_BSR_H
#define CL_DDA_BSR_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/status.h"

typedef struct cl_dda_bsr {
  size_t n, nnzb, cap;
  int32_t *rowptr; /* n + 1 */
  int32_t *col;    /* nnzb, sorted within each row */
  double *val;     /* 36 nnzb */
} cl_dda_bsr;

/* The pattern of n diagonal blocks and the pairs (pi[k], pj[k]) (either order, repeats allowed);
 * values zeroed. */
cl_status cl_dda_bsr_pattern(cl_dda_bsr *a, size_t n, size_t npairs, const int32_t *pi, const int32_t *pj,
                             cl_error *err);
/* The block (i, j) of the pattern (NULL when absent). */
double *cl_dda_bsr_block(const cl_dda_bsr *a, int32_t i, int32_t j);
void cl_dda_bsr_free(cl_dda_bsr *a);

typedef enum cl_dda_preconditioner { CL_DDA_BLOCK_JACOBI = 0, CL_DDA_SSOR_AI = 1 } cl_dda_preconditioner;

typedef struct cl_dda_pcg_result {
  int iterations;
  int converged;
  double residual; /* |b - A x| / |b| at the end */
} cl_dda_pcg_result;

/* Solves A x = b (vectors of 6 n, block-major: entry 6 i + k), from the given x. CL_ERR_ARG
 * when a diagonal block is not positive definite. */
cl_status cl_dda_pcg(const cl_dda_bsr *a, const double *b, double *x, cl_dda_preconditioner kind, double tol,
                     int max_iterations, cl_dda_pcg_result *res, cl_error *err);

#endif
