/* Shi's DDA block (1988): first-order displacement of a 2D block, six unknowns
 *   D = (u0, v0, r0, ex, ey, gxy)
 * about its centroid (x0, y0): with X = x - x0, Y = y - y0
 *   u(x, y) = u0 - Y r0 + X ex + Y gxy / 2
 *   v(x, y) = v0 + X r0 + Y ey + X gxy / 2
 * i.e. (u, v) = T(x, y) D. Each entry of T is a linear function c + a X + b Y,
 * so every integral over the block reduces to the polygon's area and central
 * second moments (the first central moments vanish), computed in closed form
 * by simplex integration over the triangles (v0, vk, vk+1).
 *
 * The diagonal 6x6 submatrix of block i and its right-hand side (the
 * minimum of the step's potential energy):
 *   elastic         K += S E                      (rows/cols 3..5, E plane stress or strain)
 *   initial stress  F -= S sigma                  (rows 3..5, the stress accumulated so far)
 *   inertia         K += 2 rho / dt^2 M,  F += 2 rho / dt M v   (M = int T^T T dA)
 *   body force      F += rho g S                  (rows 0..1)
 *   fixed point     K += p T^T T,  F += p T^T (x_target - x)    (penalty p at the point)
 *   loading point   F += T^T P
 * With constant acceleration over the step, d = dt v + dt^2 a / 2 and v' = 2 d / dt - v
 * (Shi's time integration), exact for a free body under constant load. */
#ifndef CL_DDA_BLOCK_H
#define CL_DDA_BLOCK_H

#include "../common/real.h"

/* Area and central moments of a block: S, Sxx = int X^2, Syy = int Y^2, Sxy = int X Y, centroid. */
typedef struct cl_dda_moments {
  double S, Sxx, Syy, Sxy, x0, y0;
} cl_dda_moments;

/* Closed-form moments of the polygon (x[k], y[k]), k < m, counter-clockwise; coordinates are
 * taken relative to the first vertex so that blocks far from the origin keep their digits. */
CL_HD static inline cl_dda_moments cl_dda_polygon_moments(const real *x, const real *y, int m) {
  double ox = x[0], oy = y[0], a = 0, sx = 0, sy = 0, ixx = 0, iyy = 0, ixy = 0;
  for (int k = 0; k < m; k++) {
    int l = k + 1 == m ? 0 : k + 1;
    double x1 = x[k] - ox, y1 = y[k] - oy, x2 = x[l] - ox, y2 = y[l] - oy;
    double c = x1 * y2 - x2 * y1;
    a += c;
    sx += c * (x1 + x2);
    sy += c * (y1 + y2);
    ixx += c * (x1 * x1 + x1 * x2 + x2 * x2);
    iyy += c * (y1 * y1 + y1 * y2 + y2 * y2);
    ixy += c * (x1 * y2 + 2 * x1 * y1 + 2 * x2 * y2 + x2 * y1);
  }
  cl_dda_moments mo;
  mo.S = a / 2;
  double cx = sx / (3 * a), cy = sy / (3 * a); /* (sx / 6) / S */
  mo.Sxx = ixx / 12 - mo.S * cx * cx;
  mo.Syy = iyy / 12 - mo.S * cy * cy;
  mo.Sxy = ixy / 24 - mo.S * cx * cy;
  mo.x0 = ox + cx;
  mo.y0 = oy + cy;
  return mo;
}

/* T's entries as (c, a, b): T[r][k] = c + a X + b Y. */
CL_HD static inline void cl_dda_t_coeffs(int r, int k, double *c, double *a, double *b) {
  /* row 0: 1, 0, -Y, X, 0, Y/2;  row 1: 0, 1, X, 0, Y, X/2 (no static tables: device code) */
  *c = k == r ? 1 : 0;
  if (r == 0) *a = k == 3 ? 1 : 0, *b = k == 2 ? -1 : k == 5 ? 0.5 : 0;
  else *a = k == 2 ? 1 : k == 5 ? 0.5 : 0, *b = k == 4 ? 1 : 0;
}

/* T at the point (X, Y) relative to the centroid: t[0..5] row 0, t[6..11] row 1. */
CL_HD static inline void cl_dda_t_at(double X, double Y, double t[12]) {
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 6; k++) {
      double c, a, b;
      cl_dda_t_coeffs(r, k, &c, &a, &b);
      t[6 * r + k] = c + a * X + b * Y;
    }
}

/* M = int T^T T dA (row-major 6x6) from the moments. */
CL_HD static inline void cl_dda_mass_integral(const cl_dda_moments *mo, double M[36]) {
  for (int k = 0; k < 6; k++)
    for (int l = 0; l < 6; l++) {
      double s = 0;
      for (int r = 0; r < 2; r++) {
        double c1, a1, b1, c2, a2, b2;
        cl_dda_t_coeffs(r, k, &c1, &a1, &b1);
        cl_dda_t_coeffs(r, l, &c2, &a2, &b2);
        s += c1 * c2 * mo->S + a1 * a2 * mo->Sxx + b1 * b2 * mo->Syy + (a1 * b2 + a2 * b1) * mo->Sxy;
      }
      M[6 * k + l] = s;
    }
}

/* The 3x3 elastic matrix (row-major) of plane stress (plane_strain = 0) or plane strain. */
CL_HD static inline void cl_dda_elastic_matrix(double E, double nu, int plane_strain, double C[9]) {
  double e = plane_strain ? E / ((1 + nu) * (1 - 2 * nu)) : E / (1 - nu * nu);
  double n = plane_strain ? 1 - nu : 1, off = nu, g = plane_strain ? (1 - 2 * nu) / 2 : (1 - nu) / 2;
  C[0] = e * n, C[1] = e * off, C[2] = 0;
  C[3] = e * off, C[4] = e * n, C[5] = 0;
  C[6] = 0, C[7] = 0, C[8] = e * g;
}

/* K += w t^T t and F += w_f t^T f for a point with T-rows t (cl_dda_t_at). */
CL_HD static inline void cl_dda_point_spring(const double t[12], double w, double K[36]) {
  for (int k = 0; k < 6; k++)
    for (int l = 0; l < 6; l++) K[6 * k + l] += w * (t[k] * t[l] + t[6 + k] * t[6 + l]);
}

CL_HD static inline void cl_dda_point_force(const double t[12], double fx, double fy, double F[6]) {
  for (int k = 0; k < 6; k++) F[k] += t[k] * fx + t[6 + k] * fy;
}

#endif
