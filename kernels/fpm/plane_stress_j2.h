/* J2 plasticity with linear isotropic hardening in plane stress, the return mapping of Simo & Taylor
 * (1985; Simo & Hughes 1998, section 3.4): the consistency condition is one scalar equation in the
 * plastic multiplier, solved by Newton's method within the step (the "in-step iterations"). Strains
 * and stresses are Voigt (xx, yy, xy) with the engineering shear. Used at the shells' points through
 * the thickness (shell.h). */
#ifndef CL_FPM_PLANE_STRESS_J2_H
#define CL_FPM_PLANE_STRESS_J2_H

#include "../common/real.h"

/* The stress sig of the total strain eps at a point whose plastic strain ep (3) and equivalent
 * plastic strain *alpha are updated: E, nu elastic; yield stress sy + H alpha. The trial stress
 * D (eps - ep) is returned to the yield surface 1/2 s.P s = (sy + H alpha)^2 / 3 along the flow
 * ep' = dgamma P s, with P = [2 -1 0; -1 2 0; 0 0 6] / 3. In the eigenvectors of P (and of D) the
 * returned stress is the trial one scaled: s11 + s22 by 1 / (1 + E dgamma / (3 (1 - nu))), s22 - s11
 * and s12 by 1 / (1 + 2 G dgamma). */
CL_HD static inline void cl_fpm_j2_plane_stress(real E, real nu, real sy, real H, const real *eps, real *ep,
                                                real *alpha, real *sig) {
  const real k0 = E / (1 - nu * nu), G = E / (2 * (1 + nu));
  const real e0 = eps[0] - ep[0], e1 = eps[1] - ep[1], e2 = eps[2] - ep[2];
  sig[0] = k0 * (e0 + nu * e1), sig[1] = k0 * (nu * e0 + e1), sig[2] = G * e2;
  const real sum = sig[0] + sig[1], diff = sig[1] - sig[0], shear = sig[2];
  /* (divisions by a variable are a dozen instructions each on a GPU in f64: by constants, products) */
  const real third = (real)1 / 3, A1 = sum * sum * (third / 2), A2 = diff * diff / 2 + 2 * shear * shear;
  const real R0 = sy + H * *alpha; /* s.P s = A1 + A2 */
  if ((A1 + A2) / 2 <= R0 * R0 * third) return; /* elastic */
  const real c1 = E / (3 * (1 - nu)), c2 = 2 * G, root23 = (real)0.816496580927726; /* sqrt(2/3) */
  const real tol = sizeof(real) == 4 ? (real)1e-5 : (real)1e-12; /* of the yield stress squared */
  real g = 0, i1 = 1, i2 = 1, f2 = A1 + A2; /* i1, i2: the scales 1 / d1, 1 / d2 */
  for (int it = 0; it < 50; it++) {
    const real f = sqrt(f2), R = sy + H * (*alpha + root23 * g * f);
    const real residual = f2 / 2 - R * R * third;
    if (fabs(residual) <= tol * R * R) break;
    const real df2 = -2 * c1 * A1 * (i1 * i1 * i1) - 2 * c2 * A2 * (i2 * i2 * i2);
    const real dR = H * root23 * (f + g * df2 / (2 * f));
    g -= residual / (df2 / 2 - 2 * R * dR * third);
    i1 = 1 / (1 + c1 * g), i2 = 1 / (1 + c2 * g);
    f2 = A1 * (i1 * i1) + A2 * (i2 * i2);
  }
  const real s = sum * i1, d = diff * i2;
  sig[0] = (s - d) / 2, sig[1] = (s + d) / 2, sig[2] = shear * i2;
  *alpha += root23 * g * sqrt(f2);
  ep[0] += g * (2 * sig[0] - sig[1]) * third, ep[1] += g * (2 * sig[1] - sig[0]) * third, ep[2] += g * 2 * sig[2];
}

#endif
