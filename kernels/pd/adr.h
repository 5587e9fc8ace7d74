/* Adaptive dynamic relaxation (Kilic & Madenci 2010) for quasi-static
 * peridynamics: the equations of motion with a fictitious diagonal density
 * lambda and a damping coefficient c_n chosen each step from Rayleigh's
 * quotient of the local stiffness, so the iteration converges to the static
 * solution. With pseudo time step 1:
 *   K_ii  = -(F_i^n - F_i^(n-1)) / (lambda_i v_i^(n-1/2))           (local stiffness)
 *   c_n   = 2 sqrt( sum u_i K_ii u_i / sum u_i^2 )   (0 if the quotient is not positive)
 *   v^(n+1/2) = ((2 - c_n) v^(n-1/2) + 2 F^n / lambda) / (2 + c_n)
 *   u^(n+1)   = u^n + v^(n+1/2)
 * and on the first step v^(1/2) = F^0 / (2 lambda). Entries are the n*dim
 * components (SoA); lambda is per point: entry e belongs to point e % n. */
#ifndef CL_PD_ADR_H
#define CL_PD_ADR_H

#include "../common/real.h"

/* The two sums of Rayleigh's quotient contributed by entry e. */
CL_HD static inline void cl_pd_adr_terms(const real *u, const real *v, const real *f, const real *f_prev,
                                         const real *lambda, size_t n, size_t e, double *num, double *den) {
  double ue = u[e];
  *den = ue * ue;
  *num = 0;
  if (v[e] != 0) *num = ue * ue * -((double)f[e] - f_prev[e]) / ((double)lambda[e % n] * v[e]);
}

CL_HD static inline void cl_pd_adr_step(real *u, real *v, const real *f, real *f_prev, const real *lambda,
                                        size_t n, size_t e, real damping, int first) {
  real l = lambda[e % n];
  v[e] = first ? f[e] / (2 * l) : ((2 - damping) * v[e] + 2 * f[e] / l) / (2 + damping);
  u[e] += v[e];
  f_prev[e] = f[e];
}

#endif
