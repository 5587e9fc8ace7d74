/* The opening kick-drift of a step whose force pass drifts the next step's displacements itself
 * (cl_pd_finish with u_next, docs/methods/peridynamics.md): u is the buffer this step's force pass
 * reads, u_prev the one the last step's force pass read. The held (prescribed) components, which
 * the force pass leaves alone because their velocity is set at mid-step by a stage of its own, take
 * the kick-drift here: v += dt/2 a; u = u_prev + dt v. With free_too (no force pass drifted u before
 * this step: the first step of a run, or after the state was changed) the free components take the
 * drift too, u = u_prev + dt (v + dt/2 a), without storing the kicked v: the force pass kicks v
 * itself. Each the separate kick-drift's expressions (verlet.h), so the same bits. */
#ifndef CL_PD_ADVANCE_H
#define CL_PD_ADVANCE_H

#include "../common/portable.h"
#include "../common/verlet.h"

CL_HD static inline void cl_pd_advance_point(size_t n, int dim, size_t i, real *u, const real *u_prev, real *v,
                                             const real *a, const uint8_t *held, real dt, int free_too) {
  const unsigned bits = held ? held[i] : 0;
  for (int c = 0; c < dim; c++) {
    const size_t at = c * n + i;
    real uc = u_prev[at];
    if (bits >> c & 1) {
      cl_verlet_kick_drift(&uc, &v[at], a[at], dt);
      u[at] = uc;
    } else if (free_too) {
      real vc = v[at];
      cl_verlet_kick_drift(&uc, &vc, a[at], dt);
      u[at] = uc;
    }
  }
}

#endif
