/* Element math of the Lagrange quadrilaterals (kernels/fe/quad.h) and the shape-generic
 * interface (kernels/fe/element.h) in double precision: partition of unity, interpolation
 * of the nodes, exactness of the Gauss rules, and the patch test on a distorted patch of
 * 2 x 2 elements for Q4, Q9, Q16 (and T3, T6 through the same interface); sum factorization
 * (kernels/fe/quad_sum.h) against the per-point gradients. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../../kernels/fe/element.h"
#include "../../kernels/fe/quad_sum.h"
#include "lcg.h"

TestSuite(fe_element, .timeout = 60);

Test(fe_element, quad_shape_functions_partition_unity_and_interpolate_the_nodes) {
  lcg_seed(3);
  for (int p = 1; p <= 3; p++) {
    const int nn = cl_quad_nodes(p);
    double N[CL_QUAD_MAX_NODES], dN[CL_QUAD_MAX_DOFS];
    for (int t = 0; t < 20; t++) {
      double xi = lcg_uniform(-1, 1), eta = lcg_uniform(-1, 1), sum = 0, dsum[2] = {0, 0}, x = 0, dxx = 0;
      cl_quad_shape(p, xi, eta, N, dN);
      for (int a = 0; a < nn; a++) {
        const double ta = -1 + 2.0 * (a % (p + 1)) / p;
        sum += N[a], dsum[0] += dN[2 * a], dsum[1] += dN[2 * a + 1];
        x += N[a] * ta * ta * ta, dxx += dN[2 * a] * ta * ta * ta; /* reproduces xi^p exactly (p = 3: xi^3) */
      }
      cr_assert(fabs(sum - 1) < 1e-14 && fabs(dsum[0]) < 1e-13 && fabs(dsum[1]) < 1e-13, "p %d: sums", p);
      if (p == 3) cr_assert(fabs(x - xi * xi * xi) < 1e-14 && fabs(dxx - 3 * xi * xi) < 1e-13, "cubic");
    }
    for (int b = 0; b < nn; b++) {
      cl_quad_shape(p, -1 + 2.0 * (b % (p + 1)) / p, -1 + 2.0 * (b / (p + 1)) / p, N, dN);
      for (int a = 0; a < nn; a++) cr_assert(fabs(N[a] - (a == b)) < 1e-14, "p %d: N_%d at node %d = %g", p, a, b, N[a]);
    }
  }
}

/* The n-point Gauss-Legendre rule integrates t^k exactly for k <= 2n - 1, and not t^2n. */
Test(fe_element, gauss_legendre_rules_have_degree_2n_minus_1) {
  for (int n = 1; n <= 4; n++) {
    for (int k = 0; k <= 2 * n; k++) {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        double t, w;
        cl_gauss_legendre(n, i, &t, &w);
        sum += w * pow(t, k);
      }
      const double exact = k % 2 ? 0 : 2.0 / (k + 1);
      if (k < 2 * n) cr_assert(fabs(sum - exact) < 1e-15, "n %d, t^%d: %.17g vs %.17g", n, k, sum, exact);
      else cr_assert(fabs(sum - exact) > 1e-3, "n %d integrates t^%d exactly: too high a degree?", n, k);
    }
  }
}

/* ---- patch test ------------------------------------------------------------
 * A patch of 2 x 2 quadrilaterals of order p (a (2p + 1)^2 grid of nodes on [0, 2]^2) whose
 * centre node is moved off the grid and whose element-interior nodes follow an affine map of
 * each distorted element; triangles: each quadrilateral cut along a diagonal. The boundary
 * nodes get the displacement of a linear field; the interior displacements are solved from
 * K u = 0. A conforming element passes when the solution is the linear field everywhere and
 * every Gauss point has its constant strain (Zienkiewicz & Taylor vol. 1, ch. 10). */
#define GRID_MAX 7 /* 2 p + 1 */
#define PATCH_DOFS (2 * GRID_MAX * GRID_MAX)

static void linear_field(const double *x, double *u) {
  u[0] = 1e-3 * (1 + 2 * x[0] - 3 * x[1]);
  u[1] = 1e-3 * (-2 + 0.5 * x[0] + 4 * x[1]);
}
static const double exact_strain[3] = {2e-3, 4e-3, -3e-3 + 0.5e-3};

