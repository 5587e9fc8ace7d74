/* Kernel dispatch on the cpu device, f32 and f64: each kernel against its
 * formula evaluated here, and the refusal of non-real element types. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dispatch.h"
#include "lcg.h"

static cl_device dev;
static cl_error err;

static void setup(void) {
  memset(&err, 0, sizeof err);
  if (cl_device_open(&dev, "cpu", &err) != CL_OK) cr_assert_fail("cpu device: %s", err.msg);
}

static void teardown(void) { cl_device_close(&dev); }

TestSuite(kernels, .init = setup, .fini = teardown);


/* Arrays of doubles filled by the LCG, and their f32 / f64 device copies. */
static void *alloc_real(cl_dtype t, size_t n) {
  void *p = NULL;
  cr_assert_eq(dev.alloc(&dev, &p, n * cl_dtype_size(t), &err), CL_OK, "%s", err.msg);
  return p;
}

/* random values, stored as t, and returned as the doubles actually stored */
static void *random_array(cl_dtype t, size_t n, double lo, double hi, double *exact) {
  void *host = malloc(n * cl_dtype_size(t));
  cr_assert_not_null(host);
  for (size_t i = 0; i < n; i++) {
    cl_dtype_put(t, host, i, lcg_uniform(lo, hi));
    exact[i] = cl_dtype_get(t, host, i);
  }
  void *d = alloc_real(t, n);
  cr_assert_eq(dev.to_device(&dev, d, host, n * cl_dtype_size(t), &err), CL_OK, "%s", err.msg);
  free(host);
  return d;
}

static double *read_back(cl_dtype t, const void *d, size_t n) {
  void *host = malloc(n * cl_dtype_size(t));
  double *out = malloc(n * sizeof *out);
  cr_assert(host && out);
  cr_assert_eq(dev.to_host(&dev, host, d, n * cl_dtype_size(t), &err), CL_OK, "%s", err.msg);
  for (size_t i = 0; i < n; i++) out[i] = cl_dtype_get(t, host, i);
  free(host);
  return out;
}

/* Expected values are computed in the kernel's precision: for f32 each
 * operation is rounded to float, as the kernel does. */
static double in_prec(cl_dtype t, double v) { return t == CL_F32 ? (double)(float)v : v; }

static double tol(cl_dtype t, double scale) { return (t == CL_F32 ? 2e-6 : 4e-15) * (fabs(scale) + 1e-30); }

/* ---- axpy ---------------------------------------------------------------- */

static void check_axpy(cl_dtype t) {
  enum { N = 1001 };
  static double x[N], y[N];
  lcg_seed(11 + t);
  void *dx = random_array(t, N, -2, 2, x), *dy = random_array(t, N, -2, 2, y);
  const double a = -1.75;
  cr_assert_eq(cl_k_axpy(&dev, t, N, a, dx, dy, &err), CL_OK, "axpy %s: %s", cl_dtype_name(t), err.msg);
  double *got = read_back(t, dy, N);
  for (size_t i = 0; i < N; i++) {
    double want = in_prec(t, in_prec(t, a * x[i]) + y[i]);
    cr_assert_leq(fabs(got[i] - want), tol(t, fabs(a * x[i]) + fabs(y[i])),
                  "%s axpy[%zu] = %.9g, want %.9g", cl_dtype_name(t), i, got[i], want);
  }
  double *xs = read_back(t, dx, N);
  cr_assert_arr_eq(xs, x, sizeof x, "axpy must not change x");
  free(xs);
  free(got);
  dev.release(&dev, dx);
  dev.release(&dev, dy);
}

Test(kernels, axpy_f32) { check_axpy(CL_F32); }
Test(kernels, axpy_f64) { check_axpy(CL_F64); }

