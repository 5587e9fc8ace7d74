/* The physics of the quasi-static elastoplastic FE, once for both backends (paper 002, section
 * 4, Algorithms 2-3): per element, the strain increment B (u - u_n) at each Gauss point, the
 * stress update of the material law there, the internal force B^T W sigma and the tangent
 * B^T W D B; per node and per matrix nonzero, the gathers of those into the global vector and
 * the CSR matrix. The law is elastic or Mohr-Coulomb (compiled in), or, in a unit that defines
 * CL_FE_EP_LAW before including this header, a run-time compiled stress_update law (jit.lua). */
#ifndef CL_FE_EP_KERNELS_H
#define CL_FE_EP_KERNELS_H

#include "../fe/element.h"
#include "../fe/elastic.h"
#include "../fe/mohr_coulomb.h"
#include "../fe/quad_sum.h"
#include "fe_ep_args.h"

/* The 2D (xx, yy, xy) rows and columns of a 6 x 6 Voigt tangent */
CL_HD static inline void cl_fe_ep_plane_tangent(const real *D6, real *D3) {
  const int idx[3] = {0, 1, 5};
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) D3[3 * r + c] = D6[6 * idx[r] + idx[c]];
}

/* Gauss point g's converged stress (six components, yz = xz = 0) and plastic strain: read apart from
 * the update below, so that a kernel can issue these loads early and wait for them later */
CL_HD static inline void cl_fe_ep_state_n(const cl_fe_ep_args *A, size_t g, real *sig, real *ep) {
  const size_t G = A->ne * A->ngp;
  const real *sig_n = (const real *)A->sig_n;
  sig[0] = sig_n[g], sig[1] = sig_n[G + g], sig[2] = sig_n[2 * G + g], sig[3] = sig[4] = 0, sig[5] = sig_n[3 * G + g];
  *ep = ((const real *)A->ep_n)[g];
}

/* cl_fe_ep_update from the converged state sig, ep (cl_fe_ep_state_n) already read; sig is overwritten */
CL_HD static inline void cl_fe_ep_update_from(const cl_fe_ep_args *A, size_t g, real *sig, real ep, const real *deps3,
                                              real *D3, real *s3) {
  const size_t G = A->ne * A->ngp;
  real D6[36];
  if (!A->plane_strain) {
    cl_tri_elasticity((real)A->E, (real)A->nu, 0, D3);
    const real ds[3] = {D3[0] * deps3[0] + D3[1] * deps3[1], D3[3] * deps3[0] + D3[4] * deps3[1], D3[8] * deps3[2]};
    sig[0] += ds[0], sig[1] += ds[1], sig[5] += ds[2];
  } else {
    const real deps[6] = {deps3[0], deps3[1], 0, 0, 0, deps3[2]};
#ifdef CL_FE_EP_LAW
    /* the run-time compiled law updates its state in place: start it from the converged values */
    for (int k = 0; k < A->law_nstate; k++) ((real *)A->law_args.state[k])[g] = ((const real *)A->law_state_n[k])[g];
    for (int r = 0; r < 36; r++) D6[r] = 0;
    CL_FE_EP_LAW(deps, sig, D6, &A->law_args, g);
    if (A->law_ep >= 0) ep = ((const real *)A->law_args.state[A->law_ep])[g];
#else
    if (A->law == CL_FE_EP_MOHR_COULOMB)
      cl_fe_mohr_coulomb(&A->mc, deps, sig, D6, &ep);
    else
      cl_fe_elastic((real)A->E, (real)A->nu, deps, sig, D6);
#endif
    cl_fe_ep_plane_tangent(D6, D3);
  }
  real *out = (real *)A->sig; /* yz, xz stay 0 in 2D: not stored (CL_FE_EP_NSIG) */
  out[g] = sig[0], out[G + g] = sig[1], out[2 * G + g] = sig[2], out[3 * G + g] = sig[5];
  ((real *)A->ep)[g] = ep;
  s3[0] = sig[0], s3[1] = sig[1], s3[2] = sig[5];
}

/* The stress update at Gauss point g for the in-plane strain increment deps3 (xx, yy, xy):
 * sig (6, SoA over G) and ep from their converged values; D3 gets the 2D tangent, s3 the in-plane
 * stress (xx, yy, xy) that the element force needs. Plane
 * strain runs the 3D law with deps_zz = 0; plane stress is elastic only (the host refuses a
 * plastic law there), sigma_zz = 0. */
