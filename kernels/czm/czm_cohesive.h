/* The forces of one cohesive element (paper 000, section 6.6: separations
 * in the local frame, tractions at the Gauss points from the cohesive law,
 * nodal forces), for the unit that cleave.jit builds around a traction law:
 * it defines CL_CZM_LAW(dn, dt, &tn, &tt, &law_args, slot) and includes
 * this file, so the built-in laws and a user's run the same code.
 *
 * The facet of cohesive element c runs from A (s = -1) to B (s = +1), the
 * T6 mid-side node M at s = 0; side 0 (element e0) lies to its left. At each
 * Gauss point the jump is u(side 1) - u(side 0), resolved on the tangent t
 * and the normal n = (t_y, -t_x) (pointing from side 0 to side 1) of the
 * current mid-surface; lengths are measured on the reference facet. Closing
 * (dn < 0) adds a penalty traction A->contact dn to the law's. The work done
 * on the interface is accumulated per Gauss point by the trapezoid rule on
 * the global jump and traction, and the energy it would give back on
 * unloading (half the traction times the jump: the laws unload towards the
 * origin), for the energy balance.
 *
 * The forces go to coh_force, which the elements on either side gather in
 * their colour-ordered scatter; with A->atomic they are added to the nodes at
 * once (the elements then skip the gather), so that the cohesive and element
 * forces are independent and run as one launch (cl_czm_forces_at). */
#ifndef CL_FE_CZM_COHESIVE_H
#define CL_FE_CZM_COHESIVE_H

#include "czm.h"

CL_HD static inline void cl_czm_facet_rule(const int order, int g, real *s, real *w) {
  if (order == 1) {
    *s = (g ? 1 : -1) * (real)0.57735026918962576; /* 1 / sqrt 3 */
    *w = 1;
    return;
  }
  *s = (real)(g - 1) * (real)0.77459666924148338; /* sqrt(3/5) */
  *w = g == 1 ? (real)8 / 9 : (real)5 / 9;
}

/* Facet shape functions of A, B, M at s and their derivatives. */
CL_HD static inline void cl_czm_facet_shape(const int order, real s, real *N, real *dN) {
  if (order == 1) {
    N[0] = (1 - s) / 2, N[1] = (1 + s) / 2, N[2] = 0;
    dN[0] = -(real)0.5, dN[1] = (real)0.5, dN[2] = 0;
    return;
  }
  N[0] = s * (s - 1) / 2, N[1] = s * (s + 1) / 2, N[2] = 1 - s * s;
  dN[0] = s - (real)0.5, dN[1] = s + (real)0.5, dN[2] = -2 * s;
}

/* The facet of cohesive element c: its nodes per side in facet order (A, B, M), reference
 * positions, current mid-surface positions and the jump u(side 1) - u(side 0) at each. */
typedef struct cl_czm_facet {
  uint32_t n0[3], n1[3];
  int traction_free;
  real X[3][2], Y[3][2], jump[3][2];
} cl_czm_facet;

CL_HD static inline void cl_czm_facet_gather(const cl_czm_args *A, const int order, size_t c, cl_czm_facet *f) {
  const int np = order == 2 ? 3 : 2;
  const size_t cc = A->coh_cap, ne = A->ne, cap = A->cap;
  const size_t e0 = (size_t)A->coh[c], e1 = (size_t)A->coh[2 * cc + c];
  const int k0 = A->coh[cc + c] & 3, k1 = A->coh[3 * cc + c];
  f->traction_free = A->coh[cc + c] & CL_CZM_FREE;
  f->n0[0] = A->elem[k0 * ne + e0], f->n0[1] = A->elem[((k0 + 1) % 3) * ne + e0];
  f->n1[0] = A->elem[((k1 + 1) % 3) * ne + e1], f->n1[1] = A->elem[k1 * ne + e1];
  f->n0[2] = order == 2 ? A->elem[(3 + k0) * ne + e0] : f->n0[0];
  f->n1[2] = order == 2 ? A->elem[(3 + k1) * ne + e1] : f->n1[0];
  const real *x = (const real *)A->x, *u = (const real *)A->u;
  for (int p = 0; p < np; p++)
    for (int d = 0; d < 2; d++) {
      const real ua = u[d * cap + f->n0[p]], ub = u[d * cap + f->n1[p]];
      f->X[p][d] = x[d * cap + f->n0[p]];
      f->Y[p][d] = f->X[p][d] + (ua + ub) / 2;
      f->jump[p][d] = ub - ua;
    }
}

/* Gauss point g of cohesive element c: the law (and its state), the contact penalty and the
 * interface history at the point; adds its nodal forces on side 0 to F (side 1 gets -F). */
