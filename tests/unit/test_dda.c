/* DDA math (kernels/dda/): the block integrals against quadrature, polygon triangulation, the
 * contact gaps' linearisation, the open-close rule, and the device solver on random block-sparse
 * SPD matrices: the HSBCSR and BSR products against a dense one, PCG with both preconditioners. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dda/assembly_ops.h"
#include "../../kernels/dda/block.h"
#include "../../kernels/dda/block_kernels.h"
#include "../../kernels/dda/broad.h"
#include "../../kernels/dda/contact_kernels.h"
#include "../../kernels/dda/contact.h"
#include "../../kernels/dda/contacts.h"
#include "../../kernels/dda/detect.h"
#include "../../kernels/dda/model.h"
#include "../../kernels/dda/narrow_kernels.h"
#include "../../kernels/dda/pcg.h"
#include "../../kernels/dda/pcg_kernels.h"
#include "../../kernels/dda/pcg_scalars.h"
#include "../../kernels/dda/polygon.h"
#include "../../kernels/dda/random_system.h"
#include "../../kernels/backend.h"
#include "../../kernels/dispatch.h"
#include "../../runtime/field.h"
#include "lcg.h"

TestSuite(dda, .timeout = 60);

/* int T^T T over the rectangle [x0, x1] x [y0, y1] by 3-point Gauss-Legendre per axis (exact for
 * the quadratic integrand). */
static void mass_by_quadrature(double x0, double x1, double y0, double y1, double xc, double yc, double M[36]) {
  const double g[3] = {-sqrt(0.6), 0, sqrt(0.6)}, w[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
  memset(M, 0, 36 * sizeof *M);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double x = (x0 + x1) / 2 + g[a] * (x1 - x0) / 2, y = (y0 + y1) / 2 + g[b] * (y1 - y0) / 2;
      double weight = w[a] * w[b] * (x1 - x0) * (y1 - y0) / 4, t[12];
      cl_dda_t_at(x - xc, y - yc, t);
      for (int k = 0; k < 6; k++)
        for (int l = 0; l < 6; l++) M[6 * k + l] += weight * (t[k] * t[l] + t[6 + k] * t[6 + l]);
    }
}

Test(dda, mass_integral_matches_quadrature) {
  /* a rectangle far from the origin, given by its corners counter-clockwise */
  double x[4] = {100, 102, 102, 100}, y[4] = {50, 50, 51.5, 51.5};
  cl_dda_moments mo = cl_dda_polygon_moments(x, y, 4);
  cr_assert_float_eq(mo.S, 3, 1e-12);
  cr_assert_float_eq(mo.x0, 101, 1e-12);
  cr_assert_float_eq(mo.y0, 50.75, 1e-12);
  double M[36], Q[36];
  cl_dda_mass_integral(&mo, M);
  mass_by_quadrature(100, 102, 50, 51.5, mo.x0, mo.y0, Q);
  for (int k = 0; k < 36; k++) cr_assert(fabs(M[k] - Q[k]) <= 1e-11, "M[%d] = %.17g, quadrature %.17g", k, M[k], Q[k]);
}

Test(dda, concave_polygon_triangulation_keeps_area) {
  /* a comb: concave, 12 vertices, counter-clockwise */
  double x[12] = {0, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0}, y[12] = {0, 0, 3, 3, 1, 1, 3, 3, 1, 1, 3, 3};
  int32_t tri[30];
  int n = cl_dda_triangulate(x, y, 12, tri);
  cr_assert_eq(n, 10, "triangles: %d", n);
  double area = 0;
  for (int k = 0; k < n; k++) {
    int a = tri[3 * k], b = tri[3 * k + 1], c = tri[3 * k + 2];
    double t = ((x[b] - x[a]) * (y[c] - y[a]) - (y[b] - y[a]) * (x[c] - x[a])) / 2;
    cr_assert(t > 0, "triangle %d is not counter-clockwise", k);
    area += t;
  }
  cl_dda_moments mo = cl_dda_polygon_moments(x, y, 12);
  cr_assert_float_eq(area, mo.S, 1e-12);
  cr_assert_float_eq(mo.S, 5 + 3 * 2 - 0, 1e-12); /* base 5 x 1 plus three teeth 1 x 2 */
}

Test(dda, contact_gaps_are_the_first_order_motion) {
  /* vertex P of block i 1e-4 above edge p2 -> p3 of block j, the shear anchor at P's foot (as for
   * a new contact); both blocks moved by a small random D: the gaps to the moved edge (its own
   * normal and tangent) match gn0 + en.Di - fn.Dj and gs0 + es.Di - fs.Dj to O(|D| gap + |D|^2) */
  lcg_seed(7);
  double x2 = 1, y2 = 0, x3 = -1, y3 = 0.2, dx = x3 - x2, dy = y3 - y2, l = hypot(dx, dy);
  double nx = dy / l, ny = -dx / l, t_ref = 0.35;
  double px = x2 + t_ref * dx + 1e-4 * nx, py = y2 + t_ref * dy + 1e-4 * ny;
  double xi = 0.2, yi = 0.6, xj = 0.1, yj = -0.5;
  cl_dda_contact_geometry g = cl_dda_contact_at(px, py, x2, y2, x3, y3, t_ref, xi, yi, xj, yj);
  cr_assert_float_eq(g.gn0, 1e-4, 1e-15);
  cr_assert(fabs(g.gs0) < 1e-15, "a new contact's shear spring is unstretched");
  double Di[6], Dj[6], h = 1e-6;
  for (int k = 0; k < 6; k++) Di[k] = h * lcg_uniform(-1, 1), Dj[k] = h * lcg_uniform(-1, 1);
  double qx = x2 + t_ref * dx, qy = y2 + t_ref * dy, pts[4][2] = {{px, py}, {x2, y2}, {x3, y3}, {qx, qy}};
  for (int p = 0; p < 4; p++) {
    double t[12], X = pts[p][0], Y = pts[p][1];
    cl_dda_t_at(X - (p ? xj : xi), Y - (p ? yj : yi), t);
    for (int r = 0; r < 2; r++)
      for (int k = 0; k < 6; k++) pts[p][r] += t[6 * r + k] * (p ? Dj : Di)[k];
  }
  double mdx = pts[2][0] - pts[1][0], mdy = pts[2][1] - pts[1][1], ml = hypot(mdx, mdy);
  double gn = (mdy * (pts[0][0] - pts[1][0]) - mdx * (pts[0][1] - pts[1][1])) / ml;
  double gs = (mdx * (pts[0][0] - pts[3][0]) + mdy * (pts[0][1] - pts[3][1])) / ml;
  double ln = cl_dda_gap(g.gn0, g.en, g.fn, Di, Dj), ls = cl_dda_gap(g.gs0, g.es, g.fs, Di, Dj);
  cr_assert(fabs(ln - gn) <= 1e-9, "normal gap: linear %.12g, moved %.12g", ln, gn);
  cr_assert(fabs(ls - gs) <= 1e-9, "shear gap: linear %.12g, moved %.12g", ls, gs);
  cr_assert(fabs(ln - g.gn0) > 1e-8, "the motion changes the gap (the check is not vacuous)");
}

Test(dda, open_close_rule) {
  cl_dda_contact_law law = {.kn = 1e9, .ks = 1e9, .tan_phi = 0.5, .cohesion = 0, .tension = 100,
                            .slip_floor = 1e-12, .force_floor = 1e-3};
  double sgn = 1;
  cr_assert_eq(cl_dda_open_close(CL_DDA_OPEN, -1e-9, 0, 0, &sgn, &law), CL_DDA_LOCK, "penetration closes");
  cr_assert_eq(cl_dda_open_close(CL_DDA_OPEN, 1e-9, 0, 0, &sgn, &law), CL_DDA_OPEN, "a gap stays open");
  cr_assert_eq(cl_dda_open_close(CL_DDA_LOCK, 5e-8, 0, 0, &sgn, &law), CL_DDA_LOCK, "tension 50 < strength 100");
  cr_assert_eq(cl_dda_open_close(CL_DDA_LOCK, 2e-7, 0, 0, &sgn, &law), CL_DDA_OPEN, "tension 200 > 100");
  /* N = 1000, friction 500: shear 400 holds, -600 slides backwards */
  cr_assert_eq(cl_dda_open_close(CL_DDA_LOCK, -1e-6, 4e-7, 0, &sgn, &law), CL_DDA_LOCK, "shear below friction");
  cr_assert_eq(cl_dda_open_close(CL_DDA_LOCK, -1e-6, -6e-7, 0, &sgn, &law), CL_DDA_SLIDE, "shear above friction");
  cr_assert_eq(sgn, -1, "slides the way it is sheared");
  cr_assert_eq(cl_dda_open_close(CL_DDA_SLIDE, -1e-6, -2e-6, -1e-6, &sgn, &law), CL_DDA_SLIDE, "keeps sliding");
  cr_assert_eq(cl_dda_open_close(CL_DDA_SLIDE, -1e-6, 0, -1e-6, &sgn, &law), CL_DDA_LOCK, "slip turned back");
}

/* A random SPD block matrix: n blocks on a ring with random extra pairs, diagonally dominant. */
static void random_matrix(cl_dda_bsr *a, size_t n, size_t extra) {
  size_t np = n + extra;
  int32_t *pi = malloc(np * sizeof *pi), *pj = malloc(np * sizeof *pj);
  for (size_t k = 0; k < n; k++) pi[k] = (int32_t)k, pj[k] = (int32_t)((k + 1) % n);
  for (size_t k = n; k < np; k++) {
    pi[k] = (int32_t)(lcg_next() % n), pj[k] = (int32_t)(lcg_next() % n);
    if (pi[k] == pj[k]) pj[k] = (pj[k] + 1) % (int32_t)n;
  }
  cl_error err;
  cr_assert_eq(cl_dda_bsr_pattern(a, n, np, pi, pj, &err), CL_OK);
  cr_assert_eq(cl_dda_random_spd(a, 40, 1, &lcg_state, &err), CL_OK);
  free(pi), free(pj);
}

/* The solver of a on a cpu device in the given format (dev: opened here, closed by the caller). */
static void load_solver(cl_device *dev, cl_dda_solver *s, const cl_dda_bsr *a, cl_dda_spmv_format format) {
  cl_error err;
  cr_assert_eq(cl_device_open(dev, "cpu", &err), CL_OK, "%s", err.msg);
  cl_dda_solver_init(s, dev, format);
  cr_assert_eq(cl_dda_solver_load(s, a, &err), CL_OK, "%s", err.msg);
}

/* A block system whose first rows are long: block 0 paired with every other, block 1 with blocks
 * 3 .. 3 + extra - 1, the rest a ring (case 1's fixed base touches ~190 blocks, its mean row is ~12):
 * BSR's product takes a row of more than CL_DDA_BSR_LONG blocks with a whole thread block. */
static void hub_matrix(cl_dda_bsr *a, size_t n, size_t extra) {
  size_t np = 0;
  int32_t *pi = malloc((3 * n + extra) * sizeof *pi), *pj = malloc((3 * n + extra) * sizeof *pj);
  for (size_t k = 1; k + 1 < n; k++) pi[np] = (int32_t)k, pj[np++] = (int32_t)k + 1;
  for (size_t k = 1; k < n; k++) pi[np] = 0, pj[np++] = (int32_t)k;
  for (size_t k = 3; k < 3 + extra && k < n; k++) pi[np] = 1, pj[np++] = (int32_t)k;
  cl_error err;
  cr_assert_eq(cl_dda_bsr_pattern(a, n, np, pi, pj, &err), CL_OK);
  cr_assert_eq(cl_dda_random_spd(a, 6.0 * (double)(n + 1), 1, &lcg_state, &err), CL_OK); /* dominant */
  free(pi), free(pj);
}

/* Both formats' products of a on the cpu against the dense one, to 1e-14 of |A| |x| (any order of
 * the terms is within a few 1e-16 of it). */
static void check_spmv_against_dense(const cl_dda_bsr *a) {
  const size_t n = a->n, m = 6 * n;
  double *dense = calloc(m * m, sizeof *dense), *x = malloc(m * sizeof *x), *ref = calloc(m, sizeof *ref);
  double *y = malloc(m * sizeof *y);
  for (size_t i = 0; i < n; i++)
    for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++)
          dense[(6 * i + r) * m + 6 * (size_t)a->col[p] + c] = a->val[36 * (size_t)p + 6 * r + c];
  for (size_t k = 0; k < m; k++) x[k] = lcg_uniform(-1, 1);
  double scale = 0; /* |A| |x| row by row: the size of the round-off of any order of the sums */
  for (size_t r = 0; r < m; r++) {
    double abs_sum = 0;
    for (size_t c = 0; c < m; c++) ref[r] += dense[r * m + c] * x[c], abs_sum += fabs(dense[r * m + c] * x[c]);
    scale = fmax(scale, abs_sum);
  }
  const cl_dda_spmv_format formats[] = {CL_DDA_HSBCSR, CL_DDA_BSR};
  for (int f = 0; f < 2; f++) {
    cl_device dev;
    cl_dda_solver s;
    cl_error err;
    load_solver(&dev, &s, a, formats[f]);
    cr_assert_eq(cl_dda_solver_spmv(&s, x, y, &err), CL_OK, "%s", err.msg);
    for (size_t r = 0; r < m; r++)
      cr_assert(fabs(y[r] - ref[r]) <= 1e-14 * scale, "format %d, row %zu: %.17g against dense %.17g", f, r, y[r],
                ref[r]);
    cl_dda_solver_free(&s);
    cl_device_close(&dev);
  }
  free(dense), free(x), free(ref), free(y);
}

Test(dda, spmv_hsbcsr_and_bsr_match_dense) {
  lcg_seed(7);
  cl_dda_bsr a = {0};
  random_matrix(&a, 50, 120);
  check_spmv_against_dense(&a);
  cl_dda_bsr_free(&a);
}

/* Rows of 100 and 43 blocks (above CL_DDA_BSR_LONG: a thread block's) beside rows of 3 and 4. */
Test(dda, spmv_long_rows_match_dense) {
  lcg_seed(17);
  cl_dda_bsr a = {0};
  hub_matrix(&a, 100, 40);
  cr_assert(a.rowptr[1] - a.rowptr[0] == 100 && a.rowptr[2] - a.rowptr[1] == 43, "the hub rows' lengths");
  check_spmv_against_dense(&a);
  cl_dda_bsr_free(&a);
}

static void solve_and_check(cl_dda_preconditioner kind, cl_dda_spmv_format format, int *iterations) {
  lcg_seed(42);
  size_t n = 40;
  cl_dda_bsr a = {0};
  random_matrix(&a, n, 60);
  double *b = malloc(6 * n * sizeof *b), *x = calloc(6 * n, sizeof *x), *r = malloc(6 * n * sizeof *r);
  for (size_t k = 0; k < 6 * n; k++) b[k] = lcg_uniform(-1, 1);
  cl_device dev;
  cl_dda_solver s;
  load_solver(&dev, &s, &a, format);
  cl_dda_pcg_result res;
  cl_error err;
  cr_assert_eq(cl_dda_pcg(&s, b, x, x, kind, 1e-12, 0, 1000, &res, &err), CL_OK, "%s", err.msg);
  cr_assert(res.converged, "PCG converged (%d iterations, residual %.3g)", res.iterations, res.residual);
  /* the true residual, computed here block by block */
  double rn = 0, bn = 0;
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 6; c++) {
      double s = b[6 * i + c];
      for (int32_t p = a.rowptr[i]; p < a.rowptr[i + 1]; p++)
        for (int k = 0; k < 6; k++) s -= a.val[36 * (size_t)p + 6 * c + k] * x[6 * (size_t)a.col[p] + k];
      rn += s * s, bn += b[6 * i + c] * b[6 * i + c];
    }
  cr_assert(sqrt(rn / bn) < 1e-11, "true relative residual %.3g", sqrt(rn / bn));
  *iterations = res.iterations;
  /* warm start: from the solution, no iteration is needed */
  cr_assert_eq(cl_dda_pcg(&s, b, x, x, kind, 1e-10, 0, 1000, &res, &err), CL_OK, "%s", err.msg);
  cr_assert(res.converged && res.iterations == 0, "warm start: %d iterations", res.iterations);
  free(b), free(x), free(r);
  cl_dda_solver_free(&s);
  cl_device_close(&dev);
  cl_dda_bsr_free(&a);
}

Test(dda, pcg_both_preconditioners_solve_in_both_formats) {
  for (int f = 0; f < 2; f++) {
    int jacobi, ssor;
    solve_and_check(CL_DDA_BLOCK_JACOBI, (cl_dda_spmv_format)f, &jacobi);
    solve_and_check(CL_DDA_SSOR_AI, (cl_dda_spmv_format)f, &ssor);
    cr_assert(ssor < jacobi, "format %d: SSOR-AI %d iterations, block Jacobi %d", f, ssor, jacobi);
  }
}

/* y = A x, block-major, from the host BSR. */
static void host_product(const cl_dda_bsr *a, const double *x, double *y) {
  for (size_t i = 0; i < a->n; i++)
    for (int r = 0; r < 6; r++) {
      double s = 0;
      for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
        for (int c = 0; c < 6; c++) s += a->val[36 * (size_t)p + 6 * r + c] * x[6 * (size_t)a->col[p] + c];
      y[6 * i + r] = s;
    }
}

/* z = D^-1 r block by block (Gaussian elimination of each diagonal block, SPD: no pivoting). */
static void host_block_jacobi(const cl_dda_bsr *a, const double *r, double *z) {
  for (size_t i = 0; i < a->n; i++) {
    double M[6][7];
    const double *d = a->val + 36 * (size_t)cl_dda_bsr_position(a, (int32_t)i, (int32_t)i);
    for (int u = 0; u < 6; u++) {
      for (int v = 0; v < 6; v++) M[u][v] = d[6 * u + v];
      M[u][6] = r[6 * i + u];
    }
    for (int k = 0; k < 6; k++)
      for (int u = k + 1; u < 6; u++)
        for (int v = 6; v >= k; v--) M[u][v] -= M[u][k] / M[k][k] * M[k][v];
    for (int u = 5; u >= 0; u--) {
      double s = M[u][6];
      for (int v = u + 1; v < 6; v++) s -= M[u][v] * z[6 * i + v];
      z[6 * i + u] = s / M[u][u];
    }
  }
}

static double host_dot(size_t m, const double *x, const double *y) {
  double s = 0;
  for (size_t k = 0; k < m; k++) s += x[k] * y[k];
  return s;
}

/* The textbook PCG with block Jacobi and its scalars on the host, from x = 0: iterate j into
 * xs[j * m ...] until |r| <= tol |b| or max iterations; returns the iterations. */
static int host_pcg(const cl_dda_bsr *a, const double *b, double tol, int max, double *xs) {
  size_t m = 6 * a->n;
  double *r = malloc(m * sizeof *r), *z = malloc(m * sizeof *z), *p = malloc(m * sizeof *p), *q = malloc(m * sizeof *q);
  memset(xs, 0, m * sizeof *xs);
  memcpy(r, b, m * sizeof *r);
  host_block_jacobi(a, r, z);
  memcpy(p, z, m * sizeof *p);
  double rz = host_dot(m, r, z), bnorm = sqrt(host_dot(m, b, b));
  int it = 0;
  while (sqrt(host_dot(m, r, r)) > tol * bnorm && it < max) {
    host_product(a, p, q);
    double alpha = rz / host_dot(m, p, q), *last = xs + (size_t)it * m, *x = last + m;
    for (size_t k = 0; k < m; k++) x[k] = last[k] + alpha * p[k], r[k] -= alpha * q[k];
    host_block_jacobi(a, r, z);
    double rz1 = host_dot(m, r, z);
    for (size_t k = 0; k < m; k++) p[k] = z[k] + rz1 / rz * p[k];
    rz = rz1, it++;
  }
  free(r), free(z), free(p), free(q);
  return it;
}

/* A chain of n blocks, ill-conditioned enough for block Jacobi to take some n iterations: diagonal
 * blocks 2.01 I + 0.1 S (S symmetric, entries in [-1, 1): eigenvalues in [1.41, 2.61]) and
 * neighbours coupled by -0.7 I (the coupling's eigenvalues are above -1.4): positive definite. */
static void chain_matrix(cl_dda_bsr *a, size_t n) {
  int32_t *pi = malloc(n * sizeof *pi), *pj = malloc(n * sizeof *pj);
  for (size_t k = 0; k + 1 < n; k++) pi[k] = (int32_t)k, pj[k] = (int32_t)k + 1;
  cl_error err;
  cr_assert_eq(cl_dda_bsr_pattern(a, n, n - 1, pi, pj, &err), CL_OK);
  cr_assert_eq(cl_dda_bsr_zero_values(a, &err), CL_OK);
  for (size_t i = 0; i < n; i++) {
    double *d = a->val + 36 * (size_t)cl_dda_bsr_position(a, (int32_t)i, (int32_t)i);
    for (int r = 0; r < 6; r++)
      for (int c = r; c < 6; c++) d[6 * r + c] = d[6 * c + r] = (r == c ? 2.01 : 0) + 0.1 * lcg_uniform(-1, 1);
    for (size_t j = i ? i - 1 : i + 1; j <= i + 1 && j < n; j += 2) {
      double *o = a->val + 36 * (size_t)cl_dda_bsr_position(a, (int32_t)i, (int32_t)j);
      for (int r = 0; r < 6; r++) o[6 * r + r] = -0.7;
    }
  }
  free(pi), free(pj);
}

/* PCG's scalars stay on the device and the host looks at them once every check_every iterations:
 * stopped after any j iterations (max_iterations = j), x is the host-scalar PCG's j-th iterate
 * (to 1e-12 of its size: only the sums' order differs), and a solve waits for the device at most
 * once per check_every iterations besides its four fixed transfers (b and x0 up, the first check,
 * x down). */
Test(dda, pcg_scalars_on_the_device_give_the_host_iterates_with_one_sync_per_check) {
  lcg_seed(11);
  size_t n = 40, m = 6 * n;
  cl_dda_bsr a = {0};
  chain_matrix(&a, n);
  double *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x), *x0 = calloc(m, sizeof *x0);
  for (size_t k = 0; k < m; k++) b[k] = lcg_uniform(-1, 1);
  double *xs = malloc(201 * m * sizeof *xs);
  int total = host_pcg(&a, b, 1e-12, 200, xs);
  cr_assert(total > 16 && total < 200, "the host PCG took %d iterations", total);
  const int checks[] = {1, 5, 8, 16};
  for (int f = 0; f < 2; f++)
    for (int c = 0; c < 4; c++) {
      cl_device dev;
      cl_dda_solver s;
      cl_error err;
      cl_dda_pcg_result res;
      load_solver(&dev, &s, &a, (cl_dda_spmv_format)f);
      s.check_every = checks[c];
      for (int j = 1; j <= total; j++) {
        cr_assert_eq(cl_dda_pcg(&s, b, x0, x, CL_DDA_BLOCK_JACOBI, 1e-12, 0, j, &res, &err), CL_OK, "%s", err.msg);
        cr_assert_eq(res.iterations, j, "format %d, check every %d: stopped after %d of %d", f, checks[c],
                     res.iterations, j);
        const double *ref = xs + (size_t)j * m;
        double size = 0, diff = 0;
        for (size_t k = 0; k < m; k++) size = fmax(size, fabs(ref[k])), diff = fmax(diff, fabs(x[k] - ref[k]));
        cr_assert(diff <= 1e-12 * size, "format %d, check every %d, iterate %d: off by %.3g of %.3g", f, checks[c], j,
                  diff, size);
      }
      long syncs = s.syncs;
      cr_assert_eq(cl_dda_pcg(&s, b, x0, x, CL_DDA_BLOCK_JACOBI, 1e-12, 0, 200, &res, &err), CL_OK, "%s", err.msg);
      cr_assert(res.converged && res.iterations == total, "%d iterations, the host's %d", res.iterations, total);
      long checks_seen = s.syncs - syncs - 4, allowed = (total + checks[c] - 1) / checks[c];
      cr_assert(checks_seen <= allowed, "check every %d: %ld host waits for %d iterations (at most %ld)", checks[c],
                checks_seen, total, allowed);
      cl_dda_solver_free(&s);
      cl_device_close(&dev);
    }
  free(b), free(x), free(x0), free(xs);
  cl_dda_bsr_free(&a);
}

/* One solve on dev by the persistent kernel (persistent 1) or one launch per operation (0): x from
 * x0, the result, and the solver's launches and host waits in *launches, *syncs. */
/* persistent: 0 the launch per operation, 1 the persistent kernel on its own grid, -g on g blocks */
static void solve_on(cl_device *dev, const cl_dda_bsr *a, cl_dda_spmv_format format, int persistent,
                     cl_dda_preconditioner kind, const double *b, const double *x0, double tol, double energy,
                     int max, double *x, cl_dda_pcg_result *res, long *launches, long *syncs) {
  cl_dda_solver s;
  cl_error err;
  cl_dda_solver_init(&s, dev, format);
  s.persistent = persistent != 0, s.persistent_blocks = persistent < 0 ? -persistent : 0;
  cr_assert_eq(cl_dda_solver_load(&s, a, &err), CL_OK, "%s", err.msg);
  const long l0 = s.launches, s0 = s.syncs;
  cr_assert_eq(cl_dda_pcg(&s, b, x0, x, kind, tol, energy, max, res, &err), CL_OK, "%s", err.msg);
  *launches = s.launches - l0, *syncs = s.syncs - s0;
  cl_dda_solver_free(&s);
}

/* The whole PCG solve as one persistent cooperative kernel against the launch per operation, on
 * cuda (skipped without a GPU; the cpu's solve is one loop either way): both formats, both
 * preconditioners, each stopping rule (the residual, the displacement criterion's update energy,
 * the iteration limit) and a zero right-hand side. The operations are the same and only the dots'
 * order of summation differs (the grids differ): the same iterations and stops, x to 1e-10 of
 * its size (the round-off of ~100 iterations on this condition is ~1e-13). The persistent solve
 * is one launch and the host waits once for it besides the transfers of b, x0 and x. */
