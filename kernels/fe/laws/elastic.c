/* Isotropic linear elasticity, small strain (stress_update kind): sig += D deps with
 * D from E and nu (lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu))); Voigt
 * order xx yy zz yz xz xy, engineering shear strains. Parameters: E, nu. */
const real mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
for (int r = 0; r < 36; r++) D[r] = 0;
for (int r = 0; r < 3; r++) {
  for (int c = 0; c < 3; c++) D[6 * r + c] = lambda;
  D[7 * r] = lambda + 2 * mu;
  D[7 * (r + 3)] = mu;
}
for (int r = 0; r < 6; r++)
  for (int c = 0; c < 6; c++) sig[r] += D[6 * r + c] * deps[c];
