/* The 3-particle flat triangular shell, corotational (after Wu 2013's vector-form intrinsic
 * shell), elastic section. The fictitious reverse motion (paper eq. 6): the deformation coordinate
 * system (DCS) has e1 along the current edge 1 -> 2 and e3 normal to the current triangle; the
 * particles' in-plane positions in it, less those of the reference triangle in its own such frame,
 * are the membrane deformation (constant-strain triangle), and each particle's rotation relative to
 * the frames gives its bending rotations about e1, e2, which drive the discrete Kirchhoff triangle (DKT: Batoz, Bathe & Ho 1980; the transverse deflections
 * are zero in a frame through the three particles). The corners' bending rotations are read from
 * their rotated normals, so rotations about the normal (drilling) never enter them; drilling has a weak
 * spring of its own. A rigid motion leaves every deformation at round-off: no force. */
#ifndef CL_FPM_SHELL_H
#define CL_FPM_SHELL_H

#include "fpm.h"
#include "plane_stress_j2.h"
#include "rotation.h"

/* The frame of a triangle (rows e1, e2, e3 of E) and the in-plane coordinates of its corners
 * relative to corner 1 (xy[2a], xy[2a + 1]); returns twice its area. */
CL_HD static inline real cl_fpm_tri_frame(const real *p0, const real *p1, const real *p2, real *E, real *xy) {
  real a[3], b[3];
  for (int c = 0; c < 3; c++) E[c] = p1[c] - p0[c], a[c] = p2[c] - p0[c];
  cl_fpm_cross(E, a, b);
  const real area2 = cl_fpm_normalize(b);
  cl_fpm_normalize(E);
  for (int c = 0; c < 3; c++) E[6 + c] = b[c];
  cl_fpm_cross(E + 6, E, E + 3);
  const real *p[3] = {p0, p1, p2};
  for (int k = 0; k < 3; k++) {
    real r[3] = {p[k][0] - p0[0], p[k][1] - p0[1], p[k][2] - p0[2]};
    xy[2 * k] = cl_fpm_dot(E, r), xy[2 * k + 1] = cl_fpm_dot(E + 3, r);
  }
  return area2;
}

/* The DKT's curvature-rotation matrix B (3 x 9, over w, theta_x = dw/dy, theta_y = -dw/dx of each
 * corner) at the area coordinates (s, t) of corners 2 and 3 of the triangle with corners xy (Batoz,
 * Bathe & Ho 1980): the rotations of the normal are Hx . U and Hy . U with H built on the quadratic
 * shape functions N1..N6 (N4..N6 at the middles of the sides 23, 31, 12). */
CL_HD static inline void cl_fpm_dkt_b(const real *xy, real s, real t, real *B) {
  const real x[3] = {xy[0], xy[2], xy[4]}, y[3] = {xy[1], xy[3], xy[5]};
  const real x21 = x[1] - x[0], x31 = x[2] - x[0], y21 = y[1] - y[0], y31 = y[2] - y[0];
  const real det = x21 * y31 - x31 * y21; /* twice the area */
  /* k = 4, 5, 6 (index k - 4): the sides ij = 23, 31, 12, x_ij = x_i - x_j */
  const int si[3] = {1, 2, 0}, sj[3] = {2, 0, 1};
  real a[3], b[3], c[3], d[3], e[3];
  for (int k = 0; k < 3; k++) {
    const real xij = x[si[k]] - x[sj[k]], yij = y[si[k]] - y[sj[k]], inv_l2 = 1 / (xij * xij + yij * yij);
    a[k] = -xij * inv_l2, b[k] = (real)0.75 * xij * yij * inv_l2;
    c[k] = ((real)0.25 * xij * xij - (real)0.5 * yij * yij) * inv_l2;
    d[k] = -yij * inv_l2, e[k] = ((real)0.25 * yij * yij - (real)0.5 * xij * xij) * inv_l2;
  }
  const real l = 1 - s - t;
  /* derivatives of N1..N6 along s (dir 0) and t (dir 1) */
  const real dn[2][6] = {{1 - 4 * l, 4 * s - 1, 0, 4 * t, -4 * t, 4 * l - 4 * s},
                         {1 - 4 * l, 0, 4 * t - 1, 4 * s, 4 * l - 4 * t, -4 * s}};
  real hx[2][9], hy[2][9];
  for (int dir = 0; dir < 2; dir++) {
    const real *N = dn[dir];
    /* corner m (0..2) with the two sides through it: (previous, next) among k = 4, 5, 6 */
    for (int m = 0; m < 3; m++) {
      const int kp = (m + 1) % 3, kn = (m + 2) % 3; /* corner 1: sides 5 (31) and 6 (12) */
      const real Np = N[3 + kp], Nn = N[3 + kn];
      hx[dir][3 * m] = (real)1.5 * (a[kn] * Nn - a[kp] * Np);
      hx[dir][3 * m + 1] = b[kp] * Np + b[kn] * Nn;
      hx[dir][3 * m + 2] = N[m] - c[kp] * Np - c[kn] * Nn;
      hy[dir][3 * m] = (real)1.5 * (d[kn] * Nn - d[kp] * Np);
      hy[dir][3 * m + 1] = -N[m] + e[kp] * Np + e[kn] * Nn;
      hy[dir][3 * m + 2] = -hx[dir][3 * m + 1];
    }
  }
  const real inv_det = 1 / det;
  for (int j = 0; j < 9; j++) { /* d/dx = (y31 d/ds - y21 d/dt) / det, d/dy = (-x31 d/ds + x21 d/dt) / det */
    B[j] = (y31 * hx[0][j] - y21 * hx[1][j]) * inv_det;
    B[9 + j] = (-x31 * hy[0][j] + x21 * hy[1][j]) * inv_det;
    B[18 + j] = (-x31 * hx[0][j] + x21 * hx[1][j] + y31 * hy[0][j] - y21 * hy[1][j]) * inv_det;
  }
}

