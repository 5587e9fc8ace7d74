/* Preconditioned conjugate gradients on the model's device (fe_ep_pcg.c): Jacobi or multigrid. */
#ifndef CL_FE_EP_PCG_H
#define CL_FE_EP_PCG_H

#include "fe_ep_model.h"

/* After the matrix is assembled on the device (kval): its constrained rows and columns set to the
 * identity's, the Jacobi preconditioner taken. */
cl_status cl_fe_ep_pcg_prepare(cl_fe_ep_model *m, cl_error *err);
/* x = K^-1 b (host vectors of ndof) to |b - K x| <= rtol |b|, preconditioned by Jacobi or, with
 * multigrid, by a V-cycle of the hierarchy cl_fe_ep_mg_setup built; adds the CG iterations to
 * *iterations. */
cl_status cl_fe_ep_pcg_solve(cl_fe_ep_model *m, const double *b, double *x, int multigrid, double rtol,
                             long *iterations, cl_error *err);

#endif
