/* The built-in Mohr-Coulomb law (kernels/fe/laws/mohr_coulomb.c through kernels/fe/mohr_coulomb.h)
 * in double precision: every return region (elastic, main plane, right and left edges, apex),
 * trial stresses exactly on the edges and at the apex, the result on the yield surface to 1e-10
 * relative, and the consistent tangent against central differences. The paper's material
 * (paper 002, Table 2): E = 2000 MPa, nu = 0.2, c = 5 MPa, phi = 20 degrees; stresses in MPa. */
#include <criterion/criterion.h>
#include <math.h>

#include "../../kernels/fe/mohr_coulomb.h"

TestSuite(fe_mohr_coulomb, .timeout = 60);

static const double E = 2000, nu = 0.2, coh = 5, phi = 20;
#define DEG 0.017453292519943295

/* principal stresses of a 2D state (yz = xz = 0), sorted s[0] >= s[1] >= s[2] */
static void principal(const double *sig, double *s) {
  const double m = (sig[0] + sig[1]) / 2, r = hypot((sig[0] - sig[1]) / 2, sig[5]);
  s[0] = m + r, s[1] = m - r, s[2] = sig[2];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (s[j + 1] > s[j]) {
        double x = s[j];
        s[j] = s[j + 1], s[j + 1] = x;
      }
}

static double yield(const double *s) {
  const double sp = sin(phi * DEG), k = 2 * coh * cos(phi * DEG);
  return (s[0] - s[2]) + (s[0] + s[2]) * sp - k;
}

/* the law from trial stress `trial` (deps = 0: the trial is the stress given) */
static void update(const double *trial, const double *deps, double *sig, double *D, double *ep) {
  for (int r = 0; r < 6; r++) sig[r] = trial[r];
  *ep = 0;
  const cl_fe_mc_law law = cl_fe_mc_law_of(E, nu, coh, phi);
  cl_fe_mohr_coulomb(&law, deps, sig, D, ep);
}

enum region { ELASTIC, MAIN, RIGHT, LEFT, APEX };
static const char *region_name[] = {"elastic", "main", "right edge", "left edge", "apex"};

/* The region a result shows: its principal stresses distinct (main), s1 > s2 = s3 (right edge),
 * s1 = s2 > s3 (left edge), all at c cot phi (apex); equal to 1e-10 of the scale. */
static void check_region(const double *trial, enum region want) {
  const double zero[6] = {0};
  double sig[6], D[36], ep, s[3], st[3];
  update(trial, zero, sig, D, &ep);
  principal(sig, s), principal(trial, st);
  const double scale = fabs(st[0]) + fabs(st[2]) + 2 * coh, tol = 1e-10 * scale;
  const double f = yield(s);
  if (want == ELASTIC) {
    for (int r = 0; r < 6; r++) cr_assert(sig[r] == trial[r], "elastic: stress changed");
    cr_assert(ep == 0);
    return;
  }
  cr_assert(fabs(f) <= tol, "%s: yield %.3g off the surface (scale %g)", region_name[want], f, scale);
  cr_assert(ep > 0, "%s: no plastic strain", region_name[want]);
  const int eq12 = fabs(s[0] - s[1]) <= tol, eq23 = fabs(s[1] - s[2]) <= tol;
  enum region got = eq12 && eq23 ? APEX : eq23 ? RIGHT : eq12 ? LEFT : MAIN;
  cr_assert(got == want, "trial (%g %g %g): wanted the %s, got the %s (s = %.17g %.17g %.17g)", st[0], st[1], st[2],
            region_name[want], region_name[got], s[0], s[1], s[2]);
  if (want == APEX) cr_assert(fabs(s[0] - coh / tan(phi * DEG)) <= tol, "apex at %g", s[0]);
}

/* trial stresses as (xx, yy, zz, yz, xz, xy) */
Test(fe_mohr_coulomb, every_region_returns_onto_the_yield_surface) {
  check_region((double[6]){-10, -12, -11, 0, 0, 1}, ELASTIC);
  check_region((double[6]){-10, -40, -25, 0, 0, 3}, MAIN);
  check_region((double[6]){-10, -45, -44, 0, 0, 2}, RIGHT);
  check_region((double[6]){-12, -60, -11, 0, 0, 1}, LEFT);
  check_region((double[6]){30, 25, 28, 0, 0, 1}, APEX);
}

Test(fe_mohr_coulomb, trial_stresses_exactly_on_edges_and_apex_pick_them) {
  check_region((double[6]){0, -40, -40, 0, 0, 0}, RIGHT); /* s2 = s3 exactly: zz and yy */
  check_region((double[6]){-40, -40, 0, 0, 0, 0}, RIGHT); /* s2 = s3 in plane: a repeated eigenvalue */
  check_region((double[6]){-5, -60, -5, 0, 0, 0}, LEFT);  /* s1 = s2 exactly */
  check_region((double[6]){-5, -5, -60, 0, 0, 0}, LEFT);  /* s1 = s2 in plane */
  check_region((double[6]){20, 20, 20, 0, 0, 0}, APEX);   /* hydrostatic tension beyond c cot phi */
  const double apex = coh / tan(phi * DEG);        /* exactly at the apex: on the surface, elastic */
  check_region((double[6]){apex, apex, apex, 0, 0, 0}, ELASTIC);
}