Test(kernels, axpy_known_values_f64) {
  double x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40};
  cr_assert_eq(cl_k_axpy(&dev, CL_F64, 4, 0.5, x, y, &err), CL_OK, "%s", err.msg);
  const double want[4] = {10.5, 21, 31.5, 42};
  for (int i = 0; i < 4; i++) cr_assert_eq(y[i], want[i], "y[%d] = %g", i, y[i]);
}

/* ---- dot ----------------------------------------------------------------- */

static void check_dot(cl_dtype t) {
  enum { N = 3001 };
  static double x[N], y[N];
  lcg_seed(21 + t);
  void *dx = random_array(t, N, -1, 1, x), *dy = random_array(t, N, -3, 3, y);
  double want = 0, scale = 0;
  for (size_t i = 0; i < N; i++) {
    want += x[i] * y[i];
    scale += fabs(x[i] * y[i]);
  }
  double got = NAN;
  cr_assert_eq(cl_k_dot(&dev, t, N, dx, dy, &got, &err), CL_OK, "dot %s: %s", cl_dtype_name(t), err.msg);
  /* products and sums are in double for both precisions */
  cr_assert_leq(fabs(got - want), 1e-13 * scale, "%s dot = %.17g, want %.17g", cl_dtype_name(t), got, want);
  dev.release(&dev, dx);
  dev.release(&dev, dy);
}

Test(kernels, dot_f32) { check_dot(CL_F32); }
Test(kernels, dot_f64) { check_dot(CL_F64); }

