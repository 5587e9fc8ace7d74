/* PPR potential-based mixed-mode cohesive law (traction kind): Park, Paulino & Roesler, "A unified
 * potential-based cohesive model of mixed-mode fracture", J. Mech. Phys. Solids 57 (2009) 891-908,
 * with the unloading/reloading of Park & Paulino, "Computational implementation of the PPR
 * potential-based cohesive model in ABAQUS: educational perspective", Eng. Fract. Mech. 93 (2012)
 * 239-262. Made by cleave.jit.ppr{}, which derives the parameters from G_I, G_II, sigma_max,
 * tau_max, alpha, beta, lambda_n, lambda_t (lua/cleave/jit.lua).
 *
 * With x = <dn> / delta_n, y = |dt| / delta_t, f(x) = (1 - x)^alpha (m/alpha + x)^m and
 * g(y) = (1 - y)^beta (n/beta + y)^n, the potential is
 *   psi = min(phi_n, phi_t) + [Gamma_n f(x) + <phi_n - phi_t>] [Gamma_t g(y) + <phi_t - phi_n>]
 * and the tractions its derivatives:
 *   Tn = Gamma_n / delta_n f'(x) [Gamma_t g(y) + dphi_tn]
 *   Tt = Gamma_t / delta_t g'(y) [Gamma_n f(x) + dphi_nt] sign(dt)
 * f'(x) = -(alpha + m) x (1 - x)^(alpha-1) (m/alpha + x)^(m-1) is the paper's bracket
 * m (1-x)^alpha (m/alpha+x)^(m-1) - alpha (1-x)^(alpha-1) (m/alpha+x)^m factored, which needs
 * two pow() instead of four. m = 0 (n = 0) is the extrinsic limit lambda_n -> 0 (lambda_t -> 0):
 * f = (1 - x)^alpha, f' = -alpha (1 - x)^(alpha-1), so Tn(0, 0) = sigma_max, the initial traction
 * of an extrinsic interface; the general form would give 0 * inf there, hence the branch (m and n
 * are compiled constants: the branch costs nothing).
 *
 * Complete failure: Tn = 0 for x >= 1 or once its second bracket has lost the sign it has at
 * y = 0 (|dt| beyond the conjugate tangential opening, which is delta_t when phi_n >= phi_t);
 * likewise Tt = 0 for y >= 1 or beyond the conjugate normal opening. Testing the sign, not a stored
 * conjugate opening, keeps the cut-off exactly where the formula's traction would change sign.
 *
 * Unloading/reloading towards the origin (Park & Paulino 2012): dn_max, dt_max are the largest
 * <dn> and |dt| reached (state); below them Tn = Tn(dn_max, dt_max) dn / dn_max and
 * Tt = Tt(dn_max, dt_max) dt / dt_max. Unlike that paper (Tn(dn_max, dt), Tt(dn, dt_max)) each
 * traction's coupling to the other opening is taken at its largest value too: with the current
 * one a point regained normal strength when its tangential opening closed (and the reverse), so
 * its work fell below the energy it stores on a non-proportional path: a negative dissipation,
 * which cleave.czm refuses (issue 13). Proportional and single-mode paths are unchanged. As in that paper the secant applies only past the peak
 * (dn_max > lambda_n delta_n): the rising branch of the intrinsic law is elastic. Extrinsic
 * (lambda = 0): every opening is past the peak.
 *
 * Closing (dn < 0) gives no normal traction (contact is the method's penalty) and is taken as
 * dn = 0 for the shear envelope. Openings within 1e-9 of delta_n (delta_t) of zero are round-off
 * (the two sides of a facet just cracked, or a mode-I crack on a symmetry line): closing starts
 * below -1e-9 delta_n, and the shear traction needs |dt| > 1e-9 delta_t to take a sign, so that
 * the jumps of the extrinsic envelope at zero never follow the sign of round-off.
 * Parameters: delta_n, delta_t, alpha, beta, m, n, Gamma_n, Gamma_t, dphi_nt = <phi_n - phi_t>,
 * dphi_tn = <phi_t - phi_n>, lambda_n, lambda_t. State: dn_max, dt_max. */
const real x = dn > 0 ? dn / delta_n : 0;
const real y = fabs(dt) / delta_t;
if (dn > dn_max) dn_max = dn;
if (fabs(dt) > dt_max) dt_max = fabs(dt);
const real x_max = dn_max / delta_n, y_max = dt_max / delta_t;
/* where each envelope is evaluated: at the maximum while unloading past the peak */
/* (and only past round-off: a maximum below 1e-9 is no history to unload along) */
const real xe = x < x_max && x_max > lambda_n && x_max > (real)1e-9 ? x_max : x;
const real ye = y < y_max && y_max > lambda_t && y_max > (real)1e-9 ? y_max : y;
tn = 0;
tt = 0;
if (xe < 1 && y_max < 1) {
  /* Tn's second bracket at y_max and at 0 (the latter a constant the compiler folds) */
  const real b = Gamma_t * (n == 0 ? pow(1 - y_max, beta) : pow(1 - y_max, beta) * pow(n / beta + y_max, n)) + dphi_tn;
  const real b0 = Gamma_t * (n == 0 ? 1 : pow(n / beta, n)) + dphi_tn;
  if (b * b0 > 0 && dn > (real)-1e-9 * delta_n) {
    const real fp = m == 0 ? -alpha * pow(1 - xe, alpha - 1)
                           : -(alpha + m) * xe * pow(1 - xe, alpha - 1) * pow(m / alpha + xe, m - 1);
    tn = Gamma_n / delta_n * fp * b;
    if (xe > x) tn *= x / xe;
  }
}
if (ye < 1 && x_max < 1) {
  /* Tt's second bracket at x_max and at 0 */
  const real b = Gamma_n * (m == 0 ? pow(1 - x_max, alpha) : pow(1 - x_max, alpha) * pow(m / alpha + x_max, m)) + dphi_nt;
  const real b0 = Gamma_n * (m == 0 ? 1 : pow(m / alpha, m)) + dphi_nt;
  if (b * b0 > 0) {
    const real gp = n == 0 ? -beta * pow(1 - ye, beta - 1)
                           : -(beta + n) * ye * pow(1 - ye, beta - 1) * pow(n / beta + ye, n - 1);
    /* sign(dt) on the envelope (0 at dt = 0), dt / dt_max on the secant */
    /* below 1e-9 delta_t the shear opening is round-off (a mode-I crack on a symmetry line):
     * the extrinsic envelope's +-tau_max at dt -> 0+- must not follow its sign */
    const real s = ye > y ? dt / (ye * delta_t) : y > (real)1e-9 ? (real)((dt > 0) - (dt < 0)) : 0;
    tt = Gamma_t / delta_t * gp * b * s;
  }
}
