/* Sparse symmetric positive definite solves of the quasi-static FE: a Cholesky factorization by
 * CHOLMOD (SuiteSparse, when cleave is built with it: the symbolic analysis with a fill-reducing
 * ordering done once, at the first factorization, the numeric factorization once per matrix, so the
 * initial stiffness methods factor once and solve many times), else Jacobi-preconditioned conjugate
 * gradients. The matrix is given on the host as a full CSR (both triangles) over n unknowns. */
#ifndef CL_FE_EP_LINEAR_H
#define CL_FE_EP_LINEAR_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/status.h"

typedef struct cl_fe_ep_linear cl_fe_ep_linear;

/* rowptr and col must outlive the solver (the model's); CHOLMOD copies and analyses the pattern at the
 * first factorization, not here */
cl_status cl_fe_ep_linear_create(size_t n, const uint64_t *rowptr, const uint32_t *col, cl_fe_ep_linear **out,
                                 cl_error *err);
/* Factors (or, for CG, keeps) the values val (nnz, in the pattern's order). A matrix that is
 * not positive definite gives CL_ERR_ARG with *bad_row the unknown where it showed (or the
 * first unknown CG could not converge on); the caller names it. */
cl_status cl_fe_ep_linear_factor(cl_fe_ep_linear *s, const double *val, size_t *bad_row, cl_error *err);
cl_status cl_fe_ep_linear_solve(cl_fe_ep_linear *s, const double *b, double *x, cl_error *err);
void cl_fe_ep_linear_free(cl_fe_ep_linear *s);
/* "cholmod" or "cg" */
const char *cl_fe_ep_linear_name(void);

#endif
