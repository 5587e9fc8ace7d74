/* Velocity-Verlet (kick-drift-kick) update of one degree of freedom:
 * v(n+1/2) = v(n) + dt/2 a(n); u(n+1) = u(n) + dt v(n+1/2); after the new
 * forces, v(n+1) = v(n+1/2) + dt/2 a(n+1). Second order, symplectic. */
#ifndef CL_VERLET_H
#define CL_VERLET_H

#include "real.h"

CL_HD static inline void cl_verlet_kick(real *v, real a, real dt) { *v += (real)0.5 * dt * a; }

CL_HD static inline void cl_verlet_kick_drift(real *u, real *v, real a, real dt) {
  cl_verlet_kick(v, a, dt);
  *u += dt * *v;
}

#endif