Test(kernels, dot_known_values_f32) {
  float x[3] = {1, 2, 3}, y[3] = {4, -5, 6};
  double got = 0;
  cr_assert_eq(cl_k_dot(&dev, CL_F32, 3, x, y, &got, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(got, 12.0, "1*4 - 2*5 + 3*6 = 12, got %g", got);
  cr_assert_eq(cl_k_dot(&dev, CL_F32, 0, x, y, &got, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(got, 0.0, "empty dot is zero");
}

/* ---- velocity Verlet ----------------------------------------------------- */

static void check_kick_drift(cl_dtype t) {
  enum { N = 777 };
  static double u[N], v[N], a[N];
  lcg_seed(31 + t);
  void *du = random_array(t, N, -1, 1, u), *dv = random_array(t, N, -5, 5, v),
       *da = random_array(t, N, -100, 100, a);
  const double dt = 0.01;
  cr_assert_eq(cl_k_verlet_kick_drift(&dev, t, N, du, dv, da, dt, &err), CL_OK, "%s", err.msg);
  double *gu = read_back(t, du, N), *gv = read_back(t, dv, N), *ga = read_back(t, da, N);
  for (size_t i = 0; i < N; i++) {
    double vh = v[i] + 0.5 * dt * a[i]; /* v(n+1/2) */
    double un = u[i] + dt * vh;         /* u(n+1) */
    cr_assert_leq(fabs(gv[i] - vh), tol(t, fabs(v[i]) + fabs(0.5 * dt * a[i])),
                  "%s v[%zu] = %.9g, want %.9g", cl_dtype_name(t), i, gv[i], vh);
    cr_assert_leq(fabs(gu[i] - un), tol(t, 4 * (fabs(u[i]) + fabs(dt * vh))),
                  "%s u[%zu] = %.9g, want %.9g", cl_dtype_name(t), i, gu[i], un);
    cr_assert_eq(ga[i], a[i], "a is read only");
  }
  free(gu), free(gv), free(ga);
  dev.release(&dev, du), dev.release(&dev, dv), dev.release(&dev, da);
}

Test(kernels, verlet_kick_drift_f32) { check_kick_drift(CL_F32); }
Test(kernels, verlet_kick_drift_f64) { check_kick_drift(CL_F64); }

Test(kernels, verlet_kick_drift_known_values_f64) {
  double u[2] = {1, 0}, v[2] = {2, -1}, a[2] = {4, 10};
  cr_assert_eq(cl_k_verlet_kick_drift(&dev, CL_F64, 2, u, v, a, 0.5, &err), CL_OK, "%s", err.msg);
  /* v = 2 + 0.25*4 = 3, u = 1 + 0.5*3 = 2.5; v = -1 + 0.25*10 = 1.5, u = 0.75 */
  cr_assert(v[0] == 3 && u[0] == 2.5, "entry 0: u %g v %g", u[0], v[0]);
  cr_assert(v[1] == 1.5 && u[1] == 0.75, "entry 1: u %g v %g", u[1], v[1]);
}

static void check_kick(cl_dtype t) {
  enum { N = 513 };
  static double v[N], a[N];
  lcg_seed(41 + t);
  void *dv = random_array(t, N, -5, 5, v), *da = random_array(t, N, -100, 100, a);
  const double dt = 0.003;
  cr_assert_eq(cl_k_verlet_kick(&dev, t, N, dv, da, dt, &err), CL_OK, "%s", err.msg);
  double *gv = read_back(t, dv, N);
  for (size_t i = 0; i < N; i++) {
    double want = v[i] + 0.5 * dt * a[i];
    cr_assert_leq(fabs(gv[i] - want), tol(t, fabs(v[i]) + fabs(0.5 * dt * a[i])),
                  "%s v[%zu] = %.9g, want %.9g", cl_dtype_name(t), i, gv[i], want);
  }
  free(gv);
  dev.release(&dev, dv), dev.release(&dev, da);
}

Test(kernels, verlet_kick_f32) { check_kick(CL_F32); }
Test(kernels, verlet_kick_f64) { check_kick(CL_F64); }

/* ---- wave2d -------------------------------------------------------------- */

static void check_wave2d(cl_dtype t) {
  enum { NX = 9, NY = 6, N = NX * NY }; /* not square, to catch i/j mix-ups */
  static double u[N], a0[N];
  lcg_seed(51 + t);
  void *du = random_array(t, N, -1, 1, u);
  void *da = random_array(t, N, 50, 60, a0); /* garbage the kernel must overwrite */
  const double c2_over_dx2 = 2.5;
  cr_assert_eq(cl_k_wave2d_accel(&dev, t, NX, NY, du, da, c2_over_dx2, &err), CL_OK, "%s", err.msg);
  double *ga = read_back(t, da, N);
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++) {
      int p = j * NX + i;
      double want = 0, scale = 0;
      if (i > 0 && j > 0 && i < NX - 1 && j < NY - 1) {
        double w = u[p - 1], e = u[p + 1], s = u[p - NX], n = u[p + NX], c = u[p];
        want = c2_over_dx2 * (w + e + s + n - 4 * c);
        scale = c2_over_dx2 * (fabs(w) + fabs(e) + fabs(s) + fabs(n) + 4 * fabs(c));
        cr_assert_leq(fabs(ga[p] - want), tol(t, 2 * scale), "%s a(%d,%d) = %.9g, want %.9g",
                      cl_dtype_name(t), i, j, ga[p], want);
      } else {
        cr_assert_eq(ga[p], 0.0, "%s boundary a(%d,%d) = %g must be 0", cl_dtype_name(t), i, j, ga[p]);
      }
    }
  free(ga);
  dev.release(&dev, du), dev.release(&dev, da);
}

Test(kernels, wave2d_accel_f32) { check_wave2d(CL_F32); }
Test(kernels, wave2d_accel_f64) { check_wave2d(CL_F64); }

Test(kernels, wave2d_accel_of_a_quadratic_is_constant) {
  /* u = x^2 + y^2 (grid units): the 5-point Laplacian is exactly 4 */
  enum { NX = 6, NY = 5 };
  double u[NX * NY], a[NX * NY];
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++) u[j * NX + i] = i * i + j * j;
  cr_assert_eq(cl_k_wave2d_accel(&dev, CL_F64, NX, NY, u, a, 3.0, &err), CL_OK, "%s", err.msg);
  for (int j = 1; j < NY - 1; j++)
    for (int i = 1; i < NX - 1; i++)
      cr_assert_eq(a[j * NX + i], 12.0, "a(%d,%d) = %g, want 3 * 4", i, j, a[j * NX + i]);
}

/* ---- fill and reduce through dispatch ------------------------------------ */

Test(kernels, fill_and_reduce_every_dtype) {
  for (int t = 0; t < CL_DTYPE_COUNT; t++) {
    unsigned char buf[10 * 8];
    cr_assert_eq(cl_k_fill(&dev, (cl_dtype)t, buf, 10, 3, &err), CL_OK, "%s", err.msg);
    double out = 0;
    cr_assert_eq(cl_k_reduce(&dev, (cl_dtype)t, buf, 10, 2 /* sum */, &out, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(out, 30.0, "%s: sum of ten 3s = %g", cl_dtype_name(t), out);
    cr_assert_eq(cl_k_reduce(&dev, (cl_dtype)t, buf, 10, 3 /* sum of squares */, &out, &err), CL_OK, "%s",
                 err.msg);
    cr_assert_eq(out, 90.0, "%s: sum of squares = %g", cl_dtype_name(t), out);
  }
}

/* A cpu sum (and sum of squares) of many terms has the same bits for any number of threads, and so on
 * every call: OpenMP's reduction(+) added the threads' sums in the order they finished (1 and 2
 * threads differed in the last bits here, two calls on a 16-core host too). */
Test(kernels, cpu_sums_have_the_same_bits_for_any_number_of_threads) {
  enum { N = 100003 };
  double *x = malloc(N * sizeof *x);
  lcg_seed(21);
  for (size_t i = 0; i < N; i++) x[i] = lcg_uniform(-0.3, 0.7);
  const int threads0 = omp_get_max_threads();
  for (int op = 2; op <= 3; op++) { /* sum, sum of squares */
    double first = 0;
    for (int t = 1; t <= 7; t++) {
      omp_set_num_threads(t);
      double out = 0;
      cr_assert_eq(cl_k_reduce(&dev, CL_F64, x, N, op, &out, &err), CL_OK, "%s", err.msg);
      if (t == 1) first = out;
      cr_assert(out == first, "op %d, %d threads: %.17g against %.17g with one", op, t, out, first);
    }
  }
  omp_set_num_threads(threads0);
  free(x);
}

/* ---- element types ------------------------------------------------------- */

static void expect_refused(cl_status s, const char *kernel, const char *dtype) {
  cr_assert_eq(s, CL_ERR_ARG, "%s on %s: status %d", kernel, dtype, s);
  cr_assert_eq(err.code, CL_ERR_ARG);
  cr_assert_not_null(strstr(err.msg, kernel), "message names the kernel '%s': %s", kernel, err.msg);
  cr_assert_not_null(strstr(err.msg, dtype), "message names the dtype '%s': %s", dtype, err.msg);
}

Test(kernels, integer_dtypes_are_refused_naming_the_kernel) {
  int32_t x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, y[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  const int32_t y0[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  double out = -1;
  expect_refused(cl_k_axpy(&dev, CL_I32, 9, 2, x, y, &err), "axpy", "i32");
  cr_assert_arr_eq(y, y0, sizeof y, "a refused axpy writes nothing");
  expect_refused(cl_k_dot(&dev, CL_U32, 9, x, y, &out, &err), "dot", "u32");
  expect_refused(cl_k_verlet_kick_drift(&dev, CL_U8, 9, x, y, x, 0.1, &err), "verlet_kick_drift", "u8");
  expect_refused(cl_k_verlet_kick(&dev, CL_I32, 9, y, x, 0.1, &err), "verlet_kick", "i32");
  expect_refused(cl_k_wave2d_accel(&dev, CL_U32, 3, 3, x, y, 1, &err), "wave2d_accel", "u32");
  cr_assert_arr_eq(y, y0, sizeof y, "refused kernels write nothing");
}
