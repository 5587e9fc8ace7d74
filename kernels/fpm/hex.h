/* The 8-particle hexahedral solid with 8 Gauss points, corotational (the vector-form intrinsic
 * solid of Ting, Shih & Wang 2004 in its total form). The fictitious reverse motion (paper eq. 6):
 * the rigid rotation R is the rotation of the polar decomposition of the deformation gradient at
 * the element's centre, the rigid translation that of its centroid; the pure deformation is
 *   eta_a = R^T (x_a - x_c) - (X_a - X_c)
 * in the deformation coordinate system (DCS: the reference axes turned by R). At each Gauss point
 * the small strain of eta, its increment since the last evaluation, and the stress_update law
 * (CL_FPM_LAW, defined before this header: a built-in or user snippet, lua/cleave/jit.lua) give the
 * stress in the DCS; the element forces int B^T sig dV (eq. 9) are turned back by R and
 * subtracted from the particles' forces. A rigid motion leaves eta at round-off: no force. */
#ifndef CL_FPM_HEX_H
#define CL_FPM_HEX_H

#include "fpm.h"
#include "rotation.h"

/* Natural coordinates of the corners, VTK_HEXAHEDRON order. */
#define CL_FPM_HEX_CORNER(a, c) ((real)((((a) == 1 || (a) == 2 || (a) == 5 || (a) == 6) && (c) == 0) || \
                                         (((a) == 2 || (a) == 3 || (a) == 6 || (a) == 7) && (c) == 1) ||   \
                                         ((a) >= 4 && (c) == 2)) * 2 - 1)

/* Gradients of the shape functions at natural point s with respect to the reference coordinates
 * (g[3a + c]) from the corners X (X[3a + c]); returns det J. */
CL_HD static inline real cl_fpm_hex_gradients(const real *X, const real *s, real *g) {
  real dn[24], J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, Jinv[9];
  for (int a = 0; a < 8; a++) {
    const real xi = CL_FPM_HEX_CORNER(a, 0), et = CL_FPM_HEX_CORNER(a, 1), ze = CL_FPM_HEX_CORNER(a, 2);
    dn[3 * a] = xi * (1 + et * s[1]) * (1 + ze * s[2]) / 8;
    dn[3 * a + 1] = et * (1 + xi * s[0]) * (1 + ze * s[2]) / 8;
    dn[3 * a + 2] = ze * (1 + xi * s[0]) * (1 + et * s[1]) / 8;
    for (int r = 0; r < 3; r++) /* J[r][c] = d X_r / d s_c */
      for (int c = 0; c < 3; c++) J[3 * r + c] += X[3 * a + r] * dn[3 * a + c];
  }
  const real det = cl_fpm_inverse(J, Jinv);
  for (int a = 0; a < 8; a++) /* dN/dX_c = dN/ds_r Jinv[r][c] */
    for (int c = 0; c < 3; c++)
      g[3 * a + c] = dn[3 * a] * Jinv[c] + dn[3 * a + 1] * Jinv[3 + c] + dn[3 * a + 2] * Jinv[6 + c];
  return det;
}

#ifdef CL_FPM_LAW
CL_HD static inline void cl_fpm_hex_at(const cl_fpm_hex_args *A, size_t e) {
  const size_t n = A->n, ne = A->ne, np = 8 * ne;
  const real *x0 = (const real *)A->x0, *d = (const real *)A->d;
  uint32_t p[8];
  real X[24], x[24], Xc[3] = {0, 0, 0}, xc[3] = {0, 0, 0};
  for (int a = 0; a < 8; a++) {
    p[a] = A->conn[a * ne + e];
    for (int c = 0; c < 3; c++) {
      X[3 * a + c] = x0[c * n + p[a]], x[3 * a + c] = X[3 * a + c] + d[c * n + p[a]];
      Xc[c] += X[3 * a + c] / 8, xc[c] += x[3 * a + c] / 8;
    }
  }
  /* the rigid rotation: polar decomposition of F = sum x_a (x) grad N_a at the centre */
  real g[24], F[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, R[9];
  const real centre[3] = {0, 0, 0};
  cl_fpm_hex_gradients(X, centre, g);
  for (int a = 0; a < 8; a++)
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) F[3 * r + c] += (x[3 * a + r] - xc[r]) * g[3 * a + c];
  cl_fpm_polar(F, R);
  real eta[24];
  for (int a = 0; a < 8; a++) {
    real rel[3] = {x[3 * a] - xc[0], x[3 * a + 1] - xc[1], x[3 * a + 2] - xc[2]};
    cl_fpm_apply_t(R, rel, eta + 3 * a);
    for (int c = 0; c < 3; c++) eta[3 * a + c] -= X[3 * a + c] - Xc[c];
  }
  real fl[24], energy = 0;
  for (int k = 0; k < 24; k++) fl[k] = 0;
  real *sig = (real *)A->sig, *eps = (real *)A->eps;
  const real gauss = (real)0.57735026918962576451; /* 1/sqrt(3) */
  for (int gp = 0; gp < 8; gp++) {
    const size_t i = (size_t)e * 8 + gp;
    const real s[3] = {CL_FPM_HEX_CORNER(gp, 0) * gauss, CL_FPM_HEX_CORNER(gp, 1) * gauss,
                       CL_FPM_HEX_CORNER(gp, 2) * gauss};
    const real dV = cl_fpm_hex_gradients(X, s, g); /* weights 1 */
    real H[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};       /* displacement gradient d eta_r / d X_c */
    for (int a = 0; a < 8; a++)
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) H[3 * r + c] += eta[3 * a + r] * g[3 * a + c];
    const real strain[6] = {H[0], H[4], H[8], H[5] + H[7], H[2] + H[6], H[1] + H[3]};
    real deps[6], st[6], D[36];
    for (int c = 0; c < 6; c++) {
      deps[c] = strain[c] - eps[c * np + i];
      eps[c * np + i] = strain[c];
      st[c] = sig[c * np + i];
    }
    for (int c = 0; c < 36; c++) D[c] = 0;
    CL_FPM_LAW(deps, st, D, &A->law, i);
    for (int c = 0; c < 6; c++) {
      sig[c * np + i] = st[c];
      energy += st[c] * strain[c] / 2 * dV;
    }
    /* f_a = sigma grad N_a dV (sigma as the symmetric 3 x 3 of the Voigt vector) */
    const real S[9] = {st[0], st[5], st[4], st[5], st[1], st[3], st[4], st[3], st[2]};
    for (int a = 0; a < 8; a++)
      for (int r = 0; r < 3; r++)
        fl[3 * a + r] += (S[3 * r] * g[3 * a] + S[3 * r + 1] * g[3 * a + 1] + S[3 * r + 2] * g[3 * a + 2]) * dV;
  }
  for (int a = 0; a < 8; a++) {
    real fg[3];
    cl_fpm_apply(R, fl + 3 * a, fg);
    for (int c = 0; c < 3; c++) cl_fpm_deposit(A->fe, np, ne, e, a, A->f, n, p[a], c, fg[c]);
  }
  if (A->energy) ((real *)A->energy)[e] = energy;
}
#endif

#endif
