/* The per-block kernels of a DDA step, one thread (or loop iteration) per
 * block, written once for both backends (block.h has the formulation):
 *   cl_dda_diagonal_block: moments, the diagonal 6x6 submatrix and the right-hand side;
 *   cl_dda_update_block:   vertices, fixed and loading points, stresses, velocities and rotation
 *   cl_dda_predict_block:  a dynamic step's start from the last step's acceleration
 *                          moved by the accepted solution D;
 *   cl_dda_check_block:    what the step checks of a solution before it accepts it. */
#ifndef CL_DDA_DIAGONAL_H
#define CL_DDA_DIAGONAL_H

#include "block.h"
#include "block_args.h"

CL_HD static inline void cl_dda_diagonal_block(const cl_dda_block_args *a, size_t i) {
  size_t n = a->n;
  const real *vx = (const real *)a->vx, *vy = (const real *)a->vy;
  int v0 = a->vstart[i], m = a->vstart[i + 1] - v0;
  cl_dda_moments mo = cl_dda_polygon_moments(vx + v0, vy + v0, m);
  real *mom = (real *)a->moments;
  mom[i] = (real)mo.S, mom[n + i] = (real)mo.Sxx, mom[2 * n + i] = (real)mo.Syy;
  mom[3 * n + i] = (real)mo.Sxy, mom[4 * n + i] = (real)mo.x0, mom[5 * n + i] = (real)mo.y0;
  if (a->mass) ((real *)a->mass)[i] = (real)(((const real *)a->rho)[i] * mom[i]);

  double K[36], F[6], M[36], C[9];
  double rho = ((const real *)a->rho)[i];
  const real *sig = (const real *)a->stress, *vel = (const real *)a->vel;
  cl_dda_mass_integral(&mo, M);
  double mk = 2 * rho / (a->dt * a->dt), mf = 2 * rho / a->dt;
  for (int k = 0; k < 6; k++) {
    F[k] = 0;
    for (int l = 0; l < 6; l++) {
      K[6 * k + l] = mk * M[6 * k + l];
      F[k] += mf * M[6 * k + l] * vel[l * n + i];
    }
  }
  cl_dda_elastic_matrix(((const real *)a->E)[i], ((const real *)a->nu)[i], a->plane_strain, C);
  for (int k = 0; k < 3; k++) {
    for (int l = 0; l < 3; l++) K[6 * (3 + k) + 3 + l] += mo.S * C[3 * k + l];
    F[3 + k] -= mo.S * sig[k * n + i];
  }
  F[0] += rho * a->gx * mo.S;
  F[1] += rho * a->gy * mo.S;

  double t[12];
  const real *fx = (const real *)a->fx, *fy = (const real *)a->fy;
  const real *ftx = (const real *)a->ftx, *fty = (const real *)a->fty;
  for (int p = a->fstart[i]; p < a->fstart[i + 1]; p++) {
    cl_dda_t_at(fx[p] - mo.x0, fy[p] - mo.y0, t);
    cl_dda_point_spring(t, a->fixed_penalty, K);
    /* pulls the point back to its first position: no drift over many steps */
    cl_dda_point_force(t, a->fixed_penalty * (ftx[p] - fx[p]), a->fixed_penalty * (fty[p] - fy[p]), F);
  }
  const real *lx = (const real *)a->lx, *ly = (const real *)a->ly;
  const real *lpx = (const real *)a->lpx, *lpy = (const real *)a->lpy;
  for (int p = a->lstart[i]; p < a->lstart[i + 1]; p++) {
    cl_dda_t_at(lx[p] - mo.x0, ly[p] - mo.y0, t);
    cl_dda_point_force(t, lpx[p], lpy[p], F);
  }
  real *Ko = (real *)a->K + 36 * i, *Fo = (real *)a->F;
  for (int k = 0; k < 36; k++) Ko[k] = (real)K[k];
  for (int k = 0; k < 6; k++) Fo[k * n + i] = (real)F[k];
}

/* Moves the point (x, y) of a block by its displacement T D. The rotation r0 moves points on
 * the circle (cos, sin) rather than along the tangent, Shi's post-correction that keeps a
 * spinning block from growing. */
CL_HD static inline void cl_dda_move_point(const double d[6], double x0, double y0, real *x, real *y) {
  double X = *x - x0, Y = *y - y0, c = cos(d[2]), s = sin(d[2]);
  double ux = d[0] + (c - 1) * X - s * Y + X * d[3] + Y * d[5] / 2;
  double uy = d[1] + s * X + (c - 1) * Y + Y * d[4] + X * d[5] / 2;
  *x = (real)(*x + ux), *y = (real)(*y + uy);
}

