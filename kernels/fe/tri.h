/* Element math of the linear (T3) and quadratic (T6) triangles: shape
 * functions, Gauss rules, Jacobian, strain-displacement matrix, plane
 * elasticity, stiffness, matrix-free internal force, lumped masses and stresses
 * at Gauss points, for explicit dynamics in 2D with a thickness (paper 000,
 * Alhadeff et al.: T3/T6 bulk elements, stiffness and lumped mass per element,
 * stresses at the three Gauss points of a T6).
 *
 * Conventions (textbook isoparametric triangles, e.g. Zienkiewicz & Taylor,
 * The Finite Element Method vol. 1, ch. 6; Cook et al., Concepts and
 * Applications of FEA, ch. 7):
 * - order 1 (T3, nn = 3 nodes) or 2 (T6, nn = 6);
 * - nodes: corners counter-clockwise, then the mid-side nodes of edges 0-1,
 *   1-2, 2-0; reference triangle (xi, eta) with corners (0,0), (1,0), (0,1);
 * - area coordinates L0 = 1 - xi - eta, L1 = xi, L2 = eta;
 * - node vectors interleaved: xe[2 nn] = (x0, y0, x1, y1, ...), likewise the
 *   displacements ue and forces fe; derivatives dN[2a + r] = dN_a / dxi_r
 *   (r = 0: xi, 1: eta), dNdx[2a + c] = dN_a / dx_c;
 * - Voigt order (xx, yy, xy), engineering shear gxy = dux/dy + duy/dx;
 * - Gauss weights are for the reference triangle (they sum to 1/2), so an
 *   integral over the element is sum_k w_k detJ_k.
 *
 * Every loop runs to nn = cl_tri_nodes(order) or to the number of Gauss
 * points; a caller that passes order as a literal makes them compile-time
 * constants once inlined, so the small arrays (sized for the T6) stay in
 * registers on the GPU (as `dim` in pd/point_force.h). */
#ifndef CL_FE_TRI_H
#define CL_FE_TRI_H

#include "../common/real.h"

#define CL_TRI_MAX_NODES 6
#define CL_TRI_MAX_DOFS 12 /* 2 per node */
#define CL_TRI_MAX_GAUSS 3

CL_HD static inline int cl_tri_nodes(const int order) { return order == 1 ? 3 : 6; }

/* Shape functions N[nn] and their derivatives dN[2 nn] at (xi, eta).
 * T3: N_a = L_a. T6: corners N_a = L_a (2 L_a - 1), mid-side node 3 + a of
 * edge a-b (b = a + 1 mod 3) N = 4 L_a L_b. */
CL_HD static inline void cl_tri_shape(const int order, real xi, real eta, real *N, real *dN) {
  const real L[3] = {1 - xi - eta, xi, eta};
  const real dL[3][2] = {{-1, -1}, {1, 0}, {0, 1}}; /* dL_a / dxi_r */
  for (int a = 0; a < 3; a++) {
    if (order == 1) {
      N[a] = L[a];
      for (int r = 0; r < 2; r++) dN[2 * a + r] = dL[a][r];
      continue;
    }
    const int b = a == 2 ? 0 : a + 1;
    N[a] = L[a] * (2 * L[a] - 1);
    N[3 + a] = 4 * L[a] * L[b];
    for (int r = 0; r < 2; r++) {
      dN[2 * a + r] = (4 * L[a] - 1) * dL[a][r];
      dN[2 * (3 + a) + r] = 4 * (dL[a][r] * L[b] + L[a] * dL[b][r]);
    }
  }
}

/* Gauss rules on the reference triangle: T3 the centroid (degree 1, exact
 * for its constant B^T D B); T6 the 3-point rule of degree 2 at
 * (1/6, 1/6), (2/3, 1/6), (1/6, 2/3), weights 1/6 (Strang & Fix 1973, table
 * 4.1), exact for the quadratic B^T D B of a straight-sided T6 and the
 * fewest points that keep its stiffness free of spurious zero-energy modes
 * (3 points x 3 strains = 12 dofs - 3 rigid modes). */
