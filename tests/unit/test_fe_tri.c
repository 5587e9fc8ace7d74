/* Element math of the T3 and T6 triangles (kernels/fe/tri.h) in double
 * precision: shape functions, patch tests, stiffness, matrix-free internal
 * force, lumped masses, elasticity and stresses, inverted elements. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../../kernels/fe/tri.h"
#include "lcg.h"

TestSuite(fe_tri, .timeout = 60);

#define NN CL_TRI_MAX_NODES
#define ND CL_TRI_MAX_DOFS

/* reference coordinates of the nodes, in the header's order */
static const double ref_nodes[NN][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5, 0}, {0.5, 0.5}, {0, 0.5}};

static double max_abs(const double *v, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

/* A random positively oriented T3 in [-1, 1]^2, far from degenerate (twice
 * its area at least 0.5 and no edge shorter than 0.5), as the first three
 * nodes of xe; the mid-side nodes at the edge midpoints (a straight-sided T6),
 * moved by `bend` times a random vector (curved sides) when bend > 0. */
static void random_element(double *xe, double bend) {
  for (;;) {
    for (int i = 0; i < 6; i++) xe[i] = lcg_uniform(-1, 1);
    double det = (xe[2] - xe[0]) * (xe[5] - xe[1]) - (xe[4] - xe[0]) * (xe[3] - xe[1]);
    if (det < 0) { /* swap corners 1 and 2 */
      double x = xe[2], y = xe[3];
      xe[2] = xe[4], xe[3] = xe[5], xe[4] = x, xe[5] = y;
      det = -det;
    }
    int short_edge = 0;
    for (int a = 0; a < 3; a++) {
      int b = (a + 1) % 3;
      short_edge |= hypot(xe[2 * b] - xe[2 * a], xe[2 * b + 1] - xe[2 * a + 1]) < 0.5;
    }
    if (det >= 0.5 && !short_edge) break;
  }
  for (int a = 0; a < 3; a++) {
    int b = (a + 1) % 3;
    for (int c = 0; c < 2; c++)
      xe[2 * (3 + a) + c] = (xe[2 * a + c] + xe[2 * b + c]) / 2 + bend * lcg_uniform(-1, 1);
  }
}

/* physical position of reference point (xi, eta) */
static void position(int order, const double *xe, double xi, double eta, double *x) {
  double N[NN], dN[ND];
  cl_tri_shape(order, xi, eta, N, dN);
  x[0] = x[1] = 0;
  for (int a = 0; a < cl_tri_nodes(order); a++) x[0] += N[a] * xe[2 * a], x[1] += N[a] * xe[2 * a + 1];
}

static double area_of(const double *xe) {
  return ((xe[2] - xe[0]) * (xe[5] - xe[1]) - (xe[4] - xe[0]) * (xe[3] - xe[1])) / 2;
}

/* ---- shape functions ------------------------------------------------------ */

Test(fe_tri, shape_functions_partition_unity_and_interpolate_the_nodes) {
  lcg_seed(1);
  for (int order = 1; order <= 2; order++) {
    const int nn = cl_tri_nodes(order);
    for (int t = 0; t < 20; t++) {
      double xi = lcg_uniform(0, 1), eta = lcg_uniform(0, 1 - xi), N[NN], dN[ND], sum = 0, dsum[2] = {0, 0};
      cl_tri_shape(order, xi, eta, N, dN);
      for (int a = 0; a < nn; a++) sum += N[a], dsum[0] += dN[2 * a], dsum[1] += dN[2 * a + 1];
      cr_assert_float_eq(sum, 1, 1e-14, "order %d: sum N = %g", order, sum);
      cr_assert(fabs(dsum[0]) < 1e-14 && fabs(dsum[1]) < 1e-14, "order %d: sum dN != 0", order);
    }
    for (int b = 0; b < nn; b++) {
      double N[NN], dN[ND];
      cl_tri_shape(order, ref_nodes[b][0], ref_nodes[b][1], N, dN);
      for (int a = 0; a < nn; a++)
        cr_assert_float_eq(N[a], a == b, 1e-15, "order %d: N_%d(node %d) = %g", order, a, b, N[a]);
    }
  }
}

Test(fe_tri, shape_derivatives_match_finite_differences) {
  lcg_seed(2);
  const double h = 1e-6;
  for (int order = 1; order <= 2; order++) {
    for (int t = 0; t < 20; t++) {
      double xi = lcg_uniform(0.1, 0.8), eta = lcg_uniform(0.05, 0.95 - xi), N[NN], dN[ND];
      cl_tri_shape(order, xi, eta, N, dN);
      for (int r = 0; r < 2; r++) {
        double Np[NN], Nm[NN], scratch[ND];
        cl_tri_shape(order, xi + (r == 0) * h, eta + (r == 1) * h, Np, scratch);
        cl_tri_shape(order, xi - (r == 0) * h, eta - (r == 1) * h, Nm, scratch);
        for (int a = 0; a < cl_tri_nodes(order); a++) {
          double fd = (Np[a] - Nm[a]) / (2 * h);
          cr_assert_float_eq(dN[2 * a + r], fd, 1e-8, "order %d: dN_%d/dxi_%d = %g, fd %g", order, a, r,
                             dN[2 * a + r], fd);
        }
      }
    }
  }
}

Test(fe_tri, gauss_rules_integrate_their_degree_exactly) {
  /* int over the reference triangle of xi^i eta^j = i! j! / (i + j + 2)! */
  static const double exact[3][3] = {{1. / 2, 1. / 6, 1. / 12}, {1. / 6, 1. / 24, 0}, {1. / 12, 0, 0}};
  for (int order = 1; order <= 2; order++) {
    cr_assert_eq(cl_tri_ngauss(order), order == 1 ? 1 : 3);
    for (int i = 0; i <= order; i++)
      for (int j = 0; i + j <= order; j++) {
        double sum = 0;
        for (int k = 0; k < cl_tri_ngauss(order); k++) {
          double xi, eta, w;
          cl_tri_gauss(order, k, &xi, &eta, &w);
          sum += w * pow(xi, i) * pow(eta, j);
        }
        cr_assert_float_eq(sum, exact[i][j], 1e-15, "order %d: xi^%d eta^%d gives %g", order, i, j, sum);
      }
  }
}

/* ---- patch tests ---------------------------------------------------------- */

/* Displacement u_c(x) = a_c + G_c . x + x . H_c x (H_c symmetric) and its strain. */
typedef struct field {
  double a[2], G[2][2], H[2][2][2];
} field;

static field random_field(int quadratic) {
  field f;
  memset(&f, 0, sizeof f);
  for (int c = 0; c < 2; c++) {
    f.a[c] = lcg_uniform(-1, 1);
    for (int d = 0; d < 2; d++) f.G[c][d] = lcg_uniform(-1, 1);
    if (quadratic) {
      f.H[c][0][0] = lcg_uniform(-1, 1), f.H[c][1][1] = lcg_uniform(-1, 1);
      f.H[c][0][1] = f.H[c][1][0] = lcg_uniform(-1, 1);
    }
  }
  return f;
}

static void field_at(const field *f, const double *x, double *u, double grad[2][2]) {
  for (int c = 0; c < 2; c++) {
    u[c] = f->a[c];
    for (int d = 0; d < 2; d++) {
      u[c] += f->G[c][d] * x[d] + x[d] * (f->H[c][d][0] * x[0] + f->H[c][d][1] * x[1]);
      grad[c][d] = f->G[c][d] + 2 * (f->H[c][d][0] * x[0] + f->H[c][d][1] * x[1]);
    }
  }
}

/* The element's strain at each Gauss point equals the field's there. */
static void check_patch(int order, const double *xe, const field *f) {
  const int nn = cl_tri_nodes(order);
  double ue[ND], grad[2][2];
  for (int a = 0; a < nn; a++) field_at(f, xe + 2 * a, ue + 2 * a, grad);
  for (int k = 0; k < cl_tri_ngauss(order); k++) {
    double xi, eta, w, x[2], u[2], g[ND], eps[3], B[3 * ND];
    cl_tri_gauss(order, k, &xi, &eta, &w);
    position(order, xe, xi, eta, x);
    field_at(f, x, u, grad);
    const double want[3] = {grad[0][0], grad[1][1], grad[0][1] + grad[1][0]};
    cr_assert_gt(cl_tri_gradients(order, xe, xi, eta, g), 0);
    cl_tri_strain(order, g, ue, eps);
    cl_tri_bmatrix(order, xe, xi, eta, B);
    for (int r = 0; r < 3; r++) {
      double Bu = 0;
      for (int j = 0; j < 2 * nn; j++) Bu += B[2 * nn * r + j] * ue[j];
      cr_assert_float_eq(eps[r], want[r], 1e-12, "order %d, point %d: eps_%d = %.17g, want %.17g", order, k, r,
                         eps[r], want[r]);
      cr_assert_float_eq(Bu, eps[r], 1e-13, "order %d: B u differs from the strain", order);
    }
  }
}

Test(fe_tri, linear_fields_give_their_constant_strain) {
  lcg_seed(3);
  for (int t = 0; t < 20; t++) {
    double xe[ND];
    random_element(xe, 0);
    field f = random_field(0);
    check_patch(1, xe, &f);
    check_patch(2, xe, &f);
    random_element(xe, 0.05); /* isoparametric: curved sides still pass */
    check_patch(2, xe, &f);
  }
}

Test(fe_tri, quadratic_fields_are_reproduced_by_t6) {
  lcg_seed(4);
  for (int t = 0; t < 20; t++) {
    double xe[ND];
    random_element(xe, 0);
    field f = random_field(1);
    check_patch(2, xe, &f);
  }
}

/* ---- stiffness and internal force ----------------------------------------- */

/* Eigenvalues of the symmetric n x n matrix A (cyclic Jacobi rotations, Golub & Van Loan sec. 8.5). */
static void eigenvalues(int n, const double *A, double *lambda) {
  double M[ND * ND];
  memcpy(M, A, sizeof(double) * n * n);
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = 0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += M[p * n + q] * M[p * n + q];
    if (off < 1e-30 * max_abs(M, n * n) * max_abs(M, n * n)) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        if (M[p * n + q] == 0) continue;
        double theta = (M[q * n + q] - M[p * n + p]) / (2 * M[p * n + q]);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; k++) { /* columns p, q */
          double mp = M[k * n + p], mq = M[k * n + q];
          M[k * n + p] = c * mp - s * mq, M[k * n + q] = s * mp + c * mq;
        }
        for (int k = 0; k < n; k++) { /* rows p, q */
          double mp = M[p * n + k], mq = M[q * n + k];
          M[p * n + k] = c * mp - s * mq, M[q * n + k] = s * mp + c * mq;
        }
      }
  }
  for (int i = 0; i < n; i++) lambda[i] = M[i * n + i];
}

