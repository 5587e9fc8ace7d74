/* Sum factorization on the tensor-product quadrilaterals of quad.h: an element's reference
 * gradients at its (p+1)^2 Gauss points, and the transpose (its nodal forces from the points'
 * reference fluxes), each as two passes of a 1D contraction, O((p+1)^3) operations per element
 * instead of the O((p+1)^4) of every point's shape-function gradients (cl_fe_gradients).
 *
 * A pass is a function of one output index m = i + (p+1) j (m < (p+1)^2, which counts the nodes
 * and the Gauss points alike), so that a GPU runs one thread per index and the CPU a loop over
 * them: the same arithmetic on both. An element's nodal arrays hold entry i at i stride, its pass
 * arrays value c of index m at (c (p+1)^2 + m) stride (stride 1: the CPU's own arrays; a GPU block's
 * shared arrays hold its elements side by side, and a warp's threads, consecutive elements and then
 * consecutive indices, then write consecutive words whatever the number of elements a block holds).
 *
 * Tables: L[q (p+1) + n] = l_n(t_q) and dL[q (p+1) + n] = l_n'(t_q), the 1D Lagrange polynomials
 * of the nodes at the Gauss-Legendre points t_q. The nodal fields, per node a: xe[2a], xe[2a+1]
 * (coordinates) and du[2a], du[2a+1] (displacement increment), interleaved as element.h. */
#ifndef CL_FE_QUAD_SUM_H
#define CL_FE_QUAD_SUM_H

#include "quad.h"

/* row q of the tables (p + 1 entries of each) */
CL_HD static inline void cl_quad_sum_table_row(const int order, int q, real *L, real *dL) {
  real t, w;
  cl_gauss_legendre(order + 1, q, &t, &w);
  cl_lagrange_1d(order, t, L + q * (order + 1), dL + q * (order + 1));
}

/* First pass, index m = qi + (p+1) nj: the four nodal fields (x, y, du_x, du_y) of node row nj
 * interpolated (value c of s1) and differentiated (value 4 + c) in xi at Gauss abscissa qi; 8 values. */
CL_HD static inline void cl_quad_sum_xi(const int order, int m, const real *L, const real *dL, const real *xe,
                                        const real *du, const int stride, real *s1) {
  const int p1 = order + 1, qi = m % p1, nj = m / p1;
  real v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int ni = 0; ni < p1; ni++) {
    const int a = ni + p1 * nj;
    const real l = L[qi * p1 + ni], dl = dL[qi * p1 + ni];
    const real f[4] = {xe[2 * a * stride], xe[(2 * a + 1) * stride], du[2 * a * stride], du[(2 * a + 1) * stride]};
    for (int c = 0; c < 4; c++) v[c] += l * f[c], v[4 + c] += dl * f[c];
  }
  for (int c = 0; c < 8; c++) s1[(c * p1 * p1 + m) * stride] = v[c];
}

/* Second pass, Gauss point k = qi + (p+1) qj: the Jacobian J[2r + c] = dx_c / dxi_r (as
 * cl_fe_gradients) and the reference gradient of the displacement increment gu[2r + c] = d du_c / dxi_r */
CL_HD static inline void cl_quad_sum_eta(const int order, int k, const real *L, const real *dL, const real *s1,
                                         const int stride, real *J, real *gu) {
  const int p1 = order + 1, nn = p1 * p1, qi = k % p1, qj = k / p1;
  real dxi[4] = {0, 0, 0, 0}, deta[4] = {0, 0, 0, 0};
  for (int nj = 0; nj < p1; nj++) {
    const int m = qi + p1 * nj;
    const real l = L[qj * p1 + nj], dl = dL[qj * p1 + nj];
    for (int c = 0; c < 4; c++)
      dxi[c] += l * s1[((4 + c) * nn + m) * stride], deta[c] += dl * s1[(c * nn + m) * stride];
  }
  J[0] = dxi[0], J[1] = dxi[1], J[2] = deta[0], J[3] = deta[1];
  gu[0] = dxi[2], gu[1] = dxi[3], gu[2] = deta[2], gu[3] = deta[3];
}