/* Gaussian elimination with partial pivoting on the n x n system A x = b (row stride n). */
static void dense_solve(int n, double *A, double *b) {
  for (int k = 0; k < n; k++) {
    int piv = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[i * n + k]) > fabs(A[piv * n + k])) piv = i;
    for (int j = 0; j < n; j++) {
      double t = A[k * n + j];
      A[k * n + j] = A[piv * n + j], A[piv * n + j] = t;
    }
    double t = b[k];
    b[k] = b[piv], b[piv] = t;
    for (int i = k + 1; i < n; i++) {
      const double f = A[i * n + k] / A[k * n + k];
      for (int j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
      b[i] -= f * b[k];
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    for (int j = k + 1; j < n; j++) b[k] -= A[k * n + j] * b[j];
    b[k] /= A[k * n + k];
  }
}

/* The node index of grid point (i, j) and its position: the grid of spacing 1/p, the centre
 * moved to (1.15, 0.9) and each element's nodes placed by the bilinear map of its corners. */
static void grid_point(int p, int i, int j, double *x) {
  const double corner[3] = {0, 1, 2};
  const int ci = i / p < 2 ? i / p : 1, cj = j / p < 2 ? j / p : 1; /* element (ci, cj) */
  const double s = (double)(i - ci * p) / p, t = (double)(j - cj * p) / p;
  double cx[4][2];
  for (int q = 0; q < 4; q++) {
    const int gi = ci + (q & 1), gj = cj + (q >> 1);
    cx[q][0] = corner[gi], cx[q][1] = corner[gj];
    if (gi == 1 && gj == 1) cx[q][0] = 1.15, cx[q][1] = 0.9;
  }
  for (int c = 0; c < 2; c++)
    x[c] = (1 - s) * (1 - t) * cx[0][c] + s * (1 - t) * cx[1][c] + (1 - s) * t * cx[2][c] + s * t * cx[3][c];
}

/* Elements of the patch: nodes (grid indices) of each, in the shape's own order. Returns the
 * element count. Quads: lexicographic. Triangles (order p <= 2): both halves of each quad cell
 * of the order-p grid, corners counter-clockwise then mid-sides as tri.h. */
static int patch_elements(int shape, int p, int G, int elems[8][16]) {
  int ne = 0;
  for (int cj = 0; cj < 2; cj++)
    for (int ci = 0; ci < 2; ci++) {
      if (shape == CL_FE_QUAD) {
        for (int j = 0; j <= p; j++)
          for (int i = 0; i <= p; i++) elems[ne][i + (p + 1) * j] = (ci * p + i) + G * (cj * p + j);
        ne++;
        continue;
      }
      const int i0 = ci * p, j0 = cj * p;
#define GI(di, dj) ((i0 + (di)) + G * (j0 + (dj)))
      if (p == 1) {
        const int a[3] = {GI(0, 0), GI(1, 0), GI(1, 1)}, b[3] = {GI(0, 0), GI(1, 1), GI(0, 1)};
        memcpy(elems[ne++], a, sizeof a), memcpy(elems[ne++], b, sizeof b);
      } else {
        const int a[6] = {GI(0, 0), GI(2, 0), GI(2, 2), GI(1, 0), GI(2, 1), GI(1, 1)};
        const int b[6] = {GI(0, 0), GI(2, 2), GI(0, 2), GI(1, 1), GI(1, 2), GI(0, 1)};
        memcpy(elems[ne++], a, sizeof a), memcpy(elems[ne++], b, sizeof b);
      }
#undef GI
    }
  return ne;
}

