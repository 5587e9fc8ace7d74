/* Central-difference time integration with mass damping (paper eqs. 3-4), per particle. With
 * c1 = 1 / (1 + xi dt / 2) and c2 = c1 (1 - xi dt / 2), eq. 3
 *   d(t+dt) = c1 dt^2 F / m + 2 c1 d(t) - c2 d(t-dt)
 * is, since 2 c1 - 1 = c2, the increment form used here:
 *   dd(t+dt/2) = c1 dt^2 F / m + c2 dd(t-dt/2),  d(t+dt) = d(t) + dd(t+dt/2),
 * and likewise eq. 4 for rotations, whose increments turn each particle's orientation (a
 * quaternion: finite rotations compose exactly). Two kernels: predict writes the new increments,
 * zero on constrained DOFs (the pipeline then sets those of prescribed velocities), apply adds them
 * and bookkeeps the work. */
#ifndef CL_FPM_INTEGRATE_H
#define CL_FPM_INTEGRATE_H

#include "fpm.h"
#include "rotation.h"

CL_HD static inline void cl_fpm_predict(const cl_fpm_particle_args *A, size_t i) {
  const size_t n = A->n;
  const real dt = (real)A->dt, h = (real)(A->xi * A->dt / 2);
  const real c1 = 1 / (1 + h), c2 = c1 * (1 - h);
  const real *f = (const real *)A->f, *dd = (const real *)A->dd;
  real *dd_new = (real *)A->dd_new;
  const real m = ((const real *)A->mass)[i];
  const uint32_t mask = A->mask ? A->mask[i] : 0;
  for (int c = 0; c < 3; c++)
    dd_new[c * n + i] = (mask >> c) & 1 ? 0 : c1 * dt * dt * f[c * n + i] / m + c2 * dd[c * n + i];
  if (!A->q) return;
  const real *mo = (const real *)A->m, *dth = (const real *)A->dth;
  real *dth_new = (real *)A->dth_new;
  const real I = ((const real *)A->inertia)[i];
  for (int c = 0; c < 3; c++)
    dth_new[c * n + i] = (mask >> (3 + c)) & 1 ? 0 : c1 * dt * dt * mo[c * n + i] / I + c2 * dth[c * n + i];
}

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

CL_HD static inline void cl_fpm_apply_step(const cl_fpm_particle_args *A, size_t i) {
  const size_t n = A->n;
  const real dt = (real)A->dt, xi = (real)A->xi;
  const uint32_t mask = A->mask ? A->mask[i] : 0;
  real *d = (real *)A->d, *dd = (real *)A->dd;
  const real *dd_new = (const real *)A->dd_new;
  real w[CL_FPM_W_COLUMNS] = {0, 0, 0, 0, 0};
  const real m = ((const real *)A->mass)[i];
  for (int c = 0; c < 3; c++) {
    const size_t k = c * n + i;
    cl_fpm_dof_work(w, ((const real *)A->f)[k], ((const real *)A->fext)[k], m, xi, dt, dd[k], dd_new[k],
                    (mask >> c) & 1);
    d[k] += dd_new[k];
    dd[k] = dd_new[k];
  }
  if (A->q) {
    real *q = (real *)A->q, *dth = (real *)A->dth;
    const real *dth_new = (const real *)A->dth_new;
    const real I = ((const real *)A->inertia)[i];
    real theta[3];
    for (int c = 0; c < 3; c++) {
      const size_t k = c * n + i;
      cl_fpm_dof_work(w, ((const real *)A->m)[k], ((const real *)A->mext)[k], I, xi, dt, dth[k], dth_new[k],
                      (mask >> (3 + c)) & 1);
      theta[c] = dth_new[k];
      dth[k] = dth_new[k];
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

/* Both halves in one pass, for a step that sets no prescribed velocity between them: the particle
 * reads f, d, dd (and the rotations) once, and one launch is saved. The same operations in the same
 * order as predict then apply. */
CL_HD static inline void cl_fpm_step_at(const cl_fpm_particle_args *A, size_t i) {
  cl_fpm_predict(A, i);
  cl_fpm_apply_step(A, i);
}

#endif