CL_HD static inline void cl_fe_ep_update(const cl_fe_ep_args *A, size_t g, const real *deps3, real *D3, real *s3) {
  real sig[6], ep;
  cl_fe_ep_state_n(A, g, sig, &ep);
  cl_fe_ep_update_from(A, g, sig, ep, deps3, D3, s3);
}

/* Forced inlining of the element kernel's body into its per-order dispatch (below) */
#ifdef __CUDACC__
#define CL_FE_EP_INLINE static __host__ __device__ __forceinline__
#else
#define CL_FE_EP_INLINE static inline __attribute__((always_inline))
#endif

/* One Gauss point at a time on a GPU: unrolled, the law's evaluations at several points overlap and
 * take more registers than the element's arrays leave (fewer threads resident per SM) */
#ifdef __CUDACC__
#define CL_FE_EP_GAUSS_LOOP _Pragma("unroll 1")
#else
#define CL_FE_EP_GAUSS_LOOP
#endif

/* Gauss point k of element e: the physical gradients grad[2 nn] (B-bar's nonzeros) and the return
 * value W = w_k det J t, read from the stored B-bar and W (residual = "stored") or recomputed from the
 * element's node coordinates xe (matrix-free: the same function as the host's geometry, so the same
 * numbers to rounding; the reference derivatives at the Gauss point fold into constants of the order) */
CL_FE_EP_INLINE real cl_fe_ep_gauss_geometry(const cl_fe_ep_args *A, const int shape, const int order, size_t e, int k,
                                             const real *xe, real *grad) {
  const int nd = 2 * cl_fe_nodes(shape, order);
  if (A->matrix_free) {
    real xi, eta, w;
    cl_fe_gauss(shape, order, k, &xi, &eta, &w);
    return w * cl_fe_gradients(shape, order, xe, xi, eta, grad) * (real)A->thickness;
  }
  const real *gk = (const real *)A->grad + e * A->grad_e + (size_t)k * nd * A->grad_i;
  for (int i = 0; i < nd; i++) grad[i] = gk[i * A->grad_i];
  return ((const real *)A->wdet)[e * A->gs_e + k * A->gs_k];
}

/* Node a of element e: what its Gauss points read of it, du = u - u_n (not for the elastic tangent)
 * and, matrix-free, the coordinates xe, entry i at i stride (1: an element's own arrays; a GPU block's
 * shared arrays hold its elements side by side, stride blockDim.x). Gathered once per element rather
 * than once per Gauss point. */
CL_FE_EP_INLINE void cl_fe_ep_node_values(const cl_fe_ep_args *A, const int op, const int nn, size_t e, int a,
                                          real *du, real *xe, const int stride) {
  const size_t n = A->elem[e * nn + a];
  const real *u = (const real *)A->u, *un = (const real *)A->u_n, *x = (const real *)A->x;
  if (op != CL_FE_EP_ELASTIC_TANGENT)
    du[2 * a * stride] = u[n] - un[n], du[(2 * a + 1) * stride] = u[A->nnodes + n] - un[A->nnodes + n];
  if (A->matrix_free) xe[2 * a * stride] = x[n], xe[(2 * a + 1) * stride] = x[A->nnodes + n];
}

/* Gauss point k of element e for op (fe_ep_args.h), from its element's node values (du, xe at stride,
 * cl_fe_ep_node_values): the gradients grad (B-bar's nonzeros) and W (returned); for the forces the
 * strain increment B du, the stress update from the converged state (sig, ep written), D3 the law's 2D
 * tangent and s3 the in-plane stress; for the elastic tangent D3 the elastic matrix. The residual runs
 * it one thread per Gauss point on a GPU, the element kernel one element's points in turn. */