static void patch_test(int shape, int p, int plane_strain) {
  const int G = 2 * p + 1, nnode = G * G, ndof = 2 * nnode, nn = cl_fe_nodes(shape, p);
  static double K[PATCH_DOFS * PATCH_DOFS], x[PATCH_DOFS], u[PATCH_DOFS], Kff[PATCH_DOFS * PATCH_DOFS], rhs[PATCH_DOFS];
  int elems[8][16], freedof[PATCH_DOFS], nfree = 0;
  memset(K, 0, sizeof K);
  for (int j = 0; j < G; j++)
    for (int i = 0; i < G; i++) grid_point(p, i, j, x + 2 * (i + G * j));
  double D[9];
  cl_tri_elasticity(200e9, 0.3, plane_strain, D);
  const int ne = patch_elements(shape, p, G, elems);
  for (int e = 0; e < ne; e++) {
    double xe[CL_FE_MAX_DOFS], Ke[CL_FE_MAX_DOFS * CL_FE_MAX_DOFS] = {0};
    for (int a = 0; a < nn; a++) xe[2 * a] = x[2 * elems[e][a]], xe[2 * a + 1] = x[2 * elems[e][a] + 1];
    for (int k = 0; k < cl_fe_ngauss(shape, p); k++) {
      double xi, eta, w, g[CL_FE_MAX_DOFS];
      cl_fe_gauss(shape, p, k, &xi, &eta, &w);
      const double det = cl_fe_gradients(shape, p, xe, xi, eta, g);
      cr_assert(det > 0, "element %d inverted", e);
      cl_fe_add_btdb(nn, g, D, w * det, Ke);
    }
    for (int r = 0; r < 2 * nn; r++)
      for (int c = 0; c < 2 * nn; c++)
        K[(2 * elems[e][r / 2] + r % 2) * ndof + 2 * elems[e][c / 2] + c % 2] += Ke[r * 2 * nn + c];
  }
  for (int n = 0; n < nnode; n++) {
    const int i = n % G, j = n / G, boundary = i == 0 || j == 0 || i == G - 1 || j == G - 1;
    linear_field(x + 2 * n, u + 2 * n);
    if (!boundary) freedof[nfree++] = 2 * n, freedof[nfree++] = 2 * n + 1;
  }
  for (int a = 0; a < nfree; a++) {
    rhs[a] = 0;
    for (int c = 0; c < ndof; c++) {
      int is_free = 0;
      for (int b = 0; b < nfree; b++) is_free |= freedof[b] == c;
      if (!is_free) rhs[a] -= K[freedof[a] * ndof + c] * u[c];
    }
    for (int b = 0; b < nfree; b++) Kff[a * nfree + b] = K[freedof[a] * ndof + freedof[b]];
  }
  dense_solve(nfree, Kff, rhs);
  for (int a = 0; a < nfree; a++)
    cr_assert(fabs(rhs[a] - u[freedof[a]]) < 1e-13, "shape %d p %d: dof %d: %.17g vs %.17g", shape, p, freedof[a],
              rhs[a], u[freedof[a]]);
  for (int a = 0; a < nfree; a++) u[freedof[a]] = rhs[a];
  for (int e = 0; e < ne; e++) {
    double xe[CL_FE_MAX_DOFS], ue[CL_FE_MAX_DOFS];
    for (int a = 0; a < 2 * nn; a++) xe[a] = x[2 * elems[e][a / 2] + a % 2], ue[a] = u[2 * elems[e][a / 2] + a % 2];
    for (int k = 0; k < cl_fe_ngauss(shape, p); k++) {
      double xi, eta, w, g[CL_FE_MAX_DOFS], eps[3];
      cl_fe_gauss(shape, p, k, &xi, &eta, &w);
      cl_fe_gradients(shape, p, xe, xi, eta, g);
      cl_fe_strain(nn, g, ue, eps);
      for (int c = 0; c < 3; c++)
        cr_assert(fabs(eps[c] - exact_strain[c]) < 1e-13, "shape %d p %d e %d k %d: eps %d = %g", shape, p, e, k, c,
                  eps[c]);
    }
  }
}

Test(fe_element, quadrilaterals_pass_the_patch_test_at_every_order) {
  for (int p = 1; p <= 3; p++) patch_test(CL_FE_QUAD, p, 1), patch_test(CL_FE_QUAD, p, 0);
}

Test(fe_element, triangles_pass_the_patch_test_through_the_same_interface) {
  for (int p = 1; p <= 2; p++) patch_test(CL_FE_TRI, p, 1);
}