CL_HD static inline int cl_tri_ngauss(const int order) { return order == 1 ? 1 : 3; }

CL_HD static inline void cl_tri_gauss(const int order, int k, real *xi, real *eta, real *w) {
  if (order == 1) {
    *xi = *eta = (real)1 / 3;
    *w = (real)1 / 2;
    return;
  }
  *xi = k == 1 ? (real)2 / 3 : (real)1 / 6;
  *eta = k == 2 ? (real)2 / 3 : (real)1 / 6;
  *w = (real)1 / 6;
}

/* Jacobian J[r][c] = dx_c / dxi_r = sum_a dN[2a + r] xe[2a + c] from the
 * reference derivatives dN at a point; writes J^-1 (row-major 2x2, so that
 * dN/dx = J^-1 dN/dxi) and returns det J, twice the area of a T3. A
 * non-positive determinant (an inverted or collapsed element) must be checked
 * by the caller: the inverse is then meaningless (infinite for det J = 0). */
CL_HD static inline real cl_tri_jacobian(const int order, const real *xe, const real *dN, real *Jinv) {
  const int nn = cl_tri_nodes(order);
  real J[4] = {0, 0, 0, 0};
  for (int a = 0; a < nn; a++)
    for (int r = 0; r < 2; r++)
      for (int c = 0; c < 2; c++) J[2 * r + c] += dN[2 * a + r] * xe[2 * a + c];
  const real det = J[0] * J[3] - J[1] * J[2], inv = 1 / det;
  Jinv[0] = J[3] * inv, Jinv[1] = -J[1] * inv;
  Jinv[2] = -J[2] * inv, Jinv[3] = J[0] * inv;
  return det;
}

/* Physical shape function gradients dNdx[2 nn] at (xi, eta); returns det J.
 * The internal force and the stresses use these directly rather than B: B is
 * mostly zeros, and 36 of its entries would not fit the registers of a T6. */
CL_HD static inline real cl_tri_gradients(const int order, const real *xe, real xi, real eta, real *dNdx) {
  const int nn = cl_tri_nodes(order);
  real N[CL_TRI_MAX_NODES], dN[CL_TRI_MAX_DOFS], Jinv[4];
  cl_tri_shape(order, xi, eta, N, dN);
  const real det = cl_tri_jacobian(order, xe, dN, Jinv);
  for (int a = 0; a < nn; a++) {
    dNdx[2 * a] = Jinv[0] * dN[2 * a] + Jinv[1] * dN[2 * a + 1];
    dNdx[2 * a + 1] = Jinv[2] * dN[2 * a] + Jinv[3] * dN[2 * a + 1];
  }
  return det;
}

/* Strain-displacement matrix B[3][2 nn] (row-major, row stride 2 nn) at
 * (xi, eta), eps = B ue: node a's columns are
 *   [dNa/dx 0; 0 dNa/dy; dNa/dy dNa/dx]. Returns det J. */
CL_HD static inline real cl_tri_bmatrix(const int order, const real *xe, real xi, real eta, real *B) {
  const int nn = cl_tri_nodes(order), nd = 2 * nn;
  real g[CL_TRI_MAX_DOFS];
  const real det = cl_tri_gradients(order, xe, xi, eta, g);
  for (int a = 0; a < nn; a++) {
    B[2 * a] = g[2 * a], B[2 * a + 1] = 0;
    B[nd + 2 * a] = 0, B[nd + 2 * a + 1] = g[2 * a + 1];
    B[2 * nd + 2 * a] = g[2 * a + 1], B[2 * nd + 2 * a + 1] = g[2 * a];
  }
  return det;
}

