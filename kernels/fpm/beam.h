/* The 2-particle Euler-Bernoulli beam of the vector-form intrinsic finite element method (Ting,
 * Shih & Wang 2004), corotational. The fictitious reverse motion (paper eq. 6) removes the rigid
 * part of the particles' motion: the deformation coordinate system (DCS) follows the chord x1 -> x2
 * and the mean rotation of the two particles about it; what rotates each particle relative to
 * that frame is its pure deformational rotation, the change of chord length its stretch. The DCS
 * forces are those of the linear beam (axial, torsion, bending in both planes with the shear that
 * balances the moments), turned back to global axes. A rigid motion leaves the DCS rotations and
 * the stretch at zero up to round-off: no force. */
#ifndef CL_FPM_BEAM_H
#define CL_FPM_BEAM_H

#include "fpm.h"
#include "rotation.h"

/* The reference triad of element e: e1 along the chord, e2 the orientation vector made normal to
 * it, e3 = e1 x e2 (rows of E0); returns the reference length. */
CL_HD static inline real cl_fpm_beam_frame0(const cl_fpm_beam_args *A, size_t e, uint32_t a, uint32_t b, real *E0) {
  const real *x0 = (const real *)A->x0, *o = (const real *)A->orient;
  const size_t n = A->n, ne = A->ne;
  for (int c = 0; c < 3; c++) E0[c] = x0[c * n + b] - x0[c * n + a];
  const real L0 = cl_fpm_normalize(E0);
  real v[3] = {o[e], o[ne + e], o[2 * ne + e]};
  const real along = cl_fpm_dot(v, E0);
  for (int c = 0; c < 3; c++) E0[3 + c] = v[c] - along * E0[c];
  cl_fpm_normalize(E0 + 3);
  cl_fpm_cross(E0, E0 + 3, E0 + 6);
  return L0;
}

/* Rotates the unit vector x by the smallest rotation taking unit a to unit b (a . b > -1). */
CL_HD static inline void cl_fpm_align(const real *a, const real *b, const real *x, real *y) {
  real v[3], vx[3];
  cl_fpm_cross(a, b, v);
  cl_fpm_cross(v, x, vx);
  const real c = cl_fpm_dot(a, b), k = cl_fpm_dot(v, x) / (1 + c);
  for (int r = 0; r < 3; r++) y[r] = c * x[r] + vx[r] + k * v[r];
}

CL_HD static inline void cl_fpm_beam_at(const cl_fpm_beam_args *A, size_t e) {
  const size_t n = A->n, ne = A->ne;
  const uint32_t p[2] = {A->conn[e], A->conn[ne + e]};
  const real *x0 = (const real *)A->x0, *d = (const real *)A->d, *q = (const real *)A->q;
  real E0[9], E[9], chord[3];
  const real L0 = cl_fpm_beam_frame0(A, e, p[0], p[1], E0);
  for (int c = 0; c < 3; c++)
    chord[c] = x0[c * n + p[1]] + d[c * n + p[1]] - x0[c * n + p[0]] - d[c * n + p[0]];
  const real l = cl_fpm_normalize(chord);
  /* the mean rotation qm = qa (qa^-1 qb)^(1/2), then the turn of its chord onto the current one */
  real qa[4], qb[4], rel[4], half[3], qh[4], qm[4], Rm[9];
  for (int c = 0; c < 4; c++) qa[c] = q[c * n + p[0]], qb[c] = q[c * n + p[1]];
  const real qa_inv[4] = {qa[0], -qa[1], -qa[2], -qa[3]};
  cl_fpm_quat_mul(qa_inv, qb, rel);
  cl_fpm_quat_log(rel, half);
  for (int c = 0; c < 3; c++) half[c] /= 2;
  cl_fpm_quat_exp(half, qh);
  cl_fpm_quat_mul(qa, qh, qm);
  cl_fpm_quat_matrix(qm, Rm);
  real t[3][3];
  for (int k = 0; k < 3; k++) cl_fpm_apply(Rm, E0 + 3 * k, t[k]);
  for (int c = 0; c < 3; c++) E[c] = chord[c];
  cl_fpm_align(t[0], chord, t[1], E + 3);
  cl_fpm_align(t[0], chord, t[2], E + 6);
  /* deformational rotations of each end in the DCS: the rotation E^T R_p E0 (as a vector) */
  real theta[2][3];
  for (int k = 0; k < 2; k++) {
    real Rp[9], Rd[9], col[3];
    for (int c = 0; c < 4; c++) qh[c] = q[c * n + p[k]];
    cl_fpm_quat_matrix(qh, Rp);
    for (int j = 0; j < 3; j++) {
      cl_fpm_apply(Rp, E0 + 3 * j, col);
      for (int i = 0; i < 3; i++) Rd[3 * i + j] = cl_fpm_dot(E + 3 * i, col);
    }
    cl_fpm_matrix_log(Rd, theta[k]);
  }
  /* the linear beam in the DCS: axial force, torque, end moments about y and z */
  const real N = (real)A->EA * (l - L0) / L0, T = (real)A->GJ * (theta[1][0] - theta[0][0]) / L0;
  const real kz = (real)A->EIz / L0, ky = (real)A->EIy / L0;
  const real Mza = kz * (4 * theta[0][2] + 2 * theta[1][2]), Mzb = kz * (2 * theta[0][2] + 4 * theta[1][2]);
  const real Mya = ky * (4 * theta[0][1] + 2 * theta[1][1]), Myb = ky * (2 * theta[0][1] + 4 * theta[1][1]);
  const real Vy = (Mza + Mzb) / l, Vz = (Mya + Myb) / l;
  const real fl[2][3] = {{-N, Vy, -Vz}, {N, -Vy, Vz}}, ml[2][3] = {{-T, Mya, Mza}, {T, Myb, Mzb}};
  for (int k = 0; k < 2; k++)
    for (int c = 0; c < 3; c++) {
      const real fg = E[c] * fl[k][0] + E[3 + c] * fl[k][1] + E[6 + c] * fl[k][2];
      const real mg = E[c] * ml[k][0] + E[3 + c] * ml[k][1] + E[6 + c] * ml[k][2];
      cl_fpm_deposit(A->fe, 2 * ne, ne, e, k, A->f, n, p[k], c, fg);
      cl_fpm_deposit(A->me, 2 * ne, ne, e, k, A->m, n, p[k], c, mg);
    }
  if (A->energy) {
    const real stretch = l - L0, twist = theta[1][0] - theta[0][0];
    ((real *)A->energy)[e] = N * stretch / 2 + T * twist / 2 +
                             (Mza * theta[0][2] + Mzb * theta[1][2] + Mya * theta[0][1] + Myb * theta[1][1]) / 2;
  }
}

#endif