/* The section's resultants at in-plane point g of element e: membrane forces N and moments M (per
 * unit width) of the membrane strain eps and the curvature kappa; returns the elastic energy per unit
 * area. Elastic: N = t D eps, M = t^3/12 D kappa. J2: the strain eps + z kappa at `layers` Simpson
 * points z through the thickness (exact for the elastic section, and for a fully plastic one, whose
 * stress is constant on each half), each returned to the yield surface with its stored state. */
CL_HD static inline real cl_fpm_shell_section(const cl_fpm_shell_args *A, int plastic, size_t e, int g,
                                              const real *eps, const real *kappa, real *N, real *M) {
  const real h = (real)A->thickness, Ey = (real)A->E, nu = (real)A->nu, k0 = Ey / (1 - nu * nu);
  if (!plastic) {
    const real D[3] = {k0, k0 * nu, k0 * (1 - nu) / 2}, Db = h * h / 12;
    N[0] = h * (D[0] * eps[0] + D[1] * eps[1]), N[1] = h * (D[1] * eps[0] + D[0] * eps[1]), N[2] = h * D[2] * eps[2];
    M[0] = h * Db * (D[0] * kappa[0] + D[1] * kappa[1]), M[1] = h * Db * (D[1] * kappa[0] + D[0] * kappa[1]);
    M[2] = h * Db * D[2] * kappa[2];
    return (N[0] * eps[0] + N[1] * eps[1] + N[2] * eps[2] + M[0] * kappa[0] + M[1] * kappa[1] + M[2] * kappa[2]) / 2;
  }
  const int layers = A->layers;
  const real spacing = (real)1 / (layers - 1); /* of the Simpson points, in thicknesses */
  const size_t rows = (size_t)3 * layers * A->ne;
  real *state = (real *)A->plastic, energy = 0;
  for (int c = 0; c < 3; c++) N[c] = 0, M[c] = 0;
  for (int l = 0; l < layers; l++) {
    const real z = h * ((real)l * spacing - (real)0.5);
    const real w = h * spacing / 3 * (l == 0 || l == layers - 1 ? 1 : (l % 2 ? 4 : 2)); /* Simpson */
    const size_t r = ((size_t)g * layers + l) * A->ne + e;
    real ep[3] = {state[r], state[rows + r], state[2 * rows + r]}, alpha = state[3 * rows + r], sig[3];
    const real strain[3] = {eps[0] + z * kappa[0], eps[1] + z * kappa[1], eps[2] + z * kappa[2]};
    cl_fpm_j2_plane_stress(Ey, nu, (real)A->sy, (real)A->H, strain, ep, &alpha, sig);
    state[r] = ep[0], state[rows + r] = ep[1], state[2 * rows + r] = ep[2], state[3 * rows + r] = alpha;
    for (int c = 0; c < 3; c++) {
      N[c] += w * sig[c], M[c] += w * z * sig[c];
      energy += w * sig[c] * (strain[c] - ep[c]) / 2;
    }
  }
  return energy;
}