CL_HD static inline void cl_czm_cohesive_gauss(const cl_czm_args *A, const int order, size_t c, int g,
                                               const cl_czm_facet *f, real F[3][2]) {
  const int np = order == 2 ? 3 : 2;
  const size_t gstride = A->coh_cap * (size_t)np;
  real s, w, N[3], dN[3], T[2] = {0, 0}, R[2] = {0, 0}, J[2] = {0, 0};
  cl_czm_facet_rule(order, g, &s, &w);
  cl_czm_facet_shape(order, s, N, dN);
  for (int p = 0; p < np; p++)
    for (int d = 0; d < 2; d++) T[d] += dN[p] * f->Y[p][d], R[d] += dN[p] * f->X[p][d], J[d] += N[p] * f->jump[p][d];
  const real tl = sqrt(T[0] * T[0] + T[1] * T[1]), tx = T[0] / tl, ty = T[1] / tl, nx = ty, ny = -tx;
  const real dn = J[0] * nx + J[1] * ny, dtan = J[0] * tx + J[1] * ty;
  const size_t slot = c * (size_t)np + (size_t)g;
  real tn = 0, tt = 0;
  if (!f->traction_free) CL_CZM_LAW(dn, dtan, &tn, &tt, &A->law, slot);
  if (dn < 0) tn += (real)A->contact * dn;
  if (A->nonfinite && !(isfinite(tn) && isfinite(tt))) cl_record_first(A->nonfinite, c);
  const real trac[2] = {tn * nx + tt * tx, tn * ny + tt * ty};
  const real scale = w * sqrt(R[0] * R[0] + R[1] * R[1]) * (real)A->thickness;
  for (int p = 0; p < np; p++)
    for (int d = 0; d < 2; d++) F[p][d] += N[p] * trac[d] * scale;
  real *h = (real *)A->hist + slot;
  h[4 * gstride] += scale / 2 * ((h[2 * gstride] + trac[0]) * (J[0] - h[0]) + (h[3 * gstride] + trac[1]) * (J[1] - h[gstride]));
  h[0] = J[0], h[gstride] = J[1], h[2 * gstride] = trac[0], h[3 * gstride] = trac[1];
  /* recoverable: the laws unload towards the origin and the penalty is elastic */
  h[5 * gstride] = scale / 2 * (trac[0] * J[0] + trac[1] * J[1]);
}

/* Adds the forces F (side 0; side 1 gets -F) to the nodes with atomics. */
CL_HD static inline void cl_czm_cohesive_scatter(const cl_czm_args *A, const int order, const cl_czm_facet *f,
                                                 real F[3][2]) {
  real *a = (real *)A->a;
  for (int p = 0; p < (order == 2 ? 3 : 2); p++)
    for (int d = 0; d < 2; d++) {
      cl_czm_add(&a[d * A->cap + f->n0[p]], F[p][d], 1);
      cl_czm_add(&a[d * A->cap + f->n1[p]], -F[p][d], 1);
    }
}

/* Cohesive element c: its forces into coh_force (which the elements gather), and with atomic
 * scatter straight into the nodes. */
CL_HD static inline void cl_czm_cohesive_of(const cl_czm_args *A, const int order, size_t c) {
  const int np = order == 2 ? 3 : 2;
  cl_czm_facet f;
  real F[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  cl_czm_facet_gather(A, order, c, &f);
  for (int g = 0; g < np; g++) cl_czm_cohesive_gauss(A, order, c, g, &f, F);
  real *cf = (real *)A->coh_force;
  const size_t cc = A->coh_cap;
  for (int p = 0; p < 3; p++)
    for (int d = 0; d < 2; d++) {
      cf[(size_t)(2 * p + d) * cc + c] = p < np ? F[p][d] : 0;
      cf[(size_t)(2 * (3 + p) + d) * cc + c] = p < np ? -F[p][d] : 0;
    }
  if (A->atomic) cl_czm_cohesive_scatter(A, order, &f, F);
}

/* Gauss point g of cohesive element c alone, its forces added to the nodes with atomics. */
CL_HD static inline void cl_czm_cohesive_point(const cl_czm_args *A, const int order, size_t c, int g) {
  cl_czm_facet f;
  real F[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  cl_czm_facet_gather(A, order, c, &f);
  cl_czm_cohesive_gauss(A, order, c, g, &f, F);
  cl_czm_cohesive_scatter(A, order, &f, F);
}

/* Cohesive element c when it is in use (counters[1] is exact; a launch may cover more). */
CL_HD static inline void cl_czm_cohesive_live(const cl_czm_args *A, size_t c) {
  if (c >= A->counters[1]) return;
  if (A->order == 2) cl_czm_cohesive_of(A, 2, c);
  else cl_czm_cohesive_of(A, 1, c);
}

/* Entry i of the fused force launch (atomic scatter only): elements 0..ne-1, then one entry per
 * Gauss point of the cohesive elements (a third of a cohesive element's serial work each, which
 * is what a small mesh waits for; coh_force is left to cl_czm_cohesive_of). */
CL_HD static inline void cl_czm_forces_at(const cl_czm_args *A, size_t i) {
  if (i < A->ne) {
    if (A->order == 2) cl_czm_element_force(A, 2, i);
    else cl_czm_element_force(A, 1, i);
    return;
  }
  const size_t ng = A->order == 2 ? 3 : 2, c = (i - A->ne) / ng;
  const int g = (int)((i - A->ne) % ng);
  if (c >= A->counters[1]) return;
  if (A->order == 2) cl_czm_cohesive_point(A, 2, c, g);
  else cl_czm_cohesive_point(A, 1, c, g);
}

#endif
