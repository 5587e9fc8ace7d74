/* The bond's surface-correction factor (kernels/pd/pmb.h, cl_pd_surface_factor; f64 as the CPU
 * builds it) against its definition, the radius along n = xi / |xi| of the ellipse (ellipsoid)
 * with semi-axes g_c = (gi_c + gj_c) / 2: rho = (sum_c n_c^2 / g_c^2)^(-1/2), evaluated in long
 * double. Issue 19 rewrote the factor without a division per axis; this checks the rewriting on
 * every bond of the 3.015 dx stencils with factors from 0.5 to 2 (the correction's range: about
 * 1.15 in the interior of a body, up to ~2 at corners), and that the factor is 1 for factors of 1.
 * Tolerance 1e-15 relative: about ten f64 roundings (each 1.1e-16) and one square root. */
#include <math.h>

#include <criterion/criterion.h>

#include "../../kernels/pd/pmb.h"
#include "lcg.h"

static long double definition(int dim, const double *xi, const double *gi, const double *gj) {
  long double r2 = 0, q = 0;
  for (int c = 0; c < dim; c++) r2 += (long double)xi[c] * xi[c];
  for (int c = 0; c < dim; c++) {
    const long double g = ((long double)gi[c] + gj[c]) / 2;
    q += (long double)xi[c] * xi[c] / (r2 * g * g);
  }
  return 1 / sqrtl(q);
}

static void check_stencil(int dim) {
  const double dx = 1e-3;
  int bonds = 0;
  lcg_seed(19 + dim);
  for (int a = -3; a <= 3; a++)
    for (int b = -3; b <= 3; b++)
      for (int c = dim == 3 ? -3 : 0; c <= (dim == 3 ? 3 : 0); c++) {
        const double steps2 = a * a + b * b + c * c;
        if (steps2 == 0 || steps2 > 3.015 * 3.015) continue;
        const double xi[3] = {a * dx, b * dx, c * dx}, r0 = sqrt(steps2) * dx, ones[3] = {1, 1, 1};
        double gi[3], gj[3];
        for (int k = 0; k < dim; k++) gi[k] = lcg_uniform(0.5, 2), gj[k] = lcg_uniform(0.5, 2);
        const long double expected = definition(dim, xi, gi, gj);
        const double got = cl_pd_surface_factor(dim, xi, r0, gi, gj);
        cr_assert(fabsl(got - expected) <= 1e-15L * expected, "%dD step (%d, %d, %d): %.17g, definition %.17Lg",
                  dim, a, b, c, got, expected);
        cr_assert(fabs(cl_pd_surface_factor(dim, xi, r0, ones, ones) - 1) <= 1e-15, "%dD: factors of 1 give 1", dim);
        bonds++;
      }
  cr_assert_eq(bonds, dim == 2 ? 28 : 122, "the stencil's bonds: %d", bonds);
}

Test(pd_surface, factor_equals_the_ellipse_radius_2d) { check_stencil(2); }
Test(pd_surface, factor_equals_the_ellipse_radius_3d) { check_stencil(3); }