Test(dda, persistent_pcg_kernel_matches_the_launches_on_cuda) {
  if (cl_device_cuda_count() < 1) cr_skip_test("no CUDA device");
  lcg_seed(23);
  const size_t n = 3000, m = 6 * n; /* 18 000 rows: a grid of 71 blocks of 256 threads */
  cl_dda_bsr a = {0};
  chain_matrix(&a, n);
  double *b = malloc(m * sizeof *b), *x0 = malloc(m * sizeof *x0), *zero = calloc(m, sizeof *zero);
  double *xl = malloc(m * sizeof *xl), *xp = malloc(m * sizeof *xp);
  for (size_t k = 0; k < m; k++) b[k] = lcg_uniform(-1, 1), x0[k] = 0.1 * lcg_uniform(-1, 1);
  cl_device dev;
  cl_error err;
  cr_assert_eq(cl_device_open(&dev, "cuda", &err), CL_OK, "%s", err.msg);
  /* tol, update energy, iteration limit: the residual's stop, the displacement criterion's (tol 0:
   * never the residual), the limit's */
  const double tols[3] = {1e-12, 0, 1e-12}, energies[3] = {0, 1e-9, 0};
  const int limits[3] = {1000, 1000, 7};
  for (int f = 0; f < 2; f++)
    for (int pc = 0; pc < 2; pc++)
      for (int c = 0; c < 4; c++) {
        const double *rhs = c == 3 ? zero : b;
        const int t = c == 3 ? 0 : c;
        cl_dda_pcg_result rl, rp;
        long ll, sl, lp, sp;
        solve_on(&dev, &a, (cl_dda_spmv_format)f, 0, (cl_dda_preconditioner)pc, rhs, x0, tols[t], energies[t],
                 limits[t], xl, &rl, &ll, &sl);
        solve_on(&dev, &a, (cl_dda_spmv_format)f, 1, (cl_dda_preconditioner)pc, rhs, x0, tols[t], energies[t],
                 limits[t], xp, &rp, &lp, &sp);
        cr_assert(rl.iterations == rp.iterations && rl.converged == rp.converged,
                  "format %d, preconditioner %d, case %d: launches %d iterations (converged %d), persistent %d (%d)",
                  f, pc, c, rl.iterations, rl.converged, rp.iterations, rp.converged);
        if (c == 0) cr_assert(rl.converged && rl.residual <= 1e-12, "the residual's stop: %.3g", rl.residual);
        if (c == 1) cr_assert(rl.converged && rl.residual > 0 && rl.iterations < 1000, "the displacement's stop");
        if (c == 2) cr_assert(!rl.converged && rl.iterations == 7, "the limit's stop");
        double size = 0, diff = 0;
        for (size_t k = 0; k < m; k++) size = fmax(size, fabs(xl[k])), diff = fmax(diff, fabs(xp[k] - xl[k]));
        cr_assert(diff <= 1e-10 * size, "format %d, preconditioner %d, case %d: x off by %.3g of %.3g", f, pc, c,
                  diff, size);
        if (c != 3)
          cr_assert(lp == 1 && sp == 4, "format %d, preconditioner %d, case %d: %ld launches and %ld host waits "
                    "(1 and 4: b and x0 up, the scalars, x down)", f, pc, c, lp, sp);
      }
  cl_device_close(&dev);
  free(b), free(x0), free(zero), free(xl), free(xp);
  cl_dda_bsr_free(&a);
}

/* BSR's product a warp a block row and a thread block a long row, on cuda (skipped without a GPU),
 * on rows of 600 and 43 blocks among rows of 3 and 4: the cuda product gives the cpu's sums in
 * both formats (the same terms in the same order: equal but for the fused multiply-adds' rounding;
 * checked to 1e-14 of |A| |x|, the dense test's bound for any order, where a term missed or
 * counted twice is ~1e-4 of it); and PCG's persistent kernel the launches' iterations and x (to 1e-10 of its
 * size, as persistent_pcg_kernel_matches_the_launches_on_cuda), both formats and preconditioners, on its
 * own grid and on grids of 1 block (which takes the long rows after its short ones) and 3 (one of
 * which takes both long rows). */
