/* One interface over the 2D elements of the FE methods: the triangles of tri.h (T3, T6) and
 * the Lagrange quadrilaterals of quad.h (Q4, Q9, Q16), chosen by a shape and an order. The
 * quasi-static FE (kernels/fe_ep/) integrates any of them with these functions; tri.h keeps
 * its own specialised versions for the explicit cohesive FEM.
 *
 * Conventions as tri.h: node vectors interleaved (xe[2 nn] = x0, y0, x1, y1, ...), physical
 * gradients dNdx[2a + c] = dN_a / dx_c, Voigt (xx, yy, xy) with engineering shear. */
#ifndef CL_FE_ELEMENT_H
#define CL_FE_ELEMENT_H

#include "quad.h"
#include "tri.h"

enum { CL_FE_TRI = 0, CL_FE_QUAD = 1 };

#define CL_FE_MAX_NODES CL_QUAD_MAX_NODES
#define CL_FE_MAX_DOFS CL_QUAD_MAX_DOFS
#define CL_FE_MAX_GAUSS CL_QUAD_MAX_GAUSS

CL_HD static inline int cl_fe_nodes(const int shape, const int order) {
  return shape == CL_FE_QUAD ? cl_quad_nodes(order) : cl_tri_nodes(order);
}

CL_HD static inline int cl_fe_ngauss(const int shape, const int order) {
  return shape == CL_FE_QUAD ? cl_quad_ngauss(order) : cl_tri_ngauss(order);
}

CL_HD static inline void cl_fe_gauss(const int shape, const int order, int k, real *xi, real *eta, real *w) {
  if (shape == CL_FE_QUAD) cl_quad_gauss(order, k, xi, eta, w);
  else cl_tri_gauss(order, k, xi, eta, w);
}

CL_HD static inline void cl_fe_shape(const int shape, const int order, real xi, real eta, real *N, real *dN) {
  if (shape == CL_FE_QUAD) cl_quad_shape(order, xi, eta, N, dN);
  else cl_tri_shape(order, xi, eta, N, dN);
}

/* Physical gradients dNdx[2 nn] at (xi, eta), returns det J (dx/dxi); a non-positive
 * determinant (inverted or collapsed element) is the caller's to check, as in tri.h. */
CL_HD static inline real cl_fe_gradients(const int shape, const int order, const real *xe, real xi, real eta,
                                         real *dNdx) {
  const int nn = cl_fe_nodes(shape, order);
  real N[CL_FE_MAX_NODES], dN[CL_FE_MAX_DOFS], J[4] = {0, 0, 0, 0};
  cl_fe_shape(shape, order, xi, eta, N, dN);
  for (int a = 0; a < nn; a++)
    for (int r = 0; r < 2; r++)
      for (int c = 0; c < 2; c++) J[2 * r + c] += dN[2 * a + r] * xe[2 * a + c];
  const real det = J[0] * J[3] - J[1] * J[2], inv = 1 / det;
  for (int a = 0; a < nn; a++) {
    dNdx[2 * a] = inv * (J[3] * dN[2 * a] - J[1] * dN[2 * a + 1]);
    dNdx[2 * a + 1] = inv * (-J[2] * dN[2 * a] + J[0] * dN[2 * a + 1]);
  }
  return det;
}

/* eps[3] = B ue from the gradients, without forming B. */
CL_HD static inline void cl_fe_strain(const int nn, const real *dNdx, const real *ue, real *eps) {
  eps[0] = eps[1] = eps[2] = 0;
  for (int a = 0; a < nn; a++) {
    eps[0] += dNdx[2 * a] * ue[2 * a];
    eps[1] += dNdx[2 * a + 1] * ue[2 * a + 1];
    eps[2] += dNdx[2 * a + 1] * ue[2 * a] + dNdx[2 * a] * ue[2 * a + 1];
  }
}

/* fe[i stride] += scale (B^T sig[3])_i, i < 2 nn (sig in Voigt xx, yy, xy); stride 1: contiguous. */
CL_HD static inline void cl_fe_add_btsig_strided(const int nn, const real *dNdx, const real *sig, real scale, real *fe,
                                                 const int stride) {
  for (int a = 0; a < nn; a++) {
    fe[2 * a * stride] += scale * (dNdx[2 * a] * sig[0] + dNdx[2 * a + 1] * sig[2]);
    fe[(2 * a + 1) * stride] += scale * (dNdx[2 * a + 1] * sig[1] + dNdx[2 * a] * sig[2]);
  }
}

/* fe[2 nn] += scale B^T sig[3] (sig in Voigt xx, yy, xy). */
CL_HD static inline void cl_fe_add_btsig(const int nn, const real *dNdx, const real *sig, real scale, real *fe) {
  cl_fe_add_btsig_strided(nn, dNdx, sig, scale, fe, 1);
}

/* One row of Ke[2 nn][2 nn] (row[2 nn]) += scale (B^T D B)_row, D[3][3] row-major: the row of dof x
 * (ydof = 0) or y (1) of the node whose gradient is (ax, ay). The gradient comes as values, not as
 * an index into dNdx: a GPU thread per row would index its array at run time (local memory). */
CL_HD static inline void cl_fe_add_btdb_row(const int nn, const real *dNdx, const real *D, real scale, const real ax,
                                            const real ay, const int ydof, real *row) {
  /* the row of B^T: dof x = (ax, 0, ay), dof y = (0, ay, ax); times D */
  real d[3];
  for (int c = 0; c < 3; c++) d[c] = ydof ? ay * D[3 + c] + ax * D[6 + c] : ax * D[c] + ay * D[6 + c];
  for (int b = 0; b < nn; b++) {
    const real bx = dNdx[2 * b], by = dNdx[2 * b + 1];
    row[2 * b] += scale * (d[0] * bx + d[2] * by);
    row[2 * b + 1] += scale * (d[1] * by + d[2] * bx);
  }
}

/* Ke[2 nn][2 nn] (row-major) += scale B^T D B, D[3][3] row-major. */
CL_HD static inline void cl_fe_add_btdb(const int nn, const real *dNdx, const real *D, real scale, real *Ke) {
  for (int r = 0; r < 2 * nn; r++)
    cl_fe_add_btdb_row(nn, dNdx, D, scale, dNdx[r & ~1], dNdx[r | 1], r & 1, Ke + r * 2 * nn);
}

#endif