/* eps = B ue from the gradients, without forming B. */
CL_HD static inline void cl_tri_strain(const int order, const real *dNdx, const real *ue, real *eps) {
  const int nn = cl_tri_nodes(order);
  eps[0] = eps[1] = eps[2] = 0;
  for (int a = 0; a < nn; a++) {
    eps[0] += dNdx[2 * a] * ue[2 * a];
    eps[1] += dNdx[2 * a + 1] * ue[2 * a + 1];
    eps[2] += dNdx[2 * a + 1] * ue[2 * a] + dNdx[2 * a] * ue[2 * a + 1];
  }
}

/* Isotropic plane elasticity D[3][3] (row-major), sigma = D eps:
 *   plane stress  E / (1 - nu^2) [1 nu 0; nu 1 0; 0 0 (1 - nu) / 2]
 *   plane strain  E / ((1 + nu)(1 - 2 nu)) [1-nu nu 0; nu 1-nu 0; 0 0 (1 - 2 nu) / 2]
 * Both are lambda' (tr eps) I + 2 mu eps with mu = E / (2 (1 + nu)) and
 * lambda' = 2 mu nu / (1 - 2 nu) (strain) or 2 mu nu / (1 - nu) (stress, the
 * condensation of sigma_zz = 0). */
CL_HD static inline void cl_tri_elasticity(real E, real nu, int plane_strain, real *D) {
  const real mu = E / (2 * (1 + nu));
  const real lambda = 2 * mu * nu / (plane_strain ? 1 - 2 * nu : 1 - nu);
  D[0] = D[4] = lambda + 2 * mu;
  D[1] = D[3] = lambda;
  D[2] = D[5] = D[6] = D[7] = 0;
  D[8] = mu;
}

CL_HD static inline void cl_tri_apply_d(const real *D, const real *eps, real *sigma) {
  for (int r = 0; r < 3; r++) sigma[r] = D[3 * r] * eps[0] + D[3 * r + 1] * eps[1] + D[3 * r + 2] * eps[2];
}

/* Stiffness K[2 nn][2 nn] (row-major) = t sum_k w_k detJ_k B_k^T D B_k. */
CL_HD static inline void cl_tri_stiffness(const int order, const real *xe, const real *D, real thickness, real *K) {
  const int nd = 2 * cl_tri_nodes(order);
  for (int i = 0; i < nd * nd; i++) K[i] = 0;
  for (int k = 0; k < cl_tri_ngauss(order); k++) {
    real xi, eta, w, B[3 * CL_TRI_MAX_DOFS], DB[3 * CL_TRI_MAX_DOFS];
    cl_tri_gauss(order, k, &xi, &eta, &w);
    const real scale = w * thickness * cl_tri_bmatrix(order, xe, xi, eta, B);
    for (int r = 0; r < 3; r++)
      for (int j = 0; j < nd; j++)
        DB[r * nd + j] = D[3 * r] * B[j] + D[3 * r + 1] * B[nd + j] + D[3 * r + 2] * B[2 * nd + j];
    for (int i = 0; i < nd; i++)
      for (int j = 0; j < nd; j++)
        K[i * nd + j] += scale * (B[i] * DB[j] + B[nd + i] * DB[nd + j] + B[2 * nd + i] * DB[2 * nd + j]);
  }
}

/* Gauss point k's share of the internal force, added to fe[2 nn]: the stress sigma = D B ue
 * there spread back as B^T sigma w detJ t. */
CL_HD static inline void cl_tri_internal_force_at(const int order, const real *xe, const real *D, real thickness,
                                                  const real *ue, int k, real *fe) {
  real xi, eta, w, g[CL_TRI_MAX_DOFS], eps[3], sig[3];
  cl_tri_gauss(order, k, &xi, &eta, &w);
  const real scale = w * thickness * cl_tri_gradients(order, xe, xi, eta, g);
  cl_tri_strain(order, g, ue, eps);
  cl_tri_apply_d(D, eps, sig);
  for (int a = 0; a < cl_tri_nodes(order); a++) {
    fe[2 * a] += scale * (g[2 * a] * sig[0] + g[2 * a + 1] * sig[2]);
    fe[2 * a + 1] += scale * (g[2 * a + 1] * sig[1] + g[2 * a] * sig[2]);
  }
}

