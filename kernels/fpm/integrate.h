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

/* One group of 3 DOFs of particle i (the translations, or the rotations: bits `first` .. + 2 of the
 * constraint mask), read whole: the totals F (force or moment), their external parts, the last
 * increments; the new increments `after` (a constrained DOF's the prescribed one, the
 * others eq. 3 or 4 with F over the mass or inertia m) and their work added to w. Nothing is
 * written: the pass stores only once everything is read (cl_fpm_step_at). */
CL_HD static inline void cl_fpm_dof_group(const cl_fpm_particle_args *A, size_t i, int first, const void *total,
                                          const void *external, const void *last, const void *prescribed, real m,
                                          real *after, real *w) {
  const size_t n = A->n;
  const real dt = (real)A->dt, xi = (real)A->xi, h = (real)(A->xi * A->dt / 2);
  const real c1 = 1 / (1 + h), c2 = c1 * (1 - h);
  const uint32_t mask = A->mask ? A->mask[i] : 0;
  real F[3], Fext[3], before[3];
  for (int c = 0; c < 3; c++) {
    const size_t k = c * n + i;
    F[c] = ((const real *)total)[k], Fext[c] = ((const real *)external)[k], before[c] = ((const real *)last)[k];
    after[c] = (mask >> (first + c)) & 1 ? ((const real *)prescribed)[k] : c1 * dt * dt * F[c] / m + c2 * before[c];
  }
  for (int c = 0; c < 3; c++)
    cl_fpm_dof_work(w, F[c], Fext[c], m, xi, dt, before[c], after[c], (mask >> (first + c)) & 1);
}

/* Particle i's step; rotating: the particles carry rotations (A->q given), a constant where the pass
 * is compiled, so that the GPU build of the translations alone holds none of the rotations' values
 * (their registers would cost the pass of hexahedra half its resident threads). Every value is read
 * before the first store: the compiler may not move a load of
 * one array above a store to another (they could alias), and on the GPU, one thread a particle and
 * the whole pass one wave, each such wait is a trip to memory the pass makes one after another. */
CL_HD static inline void cl_fpm_step_at(const cl_fpm_particle_args *A, size_t i, int rotating) {
  const size_t n = A->n;
  real *d = (real *)A->d, *dd = (real *)A->dd;
  real w[CL_FPM_W_COLUMNS] = {0, 0, 0, 0, 0}, after[3], now[3], theta[3], old[4];
  cl_fpm_dof_group(A, i, 0, A->f, A->fext, dd, A->dd_prescribed, ((const real *)A->mass)[i], after, w);
  for (int c = 0; c < 3; c++) now[c] = d[c * n + i];
  if (rotating) {
    const real *q = (const real *)A->q;
    cl_fpm_dof_group(A, i, 3, A->m, A->mext, A->dth, A->dth_prescribed, ((const real *)A->inertia)[i], theta, w);
    for (int c = 0; c < 4; c++) old[c] = q[c * n + i];
  }
  real *work = (real *)A->work, sums[CL_FPM_W_KINETIC];
  if (work)
    for (int c = 0; c < CL_FPM_W_KINETIC; c++) sums[c] = work[c * n + i] + w[c];
  for (int c = 0; c < 3; c++) d[c * n + i] = now[c] + after[c], dd[c * n + i] = after[c];
  if (rotating) {
    real *q = (real *)A->q, inc[4], next[4];
    for (int c = 0; c < 3; c++) ((real *)A->dth)[c * n + i] = theta[c];
    cl_fpm_quat_exp(theta, inc);
    cl_fpm_quat_mul(inc, old, next);
    const real norm = sqrt(next[0] * next[0] + next[1] * next[1] + next[2] * next[2] + next[3] * next[3]);
    for (int c = 0; c < 4; c++) q[c * n + i] = next[c] / norm; /* keeps it a unit quaternion */
  }
  if (work) {
    for (int c = 0; c < CL_FPM_W_KINETIC; c++) work[c * n + i] = sums[c];
    work[CL_FPM_W_KINETIC * n + i] = w[CL_FPM_W_KINETIC];
  }
}

#endif
