/* Multigrid-preconditioned conjugate gradients for the quasi-static FE's linear systems
 * (fe_ep_mg.c): a geometric hierarchy from the structured node grid of the generated meshes
 * (cl.fe.wellbore, cl.fe.rect), Galerkin coarse matrices P^T A P built on the host once per
 * matrix, Chebyshev-Jacobi smoothing and the transfers on the model's device
 * (fe_ep_mg_kernels.h), the coarsest level by its dense inverse. */
#ifndef CL_FE_EP_MG_H
#define CL_FE_EP_MG_H

#include "fe_ep_model.h"

/* After the matrix is assembled and constrained on the device (cl_fe_ep_pcg_prepare): builds the
 * hierarchy for it (replacing the last one). Needs the model's node grid (cl_fe_ep_set_grid). */
cl_status cl_fe_ep_mg_setup(cl_fe_ep_model *m, cl_error *err);
/* z = M^-1 r on the device (one V-cycle; M is symmetric positive definite, so CG may use it) */
cl_status cl_fe_ep_mg_apply(cl_fe_ep_model *m, const void *r, void *z, cl_error *err);
/* levels of the hierarchy (0: none built) */
int cl_fe_ep_mg_levels(const cl_fe_ep_mg *g);
void cl_fe_ep_mg_free(cl_fe_ep_mg *g);

#endif