CL_FE_EP_INLINE real cl_fe_ep_gauss_point(const cl_fe_ep_args *A, const int op, const int shape, const int order,
                                          size_t e, int k, const real *du, const real *xe, const int stride,
                                          real *grad, real *D3, real *s3) {
  const int nn = cl_fe_nodes(shape, order);
  real dul[CL_FE_MAX_DOFS], xel[CL_FE_MAX_DOFS];
  for (int i = 0; i < 2 * nn; i++) {
    if (op != CL_FE_EP_ELASTIC_TANGENT) dul[i] = du[i * stride];
    if (A->matrix_free) xel[i] = xe[i * stride];
  }
  const real w = cl_fe_ep_gauss_geometry(A, shape, order, e, k, xel, grad);
  if (op == CL_FE_EP_ELASTIC_TANGENT) {
    real D6[36], sig[6] = {0, 0, 0, 0, 0, 0}, zero[6] = {0, 0, 0, 0, 0, 0};
    if (A->plane_strain) cl_fe_elastic((real)A->E, (real)A->nu, zero, sig, D6), cl_fe_ep_plane_tangent(D6, D3);
    else cl_tri_elasticity((real)A->E, (real)A->nu, 0, D3);
  } else {
    real eps[3];
    cl_fe_strain(nn, grad, dul, eps);
    cl_fe_ep_update(A, e * A->gs_e + k * A->gs_k, eps, D3, s3);
  }
  return w;
}

/* Gauss point k of quadrilateral element e by sum factorization (kernels/fe/quad_sum.h), after its first
 * pass s1: the strain increment from the reference gradients, the stress update from the converged
 * state sig, ep (cl_fe_ep_state_n; sig overwritten), and the point's reference flux into s2 (entries at
 * stride, as s1) */
CL_FE_EP_INLINE void cl_fe_ep_sum_gauss_point(const cl_fe_ep_args *A, const int order, size_t e, int k, const real *L,
                                              const real *dL, const real *s1, real *sig, real ep, real *s2,
                                              const int stride) {
  real J[4], gu[4], eps[3], D3[9], s3[3], xi, eta, w;
  cl_quad_sum_eta(order, k, L, dL, s1, stride, J, gu);
  cl_quad_sum_strain(J, gu, eps);
  cl_quad_gauss(order, k, &xi, &eta, &w);
  cl_fe_ep_update_from(A, e * A->gs_e + k * A->gs_k, sig, ep, eps, D3, s3);
  cl_quad_sum_flux(order, k, J, s3, w * (real)A->thickness, stride, s2);
}

/* The element forces of quadrilateral e by sum factorization (residual CL_FE_EP_SUM_FACTORIZED), its
 * passes one index after another: the CPU's loop (a GPU runs one thread per index, fe_ep_cuda.cu) */
CL_FE_EP_INLINE void cl_fe_ep_element_sum(const cl_fe_ep_args *A, size_t e, const int order) {
  const int p1 = order + 1, nn = p1 * p1;
  real L[CL_QUAD_MAX_NODES], dL[CL_QUAD_MAX_NODES], du[CL_FE_MAX_DOFS], xe[CL_FE_MAX_DOFS], s1[8 * CL_FE_MAX_NODES], s2[4 * CL_FE_MAX_NODES];
  for (int q = 0; q < p1; q++) cl_quad_sum_table_row(order, q, L, dL);
  for (int a = 0; a < nn; a++) cl_fe_ep_node_values(A, CL_FE_EP_FORCES, nn, e, a, du, xe, 1);
  for (int m = 0; m < nn; m++) cl_quad_sum_xi(order, m, L, dL, xe, du, 1, s1);
  for (int k = 0; k < nn; k++) {
    real sig[6], ep;
    cl_fe_ep_state_n(A, e * A->gs_e + k * A->gs_k, sig, &ep);
    cl_fe_ep_sum_gauss_point(A, order, e, k, L, dL, s1, sig, ep, s2, 1);
  }
  for (int m = 0; m < nn; m++) cl_quad_sum_flux_xi(order, m, L, dL, s2, 1, s1);
  real *fe = (real *)A->fe + e * A->fe_e;
  for (int a = 0; a < nn; a++) {
    real f[2];
    cl_quad_sum_force(order, a, L, dL, s1, 1, f);
    fe[2 * a * A->fe_i] = f[0], fe[(2 * a + 1) * A->fe_i] = f[1];
  }
}

/* Element e of the given shape and order: op CL_FE_EP_FORCES[_TANGENT] updates its Gauss points and
 * writes fe (and ke); CL_FE_EP_ELASTIC_TANGENT writes ke with the elastic matrix. */
