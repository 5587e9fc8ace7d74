/* Preconditioned conjugate gradients on the model's device (CPU loops or CUDA kernels,
 * fe_ep_kernels.h), for systems too large to factor: the matrix stays where it was assembled,
 * only the right-hand side and the solution cross to the host. The preconditioner: Jacobi, or a
 * multigrid V-cycle (fe_ep_mg.c). */
#include "fe_ep_pcg.h"

#include <math.h>

#include "../dispatch.h"
#include "fe_ep.h"
#include "fe_ep_mg.h"

static void *vec(cl_fe_ep_model *m, cl_fe_ep_field_id id) { return cl_field_component(m->f[id], 0); }

cl_status cl_fe_ep_pcg_prepare(cl_fe_ep_model *m, cl_error *err) {
  CL_TRY(cl_field_upload(m->f[CL_FE_EP_F_FIXED], m->fixed, err));
  CL_TRY(cl_k_fe_ep(m->dev, CL_F64, &m->A, CL_FE_EP_CONSTRAIN, err));
  cl_field_touch(m->f[CL_FE_EP_F_KVAL]);
  return CL_OK;
}

static cl_status dot(cl_fe_ep_model *m, cl_fe_ep_field_id a, cl_fe_ep_field_id b, double *out, cl_error *err) {
  return cl_k_dot(m->dev, CL_F64, m->ndof, vec(m, a), vec(m, b), out, err);
}

/* cg_z = M^-1 cg_r */
static cl_status precondition(cl_fe_ep_model *m, int multigrid, cl_error *err) {
  if (multigrid) return cl_fe_ep_mg_apply(m, vec(m, CL_FE_EP_F_CG_R), vec(m, CL_FE_EP_F_CG_Z), err);
  return cl_k_fe_ep(m->dev, CL_F64, &m->A, CL_FE_EP_CG_PRECONDITION, err);
}

cl_status cl_fe_ep_pcg_solve(cl_fe_ep_model *m, const double *b, double *x, int multigrid, double rtol,
                             long *iterations, cl_error *err) {
  cl_fe_ep_args *A = &m->A;
  const size_t n = m->ndof;
  CL_TRY(cl_field_upload(m->f[CL_FE_EP_F_CG_R], b, err));
  CL_TRY(cl_field_fill(m->f[CL_FE_EP_F_CG_X], 0, err));
  CL_TRY(precondition(m, multigrid, err));
  CL_TRY(m->dev->copy(m->dev, vec(m, CL_FE_EP_F_CG_P), vec(m, CL_FE_EP_F_CG_Z), n * sizeof(double), err));
  double rz, bb;
  CL_TRY(dot(m, CL_FE_EP_F_CG_R, CL_FE_EP_F_CG_Z, &rz, err));
  CL_TRY(dot(m, CL_FE_EP_F_CG_R, CL_FE_EP_F_CG_R, &bb, err));
  double rr = bb;
  long it = 0;
  for (; rr > rtol * rtol * bb; it++) {
    if (it > 10 * (long)n + 100)
      return cl_error_set(err, CL_ERR_ARG, "the matrix is singular or too ill-conditioned for CG (%ld iterations)", it);
    double pq;
    const cl_fe_ep_mg_args kp = {.n = n, .rowptr = A->rowptr, .col = A->col, .val = A->kval, .in = A->cg_p,
                                 .out = A->cg_q, .alpha = 1, .beta = 0};
    CL_TRY(cl_k_fe_ep_mg(m->dev, CL_F64, &kp, CL_FE_EP_MG_CSR, err)); /* cg_q = K cg_p */
    CL_TRY(dot(m, CL_FE_EP_F_CG_P, CL_FE_EP_F_CG_Q, &pq, err));
    if (!(pq > 0)) return cl_error_set(err, CL_ERR_ARG, "the matrix is not positive definite (CG)");
    A->cg_alpha = rz / pq;
    CL_TRY(cl_k_fe_ep(m->dev, CL_F64, A, CL_FE_EP_CG_STEP, err));
    CL_TRY(precondition(m, multigrid, err));
    double rz_new;
    CL_TRY(dot(m, CL_FE_EP_F_CG_R, CL_FE_EP_F_CG_Z, &rz_new, err));
    CL_TRY(dot(m, CL_FE_EP_F_CG_R, CL_FE_EP_F_CG_R, &rr, err));
    A->cg_beta = rz_new / rz;
    rz = rz_new;
    CL_TRY(cl_k_fe_ep(m->dev, CL_F64, A, CL_FE_EP_CG_DIRECTION, err));
  }
  *iterations += it;
  cl_field_touch(m->f[CL_FE_EP_F_CG_X]);
  return cl_field_download(m->f[CL_FE_EP_F_CG_X], x, err);
}