/* the rigid modes at the nodes: translations x, y and the rotation about the origin */
static void rigid_mode(int mode, int nn, const double *xe, double *u) {
  for (int a = 0; a < nn; a++) {
    u[2 * a] = mode == 0 ? 1 : mode == 1 ? 0 : -xe[2 * a + 1];
    u[2 * a + 1] = mode == 0 ? 0 : mode == 1 ? 1 : xe[2 * a];
  }
}

static void matvec(int n, const double *K, const double *u, double *f) {
  for (int i = 0; i < n; i++) {
    f[i] = 0;
    for (int j = 0; j < n; j++) f[i] += K[i * n + j] * u[j];
  }
}

static double dot(int n, const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

Test(fe_tri, stiffness_is_symmetric_with_exactly_the_three_rigid_modes) {
  lcg_seed(5);
  double D[9];
  cl_tri_elasticity(70e9, 0.3, 0, D);
  for (int order = 1; order <= 2; order++) {
    const int nn = cl_tri_nodes(order), nd = 2 * nn;
    for (int t = 0; t < 10; t++) {
      double xe[ND], K[ND * ND], lambda[ND];
      random_element(xe, 0);
      cl_tri_stiffness(order, xe, D, 0.01, K);
      const double kmax = max_abs(K, nd * nd);
      for (int i = 0; i < nd; i++)
        for (int j = 0; j < i; j++)
          cr_assert(fabs(K[i * nd + j] - K[j * nd + i]) <= 1e-13 * kmax, "order %d: K not symmetric", order);
      for (int mode = 0; mode < 3; mode++) {
        double u[ND], f[ND];
        rigid_mode(mode, nn, xe, u);
        matvec(nd, K, u, f);
        cr_assert(max_abs(f, nd) <= 1e-9 * kmax * max_abs(u, nd), "order %d: rigid mode %d has force %g", order,
                  mode, max_abs(f, nd));
      }
      eigenvalues(nd, K, lambda);
      int zero = 0;
      for (int i = 0; i < nd; i++) {
        cr_assert_gt(lambda[i], -1e-10 * kmax, "order %d: negative eigenvalue %g", order, lambda[i]);
        zero += lambda[i] < 1e-10 * kmax;
      }
      cr_assert_eq(zero, 3, "order %d: %d zero-energy modes", order, zero);
      for (int s = 0; s < 5; s++) { /* random displacements made orthogonal to the rigid modes */
        double u[ND], r[3][ND], f[ND];
        for (int i = 0; i < nd; i++) u[i] = lcg_uniform(-1, 1);
        for (int mode = 0; mode < 3; mode++) { /* Gram-Schmidt on the modes, then project them out of u */
          rigid_mode(mode, nn, xe, r[mode]);
          for (int m = 0; m < mode; m++) {
            double c = dot(nd, r[mode], r[m]);
            for (int i = 0; i < nd; i++) r[mode][i] -= c * r[m][i];
          }
          double norm = sqrt(dot(nd, r[mode], r[mode]));
          for (int i = 0; i < nd; i++) r[mode][i] /= norm;
          double c = dot(nd, u, r[mode]);
          for (int i = 0; i < nd; i++) u[i] -= c * r[mode][i];
        }
        matvec(nd, K, u, f);
        cr_assert_gt(dot(nd, u, f), 1e-6 * kmax * dot(nd, u, u), "order %d: non-rigid u without energy", order);
      }
    }
  }
}

Test(fe_tri, matrix_free_internal_force_equals_k_u) {
  lcg_seed(6);
  for (int plane_strain = 0; plane_strain <= 1; plane_strain++) {
    double D[9];
    cl_tri_elasticity(lcg_uniform(1, 200), lcg_uniform(0, 0.45), plane_strain, D);
    for (int order = 1; order <= 2; order++) {
      const int nd = 2 * cl_tri_nodes(order);
      for (int t = 0; t < 10; t++) {
        double xe[ND], K[ND * ND], u[ND], Ku[ND], f[ND];
        random_element(xe, t % 2 ? 0.05 : 0); /* also curved T6: both sums are the same quadrature */
        const double thickness = lcg_uniform(0.1, 2);
        cl_tri_stiffness(order, xe, D, thickness, K);
        for (int i = 0; i < nd; i++) u[i] = lcg_uniform(-1, 1);
        matvec(nd, K, u, Ku);
        cl_tri_internal_force(order, xe, D, thickness, u, f);
        for (int i = 0; i < nd; i++)
          cr_assert(fabs(f[i] - Ku[i]) <= 1e-12 * max_abs(Ku, nd), "order %d: f_%d = %.17g, K u = %.17g", order, i,
                    f[i], Ku[i]);
      }
    }
  }
}

/* ---- masses --------------------------------------------------------------- */

Test(fe_tri, lumped_masses_sum_to_the_element_mass) {
  lcg_seed(7);
  for (int t = 0; t < 20; t++) {
    double xe[ND], m[NN];
    random_element(xe, 0);
    const double rho = lcg_uniform(1, 8000), thickness = lcg_uniform(0.01, 1);
    const double total = rho * area_of(xe) * thickness;
    for (int order = 1; order <= 2; order++) {
      cl_tri_lumped_mass(order, xe, rho, thickness, m);
      double sum = 0;
      for (int a = 0; a < cl_tri_nodes(order); a++) {
        cr_assert_gt(m[a], 0);
        sum += m[a];
        /* T3: thirds; straight-sided T6 under HRZ: 3/57 corners, 16/57 mid-sides */
        const double share = order == 1 ? 1. / 3 : a < 3 ? 3. / 57 : 16. / 57;
        cr_assert_float_eq(m[a], share * total, 1e-13 * total, "order %d: m_%d = %.17g of %.17g", order, a, m[a],
                           total);
      }
      cr_assert_float_eq(sum, total, 1e-13 * total, "order %d: sum %.17g, rho A t %.17g", order, sum, total);
    }
  }
}

Test(fe_tri, lumped_masses_of_a_curved_t6_stay_positive_and_sum_to_its_mass) {
  lcg_seed(8);
  for (int t = 0; t < 20; t++) {
    double xe[ND], m[NN], sum = 0;
    random_element(xe, 0.1);
    /* area of the curved element: the straight one plus the parabolic segments
     * (Archimedes: 4/3 of the triangle each bent mid-side node makes with its edge) */
    double area = area_of(xe);
    for (int a = 0; a < 3; a++) {
      int b = (a + 1) % 3;
      const double *p = xe + 2 * a, *q = xe + 2 * b, *mid = xe + 2 * (3 + a);
      const double cross = (q[0] - p[0]) * (mid[1] - p[1]) - (q[1] - p[1]) * (mid[0] - p[0]);
      area -= 4. / 3 * cross / 2; /* a mid-side node left of its edge (inside) takes area away */
    }
    cl_tri_lumped_mass(2, xe, 2, 3, m);
    for (int a = 0; a < 6; a++) {
      cr_assert_gt(m[a], 0);
      sum += m[a];
    }
    cr_assert_float_eq(sum, 2 * 3 * area, 1e-13, "sum %.17g, rho A t %.17g", sum, 6 * area);
  }
}

/* ---- elasticity and stresses ---------------------------------------------- */

Test(fe_tri, elasticity_matches_the_textbook_matrices) {
  const double E = 210e9, nu = 0.3;
  double D[9];
  const double s = E / (1 - nu * nu);
  const double stress[9] = {s, s * nu, 0, s * nu, s, 0, 0, 0, s * (1 - nu) / 2};
  const double e = E / ((1 + nu) * (1 - 2 * nu));
  const double strain[9] = {e * (1 - nu), e * nu, 0, e * nu, e * (1 - nu), 0, 0, 0, e * (1 - 2 * nu) / 2};
  cl_tri_elasticity(E, nu, 0, D);
  for (int i = 0; i < 9; i++) cr_assert_float_eq(D[i], stress[i], 1e-15 * E, "plane stress D[%d] = %g", i, D[i]);
  cl_tri_elasticity(E, nu, 1, D);
  for (int i = 0; i < 9; i++) cr_assert_float_eq(D[i], strain[i], 1e-15 * E, "plane strain D[%d] = %g", i, D[i]);
}

/* A uniaxial stress s along x, from the in-plane strains of plane stress
 * (exx = s/E, eyy = -nu s/E) or of plane strain (exx = (1 - nu^2) s/E,
 * eyy = -nu (1 + nu) s/E), gives (s, 0, 0) at every Gauss point. */
Test(fe_tri, uniaxial_strain_gives_uniaxial_stress) {
  lcg_seed(9);
  const double E = 3.24e9, nu = 0.35, s = 1e6;
  for (int plane_strain = 0; plane_strain <= 1; plane_strain++) {
    double D[9];
    cl_tri_elasticity(E, nu, plane_strain, D);
    const double exx = (plane_strain ? 1 - nu * nu : 1) * s / E, eyy = -nu * (plane_strain ? 1 + nu : 1) * s / E;
    for (int order = 1; order <= 2; order++) {
      double xe[ND], ue[ND];
      random_element(xe, 0);
      for (int a = 0; a < cl_tri_nodes(order); a++) ue[2 * a] = exx * xe[2 * a] + 1, ue[2 * a + 1] = eyy * xe[2 * a + 1];
      for (int k = 0; k < cl_tri_ngauss(order); k++) {
        double sigma[3];
        cr_assert_gt(cl_tri_stress_at_gauss(order, xe, D, ue, k, sigma), 0);
        cr_assert_float_eq(sigma[0], s, 1e-9 * s, "sxx = %.17g", sigma[0]);
        cr_assert_float_eq(sigma[1], 0, 1e-9 * s, "syy = %g", sigma[1]);
        cr_assert_float_eq(sigma[2], 0, 1e-9 * s, "sxy = %g", sigma[2]);
      }
    }
  }
}

/* ---- inverted elements ---------------------------------------------------- */

Test(fe_tri, an_inverted_element_has_a_negative_jacobian) {
  lcg_seed(10);
  for (int order = 1; order <= 2; order++) {
    double xe[ND], flipped[ND];
    random_element(xe, 0);
    /* clockwise: swap corners 1 and 2, and with them mid-sides 3 (0-1) and 5 (2-0) */
    static const int perm[NN] = {0, 2, 1, 5, 4, 3};
    for (int a = 0; a < NN; a++) flipped[2 * a] = xe[2 * perm[a]], flipped[2 * a + 1] = xe[2 * perm[a] + 1];
    for (int k = 0; k < cl_tri_ngauss(order); k++) {
      double xi, eta, w, N[NN], dN[ND], Jinv[4];
      cl_tri_gauss(order, k, &xi, &eta, &w);
      cl_tri_shape(order, xi, eta, N, dN);
      const double det = cl_tri_jacobian(order, xe, dN, Jinv), det_flipped = cl_tri_jacobian(order, flipped, dN, Jinv);
      cr_assert_float_eq(det, 2 * area_of(xe), 1e-14, "det J = twice the area");
      cr_assert_float_eq(det_flipped, -det, 1e-14, "order %d: inverted det J = %g", order, det_flipped);
    }
  }
}
