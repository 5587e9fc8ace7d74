/* Central-difference time integration with mass damping (paper eqs. 3-4), per particle. With
 * c1 = 1 / (1 + xi dt / 2) and c2 = c1 (1 - xi dt / 2), eq. 3
 *   d(t+dt) = c1 dt^2 F / m + 2 c1 d(t) - c2 d(t-dt)
 * is, since 2 c1 - 1 = c2, the increment form used here:
 *   dd(t+dt/2) = c1 dt^2 F / m + c2 dd(t-dt/2),  d(t+dt) = d(t) + dd(t+dt/2),
 * and likewise eq. 4 for rotations, whose increments turn each particle's orientation (a
 * quaternion: finite rotations compose exactly). One pass per particle: a constrained DOF takes its
 * prescribed increment (dd_prescribed, dth_prescribed: zero when fixed, v dt for a prescribed
 * velocity, set by the pipeline before the pass), the others eq. 3-4's; the increments are added and
 * the work bookkept. */
#ifndef CL_FPM_INTEGRATE_H
#define CL_FPM_INTEGRATE_H

#include "fpm.h"
#include "rotation.h"

/* The work of one degree of freedom over the step (central difference's exact balance:
 * kinetic energy at half steps changes by F(t) . (d(t+dt) - d(t-dt)) / 2): external, internal,
 * damping (xi m v^2 dt with v the central velocity) and, for a constrained DOF, the constraint's
 * (the force that made the prescribed increment). */
CL_HD static inline void cl_fpm_dof_work(real *w, real total, real external, real mass, real xi, real dt,
                                         real before, real after, int constrained) {
  const real step = (before + after) / 2, v = step / dt;
  w[CL_FPM_W_KINETIC] += mass * after * after / (2 * dt * dt);
  w[CL_FPM_W_EXT] += external * step;
  w[CL_FPM_W_INT] += (external - total) * step;
  w[CL_FPM_W_DAMP] += xi * mass * v * v * dt;
  if (constrained) w[CL_FPM_W_CONSTRAINT] += (mass * (after - before) / (dt * dt) + xi * mass * v - total) * step;
}

/* Component k's increment of the step: the prescribed one when constrained, else eq. 3 (or 4) with
 * the force (moment) F over the mass (inertia) m. */
CL_HD static inline real cl_fpm_increment(int constrained, const void *prescribed, size_t k, real c1, real c2,
                                          real dt, real F, real m, real before) {
  return constrained ? ((const real *)prescribed)[k] : c1 * dt * dt * F / m + c2 * before;
}

CL_HD static inline void cl_fpm_step_at(const cl_fpm_particle_args *A, size_t i) {
  const size_t n = A->n;
  const real dt = (real)A->dt, xi = (real)A->xi, h = (real)(A->xi * A->dt / 2);
  const real c1 = 1 / (1 + h), c2 = c1 * (1 - h);
  const uint32_t mask = A->mask ? A->mask[i] : 0;
  real *d = (real *)A->d, *dd = (real *)A->dd;
  const real *f = (const real *)A->f;
  real w[CL_FPM_W_COLUMNS] = {0, 0, 0, 0, 0};
  const real m = ((const real *)A->mass)[i];
  for (int c = 0; c < 3; c++) {
    const size_t k = c * n + i;
    const int constrained = (mask >> c) & 1;
    const real before = dd[k], after = cl_fpm_increment(constrained, A->dd_prescribed, k, c1, c2, dt, f[k], m, before);
    cl_fpm_dof_work(w, f[k], ((const real *)A->fext)[k], m, xi, dt, before, after, constrained);
    d[k] += after;
    dd[k] = after;
  }
  if (A->q) {
    real *q = (real *)A->q, *dth = (real *)A->dth;
    const real *mo = (const real *)A->m;
    const real I = ((const real *)A->inertia)[i];
    real theta[3];
    for (int c = 0; c < 3; c++) {
      const size_t k = c * n + i;
      const int constrained = (mask >> (3 + c)) & 1;
      const real before = dth[k];
      theta[c] = cl_fpm_increment(constrained, A->dth_prescribed, k, c1, c2, dt, mo[k], I, before);
      cl_fpm_dof_work(w, mo[k], ((const real *)A->mext)[k], I, xi, dt, before, theta[c], constrained);
      dth[k] = theta[c];
    }
    real inc[4], old[4] = {q[i], q[n + i], q[2 * n + i], q[3 * n + i]}, now[4];
    cl_fpm_quat_exp(theta, inc);
    cl_fpm_quat_mul(inc, old, now);
    const real norm = sqrt(now[0] * now[0] + now[1] * now[1] + now[2] * now[2] + now[3] * now[3]);
    for (int c = 0; c < 4; c++) q[c * n + i] = now[c] / norm; /* keeps it a unit quaternion */
  }
  if (A->work) {
    real *work = (real *)A->work;
    for (int c = 0; c < CL_FPM_W_KINETIC; c++) work[c * n + i] += w[c];
    work[CL_FPM_W_KINETIC * n + i] = w[CL_FPM_W_KINETIC];
  }
}

#endif