CL_HD static inline void cl_dda_update_block(const cl_dda_block_args *a, size_t i) {
  size_t n = a->n;
  const real *mom = (const real *)a->moments, *Dv = (const real *)a->D;
  double x0 = mom[4 * n + i], y0 = mom[5 * n + i], d[6], rho = ((const real *)a->rho)[i];
  for (int k = 0; k < 6; k++) d[k] = Dv[k * n + i];
  real *energy = (real *)a->energy;
  if (energy) { /* the work of gravity and of the loads, at the loading points before they move */
    const real *lx = (const real *)a->lx, *ly = (const real *)a->ly;
    const real *lpx = (const real *)a->lpx, *lpy = (const real *)a->lpy;
    double load = 0;
    for (int p = a->lstart[i]; p < a->lstart[i + 1]; p++) {
      double t[12], ux = 0, uy = 0;
      cl_dda_t_at(lx[p] - x0, ly[p] - y0, t);
      for (int k = 0; k < 6; k++) ux += t[k] * d[k], uy += t[6 + k] * d[k];
      load += lpx[p] * ux + lpy[p] * uy;
    }
    energy[i] = (real)(rho * mom[i] * (a->gx * d[0] + a->gy * d[1])), energy[n + i] = (real)load;
  }
  real *vx = (real *)a->vx, *vy = (real *)a->vy;
  for (int v = a->vstart[i]; v < a->vstart[i + 1]; v++) cl_dda_move_point(d, x0, y0, vx + v, vy + v);
  real *fx = (real *)a->fx, *fy = (real *)a->fy, *lx = (real *)a->lx, *ly = (real *)a->ly;
  for (int p = a->fstart[i]; p < a->fstart[i + 1]; p++) cl_dda_move_point(d, x0, y0, fx + p, fy + p);
  for (int p = a->lstart[i]; p < a->lstart[i + 1]; p++) cl_dda_move_point(d, x0, y0, lx + p, ly + p);
  double C[9];
  cl_dda_elastic_matrix(((const real *)a->E)[i], ((const real *)a->nu)[i], a->plane_strain, C);
  real *sig = (real *)a->stress, *vel = (real *)a->vel;
  ((real *)a->rotation)[i] += (real)d[2];
  for (int k = 0; k < 3; k++)
    sig[k * n + i] += (real)(C[3 * k] * d[3] + C[3 * k + 1] * d[4] + C[3 * k + 2] * d[5]);
  for (int k = 0; k < 6; k++)
    vel[k * n + i] = a->dynamic ? (real)(2 * d[k] / a->dt - vel[k * n + i]) : (real)0;
  if (energy) { /* rho v^T (int T^T T) v / 2 over the block as it was at the step's start */
    cl_dda_moments mo = {mom[i], mom[n + i], mom[2 * n + i], mom[3 * n + i], 0, 0};
    double M[36], kinetic = 0;
    cl_dda_mass_integral(&mo, M);
    for (int k = 0; k < 6; k++)
      for (int l = 0; l < 6; l++) kinetic += 0.5 * rho * vel[k * n + i] * M[6 * k + l] * vel[l * n + i];
    energy[2 * n + i] = (real)kinetic;
  }
}

/* A dynamic step's first solve starts from the displacement at the last step's acceleration: the last
 * step's D = dp v0 + a dp^2 / 2 and v = 2 D / dp - v0 give a = 2 (dp v - D) / dp^2, so D' = dt v +
 * a dt^2 / 2 (exact for a free body under constant load; the last solution, D, is a dp^2 off). The
 * products are rounded apart, so that the device predicts what the host did before it moved here. */
CL_HD static inline void cl_dda_predict_block(const cl_dda_block_args *a, size_t i) {
  size_t n = a->n;
  const real *vel = (const real *)a->vel, *Dv = (const real *)a->D;
  real *out = (real *)a->predicted;
  double dt = a->dt, dp = a->last_dt;
  for (int k = 0; k < 6; k++) {
    double v = vel[k * n + i], D = Dv[k * n + i];
    double change = cl_mul_rn(cl_mul_rn(dt, dt), cl_mul_rn(dp, v) - D) / cl_mul_rn(dp, dp);
    out[k * n + i] = (real)(cl_mul_rn(dt, v) + change);
  }
}

/* Block i under the solution D: its vertices' largest displacement, and whether the determinant
 * of its strain's deformation, (1 + ex)(1 + ey) - gxy^2 / 4, leaves [1/2, 2] (the rotation moves it
 * rigidly). The first-order displacement is a small-strain one: a block that loses half its area in
 * one step -- a sliver squeezed by contact springs far stiffer than itself -- would next be turned
 * inside out, and its mass matrix would no longer be definite. The step takes the largest of the
 * first and the smallest of the second over the blocks. */
CL_HD static inline void cl_dda_check_block(const cl_dda_block_args *a, size_t i) {
  size_t n = a->n;
  const real *mom = (const real *)a->moments, *Dv = (const real *)a->D;
  const real *vx = (const real *)a->vx, *vy = (const real *)a->vy;
  double x0 = mom[4 * n + i], y0 = mom[5 * n + i], d[6], dmax = 0;
  for (int k = 0; k < 6; k++) d[k] = Dv[k * n + i];
  for (int v = a->vstart[i]; v < a->vstart[i + 1]; v++) {
    double t[12], ux = 0, uy = 0;
    cl_dda_t_at(vx[v] - x0, vy[v] - y0, t);
    for (int k = 0; k < 6; k++) ux += t[k] * d[k], uy += t[6 + k] * d[k];
    dmax = fmax(dmax, hypot(ux, uy));
  }
  double J = (1 + d[3]) * (1 + d[4]) - d[5] * d[5] / 4;
  real *out = (real *)a->check;
  out[i] = (real)dmax, out[n + i] = (real)(J >= 0.5 && J <= 2 ? n : i);
}

#endif