Test(dda, spmv_long_rows_on_cuda_give_the_cpus_sums) {
  if (cl_device_cuda_count() < 1) cr_skip_test("no CUDA device");
  lcg_seed(29);
  const size_t n = 600, m = 6 * n;
  cl_dda_bsr a = {0};
  hub_matrix(&a, n, 40);
  double *x = malloc(m * sizeof *x), *yc = malloc(m * sizeof *yc), *yg = malloc(m * sizeof *yg);
  double *xl = malloc(m * sizeof *xl), *xp = malloc(m * sizeof *xp), *x0 = calloc(m, sizeof *x0);
  for (size_t k = 0; k < m; k++) x[k] = lcg_uniform(-1, 1);
  double scale = 0;
  for (size_t i = 0; i < n; i++)
    for (int r = 0; r < 6; r++) {
      double abs_sum = 0;
      for (int32_t p = a.rowptr[i]; p < a.rowptr[i + 1]; p++)
        for (int c = 0; c < 6; c++) abs_sum += fabs(a.val[36 * (size_t)p + 6 * r + c] * x[6 * (size_t)a.col[p] + c]);
      scale = fmax(scale, abs_sum);
    }
  cl_device cpu, gpu;
  cl_error err;
  cr_assert_eq(cl_device_open(&gpu, "cuda", &err), CL_OK, "%s", err.msg);
  for (int f = 0; f < 2; f++) {
    cl_dda_solver sc, sg;
    load_solver(&cpu, &sc, &a, (cl_dda_spmv_format)f);
    cl_dda_solver_init(&sg, &gpu, (cl_dda_spmv_format)f);
    cr_assert_eq(cl_dda_solver_load(&sg, &a, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_spmv(&sc, x, yc, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_spmv(&sg, x, yg, &err), CL_OK, "%s", err.msg);
    for (size_t r = 0; r < m; r++)
      cr_assert(fabs(yg[r] - yc[r]) <= 1e-14 * scale, "format %d, row %zu: cuda %.17g, cpu %.17g", f, r, yg[r], yc[r]);
    cl_dda_solver_free(&sc), cl_dda_solver_free(&sg);
    cl_device_close(&cpu);
    for (int pc = 0; pc < 2; pc++) {
      cl_dda_pcg_result rl, rp;
      long ll, sl, lp, sp;
      solve_on(&gpu, &a, (cl_dda_spmv_format)f, 0, (cl_dda_preconditioner)pc, x, x0, 1e-12, 0, 1000, xl, &rl, &ll, &sl);
      for (int grid = 1; grid >= -3; grid -= 2) { /* 1: its own grid, -1 and -3: of 1 and 3 blocks */
        solve_on(&gpu, &a, (cl_dda_spmv_format)f, grid, (cl_dda_preconditioner)pc, x, x0, 1e-12, 0, 1000, xp, &rp,
                 &lp, &sp);
        cr_assert(rl.converged && rp.converged && rl.iterations == rp.iterations,
                  "format %d, preconditioner %d, grid %d: launches %d iterations (converged %d), persistent %d (%d)",
                  f, pc, grid, rl.iterations, rl.converged, rp.iterations, rp.converged);
        double size = 0, diff = 0;
        for (size_t k = 0; k < m; k++) size = fmax(size, fabs(xl[k])), diff = fmax(diff, fabs(xp[k] - xl[k]));
        cr_assert(diff <= 1e-10 * size, "format %d, preconditioner %d, grid %d: x off by %.3g of %.3g", f, pc, grid,
                  diff, size);
      }
    }
  }
  cl_device_close(&gpu);
  free(x), free(yc), free(yg), free(xl), free(xp), free(x0);
  cl_dda_bsr_free(&a);
}

Test(dda, solver_names_a_block_that_is_not_positive_definite) {
  lcg_seed(3);
  cl_dda_bsr a = {0};
  random_matrix(&a, 10, 10);
  cl_dda_bsr_block(&a, 6, 6)[6 * 2 + 2] = -1; /* block 7, diagonal entry (2, 2) */
  for (int f = 0; f < 2; f++) {
    cl_device dev;
    cl_error err;
    cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK);
    cl_dda_solver s;
    cl_dda_solver_init(&s, &dev, (cl_dda_spmv_format)f);
    cr_assert_eq(cl_dda_solver_load(&s, &a, &err), CL_ERR_ARG);
    cr_assert(strstr(err.msg, "block 7 is not positive definite"), "%s", err.msg);
    cl_dda_solver_free(&s);
    cl_device_close(&dev);
  }
  cl_dda_bsr_free(&a);
}

/* The springs entry by entry (cl_dda_contact_spring_entry, 36 threads a contact on the GPU) are
 * cl_dda_spring's sums to the bit: the normal spring, then the shear spring when locked or the
 * friction force when sliding; an open contact's slots are not written. */
Test(dda, spring_entries_are_the_springs_sums) {
  lcg_seed(31);
  enum { NC = 30 };
  double geo[26 * NC], fric[NC], K[108 * NC], F[12 * NC];
  int32_t state[NC];
  for (size_t k = 0; k < 26 * NC; k++) geo[k] = lcg_uniform(-1, 1);
  for (size_t k = 0; k < NC; k++) state[k] = (int32_t)(k % 3), fric[k] = lcg_uniform(-1e3, 1e3);
  for (size_t k = 0; k < 108 * NC; k++) K[k] = 7;
  for (size_t k = 0; k < 12 * NC; k++) F[k] = 7;
  cl_dda_pcg_args A = {.nc = NC, .cstate = state, .cgeo = geo, .cfric = fric, .kn = 3e9, .ks = 1.3e9, .cK = K, .cF = F};
  for (size_t k = 0; k < NC; k++)
    for (int e = 0; e < 36; e++) cl_dda_contact_spring_entry(&A, k, e);
  for (size_t k = 0; k < NC; k++) {
    double a[4][6], Kii[36] = {0}, Kjj[36] = {0}, Kij[36] = {0}, Fi[6] = {0}, Fj[6] = {0};
    for (int q = 0; q < 4; q++)
      for (int c = 0; c < 6; c++) a[q][c] = geo[(6 * q + c) * NC + k];
    cl_dda_spring(A.kn, geo[24 * NC + k], a[0], a[1], Kii, Kjj, Kij, Fi, Fj);
    if (state[k] == CL_DDA_LOCK) cl_dda_spring(A.ks, geo[25 * NC + k], a[2], a[3], Kii, Kjj, Kij, Fi, Fj);
    else
      for (int r = 0; r < 6; r++) Fi[r] -= fric[k] * a[2][r], Fj[r] += fric[k] * a[3][r];
    const int open = state[k] == CL_DDA_OPEN;
    for (int e = 0; e < 36; e++) {
      const double *slot = K + 108 * k + e;
      cr_assert(open ? slot[0] == 7 && slot[36] == 7 && slot[72] == 7
                     : slot[0] == Kii[e] && slot[36] == Kjj[e] && slot[72] == Kij[e],
                "contact %zu (state %d), entry %d: %.17g %.17g %.17g against %.17g %.17g %.17g", k, state[k], e,
                slot[0], slot[36], slot[72], Kii[e], Kjj[e], Kij[e]);
    }
    for (int r = 0; r < 6; r++)
      cr_assert(open ? F[12 * k + r] == 7 && F[12 * k + 6 + r] == 7 : F[12 * k + r] == Fi[r] && F[12 * k + 6 + r] == Fj[r],
                "contact %zu (state %d), F entry %d: %.17g %.17g against %.17g %.17g", k, state[k], r, F[12 * k + r],
                F[12 * k + 6 + r], Fi[r], Fj[r]);
  }
}

/* The bytes a device copies in from the host and out to it, counted by wrapping its copies. */
static size_t bytes_in, bytes_out;
static cl_status (*plain_to_device)(cl_device *, void *, const void *, size_t, cl_error *);
static cl_status (*plain_to_host)(cl_device *, void *, const void *, size_t, cl_error *);
static cl_status counted_to_device(cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err) {
  bytes_in += bytes;
  return plain_to_device(d, dst, src, bytes, err);
}
static cl_status counted_to_host(cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err) {
  bytes_out += bytes;
  return plain_to_host(d, dst, src, bytes, err);
}

/* The dense matrix and right-hand side of the diagonal submatrices K (row-major blocks) and F
 * (SoA) and the contacts in their states (open: nothing; locked: both springs; sliding: the
 * normal spring and the friction force). */
static void dense_system(size_t n, const double *K, const double *F, size_t nc, const int32_t *bi, const int32_t *bj,
                         const int32_t *state, const double *geo, const double *fric, double kn, double ks,
                         double *dense, double *b) {
  const size_t m = 6 * n;
  memset(dense, 0, m * m * sizeof *dense);
  for (size_t i = 0; i < n; i++)
    for (int r = 0; r < 6; r++) {
      b[6 * i + r] = F[r * n + i];
      for (int c = 0; c < 6; c++) dense[(6 * i + r) * m + 6 * i + c] = K[36 * i + 6 * r + c];
    }
  for (size_t k = 0; k < nc; k++) {
    if (state[k] == CL_DDA_OPEN) continue;
    double a[4][6], Kii[36] = {0}, Kjj[36] = {0}, Kij[36] = {0}, Fi[6] = {0}, Fj[6] = {0};
    for (int q = 0; q < 4; q++)
      for (int c = 0; c < 6; c++) a[q][c] = geo[(6 * q + c) * nc + k];
    cl_dda_spring(kn, geo[24 * nc + k], a[0], a[1], Kii, Kjj, Kij, Fi, Fj);
    if (state[k] == CL_DDA_LOCK) cl_dda_spring(ks, geo[25 * nc + k], a[2], a[3], Kii, Kjj, Kij, Fi, Fj);
    else
      for (int r = 0; r < 6; r++) Fi[r] -= fric[k] * a[2][r], Fj[r] += fric[k] * a[3][r];
    size_t I = 6 * (size_t)bi[k], J = 6 * (size_t)bj[k];
    for (int r = 0; r < 6; r++) {
      b[I + r] += Fi[r], b[J + r] += Fj[r];
      for (int c = 0; c < 6; c++) {
        dense[(I + r) * m + I + c] += Kii[6 * r + c], dense[(J + r) * m + J + c] += Kjj[6 * r + c];
        dense[(I + r) * m + J + c] += Kij[6 * r + c], dense[(J + c) * m + I + r] += Kij[6 * r + c];
      }
    }
  }
}

/* n random diagonal submatrices (symmetric: d + U(0, 1) on the diagonal, U(-1, 1) off it) into K and
 * right-hand sides into F (F[r n + i]), drawn block by block. */
/* A device copy of bytes of host memory (released by the caller with dev->release). */
static void *copy_to_device(cl_device *dev, const void *host, size_t bytes) {
  void *p;
  cl_error err;
  cr_assert_eq(dev->alloc(dev, &p, bytes, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(dev->to_device(dev, p, host, bytes, &err), CL_OK, "%s", err.msg);
  return p;
}

static void random_diagonal(size_t n, double d, double *K, double *F) {
  for (size_t i = 0; i < n; i++)
    for (int r = 0; r < 6; r++) {
      F[r * n + i] = lcg_uniform(-1, 1);
      for (int c = r; c < 6; c++) K[36 * i + 6 * r + c] = K[36 * i + 6 * c + r] = r == c ? d + lcg_uniform(0, 1) : lcg_uniform(-1, 1);
    }
}

/* Contact k of nc between two random blocks of n (block 0 for the first on_base contacts, as case 1's
 * fixed base), and its 26 geometry rows (geo[q nc + k]) at random. */
static void random_contact(size_t k, size_t n, size_t nc, size_t on_base, int32_t *bi, int32_t *bj, double *geo) {
  bi[k] = k < on_base ? 0 : (int32_t)lcg_below(n), bj[k] = (int32_t)((size_t)(bi[k] + 1 + (int32_t)lcg_below(n - 1)) % n);
  for (int q = 0; q < 26; q++) geo[q * nc + k] = lcg_uniform(-1, 1);
}

/* The device assembly against the same sums taken here densely: n blocks with random SPD diagonal
 * submatrices, nc random contacts, in both formats. The step's contacts are set once; then three
 * open-close iterations change their states at random (open, sliding, locked), and each assembly
 * must match its dense system -- the product A x and the solution of A x = b -- while sending no
 * more than the states and friction forces (12 bytes a contact) to the device in 2 launches, and PCG
 * no more than its solution back (6 n doubles) and its scalars once every CL_DDA_PCG_CHECK_EVERY
 * iterations. Block 0 is in 100 contacts (as case 1's fixed base): its diagonal block and block row
 * of b sum more than CL_DDA_GATHER_LONG shares, the gather's long items. */
Test(dda, device_assembly_matches_dense_sums_as_states_change) {
  lcg_seed(11);
  const size_t n = 30, nc = 190, m = 6 * n;
  const double kn = 50, ks = 20;
  double *K = calloc(36 * n, sizeof *K), *F = malloc(m * sizeof *F), *geo = malloc(26 * nc * sizeof *geo);
  double *fric = malloc(nc * sizeof *fric), *dense = malloc(m * m * sizeof *dense), *b = malloc(m * sizeof *b);
  int32_t *bi = malloc(nc * sizeof *bi), *bj = malloc(nc * sizeof *bj), *state = malloc(nc * sizeof *state);
  random_diagonal(n, 30, K, F);
  for (size_t k = 0; k < nc; k++) {
    random_contact(k, n, nc, 100, bi, bj, geo);
  }
  double *x = malloc(m * sizeof *x), *y = malloc(m * sizeof *y), *ref = malloc(m * sizeof *ref);
  double *u = malloc(m * sizeof *u);
  for (size_t k = 0; k < m; k++) x[k] = lcg_uniform(-1, 1);
  for (int f = 0; f < 2; f++) {
    cl_device dev;
    cl_error err;
    cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK);
    plain_to_device = dev.to_device, plain_to_host = dev.to_host;
    dev.to_device = counted_to_device, dev.to_host = counted_to_host;
    cl_dda_bsr a = {0};
    cr_assert_eq(cl_dda_bsr_pattern(&a, n, nc, bi, bj, &err), CL_OK);
    cl_dda_solver s;
    cl_dda_solver_init(&s, &dev, (cl_dda_spmv_format)f);
    cl_dda_step_contacts sc = {.count = nc, .bi = bi, .bj = bj, .geo = geo, .kn = kn, .ks = ks};
    cr_assert_eq(cl_dda_solver_set_contacts(&s, &a, &sc, &err), CL_OK, "%s", err.msg);
    memset(u, 0, m * sizeof *u);
    for (int iteration = 0; iteration < 3; iteration++) {
      for (size_t k = 0; k < nc; k++) {
        state[k] = (int32_t)lcg_below(3);
        fric[k] = state[k] == CL_DDA_SLIDE ? lcg_uniform(-2, 2) : 0;
      }
      dense_system(n, K, F, nc, bi, bj, state, geo, fric, kn, ks, dense, b);
      double scale = 0;
      for (size_t r = 0; r < m; r++) {
        double abs_sum = 0;
        ref[r] = 0;
        for (size_t c = 0; c < m; c++) ref[r] += dense[r * m + c] * x[c], abs_sum += fabs(dense[r * m + c] * x[c]);
        scale = fmax(scale, abs_sum);
      }
      bytes_in = bytes_out = 0;
      const long launches = s.launches;
      cr_assert_eq(cl_dda_solver_assemble(&s, state, fric, K, F, &err), CL_OK, "%s", err.msg);
      cr_assert(bytes_in <= nc * (sizeof *state + sizeof *fric) && bytes_out == 0,
                "format %d: the assembly sent %zu bytes in and %zu out (the states and forces: %zu)", f, bytes_in,
                bytes_out, nc * (sizeof *state + sizeof *fric));
      cr_assert(s.launches - launches == 2, "format %d: the assembly took %ld launches (the springs, the gather "
                "with the factors and b; the factors' check is the solve's)", f, s.launches - launches);
      /* the right-hand side: the solution of the device's A x = b satisfies the dense system; the
       * solve starts from the last one on the device */
      cl_dda_pcg_result res;
      bytes_in = bytes_out = 0;
      cr_assert_eq(cl_dda_pcg(&s, NULL, NULL, u, CL_DDA_BLOCK_JACOBI, 1e-13, 0, 5000, &res, &err), CL_OK, "%s", err.msg);
      cr_assert(res.converged, "PCG: %d iterations, residual %.3g", res.iterations, res.residual);
      /* the solution, and the scalars once before the iterations and once every check */
      size_t scalar_reads = 1 + ((size_t)res.iterations + CL_DDA_PCG_CHECK_EVERY - 1) / CL_DDA_PCG_CHECK_EVERY;
      cr_assert(bytes_in == 0 && bytes_out == m * sizeof *u + scalar_reads * CL_DDA_SCALARS * sizeof(double),
                "format %d: PCG sent %zu bytes in and %zu out (%d iterations)", f, bytes_in, bytes_out, res.iterations);
      double rn = 0, bn = 0;
      for (size_t r = 0; r < m; r++) {
        double s_r = b[r];
        for (size_t c = 0; c < m; c++) s_r -= dense[r * m + c] * u[c];
        rn += s_r * s_r, bn += b[r] * b[r];
      }
      cr_assert(sqrt(rn / bn) < 1e-11, "format %d: dense residual of the device solution %.3g", f, sqrt(rn / bn));
      cr_assert_eq(cl_dda_solver_spmv(&s, x, y, &err), CL_OK, "%s", err.msg);
      for (size_t r = 0; r < m; r++)
        cr_assert(fabs(y[r] - ref[r]) <= 1e-14 * scale, "format %d, iteration %d, row %zu: %.17g against dense %.17g",
                  f, iteration, r, y[r], ref[r]);
    }
    cl_dda_solver_free(&s);
    cl_dda_bsr_free(&a);
    cl_device_close(&dev);
  }
  free(K), free(F), free(geo), free(fric), free(dense), free(b), free(bi), free(bj), free(state), free(x), free(y);
  free(ref), free(u);
}

/* The device's new memory filled with a finite pattern (doubles of about 2.3e6), as a freed buffer
 * may leave it (the cpu's aligned_alloc reuses one; cudaMalloc does not clear either). */
static cl_status (*plain_alloc)(cl_device *, void **, size_t, cl_error *);
static cl_status poisoned_alloc(cl_device *d, void **ptr, size_t bytes, cl_error *err) {
  cl_status st = plain_alloc(d, ptr, bytes, err);
  if (st == CL_OK && *ptr) memset(*ptr, 0x41, bytes);
  return st;
}

/* A first solve with no x0 starts from zero, whatever the device's new memory holds: its initial
 * residual |b - A 0| / |b| is 1 (to the round-off of two sums of the same squares), and the true
 * residual of its solution is the recurrence's (a start of 2.3e6 would leave ~1e-16 of |A| |x0|,
 * ~1e-8 of |b|, under the recurrence's 1e-12), in both formats. */
Test(dda, first_solve_without_start_starts_from_zero) {
  const size_t n = 40, m = 6 * n;
  double *b = malloc(m * sizeof *b), *x = malloc(m * sizeof *x), *y = malloc(m * sizeof *y);
  for (int f = 0; f < 2; f++) {
    lcg_seed(5);
    cl_dda_bsr a = {0};
    random_matrix(&a, n, 60);
    for (size_t k = 0; k < m; k++) b[k] = lcg_uniform(-1, 1);
    cl_device dev;
    cl_error err;
    cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
    plain_alloc = dev.alloc, dev.alloc = poisoned_alloc;
    cl_dda_solver s;
    cl_dda_solver_init(&s, &dev, (cl_dda_spmv_format)f);
    cr_assert_eq(cl_dda_solver_load(&s, &a, &err), CL_OK, "%s", err.msg);
    cl_dda_pcg_result res;
    cr_assert_eq(cl_dda_pcg(&s, b, NULL, x, CL_DDA_BLOCK_JACOBI, 1e-12, 0, 1000, &res, &err), CL_OK, "%s", err.msg);
    cr_assert(res.converged && fabs(res.initial_residual - 1) < 1e-12,
              "format %d: the first solve started at a residual of %.17g |b| (converged %d)", f, res.initial_residual,
              res.converged);
    cr_assert_eq(cl_dda_solver_spmv(&s, x, y, &err), CL_OK, "%s", err.msg);
    double rn = 0, bn = 0;
    for (size_t k = 0; k < m; k++) rn += (b[k] - y[k]) * (b[k] - y[k]), bn += b[k] * b[k];
    cr_assert(sqrt(rn / bn) < 1e-11, "format %d: true residual %.3g", f, sqrt(rn / bn));
    cl_dda_solver_free(&s);
    cl_dda_bsr_free(&a);
    cl_device_close(&dev);
  }
  free(b), free(x), free(y);
}

/* A random step's contacts (n blocks, nc contacts) and three open-close iterations on dev: the
 * assembly from the device's states, the solve and the rule (cl_dda_solver_solve_open_close), by the
 * persistent kernel or the launches. Out: each iteration's PCG iterations and counts (3 x 3), the
 * states and normal forces at the end, the solution, and the last iteration's launches and waits. */
typedef struct open_close_run {
  int trace[9];
  int32_t *state, *flips;
  double *sgn, *N, *x;
  long launches, syncs;
} open_close_run;

static void open_close_on(cl_device *dev, int persistent, size_t n, size_t nc, uint64_t seed, open_close_run *out) {
  const size_t m = 6 * n;
  lcg_seed(seed);
  double *K = malloc(36 * n * sizeof *K), *F = malloc(m * sizeof *F), *geo = malloc(26 * nc * sizeof *geo);
  double *law = malloc(3 * nc * sizeof *law), *fric = malloc(nc * sizeof *fric), *zero = calloc(m, sizeof *zero);
  int32_t *bi = malloc(nc * sizeof *bi), *bj = malloc(nc * sizeof *bj);
  random_diagonal(n, 30, K, F);
  for (size_t k = 0; k < nc; k++) {
    random_contact(k, n, nc, 100, bi, bj, geo);
    law[k] = lcg_uniform(0, 1), law[nc + k] = lcg_uniform(0, 0.5), law[2 * nc + k] = lcg_uniform(0, 0.5);
    out->state[k] = (int32_t)lcg_below(3), out->flips[k] = 0, out->sgn[k] = lcg_below(2) ? 1 : -1;
    out->N[k] = out->state[k] == CL_DDA_OPEN ? 0 : lcg_uniform(0, 2);
    fric[k] = out->state[k] == CL_DDA_SLIDE ? law[k] * out->N[k] * out->sgn[k] : 0;
  }
  cl_error err;
  void *dK, *dF, *dzero;
  cr_assert_eq(dev->alloc(dev, &dK, 36 * n * sizeof *K, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(dev->alloc(dev, &dF, m * sizeof *F, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(dev->alloc(dev, &dzero, m * sizeof *zero, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(dev->to_device(dev, dK, K, 36 * n * sizeof *K, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(dev->to_device(dev, dF, F, m * sizeof *F, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(dev->to_device(dev, dzero, zero, m * sizeof *zero, &err), CL_OK, "%s", err.msg);
  cl_dda_bsr a = {0};
  cr_assert_eq(cl_dda_bsr_pattern(&a, n, nc, bi, bj, &err), CL_OK);
  cl_dda_solver s;
  cl_dda_solver_init(&s, dev, CL_DDA_BSR);
  s.persistent = persistent;
  cl_dda_step_contacts sc = {.count = nc, .bi = bi, .bj = bj, .geo = geo, .kn = 50, .ks = 20, .law = law,
                             .slip_floor = 1e-9, .force_floor = 1e-9, .flip_limit = 4};
  cr_assert_eq(cl_dda_solver_set_contacts(&s, &a, &sc, &err), CL_OK, "%s", err.msg);
  cl_dda_contact_states st = {out->state, out->flips, out->sgn, out->N, fric};
  cr_assert_eq(cl_dda_solver_set_states(&s, &st, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_dda_solver_start_from(&s, dzero, &err), CL_OK, "%s", err.msg);
  for (int it = 0; it < 3; it++) {
    const long l0 = s.launches, s0 = s.syncs;
    cl_dda_pcg_result res;
    cr_assert_eq(cl_dda_solver_assemble(&s, NULL, NULL, dK, dF, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_solve_open_close(&s, NULL, CL_DDA_BLOCK_JACOBI, 1e-12, 0, 1000, &res, &out->trace[3 * it + 1],
                                                &out->trace[3 * it + 2], &err), CL_OK, "%s", err.msg);
    cr_assert(res.converged, "open-close iteration %d: PCG %d iterations, residual %.3g", it, res.iterations, res.residual);
    out->trace[3 * it] = res.iterations;
    out->launches = s.launches - l0, out->syncs = s.syncs - s0;
  }
  cr_assert_eq(cl_dda_solver_get_states(&s, &st, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_dda_solver_solution(&s, out->x, &err), CL_OK, "%s", err.msg);
  cl_dda_solver_free(&s);
  cl_dda_bsr_free(&a);
  dev->release(dev, dK), dev->release(dev, dF), dev->release(dev, dzero);
  free(K), free(F), free(geo), free(law), free(fric), free(zero), free(bi), free(bj);
}

/* The open-close iteration on cuda (skipped without a GPU): the persistent kernel, which runs the
 * rule after the solve in the same launch and checks the factors in its first dot, against the
 * launches (the factors' check, PCG, the rule, each its own launches): the same PCG iterations and
 * counts in each of three iterations, the same states, changes and directions, the normal forces
 * and the solution to 1e-10 of their sizes (only the dots' order differs); an open-close iteration
 * of the persistent kernel is 3 launches (springs, gather, the solve with the rule) and 1 host wait. */
Test(dda, persistent_open_close_iteration_matches_the_launches_on_cuda) {
  if (cl_device_cuda_count() < 1) cr_skip_test("no CUDA device");
  const size_t n = 2000, nc = 6000, m = 6 * n;
  open_close_run run[2];
  cl_device dev;
  cl_error err;
  cr_assert_eq(cl_device_open(&dev, "cuda", &err), CL_OK, "%s", err.msg);
  for (int p = 0; p < 2; p++) {
    run[p].state = malloc(nc * sizeof(int32_t)), run[p].flips = malloc(nc * sizeof(int32_t));
    run[p].sgn = malloc(nc * sizeof(double)), run[p].N = malloc(nc * sizeof(double)), run[p].x = malloc(m * sizeof(double));
    open_close_on(&dev, p, n, nc, 31, &run[p]);
  }
  cl_device_close(&dev);
  for (int k = 0; k < 9; k++)
    cr_assert_eq(run[1].trace[k], run[0].trace[k], "open-close iteration %d, %s: persistent %d, launches %d", k / 3,
                 k % 3 == 0 ? "PCG iterations" : k % 3 == 1 ? "changed" : "unsettled", run[1].trace[k], run[0].trace[k]);
  cr_assert(run[0].trace[1] > 0, "the rule changed states: %d", run[0].trace[1]);
  double nmax = 0, xmax = 0, ndiff = 0, xdiff = 0;
  for (size_t k = 0; k < nc; k++) {
    cr_assert(run[1].state[k] == run[0].state[k] && run[1].flips[k] == run[0].flips[k] && run[1].sgn[k] == run[0].sgn[k],
              "contact %zu: persistent state %d flips %d sgn %g, launches %d %d %g", k, run[1].state[k], run[1].flips[k],
              run[1].sgn[k], run[0].state[k], run[0].flips[k], run[0].sgn[k]);
    nmax = fmax(nmax, fabs(run[0].N[k])), ndiff = fmax(ndiff, fabs(run[1].N[k] - run[0].N[k]));
  }
  for (size_t k = 0; k < m; k++) xmax = fmax(xmax, fabs(run[0].x[k])), xdiff = fmax(xdiff, fabs(run[1].x[k] - run[0].x[k]));
  cr_assert(ndiff <= 1e-10 * nmax && xdiff <= 1e-10 * xmax, "normal forces off by %.3g of %.3g, x by %.3g of %.3g", ndiff,
            nmax, xdiff, xmax);
  cr_assert(run[1].launches == 3 && run[1].syncs == 1, "an open-close iteration: %ld launches and %ld host waits",
            run[1].launches, run[1].syncs);
  for (int p = 0; p < 2; p++) free(run[p].state), free(run[p].flips), free(run[p].sgn), free(run[p].N), free(run[p].x);
}

/* The broad phase's candidate pairs against every pair's box test: random small squares over a
 * base as wide as the domain (the case where cells as wide as the largest box made every pair a
 * candidate), grown by d0. */
/* The open-close rule on the device (open_close_ops.h) against the rule applied here on the host
 * as the model did before (contact.h's cl_dda_open_close, the flip limit, the settling of friction):
 * random contacts, solutions, states, directions, changes and forces give the same states,
 * directions, changes and normal forces (exactly: the same f64 arithmetic), the same counts, and
 * the rule sends nothing up and brings back only the scalars. */
Test(dda, device_open_close_rule_matches_the_host_rule) {
  lcg_seed(5);
  const size_t n = 30, nc = 400, m = 6 * n;
  const double kn = 1, ks = 0.5, slip_floor = 1e-3, force_floor = 1e-3;
  const int flip_limit = 4;
  int32_t *bi = malloc(nc * sizeof *bi), *bj = malloc(nc * sizeof *bj), *state = malloc(nc * sizeof *state);
  int32_t *flips = malloc(nc * sizeof *flips), *dstate = malloc(nc * sizeof *dstate), *dflips = malloc(nc * sizeof *dflips);
  double *geo = malloc(26 * nc * sizeof *geo), *law = malloc(3 * nc * sizeof *law), *sgn = malloc(nc * sizeof *sgn);
  double *N = malloc(nc * sizeof *N), *fric = malloc(nc * sizeof *fric), *dsgn = malloc(nc * sizeof *dsgn);
  double *dN = malloc(nc * sizeof *dN), *x = malloc(m * sizeof *x), *xsoa = malloc(m * sizeof *xsoa);
  for (size_t k = 0; k < nc; k++) {
    random_contact(k, n, nc, 100, bi, bj, geo);
    law[k] = lcg_uniform(0, 1), law[nc + k] = lcg_uniform(0, 0.5), law[2 * nc + k] = lcg_uniform(0, 0.5);
    state[k] = (int32_t)lcg_below(3), flips[k] = (int32_t)lcg_below(6);
    sgn[k] = lcg_below(2) ? 1 : -1, N[k] = state[k] == CL_DDA_OPEN ? 0 : lcg_uniform(-0.5, 2);
    fric[k] = state[k] == CL_DDA_SLIDE ? law[k] * fmax(N[k], 0) * sgn[k] : 0;
  }
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 6; c++) x[6 * i + c] = xsoa[c * n + i] = lcg_uniform(-0.3, 0.3);
  cl_device dev;
  cl_error err;
  cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK);
  plain_to_device = dev.to_device, plain_to_host = dev.to_host;
  dev.to_device = counted_to_device, dev.to_host = counted_to_host;
  cl_dda_bsr a = {0};
  cr_assert_eq(cl_dda_bsr_pattern(&a, n, nc, bi, bj, &err), CL_OK);
  cl_dda_solver s;
  cl_dda_solver_init(&s, &dev, CL_DDA_BSR);
  cl_dda_step_contacts sc = {.count = nc, .bi = bi, .bj = bj, .geo = geo, .kn = kn, .ks = ks, .law = law,
                             .slip_floor = slip_floor, .force_floor = force_floor, .flip_limit = flip_limit};
  cr_assert_eq(cl_dda_solver_set_contacts(&s, &a, &sc, &err), CL_OK, "%s", err.msg);
  cl_dda_contact_states st = {state, flips, sgn, N, fric};
  cr_assert_eq(cl_dda_solver_set_states(&s, &st, &err), CL_OK, "%s", err.msg);
  void *dx;
  cr_assert_eq(dev.alloc(&dev, &dx, m * sizeof *xsoa, &err), CL_OK);
  cr_assert_eq(dev.to_device(&dev, dx, xsoa, m * sizeof *xsoa, &err), CL_OK);
  cr_assert_eq(cl_dda_solver_start_from(&s, dx, &err), CL_OK, "%s", err.msg);
  int changed, unsettled, want_changed = 0, want_unsettled = 0;
  bytes_in = bytes_out = 0;
  cr_assert_eq(cl_dda_solver_open_close(&s, &changed, &unsettled, &err), CL_OK, "%s", err.msg);
  cr_assert(bytes_in == 0 && bytes_out == CL_DDA_SCALARS * sizeof(double), "the rule sent %zu bytes in and %zu out",
            bytes_in, bytes_out);
  cl_dda_contact_states got = {dstate, dflips, dsgn, dN, NULL};
  cr_assert_eq(cl_dda_solver_get_states(&s, &got, &err), CL_OK, "%s", err.msg);
  int kinds[3] = {0, 0, 0};
  for (size_t k = 0; k < nc; k++) {
    const double *Di = x + 6 * (size_t)bi[k], *Dj = x + 6 * (size_t)bj[k];
    double en[6], fn[6], es[6], fs[6];
    for (int c = 0; c < 6; c++)
      en[c] = geo[c * nc + k], fn[c] = geo[(6 + c) * nc + k], es[c] = geo[(12 + c) * nc + k], fs[c] = geo[(18 + c) * nc + k];
    double gn = cl_dda_gap(geo[24 * nc + k], en, fn, Di, Dj), gs = cl_dda_gap(geo[25 * nc + k], es, fs, Di, Dj);
    double normal = -kn * gn, dir = sgn[k];
    cl_dda_contact_law rule = {kn, ks, law[k], law[nc + k], law[2 * nc + k], slip_floor, force_floor};
    int want = cl_dda_open_close(state[k], gn, gs, geo[25 * nc + k], &dir, &rule), want_flips = flips[k];
    double want_sgn = sgn[k];
    if (flips[k] >= flip_limit && want != state[k] && want != CL_DDA_LOCK) want = state[k];
    if (want != state[k]) want_changed++, want_flips++, want_sgn = dir;
    else if (want == CL_DDA_SLIDE && fabs(normal - N[k]) > 1e-6 * fabs(normal) + force_floor) want_unsettled++;
    kinds[want]++;
    cr_assert(dstate[k] == want && dflips[k] == want_flips && dsgn[k] == want_sgn &&
              dN[k] == (want == CL_DDA_OPEN ? 0 : normal),
              "contact %zu: state %d flips %d sgn %g N %.17g, the host rule's %d %d %g %.17g", k, dstate[k], dflips[k],
              dsgn[k], dN[k], want, want_flips, want_sgn, want == CL_DDA_OPEN ? 0 : normal);
  }
  cr_assert(changed == want_changed && unsettled == want_unsettled, "counts %d+%d, the host's %d+%d", changed,
            unsettled, want_changed, want_unsettled);
  cr_assert(want_changed > 20 && want_unsettled > 5 && kinds[0] > 20 && kinds[1] > 20 && kinds[2] > 20,
            "the test meets every case: %d changed, %d unsettled, states %d/%d/%d", want_changed, want_unsettled,
            kinds[0], kinds[1], kinds[2]);
  dev.release(&dev, dx);
  cl_dda_solver_free(&s);
  cl_device_close(&dev);
  cl_dda_bsr_free(&a);
  free(bi), free(bj), free(state), free(flips), free(dstate), free(dflips), free(geo), free(law), free(sgn), free(N);
  free(fric), free(dsgn), free(dN), free(x), free(xsoa);
}

/* Rectangles of random sizes (0.5 .. 3) over a 100 x 30 area and a base wider than all of them
 * (block 0), overlapping at random: the broad phase's grid has blocks in many cells and a block in a
 * whole row of them. */
static void random_boxes(size_t n, int32_t **vstart, double **vx, double **vy) {
  lcg_seed(5);
  *vstart = malloc((n + 1) * sizeof **vstart), *vx = malloc(4 * n * sizeof **vx), *vy = malloc(4 * n * sizeof **vy);
  for (size_t i = 0; i < n; i++) {
    double x = lcg_uniform(0, 100), y = lcg_uniform(0, 30), s = lcg_uniform(0.5, 3);
    double w = i == 0 ? 110 : s, hgt = i == 0 ? 2 : s;
    if (i == 0) x = -5, y = -2;
    const double X[4] = {x, x + w, x + w, x}, Y[4] = {y, y, y + hgt, y + hgt};
    (*vstart)[i] = (int32_t)(4 * i);
    for (int k = 0; k < 4; k++) (*vx)[4 * i + (size_t)k] = X[k], (*vy)[4 * i + (size_t)k] = Y[k];
  }
  (*vstart)[n] = (int32_t)(4 * n);
}

Test(dda, broad_phase_finds_exactly_the_overlapping_boxes) {
  const size_t n = 400;
  int32_t *vstart;
  double *vx, *vy;
  random_boxes(n, &vstart, &vx, &vy);
  cl_dda_geometry g = {n, vstart, vx, vy};
  const double d0 = 0.3;
  int32_t *pairs = NULL;
  size_t np = 0, cap = 0;
  cl_error err;
  cr_assert_eq(cl_dda_broad_phase(&g, d0, &pairs, &np, &cap, &err), CL_OK, "%s", err.msg);
  size_t expected = 0, q = 0;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      double ax0 = vx[4 * i] - d0 / 2, ax1 = vx[4 * i + 1] + d0 / 2, ay0 = vy[4 * i] - d0 / 2, ay1 = vy[4 * i + 2] + d0 / 2;
      double bx0 = vx[4 * j] - d0 / 2, bx1 = vx[4 * j + 1] + d0 / 2, by0 = vy[4 * j] - d0 / 2, by1 = vy[4 * j + 2] + d0 / 2;
      if (ax0 > bx1 || bx0 > ax1 || ay0 > by1 || by0 > ay1) continue;
      expected++;
      /* the list is sorted: the pairs come in this loop's order */
      cr_assert(q < np && pairs[2 * q] == (int32_t)i && pairs[2 * q + 1] == (int32_t)j,
                "pair %zu: expected (%zu, %zu), got (%d, %d)", q, i, j, q < np ? pairs[2 * q] : -1,
                q < np ? pairs[2 * q + 1] : -1);
      q++;
    }
  cr_assert_eq(np, expected, "%zu candidate pairs, %zu overlapping boxes", np, expected);
  cr_assert(expected > n / 2, "the test has overlaps to find (%zu)", expected);
  free(pairs), free(vstart), free(vx), free(vy);
}

/* The broad phase's pair passes a warp a block on cuda: lane l of 32 takes the block's cells l,
 * l + 32, ... (cl_dda_partners_in); together the lanes find each block's partners, each once (the
 * boxes of broad_phase_finds_exactly_the_overlapping_boxes: block 0 a base as wide as the domain,
 * its box over rows of cells; cells of 0.2, so that most blocks cover more than 32). */
Test(dda, broad_phase_lanes_find_each_blocks_partners_once) {
  const size_t n = 400;
  int32_t *vstart;
  double *vx, *vy;
  random_boxes(n, &vstart, &vx, &vy);
  cl_dda_geometry g = {n, vstart, vx, vy};
  cl_dda_box *boxes = malloc(n * sizeof *boxes), all = {INFINITY, INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < n; i++) {
    boxes[i] = cl_dda_block_box(&g, (int32_t)i, 0.15);
    all.x0 = fmin(all.x0, boxes[i].x0), all.y0 = fmin(all.y0, boxes[i].y0);
    all.x1 = fmax(all.x1, boxes[i].x1), all.y1 = fmax(all.y1, boxes[i].y1);
  }
  const double h = 0.2; /* cells far smaller than the boxes: a box covers up to 15 x 15 of them, the base 4 000 */
  cl_dda_cells gr = {all, h, (size_t)((all.x1 - all.x0) / h) + 1, (size_t)((all.y1 - all.y0) / h) + 1, NULL, NULL};
  const size_t ncells = gr.nx * gr.ny;
  int32_t *in_cell = NULL;
  int64_t *start = calloc(ncells + 1, sizeof *start), *fill = malloc(ncells * sizeof *fill);
  for (int pass = 0; pass < 2; pass++) { /* a counting sort by cell, blocks ascending in a cell */
    for (size_t i = 0; i < n; i++) {
      size_t x0, x1, y0, y1;
      cl_dda_cell_range(&gr, boxes[i], &x0, &x1, &y0, &y1);
      for (size_t y = y0; y <= y1; y++)
        for (size_t x = x0; x <= x1; x++) {
          if (pass == 0) start[y * gr.nx + x + 1]++;
          else in_cell[fill[y * gr.nx + x]++] = (int32_t)i;
        }
    }
    if (pass == 1) break;
    for (size_t c = 0; c < ncells; c++) start[c + 1] += start[c], fill[c] = start[c];
    in_cell = malloc((size_t)start[ncells] * sizeof *in_cell);
  }
  gr.start = start, gr.in_cell = in_cell;
  size_t x0, x1, y0, y1;
  cl_dda_cell_range(&gr, boxes[0], &x0, &x1, &y0, &y1);
  cr_assert((x1 - x0 + 1) * (y1 - y0 + 1) > 1000, "the base covers %zu cells", (x1 - x0 + 1) * (y1 - y0 + 1));
  int32_t *all_j = malloc(n * sizeof *all_j), *lanes_j = malloc(n * sizeof *lanes_j);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    const int64_t m = cl_dda_partners(&gr, boxes, (int32_t)i, all_j);
    int64_t got = 0;
    for (size_t lane = 0; lane < 32; lane++) got += cl_dda_partners_in(&gr, boxes, (int32_t)i, lane, 32, lanes_j + got);
    cr_assert_eq(got, m, "block %zu: the lanes found %ld partners, the block %ld", i, (long)got, (long)m);
    for (int64_t p = 0; p < m; p++) { /* the same set (no partner twice: the block's list has none) */
      int found = 0;
      for (int64_t q = 0; q < m; q++) found += lanes_j[q] == all_j[p];
      cr_assert_eq(found, 1, "block %zu: partner %d found %d times by the lanes", i, all_j[p], found);
    }
    total += (size_t)m;
  }
  cr_assert(total > n / 2, "the test has partners to find (%zu)", total);
  free(boxes), free(start), free(fill), free(in_cell), free(all_j), free(lanes_j), free(vstart), free(vx), free(vy);
}

static int key_of_equal(const cl_dda_contact *a, const cl_dda_contact *b) {
  return a->bi == b->bi && a->vi == b->vi && a->bj == b->bj && a->ej == b->ej;
}

/* The host's contacts of the pairs (its pair loop, in pair order), *nref of them. */
static cl_dda_found *host_pair_contacts(const cl_dda_geometry *g, const int32_t *pairs, size_t np, double d0,
                                        size_t *nref) {
  size_t total = 0;
  for (size_t k = 0; k < np; k++) total += (size_t)cl_dda_pair_contacts(g, pairs[2 * k], pairs[2 * k + 1], d0, NULL, 0);
  cl_dda_found *ref = malloc((total ? total : 1) * sizeof *ref);
  for (size_t k = 0, at = 0; k < np; k++)
    at += (size_t)cl_dda_pair_contacts(g, pairs[2 * k], pairs[2 * k + 1], d0, ref + at, (int)(total - at));
  *nref = total;
  return ref;
}

static int found_key_cmp(const void *x, const void *y) {
  const cl_dda_found *a = *(const cl_dda_found *const *)x, *b = *(const cl_dda_found *const *)y;
  if (a->vi != b->vi) return a->vi < b->vi ? -1 : 1;
  if (a->ej != b->ej) return a->ej < b->ej ? -1 : 1;
  return a < b ? -1 : a > b; /* equal keys in the detection's order */
}

/* Detection in parallel against the serial order: the broad phase's pairs against every pair's
 * box test, and the narrow phase's contacts, each field bit for bit, against a serial reference
 * (the pairs one after the other, then a stable sort by key: what the serial code did), at 1 and
 * 2 threads, the second call carrying the first's states over. The grid (cl_dda_random_grid, with
 * short edges: equal keys) has 1200 blocks, above the size where the passes go parallel. */
Test(dda, detection_in_parallel_matches_the_serial_order) {
  uint64_t state = 11;
  int32_t *vstart;
  double *vx, *vy;
  const size_t n = 40 * 30;
  cl_error err;
  cr_assert_eq(cl_dda_random_grid(40, 30, &state, &vstart, &vx, &vy, &err), CL_OK, "%s", err.msg);
  cl_dda_geometry g = {n, vstart, vx, vy};
  const double d0 = 0.05;
  /* the reference: every pair of boxes (grown by d0 / 2) that overlap, in order */
  size_t nref = 0, refcap = 8 * n;
  int32_t *ref = malloc(2 * refcap * sizeof *ref);
  double (*bx)[4] = malloc(n * sizeof *bx);
  for (size_t i = 0; i < n; i++) {
    bx[i][0] = bx[i][1] = INFINITY, bx[i][2] = bx[i][3] = -INFINITY;
    for (int32_t v = vstart[i]; v < vstart[i + 1]; v++)
      bx[i][0] = fmin(bx[i][0], vx[v]), bx[i][1] = fmin(bx[i][1], vy[v]), bx[i][2] = fmax(bx[i][2], vx[v]),
      bx[i][3] = fmax(bx[i][3], vy[v]);
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      if (bx[i][0] - d0 / 2 > bx[j][2] + d0 / 2 || bx[j][0] - d0 / 2 > bx[i][2] + d0 / 2 ||
          bx[i][1] - d0 / 2 > bx[j][3] + d0 / 2 || bx[j][1] - d0 / 2 > bx[i][3] + d0 / 2)
        continue;
      cr_assert(nref < refcap);
      ref[2 * nref] = (int32_t)i, ref[2 * nref + 1] = (int32_t)j, nref++;
    }
  /* the contacts of the reference pairs, serially, stably sorted by key */
  size_t nfound;
  cl_dda_found *found = host_pair_contacts(&g, ref, nref, d0, &nfound);
  cl_dda_found **sorted = malloc((nfound ? nfound : 1) * sizeof *sorted);
  for (size_t k = 0; k < nfound; k++) sorted[k] = &found[k];
  qsort(sorted, nfound, sizeof *sorted, found_key_cmp);
  size_t equal_keys = 0;
  for (size_t k = 1; k < nfound; k++)
    equal_keys += sorted[k]->vi == sorted[k - 1]->vi && sorted[k]->ej == sorted[k - 1]->ej;
  cr_assert(nfound > 2 * n && equal_keys > 0, "the test has contacts (%zu) and equal keys (%zu) to order", nfound,
            equal_keys);

  int threads0 = omp_get_max_threads();
  cl_dda_contact_list first[2] = {{0}}, second[2] = {{0}};
  for (int t = 0; t < 2; t++) {
    omp_set_num_threads(t + 1);
    int32_t *pairs = NULL;
    size_t np = 0, cap = 0;
    cr_assert_eq(cl_dda_broad_phase(&g, d0, &pairs, &np, &cap, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(np, nref, "%d threads: %zu candidate pairs, %zu overlapping boxes", t + 1, np, nref);
    cr_assert(memcmp(pairs, ref, 2 * np * sizeof *pairs) == 0, "%d threads: the pairs' order", t + 1);
    cl_dda_contact_list none = {0};
    cr_assert_eq(cl_dda_narrow_phase(&g, pairs, np, d0, &none, 1, &first[t], &err), CL_OK, "%s", err.msg);
    cr_assert_eq(first[t].count, nfound, "%d threads: %zu contacts, the serial %zu", t + 1, first[t].count, nfound);
    for (size_t k = 0; k < nfound; k++) {
      const cl_dda_contact *c = &first[t].c[k];
      const cl_dda_found *f = sorted[k];
      double gap, tt;
      gap = cl_dda_edge_gap(&g, f->vi, f->bj, f->ej, &tt);
      cr_assert(c->bi == f->bi && c->vi == f->vi && c->bj == f->bj && c->ej == f->ej && c->kind == f->kind &&
                memcmp(&c->t_ref, &f->t, sizeof f->t) == 0 && memcmp(&c->length, &f->length, sizeof f->length) == 0 &&
                c->state == (gap <= 0 ? CL_DDA_LOCK : CL_DDA_OPEN) && c->bonded == 1,
                "%d threads: contact %zu differs from the serial order's", t + 1, k);
    }
    /* the second step carries the states over: mark each contact, by its place, and find it again */
    cl_dda_contact_list prev = {0};
    prev.c = malloc(nfound * sizeof *prev.c), prev.count = prev.cap = nfound;
    memcpy(prev.c, first[t].c, nfound * sizeof *prev.c);
    for (size_t k = 0; k < nfound; k++) prev.c[k].state = (int)(k % 3), prev.c[k].N = (double)k;
    cr_assert_eq(cl_dda_narrow_phase(&g, pairs, np, d0, &prev, 0, &second[t], &err), CL_OK, "%s", err.msg);
    cr_assert_eq(second[t].count, nfound);
    for (size_t k = 0; k < nfound; k++) {
      const cl_dda_contact *c = &second[t].c[k];
      /* equal keys take the state of the one bsearch finds, among the equal ones */
      cr_assert(key_of_equal(&prev.c[(size_t)c->N], c) && c->state == (int)((size_t)c->N % 3),
                "%d threads: contact %zu did not keep its state", t + 1, k);
    }
    cl_dda_contact_list_free(&prev);
    free(pairs);
  }
  omp_set_num_threads(threads0);
  cr_assert(memcmp(first[0].c, first[1].c, nfound * sizeof *first[0].c) == 0, "first step: 1 and 2 threads");
  cr_assert(memcmp(second[0].c, second[1].c, nfound * sizeof *second[0].c) == 0, "second step: 1 and 2 threads");
  for (int t = 0; t < 2; t++) cl_dda_contact_list_free(&first[t]), cl_dda_contact_list_free(&second[t]);
  free(ref), free(bx), free(found), free(sorted), free(vstart), free(vx), free(vy);
}

/* The block pattern (a counting sort by row, each row's columns sorted and made unique in
 * parallel) against a dense table: 2000 blocks, random pairs in either order with repeats, at 1
 * and 2 threads, the same arrays. */
Test(dda, bsr_pattern_matches_a_dense_table) {
  lcg_seed(13);
  const size_t n = 2000, np = 9000;
  int32_t *pi = malloc(np * sizeof *pi), *pj = malloc(np * sizeof *pj);
  unsigned char *dense = calloc(n * n, 1);
  for (size_t k = 0; k < np; k++) {
    int32_t i = (int32_t)lcg_uniform(0, (double)n), j = (int32_t)lcg_uniform(0, (double)n);
    if (k % 7 == 3) i = pi[k - 1], j = pj[k - 1]; /* a repeat */
    pi[k] = i, pj[k] = j;
    dense[(size_t)i * n + (size_t)j] = dense[(size_t)j * n + (size_t)i] = 1;
  }
  for (size_t i = 0; i < n; i++) dense[i * n + i] = 1;
  int threads0 = omp_get_max_threads();
  cl_dda_bsr a[2] = {{0}};
  cl_error err;
  for (int t = 0; t < 2; t++) {
    omp_set_num_threads(t + 1);
    cr_assert_eq(cl_dda_bsr_pattern(&a[t], n, np, pi, pj, &err), CL_OK, "%s", err.msg);
  }
  omp_set_num_threads(threads0);
  size_t q = 0;
  for (size_t i = 0; i < n; i++) {
    cr_assert_eq(a[0].rowptr[i], (int32_t)q, "row %zu starts at %d, expected %zu", i, a[0].rowptr[i], q);
    for (size_t j = 0; j < n; j++)
      if (dense[i * n + j]) {
        cr_assert(a[0].col[q] == (int32_t)j, "row %zu: column %d, expected %zu", i, a[0].col[q], j);
        q++;
      }
  }
  cr_assert_eq(a[0].nnzb, q);
  cr_assert_eq(a[0].rowptr[n], (int32_t)q);
  cr_assert(a[1].nnzb == q && memcmp(a[0].rowptr, a[1].rowptr, (n + 1) * sizeof *a[0].rowptr) == 0 &&
                memcmp(a[0].col, a[1].col, q * sizeof *a[0].col) == 0,
            "1 and 2 threads give the same pattern");
  cl_dda_bsr_free(&a[0]), cl_dda_bsr_free(&a[1]);
  free(pi), free(pj), free(dense);
}

/* Two found contacts alike, field by field (the struct has padding), the reals bit for bit. */
/* The same contact: its blocks, vertex, edge and kind exactly, its edge parameter and length to tol
 * relative (0: bit for bit). */
static int found_equal(const cl_dda_found *a, const cl_dda_found *b, double tol) {
  if (a->bi != b->bi || a->vi != b->vi || a->bj != b->bj || a->ej != b->ej || a->kind != b->kind) return 0;
  if (tol == 0) return memcmp(&a->t, &b->t, sizeof a->t) == 0 && memcmp(&a->length, &b->length, sizeof a->length) == 0;
  return fabs(a->t - b->t) <= tol * fmax(1, fabs(b->t)) && fabs(a->length - b->length) <= tol * fabs(b->length);
}

/* The geometry on device dev: on the cpu its host arrays as they are, on cuda copies (freed by
 * release_geometry). */
static cl_dda_geometry geometry_on(cl_device *dev, const cl_dda_geometry *g) {
  if (dev->kind == CL_BACKEND_CPU) return *g;
  cl_dda_geometry on = *g;
  size_t n = g->n, nv = (size_t)g->vstart[n];
  void *p[3] = {NULL, NULL, NULL};
  const void *src[3] = {g->vstart, g->vx, g->vy};
  size_t bytes[3] = {(n + 1) * sizeof *g->vstart, nv * sizeof *g->vx, nv * sizeof *g->vy};
  cl_error err;
  for (int k = 0; k < 3; k++) {
    cr_assert_eq(dev->alloc(dev, &p[k], bytes[k], &err), CL_OK, "%s", err.msg);
    cr_assert_eq(dev->to_device(dev, p[k], src[k], bytes[k], &err), CL_OK, "%s", err.msg);
  }
  on.vstart = p[0], on.vx = p[1], on.vy = p[2];
  return on;
}

static void release_geometry(cl_device *dev, cl_dda_geometry *on) {
  if (dev->kind == CL_BACKEND_CPU) return;
  dev->release(dev, (void *)on->vstart), dev->release(dev, (void *)on->vx), dev->release(dev, (void *)on->vy);
}

/* The narrow phase on the cpu device and on cuda where there is one (cl_dda_detect_found over the
 * pairs) against the host's contacts ref: bit for bit on the cpu device (the same loop); CUDA's hypot
 * and its fused multiply-adds round differently from the host's in the last bits (1e-12). */
static void check_narrow_on_devices(const cl_dda_geometry *g, const int32_t *pairs, size_t np, double d0,
                                    const cl_dda_found *ref, size_t nref) {
  const char *names[2] = {"cpu", "cuda"};
  for (int b = 0; b < (cl_device_cuda_count() > 0 ? 2 : 1); b++) {
    cl_device dev;
    cl_error err;
    cr_assert_eq(cl_device_open(&dev, names[b], &err), CL_OK, "%s", err.msg);
    cl_dda_geometry on = geometry_on(&dev, g);
    cl_dda_detect det;
    cl_dda_detect_init(&det, &dev);
    cr_assert_eq(cl_dda_detect_found(&det, &on, pairs, np, d0, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(det.nfound, nref, "%s: %zu contacts, the host %zu", names[b], det.nfound, nref);
    cl_dda_found *found = malloc((nref ? nref : 1) * sizeof *found);
    cr_assert_eq(cl_dda_detect_found_to_host(&det, found, &err), CL_OK, "%s", err.msg);
    cl_dda_detect_free(&det);
    for (size_t k = 0; k < nref; k++)
      cr_assert(found_equal(&found[k], &ref[k], b == 0 ? 0 : 1e-12), "%s: contact %zu differs from the host's",
                names[b], k);
    release_geometry(&dev, &on);
    free(found);
    cl_device_close(&dev);
  }
}

/* The narrow phase as a device pass over the candidate pairs (count, prefix sum, write) against
 * the host's serial loop: bit for bit on the cpu device, to 1e-12 on cuda where there is one. */
Test(dda, narrow_phase_on_the_device_matches_the_host) {
  uint64_t state = 17;
  int32_t *vstart;
  double *vx, *vy;
  const size_t n = 30 * 25;
  cl_error err;
  cr_assert_eq(cl_dda_random_grid(30, 25, &state, &vstart, &vx, &vy, &err), CL_OK, "%s", err.msg);
  cl_dda_geometry g = {n, vstart, vx, vy};
  const double d0 = 0.05;
  int32_t *pairs = NULL;
  size_t np = 0, cap = 0, nref;
  cr_assert_eq(cl_dda_broad_phase(&g, d0, &pairs, &np, &cap, &err), CL_OK, "%s", err.msg);
  cl_dda_found *ref = host_pair_contacts(&g, pairs, np, d0, &nref);
  check_narrow_on_devices(&g, pairs, np, d0, ref, nref);
  free(ref), free(pairs), free(vstart), free(vx), free(vy);
}

/* Detection as the step runs it on a device (detect.h: the broad phase's passes, then the narrow
 * phase's) against the host's cl_dda_broad_phase and narrow phase: the same candidate pairs in the
 * same order, and the same contacts in the same order -- bit for bit on the cpu device, to 1e-12 in
 * the edge parameter and length on cuda where there is one (its hypot rounds differently) -- and
 * the lists the transfer makes of them equal. Two systems: random rectangles with a base as wide as
 * the domain, and the random grid of blocks with short edges; each detected twice with the same
 * buffers (the second time with less room needed), at 1 and 2 threads. */
Test(dda, detection_on_the_device_matches_the_host) {
  for (int sys = 0; sys < 2; sys++) {
    int32_t *vstart;
    double *vx, *vy;
    size_t n;
    double d0;
    cl_error err;
    if (sys == 0) {
      n = 400, d0 = 0.3;
      random_boxes(n, &vstart, &vx, &vy);
    } else {
      uint64_t state = 23;
      n = 35 * 30, d0 = 0.05;
      cr_assert_eq(cl_dda_random_grid(35, 30, &state, &vstart, &vx, &vy, &err), CL_OK, "%s", err.msg);
    }
    cl_dda_geometry g = {n, vstart, vx, vy};
    int32_t *ref = NULL;
    size_t nref = 0, cap = 0;
    cr_assert_eq(cl_dda_broad_phase(&g, d0, &ref, &nref, &cap, &err), CL_OK, "%s", err.msg);
    size_t mref;
    cl_dda_found *fref = host_pair_contacts(&g, ref, nref, d0, &mref);
    cl_dda_contact_list none = {0}, lref = {0};
    cr_assert_eq(cl_dda_narrow_phase(&g, ref, nref, d0, &none, 1, &lref, &err), CL_OK, "%s", err.msg);
    cr_assert(nref > n / 2 && mref > n / 2, "system %d has pairs (%zu) and contacts (%zu) to find", sys, nref, mref);
    const char *names[2] = {"cpu", "cuda"};
    int threads0 = omp_get_max_threads();
    for (int b = 0; b < (cl_device_cuda_count() > 0 ? 2 : 1); b++)
      for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t + 1);
        cl_device dev;
        cr_assert_eq(cl_device_open(&dev, names[b], &err), CL_OK, "%s", err.msg);
        cl_dda_geometry on = geometry_on(&dev, &g);
        cl_dda_detect det;
        cl_dda_detect_init(&det, &dev);
        for (int again = 0; again < 2; again++) {
          /* the second time with a smaller margin: fewer pairs, in buffers grown for more */
          double dd = again ? d0 / 2 : d0;
          int32_t *pref = ref;
          size_t npref = nref;
          if (again) {
            pref = NULL, npref = 0, cap = 0;
            cr_assert_eq(cl_dda_broad_phase(&g, dd, &pref, &npref, &cap, &err), CL_OK, "%s", err.msg);
          }
          cr_assert_eq(cl_dda_detect_pairs(&det, &on, dd, &err), CL_OK, "%s", err.msg);
          cr_assert_eq(det.npairs, npref, "system %d, %s, %d threads: %zu pairs, the host %zu", sys, names[b], t + 1,
                       det.npairs, npref);
          int32_t *pairs = malloc((2 * npref + 1) * sizeof *pairs);
          cr_assert_eq(cl_dda_detect_pairs_to_host(&det, pairs, &err), CL_OK, "%s", err.msg);
          cr_assert(memcmp(pairs, pref, 2 * npref * sizeof *pairs) == 0, "system %d, %s: the pairs differ", sys,
                    names[b]);
          free(pairs);
          if (again) {
            free(pref);
            continue;
          }
          cr_assert_eq(cl_dda_detect_found(&det, &on, NULL, 0, dd, &err), CL_OK, "%s", err.msg);
          cr_assert_eq(det.nfound, mref, "system %d, %s: %zu contacts, the host %zu", sys, names[b], det.nfound, mref);
          cl_dda_found *found = malloc((mref ? mref : 1) * sizeof *found);
          cr_assert_eq(cl_dda_detect_found_to_host(&det, found, &err), CL_OK, "%s", err.msg);
          for (size_t k = 0; k < mref; k++)
            cr_assert(found_equal(&found[k], &fref[k], b == 0 ? 0 : 1e-12), "system %d, %s: contact %zu differs", sys,
                      names[b], k);
          cl_dda_contact_list l = {0};
          cr_assert_eq(cl_dda_transfer(&g, found, det.nfound, &none, 1, &l, &err), CL_OK, "%s", err.msg);
          cr_assert_eq(l.count, lref.count);
          for (size_t k = 0; k < l.count; k++)
            cr_assert(key_of_equal(&l.c[k], &lref.c[k]) && l.c[k].kind == lref.c[k].kind &&
                          l.c[k].state == lref.c[k].state && l.c[k].bonded == lref.c[k].bonded,
                      "system %d, %s: transferred contact %zu differs", sys, names[b], k);
          cl_dda_contact_list_free(&l);
          free(found);
        }
        cl_dda_detect_free(&det);
        release_geometry(&dev, &on);
        cl_device_close(&dev);
      }
    omp_set_num_threads(threads0);
    cl_dda_contact_list_free(&lref);
    free(ref), free(fref), free(vstart), free(vx), free(vy);
  }
}

/* The checks of a solution on a device (cl_k_dda_check and two reductions, as the step runs them)
 * against the first-order displacement written out here, u = u0 - r0 (y - y0) + ex (x - x0) + gxy (y
 * - y0) / 2, v = v0 + r0 (x - x0) + ey (y - y0) + gxy (x - x0) / 2 at each vertex: the largest
 * displacement to 1e-14 relative (the two sum in another order), and the first block whose area
 * factor (1 + ex)(1 + ey) - gxy^2 / 4 leaves [1/2, 2] exactly -- blocks 37 (0.42) and 80 (2.1) are
 * made to, block 12 sits just inside (0.51). The 600 jittered blocks on the cpu device, and on cuda
 * where there is one. */
Test(dda, solution_checks_on_the_device_match_the_displacement_field) {
  uint64_t state = 29;
  int32_t *vstart;
  double *vx, *vy;
  const size_t n = 30 * 20;
  cl_error err;
  cr_assert_eq(cl_dda_random_grid(30, 20, &state, &vstart, &vx, &vy, &err), CL_OK, "%s", err.msg);
  lcg_seed(31);
  double *moments = calloc(6 * n, sizeof *moments), *D = malloc(6 * n * sizeof *D), expected = 0;
  for (size_t i = 0; i < n; i++) {
    cl_dda_moments mo = cl_dda_polygon_moments(vx + vstart[i], vy + vstart[i], vstart[i + 1] - vstart[i]);
    moments[i] = mo.S, moments[4 * n + i] = mo.x0, moments[5 * n + i] = mo.y0;
    for (int k = 0; k < 6; k++) D[k * n + i] = lcg_uniform(-1e-3, 1e-3);
  }
  const size_t squeezed = 37, swollen = 80, kept = 12;
  D[3 * n + squeezed] = D[4 * n + squeezed] = -0.35, D[5 * n + squeezed] = 0;     /* 0.65^2 = 0.4225 */
  D[3 * n + swollen] = 1.1, D[4 * n + swollen] = 0, D[5 * n + swollen] = 0;       /* 2.1 */
  D[3 * n + kept] = -0.49, D[4 * n + kept] = 0, D[5 * n + kept] = 0;              /* 0.51 */
  for (size_t i = 0; i < n; i++)
    for (int32_t v = vstart[i]; v < vstart[i + 1]; v++) {
      double X = vx[v] - moments[4 * n + i], Y = vy[v] - moments[5 * n + i];
      double u = D[i] - D[2 * n + i] * Y + D[3 * n + i] * X + D[5 * n + i] * Y / 2;
      double w = D[n + i] + D[2 * n + i] * X + D[4 * n + i] * Y + D[5 * n + i] * X / 2;
      expected = fmax(expected, hypot(u, w));
    }
  const char *names[2] = {"cpu", "cuda"};
  for (int b = 0; b < (cl_device_cuda_count() > 0 ? 2 : 1); b++) {
    cl_device dev;
    cr_assert_eq(cl_device_open(&dev, names[b], &err), CL_OK, "%s", err.msg);
    cl_dda_geometry g = {n, vstart, vx, vy}, on = geometry_on(&dev, &g);
    double *dm = moments, *dD = D, *dcheck = NULL;
    cr_assert_eq(dev.alloc(&dev, (void **)&dcheck, 2 * n * sizeof *dcheck, &err), CL_OK, "%s", err.msg);
    if (b == 1) {
      cr_assert_eq(dev.alloc(&dev, (void **)&dm, 6 * n * sizeof *dm, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(dev.alloc(&dev, (void **)&dD, 6 * n * sizeof *dD, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(dev.to_device(&dev, dm, moments, 6 * n * sizeof *dm, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(dev.to_device(&dev, dD, D, 6 * n * sizeof *dD, &err), CL_OK, "%s", err.msg);
    }
    cl_dda_block_args a = {.n = n, .vstart = on.vstart, .vx = (void *)on.vx, .vy = (void *)on.vy, .moments = dm,
                           .D = dD, .check = dcheck};
    double dmax, first;
    cr_assert_eq(cl_k_dda_check(&dev, CL_F64, &a, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_k_reduce(&dev, CL_F64, dcheck, n, CL_REDUCE_MAX, &dmax, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_k_reduce(&dev, CL_F64, dcheck + n, n, CL_REDUCE_MIN, &first, &err), CL_OK, "%s", err.msg);
    cr_assert(fabs(dmax - expected) <= 1e-14 * expected, "%s: largest displacement %.17g, expected %.17g", names[b],
              dmax, expected);
    cr_assert(first == (double)squeezed, "%s: first collapsing block %g, expected %zu", names[b], first, squeezed);
    /* each block's flag: its index where its area factor leaves [1/2, 2], else n */
    double *host_check = malloc(2 * n * sizeof *host_check);
    cr_assert_eq(dev.to_host(&dev, host_check, dcheck, 2 * n * sizeof *host_check, &err), CL_OK, "%s", err.msg);
    for (size_t i = 0; i < n; i++)
      cr_assert(host_check[n + i] == (i == squeezed || i == swollen ? (double)i : (double)n), "%s: block %zu's flag %g",
                names[b], i, host_check[n + i]);
    free(host_check);
    dev.release(&dev, dcheck);
    if (b == 1) dev.release(&dev, dm), dev.release(&dev, dD);
    release_geometry(&dev, &on);
    cl_device_close(&dev);
  }
  free(moments), free(D), free(vstart), free(vx), free(vy);
}

/* The contacts' states kept on the device for a whole step (cl_dda_step_contacts' start states): each
 * attempt restarts from the step's start (cl_dda_solver_restart_states) whatever the rule changed in
 * the last one, and the accepted step's bookkeeping on the device (cl_dda_solver_account) gives what the
 * host's loop over the contacts gave (written out here from contact.h's gaps): the friction work of
 * the sliding contacts f sgn (gs - gs0), the closed count, shear forces (sliding f sgn, locked ks gs,
 * open 0), anchors following a contact that is not locked (t_ref += gs / l) and its bond lost. On
 * the cpu and, where there is one, on cuda. Tolerances: the fields are the same arithmetic as the
 * host's, to 1e-14 of their sizes (a compiler may contract them differently); the work is a sum in
 * another order, 1e-12 of the sum of its terms' sizes. */
Test(dda, contact_bookkeeping_on_the_device_matches_the_host) {
  const size_t n = 40, nc = 240, m = 6 * n;
  const double kn = 50, ks = 20;
  lcg_seed(47);
  double *K = malloc(36 * n * sizeof *K), *F = malloc(m * sizeof *F), *geo = malloc(26 * nc * sizeof *geo);
  double *law = malloc(3 * nc * sizeof *law), *reals = malloc(8 * nc * sizeof *reals), *x = malloc(m * sizeof *x);
  int32_t *ints = malloc(9 * nc * sizeof *ints);
  int32_t *bi = ints, *bj = bi + nc, *state = bj + nc, *flips = state + nc, *bonded = flips + nc;
  double *sgn = reals, *N = sgn + nc, *fric = N + nc, *t_ref = fric + nc, *len = t_ref + nc;
  random_diagonal(n, 30, K, F);
  for (size_t k = 0; k < nc; k++) {
    random_contact(k, n, nc, 0, bi, bj, geo);
    law[k] = lcg_uniform(0, 1), law[nc + k] = lcg_uniform(0, 0.5), law[2 * nc + k] = lcg_uniform(0, 0.5);
    state[k] = (int32_t)lcg_below(3), flips[k] = 0, sgn[k] = lcg_below(2) ? 1 : -1, bonded[k] = (int32_t)lcg_below(2);
    N[k] = state[k] == CL_DDA_OPEN ? 0 : lcg_uniform(0, 2);
    fric[k] = state[k] == CL_DDA_SLIDE ? law[k] * N[k] * sgn[k] : 0;
    t_ref[k] = lcg_uniform(0, 1), len[k] = lcg_uniform(0.5, 2);
  }
  const char *names[2] = {"cpu", "cuda"};
  for (int b = 0; b < (cl_device_cuda_count() > 0 ? 2 : 1); b++) {
    cl_device dev;
    cl_error err;
    cr_assert_eq(cl_device_open(&dev, names[b], &err), CL_OK, "%s", err.msg);
    double *zero = calloc(m, sizeof *zero);
    void *dK = copy_to_device(&dev, K, 36 * n * sizeof *K), *dF = copy_to_device(&dev, F, m * sizeof *F);
    void *dzero = copy_to_device(&dev, zero, m * sizeof *zero);
    cl_dda_bsr a = {0};
    cr_assert_eq(cl_dda_bsr_pattern(&a, n, nc, bi, bj, &err), CL_OK);
    cl_dda_solver s;
    cl_dda_solver_init(&s, &dev, CL_DDA_BSR);
    cl_dda_step_contacts sc = {.count = nc, .bi = bi, .bj = bj, .geo = geo, .kn = kn, .ks = ks, .law = law,
                               .slip_floor = 1e-9, .force_floor = 1e-9, .flip_limit = 4, .state = state, .flips = flips,
                               .sgn = sgn, .N = N, .friction = fric, .t_ref = t_ref, .len = len, .bonded = bonded};
    cr_assert_eq(cl_dda_solver_set_contacts(&s, &a, &sc, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_start_from(&s, dzero, &err), CL_OK, "%s", err.msg);
    int32_t *dstate = malloc(4 * nc * sizeof *dstate), *dflips = dstate + nc, *dbonded = dflips + nc;
    double *dreals = malloc(5 * nc * sizeof *dreals), *dsgn = dreals, *dN = dsgn + nc, *dS = dN + nc;
    double *dt_ref = dS + nc;
    cl_dda_contact_fields got = {dstate, dflips, dbonded, dsgn, dN, dS, dt_ref};
    int changed = 0;
    for (int attempt = 0; attempt < 2; attempt++) { /* an attempt whose rule changed states, then its redo */
      cr_assert_eq(cl_dda_solver_restart_states(&s, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(cl_dda_solver_contacts_down(&s, &got, &err), CL_OK, "%s", err.msg);
      for (size_t k = 0; k < nc; k++)
        cr_assert(dstate[k] == state[k] && dflips[k] == 0 && dsgn[k] == sgn[k] && dN[k] == N[k],
                  "%s, attempt %d, contact %zu: the start's state %d, sgn %g, N %g; got %d, %d flips, %g, %g", names[b],
                  attempt, k, state[k], sgn[k], N[k], dstate[k], dflips[k], dsgn[k], dN[k]);
      cl_dda_pcg_result res;
      int unsettled;
      cr_assert_eq(cl_dda_solver_assemble(&s, NULL, NULL, dK, dF, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(cl_dda_solver_solve_open_close(&s, NULL, CL_DDA_BLOCK_JACOBI, 1e-12, 0, 1000, &res, &changed, &unsettled,
                                                  &err), CL_OK, "%s", err.msg);
      cr_assert(res.converged && changed > 0, "%s: PCG converged %d, the rule changed %d states", names[b], res.converged,
                changed);
    }
    double work;
    size_t closed;
    cr_assert_eq(cl_dda_solver_account(&s, NULL, &work, &closed, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_contacts_down(&s, &got, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_solution(&s, x, &err), CL_OK, "%s", err.msg);
    double ref = 0, scale = 0;
    size_t ref_closed = 0;
    for (size_t k = 0; k < nc; k++) {
      const double *Di = x + 6 * (size_t)bi[k], *Dj = x + 6 * (size_t)bj[k], gs0 = geo[25 * nc + k];
      double gs = gs0;
      for (int c = 0; c < 6; c++) gs += geo[(12 + c) * nc + k] * Di[c] - geo[(18 + c) * nc + k] * Dj[c];
      const double f = law[k] * fmax(dN[k], 0) * dsgn[k];
      const double S = dstate[k] == CL_DDA_SLIDE ? f : dstate[k] == CL_DDA_LOCK ? ks * gs : 0;
      const double anchor = dstate[k] == CL_DDA_LOCK ? t_ref[k] : t_ref[k] + gs / len[k];
      const int bond = dstate[k] == CL_DDA_LOCK ? bonded[k] : 0;
      if (dstate[k] == CL_DDA_SLIDE) ref += f * (gs - gs0), scale += fabs(f * (gs - gs0));
      ref_closed += dstate[k] != CL_DDA_OPEN;
      cr_assert(fabs(dS[k] - S) <= 1e-14 * fmax(fabs(S), 1), "%s, contact %zu (state %d): shear force %.17g, host %.17g",
                names[b], k, dstate[k], dS[k], S);
      cr_assert(fabs(dt_ref[k] - anchor) <= 1e-14 * fmax(fabs(anchor), 1),
                "%s, contact %zu (state %d): anchor %.17g, host %.17g", names[b], k, dstate[k], dt_ref[k], anchor);
      cr_assert_eq(dbonded[k], bond, "%s, contact %zu (state %d): bonded %d, host %d", names[b], k, dstate[k], dbonded[k],
                   bond);
    }
    cr_assert_eq(closed, ref_closed, "%s: %zu closed, host %zu", names[b], closed, ref_closed);
    cr_assert(scale > 0 && fabs(work - ref) <= 1e-12 * scale, "%s: friction work %.17g, host %.17g", names[b], work, ref);
    free(dstate), free(dreals);
    cl_dda_solver_free(&s);
    cl_dda_bsr_free(&a);
    dev.release(&dev, dK), dev.release(&dev, dF), dev.release(&dev, dzero);
    free(zero);
    cl_device_close(&dev);
  }
  free(K), free(F), free(geo), free(law), free(reals), free(x), free(ints);
}

/* The step's contacts set up on the device (setup_ops.h) against the host's rules written out here:
 * each contact's geometry is cl_dda_contact_at's at its vertex, its edge (the last vertex's edge wraps
 * to the block's first) and the centroids; its joint is its edge's where the cutter gave one, else
 * its pair of blocks' (either order), else the default; cohesion and tension act on the joint length
 * while bonded; a sliding contact's friction is tan phi max(N, 0) sgn. On the cpu: the same arithmetic
 * as the host's, to 1e-15 of the sizes (a compiler may contract it differently). */
Test(dda, contact_setup_matches_the_host_rules) {
  enum { NB = 6, NV = 4 * NB, NJ = 4, NPAIRS = 3 };
  const size_t nc = 300;
  lcg_seed(53);
  int32_t vstart[NB + 1], edge_joint[NV], pair_joint[NPAIRS];
  double vx[NV], vy[NV], moments[6 * NB], law_of[3 * NJ];
  const int32_t pairs[NPAIRS][2] = {{0, 3}, {1, 2}, {4, 5}};
  int64_t pair_keys[NPAIRS];
  for (int i = 0; i <= NB; i++) vstart[i] = 4 * i;
  for (int v = 0; v < NV; v++) {
    vx[v] = lcg_uniform(-1, 1), vy[v] = lcg_uniform(-1, 1);
    edge_joint[v] = lcg_below(3) ? -1 : (int32_t)lcg_below(NJ);
  }
  for (int k = 0; k < 6 * NB; k++) moments[k] = lcg_uniform(-1, 1);
  for (int k = 0; k < 3 * NJ; k++) law_of[k] = lcg_uniform(0.1, 1);
  for (int p = 0; p < NPAIRS; p++) pair_keys[p] = (int64_t)pairs[p][0] * NB + pairs[p][1], pair_joint[p] = 1 + p % (NJ - 1);
  int32_t *ints = malloc(6 * nc * sizeof *ints);
  int32_t *bi = ints, *bj = bi + nc, *vi = bj + nc, *ej = vi + nc, *state = ej + nc, *bonded = state + nc;
  double *reals = malloc(36 * nc * sizeof *reals);
  double *t_ref = reals, *length = t_ref + nc, *sgn = length + nc, *N = sgn + nc, *geo = N + nc, *len = geo + 26 * nc;
  double *law = len + nc, *friction = law + 3 * nc;
  for (size_t k = 0; k < nc; k++) {
    bi[k] = (int32_t)lcg_below(NB), bj[k] = (int32_t)((bi[k] + 1 + (int32_t)lcg_below(NB - 1)) % NB);
    vi[k] = vstart[bi[k]] + (int32_t)lcg_below(4), ej[k] = vstart[bj[k]] + (int32_t)lcg_below(4);
    state[k] = (int32_t)lcg_below(3), bonded[k] = (int32_t)lcg_below(2);
    t_ref[k] = lcg_uniform(0, 1), length[k] = lcg_uniform(0.5, 2), sgn[k] = lcg_below(2) ? 1 : -1;
    N[k] = lcg_uniform(-1, 2);
  }
  cl_dda_setup_args a = {.n = NB, .vstart = vstart, .vx = vx, .vy = vy, .moments = moments, .edge_joint = edge_joint,
                         .npairs = NPAIRS, .pair_keys = pair_keys, .pair_joint = pair_joint, .joint_law = law_of,
                         .nc = nc, .cbi = bi, .cbj = bj, .cvi = vi, .cej = ej, .cstate = state, .cbonded = bonded,
                         .t_ref = t_ref, .length = length, .sgn = sgn, .N = N, .geo = geo, .len = len, .law = law,
                         .friction = friction};
  cl_device dev;
  cl_error err;
  cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_k_dda_contact_setup(&dev, CL_F64, &a, &err), CL_OK, "%s", err.msg);
  cl_device_close(&dev);
  int by_edge = 0, by_pair = 0;
  for (size_t k = 0; k < nc; k++) {
    const int32_t i = bi[k], j = bj[k], e = ej[k], f = e + 1 == vstart[j + 1] ? vstart[j] : e + 1;
    const cl_dda_contact_geometry g = cl_dda_contact_at(vx[vi[k]], vy[vi[k]], vx[e], vy[e], vx[f], vy[f], t_ref[k],
                                                        moments[4 * NB + i], moments[5 * NB + i], moments[4 * NB + j],
                                                        moments[5 * NB + j]);
    double want[26];
    for (int r = 0; r < 6; r++) want[r] = g.en[r], want[6 + r] = g.fn[r], want[12 + r] = g.es[r], want[18 + r] = g.fs[r];
    want[24] = g.gn0, want[25] = g.gs0;
    for (int q = 0; q < 26; q++)
      cr_assert(fabs(geo[(size_t)q * nc + k] - want[q]) <= 1e-15 * fmax(fabs(want[q]), 1),
                "contact %zu, geometry row %d: %.17g, host %.17g", k, q, geo[(size_t)q * nc + k], want[q]);
    cr_assert(fabs(len[k] - g.len) <= 1e-15 * g.len, "contact %zu: edge length %.17g, host %.17g", k, len[k], g.len);
    int jt = 0;
    if (edge_joint[e] >= 0) jt = edge_joint[e], by_edge++;
    else
      for (int p = 0; p < NPAIRS; p++)
        if ((pairs[p][0] == i && pairs[p][1] == j) || (pairs[p][0] == j && pairs[p][1] == i)) jt = pair_joint[p], by_pair++;
    const double l = bonded[k] ? length[k] : 0;
    const double want_law[3] = {law_of[3 * jt], law_of[3 * jt + 1] * l, law_of[3 * jt + 2] * l};
    for (int q = 0; q < 3; q++)
      cr_assert(fabs(law[(size_t)q * nc + k] - want_law[q]) <= 1e-15 * want_law[0],
                "contact %zu (blocks %d, %d, edge %d: joint %d), law %d: %.17g, host %.17g", k, i, j, e, jt, q,
                law[(size_t)q * nc + k], want_law[q]);
    const double fr = state[k] == CL_DDA_SLIDE ? law_of[3 * jt] * fmax(N[k], 0) * sgn[k] : 0;
    cr_assert(fabs(friction[k] - fr) <= 1e-15 * fmax(fabs(fr), 1), "contact %zu: friction %.17g, host %.17g", k,
              friction[k], fr);
  }
  cr_assert(by_edge > 0 && by_pair > 0, "both joint rules met: %d by edge, %d by pair", by_edge, by_pair);
  free(ints), free(reals);
}

/* The step's pattern and the assembly's indices built on the device (cl_dda_solver_set_contacts_on_device,
 * pattern_ops.h) against the host's (cl_dda_bsr_pattern and cl_dda_solver_set_contacts): 300 blocks,
 * 2 000 contacts with repeated pairs (either order) and blocks without contacts; the row pointers,
 * columns, diagonal blocks, each matrix block's and block row's shares in contact order: the same
 * arrays, exactly (integers). On the cpu and, where there is one, on cuda. */
Test(dda, pattern_on_the_device_matches_the_host) {
  const size_t n = 300, nc = 2000;
  lcg_seed(59);
  int32_t *bi = malloc(nc * sizeof *bi), *bj = malloc(nc * sizeof *bj);
  for (size_t k = 0; k < nc; k++) {
    if (k > 0 && lcg_below(4) == 0) { /* a pair met before, in either order */
      size_t o = lcg_below(k);
      int swap = (int)lcg_below(2);
      bi[k] = swap ? bj[o] : bi[o], bj[k] = swap ? bi[o] : bj[o];
    } else {
      bi[k] = (int32_t)lcg_below(n - 20), bj[k] = (int32_t)((size_t)(bi[k] + 1 + (int32_t)lcg_below(7)) % (n - 20));
    }
  }
  const char *names[2] = {"cpu", "cuda"};
  for (int b = 0; b < (cl_device_cuda_count() > 0 ? 2 : 1); b++) {
    cl_device dev;
    cl_error err;
    cr_assert_eq(cl_device_open(&dev, names[b], &err), CL_OK, "%s", err.msg);
    cl_dda_bsr a = {0};
    cr_assert_eq(cl_dda_bsr_pattern(&a, n, nc, bi, bj, &err), CL_OK);
    cl_dda_solver host, device;
    cl_dda_solver_init(&host, &dev, CL_DDA_BSR), cl_dda_solver_init(&device, &dev, CL_DDA_BSR);
    cl_dda_step_contacts sc = {.count = nc, .bi = bi, .bj = bj, .kn = 1, .ks = 1};
    cr_assert_eq(cl_dda_solver_set_contacts(&host, &a, &sc, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_set_contacts_on_device(&device, n, &sc, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(device.A.ntarget, host.A.ntarget, "%s: %zu blocks, the host's %zu", names[b], device.A.ntarget,
                 host.A.ntarget);
    const size_t nt = host.A.ntarget;
    const struct { const char *name; const int32_t *h, *d; size_t count; } arrays[] = {
        {"rowptr", host.A.rowptr, device.A.rowptr, n + 1}, {"col", host.A.col, device.A.col, nt},
        {"tdiag", host.A.tdiag, device.A.tdiag, nt}, {"gstart", host.A.gstart, device.A.gstart, nt + 1},
        {"gitem", host.A.gitem, device.A.gitem, 4 * nc}, {"rstart", host.A.rstart, device.A.rstart, n + 1},
        {"ritem", host.A.ritem, device.A.ritem, 2 * nc}};
    int32_t *h = malloc(4 * nc * sizeof *h), *d = malloc(4 * nc * sizeof *d);
    for (size_t q = 0; q < sizeof arrays / sizeof *arrays; q++) {
      const size_t bytes = arrays[q].count * sizeof *h;
      cr_assert_eq(dev.to_host(&dev, h, arrays[q].h, bytes, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(dev.to_host(&dev, d, arrays[q].d, bytes, &err), CL_OK, "%s", err.msg);
      for (size_t k = 0; k < arrays[q].count; k++)
        cr_assert_eq(d[k], h[k], "%s: %s[%zu] %d, the host's %d", names[b], arrays[q].name, k, d[k], h[k]);
    }
    free(h), free(d);
    cl_dda_solver_free(&host), cl_dda_solver_free(&device);
    cl_dda_bsr_free(&a);
    cl_device_close(&dev);
  }
  free(bi), free(bj);
}

/* A device list (cl_dda_device_list) of room items, each array its own allocation on dev; with host
 * arrays h (NULL: none) of count items copied up. */
typedef struct list_arrays {
  void *p[14];
} list_arrays;

static cl_dda_device_list device_list(cl_device *dev, size_t room, list_arrays *keep) {
  cl_error err;
  for (int q = 0; q < 14; q++)
    cr_assert_eq(dev->alloc(dev, &keep->p[q], (room ? room : 1) * 8, &err), CL_OK, "%s", err.msg);
  void **p = keep->p;
  cl_dda_device_list l = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13]};
  return l;
}

/* The transfer tests' blocks: the jittered grid with short edges, 35 x 30 blocks (seed 23), so that a
 * vertex meets one edge twice (equal contact keys). Its arrays are the caller's to free. */
static cl_dda_geometry transfer_grid(void) {
  uint64_t seed = 23;
  int32_t *vstart;
  double *vx, *vy;
  cl_error err;
  cr_assert_eq(cl_dda_random_grid(35, 30, &seed, &vstart, &vx, &vy, &err), CL_OK, "%s", err.msg);
  return (cl_dda_geometry){35 * 30, vstart, vx, vy};
}

/* det made on dev and run over the geometry on (device copies): the broad and narrow phases at d0, the
 * contacts found left in its buffers (the transfer tests' start). */
static void detect_on(cl_dda_detect *det, cl_device *dev, const cl_dda_geometry *on, double d0) {
  cl_error err;
  cl_dda_detect_init(det, dev);
  cr_assert_eq(cl_dda_detect_pairs(det, on, d0, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_dda_detect_found(det, on, NULL, 0, d0, &err), CL_OK, "%s", err.msg);
}

/* The contacts det found, on the host, each told apart by its joint length (its index: two with the
 * same vertex and edge are often the same in every field), so that a transfer must keep the order
 * they were found in. */
static cl_dda_found *found_told_apart(cl_dda_detect *det) {
  cl_dda_found *found = malloc(det->nfound * sizeof *found);
  cl_error err;
  cr_assert_eq(cl_dda_detect_found_to_host(det, found, &err), CL_OK, "%s", err.msg);
  for (size_t k = 0; k < det->nfound; k++) found[k].length = (double)k;
  return found;
}

/* The contact transfer on the device (cl_dda_detect_transfer, transfer_ops.h) against the host's
 * (cl_dda_transfer) on the jittered grid with short edges (so that a vertex meets one edge twice:
 * equal keys, which must keep the order found): from the contacts found on the device, with a last
 * step's list whose states, bonds, anchors, directions and forces are made up and every fifth contact
 * dropped (so that some are carried and some are new, closed when touching, not bonded after the first
 * step). Every field of every contact the same, exactly (the same data moved, and the new ones' gaps by
 * the same function of the same vertices). On the cpu and, where there is one, on cuda. */
Test(dda, contact_transfer_on_the_device_matches_the_host) {
  const double d0 = 0.05;
  cl_error err;
  const cl_dda_geometry g = transfer_grid();
  const size_t nv = (size_t)g.vstart[g.n];
  const char *names[2] = {"cpu", "cuda"};
  for (int b = 0; b < (cl_device_cuda_count() > 0 ? 2 : 1); b++) {
    cl_device dev;
    cr_assert_eq(cl_device_open(&dev, names[b], &err), CL_OK, "%s", err.msg);
    cl_dda_geometry on = geometry_on(&dev, &g);
    cl_dda_detect det;
    detect_on(&det, &dev, &on, d0);
    const size_t m = det.nfound;
    cl_dda_found *found = found_told_apart(&det);
    cr_assert_eq(dev.to_device(&dev, det.buf[CL_DDA_DB_FOUND], found, m * sizeof *found, &err), CL_OK, "%s", err.msg);
    /* the last step's list: the found ones transferred, then made up and thinned */
    cl_dda_contact_list none = {0}, prev = {0}, ref = {0};
    cr_assert_eq(cl_dda_transfer(&g, found, m, &none, 1, &prev, &err), CL_OK, "%s", err.msg);
    lcg_seed(61);
    size_t kept = 0;
    for (size_t k = 0; k < prev.count; k++) {
      if (k % 5 == 3) continue;
      cl_dda_contact c = prev.c[k];
      c.state = (int32_t)lcg_below(3), c.bonded = (int32_t)lcg_below(2), c.t_ref = lcg_uniform(0, 1);
      c.sgn = lcg_below(2) ? 1 : -1, c.N = lcg_uniform(-1, 2), c.S = lcg_uniform(-1, 1);
      prev.c[kept++] = c;
    }
    prev.count = kept;
    cr_assert_eq(cl_dda_transfer(&g, found, m, &prev, 0, &ref, &err), CL_OK, "%s", err.msg);
    size_t equal = 0;
    for (size_t k = 1; k < ref.count; k++) equal += ref.c[k].vi == ref.c[k - 1].vi && ref.c[k].ej == ref.c[k - 1].ej;
    cr_assert(equal > 0 && ref.count == m, "%s: %zu contacts, %zu equal keys", names[b], ref.count, equal);
    /* the same on the device */
    int64_t *key = malloc(kept * sizeof *key);
    int32_t *ints = malloc(8 * (m + 1) * sizeof *ints);
    double *reals = malloc(5 * (m + 1) * sizeof *reals);
    for (size_t k = 0; k < kept; k++) {
      const cl_dda_contact *c = &prev.c[k];
      key[k] = cl_dda_contact_key(c->vi, c->ej, nv);
      ints[k] = c->state, ints[m + k] = c->bonded;
      reals[k] = c->t_ref, reals[m + k] = c->sgn, reals[2 * m + k] = c->N, reals[3 * m + k] = c->S;
    }
    list_arrays pa, oa;
    cl_dda_device_list dprev = device_list(&dev, kept, &pa), dout = device_list(&dev, m, &oa);
    const struct { void *dst; const void *src; size_t bytes; } up[] = {
        {dprev.key, key, kept * 8}, {dprev.state, ints, kept * 4}, {dprev.bonded, ints + m, kept * 4},
        {dprev.t_ref, reals, kept * 8}, {dprev.sgn, reals + m, kept * 8}, {dprev.N, reals + 2 * m, kept * 8},
        {dprev.S, reals + 3 * m, kept * 8}};
    for (size_t q = 0; q < sizeof up / sizeof *up; q++)
      cr_assert_eq(dev.to_device(&dev, up[q].dst, up[q].src, up[q].bytes, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_detect_transfer(&det, &on, nv, &dprev, kept, 0, &dout, &err), CL_OK, "%s", err.msg);
    const struct { const char *name; const void *src; int is_int; } down[] = {
        {"bi", dout.bi, 1}, {"vi", dout.vi, 1}, {"bj", dout.bj, 1}, {"ej", dout.ej, 1}, {"kind", dout.kind, 1},
        {"state", dout.state, 1}, {"bonded", dout.bonded, 1}, {"t_ref", dout.t_ref, 0}, {"length", dout.length, 0},
        {"sgn", dout.sgn, 0}, {"N", dout.N, 0}, {"S", dout.S, 0}};
    for (size_t q = 0; q < sizeof down / sizeof *down; q++) {
      cr_assert_eq(dev.to_host(&dev, down[q].is_int ? (void *)ints : (void *)reals, down[q].src,
                               m * (down[q].is_int ? 4 : 8), &err), CL_OK, "%s", err.msg);
      for (size_t k = 0; k < m; k++) {
        const cl_dda_contact *c = &ref.c[k];
        const int32_t want_i[] = {c->bi, c->vi, c->bj, c->ej, c->kind, c->state, c->bonded};
        const double want_r[] = {c->t_ref, c->length, c->sgn, c->N, c->S};
        if (down[q].is_int)
          cr_assert_eq(ints[k], want_i[q], "%s: contact %zu's %s %d, the host's %d", names[b], k, down[q].name, ints[k],
                       want_i[q]);
        else
          cr_assert(reals[k] == want_r[q - 7], "%s: contact %zu's %s %.17g, the host's %.17g", names[b], k,
                    down[q].name, reals[k], want_r[q - 7]);
      }
    }
    for (int q = 0; q < 14; q++) dev.release(&dev, pa.p[q]), dev.release(&dev, oa.p[q]);
    free(key), free(ints), free(reals), free(found);
    cl_dda_contact_list_free(&prev), cl_dda_contact_list_free(&ref);
    cl_dda_detect_free(&det);
    release_geometry(&dev, &on);
    cl_device_close(&dev);
  }
  free((void *)g.vstart), free((void *)g.vx), free((void *)g.vy);
}

/* The gather on cuda (skipped without a GPU) against the cpu's: a short item's 36 threads load 36
 * of its shares' items and states at once, in rounds of 36, and its sums are then each one
 * thread's in share order (pcg_cuda.cu: gather_short); a diagonal block's factor is taken from the
 * lower triangle read at once (pcg_ops.h). Blocks 0, 1 and 2 are in 100, 50 and 36 contacts: their
 * diagonal blocks and block rows are a long item, a short one of two rounds and one of exactly one
 * round; a third of the contacts are open. Both formats' matrix blocks, b and the factors agree to
 * 1e-14 of the largest entry: the sums are the same additions in the same order, and only the
 * springs' and the factors' fused multiply-adds round differently; a share missed, doubled or
 * transposed wrongly is an error of the size of the entries. */
Test(dda, gather_on_cuda_gives_the_cpus_sums) {
  if (cl_device_cuda_count() < 1) cr_skip_test("no CUDA device");
  lcg_seed(23);
  const size_t n = 40, nc = 400, m = 6 * n;
  double *K = calloc(36 * n, sizeof *K), *F = malloc(m * sizeof *F), *geo = malloc(26 * nc * sizeof *geo);
  double *fric = malloc(nc * sizeof *fric);
  int32_t *bi = malloc(nc * sizeof *bi), *bj = malloc(nc * sizeof *bj), *state = malloc(nc * sizeof *state);
  random_diagonal(n, 300, K, F);
  for (size_t k = 0; k < nc; k++) {
    bi[k] = k < 100 ? 0 : k < 150 ? 1 : k < 186 ? 2 : 3 + (int32_t)lcg_below(n - 4);
    bj[k] = bi[k] + 1 + (int32_t)lcg_below(n - 1 - (size_t)bi[k]);
    for (int q = 0; q < 26; q++) geo[q * nc + k] = lcg_uniform(-1, 1);
    state[k] = (int32_t)lcg_below(3);
    fric[k] = state[k] == CL_DDA_SLIDE ? lcg_uniform(-2, 2) : 0;
  }
  for (int f = 0; f < 2; f++) {
    double *got[2][3] = {{0}};
    size_t count[3] = {0};
    for (int b = 0; b < 2; b++) {
      cl_device dev;
      cl_error err;
      cr_assert_eq(cl_device_open(&dev, b ? "cuda" : "cpu", &err), CL_OK, "%s", err.msg);
      void *dK = copy_to_device(&dev, K, 36 * n * sizeof *K), *dF = copy_to_device(&dev, F, m * sizeof *F);
      cl_dda_bsr a = {0};
      cr_assert_eq(cl_dda_bsr_pattern(&a, n, nc, bi, bj, &err), CL_OK);
      cl_dda_solver s;
      cl_dda_solver_init(&s, &dev, (cl_dda_spmv_format)f);
      cl_dda_step_contacts sc = {.count = nc, .bi = bi, .bj = bj, .geo = geo, .kn = 50, .ks = 20};
      cr_assert_eq(cl_dda_solver_set_contacts(&s, &a, &sc, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(cl_dda_solver_assemble(&s, state, fric, dK, dF, &err), CL_OK, "%s", err.msg);
      /* the matrix blocks (BSR's, or HSBCSR's diagonal and upper ones), b, the diagonal inverses */
      const void *src[3] = {f == CL_DDA_BSR ? s.A.val : s.A.diag, s.A.b, s.A.dinv};
      count[0] = f == CL_DDA_BSR ? 36 * s.A.ntarget : 36 * n, count[1] = m, count[2] = 36 * n;
      for (int v = 0; v < 3; v++) {
        got[b][v] = malloc(count[v] * sizeof(double));
        cr_assert_eq(dev.to_host(&dev, got[b][v], src[v], count[v] * sizeof(double), &err), CL_OK, "%s", err.msg);
      }
      if (f == CL_DDA_HSBCSR) { /* the upper blocks after the diagonal ones */
        got[b][0] = realloc(got[b][0], 36 * (n + s.A.nup) * sizeof(double));
        cr_assert_eq(dev.to_host(&dev, got[b][0] + 36 * n, s.A.up, 36 * s.A.nup * sizeof(double), &err), CL_OK, "%s",
                     err.msg);
        count[0] = 36 * (n + s.A.nup);
      }
      cl_dda_solver_free(&s);
      cl_dda_bsr_free(&a);
      dev.release(&dev, dK), dev.release(&dev, dF);
      cl_device_close(&dev);
    }
    const char *what[3] = {"matrix block entry", "b", "diagonal inverse entry"};
    for (int v = 0; v < 3; v++) {
      double scale = 0;
      for (size_t q = 0; q < count[v]; q++) scale = fmax(scale, fabs(got[0][v][q]));
      for (size_t q = 0; q < count[v]; q++)
        cr_assert(fabs(got[1][v][q] - got[0][v][q]) <= 1e-14 * scale, "format %d, %s %zu: cuda %.17g, cpu %.17g", f,
                  what[v], q, got[1][v][q], got[0][v][q]);
      free(got[0][v]), free(got[1][v]);
    }
  }
  free(K), free(F), free(geo), free(fric), free(bi), free(bj), free(state);
}

/* The narrow phase on cuda eight lanes a pair, a lane a task (narrow_device.cu), on a pair of many
 * vertices: a block whose bottom edge has 21 vertices 0.5 apart rests 0.01 above a base whose top
 * edge has 24 vertices between them, so that each vertex of either lies mid-edge on the other (VE
 * contacts) and a pair has 74 or 79 tasks -- ten rounds of the pair's lanes, the contacts of a
 * round after the rounds before and of a lane after the lanes before; the boxes' extremes split
 * over the lanes. Both orders of the pair, on
 * the cpu device (bit for bit) and on cuda where there is one (1e-12: its hypot rounds
 * differently), against the host's pair loop. */
Test(dda, narrow_phase_of_many_vertex_pairs_matches_the_host) {
  enum { NTOP = 23, NBASE = 28 };
  int32_t vstart[3] = {0, NTOP, NTOP + NBASE};
  double vx[NTOP + NBASE], vy[NTOP + NBASE];
  int v = 0;
  for (int k = 0; k <= 20; k++) vx[v] = 0.5 * k, vy[v++] = 0; /* the top block, counter-clockwise */
  vx[v] = 10, vy[v++] = 2, vx[v] = 0, vy[v++] = 2;
  vx[v] = -1, vy[v++] = -1, vx[v] = 11, vy[v++] = -1, vx[v] = 11, vy[v++] = -0.01; /* the base */
  for (int k = 0; k < 24; k++) vx[v] = 10.75 - 0.5 * k, vy[v++] = -0.01;
  vx[v] = -1, vy[v++] = -0.01;
  cr_assert_eq(v, NTOP + NBASE);
  cl_dda_geometry g = {2, vstart, vx, vy};
  const double d0 = 0.05;
  int32_t pairs[4] = {0, 1, 1, 0};
  cr_assert(cl_dda_pair_tasks(&g, 0, 1) > 64 && cl_dda_pair_tasks(&g, 1, 0) > 64, "more rounds than one of 32 lanes");
  size_t nref;
  cl_dda_found *ref = host_pair_contacts(&g, pairs, 2, d0, &nref);
  cr_assert(nref >= 2 * 40, "the pairs' contacts: %zu, expected each vertex of the two edges'", nref);
  check_narrow_on_devices(&g, pairs, 2, d0, ref, nref);
  free(ref);
}

/* A step of a model on the device path (device detection, BSR) moves no vector of its unknowns
 * (6 n doubles) between host and device: the update accumulates the rotations on the device, a
 * dynamic step predicts its start there, and nothing else reads the solution. The cpu device's
 * copies are wrapped to count the transfers of exactly that size (the moments' 6 n doubles are the
 * model's own mirror, which the cpu device does not copy). */
static size_t vector_bytes, vectors_moved;
static cl_status (*step_plain_to_device)(cl_device *, void *, const void *, size_t, cl_error *);
static cl_status (*step_plain_to_host)(cl_device *, void *, const void *, size_t, cl_error *);
static cl_status vector_counted_to_device(cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err) {
  vectors_moved += bytes == vector_bytes;
  return step_plain_to_device(d, dst, src, bytes, err);
}
static cl_status vector_counted_to_host(cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err) {
  vectors_moved += bytes == vector_bytes;
  return step_plain_to_host(d, dst, src, bytes, err);
}

/* A column of unit squares stacked, the lowest held by two fixed points, on the device path (device
 * detection, BSR) of dev. */
enum { COLUMN = 7 };
typedef struct column_model {
  int32_t vstart[COLUMN + 1], material[COLUMN];
  double vx[4 * COLUMN], vy[4 * COLUMN], fixed[4];
  cl_dda_material rock;
  cl_dda_joint joint;
} column_model;

static cl_dda_model *column_on(cl_device *dev, column_model *c, int dynamic) {
  const double x[4] = {0, 1, 1, 0}, y[4] = {0, 0, 1, 1}, fixed[4] = {0.1, 0.1, 0.9, 0.1};
  memset(c, 0, sizeof *c);
  for (int b = 0; b <= COLUMN; b++) c->vstart[b] = 4 * b;
  for (int b = 0; b < COLUMN; b++)
    for (int v = 0; v < 4; v++) c->vx[4 * b + v] = x[v], c->vy[4 * b + v] = y[v] + b;
  memcpy(c->fixed, fixed, sizeof fixed);
  c->rock = (cl_dda_material){.rho = 2600, .E = 1e9, .nu = 0.25};
  c->joint = (cl_dda_joint){.friction_angle = 30};
  const cl_dda_input in = {.nblocks = COLUMN, .vstart = c->vstart, .vx = c->vx, .vy = c->vy, .material = c->material,
                           .nmaterials = 1, .materials = &c->rock, .njoints = 1, .joints = &c->joint, .nfixed = 2,
                           .fixed = c->fixed, .gy = -9.81, .dynamic = dynamic, .normal_stiffness = 5e10,
                           .shear_stiffness = 5e10, .fixed_stiffness = 5e11, .max_displacement = 1e-3,
                           .pcg_tolerance = 1e-10, .preconditioner = CL_DDA_BLOCK_JACOBI, .spmv_format = CL_DDA_BSR,
                           .pcg_launches = 1, .pcg_max_iterations = 1000, .open_close_max = 20,
                           .detection = CL_DDA_DETECT_DEVICE};
  cl_dda_model *m;
  cl_error err = {0};
  cr_assert_eq(cl_dda_model_create(&m, dev, &in, &err), CL_OK, "%s", err.msg);
  return m;
}

Test(dda, a_step_moves_no_solution_between_host_and_device) {
  for (int dynamic = 0; dynamic < 2; dynamic++) {
    cl_device dev;
    cl_error err = {0};
    cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
    step_plain_to_device = dev.to_device, step_plain_to_host = dev.to_host;
    dev.to_device = vector_counted_to_device, dev.to_host = vector_counted_to_host;
    column_model c;
    cl_dda_model *m = column_on(&dev, &c, dynamic);
    vector_bytes = 6 * COLUMN * sizeof(double);
    for (int step = 1; step <= 3; step++) {
      vectors_moved = 0;
      cr_assert_eq(cl_dda_step(m, 1e-3, &err), CL_OK, "step %d: %s", step, err.msg);
      cr_assert(cl_dda_stats_of(m)->device_pattern, "the model is on the device path");
      cr_assert_eq(vectors_moved, 0, "%s step %d moved %zu vectors of 6 n doubles between host and device",
                   dynamic ? "dynamic" : "static", step, vectors_moved);
    }
    cl_dda_model_destroy(m);
    cl_device_close(&dev);
  }
}

/* Nor does a step on the device path wait for the device where no result is read (the transfer's,
 * pattern's and set-up's ends): the module table's attribution is not worth three host waits a step. */
static int waits;
static cl_status (*plain_synchronize)(cl_device *, cl_error *);
static cl_status counted_synchronize(cl_device *d, cl_error *err) {
  waits++;
  return plain_synchronize(d, err);
}

Test(dda, a_step_does_not_wait_for_the_device_for_the_module_clock) {
  cl_device dev;
  cl_error err = {0};
  cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
  plain_synchronize = dev.synchronize, dev.synchronize = counted_synchronize;
  column_model c;
  cl_dda_model *m = column_on(&dev, &c, 0);
  for (int step = 1; step <= 3; step++) {
    waits = 0;
    cr_assert_eq(cl_dda_step(m, 1e-3, &err), CL_OK, "step %d: %s", step, err.msg);
    cr_assert(cl_dda_stats_of(m)->device_pattern, "the model is on the device path");
    cr_assert_eq(waits, 0, "step %d waited %d times for the whole device", step, waits);
  }
  cl_dda_model_destroy(m);
  cl_device_close(&dev);
}

/* The step's reductions read back together (cl_k_reduce_many: the union of the boxes, the checks,
 * the account's and the update's sums) give each reduction's own result, and more than the scratch
 * holds is refused by name. */
Test(dda, reductions_read_back_together_match_each_alone) {
  cl_device dev;
  cl_error err = {0};
  cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
  enum { N = 5000 };
  double *x = malloc(3 * N * sizeof *x);
  lcg_seed(16);
  for (size_t i = 0; i < 3 * N; i++) x[i] = lcg_uniform(-0.3, 0.7);
  const double *terms[3] = {x, x + N, x + 2 * N};
  const size_t count[3] = {N, N - 7, 0};
  const int op[3] = {CL_REDUCE_SUM, CL_REDUCE_MIN, CL_REDUCE_MAX};
  double got[3];
  cr_assert_eq(cl_k_reduce_many(&dev, 3, terms, count, op, got, &err), CL_OK, "%s", err.msg);
  for (int k = 0; k < 3; k++) {
    double alone;
    cr_assert_eq(cl_k_reduce(&dev, CL_F64, terms[k], count[k], op[k], &alone, &err), CL_OK, "%s", err.msg);
    cr_assert(got[k] == alone || (isnan(got[k]) && isnan(alone)), "reduction %d: %.17g together, %.17g alone", k,
              got[k], alone);
  }
  const double *many[CL_REDUCE_MANY_MAX + 1];
  size_t ns[CL_REDUCE_MANY_MAX + 1];
  int ops[CL_REDUCE_MANY_MAX + 1];
  double outs[CL_REDUCE_MANY_MAX + 1];
  for (int k = 0; k <= CL_REDUCE_MANY_MAX; k++) many[k] = x, ns[k] = N, ops[k] = CL_REDUCE_SUM;
  cr_assert_eq(cl_k_reduce_many(&dev, CL_REDUCE_MANY_MAX + 1, many, ns, ops, outs, &err), CL_ERR_ARG);
  cr_assert(strstr(err.msg, "reduce_many") != NULL, "the error names the call: %s", err.msg);
  free(x);
  cl_device_close(&dev);
}

/* The factor step leaves each diagonal block's inverse (pcg_ops.h: PCG's block solve is then a 6 x 6
 * product): D D^-1 = I and the block solve gives D^-1 v, on blocks B B^T + 6 I (B's entries in
 * [-1, 1]: eigenvalues in [6, 42], condition <= 7), to 1e-13 -- a few 1e-16 times the condition
 * and the 6-term sums; a block's lower Cholesky factor left there is off by O(1). */
Test(dda, factor_step_leaves_each_diagonal_blocks_inverse) {
  enum { N = 5 };
  double diag[36 * N], dinv[36 * N], B[36];
  for (size_t i = 0; i < N; i++) {
    for (int k = 0; k < 36; k++) B[k] = 2.0 * (double)(lcg_next() % 1000001) / 1e6 - 1;
    for (int r = 0; r < 6; r++)
      for (int c = 0; c < 6; c++) {
        double s = r == c ? 6 : 0;
        for (int k = 0; k < 6; k++) s += B[6 * r + k] * B[6 * c + k];
        diag[(6 * r + c) * N + i] = s;
      }
  }
  cl_dda_pcg_args A = {.n = N, .format = CL_DDA_HSBCSR, .diag = diag, .dinv = dinv};
  for (size_t i = 0; i < N; i++) cl_dda_factor_block(&A, i);
  for (size_t i = 0; i < N; i++) {
    double v[6], z[6];
    for (int c = 0; c < 6; c++) v[c] = (double)c - 2.5;
    cl_dda_block_solve(&A, i, v, z);
    for (int r = 0; r < 6; r++) {
      double Dz = 0;
      for (int c = 0; c < 6; c++) {
        double s = 0;
        for (int k = 0; k < 6; k++) s += diag[(6 * r + k) * N + i] * dinv[(6 * k + c) * N + i];
        cr_assert_float_eq(s, r == c ? 1.0 : 0.0, 1e-13, "block %zu: (D D^-1)(%d, %d) = %.17g", i, r, c, s);
        Dz += diag[(6 * r + c) * N + i] * z[c];
      }
      cr_assert_float_eq(Dz, v[r], 1e-13, "block %zu: (D z)(%d) = %.17g, v = %g", i, r, Dz, v[r]);
    }
  }
}

/* The broad phase's grid over a union of boxes that is not finite (a step gone wrong) or over no
 * blocks is one cell: the loop that widens the cells until at most 4 n fit never ended there. A
 * finite union keeps the grid it had. */
Test(dda, broad_phase_grid_ends_on_non_finite_boxes) {
  const cl_dda_box bad[3] = {{0, 0, NAN, 1}, {-INFINITY, 0, 1, 1}, {0, 0, 1, 1}};
  const double h[3] = {0.5, 0.5, NAN};
  for (int k = 0; k < 3; k++) {
    cl_dda_cells gr = cl_dda_cells_over(bad[k], h[k], 100);
    cr_assert(gr.nx == 1 && gr.ny == 1, "case %d: %zu x %zu cells", k, gr.nx, gr.ny);
  }
  cl_dda_cells none = cl_dda_cells_over(bad[2], 0.5, 0);
  cr_assert(none.nx == 1 && none.ny == 1);
  const cl_dda_box all = {-3, 2, 97, 12.5};
  cl_dda_cells gr = cl_dda_cells_over(all, 0.3, 1000);
  double hh = 0.3;
  size_t nx, ny;
  for (;;) { /* the former loop, written out */
    nx = (size_t)((all.x1 - all.x0) / hh) + 1, ny = (size_t)((all.y1 - all.y0) / hh) + 1;
    if (nx * ny <= 4000) break;
    hh *= 1.5;
  }
  cr_assert(gr.nx == nx && gr.ny == ny && gr.h == hh, "%zu x %zu (h %g), the former %zu x %zu (h %g)", gr.nx, gr.ny,
            gr.h, nx, ny, hh);
}

/* The solver's assembled values on its device: the matrix blocks (BSR's, or HSBCSR's diagonal then
 * upper ones), b and the diagonal inverses, concatenated into *out (malloc'd); returns the count. */
static size_t assembled_values(cl_device *dev, const cl_dda_solver *s, double **out) {
  const size_t n = s->A.n, blocks = 36 * s->A.ntarget, count = blocks + 6 * n + 36 * n;
  double *v = malloc(count * sizeof *v);
  cl_error err;
  if (s->format == CL_DDA_BSR) {
    cr_assert_eq(dev->to_host(dev, v, s->A.val, blocks * sizeof *v, &err), CL_OK, "%s", err.msg);
  } else {
    cr_assert_eq(dev->to_host(dev, v, s->A.diag, 36 * n * sizeof *v, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(dev->to_host(dev, v + 36 * n, s->A.up, 36 * s->A.nup * sizeof *v, &err), CL_OK, "%s", err.msg);
  }
  cr_assert_eq(dev->to_host(dev, v + blocks, s->A.b, 6 * n * sizeof *v, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(dev->to_host(dev, v + blocks + 6 * n, s->A.dinv, 36 * n * sizeof *v, &err), CL_OK, "%s", err.msg);
  *out = v;
  return count;
}

/* The incremental assembly (assembly_ops.h, cl_dda_solver_assemble_changed) against a full one of
 * the same states, bit for bit: n = 40 blocks, nc = 2 000 random contacts (blocks 0, 1, 2 in 100, 50
 * and 36 of them: long and short items), random states; then three "open-close iterations", each
 * changing the state of 40 contacts as the rule does (open <-> sliding or locked, sliding <-> locked;
 * one contact changed twice, listed twice, as two rules without an assembly between them list it)
 * and the friction force of every sliding contact, the changed ones listed as the rule lists them
 * (clist, its count the host's). After each, the matrix blocks, b and the diagonal inverses equal
 * those of a second solver's full assembly of the same states, in both formats, on the cpu and on
 * cuda where there is one -- exactly on both: every block is summed by the same code in the same
 * share order, and the springs by the same inline functions, whether or not the assembly is the
 * incremental one. Leaving one claimed block out (a share role's claim) or the claimed diagonal
 * blocks' factors makes it fail. */
Test(dda, incremental_assembly_equals_the_full_one_bit_for_bit) {
  const size_t n = 40, nc = 2000, m = 6 * n, changes = 40;
  for (int b = 0; b < 2; b++) {
    if (b && cl_device_cuda_count() < 1) continue;
    for (int f = 0; f < 2; f++) {
      lcg_seed(31);
      double *K = calloc(36 * n, sizeof *K), *F = malloc(m * sizeof *F), *geo = malloc(26 * nc * sizeof *geo);
      double *fric = malloc(nc * sizeof *fric);
      int32_t *bi = malloc(nc * sizeof *bi), *bj = malloc(nc * sizeof *bj), *state = malloc(nc * sizeof *state);
      int32_t *list = malloc((changes + 1) * sizeof *list);
      random_diagonal(n, 300, K, F);
      for (size_t k = 0; k < nc; k++) {
        bi[k] = k < 100 ? 0 : k < 150 ? 1 : k < 186 ? 2 : 3 + (int32_t)lcg_below(n - 4);
        bj[k] = bi[k] + 1 + (int32_t)lcg_below(n - 1 - (size_t)bi[k]);
        if (lcg_below(2)) { /* both orders: HSBCSR keeps Kij or its transpose */
          const int32_t t = bi[k];
          bi[k] = bj[k], bj[k] = t;
        }
        for (int q = 0; q < 26; q++) geo[q * nc + k] = lcg_uniform(-1, 1);
        state[k] = (int32_t)lcg_below(3);
        fric[k] = state[k] == CL_DDA_SLIDE ? lcg_uniform(-2, 2) : 0;
      }
      cl_device dev;
      cl_error err;
      cr_assert_eq(cl_device_open(&dev, b ? "cuda" : "cpu", &err), CL_OK, "%s", err.msg);
      void *dK = copy_to_device(&dev, K, 36 * n * sizeof *K), *dF = copy_to_device(&dev, F, m * sizeof *F);
      cl_dda_bsr a = {0};
      cr_assert_eq(cl_dda_bsr_pattern(&a, n, nc, bi, bj, &err), CL_OK);
      cl_dda_solver s, full;
      cl_dda_solver_init(&s, &dev, (cl_dda_spmv_format)f);
      cl_dda_solver_init(&full, &dev, (cl_dda_spmv_format)f);
      full.incremental = 0;
      cl_dda_step_contacts sc = {.count = nc, .bi = bi, .bj = bj, .geo = geo, .kn = 50, .ks = 20};
      cr_assert_eq(cl_dda_solver_set_contacts(&s, &a, &sc, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(cl_dda_solver_set_contacts(&full, &a, &sc, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(cl_dda_solver_assemble(&s, state, fric, dK, dF, &err), CL_OK, "%s", err.msg);
      for (int it = 0; it < 3; it++) {
        /* the rule's changes: distinct contacts (one of block 0's long items among them), the first
         * one changed again at the end and listed twice */
        list[0] = (int32_t)changes;
        for (size_t v = 0; v + 1 < changes; v++) {
          int32_t k;
          int again;
          do {
            k = v == 0 ? (int32_t)lcg_below(100) : (int32_t)lcg_below(nc);
            again = 0;
            for (size_t w = 0; w < v; w++) again |= list[1 + w] == k;
          } while (again);
          list[1 + v] = k;
        }
        list[changes] = list[1];
        for (size_t v = 0; v < changes; v++) {
          const int32_t k = list[1 + v], old = state[k];
          state[k] = old == CL_DDA_OPEN ? (lcg_below(2) ? CL_DDA_SLIDE : CL_DDA_LOCK)
                     : lcg_below(2)     ? CL_DDA_OPEN
                     : old == CL_DDA_SLIDE ? CL_DDA_LOCK
                                           : CL_DDA_SLIDE;
        }
        for (size_t k = 0; k < nc; k++) fric[k] = state[k] == CL_DDA_SLIDE ? lcg_uniform(-2, 2) : 0;
        cr_assert_eq(dev.to_device(&dev, s.A.cstate, state, nc * sizeof *state, &err), CL_OK, "%s", err.msg);
        cr_assert_eq(dev.to_device(&dev, s.A.cfric, fric, nc * sizeof *fric, &err), CL_OK, "%s", err.msg);
        cr_assert_eq(dev.to_device(&dev, s.A.clist, list, (changes + 1) * sizeof *list, &err), CL_OK, "%s", err.msg);
        s.listed = (long)changes;
        const long incremental = s.assemblies_changed;
        cr_assert_eq(cl_dda_solver_assemble_changed(&s, &err), CL_OK, "%s", err.msg);
        cr_assert_eq(s.assemblies_changed, incremental + 1, "the assembly was the incremental one");
        cr_assert_eq(cl_dda_solver_assemble(&full, state, fric, dK, dF, &err), CL_OK, "%s", err.msg);
        double *got, *want;
        const size_t count = assembled_values(&dev, &s, &got);
        cr_assert_eq(assembled_values(&dev, &full, &want), count);
        const size_t blocks = 36 * s.A.ntarget;
        for (size_t q = 0; q < count; q++)
          cr_assert(memcmp(got + q, want + q, sizeof *got) == 0,
                    "%s, format %d, iteration %d: %s %zu incremental %.17g, full %.17g", b ? "cuda" : "cpu", f, it + 1,
                    q < blocks ? "matrix entry" : q < blocks + m ? "b entry" : "diagonal inverse entry",
                    q < blocks ? q : q < blocks + m ? q - blocks : q - blocks - m, got[q], want[q]);
        free(got), free(want);
      }
      cl_dda_solver_free(&s), cl_dda_solver_free(&full);
      cl_dda_bsr_free(&a);
      dev.release(&dev, dK), dev.release(&dev, dF);
      cl_device_close(&dev);
      free(K), free(F), free(geo), free(fric), free(bi), free(bj), free(state), free(list);
    }
  }
}

static int int32_cmp(const void *x, const void *y) {
  const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

/* The rule lists the contacts whose state it changed (open_close_ops.h: clist, compacted on the
 * device; on cuda in the atomics' order, so compared as sets), the count being the scalar the host
 * reads, and an assembly empties the list: random contacts and a random solution (as
 * device_open_close_rule_matches_the_host_rule), on the cpu and on cuda where there is one. */
Test(dda, open_close_rule_lists_the_contacts_it_changed) {
  const size_t n = 30, nc = 400, m = 6 * n;
  for (int b = 0; b < 2; b++) {
    if (b && cl_device_cuda_count() < 1) continue;
    lcg_seed(5);
    int32_t *bi = malloc(nc * sizeof *bi), *bj = malloc(nc * sizeof *bj), *state = malloc(nc * sizeof *state);
    int32_t *flips = malloc(nc * sizeof *flips), *after = malloc(nc * sizeof *after), *list = malloc((nc + 1) * sizeof *list);
    int32_t *want = malloc(nc * sizeof *want);
    double *geo = malloc(26 * nc * sizeof *geo), *law = malloc(3 * nc * sizeof *law), *sgn = malloc(nc * sizeof *sgn);
    double *N = malloc(nc * sizeof *N), *fric = malloc(nc * sizeof *fric), *xsoa = malloc(m * sizeof *xsoa);
    double *K = calloc(36 * n, sizeof *K), *F = malloc(m * sizeof *F);
    for (size_t k = 0; k < nc; k++) {
      random_contact(k, n, nc, 100, bi, bj, geo);
      law[k] = lcg_uniform(0, 1), law[nc + k] = lcg_uniform(0, 0.5), law[2 * nc + k] = lcg_uniform(0, 0.5);
      state[k] = (int32_t)lcg_below(3), flips[k] = (int32_t)lcg_below(6);
      sgn[k] = lcg_below(2) ? 1 : -1, N[k] = state[k] == CL_DDA_OPEN ? 0 : lcg_uniform(-0.5, 2);
      fric[k] = state[k] == CL_DDA_SLIDE ? law[k] * fmax(N[k], 0) * sgn[k] : 0;
    }
    for (size_t q = 0; q < m; q++) xsoa[q] = lcg_uniform(-0.3, 0.3);
    random_diagonal(n, 300, K, F);
    cl_device dev;
    cl_error err;
    cr_assert_eq(cl_device_open(&dev, b ? "cuda" : "cpu", &err), CL_OK, "%s", err.msg);
    void *dx = copy_to_device(&dev, xsoa, m * sizeof *xsoa);
    void *dK = copy_to_device(&dev, K, 36 * n * sizeof *K), *dF = copy_to_device(&dev, F, m * sizeof *F);
    cl_dda_bsr a = {0};
    cr_assert_eq(cl_dda_bsr_pattern(&a, n, nc, bi, bj, &err), CL_OK);
    cl_dda_solver s;
    cl_dda_solver_init(&s, &dev, CL_DDA_BSR);
    cl_dda_step_contacts sc = {.count = nc, .bi = bi, .bj = bj, .geo = geo, .kn = 1, .ks = 0.5, .law = law,
                               .slip_floor = 1e-3, .force_floor = 1e-3, .flip_limit = 4};
    cr_assert_eq(cl_dda_solver_set_contacts(&s, &a, &sc, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_assemble(&s, state, fric, dK, dF, &err), CL_OK, "%s", err.msg); /* empties the list */
    cl_dda_contact_states st = {state, flips, sgn, N, fric};
    cr_assert_eq(cl_dda_solver_set_states(&s, &st, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_solver_start_from(&s, dx, &err), CL_OK, "%s", err.msg);
    int changed, unsettled;
    cr_assert_eq(cl_dda_solver_open_close(&s, &changed, &unsettled, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(dev.to_host(&dev, after, s.A.cstate, nc * sizeof *after, &err), CL_OK);
    cr_assert_eq(dev.to_host(&dev, list, s.A.clist, (nc + 1) * sizeof *list, &err), CL_OK);
    size_t nwant = 0;
    for (size_t k = 0; k < nc; k++)
      if (after[k] != state[k]) want[nwant++] = (int32_t)k;
    cr_assert(nwant > 20, "the rule changes contacts here (%zu)", nwant);
    cr_assert(list[0] == changed && (size_t)changed == nwant, "%s: %d listed, %d changed by the count, %zu states differ",
              b ? "cuda" : "cpu", list[0], changed, nwant);
    qsort(list + 1, nwant, sizeof *list, int32_cmp);
    for (size_t v = 0; v < nwant; v++)
      cr_assert_eq(list[1 + v], want[v], "%s: listed contact %d, the %zu-th changed is %d", b ? "cuda" : "cpu",
                   list[1 + v], v, want[v]);
    cr_assert_eq(cl_dda_solver_assemble_changed(&s, &err), CL_OK, "%s", err.msg); /* a full one: set_states */
    cr_assert_eq(dev.to_host(&dev, list, s.A.clist, sizeof *list, &err), CL_OK);
    cr_assert_eq(list[0], 0, "an assembly empties the list");
    dev.release(&dev, dx), dev.release(&dev, dK), dev.release(&dev, dF);
    cl_dda_solver_free(&s);
    cl_device_close(&dev);
    cl_dda_bsr_free(&a);
    free(bi), free(bj), free(state), free(flips), free(after), free(list), free(want), free(geo), free(law), free(sgn);
    free(N), free(fric), free(xsoa), free(K), free(F);
  }
}

/* A brick wall (4 courses of 6 bricks 1 x 0.5, every other course offset by half a brick) on a fixed
 * base, under gravity tilted past the joints' friction (tan 25 deg = 0.47 < 5 / 9.81), static: its
 * open-close iterations close, open, slide and lock contacts after the first. assembly: the model's
 * full_assembly. */
enum { WALL_ROWS = 4, WALL_COLUMNS = 6, WALL = 1 + WALL_ROWS * WALL_COLUMNS };
typedef struct wall_model {
  int32_t vstart[WALL + 1], material[WALL];
  double vx[4 * WALL], vy[4 * WALL], fixed[6];
  cl_dda_material rock;
  cl_dda_joint joint;
} wall_model;

static cl_dda_model *wall_on(cl_device *dev, wall_model *w, int full_assembly) {
  const double fixed[6] = {-0.5, -0.5, 7.5, -0.5, 3.5, -0.9};
  memset(w, 0, sizeof *w);
  for (int b = 0; b <= WALL; b++) w->vstart[b] = 4 * b;
  for (int b = 0; b < WALL; b++) {
    const int r = (b - 1) / WALL_COLUMNS, c = (b - 1) % WALL_COLUMNS;
    const double x0 = b ? c + 0.5 * (r % 2) : -1, x1 = b ? x0 + 1 : 8, y0 = b ? 0.5 * r : -1, y1 = b ? y0 + 0.5 : 0;
    const double x[4] = {x0, x1, x1, x0}, y[4] = {y0, y0, y1, y1};
    memcpy(w->vx + 4 * b, x, sizeof x), memcpy(w->vy + 4 * b, y, sizeof y);
  }
  memcpy(w->fixed, fixed, sizeof fixed);
  w->rock = (cl_dda_material){.rho = 2600, .E = 1e9, .nu = 0.25};
  w->joint = (cl_dda_joint){.friction_angle = 25};
  const cl_dda_input in = {.nblocks = WALL, .vstart = w->vstart, .vx = w->vx, .vy = w->vy, .material = w->material,
                           .nmaterials = 1, .materials = &w->rock, .njoints = 1, .joints = &w->joint, .nfixed = 3,
                           .fixed = w->fixed, .gx = 5, .gy = -9.81, .normal_stiffness = 5e10, .shear_stiffness = 2e10,
                           .fixed_stiffness = 5e11, .max_displacement = 1e-3, .pcg_tolerance = 1e-10,
                           .preconditioner = CL_DDA_BLOCK_JACOBI, .spmv_format = CL_DDA_BSR, .pcg_launches = 1,
                           .pcg_max_iterations = 1000, .open_close_max = 20, .full_assembly = full_assembly};
  cl_dda_model *m;
  cl_error err = {0};
  cr_assert_eq(cl_dda_model_create(&m, dev, &in, &err), CL_OK, "%s", err.msg);
  return m;
}

/* The model with the incremental assembly (the default) and with full_assembly gives the same
 * steps bit for bit -- open-close and PCG iterations, each iteration's state changes, time step,
 * energies, every block's displacement, rotation and stress, every contact's state and forces -- on
 * the brick wall, whose open-close iterations after the first change states, so that the
 * incremental path runs (its count checked). */
Test(dda, incremental_assembly_gives_the_full_assemblys_steps) {
  cl_device dev;
  cl_error err = {0};
  cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
  wall_model w[2];
  cl_dda_model *m[2] = {wall_on(&dev, &w[0], 0), wall_on(&dev, &w[1], 1)};
  int incremental = 0, later_changes = 0;
  for (int step = 0; step < 12; step++) {
    for (int k = 0; k < 2; k++) cr_assert_eq(cl_dda_step(m[k], 2e-3, &err), CL_OK, "%s", err.msg);
    const cl_dda_stats *s0 = cl_dda_stats_of(m[0]), *s1 = cl_dda_stats_of(m[1]);
    cr_assert_eq(s1->incremental_assemblies, 0, "full_assembly assembles in full");
    incremental += s0->incremental_assemblies;
    for (int it = 1; it < s0->open_close && it < CL_DDA_TRACE; it++) later_changes += s0->trace_changed[it - 1] > 0;
    cr_assert(s0->open_close == s1->open_close && s0->pcg == s1->pcg && s0->reductions == s1->reductions &&
                  s0->dt == s1->dt && s0->closed == s1->closed,
              "step %d: open-close %d / %d, PCG %d / %d, reductions %d / %d", step + 1, s0->open_close, s1->open_close,
              s0->pcg, s1->pcg, s0->reductions, s1->reductions);
    cr_assert(memcmp(s0->trace_pcg, s1->trace_pcg, sizeof s0->trace_pcg) == 0 &&
                  memcmp(s0->trace_changed, s1->trace_changed, sizeof s0->trace_changed) == 0 &&
                  memcmp(s0->trace_unsettled, s1->trace_unsettled, sizeof s0->trace_unsettled) == 0,
              "step %d: the open-close iterations' traces", step + 1);
    cr_assert(s0->gravity_work == s1->gravity_work && s0->friction_work == s1->friction_work &&
                  s0->kinetic == s1->kinetic,
              "step %d: energies %.17g %.17g / %.17g %.17g", step + 1, s0->gravity_work, s0->friction_work,
              s1->gravity_work, s1->friction_work);
  }
  for (int k = 0; k < 2; k++) {
    cr_assert_eq(cl_dda_host_state(m[k], &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_host_contacts(m[k], &err), CL_OK, "%s", err.msg);
  }
  for (size_t i = 0; i < WALL; i++) {
    cl_dda_block_state b0, b1;
    cl_dda_block_state_of(m[0], i, &b0), cl_dda_block_state_of(m[1], i, &b1);
    cr_assert(memcmp(&b0, &b1, sizeof b0) == 0, "block %zu: displacement %.17g %.17g / %.17g %.17g", i + 1, b0.ux,
              b0.uy, b1.ux, b1.uy);
  }
  cr_assert_eq(cl_dda_contact_count(m[0]), cl_dda_contact_count(m[1]));
  int states[3] = {0, 0, 0};
  for (size_t k = 0; k < cl_dda_contact_count(m[0]); k++) {
    cl_dda_contact_info c0, c1;
    cl_dda_contact_of(m[0], k, &c0), cl_dda_contact_of(m[1], k, &c1);
    cr_assert(memcmp(&c0, &c1, sizeof c0) == 0, "contact %zu: state %d N %.17g / %d %.17g", k, c0.state,
              c0.normal_force, c1.state, c1.normal_force);
    states[c0.state]++;
  }
  cr_assert(incremental > 10 && later_changes > 5 && states[CL_DDA_SLIDE] > 0 && states[CL_DDA_LOCK] > 0,
            "the wall exercises the incremental path: %d incremental assemblies, %d later iterations with changes, "
            "contacts open %d, sliding %d, locked %d", incremental, later_changes, states[0], states[1], states[2]);
  for (int k = 0; k < 2; k++) cl_dda_model_destroy(m[k]);
  cl_device_close(&dev);
}

/* The narrow phase beside a block of many vertices: a base whose top edge is cut every 0.1 (605
 * vertices, a pair with it 1 200-odd tasks, its vertex-edge loops over all of them) under two rows of
 * unit squares 1.05 apart, 0.004 above it and above each other, every third of the upper row turned
 * by 0.04 rad: their corners lie on the base's vertices or midway between them and near each other's
 * (vertex-vertex contacts, VV1 on the parallel faces, VV2 under the turned ones) and their edges'
 * interiors over the base's vertices (VE).
 * The device's contacts against the host's (check_narrow_on_devices), and each vertex-vertex
 * contact against its combination checked alone -- its angle check passes, its edge parameter
 * (cl_dda_edge_gap) and joint length (cl_dda_joint_length, each length measured again) bit for bit --
 * which cl_dda_vertex_vertex computes from the four edges' lengths taken once. */
Test(dda, narrow_phase_beside_a_block_of_many_vertices_matches_each_combination) {
  enum { TOP = 601, SQUARES = 2 * 44 };
  const int nv = TOP + 4 + 4 * SQUARES;
  int32_t vstart[SQUARES + 2];
  double *vx = malloc((size_t)nv * sizeof *vx), *vy = malloc((size_t)nv * sizeof *vy);
  int v = 0;
  vx[v] = 0, vy[v++] = -1, vx[v] = 60, vy[v++] = -1, vx[v] = 60.5, vy[v++] = -0.5;
  for (int k = 0; k < TOP; k++) vx[v] = 60 - 0.1 * k, vy[v++] = 0; /* the base's top, right to left */
  vx[v] = -0.5, vy[v++] = -0.5;
  vstart[0] = 0, vstart[1] = v;
  for (int s = 0; s < SQUARES; s++) {
    const int row = s / (SQUARES / 2), col = s % (SQUARES / 2);
    const double turn = row == 1 && col % 3 == 2 ? 0.04 : 0, cs = cos(turn), sn = sin(turn);
    const double cx = 1 + 1.05 * col + 0.5, cy = 0.004 + 1.004 * row + 0.5 * (cs + sn); /* its lowest corner 0.004 up */
    const double cx4[4] = {-0.5, 0.5, 0.5, -0.5}, cy4[4] = {-0.5, -0.5, 0.5, 0.5};
    for (int k = 0; k < 4; k++) vx[v] = cx + cs * cx4[k] - sn * cy4[k], vy[v++] = cy + sn * cx4[k] + cs * cy4[k];
    vstart[s + 2] = v;
  }
  cr_assert_eq(v, nv);
  cl_dda_geometry g = {SQUARES + 1, vstart, vx, vy};
  const double d0 = 0.03;
  int32_t *pairs = NULL;
  size_t np = 0, cap = 0, nref;
  cl_error err;
  cr_assert_eq(cl_dda_broad_phase(&g, d0, &pairs, &np, &cap, &err), CL_OK, "%s", err.msg);
  cr_assert(vstart[1] > 500 && cl_dda_pair_tasks(&g, pairs[0], pairs[1]) > 1000, "the base: %d vertices", vstart[1]);
  cl_dda_found *ref = host_pair_contacts(&g, pairs, np, d0, &nref);
  int kinds[3] = {0, 0, 0};
  for (size_t k = 0; k < nref; k++) {
    const cl_dda_found *f = &ref[k];
    kinds[f->kind]++;
    if (f->kind == CL_DDA_VE) continue;
    double t;
    cl_dda_edge_gap(&g, f->vi, f->bj, f->ej, &t);
    const double length = cl_dda_joint_length(&g, f->bi, f->vi, f->bj, f->ej, f->kind);
    cr_assert(cl_dda_angle_ok(&g, f->bi, f->vi, f->bj, f->ej), "contact %zu: its vertex's wedge dips below its edge", k);
    cr_assert(memcmp(&t, &f->t, sizeof t) == 0 && memcmp(&length, &f->length, sizeof length) == 0,
              "contact %zu (kind %d): t %.17g length %.17g, alone %.17g %.17g", k, f->kind, f->t, f->length, t, length);
  }
  cr_assert(kinds[CL_DDA_VE] > 100 && kinds[CL_DDA_VV1] > 50 && kinds[CL_DDA_VV2] > 10,
            "each kind of contact: VE %d, VV1 %d, VV2 %d", kinds[0], kinds[1], kinds[2]);
  check_narrow_on_devices(&g, pairs, np, d0, ref, nref);
  free(ref), free(pairs), free(vx), free(vy);
}

/* The write pass takes each task's count from the count pass's 4 bits (cl_dda_task_count_bits) for
 * a pair's first 16 tasks and counts the others again: a unit square whose first vertex is its top
 * right corner, beside a block whose left edge is cut every 0.003 below that corner, so that the
 * corner's vertex-vertex task (task 15 of 19) finds 15 or more contacts (VV1 with each cut vertex
 * within d0) -- more than its bits hold -- and the tasks after the 16th are beyond them. Both orders of
 * the pair, the devices against the host (a count taken from saturated bits would put the contacts
 * after it at the wrong place). */
Test(dda, narrow_phase_write_pass_takes_the_count_passes_counts) {
  enum { CUTS = 7, NB = 4 + CUTS };
  int32_t vstart[3] = {0, 4, 4 + NB};
  double vx[4 + NB] = {1, 0, 0, 1, 1.004, 2, 2, 1.004}, vy[4 + NB] = {1, 1, 0, 0, 0, 0, 1, 1};
  for (int k = 1; k <= CUTS; k++) vx[7 + k] = 1.004, vy[7 + k] = 1 - 0.003 * k;
  cl_dda_geometry g = {2, vstart, vx, vy};
  const double d0 = 0.03;
  const cl_dda_box near_a = cl_dda_block_box(&g, 0, 2 * d0), near_b = cl_dda_block_box(&g, 1, 2 * d0);
  cl_dda_found_out corner = {NULL, 0, 0};
  cl_dda_pair_task(&g, 0, 1, 4 + NB, near_a, near_b, d0, &corner);
  cr_assert(cl_dda_pair_tasks(&g, 0, 1) > CL_DDA_KNOWN_TASKS && 4 + NB < CL_DDA_KNOWN_TASKS && corner.count > 15,
            "the corner's task %d of %d finds %d contacts", 4 + NB, cl_dda_pair_tasks(&g, 0, 1), corner.count);
  int32_t pairs[4] = {0, 1, 1, 0};
  size_t nref;
  cl_dda_found *ref = host_pair_contacts(&g, pairs, 2, d0, &nref);
  check_narrow_on_devices(&g, pairs, 2, d0, ref, nref);
  free(ref);
}

static int has_pair(const int32_t *pairs, size_t np, int32_t i, int32_t j) {
  for (size_t k = 0; k < np; k++)
    if (pairs[2 * k] == i && pairs[2 * k + 1] == j) return 1;
  return 0;
}

/* The broad phase's kept list (cl_dda_broad_phase_kept on the host; detect.h's on the cpu device and
 * on cuda where there is one) over three steps of 400 random boxes, skin 1 m: built once; then every
 * block moved by less than skin / 2 -- the kept list filtered, no build, cl_dda_broad_phase's list;
 * then one block moved 6 m, to where it overlaps boxes it was no candidate with: the containment
 * check must see it leave its kept box and build again, or those pairs are missed. */
Test(dda, kept_broad_phase_rebuilds_when_a_block_leaves_its_skin) {
  const size_t n = 400;
  const double d0 = 0.3, skin = 1.0;
  int32_t *vstart;
  double *vx, *vy;
  random_boxes(n, &vstart, &vx, &vy);
  cl_dda_geometry g = {n, vstart, vx, vy};
  const char *names[2] = {"cpu", "cuda"};
  const int ndev = cl_device_cuda_count() > 0 ? 2 : 1;
  cl_device dev[2];
  cl_dda_detect det[2];
  cl_error err;
  for (int b = 0; b < ndev; b++) {
    cr_assert_eq(cl_device_open(&dev[b], names[b], &err), CL_OK, "%s", err.msg);
    cl_dda_detect_init(&det[b], &dev[b]);
    det[b].skin = skin;
  }
  cl_dda_kept_pairs kept = {.skin = skin};
  int32_t *pairs = NULL, *ref = NULL;
  size_t np = 0, cap = 0, nref = 0, rcap = 0;
  lcg_seed(9);
  for (int step = 0; step < 3; step++) {
    if (step == 1) /* each block by up to 0.2 m in x and y, inside its kept box (0.5 m beyond d0 / 2) */
      for (size_t i = 0; i < n; i++) {
        const double dx = lcg_uniform(-0.2, 0.2), dy = lcg_uniform(-0.2, 0.2);
        for (int32_t v = vstart[i]; v < vstart[i + 1]; v++) vx[v] += dx, vy[v] += dy;
      }
    if (step == 2)
      for (int32_t v = vstart[1]; v < vstart[2]; v++) vx[v] += 6;
    cr_assert_eq(cl_dda_broad_phase(&g, d0, &ref, &nref, &rcap, &err), CL_OK, "%s", err.msg);
    if (step == 2) { /* the test's point: block 1 now has a partner the kept list lacks */
      int missing = 0;
      for (size_t k = 0; k < nref; k++)
        missing += (ref[2 * k] == 1 || ref[2 * k + 1] == 1) &&
                   !has_pair(kept.pairs, kept.npairs, ref[2 * k], ref[2 * k + 1]);
      cr_assert(missing > 0, "block 1 moved among new partners");
    }
    const long builds = step == 2 ? 2 : 1;
    cr_assert_eq(cl_dda_broad_phase_kept(&g, d0, &kept, &pairs, &np, &cap, &err), CL_OK, "%s", err.msg);
    cr_assert(np == nref && memcmp(pairs, ref, 2 * nref * sizeof *ref) == 0,
              "step %d: the host's kept list gives %zu pairs, not the %zu of a new grid", step, np, nref);
    cr_assert_eq(kept.builds, builds, "step %d: the host built the grid %ld times, not %ld", step, kept.builds, builds);
    cr_assert(kept.npairs > nref, "step %d: the kept list (%zu pairs) is a superset", step, kept.npairs);
    for (int b = 0; b < ndev; b++) {
      cl_dda_geometry on = geometry_on(&dev[b], &g);
      cr_assert_eq(cl_dda_detect_pairs(&det[b], &on, d0, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(det[b].npairs, nref, "step %d, %s: %zu pairs, a new grid %zu", step, names[b], det[b].npairs, nref);
      int32_t *got = malloc((2 * nref + 1) * sizeof *got);
      cr_assert_eq(cl_dda_detect_pairs_to_host(&det[b], got, &err), CL_OK, "%s", err.msg);
      cr_assert(memcmp(got, ref, 2 * nref * sizeof *ref) == 0, "step %d, %s: the pairs differ", step, names[b]);
      cr_assert_eq(det[b].builds, builds, "step %d, %s: %ld builds, not %ld", step, names[b], det[b].builds, builds);
      free(got);
      release_geometry(&dev[b], &on);
    }
  }
  for (int b = 0; b < ndev; b++) cl_dda_detect_free(&det[b]), cl_device_close(&dev[b]);
  cl_dda_kept_pairs_free(&kept);
  free(pairs), free(ref), free(vstart), free(vx), free(vy);
}

/* One solve by the standard (pipelined 0) or the pipelined PCG (1) on dev, as solve_on. */
static void solve_variant(cl_device *dev, const cl_dda_bsr *a, cl_dda_spmv_format format, int persistent,
                          int pipelined, const double *b, const double *x0, double tol, double energy, int max,
                          double *x, cl_dda_pcg_result *res) {
  cl_dda_solver s;
  cl_error err;
  cl_dda_solver_init(&s, dev, format);
  s.persistent = persistent, s.pipelined = pipelined;
  cr_assert_eq(cl_dda_solver_load(&s, a, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_dda_pcg(&s, b, x0, x, CL_DDA_BLOCK_JACOBI, tol, energy, max, res, &err), CL_OK, "%s", err.msg);
  cl_dda_solver_free(&s);
}

/* |b - A x| / |b| from the host BSR. */
static double true_residual(const cl_dda_bsr *a, const double *b, const double *x) {
  const size_t m = 6 * a->n;
  double *y = malloc(m * sizeof *y), rr = 0, bb = 0;
  host_product(a, x, y);
  for (size_t k = 0; k < m; k++) rr += (b[k] - y[k]) * (b[k] - y[k]), bb += b[k] * b[k];
  free(y);
  return sqrt(rr / bb);
}

/* The pipelined PCG (Ghysels & Vanroose 2014, Alg. 3; pcg_ops.h: cl_dda_pipelined_row) against the
 * standard one on dev (persistent: the cooperative kernel where the device has one), block Jacobi,
 * both formats, each stopping rule as persistent_pcg_kernel_matches_the_launches_on_cuda (the residual,
 * the update energy, the iteration limit), a zero right-hand side and a warm start from the solution.
 * In exact arithmetic the two give the same iterates; in f64 their recurrences round differently
 * (~1e-16 a step, growing with the iterations), so a stop on a threshold may come one iteration
 * earlier or later: the iterations within 2. x: within 1e-9 of its size where both stop on the
 * residual (each within kappa * 1e-12 of the solution, kappa ~ 40 for these diagonally dominant
 * systems) or after the same iterations (round-off apart), and the pipelined one's true residual
 * |b - A x| / |b| at most 10 tol: its recurrence's residual is not recomputed, and its drift from the
 * true one must stay under the tolerance. Measured on the cpu: the same iterations in every case, x
 * within 5e-14 of its size, true residuals at most 7.8e-13 at tol 1e-12 (the recurrence's 4.8e-13). */
static void compare_pcg_variants(cl_device *dev, int persistent, const cl_dda_bsr *a, const char *name) {
  const size_t m = 6 * a->n;
  double *b = malloc(m * sizeof *b), *x0 = malloc(m * sizeof *x0), *zero = calloc(m, sizeof *zero);
  double *xs = malloc(m * sizeof *xs), *xp = malloc(m * sizeof *xp), *sol = malloc(m * sizeof *sol);
  for (size_t k = 0; k < m; k++) b[k] = lcg_uniform(-1, 1), x0[k] = 0.1 * lcg_uniform(-1, 1);
  const double tols[3] = {1e-12, 0, 1e-12}, energies[3] = {0, 1e-9, 0};
  const int limits[3] = {1000, 1000, 7};
  for (int f = 0; f < 2; f++)
    for (int c = 0; c < 5; c++) {
      const double *rhs = c == 3 ? zero : b, *start = c == 4 ? sol : x0;
      const int t = c >= 3 ? 0 : c;
      cl_dda_pcg_result rs, rp;
      solve_variant(dev, a, (cl_dda_spmv_format)f, persistent, 0, rhs, start, tols[t], energies[t], limits[t], xs, &rs);
      solve_variant(dev, a, (cl_dda_spmv_format)f, persistent, 1, rhs, start, tols[t], energies[t], limits[t], xp, &rp);
      cr_assert(rs.converged == rp.converged && abs(rs.iterations - rp.iterations) <= 2,
                "%s, format %d, case %d: standard %d iterations (converged %d), pipelined %d (%d)", name, f, c,
                rs.iterations, rs.converged, rp.iterations, rp.converged);
      if (c == 0) {
        memcpy(sol, xp, m * sizeof *sol);
        const double rt = true_residual(a, b, xp);
        cr_assert(rp.converged && rt <= 1e-11, "%s, format %d: the pipelined x's true residual %.3g (tol 1e-12)", name,
                  f, rt);
      }
      if (c == 2 && !rs.converged) /* the limit's stop (the hub's system converges within 7) */
        cr_assert(rs.iterations == 7 && rp.iterations == 7, "%s, format %d: the limit's stop", name, f);
      if (c == 4) cr_assert(rp.iterations == 0, "%s, format %d: warm start, %d iterations", name, f, rp.iterations);
      double size = 0, diff = 0;
      for (size_t k = 0; k < m; k++) size = fmax(size, fabs(xs[k])), diff = fmax(diff, fabs(xp[k] - xs[k]));
      if (c != 1 || rs.iterations == rp.iterations)
        cr_assert(diff <= 1e-9 * size, "%s, format %d, case %d: x off by %.3g of %.3g (%d and %d iterations)", name, f,
                  c, diff, size, rs.iterations, rp.iterations);
    }
  free(b), free(x0), free(zero), free(xs), free(xp), free(sol);
}

/* The test systems: solve_and_check's random one, the persistent test's chain (~100 iterations) and
 * the long rows' hub. */
static void compare_pcg_variants_on(cl_device *dev, int persistent) {
  cl_dda_bsr a = {0};
  lcg_seed(42);
  random_matrix(&a, 40, 60);
  compare_pcg_variants(dev, persistent, &a, "random");
  cl_dda_bsr_free(&a);
  lcg_seed(23);
  chain_matrix(&a, 3000);
  compare_pcg_variants(dev, persistent, &a, "chain");
  cl_dda_bsr_free(&a);
  lcg_seed(29);
  hub_matrix(&a, 600, 40);
  compare_pcg_variants(dev, persistent, &a, "hub");
  cl_dda_bsr_free(&a);
}

/* check on the cpu device; on cuda (skipped without a GPU) with the persistent kernel (one grid
 * barrier an iteration) and with the launches. */
static void pipelined_on(const char *device, void (*check)(cl_device *, int persistent)) {
  const int cuda = strcmp(device, "cuda") == 0;
  if (cuda && cl_device_cuda_count() < 1) cr_skip_test("no CUDA device");
  cl_device dev;
  cl_error err;
  cr_assert_eq(cl_device_open(&dev, device, &err), CL_OK, "%s", err.msg);
  for (int persistent = cuda; persistent >= 0; persistent--) check(&dev, persistent);
  cl_device_close(&dev);
}

Test(dda, pipelined_pcg_matches_the_standard_on_the_cpu) { pipelined_on("cpu", compare_pcg_variants_on); }
Test(dda, pipelined_pcg_matches_the_standard_on_cuda) { pipelined_on("cuda", compare_pcg_variants_on); }

/* The pipelined PCG with SSOR-AI is refused, naming the fix: its M^-1 is not local to a block row. */
Test(dda, pipelined_pcg_refuses_ssor) {
  lcg_seed(42);
  cl_dda_bsr a = {0};
  random_matrix(&a, 10, 10);
  cl_device dev;
  cl_dda_solver s;
  load_solver(&dev, &s, &a, CL_DDA_BSR);
  s.pipelined = 1;
  double b[60] = {1}, x[60] = {0};
  cl_dda_pcg_result res;
  cl_error err;
  cr_assert_eq(cl_dda_pcg(&s, b, x, x, CL_DDA_SSOR_AI, 1e-12, 0, 100, &res, &err), CL_ERR_ARG);
  cr_assert(strstr(err.msg, "block Jacobi") && strstr(err.msg, "standard"), "%s", err.msg);
  cl_dda_solver_free(&s);
  cl_device_close(&dev);
  cl_dda_bsr_free(&a);
}

/* The pipelined PCG's check of its exit (pcg_scalars.h: cl_dda_pcg_to_check) on a DDA-like system
 * (dda_precond's: a 600-block jointed mass with a 190-block base, inertia 1e-3, not diagonally
 * dominant; ~1 000 - 1 700 iterations from x0 = 0): its recurrences drift from b - A x, and without the
 * check a solve at tol 1e-12 broke down after 1 171 iterations with a true residual of 2.3e-7 (the
 * standard PCG: 1 267 iterations, 2.8e-12). With it both tolerances converge (1e-8: 930 iterations,
 * the standard's 936; 1e-12: 1 741, a restart after the breakdown), the true residual within
 * CL_DDA_PIPE_CHECK_SLACK tol (measured 2e-8 and 1.3e-12), and the residual reported is the true one,
 * the device's b - A x (without the check, the recurrence's: 9.4e-9 at 1e-8), to 1e-3 of it + 1e-12 of
 * |b| (at 1e-12 the two products' orders of summation differ by ~3e-13: 9.4e-13 against 1.3e-12). */
static void check_pipelined_exit_on(cl_device *dev, int persistent) {
  const size_t n = 600, m = 6 * n;
  uint64_t seed = 20261125;
  cl_dda_bsr a = {0};
  cl_error err;
  cr_assert_eq(cl_dda_random_jointed_pattern(&a, n, 25, 190, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_dda_random_jointed_values(&a, 25, 190, 1e-3, &seed, &err), CL_OK, "%s", err.msg);
  double *b = malloc(m * sizeof *b), *x0 = calloc(m, sizeof *x0), *x = malloc(m * sizeof *x);
  for (size_t k = 0; k < m; k++) b[k] = cl_dda_random_uniform(&seed, -1, 1);
  const double tols[2] = {1e-8, 1e-12};
  for (int t = 0; t < 2; t++) {
    cl_dda_pcg_result res;
    solve_variant(dev, &a, CL_DDA_BSR, persistent, 1, b, x0, tols[t], 0, 20000, x, &res);
    const double rt = true_residual(&a, b, x);
    cr_assert(res.converged && rt <= CL_DDA_PIPE_CHECK_SLACK * tols[t] && fabs(res.residual - rt) <= 1e-3 * rt + 1e-12,
              "persistent %d, tol %g: converged %d after %d iterations, true residual %.3g, reported %.3g", persistent,
              tols[t], res.converged, res.iterations, rt, res.residual);
  }
  free(b), free(x0), free(x);
  cl_dda_bsr_free(&a);
}

Test(dda, pipelined_pcg_checks_its_true_residual_at_exit) { pipelined_on("cpu", check_pipelined_exit_on); }
/* on cuda: the persistent kernel's check and restarts, and the launches' */
Test(dda, pipelined_pcg_checks_its_true_residual_at_exit_on_cuda) { pipelined_on("cuda", check_pipelined_exit_on); }

/* The step's contacts cl_dda_solver_set_contacts* keeps the pattern for (cl_dda_solver_same_pattern)
 * give the indices a fresh build gives: a list of 40 blocks' 300 contacts, then the same list again
 * (kept), one contact's edge block changed, one contact's blocks swapped (the same pairs of blocks,
 * another role of each), one contact's vertex block changed, the same again (kept), one contact fewer --
 * each the same count but the last -- through the host's pattern (host contacts) and the device's
 * (contacts on the device), each against a new solver's build of the same list: the structure, the
 * share lists, the long rows and the share targets, exactly; and kept exactly twice. */
static void assert_same_indices(cl_device *dev, cl_dda_solver *kept, cl_dda_solver *fresh, size_t n, size_t nc,
                                const char *what) {
  cl_error err;
  cr_assert_eq(kept->A.ntarget, fresh->A.ntarget, "%s: %zu matrix blocks, a fresh build's %zu", what,
               kept->A.ntarget, fresh->A.ntarget);
  cr_assert_eq(kept->A.nc, nc, "%s", what);
  const size_t nt = fresh->A.ntarget;
  /* the share targets are built by the first incremental assembly: built here on both */
  cl_dda_pcg_args targets[2] = {kept->A, fresh->A};
  for (int q = 0; q < 2; q++) cr_assert_eq(cl_k_dda_pcg(dev, CL_F64, &targets[q], CL_DDA_OP_SHARE_TARGETS, &err), CL_OK);
  const struct { const char *name; const int32_t *k, *f; size_t count; } arrays[] = {
      {"rowptr", kept->A.rowptr, fresh->A.rowptr, n + 1}, {"col", kept->A.col, fresh->A.col, nt},
      {"tdiag", kept->A.tdiag, fresh->A.tdiag, nt}, {"gstart", kept->A.gstart, fresh->A.gstart, nt + 1},
      {"gitem", kept->A.gitem, fresh->A.gitem, 4 * nc}, {"rstart", kept->A.rstart, fresh->A.rstart, n + 1},
      {"ritem", kept->A.ritem, fresh->A.ritem, 2 * nc}, {"cbi", kept->A.cbi, fresh->A.cbi, nc},
      {"cbj", kept->A.cbj, fresh->A.cbj, nc}, {"ctarget", kept->A.ctarget, fresh->A.ctarget, 4 * nc}};
  int32_t *k = malloc((4 * nc + nt + n + 2) * sizeof *k), *f = malloc((4 * nc + nt + n + 2) * sizeof *f);
  for (size_t q = 0; q < sizeof arrays / sizeof *arrays; q++) {
    const size_t bytes = arrays[q].count * sizeof *k;
    cr_assert_eq(dev->to_host(dev, k, arrays[q].k, bytes, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(dev->to_host(dev, f, arrays[q].f, bytes, &err), CL_OK, "%s", err.msg);
    for (size_t e = 0; e < arrays[q].count; e++)
      cr_assert_eq(k[e], f[e], "%s: %s[%zu] %d, a fresh build's %d", what, arrays[q].name, e, k[e], f[e]);
  }
  free(k), free(f);
}

Test(dda, a_kept_pattern_is_the_one_a_fresh_build_gives) {
  enum { N = 40, NC = 300, LISTS = 7 };
  static const char *const what[LISTS] = {"the first list", "the same list", "an edge block changed",
                                          "a contact's blocks swapped", "a vertex block changed", "the same again",
                                          "one contact fewer"};
  int32_t bi[LISTS][NC], bj[LISTS][NC];
  size_t count[LISTS];
  lcg_seed(61);
  for (size_t k = 0; k < NC; k++)
    bi[0][k] = (int32_t)lcg_below(N - 5), bj[0][k] = bi[0][k] + 1 + (int32_t)lcg_below(4);
  for (int l = 1; l < LISTS; l++) memcpy(bi[l], bi[l - 1], sizeof bi[l]), memcpy(bj[l], bj[l - 1], sizeof bj[l]);
  for (int l = 0; l < LISTS; l++) count[l] = NC;
  bj[2][17] = (bj[2][17] + 1) % N == bi[2][17] ? (bj[2][17] + 2) % N : (bj[2][17] + 1) % N;
  for (int l = 3; l < LISTS; l++) bj[l][17] = bj[2][17];
  for (int l = 3; l < LISTS; l++) bi[l][100] = bj[2][100], bj[l][100] = bi[2][100];
  for (int l = 4; l < LISTS; l++) bi[l][250] = bi[3][250] == 0 ? N - 1 : bi[3][250] - 1;
  count[6] = NC - 1;
  cl_device dev;
  cl_error err;
  cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
  for (int on_device = 0; on_device < 2; on_device++) {
    cl_dda_solver kept;
    cl_dda_solver_init(&kept, &dev, CL_DDA_BSR);
    for (int l = 0; l < LISTS; l++) {
      cl_dda_step_contacts sc = {.count = count[l], .bi = bi[l], .bj = bj[l], .kn = 1, .ks = 1};
      void *up[2] = {NULL, NULL}; /* the device's copies of the blocks, for the device's pattern */
      if (on_device) {
        for (int q = 0; q < 2; q++) {
          cr_assert_eq(dev.alloc(&dev, &up[q], NC * sizeof(int32_t), &err), CL_OK, "%s", err.msg);
          cr_assert_eq(dev.to_device(&dev, up[q], q ? bj[l] : bi[l], NC * sizeof(int32_t), &err), CL_OK);
        }
        sc.bi = up[0], sc.bj = up[1], sc.on_device = 1;
      }
      cl_dda_bsr a = {0};
      cr_assert_eq(cl_dda_bsr_pattern(&a, N, count[l], bi[l], bj[l], &err), CL_OK);
      cl_dda_solver fresh;
      cl_dda_solver_init(&fresh, &dev, CL_DDA_BSR);
      if (on_device) {
        cr_assert_eq(cl_dda_solver_set_contacts_on_device(&kept, N, &sc, &err), CL_OK, "%s", err.msg);
        cr_assert_eq(cl_dda_solver_set_contacts_on_device(&fresh, N, &sc, &err), CL_OK, "%s", err.msg);
      } else {
        cr_assert_eq(cl_dda_solver_set_contacts(&kept, &a, &sc, &err), CL_OK, "%s", err.msg);
        cr_assert_eq(cl_dda_solver_set_contacts(&fresh, &a, &sc, &err), CL_OK, "%s", err.msg);
      }
      char name[96];
      snprintf(name, sizeof name, "%s (%s pattern)", what[l], on_device ? "the device's" : "the host's");
      assert_same_indices(&dev, &kept, &fresh, N, count[l], name);
      cl_dda_solver_free(&fresh), cl_dda_bsr_free(&a);
      for (int q = 0; q < 2; q++)
        if (up[q]) dev.release(&dev, up[q]);
    }
    cr_assert_eq(kept.pattern_reuses, 2, "%s pattern: kept %ld times, for the two lists met again",
                 on_device ? "the device's" : "the host's", kept.pattern_reuses);
    cl_dda_solver_free(&kept);
  }
  cl_device_close(&dev);
}

/* Two blocks falling past fixed walls' lower ends onto a fixed base, beside one resting on the base
 * (a dynamic analysis): the contacts' pairs of blocks stay the same while they fall beside the walls
 * and after they land, and change where a falling block's corner passes its wall's (a contact whose
 * vertex is the wall's, 5 steps later one of its own fewer: 2 -> 3 -> 2 contacts) and where it lands.
 * The second starts higher by the first's fall over the steps from 33 to 38, so that at step 39 it
 * gains its wall's contact as the first loses one of its own: the same count, other pairs. The
 * resting block's contacts, after the first's in the list, are closed throughout.
 * CLEAVE_DDA_PATTERN_REUSE as `reuse` when the model is made; detection on the host (the host's
 * pattern) or on the cpu device (the device's, pcg.c); pcg_displacement 0 or not (the device's
 * compare read alone or with the lightest mass). */
enum { LANDING = 6 };
typedef struct landing_model {
  int32_t vstart[LANDING + 1], material[LANDING];
  double vx[4 * LANDING], vy[4 * LANDING], fixed[12];
  cl_dda_material rock;
  cl_dda_joint joint;
} landing_model;

static cl_dda_input landing_input(landing_model *l, cl_dda_detection detection, cl_dda_spmv_format format,
                                  double pcg_displacement) {
  /* x0, x1, y0, y1: the base, a wall (1 cm from its block: within the contact distance 2.5 cm), its
   * block, one resting on the base (its contacts closed from the start), the second wall and block */
  const double dt = 5e-3, later = 9.81 / 2 * dt * dt * (38 * 38 - 33 * 33); /* the fall from step 33 to 38 */
  const double box[LANDING][4] = {{-1, 9, -1, 0},          {1.01, 2, 0.3, 3}, {0, 1, 0.45, 1.45},
                                  {6.5, 7.5, 0, 1},        {4.01, 5, 0.3, 3}, {3, 4, 0.45 + later, 1.45 + later}};
  const double fixed[12] = {-0.5, -0.5, 8.5, -0.5, 1.5, 1, 1.5, 2.5, 4.5, 1, 4.5, 2.5};
  memset(l, 0, sizeof *l);
  for (int b = 0; b <= LANDING; b++) l->vstart[b] = 4 * b;
  for (int b = 0; b < LANDING; b++) {
    const double x[4] = {box[b][0], box[b][1], box[b][1], box[b][0]}, y[4] = {box[b][2], box[b][2], box[b][3], box[b][3]};
    memcpy(l->vx + 4 * b, x, sizeof x), memcpy(l->vy + 4 * b, y, sizeof y);
  }
  memcpy(l->fixed, fixed, sizeof fixed);
  l->rock = (cl_dda_material){.rho = 2600, .E = 1e9, .nu = 0.25};
  l->joint = (cl_dda_joint){.friction_angle = 20};
  const cl_dda_input in = {.nblocks = LANDING, .vstart = l->vstart, .vx = l->vx, .vy = l->vy, .material = l->material,
                           .nmaterials = 1, .materials = &l->rock, .njoints = 1, .joints = &l->joint, .nfixed = 6,
                           .fixed = l->fixed, .gy = -9.81, .dynamic = 1, .normal_stiffness = 5e10,
                           .shear_stiffness = 5e10, .fixed_stiffness = 5e11, .max_displacement = 1e-2,
                           .pcg_tolerance = 1e-10, .pcg_displacement = pcg_displacement,
                           .preconditioner = CL_DDA_BLOCK_JACOBI,
                           .spmv_format = format, .pcg_launches = 1, .pcg_max_iterations = 1000,
                           .open_close_max = 20, .detection = detection};
  return in;
}

static cl_dda_model *landing_on(cl_device *dev, landing_model *l, cl_dda_detection detection,
                                cl_dda_spmv_format format, double pcg_displacement, const char *reuse) {
  const cl_dda_input in = landing_input(l, detection, format, pcg_displacement);
  cl_dda_model *m;
  cl_error err = {0};
  cr_assert_eq(setenv("CLEAVE_DDA_PATTERN_REUSE", reuse, 1), 0);
  cr_assert_eq(cl_dda_model_create(&m, dev, &in, &err), CL_OK, "%s", err.msg);
  unsetenv("CLEAVE_DDA_PATTERN_REUSE");
  return m;
}

/* The model's environment switch var set to a value it refuses: no model, an error naming the
 * variable and its values (want: the error's start). */
static void switch_refused(const char *var, const char *value, cl_dda_detection detection, const char *want) {
  cl_device dev;
  cl_error err = {0};
  cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
  landing_model l;
  const cl_dda_input in = landing_input(&l, detection, CL_DDA_BSR, 1e-9);
  cl_dda_model *m = NULL;
  cr_assert_eq(setenv(var, value, 1), 0);
  const cl_status st = cl_dda_model_create(&m, &dev, &in, &err);
  unsetenv(var);
  cr_assert(st == CL_ERR_ARG && m == NULL && strstr(err.msg, want), "%s", err.msg);
  cl_device_close(&dev);
}

Test(dda, a_pattern_reuse_switch_other_than_0_or_1_is_refused) {
  switch_refused("CLEAVE_DDA_PATTERN_REUSE", "yes", CL_DDA_DETECT_HOST, "CLEAVE_DDA_PATTERN_REUSE = 'yes' must be 0");
}

Test(dda, an_open_close_loose_factor_below_1_or_not_a_number_is_refused) {
  switch_refused("CLEAVE_DDA_OC_LOOSE", "0.5", CL_DDA_DETECT_HOST, "CLEAVE_DDA_OC_LOOSE = '0.5' must be a number >= 1");
  switch_refused("CLEAVE_DDA_OC_LOOSE", "ten", CL_DDA_DETECT_HOST, "CLEAVE_DDA_OC_LOOSE = 'ten' must be a number >= 1");
}

/* Models a and b took the same step, bit for bit: iterations, the open-close iterations' traces, time
 * step, energies, then (at the end) every block's state and every contact. */
static void assert_same_step(const cl_dda_stats *a, const cl_dda_stats *b, const char *what, int step) {
  cr_assert(a->open_close == b->open_close && a->pcg == b->pcg && a->reductions == b->reductions && a->dt == b->dt &&
                a->closed == b->closed && a->contacts == b->contacts,
            "%s, step %d: open-close %d / %d, PCG %d / %d, contacts %zu / %zu", what, step, a->open_close,
            b->open_close, a->pcg, b->pcg, a->contacts, b->contacts);
  cr_assert(memcmp(a->trace_pcg, b->trace_pcg, sizeof a->trace_pcg) == 0 &&
                memcmp(a->trace_changed, b->trace_changed, sizeof a->trace_changed) == 0 &&
                memcmp(a->trace_unsettled, b->trace_unsettled, sizeof a->trace_unsettled) == 0,
            "%s, step %d: the open-close iterations' traces", what, step);
  cr_assert(a->gravity_work == b->gravity_work && a->friction_work == b->friction_work && a->kinetic == b->kinetic,
            "%s, step %d: energies %.17g %.17g / %.17g %.17g", what, step, a->gravity_work, a->kinetic,
            b->gravity_work, b->kinetic);
}

static void assert_same_state(cl_dda_model *a, cl_dda_model *b, size_t nblocks, const char *what) {
  cl_error err = {0};
  cl_dda_model *m[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    cr_assert_eq(cl_dda_host_state(m[k], &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_dda_host_contacts(m[k], &err), CL_OK, "%s", err.msg);
  }
  for (size_t i = 0; i < nblocks; i++) {
    cl_dda_block_state b0, b1;
    cl_dda_block_state_of(a, i, &b0), cl_dda_block_state_of(b, i, &b1);
    cr_assert(memcmp(&b0, &b1, sizeof b0) == 0, "%s, block %zu: displacement %.17g %.17g / %.17g %.17g", what, i + 1,
              b0.ux, b0.uy, b1.ux, b1.uy);
  }
  cr_assert_eq(cl_dda_contact_count(a), cl_dda_contact_count(b), "%s", what);
  for (size_t k = 0; k < cl_dda_contact_count(a); k++) {
    cl_dda_contact_info c0, c1;
    cl_dda_contact_of(a, k, &c0), cl_dda_contact_of(b, k, &c1);
    cr_assert(memcmp(&c0, &c1, sizeof c0) == 0, "%s, contact %zu: state %d N %.17g / %d %.17g", what, k, c0.state,
              c0.normal_force, c1.state, c1.normal_force);
  }
}

/* The pairs of blocks (vertex block, edge block) of model m's last step's contacts into pairs (room
 * for `room` pairs); their count. */
static size_t contact_pairs(cl_dda_model *m, int32_t *pairs, size_t room) {
  cl_error err = {0};
  cr_assert_eq(cl_dda_host_contacts(m, &err), CL_OK, "%s", err.msg);
  const size_t nc = cl_dda_contact_count(m);
  cr_assert(nc <= room);
  for (size_t k = 0; k < nc; k++) {
    cl_dda_contact_info c;
    cl_dda_contact_of(m, k, &c);
    pairs[2 * k] = c.block_vertex, pairs[2 * k + 1] = c.block_edge;
  }
  return nc;
}

/* The pattern kept while the contacts' pairs of blocks stay (the default) and built every step
 * (CLEAVE_DDA_PATTERN_REUSE=0) give the same steps bit for bit, with the host's pattern (BSR and
 * HSBCSR) and the device's (its compare read with the lightest mass, and alone where the displacement
 * criterion is off): the falling blocks' 80 steps. The pattern is kept exactly on the steps whose
 * contacts' pairs are those of the last step that built it (stats().pattern_reuses, step by step),
 * on most steps but not all, and not at step 39, where the list changes at the same count. */
Test(dda, a_kept_pattern_gives_the_steps_of_one_built_every_step) {
  cl_device dev;
  cl_error err = {0};
  cr_assert_eq(cl_device_open(&dev, "cpu", &err), CL_OK, "%s", err.msg);
  enum { RUNS = 4, STEPS = 80, ROOM = 64 };
  const cl_dda_detection detection[RUNS] = {CL_DDA_DETECT_HOST, CL_DDA_DETECT_DEVICE, CL_DDA_DETECT_DEVICE,
                                            CL_DDA_DETECT_HOST};
  const cl_dda_spmv_format format[RUNS] = {CL_DDA_BSR, CL_DDA_BSR, CL_DDA_BSR, CL_DDA_HSBCSR};
  const double criterion[RUNS] = {1e-9, 1e-9, 0, 1e-9};
  static const char *const what[RUNS] = {"the host's pattern", "the device's pattern",
                                         "the device's pattern, no displacement criterion",
                                         "the host's pattern, HSBCSR"};
  for (int d = 0; d < RUNS; d++) {
    landing_model l[2];
    cl_dda_model *m[2] = {landing_on(&dev, &l[0], detection[d], format[d], criterion[d], "1"),
                          landing_on(&dev, &l[1], detection[d], format[d], criterion[d], "0")};
    long closed_steps = 0, kept = 0, same_count_changes = 0;
    int32_t built[2 * ROOM], last[2 * ROOM], now[2 * ROOM];
    size_t nbuilt = 0, nlast = 0;
    for (int step = 1; step <= STEPS; step++) {
      for (int k = 0; k < 2; k++) cr_assert_eq(cl_dda_step(m[k], 5e-3, &err), CL_OK, "%s", err.msg);
      const cl_dda_stats *s0 = cl_dda_stats_of(m[0]), *s1 = cl_dda_stats_of(m[1]);
      assert_same_step(s0, s1, what[d], step);
      closed_steps += s0->closed > 0;
      const size_t nc = contact_pairs(m[0], now, ROOM);
      const int same_as_built = step > 1 && nc == nbuilt && !memcmp(now, built, 2 * nc * sizeof *now);
      same_count_changes += step > 1 && nc == nlast && memcmp(now, last, 2 * nc * sizeof *now) != 0;
      kept += same_as_built;
      cr_assert_eq(s0->pattern_reuses, kept, "%s, step %d: pattern kept %ld times, its contacts' pairs say %ld",
                   what[d], step, s0->pattern_reuses, kept);
      if (!same_as_built) memcpy(built, now, 2 * nc * sizeof *now), nbuilt = nc;
      memcpy(last, now, 2 * nc * sizeof *now), nlast = nc;
    }
    cr_assert(kept > STEPS / 2 && kept < STEPS && cl_dda_stats_of(m[1])->pattern_reuses == 0 && closed_steps > 5 &&
                  same_count_changes > 0,
              "%s: kept %ld of %d steps (built every step: %ld), %ld steps with closed contacts, %ld changes of "
              "the list at the same count", what[d], kept, STEPS, cl_dda_stats_of(m[1])->pattern_reuses,
              closed_steps, same_count_changes);
    assert_same_state(m[0], m[1], LANDING, what[d]);
    for (int k = 0; k < 2; k++) cl_dda_model_destroy(m[k]);
  }
  cl_device_close(&dev);
}

Test(dda, a_transfer_shortcut_switch_other_than_0_or_1_is_refused) {
  switch_refused("CLEAVE_DDA_TRANSFER_SHORTCUT", "on", CL_DDA_DETECT_DEVICE,
                 "CLEAVE_DDA_TRANSFER_SHORTCUT = 'on' must be 0 (sort");
}

/* The transfer's shortcut on (the default) and off (CLEAVE_DDA_TRANSFER_SHORTCUT=0) give the same steps
 * bit for bit -- iterations, traces, energies, then every block's state and every contact -- on the
 * falling blocks' 80 steps with the device's detection, transfer and pattern (the cpu device, and
 * cuda where there is one). The shortcut is taken on most steps but not all (stats().transfer_shortcuts,
 * step by step), never on the first (no last transfer) nor where the count of contacts changed, and
 * never when switched off. */
Test(dda, the_transfer_shortcut_gives_the_steps_of_the_sorted_transfer) {
  enum { STEPS = 80 };
  const char *names[2] = {"cpu", "cuda"};
  for (int b = 0; b < (cl_device_cuda_count() > 0 ? 2 : 1); b++) {
    cl_device dev;
    cl_error err = {0};
    cr_assert_eq(cl_device_open(&dev, names[b], &err), CL_OK, "%s", err.msg);
    landing_model l[2];
    cl_dda_model *m[2];
    const char *shortcut[2] = {"1", "0"};
    for (int k = 0; k < 2; k++) {
      cr_assert_eq(setenv("CLEAVE_DDA_TRANSFER_SHORTCUT", shortcut[k], 1), 0);
      m[k] = landing_on(&dev, &l[k], CL_DDA_DETECT_DEVICE, CL_DDA_BSR, 1e-9, "1");
      unsetenv("CLEAVE_DDA_TRANSFER_SHORTCUT");
    }
    cr_assert(cl_dda_stats_of(m[0])->device_pattern, "%s: the transfer on the device", names[b]);
    long taken = 0, count_changes = 0;
    size_t last_count = 0;
    for (int step = 1; step <= STEPS; step++) {
      for (int k = 0; k < 2; k++) cr_assert_eq(cl_dda_step(m[k], 5e-3, &err), CL_OK, "%s", err.msg);
      const cl_dda_stats *s0 = cl_dda_stats_of(m[0]), *s1 = cl_dda_stats_of(m[1]);
      assert_same_step(s0, s1, names[b], step);
      const long now = s0->transfer_shortcuts - taken;
      cr_assert(now == 0 || (now == 1 && step > 1 && s0->contacts == last_count),
                "%s, step %d: %ld shortcuts, %zu contacts after %zu", names[b], step, now, s0->contacts, last_count);
      taken += now, count_changes += step > 1 && s0->contacts != last_count, last_count = s0->contacts;
      cr_assert_eq(s1->transfer_shortcuts, 0, "%s: switched off, step %d", names[b], step);
    }
    cr_assert(taken > STEPS / 2 && taken < STEPS - count_changes && count_changes > 0,
              "%s: the shortcut on %ld of %d steps, %ld changes of the count", names[b], taken, STEPS, count_changes);
    assert_same_state(m[0], m[1], LANDING, names[b]);
    for (int k = 0; k < 2; k++) cl_dda_model_destroy(m[k]);
    cl_device_close(&dev);
  }
}

/* The device lists a and b (count contacts, made by device_list) the same, every field of every contact
 * bit for bit. */
static void assert_same_list(cl_device *dev, const list_arrays *a, const list_arrays *b, size_t count,
                             const char *what) {
  cl_error err;
  unsigned char *x = malloc(8 * count + 1), *y = malloc(8 * count + 1);
  for (int q = 0; q < 14; q++) {
    const size_t bytes = count * (q >= 1 && q <= 8 ? 4 : 8); /* the key, eight int32, five doubles */
    cr_assert_eq(dev->to_host(dev, x, a->p[q], bytes, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(dev->to_host(dev, y, b->p[q], bytes, &err), CL_OK, "%s", err.msg);
    cr_assert(memcmp(x, y, bytes) == 0, "%s: the lists' array %d differs", what, q);
  }
  free(x), free(y);
}

/* The transfer's shortcut (cl_dda_detect_transfer with shortcut set) against the sorted transfer, on the
 * jittered grid with short edges (equal keys, told apart by their joint lengths): the found contacts
 * transferred three times, each from the last's list -- first with no last step, then the same contacts
 * (the shortcut taken), then with two contacts of one pair of blocks swapped in the list found: the
 * same count, the same blocks at every position, other keys in that order, so that a compare of the
 * count or of the blocks alone would take the shortcut and put the two in the wrong order. Every
 * field of every contact the same as the sorted transfer's. On the cpu and, where there is one, cuda. */
Test(dda, the_transfer_shortcut_compares_the_keys_in_their_order) {
  const double d0 = 0.05;
  cl_error err;
  const cl_dda_geometry g = transfer_grid();
  const size_t nv = (size_t)g.vstart[g.n];
  const char *names[2] = {"cpu", "cuda"};
  for (int b = 0; b < (cl_device_cuda_count() > 0 ? 2 : 1); b++) {
    cl_device dev;
    cr_assert_eq(cl_device_open(&dev, names[b], &err), CL_OK, "%s", err.msg);
    cl_dda_geometry on = geometry_on(&dev, &g);
    cl_dda_detect det[2]; /* with the shortcut, and without */
    for (int k = 0; k < 2; k++) {
      detect_on(&det[k], &dev, &on, d0);
      det[k].shortcut = k == 0; /* read by the transfer only */
    }
    const size_t m = det[0].nfound;
    cl_dda_found *found = found_told_apart(&det[0]);
    size_t swap = m; /* two contacts in a row of one pair of blocks, with other keys */
    for (size_t k = 0; k + 1 < m && swap == m; k++)
      if (found[k].bi == found[k + 1].bi && found[k].bj == found[k + 1].bj &&
          (found[k].vi != found[k + 1].vi || found[k].ej != found[k + 1].ej))
        swap = k;
    cr_assert(swap < m, "%s: no two contacts of one pair in a row", names[b]);
    list_arrays lists[2][3];
    cl_dda_device_list l[2][3];
    for (int k = 0; k < 2; k++)
      for (int t = 0; t < 3; t++) l[k][t] = device_list(&dev, m, &lists[k][t]);
    const long want[3] = {0, 1, 1}; /* the shortcuts after each transfer */
    for (int t = 0; t < 3; t++) {
      if (t == 2) {
        const cl_dda_found f = found[swap];
        found[swap] = found[swap + 1], found[swap + 1] = f;
      }
      for (int k = 0; k < 2; k++) {
        cr_assert_eq(dev.to_device(&dev, det[k].buf[CL_DDA_DB_FOUND], found, m * sizeof *found, &err), CL_OK, "%s",
                     err.msg);
        const cl_dda_device_list none = {0};
        cr_assert_eq(cl_dda_detect_transfer(&det[k], &on, nv, t ? &l[k][t - 1] : &none, t ? m : 0, t == 0, &l[k][t],
                                            &err), CL_OK, "%s", err.msg);
      }
      char what[64];
      snprintf(what, sizeof what, "%s, transfer %d", names[b], t + 1);
      assert_same_list(&dev, &lists[0][t], &lists[1][t], m, what);
      cr_assert(det[0].shortcuts == want[t] && det[1].shortcuts == 0, "%s: %ld shortcuts, %ld switched off", what,
                det[0].shortcuts, det[1].shortcuts);
    }
    for (int k = 0; k < 2; k++) {
      for (int t = 0; t < 3; t++)
        for (int q = 0; q < 14; q++) dev.release(&dev, lists[k][t].p[q]);
      cl_dda_detect_free(&det[k]);
    }
    free(found);
    release_geometry(&dev, &on);
    cl_device_close(&dev);
  }
  free((void *)g.vstart), free((void *)g.vx), free((void *)g.vy);
}
