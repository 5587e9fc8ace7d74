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
 * current mid-surface; lengths are measured on the reference facet.
 *
 * Contact: closing (dn < 0) adds a penalty traction A->contact dn while the law still holds
 * the faces together. A Gauss point whose law has failed (it gave no traction at a positive
 * normal opening, which no law's envelope does before complete failure) or that lies on a
 * traction-free crack is broken: its faces get no penalty unless A->contact_after_breaking,
 * then with Coulomb friction (A->friction, a stick penalty of the same stiffness). A broken
 * pair of faces may have slid or turned far from each other, and the penalty between its
 * original node pairs then pushes along a normal that turns with the motion: not the gradient
 * of a potential, it pumps energy into detached fragments (issue 13).
 *
 * The work done on the interface is accumulated per Gauss point by the trapezoid rule in the
 * variables the law sees, the local openings (dn, dt) and tractions (tn, tt) of this evaluation
 * and the last, the law's and the contact's apart, with the energy each would give back on
 * unloading (half the traction times the opening: the laws unload towards the origin; the penalty
 * and the stick spring are elastic). tn d(dn) + tt d(dt) is the work of the nodal forces (the
 * jump's and the frame's turn alike), and on a law's linear branches the rule is exact, so the
 * law's dissipation (work - stored) must not decrease: a decrease beyond the rule's error is
 * recorded in A->negative_dissipation. (Summed on the global jump and the turn instead, the rule
 * erred by a quarter of the increment where a turning face closed, more than any bound on the
 * global traction: a 192 x 48 PPR plate stopped on such a false alarm, issue 13.)
 *
 * The forces go to coh_force, which the elements on either side gather in
 * their colour-ordered scatter; with A->atomic they are added to the nodes at
 * once (the elements then skip the gather), so that the cohesive and element
 * forces are independent and run as one launch (cl_czm_forces_at). */
#ifndef CL_FE_CZM_COHESIVE_H
#define CL_FE_CZM_COHESIVE_H

#include "czm.h"
#include "czm_facet.h"

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

/* The contact traction (normal cn, tangential ct) at a closing Gauss point: the penalty, and on
 * broken faces Coulomb friction through a stick spring of the penalty's stiffness from the last
 * contact traction h (its tangential part) and the tangential slip since then. */
CL_HD static inline void cl_czm_contact(const cl_czm_args *A, int broken, real dn, real slip, real last_tangential,
                                        real *cn, real *ct) {
  const real k = (real)A->contact;
  *cn = k * dn, *ct = 0;
  if (!broken || !(A->friction > 0)) return;
  const real trial = last_tangential + k * slip, limit = (real)A->friction * -*cn;
  *ct = trial > limit ? limit : trial < -limit ? -limit : trial;
}

/* The trapezoid rule's increment of the work of a traction (tn, tt) on the openings (dn, dt) from
 * the last evaluation's (pn, pt) and (qn, qt), and in *err its error bound: within a step over which
 * each traction component changes monotonically the rule errs by at most half the change times the
 * step (a law's kink, a closing face, a traction that jumped). */
CL_HD static inline real cl_czm_work(real tn, real tt, real pn, real pt, real dn, real dt, real qn, real qt,
                                     real *err) {
  *err = (fabs(tn - pn) * fabs(dn - qn) + fabs(tt - pt) * fabs(dt - qt)) / 2;
  return ((pn + tn) * (dn - qn) + (pt + tt) * (dt - qt)) / 2;
}

/* Gauss point g of cohesive element c: the law (and its state), the contact penalty and the
 * interface history at the point; adds its nodal forces on side 0 to F (side 1 gets -F) and to
 * both sides G. The tractions are derivatives of the interface energy phi(dn, dt) per unit length,
 * with dn, dt measured in the frame of the current mid-surface: phi also depends on the angle of
 * that frame, through the nodes' mean motion, and its derivative dphi/dangle = tn dt - tt dn (the
 * moment of the traction about the jump) gives the forces G. Without them the forces are not the
 * gradient of phi: turning a damaged interface whose traction is not parallel to its jump did
 * work that no energy term held, and the law's dissipation could fall (issue 13). */
CL_HD static inline void cl_czm_cohesive_gauss(const cl_czm_args *A, const int order, size_t c, int g,
                                               const cl_czm_facet *f, real F[3][2], real G[3][2]) {
  const int np = order == 2 ? 3 : 2;
  const size_t gs = A->coh_cap * (size_t)np;
  real s, w, N[3], dN[3], T[2] = {0, 0}, R[2] = {0, 0}, J[2] = {0, 0};
  cl_czm_facet_rule(order, g, &s, &w);
  cl_czm_facet_shape(order, s, N, dN);
  for (int p = 0; p < np; p++)
    for (int d = 0; d < 2; d++) T[d] += dN[p] * f->Y[p][d], R[d] += dN[p] * f->X[p][d], J[d] += N[p] * f->jump[p][d];
  const real tl = sqrt(T[0] * T[0] + T[1] * T[1]), tx = T[0] / tl, ty = T[1] / tl, nx = ty, ny = -tx;
  const real dn = J[0] * nx + J[1] * ny, dtan = J[0] * tx + J[1] * ty;
  const size_t slot = c * (size_t)np + (size_t)g;
  real *h = (real *)A->hist + slot;
  real tn = 0, tt = 0;
  if (!f->traction_free) CL_CZM_LAW(dn, dtan, &tn, &tt, &A->law, slot);
  if (!f->traction_free && tn == 0 && tt == 0 && dn > 0) h[CL_CZM_H_BROKEN * gs] = 1;
  const int broken = f->traction_free || h[CL_CZM_H_BROKEN * gs] != 0;
  real cn = 0, ct = 0;
  real *hc = h + CL_CZM_H_CONTACT * gs, *hj = h + CL_CZM_H_JUMP * gs;
  if (dn < 0 && (!broken || A->contact_after_breaking))
    cl_czm_contact(A, broken, dn, dtan - (hj[0] * tx + hj[gs] * ty), hc[0] * tx + hc[gs] * ty, &cn, &ct);
  if (A->nonfinite && !(isfinite(tn) && isfinite(tt))) cl_record_first(A->nonfinite, c);
  const real law[2] = {tn * nx + tt * tx, tn * ny + tt * ty}, con[2] = {cn * nx + ct * tx, cn * ny + ct * ty};
  const real scale = w * sqrt(R[0] * R[0] + R[1] * R[1]) * (real)A->thickness;
  const real moment = tn * dtan - tt * dn + cn * dtan - ct * dn;
  /* d angle / d T = (-T_y, T_x) / |T|^2, d T / d u = dN / 2 on either side */
  const real geo = scale * moment / (2 * tl * tl);
  for (int p = 0; p < np; p++)
    for (int d = 0; d < 2; d++) F[p][d] += N[p] * (law[d] + con[d]) * scale;
  for (int p = 0; p < np; p++) G[p][0] += geo * dN[p] * T[1], G[p][1] -= geo * dN[p] * T[0];
  /* the last evaluation's openings and tractions in its own frame */
  real *hl = h + CL_CZM_H_LAW * gs, *ha = h + CL_CZM_H_ANGLE * gs;
  const real ptx = cos(ha[0]), pty = sin(ha[0]), pnx = pty, pny = -ptx;
  const real qn = hj[0] * pnx + hj[gs] * pny, qt = hj[0] * ptx + hj[gs] * pty;
  real jumped, contact_err;
  const real law_work = scale * cl_czm_work(tn, tt, hl[0] * pnx + hl[gs] * pny, hl[0] * ptx + hl[gs] * pty, dn, dtan,
                                            qn, qt, &jumped);
  const real stored = scale / 2 * (tn * dn + tt * dtan), before = h[CL_CZM_H_LAW_STORED * gs];
  /* the extrinsic laws' round-off bands (no shear traction below 1e-9 delta_t, PPR) let a traction
   * appear at a tiny non-zero opening: allowed as before, by the change of the global traction
   * times the global step (which their normal motion dominates) */
  const real change[2] = {law[0] - hl[0], law[1] - hl[gs]}, step[2] = {J[0] - hj[0], J[1] - hj[gs]};
  jumped = scale * (jumped + sqrt((change[0] * change[0] + change[1] * change[1]) *
                                  (step[0] * step[0] + step[1] * step[1])) / 2);
  const real tol = jumped + (real)A->dissipation_tol * (fabs(law_work) + fabs(stored) + fabs(before) + jumped);
  if (A->negative_dissipation && law_work - (stored - before) < -tol) cl_record_first(A->negative_dissipation, c);
  h[CL_CZM_H_LAW_WORK * gs] += law_work;
  h[CL_CZM_H_LAW_STORED * gs] = stored;
  h[CL_CZM_H_CONTACT_WORK * gs] +=
      scale * cl_czm_work(cn, ct, hc[0] * pnx + hc[gs] * pny, hc[0] * ptx + hc[gs] * pty, dn, dtan, qn, qt, &contact_err);
  h[CL_CZM_H_CONTACT_STORED * gs] = scale / 2 * (cn * dn + (ct != 0 ? ct * ct / (real)A->contact : 0));
  hj[0] = J[0], hj[gs] = J[1], hl[0] = law[0], hl[gs] = law[1], hc[0] = con[0], hc[gs] = con[1];
  ha[0] = atan2(T[1], T[0]);
}

/* Adds the forces F + G to side 0 and -F + G to side 1 with atomics. */
CL_HD static inline void cl_czm_cohesive_scatter(const cl_czm_args *A, const int order, const cl_czm_facet *f,
                                                 real F[3][2], real G[3][2]) {
  real *a = (real *)A->a;
  for (int p = 0; p < (order == 2 ? 3 : 2); p++)
    for (int d = 0; d < 2; d++) {
      cl_czm_add(&a[d * A->cap + f->n0[p]], F[p][d] + G[p][d], 1);
      cl_czm_add(&a[d * A->cap + f->n1[p]], -F[p][d] + G[p][d], 1);
    }
}

/* Cohesive element c: its forces into coh_force (which the elements gather), and with atomic
 * scatter straight into the nodes. */
CL_HD static inline void cl_czm_cohesive_of(const cl_czm_args *A, const int order, size_t c) {
  const int np = order == 2 ? 3 : 2;
  cl_czm_facet f;
  real F[3][2] = {{0, 0}, {0, 0}, {0, 0}}, G[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  cl_czm_facet_gather(A, order, c, &f);
  for (int g = 0; g < np; g++) cl_czm_cohesive_gauss(A, order, c, g, &f, F, G);
  real *cf = (real *)A->coh_force;
  const size_t cc = A->coh_cap;
  for (int p = 0; p < 3; p++)
    for (int d = 0; d < 2; d++) {
      cf[(size_t)(2 * p + d) * cc + c] = p < np ? F[p][d] + G[p][d] : 0;
      cf[(size_t)(2 * (3 + p) + d) * cc + c] = p < np ? -F[p][d] + G[p][d] : 0;
    }
  if (A->atomic) cl_czm_cohesive_scatter(A, order, &f, F, G);
}

/* Gauss point g of cohesive element c alone, its forces added to the nodes with atomics. */
CL_HD static inline void cl_czm_cohesive_point(const cl_czm_args *A, const int order, size_t c, int g) {
  cl_czm_facet f;
  real F[3][2] = {{0, 0}, {0, 0}, {0, 0}}, G[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  cl_czm_facet_gather(A, order, c, &f);
  cl_czm_cohesive_gauss(A, order, c, g, &f, F, G);
  cl_czm_cohesive_scatter(A, order, &f, F, G);
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