/* Internal force fe[2 nn] = K ue without forming K: the sum of the Gauss points' shares. Same
 * sum as cl_tri_stiffness, in another order; it reads 2 nn displacements instead of (2 nn)^2
 * stored entries, the global-memory traffic that paper 000 found dominating its internal force
 * kernel. */
CL_HD static inline void cl_tri_internal_force(const int order, const real *xe, const real *D, real thickness,
                                               const real *ue, real *fe) {
  for (int i = 0; i < 2 * cl_tri_nodes(order); i++) fe[i] = 0;
  for (int k = 0; k < cl_tri_ngauss(order); k++) cl_tri_internal_force_at(order, xe, D, thickness, ue, k, fe);
}

/* 7-point rule of degree 5 (Dunavant 1985; Radon 1948): centroid, then
 * two orbits (a, a), (b, a), (a, b) with a = (6 -+ sqrt 15) / 21,
 * b = 1 - 2a; weights for the reference triangle (sum 1/2). Exact for the
 * degree-4 integrands N_a^2 detJ of a straight-sided T6 (a curved one's are
 * of degree 6, integrated closely but not exactly). */
CL_HD static inline void cl_tri_rule7(int k, real *xi, real *eta, real *w) {
  if (k == 0) {
    *xi = *eta = (real)1 / 3;
    *w = (real)9 / 80;
    return;
  }
  const real s = (k < 4 ? -1 : 1) * (real)3.872983346207417; /* sqrt 15 */
  const real a = (6 + s) / 21, b = 1 - 2 * a;
  const int j = (k - 1) % 3;
  *xi = j == 1 ? b : a;
  *eta = j == 2 ? b : a;
  *w = (155 + s) / 2400;
}

/* Lumped (diagonal) masses m[nn] of the element, summing to its mass
 * rho t area, by the HRZ scaling (Hinton, Rock & Zienkiewicz 1976): m_a
 * proportional to the consistent diagonal M_aa = rho t int N_a^2 dA, scaled
 * to the total mass. For the T6 the row sums of the consistent mass would
 * give the corners zero mass (int N_corner dA = 0), useless for explicit
 * dynamics; HRZ keeps every mass positive. A T3 gets a third at each node (its
 * diagonals are equal, as are its row sums), a straight-sided T6 3/57 at each
 * corner and 16/57 at each mid-side node (Cook et al., sec. 11.3). */
CL_HD static inline void cl_tri_lumped_mass(const int order, const real *xe, real rho, real thickness, real *m) {
  const int nn = cl_tri_nodes(order);
  real area = 0, diag[CL_TRI_MAX_NODES], sum = 0;
  for (int a = 0; a < nn; a++) diag[a] = 0;
  for (int k = 0; k < 7; k++) {
    real xi, eta, w, N[CL_TRI_MAX_NODES], dN[CL_TRI_MAX_DOFS], Jinv[4];
    cl_tri_rule7(k, &xi, &eta, &w);
    cl_tri_shape(order, xi, eta, N, dN);
    const real wdet = w * cl_tri_jacobian(order, xe, dN, Jinv);
    area += wdet;
    for (int a = 0; a < nn; a++) diag[a] += N[a] * N[a] * wdet;
  }
  for (int a = 0; a < nn; a++) sum += diag[a];
  for (int a = 0; a < nn; a++) m[a] = rho * thickness * area * diag[a] / sum;
}

/* Stress sigma[3] = D B ue at Gauss point k; returns det J there. */
CL_HD static inline real cl_tri_stress_at_gauss(const int order, const real *xe, const real *D, const real *ue, int k,
                                                real *sigma) {
  real xi, eta, w, g[CL_TRI_MAX_DOFS], eps[3];
  cl_tri_gauss(order, k, &xi, &eta, &w);
  const real det = cl_tri_gradients(order, xe, xi, eta, g);
  cl_tri_strain(order, g, ue, eps);
  cl_tri_apply_d(D, eps, sigma);
  return det;
}

#endif