CL_FE_EP_INLINE void cl_fe_ep_element_of(const cl_fe_ep_args *A, const int op, size_t e, const int shape,
                                         const int order) {
  if (op == CL_FE_EP_FORCES && shape == CL_FE_QUAD && A->matrix_free == CL_FE_EP_SUM_FACTORIZED) {
    cl_fe_ep_element_sum(A, e, order);
    return;
  }
  const int nn = cl_fe_nodes(shape, order), nd = 2 * nn, ngp = cl_fe_ngauss(shape, order);
  real f[CL_FE_MAX_DOFS], du[CL_FE_MAX_DOFS], xe[CL_FE_MAX_DOFS];
  for (int a = 0; a < nn; a++) cl_fe_ep_node_values(A, op, nn, e, a, du, xe, 1);
  for (int i = 0; i < nd; i++) f[i] = 0;
  real *ke = op == CL_FE_EP_FORCES ? (real *)0 : (real *)A->ke + e * nd * nd;
  if (ke)
    for (int i = 0; i < nd * nd; i++) ke[i] = 0;
  CL_FE_EP_GAUSS_LOOP
  for (int k = 0; k < ngp; k++) {
    real grad[CL_FE_MAX_DOFS], D3[9], s3[3];
    const real w = cl_fe_ep_gauss_point(A, op, shape, order, e, k, du, xe, 1, grad, D3, s3);
    if (op != CL_FE_EP_ELASTIC_TANGENT) cl_fe_add_btsig(nn, grad, s3, w, f);
    if (ke) cl_fe_add_btdb(nn, grad, D3, w, ke);
  }
  if (op != CL_FE_EP_ELASTIC_TANGENT) {
    real *fe = (real *)A->fe + e * A->fe_e;
    for (int i = 0; i < nd; i++) fe[i * A->fe_i] = f[i];
  }
}

/* Row r of element e's matrix, written to ke (one GPU thread per row, fe_ep_cuda.cu): the sum over its
 * Gauss points, in the element loop's order, of W B_r^T D B with D the elastic matrix (op
 * CL_FE_EP_ELASTIC_TANGENT) or the law's tangent that the Gauss points left in dgp
 * (CL_FE_EP_FORCES_TANGENT). */
CL_FE_EP_INLINE void cl_fe_ep_element_row(const cl_fe_ep_args *A, const int op, const int shape, const int order,
                                          size_t e, int r) {
  const int nn = cl_fe_nodes(shape, order), nd = 2 * nn, ngp = cl_fe_ngauss(shape, order);
  const size_t G = A->ne * A->ngp;
  real row[CL_FE_MAX_DOFS], xe[CL_FE_MAX_DOFS];
  for (int a = 0; a < nn; a++) cl_fe_ep_node_values(A, CL_FE_EP_ELASTIC_TANGENT, nn, e, a, (real *)0, xe, 1);
  for (int c = 0; c < nd; c++) row[c] = 0;
  CL_FE_EP_GAUSS_LOOP
  for (int k = 0; k < ngp; k++) {
    real grad[CL_FE_MAX_DOFS], D3[9], s3[3];
    /* the geometry and the elastic matrix, which the law's tangent replaces for Newton */
    const real w = cl_fe_ep_gauss_point(A, CL_FE_EP_ELASTIC_TANGENT, shape, order, e, k, (const real *)0, xe, 1, grad,
                                        D3, s3);
    if (op == CL_FE_EP_FORCES_TANGENT)
      for (int i = 0; i < 9; i++) D3[i] = ((const real *)A->dgp)[i * G + e * A->gs_e + k * A->gs_k];
    real ax = 0, ay = 0; /* the row's node's gradient, picked without a run-time index (registers on a GPU) */
    for (int a = 0; a < nn; a++)
      if (a == r / 2) ax = grad[2 * a], ay = grad[2 * a + 1];
    cl_fe_add_btdb_row(nn, grad, D3, w, ax, ay, r & 1, row);
  }
  real *ke = (real *)A->ke + e * nd * nd + r * nd;
  for (int c = 0; c < nd; c++) ke[c] = row[c];
}

