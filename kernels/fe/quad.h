/* Element math of the tensor-product Lagrange quadrilaterals of order p = 1, 2, 3 (Q4, Q9,
 * Q16): shape functions and their derivatives, and the (p+1) x (p+1) Gauss-Legendre rule, the
 * rule of paper 002 (Devloo et al.: (p+1)^2 points) that integrates the stiffness of an affine
 * element exactly.
 *
 * Conventions:
 * - reference square (xi, eta) in [-1, 1]^2; the 1D nodes t_i = -1 + 2 i / p are equally
 *   spaced, i = 0..p;
 * - nodes in lexicographic order: node a = i + (p + 1) j sits at (t_i, t_j), so a Q4 is
 *   numbered 0 (-1,-1), 1 (1,-1), 2 (-1,1), 3 (1,1) -- not the corner cycle of Gmsh or VTK;
 *   readers of those formats map their numbering onto this one;
 * - N_a = l_i(xi) l_j(eta) with l_i the 1D Lagrange polynomial of node i;
 * - derivatives dN[2a + r] = dN_a / dxi_r as in tri.h, so kernels/fe/element.h treats both
 *   shapes alike. */
#ifndef CL_FE_QUAD_H
#define CL_FE_QUAD_H

#include "../common/real.h"

#define CL_QUAD_MAX_NODES 16
#define CL_QUAD_MAX_DOFS 32
#define CL_QUAD_MAX_GAUSS 16

CL_HD static inline int cl_quad_nodes(const int order) { return (order + 1) * (order + 1); }
CL_HD static inline int cl_quad_ngauss(const int order) { return (order + 1) * (order + 1); }

/* The 1D Lagrange polynomials l[i] of order p on the equally spaced nodes and their
 * derivatives dl[i] at t (product form; p <= 3). */
CL_HD static inline void cl_lagrange_1d(const int order, real t, real *l, real *dl) {
  real node[4];
  for (int i = 0; i <= order; i++) node[i] = -1 + (real)(2 * i) / order;
  for (int i = 0; i <= order; i++) {
    real value = 1, slope = 0;
    for (int j = 0; j <= order; j++) {
      if (j == i) continue;
      const real inv = 1 / (node[i] - node[j]);
      slope = slope * (t - node[j]) * inv + value * inv; /* product rule, one factor at a time */
      value *= (t - node[j]) * inv;
    }
    l[i] = value, dl[i] = slope;
  }
}

/* Shape functions N[(p+1)^2] and reference derivatives dN[2 (p+1)^2] at (xi, eta). */
CL_HD static inline void cl_quad_shape(const int order, real xi, real eta, real *N, real *dN) {
  real lx[4], dlx[4], ly[4], dly[4];
  cl_lagrange_1d(order, xi, lx, dlx);
  cl_lagrange_1d(order, eta, ly, dly);
  for (int j = 0; j <= order; j++)
    for (int i = 0; i <= order; i++) {
      const int a = i + (order + 1) * j;
      N[a] = lx[i] * ly[j];
      dN[2 * a] = dlx[i] * ly[j];
      dN[2 * a + 1] = lx[i] * dly[j];
    }
}

/* Gauss-Legendre point k of the n-point rule on [-1, 1] (n = 1..4; Abramowitz & Stegun
 * table 25.4), with its weight. */
CL_HD static inline void cl_gauss_legendre(const int n, int k, real *t, real *w) {
  const real sign = k < n / 2 ? -1 : 1;
  const int m = k < n / 2 ? k : n - 1 - k; /* mirror image of the point in the lower half */
  if (n == 1) *t = 0, *w = 2;
  else if (n == 2) *t = sign * (real)0.57735026918962576, *w = 1;
  else if (n == 3) {
    if (k == 1) *t = 0, *w = (real)8 / 9;
    else *t = sign * (real)0.77459666924148338, *w = (real)5 / 9;
  } else {
    *t = sign * (m == 0 ? (real)0.86113631159405258 : (real)0.33998104358485626);
    *w = m == 0 ? (real)0.34785484513745386 : (real)0.65214515486254614;
  }
}

/* Gauss point k of the (p+1) x (p+1) rule: k = i + (p + 1) j at (t_i, t_j), weight w_i w_j
 * (they sum to 4, the reference area). */
CL_HD static inline void cl_quad_gauss(const int order, int k, real *xi, real *eta, real *w) {
  real wx, wy;
  cl_gauss_legendre(order + 1, k % (order + 1), xi, &wx);
  cl_gauss_legendre(order + 1, k / (order + 1), eta, &wy);
  *w = wx * wy;
}

#endif