/* The strain (xx, yy, xy engineering) of the reference gradient gu through J^-1; returns det J */
CL_HD static inline real cl_quad_sum_strain(const real *J, const real *gu, real *eps) {
  const real det = J[0] * J[3] - J[1] * J[2], inv = 1 / det;
  /* d du_c / dx_d = sum_r (J^-1)_dr gu[2r + c]: J^-1 = inv (J3, -J1; -J2, J0) */
  const real uxx = inv * (J[3] * gu[0] - J[1] * gu[2]), uxy = inv * (-J[2] * gu[0] + J[0] * gu[2]);
  const real uyx = inv * (J[3] * gu[1] - J[1] * gu[3]), uyy = inv * (-J[2] * gu[1] + J[0] * gu[3]);
  eps[0] = uxx, eps[1] = uyy, eps[2] = uxy + uyx;
  return det;
}

/* The reference flux of Gauss point k for the stress sig (xx, yy, xy) and the weight w t (w_k det J t
 * divided by det J, which J^-1 brings back): force component c of node a is the sum over the points of
 * grad_xi N_a . g_c, g_c = w t det J J^-T (sig row c); value 2c + r of s2 at k is g_c[r] */
CL_HD static inline void cl_quad_sum_flux(const int order, int k, const real *J, const real *sig, real wt,
                                          const int stride, real *s2) {
  const int nn = (order + 1) * (order + 1);
  const real row[2][2] = {{sig[0], sig[2]}, {sig[2], sig[1]}};
  for (int c = 0; c < 2; c++) {
    s2[(2 * c * nn + k) * stride] = wt * (J[3] * row[c][0] - J[2] * row[c][1]);
    s2[((2 * c + 1) * nn + k) * stride] = wt * (-J[1] * row[c][0] + J[0] * row[c][1]);
  }
}

/* Third pass, index m = ni + (p+1) qj: the fluxes of Gauss row qj contracted in xi onto node column ni,
 * value 2c of s3 with dl_ni for g_c[0], value 2c + 1 with l_ni for g_c[1] */
CL_HD static inline void cl_quad_sum_flux_xi(const int order, int m, const real *L, const real *dL, const real *s2,
                                             const int stride, real *s3) {
  const int p1 = order + 1, nn = p1 * p1, ni = m % p1, qj = m / p1;
  real v[4] = {0, 0, 0, 0};
  for (int qi = 0; qi < p1; qi++) {
    const int k = qi + p1 * qj;
    const real l = L[qi * p1 + ni], dl = dL[qi * p1 + ni];
    for (int c = 0; c < 2; c++)
      v[2 * c] += dl * s2[(2 * c * nn + k) * stride], v[2 * c + 1] += l * s2[((2 * c + 1) * nn + k) * stride];
  }
  for (int c = 0; c < 4; c++) s3[(c * nn + m) * stride] = v[c];
}

/* Fourth pass, node a = ni + (p+1) nj: its force f[2] (x, y), the third pass contracted in eta */
CL_HD static inline void cl_quad_sum_force(const int order, int a, const real *L, const real *dL, const real *s3,
                                           const int stride, real *f) {
  const int p1 = order + 1, nn = p1 * p1, ni = a % p1, nj = a / p1;
  f[0] = f[1] = 0;
  for (int qj = 0; qj < p1; qj++) {
    const int m = ni + p1 * qj;
    const real l = L[qj * p1 + nj], dl = dL[qj * p1 + nj];
    for (int c = 0; c < 2; c++) f[c] += l * s3[(2 * c * nn + m) * stride] + dl * s3[((2 * c + 1) * nn + m) * stride];
  }
}

#endif