/* The principal directions come from 2 theta in closed form (no atan2, cos, sin): where the trial's
 * in-plane normal stresses are equal the directions lie at exactly 45 degrees, so a plastic return keeps
 * sigma_xx = sigma_yy bit for bit (cos^2 = sin^2 = 1/2; through cos and sin of a rounded pi/4 they
 * differ in the last bit), whatever the sign of the shear; and a trial without shear keeps it zero. */
Test(fe_mohr_coulomb, equal_normal_stresses_stay_equal_through_a_plastic_return) {
  const double zero[6] = {0};
  const double trials[3][6] = {{-20, -20, -20, 0, 0, 15}, {-20, -20, -20, 0, 0, -15}, {-3, -3, -45, 0, 0, 7}};
  for (int t = 0; t < 3; t++) {
    double sig[6], D[36], ep;
    update(trials[t], zero, sig, D, &ep);
    cr_assert(ep > 0, "trial %d: plastic", t);
    cr_assert(sig[0] == sig[1], "trial %d: xx %.17g != yy %.17g", t, sig[0], sig[1]);
    cr_assert(D[6 * 0 + 0] == D[6 * 1 + 1] && D[6 * 0 + 5] == D[6 * 1 + 5], "trial %d: tangent symmetric in x, y", t);
  }
  double sig[6], D[36], ep;
  update((double[6]){-40, -40, 0, 0, 0, 0}, zero, sig, D, &ep);
  cr_assert(ep > 0 && sig[5] == 0, "no shear: xy stays 0 (got %g)", sig[5]);
}

/* The tangent against central differences of the stress in the strain increment (the 2D
 * components xx, yy, zz, xy), from states inside each region: h = 1e-7 on strains of order
 * 1e-2 gives a truncation error O(h^2) and a round-off error of 1e-16 * 50 MPa / 1e-7; the
 * difference must stay below 1e-6 of the largest entry. */
Test(fe_mohr_coulomb, tangent_matches_central_differences_in_every_region) {
  const double trials[5][6] = {{-10, -12, -11, 0, 0, 1}, {-10, -40, -25, 0, 0, 3}, {-10, -45, -44, 0, 0, 2},
                               {-12, -60, -11, 0, 0, 1}, {30, 25, 28, 0, 0, 1}};
  const int comp[4] = {0, 1, 2, 5};
  const double base[6] = {1e-3, -2e-3, 0, 0, 0, 1.5e-3}, h = 1e-7;
  for (int t = 0; t < 5; t++) {
    double sig[6], D[36], ep, Dmax = 0;
    update(trials[t], base, sig, D, &ep);
    for (int i = 0; i < 36; i++) Dmax = fmax(Dmax, fabs(D[i]));
    for (int q = 0; q < 4; q++) {
      double dp[6], dm[6], sp[6], sm[6], Dx[36];
      for (int r = 0; r < 6; r++) dp[r] = dm[r] = base[r];
      dp[comp[q]] += h, dm[comp[q]] -= h;
      update(trials[t], dp, sp, Dx, &ep);
      update(trials[t], dm, sm, Dx, &ep);
      for (int r = 0; r < 4; r++) {
        const double fd = (sp[comp[r]] - sm[comp[r]]) / (2 * h), an = D[6 * comp[r] + comp[q]];
        cr_assert(fabs(fd - an) <= 1e-6 * fmax(Dmax, E), "%s: D[%d][%d] = %.10g, central difference %.10g",
                  region_name[t], comp[r], comp[q], an, fd);
      }
    }
  }
}

/* Below yield the tangent is the elasticity matrix; a trial with out-of-plane shear is refused (NaN). */
Test(fe_mohr_coulomb, elastic_tangent_and_refusal_of_3d_states) {
  const double zero[6] = {0};
  double sig[6], D[36], ep;
  update((double[6]){-10, -12, -11, 0, 0, 1}, zero, sig, D, &ep);
  const double G = E / (2 * (1 + nu)), lam = E * nu / ((1 + nu) * (1 - 2 * nu));
  for (int r = 0; r < 6; r++)
    for (int q = 0; q < 6; q++) {
      const double want = (r < 3 && q < 3 ? lam : 0) + (r == q ? (r < 3 ? 2 * G : G) : 0);
      cr_assert(fabs(D[6 * r + q] - want) < 1e-12 * E, "D[%d][%d] = %g, elastic %g", r, q, D[6 * r + q], want);
    }
  update((double[6]){-10, -12, -11, 1, 0, 1}, zero, sig, D, &ep);
  for (int r = 0; r < 6; r++) cr_assert(isnan(sig[r]), "a 3D state must give NaN");
}