/* The interface gives the same gradients and determinant as tri.h's own for a T6. */
Test(fe_element, triangle_gradients_match_tri_h) {
  const double xe[12] = {0, 0, 2, 0.2, 0.3, 1.5, 1, 0.1, 1.2, 0.9, 0.1, 0.8};
  double g1[12], g2[12];
  const double d1 = cl_fe_gradients(CL_FE_TRI, 2, xe, 0.2, 0.3, g1), d2 = cl_tri_gradients(2, xe, 0.2, 0.3, g2);
  cr_assert(fabs(d1 - d2) < 1e-14 * fabs(d2));
  for (int a = 0; a < 12; a++) cr_assert(fabs(g1[a] - g2[a]) < 1e-13, "dof %d", a);
}

/* Sum factorization (quad_sum.h) computes the same integrals as the per-point gradients of
 * cl_fe_gradients, only summed in another order: on a curved, distorted element of each order with a
 * random displacement increment and a random stress per Gauss point, det J and the strain at every
 * point, and the element force sum_k w_k t det J_k B_k^T sig_k, agree to 1e-13 relative (rounding of
 * sums of at most 64 terms of magnitude <= 10; a wrong table, index or J^-T would be O(1) off). */
Test(fe_element, sum_factorization_gives_the_per_point_gradients_strains_and_forces) {
  lcg_seed(11);
  const double t = 0.7; /* thickness: W's every factor matters */
  for (int p = 1; p <= 3; p++) {
    const int p1 = p + 1, nn = p1 * p1;
    double xe[CL_QUAD_MAX_DOFS], du[CL_QUAD_MAX_DOFS], L[16], dL[16], s1[8 * 16], s2[4 * 16], s3[4 * 16];
    double sig[16][3], fref[CL_QUAD_MAX_DOFS] = {0}, fmax = 0;
    for (int a = 0; a < nn; a++) { /* a bent, sheared square: curved edges, non-affine map */
      const double s = -1 + 2.0 * (a % p1) / p, r = -1 + 2.0 * (a / p1) / p;
      xe[2 * a] = 2 + s + 0.3 * r + 0.1 * r * r + lcg_uniform(-0.05, 0.05);
      xe[2 * a + 1] = 1 + 0.8 * r - 0.2 * s * s + lcg_uniform(-0.05, 0.05);
      du[2 * a] = lcg_uniform(-1e-3, 1e-3), du[2 * a + 1] = lcg_uniform(-1e-3, 1e-3);
    }
    for (int q = 0; q < p1; q++) cl_quad_sum_table_row(p, q, L, dL);
    for (int m = 0; m < nn; m++) cl_quad_sum_xi(p, m, L, dL, xe, du, 1, s1);
    for (int k = 0; k < nn; k++) {
      double xi, eta, w, grad[CL_QUAD_MAX_DOFS], eps[3], J[4], gu[4], eps_sum[3];
      cl_quad_gauss(p, k, &xi, &eta, &w);
      const double det = cl_fe_gradients(CL_FE_QUAD, p, xe, xi, eta, grad);
      cl_fe_strain(nn, grad, du, eps);
      cl_quad_sum_eta(p, k, L, dL, s1, 1, J, gu);
      const double det_sum = cl_quad_sum_strain(J, gu, eps_sum);
      cr_assert(fabs(det_sum - det) < 1e-13 * fabs(det), "p %d point %d: det J %.17g, per point %.17g", p, k, det_sum, det);
      for (int c = 0; c < 3; c++)
        cr_assert(fabs(eps_sum[c] - eps[c]) < 1e-13 * 1e-2, "p %d point %d: strain %d %.17g, per point %.17g", p, k, c,
                  eps_sum[c], eps[c]);
      for (int c = 0; c < 3; c++) sig[k][c] = lcg_uniform(-10, 10);
      cl_fe_add_btsig(nn, grad, sig[k], w * det * t, fref);
      cl_quad_sum_flux(p, k, J, sig[k], w * t, 1, s2);
    }
    for (int i = 0; i < 2 * nn; i++) fmax = fmax > fabs(fref[i]) ? fmax : fabs(fref[i]);
    for (int m = 0; m < nn; m++) cl_quad_sum_flux_xi(p, m, L, dL, s2, 1, s3);
    for (int a = 0; a < nn; a++) {
      double f[2];
      cl_quad_sum_force(p, a, L, dL, s3, 1, f);
      for (int c = 0; c < 2; c++)
        cr_assert(fabs(f[c] - fref[2 * a + c]) < 1e-13 * fmax, "p %d node %d force %d: %.17g, per point %.17g", p, a, c,
                  f[c], fref[2 * a + c]);
    }
  }
}