/* Element e's forces; plastic: whether A->plastic is set (the J2 section), a constant in a GPU kernel
 * built for one section, so that the elastic one leaves out the J2 return's registers. */
CL_HD static inline void cl_fpm_shell_element(const cl_fpm_shell_args *A, int plastic, size_t e) {
  const size_t n = A->n, ne = A->ne;
  const real *x0 = (const real *)A->x0, *d = (const real *)A->d, *q = (const real *)A->q;
  uint32_t p[3];
  real X[3][3], x[3][3];
  for (int k = 0; k < 3; k++) {
    p[k] = A->conn[k * ne + e];
    for (int c = 0; c < 3; c++) X[k][c] = x0[c * n + p[k]], x[k][c] = X[k][c] + d[c * n + p[k]];
  }
  real E0[9], E[9], XY[6], xy[6];
  const real area2 = cl_fpm_tri_frame(X[0], X[1], X[2], E0, XY);
  cl_fpm_tri_frame(x[0], x[1], x[2], E, xy);
  /* divisions are a dozen instructions each on a GPU in f64: the reciprocals once */
  const real area = area2 / 2, third = area / 3, inv_area2 = 1 / area2, h = (real)A->thickness, Ey = (real)A->E;
  /* membrane: the constant-strain triangle on the reference corners */
  real u[6];
  for (int k = 0; k < 6; k++) u[k] = xy[k] - XY[k];
  const real b[3] = {XY[3] - XY[5], XY[5] - XY[1], XY[1] - XY[3]}; /* y2 - y3, y3 - y1, y1 - y2 */
  const real c[3] = {XY[4] - XY[2], XY[0] - XY[4], XY[2] - XY[0]}; /* x3 - x2, x1 - x3, x2 - x1 */
  real eps[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    eps[0] += b[k] * u[2 * k] * inv_area2;
    eps[1] += c[k] * u[2 * k + 1] * inv_area2;
    eps[2] += (c[k] * u[2 * k] + b[k] * u[2 * k + 1]) * inv_area2;
  }
  /* bending: each corner's normal (the reference normal turned by the particle's rotation) in the
   * DCS gives its rotations about e1 and e2; the rotation about the normal (drilling) has no part in
   * them, so a drilling rotation, which nothing resists, cannot leak into the bending */
  real U[9], drill[3];
  for (int k = 0; k < 3; k++) {
    real Rp[9], qk[4], normal[3], axis[3];
    for (int cc = 0; cc < 4; cc++) qk[cc] = q[cc * n + p[k]];
    cl_fpm_quat_matrix(qk, Rp);
    cl_fpm_apply(Rp, E0 + 6, normal);
    const real nl[3] = {cl_fpm_dot(E, normal), cl_fpm_dot(E + 3, normal), cl_fpm_dot(E + 6, normal)};
    U[3 * k] = 0, U[3 * k + 1] = atan2(-nl[1], nl[2]), U[3 * k + 2] = atan2(nl[0], nl[2]);
    /* its drilling rotation: the turn of its reference e1 about the normal, seen in the DCS */
    cl_fpm_apply(Rp, E0, axis);
    drill[k] = atan2(cl_fpm_dot(E + 3, axis), cl_fpm_dot(E, axis));
  }
  /* membrane and bending at the DKT's 3 points (exact for its quadratic bending energy), in three
   * passes so that the DKT's 3 x 9 B of a point is not kept live across the (J2) section: the
   * curvatures, the sections' resultants, then the forces B^T M (B formed again). The membrane
   * strain is constant, its forces f = area B^T N with B = (b, c) / area2 */
  const real gauss[3][2] = {{(real)1 / 6, (real)1 / 6}, {(real)2 / 3, (real)1 / 6}, {(real)1 / 6, (real)2 / 3}};
  real kappa[3][3], N[3][3], M[3][3], energy = 0;
  for (int g = 0; g < 3; g++) {
    real B[27];
    cl_fpm_dkt_b(XY, gauss[g][0], gauss[g][1], B);
    for (int r = 0; r < 3; r++) {
      kappa[g][r] = 0;
      for (int j = 0; j < 9; j++) kappa[g][r] += B[9 * r + j] * U[j];
    }
  }
  for (int g = 0; g < 3; g++) energy += cl_fpm_shell_section(A, plastic, e, g, eps, kappa[g], N[g], M[g]) * third;
  real fl[3][3], ml[3][3], fb[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 3; k++) fl[k][0] = fl[k][1] = 0, ml[k][0] = ml[k][1] = ml[k][2] = 0;
  for (int g = 0; g < 3; g++) {
    real B[27];
    cl_fpm_dkt_b(XY, gauss[g][0], gauss[g][1], B);
    for (int j = 0; j < 9; j++) fb[j] += (B[j] * M[g][0] + B[9 + j] * M[g][1] + B[18 + j] * M[g][2]) * third;
    for (int k = 0; k < 3; k++) {
      fl[k][0] += (b[k] * N[g][0] + c[k] * N[g][2]) * ((real)1 / 6);
      fl[k][1] += (c[k] * N[g][1] + b[k] * N[g][2]) * ((real)1 / 6);
    }
  }
  /* a weak drilling spring against the element's own in-plane rotation w = (dv/dx - du/dy) / 2, so
   * that a particle's rotation about its normal neither drifts nor spins (k = E t^3 / 100: its
   * frequency stays below the membrane's, docs/methods/finite-particle.md) */
  real spin = 0;
  for (int k = 0; k < 3; k++) spin += (b[k] * u[2 * k + 1] - c[k] * u[2 * k]) * inv_area2 / 2;
  const real kd = Ey * h * h * h / 100;
  for (int k = 0; k < 3; k++) {
    const real Mz = kd * (drill[k] - spin);
    ml[k][2] = Mz;
    for (int j = 0; j < 3; j++) { /* d spin / d u_j = -c_j / (2 area2), d spin / d v_j = b_j / (2 area2) */
      fl[j][0] += Mz * c[j] * inv_area2 / 2;
      fl[j][1] -= Mz * b[j] * inv_area2 / 2;
    }
    energy += Mz * (drill[k] - spin) / 2;
  }
  for (int k = 0; k < 3; k++) fl[k][2] = fb[3 * k], ml[k][0] = fb[3 * k + 1], ml[k][1] = fb[3 * k + 2];
  for (int k = 0; k < 3; k++)
    for (int cc = 0; cc < 3; cc++) {
      const real fg = E[cc] * fl[k][0] + E[3 + cc] * fl[k][1] + E[6 + cc] * fl[k][2];
      const real mg = E[cc] * ml[k][0] + E[3 + cc] * ml[k][1] + E[6 + cc] * ml[k][2];
      cl_fpm_deposit(A->fe, 3 * ne, ne, e, k, A->f, n, p[k], cc, fg);
      cl_fpm_deposit(A->me, 3 * ne, ne, e, k, A->m, n, p[k], cc, mg);
    }
  if (A->energy) ((real *)A->energy)[e] = energy;
}

CL_HD static inline void cl_fpm_shell_at(const cl_fpm_shell_args *A, size_t e) {
  cl_fpm_shell_element(A, A->plastic != NULL, e);
}

CL_HD static inline void cl_fpm_pressure_at(const cl_fpm_pressure_args *A, size_t r) {
  const size_t e = A->rows[r], n = A->n, ne = A->ne;
  const real *x0 = (const real *)A->x0, *d = (const real *)A->d;
  real x[3][3];
  for (int k = 0; k < 3; k++) {
    const uint32_t p = A->conn[k * ne + e];
    for (int c = 0; c < 3; c++) x[k][c] = x0[c * n + p] + (d ? d[c * n + p] : 0);
  }
  real a[3], b[3], area_normal[3]; /* A n, from the cross product of two edges (2 A n) */
  for (int c = 0; c < 3; c++) a[c] = x[1][c] - x[0][c], b[c] = x[2][c] - x[0][c];
  cl_fpm_cross(a, b, area_normal);
  real *fext = (real *)A->fext;
  for (int k = 0; k < 3; k++)
    for (int c = 0; c < 3; c++) cl_fpm_add(&fext[c * n + A->conn[k * ne + e]], -(real)A->p * area_normal[c] / 6);
}

#endif
