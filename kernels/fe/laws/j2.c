/* J2 (von Mises) plasticity with linear isotropic hardening, small strain, radial return
 * (Simo & Hughes 1998, box 3.1) (stress_update kind). Parameters: E, nu, sy (initial yield
 * stress), H (hardening modulus: sy + H ep). State: ep (equivalent plastic strain).
 * Sets the consistent tangent D. Voigt order xx yy zz yz xz xy, engineering shears. */
const real mu = E / (2 * (1 + nu)), K = E / (3 * (1 - 2 * nu));
real trial[6];
for (int r = 0; r < 3; r++) trial[r] = sig[r] + 2 * mu * deps[r];
for (int r = 3; r < 6; r++) trial[r] = sig[r] + mu * deps[r];
const real dvol = deps[0] + deps[1] + deps[2];
for (int r = 0; r < 3; r++) trial[r] += (K - 2 * mu / 3) * dvol;
const real p = (trial[0] + trial[1] + trial[2]) / 3;
real s[6];
for (int r = 0; r < 6; r++) s[r] = trial[r] - (r < 3 ? p : 0);
const real norm = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + 2 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
const real f = norm - sqrt((real)2 / 3) * (sy + H * ep);
real theta = 1, theta_bar = 0;
if (f > 0) {
  const real dgamma = f / (2 * mu + (real)2 / 3 * H);
  ep += sqrt((real)2 / 3) * dgamma;
  theta = 1 - 2 * mu * dgamma / norm;
  theta_bar = 1 / (1 + H / (3 * mu)) - (1 - theta);
}
for (int r = 0; r < 6; r++) sig[r] = (r < 3 ? p : 0) + theta * s[r];
/* consistent tangent: K 1(x)1 + 2 mu theta (I_dev) - 2 mu theta_bar n(x)n */
real n[6];
for (int r = 0; r < 6; r++) n[r] = norm > 0 ? s[r] / norm : 0;
for (int r = 0; r < 6; r++)
  for (int c = 0; c < 6; c++) {
    const real vol = (r < 3 && c < 3) ? K - 2 * mu * theta / 3 : 0;
    const real dev = r == c ? (r < 3 ? 2 * mu * theta : mu * theta) : 0;
    D[6 * r + c] = vol + dev - 2 * mu * theta_bar * n[r] * n[c]; /* n : deps with engineering shears */
  }