/* One element's passes of sum factorization at element stride 3 (slot 1), in the GPU kernel's shared
 * arrangement (fe_ep_sum_kernel: du | xe | s1, the fluxes over du | xe, the third pass over s1), the
 * other slots NaN: the node forces equal the stride-1 passes' exactly (the same operations in the same
 * order). A stride or aliasing error reads a NaN or a value overwritten too early; the CPU runs stride 1
 * only, so this is where the GPU's indexing is checked. */
Test(fe_element, sum_factorization_at_a_stride_in_the_gpu_arrangement_gives_the_same_forces) {
  lcg_seed(5);
  enum { S = 3, X = 1 };
  for (int p = 1; p <= 3; p++) {
    const int p1 = p + 1, nn = p1 * p1;
    double xe[CL_QUAD_MAX_DOFS], du[CL_QUAD_MAX_DOFS], L[16], dL[16], s1[8 * 16], s2[4 * 16], sig[16][3];
    double shared[12 * 16 * S];
    for (int i = 0; i < 12 * 16 * S; i++) shared[i] = NAN;
    double *du_s = shared + X, *xe_s = du_s + S * 2 * nn, *s1_s = xe_s + S * 2 * nn, *s2_s = du_s;
    for (int i = 0; i < 2 * nn; i++) {
      xe[i] = lcg_uniform(0, 1) + (i & 1 ? i / 2 / p1 : i / 2 % p1), du[i] = lcg_uniform(-1e-3, 1e-3);
      xe_s[i * S] = xe[i], du_s[i * S] = du[i];
    }
    for (int k = 0; k < nn; k++)
      for (int c = 0; c < 3; c++) sig[k][c] = lcg_uniform(-10, 10);
    for (int q = 0; q < p1; q++) cl_quad_sum_table_row(p, q, L, dL);
    /* stride 1, separate arrays */
    for (int m = 0; m < nn; m++) cl_quad_sum_xi(p, m, L, dL, xe, du, 1, s1);
    for (int k = 0; k < nn; k++) {
      double J[4], gu[4], eps[3];
      cl_quad_sum_eta(p, k, L, dL, s1, 1, J, gu);
      cl_quad_sum_strain(J, gu, eps);
      cl_quad_sum_flux(p, k, J, sig[k], 0.5 + eps[0], 1, s2);
    }
    for (int m = 0; m < nn; m++) cl_quad_sum_flux_xi(p, m, L, dL, s2, 1, s1);
    /* stride S, the kernel's arrangement: each pass for every index before the next (the barriers) */
    for (int m = 0; m < nn; m++) cl_quad_sum_xi(p, m, L, dL, xe_s, du_s, S, s1_s);
    for (int k = 0; k < nn; k++) {
      double J[4], gu[4], eps[3];
      cl_quad_sum_eta(p, k, L, dL, s1_s, S, J, gu);
      cl_quad_sum_strain(J, gu, eps);
      cl_quad_sum_flux(p, k, J, sig[k], 0.5 + eps[0], S, s2_s);
    }
    for (int m = 0; m < nn; m++) cl_quad_sum_flux_xi(p, m, L, dL, s2_s, S, s1_s);
    for (int a = 0; a < nn; a++) {
      double f[2], fs[2];
      cl_quad_sum_force(p, a, L, dL, s1, 1, f);
      cl_quad_sum_force(p, a, L, dL, s1_s, S, fs);
      cr_assert(f[0] == fs[0] && f[1] == fs[1] && f[0] == f[0], "p %d node %d: stride %d gives %.17g %.17g, stride 1 %.17g %.17g",
                p, a, S, fs[0], fs[1], f[0], f[1]);
    }
  }
}