/* Element e: the shape and order become constants here, so that the loops over an element's nodes
 * have fixed trip counts (unrolled, its arrays in registers on a GPU rather than in local memory) and
 * the matrix-free reference derivatives are constants. */
CL_HD static inline void cl_fe_ep_element(const cl_fe_ep_args *A, const int op, size_t e) {
  if (A->shape == CL_FE_QUAD) {
    if (A->order == 1) cl_fe_ep_element_of(A, op, e, CL_FE_QUAD, 1);
    else if (A->order == 2) cl_fe_ep_element_of(A, op, e, CL_FE_QUAD, 2);
    else cl_fe_ep_element_of(A, op, e, CL_FE_QUAD, 3);
  } else if (A->order == 1) cl_fe_ep_element_of(A, op, e, CL_FE_TRI, 1);
  else cl_fe_ep_element_of(A, op, e, CL_FE_TRI, 2);
}

#ifdef CL_FE_EP_LAW
/* the entry points of a unit built around a run-time compiled law (lua/cleave/jit.lua) */
CL_HD static inline void cl_fe_ep_law_forces(const cl_fe_ep_args *A, size_t e) { cl_fe_ep_element(A, CL_FE_EP_FORCES, e); }
CL_HD static inline void cl_fe_ep_law_forces_tangent(const cl_fe_ep_args *A, size_t e) {
  cl_fe_ep_element(A, CL_FE_EP_FORCES_TANGENT, e);
}
#endif

/* Node n's internal force: the sum of its element slots' shares. */
CL_HD static inline void cl_fe_ep_gather_node(const cl_fe_ep_args *A, size_t n) {
  const real *fe = (const real *)A->fe;
  real fx = 0, fy = 0;
  for (uint32_t s = A->node_start[n]; s < A->node_start[n + 1]; s++) {
    const uint32_t slot = A->node_slot[s], e = slot / A->nn, a = slot % A->nn;
    fx += fe[e * A->fe_e + 2 * a * A->fe_i];
    fy += fe[e * A->fe_e + (2 * a + 1) * A->fe_i];
  }
  ((real *)A->R)[n] = fx;
  ((real *)A->R)[A->nnodes + n] = fy;
}

/* Nonzero j of the global matrix: the sum of its element-matrix entries. */
CL_HD static inline void cl_fe_ep_gather_nonzero(const cl_fe_ep_args *A, size_t j) {
  const real *ke = (const real *)A->ke;
  real v = 0;
  for (uint32_t s = A->csr_start[j]; s < A->csr_start[j + 1]; s++) v += ke[A->csr_slot[s]];
  ((real *)A->kval)[j] = v;
}

/* ---- the conjugate gradients on the device (fe_ep_pcg.c drives them) ---- */

/* Row i of kval: constrained rows and columns become the identity's; cg_dinv[i] = 1 / K_ii. */
CL_HD static inline void cl_fe_ep_constrain_row(const cl_fe_ep_args *A, size_t i) {
  real *val = (real *)A->kval, diag = 1;
  for (uint32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
    const uint32_t j = A->col[k];
    if (A->fixed[i] || A->fixed[j]) val[k] = j == i ? 1 : 0;
    if (j == i) diag = val[k];
  }
  ((real *)A->cg_dinv)[i] = 1 / diag;
}

/* entry k of the reordered matrix (nnz entries) */
CL_HD static inline void cl_fe_ep_permute_value(const cl_fe_ep_args *A, size_t k) {
  ((real *)A->perm_val)[k] = ((const real *)A->kval)[A->perm_map[k]];
}

/* the per-dof vector updates of one CG iteration */
CL_HD static inline void cl_fe_ep_cg_vector(const cl_fe_ep_args *A, const int op, size_t i) {
  real *x = (real *)A->cg_x, *r = (real *)A->cg_r, *z = (real *)A->cg_z, *p = (real *)A->cg_p;
  const real *q = (const real *)A->cg_q, *dinv = (const real *)A->cg_dinv;
  if (op == CL_FE_EP_CG_PRECONDITION) z[i] = dinv[i] * r[i];
  else if (op == CL_FE_EP_CG_STEP) x[i] += (real)A->cg_alpha * p[i], r[i] -= (real)A->cg_alpha * q[i];
  else p[i] = z[i] + (real)A->cg_beta * p[i];
}

#endif
