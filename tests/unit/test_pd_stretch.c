/* The f32 bond stretch and force of the peridynamic step (kernels/pd/pmb.h, cl_pd_bond) against
 * a long-double reference, on the host, with the GPU's reciprocal square root emulated: CL_RSQRT
 * is defined here as 1/sqrt pushed 2 ulp up (the CUDA guide's bound for rsqrtf), so the test
 * sees the error the GPU's f32 path sees. The reference is the f64 model's stretch: the exact
 * bond vector xi (a lattice step times dx, which the f32 kernel only has rounded, with |xi| and
 * 1/|xi| rounded from double as kernels/pd/lattice.c stores them) and the f32 displacement
 * difference eta.
 * Stretches from 1e-6 to 0.1 (both signs) cover the elastic waves (1e-6..1e-4) and the breaking
 * range (critical stretches of 1e-3..5e-2); the direct form |xi + eta| / |xi| - 1 loses about
 * 7 + log10(s) of f32's 7 digits there. */
#define CL_PRECISION_F32
#include <float.h>
#include <math.h>

static inline float emulated_rsqrt(float x) {
  float y = 1 / sqrtf(x);
  return nextafterf(nextafterf(y, INFINITY), INFINITY);
}
#define CL_RSQRT(x) emulated_rsqrt(x)

#include <criterion/criterion.h>

#include "../../kernels/pd/pmb.h"
#include "lcg.h"

/* f32 arithmetic carries about 15 roundings into the force (each <= 0.5 ulp) and two emulated
 * reciprocal square roots (2 ulp each): 2e-6 is 17 ulp of 1 (FLT_EPSILON = 1.19e-7). */
#define RELATIVE_TOLERANCE 2e-6

typedef struct stencil_bond {
  int dim;
  long double xi[3], r0; /* exact */
  float xi_f[3], r0_f, inv_r0_f; /* as the lattice stores them */
} stencil_bond;

/* Lattice steps with |step| < 3.015 (the default horizon) in dim dimensions, at spacing dx. */
static int stencil(int dim, double dx, stencil_bond *out) {
  int count = 0, reach = 3, zmax = dim == 3 ? reach : 0;
  for (int a = -reach; a <= reach; a++)
    for (int b = -reach; b <= reach; b++)
      for (int c = -zmax; c <= zmax; c++) {
        int step[3] = {a, b, c};
        double r2 = (double)(a * a + b * b + c * c);
        if (r2 == 0 || sqrt(r2) >= 3.015) continue;
        stencil_bond *s = &out[count++];
        s->dim = dim;
        double r2_dx = 0;
        for (int k = 0; k < dim; k++) {
          s->xi[k] = (long double)step[k] * dx;
          s->xi_f[k] = (float)(step[k] * dx);
          r2_dx += (step[k] * dx) * (step[k] * dx);
        }
        s->r0 = sqrtl((long double)r2) * dx;
        s->r0_f = (float)sqrt(r2_dx), s->inv_r0_f = (float)(1 / sqrt(r2_dx));
      }
  return count;
}

/* eta of stretch about `target`: along xi with a transverse part up to |target| r0 / 2, in f32. */
static void displacement(const stencil_bond *s, double target, float *eta) {
  double t[3] = {lcg_uniform(-1, 1), lcg_uniform(-1, 1), lcg_uniform(-1, 1)}, along = 0;
  for (int k = 0; k < s->dim; k++) along += t[k] * (double)s->xi[k] / (double)(s->r0 * s->r0);
  for (int k = 0; k < s->dim; k++) t[k] -= along * (double)s->xi[k]; /* now normal to xi */
  double tn = 0;
  for (int k = 0; k < s->dim; k++) tn += t[k] * t[k];
  tn = tn > 0 ? sqrt(tn) : 1;
  const double side = lcg_uniform(0, 0.5) * fabs(target) * (double)s->r0;
  for (int k = 0; k < s->dim; k++) eta[k] = (float)(target * (double)s->xi[k] + side * t[k] / tn);
}

static long double reference_stretch(const stencil_bond *s, const float *eta) {
  long double r2 = 0;
  for (int k = 0; k < s->dim; k++) r2 += (s->xi[k] + eta[k]) * (s->xi[k] + eta[k]);
  return sqrtl(r2) / s->r0 - 1;
}

/* The stretch the f32 kernel acts on, read back from its force: cl_pd_bond adds c s (xi + eta) / |xi + eta|
 * (c = 1, no partial volume, no surface correction), whose length is |s| and sign that of its
 * projection on xi + eta. */
