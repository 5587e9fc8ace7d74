/* A DDA contact: vertex P of block i against the edge p2 -> p3 of block j
 * (counter-clockwise blocks, so the edge's outward normal is n = (dy, -dx) / l
 * with d = p3 - p2, l = |d|, and its tangent s = d / l). Springs of stiffness
 * kn (normal) and ks (shear) act on the gaps, linear in the step's unknowns:
 *   gn = n . (P - p2)     + en . Di - fn . Dj     (< 0: penetration)
 *   gs = s . (P - Q)      + es . Di - fs . Dj     (Q = p2 + t_ref d, the shear spring's anchor)
 * en = T_i(P)^T n, fn = T_j(Q)^T n (likewise es, fs with s), n and s fixed at the
 * step's start. A spring k on g = g0 + a.Di - b.Dj adds the energy k g^2 / 2:
 *   Kii += k a a^T, Kjj += k b b^T, Kij -= k a b^T, Kji = Kij^T, Fi -= k g0 a, Fj += k g0 b;
 * a sliding contact's friction force f against the slip direction sgn adds the
 * work f sgn gs:  Fi -= f sgn es, Fj += f sgn fs. */
#ifndef CL_DDA_CONTACT_H
#define CL_DDA_CONTACT_H

#include "block.h"

typedef struct cl_dda_contact_geometry {
  double en[6], fn[6], es[6], fs[6];
  double gn0, gs0; /* the gaps at the step's start */
  double len;      /* the edge's length */
} cl_dda_contact_geometry;

/* (px, py) the vertex, (x2, y2) -> (x3, y3) the edge, t_ref the anchor's ratio along the edge,
 * (xi, yi), (xj, yj) the centroids of the two blocks. */
CL_HD static inline cl_dda_contact_geometry cl_dda_contact_at(double px, double py, double x2, double y2,
                                                              double x3, double y3, double t_ref, double xi,
                                                              double yi, double xj, double yj) {
  cl_dda_contact_geometry g;
  double dx = x3 - x2, dy = y3 - y2, l = sqrt(dx * dx + dy * dy);
  double nx = dy / l, ny = -dx / l, sx = dx / l, sy = dy / l;
  double qx = x2 + t_ref * dx, qy = y2 + t_ref * dy;
  double ti[12], tj[12];
  cl_dda_t_at(px - xi, py - yi, ti);
  cl_dda_t_at(qx - xj, qy - yj, tj);
  for (int k = 0; k < 6; k++) {
    g.en[k] = ti[k] * nx + ti[6 + k] * ny;
    g.fn[k] = tj[k] * nx + tj[6 + k] * ny;
    g.es[k] = ti[k] * sx + ti[6 + k] * sy;
    g.fs[k] = tj[k] * sx + tj[6 + k] * sy;
  }
  g.gn0 = nx * (px - x2) + ny * (py - y2);
  g.gs0 = sx * (px - qx) + sy * (py - qy);
  g.len = l;
  return g;
}

/* The spring k on g0 + a.Di - b.Dj into the blocks' submatrices (row-major 6x6; Kij is the
 * block of row i, column j) and right-hand sides. */
CL_HD static inline void cl_dda_spring(double k, double g0, const double a[6], const double b[6], double Kii[36],
                                       double Kjj[36], double Kij[36], double Fi[6], double Fj[6]) {
  for (int r = 0; r < 6; r++) {
    for (int c = 0; c < 6; c++) {
      Kii[6 * r + c] += k * a[r] * a[c];
      Kjj[6 * r + c] += k * b[r] * b[c];
      Kij[6 * r + c] -= k * a[r] * b[c];
    }
    Fi[r] -= k * g0 * a[r];
    Fj[r] += k * g0 * b[r];
  }
}

typedef enum cl_dda_contact_state { CL_DDA_OPEN = 0, CL_DDA_SLIDE = 1, CL_DDA_LOCK = 2 } cl_dda_contact_state;

/* A contact's joint as the open-close rule sees it. */
typedef struct cl_dda_contact_law {
  double kn, ks;            /* spring stiffnesses */
  double tan_phi;           /* friction */
  double cohesion, tension; /* forces: strengths times the contact's joint length, 0 once unbonded */
  double slip_floor, force_floor; /* round-off bands below which nothing changes */
} cl_dda_contact_law;

/* The open-close rule on a solution with gaps gn, gs (gs0: the shear gap at the step's start):
 * an open contact that penetrates closes (locked); a closed one in tension beyond its strength
 * opens; a locked one whose shear force exceeds max(N, 0) tan phi + cohesion slides, in the
 * direction of its shear gap (*sgn); a sliding one whose slip turns back locks. */
CL_HD static inline int cl_dda_open_close(int state, double gn, double gs, double gs0, double *sgn,
                                          const cl_dda_contact_law *law) {
  double N = -law->kn * gn;
  if (state == CL_DDA_OPEN) return gn < -law->slip_floor ? CL_DDA_LOCK : CL_DDA_OPEN;
  if (N < -law->tension - law->force_floor) return CL_DDA_OPEN;
  if (state == CL_DDA_LOCK) {
    double strength = (N > 0 ? N : 0) * law->tan_phi + law->cohesion;
    if (fabs(law->ks * gs) <= strength + law->force_floor) return CL_DDA_LOCK;
    *sgn = gs > 0 ? 1 : -1;
    return CL_DDA_SLIDE;
  }
  return (gs - gs0) * *sgn < -law->slip_floor ? CL_DDA_LOCK : CL_DDA_SLIDE;
}

/* The gap g0 + a.Di - b.Dj after the solution. */
CL_HD static inline double cl_dda_gap(double g0, const double a[6], const double b[6], const double *Di,
                                      const double *Dj) {
  double g = g0;
  for (int k = 0; k < 6; k++) g += a[k] * Di[k] - b[k] * Dj[k];
  return g;
}

#endif
