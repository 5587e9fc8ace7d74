/* The sparse Cholesky of the quasi-static FE on a CUDA device (cuSOLVER's low-level csrchol): the
 * paper's "decompose once" where the matrix was assembled. A fill-reducing ordering (symmetric
 * approximate minimum degree) and the symbolic analysis are done once per model; each
 * factorization reorders the device's values (constrained rows and columns made the identity's)
 * and factors them in place; each solve moves only the right-hand side and the solution. */
#ifndef CL_FE_EP_CUSOLVER_H
#define CL_FE_EP_CUSOLVER_H

#include "fe_ep_model.h"

/* Factors the model's matrix (kval on its device). A matrix that is not positive definite gives
 * CL_ERR_ARG with *bad_row the dof where it showed; cuSOLVER's failures give CL_ERR_DEVICE (or
 * CL_ERR_UNAVAILABLE when libcusolver cannot be loaded) naming the call. */
cl_status cl_fe_ep_cusolver_factor(cl_fe_ep_model *m, size_t *bad_row, cl_error *err);
/* x = K^-1 b with the last factorization (host vectors of ndof) */
cl_status cl_fe_ep_cusolver_solve(cl_fe_ep_model *m, const double *b, double *x, cl_error *err);
void cl_fe_ep_cusolver_free(cl_fe_ep_cusolver *s);

#endif