static double kernel_stretch(const stencil_bond *s, const float *eta, int *intact, float s0) {
  cl_pd_pmb m = {.c = 1, .s0 = s0, .inv_rho = 1, .delta = 1, .half_dx = 0, .inv_dx = 0};
  float acc[3] = {0, 0, 0}, all = 0, whole = 0;
  *intact = cl_pd_bond(&m, s->dim, s->xi_f, eta, s->r0_f, s->inv_r0_f, 1, 1, 1, acc, &all, &whole, NULL, 0);
  double along = 0, length = 0;
  for (int k = 0; k < s->dim; k++) {
    along += (double)acc[k] * ((double)s->xi[k] + eta[k]);
    length += (double)acc[k] * acc[k];
  }
  return along < 0 ? -sqrt(length) : sqrt(length);
}

/* Worst relative error of the f32 stretch over random bonds and stretches of magnitude 10^lo .. 10^hi. */
static double worst_error(int dim, double lo, double hi) {
  stencil_bond bonds[130];
  double worst = 0;
  for (int trial = 0; trial < 40; trial++) {
    const double dx = pow(10, lcg_uniform(-4, -1)); /* 0.1 mm to 10 cm */
    const int n = stencil(dim, dx, bonds);
    for (int b = 0; b < n; b++) {
      const double target = (lcg_next() & 1 ? 1 : -1) * pow(10, lcg_uniform(lo, hi));
      float eta[3];
      displacement(&bonds[b], target, eta);
      const long double ref = reference_stretch(&bonds[b], eta);
      int intact;
      const double got = kernel_stretch(&bonds[b], eta, &intact, 0);
      const double err = fabs((double)(((long double)got - ref) / ref));
      if (err > worst) worst = err;
    }
  }
  return worst;
}

Test(pd_stretch, relative_error_2d) {
  lcg_seed(19);
  const double worst = worst_error(2, -6, -1);
  cr_assert(worst < RELATIVE_TOLERANCE, "2D: worst relative error of the f32 stretch %.3g (tolerance %g)", worst,
            RELATIVE_TOLERANCE);
}

Test(pd_stretch, relative_error_3d) {
  lcg_seed(20);
  const double worst = worst_error(3, -6, -1);
  cr_assert(worst < RELATIVE_TOLERANCE, "3D: worst relative error of the f32 stretch %.3g (tolerance %g)", worst,
            RELATIVE_TOLERANCE);
}

/* Near the critical stretch (1e-3..1e-2) alone: the decisions that shape cracks. */
Test(pd_stretch, relative_error_near_breaking) {
  lcg_seed(21);
  const double worst = worst_error(2, -3, -2);
  cr_assert(worst < RELATIVE_TOLERANCE, "worst relative error of the f32 stretch near breaking %.3g (tolerance %g)",
            worst, RELATIVE_TOLERANCE);
}

/* A body at rest feels no force: every stencil bond, f32, any spacing. */
Test(pd_stretch, zero_at_rest) {
  stencil_bond bonds[130];
  lcg_seed(22);
  for (int dim = 2; dim <= 3; dim++)
    for (int trial = 0; trial < 20; trial++) {
      const int n = stencil(dim, pow(10, lcg_uniform(-4, -1)), bonds);
      for (int b = 0; b < n; b++) {
        const float eta[3] = {0, 0, 0};
        int intact;
        const double s = kernel_stretch(&bonds[b], eta, &intact, 0);
        cr_assert(s == 0, "%dD bond %d at rest: stretch %.3g, not 0", dim, b, s);
      }
    }
}

/* Breaking agrees with the f64 model's decision for stretches within 1e-5 of s0 (relative):
 * the f32 stretch is good to 2e-6 of itself, so none of these can be decided the wrong way. */
Test(pd_stretch, breaking_decision) {
  stencil_bond bonds[130];
  lcg_seed(23);
  int decided = 0;
  for (int trial = 0; trial < 40; trial++) {
    const int n = stencil(2, pow(10, lcg_uniform(-4, -1)), bonds);
    const float s0 = (float)pow(10, lcg_uniform(-3, -1.5));
    for (int b = 0; b < n; b++) {
      float eta[3];
      displacement(&bonds[b], s0 * (1 + lcg_uniform(-1e-4, 1e-4)), eta);
      const long double ref = reference_stretch(&bonds[b], eta);
      if (fabsl(ref / s0 - 1) < 1e-5L) continue; /* closer than the tolerance: either answer is right */
      int intact;
      kernel_stretch(&bonds[b], eta, &intact, s0);
      cr_assert_eq(intact, !(ref > s0), "bond of stretch %.9Lg with s0 = %.9g: intact %d", ref, (double)s0, intact);
      decided++;
    }
  }
  cr_assert(decided > 500, "only %d decisions tested", decided);
}
