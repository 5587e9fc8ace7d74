/* Benchmark of the DDA matrix product (kernels/dda/pcg_ops.h) on one matrix in three forms: the
 * paper's half storage HSBCSR (upper blocks only, the lower triangle applied as their transposes),
 * full BSR (both triangles), and, on a cuda device, cuSPARSE's BSR product (cusparseDbsrmv, row-
 * major 6x6 blocks) on the BSR arrays. The matrix is a jointed mass's: blocks on a square grid,
 * each in contact with its right, upper and two upper-diagonal neighbours (4 upper blocks a row,
 * as the paper's case 1: 18 731 off-diagonal blocks on 4 361 rows), random SPD values, f64; with
 * `base` > 0, block 0 is also in contact with blocks 1 .. base, as case 1's fixed base touches
 * ~190 blocks (its mean row holds ~12): the one long row that a thread a matrix row left to one
 * thread while the grid waited (BSR takes it with a whole thread block, pcg_ops.h).
 * Each form: the median of `runs` products after a warm-up (CUDA events on the gpu; on the cpu the
 * process's CPU time, all threads together, which a machine shared with other jobs does not
 * inflate as it does the wall clock: run with OMP_NUM_THREADS=1 for a single core's time); the results are checked against HSBCSR's (exit status 1 when they differ by more
 * than 1e-12 of |A| |x|).
 *
 * The bandwidth floor is the time to move the bytes each form cannot avoid -- its matrix values
 * and indices once, x once and y once -- at the device's peak bandwidth (`peak_GBps`, default 3350
 * on cuda: the H100 SXM's HBM3; on the cpu none is assumed and only GB/s are printed).
 *
 *   dda_spmv [cpu|cuda] [blocks] [runs] [peak_GBps] [base]   (default: cpu 4361 20, base 0) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLEAVE_HAVE_CUDA
#include <cusparse.h>
#endif

#include "../../kernels/dda/pcg.h"
#include "../../kernels/dda/pcg_kernels.h"
#include "../../kernels/dda/random_system.h"
#include "bench_time.h"

static uint64_t seed = 12345;

static int fail(const char *what, const cl_error *err) {
  fprintf(stderr, "dda_spmv: %s: %s\n", what, err->msg);
  return 2;
}

/* The grid's pattern (and block 0's `base` more pairs, cl_dda_random_jointed_pattern) and random values,
 * symmetric and diagonally dominant (cl_dda_random_spd: a diagonal above 6 (1 + the fullest row's blocks)). */
static cl_status make_matrix(cl_dda_bsr *a, size_t n, size_t base, cl_error *err) {
  CL_TRY(cl_dda_random_jointed_pattern(a, n, (size_t)ceil(sqrt((double)n)), base, err));
  return cl_dda_random_spd(a, fmax(40, 6.0 * (double)(base + 10)), 0, &seed, err);
}

static cl_status solver_product(void *data, cl_error *err) {
  cl_dda_solver *s = data;
  return cl_k_dda_pcg(s->dev, CL_F64, &s->A, CL_DDA_OP_SPMV, err);
}

#ifdef CLEAVE_HAVE_CUDA
typedef struct cusparse_run {
  cusparseHandle_t h;
  cusparseMatDescr_t descr;
  int n, nnzb;
  const double *val;
  const int *rowptr, *col;
  const double *x;
  double *y;
} cusparse_run;

static cl_status cusparse_product(void *data, cl_error *err) {
  cusparse_run *c = data;
  const double one = 1, zero = 0;
  cusparseStatus_t s = cusparseDbsrmv(c->h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, c->n, c->n,
                                      c->nnzb, &one, c->descr, c->val, c->rowptr, c->col, 6, c->x, &zero, c->y);
  return s == CUSPARSE_STATUS_SUCCESS ? CL_OK : cl_error_set(err, CL_ERR_DEVICE, "cusparseDbsrmv: status %d", (int)s);
}
#endif

/* |y - ref| against 1e-12 |A| |x| (scale: the largest row's absolute sum) */
static int check(const char *name, const double *y, const double *ref, size_t m, double scale) {
  double worst = 0;
  for (size_t k = 0; k < m; k++) worst = fmax(worst, fabs(y[k] - ref[k]));
  if (worst <= 1e-12 * scale) return 0;
  fprintf(stderr, "dda_spmv: %s differs from HSBCSR by %.3g (allowed %.3g)\n", name, worst, 1e-12 * scale);
  return 1;
}

int main(int argc, char **argv) {
  const char *devname = argc > 1 ? argv[1] : "cpu";
  size_t n = argc > 2 ? (size_t)strtod(argv[2], NULL) : 4361;
  int runs = argc > 3 ? atoi(argv[3]) : 20;
  double peak = argc > 4 ? strtod(argv[4], NULL) : strcmp(devname, "cuda") == 0 ? 3350 : 0;
  const long base = argc > 5 ? atol(argv[5]) : 0;
  if ((strcmp(devname, "cpu") && strcmp(devname, "cuda")) || n < 4 || runs < 1 || peak < 0 || base < 0 ||
      (size_t)base >= n) {
    fprintf(stderr, "usage: dda_spmv [cpu|cuda] [blocks >= 4] [runs >= 1] [peak_GBps] [base: 0 .. blocks - 1]\n");
    return 2;
  }
  cl_error err;
  cl_device dev;
  if (cl_device_open(&dev, devname, &err) != CL_OK) return fail("device", &err);
  cl_device_info info;
  if (dev.info(&dev, &info, &err) != CL_OK) return fail("device info", &err);
  cl_dda_bsr a = {0};
  if (make_matrix(&a, n, (size_t)base, &err) != CL_OK) return fail("matrix", &err);
  size_t m = 6 * n, nup = (a.nnzb - n) / 2;
  double *x = malloc(m * sizeof *x), *ref = malloc(m * sizeof *ref), *y = malloc(m * sizeof *y);
  for (size_t k = 0; k < m; k++) x[k] = cl_dda_random_uniform(&seed, -1, 1);
  double scale = 0; /* |A| |x| */
  int32_t longest = 0;
  for (size_t i = 0; i < n; i++) {
    if (a.rowptr[i + 1] - a.rowptr[i] > longest) longest = a.rowptr[i + 1] - a.rowptr[i];
    for (int r = 0; r < 6; r++) {
      double row = 0;
      for (int32_t p = a.rowptr[i]; p < a.rowptr[i + 1]; p++)
        for (int c = 0; c < 6; c++) row += fabs(a.val[36 * (size_t)p + 6 * r + c] * x[6 * (size_t)a.col[p] + (size_t)c]);
      scale = fmax(scale, row);
    }
  }
  printf("DDA SpMV on %s: %zu block rows, %zu upper blocks (%.2f a row; the longest row %d blocks), f64, median "
         "of %d\n", info.name, n, nup, (double)nup / (double)n, (int)longest, runs);
  printf("%-10s %10s %10s %10s %10s\n", "format", "ms", "MB moved", "GB/s", peak > 0 ? "of floor" : "");
  int bad = 0;
  const char *names[] = {"HSBCSR", "BSR"};
  const double floor_bytes[] = {
      8.0 * 36 * (double)(n + nup) + 4.0 * (2 * (double)(n + 1) + 3 * (double)nup) + 2 * 8.0 * (double)m,
      8.0 * 36 * (double)a.nnzb + 4.0 * ((double)(n + 1) + (double)a.nnzb) + 2 * 8.0 * (double)m};
  for (int f = 0; f < 2; f++) {
    cl_dda_solver s;
    cl_dda_solver_init(&s, &dev, (cl_dda_spmv_format)f);
    if (cl_dda_solver_load(&s, &a, &err) != CL_OK) return fail("load", &err);
    if (cl_dda_solver_spmv(&s, x, f == 0 ? ref : y, &err) != CL_OK) return fail("product", &err);
    if (f) bad |= check(names[f], y, ref, m, scale);
    s.A.parts = CL_DDA_WHOLE, s.A.in = s.A.p, s.A.out = s.A.q;
    double ms;
    if (bench_time_median(&dev, solver_product, &s, runs, &ms, &err) != CL_OK) return fail("timing", &err);
    double gbps = floor_bytes[f] / (ms * 1e-3) / 1e9;
    printf("%-10s %10.4f %10.2f %10.1f", names[f], ms, floor_bytes[f] / 1e6, gbps);
    if (peak > 0) printf(" %9.0f%%", 100 * gbps / peak);
    printf("\n");
    cl_dda_solver_free(&s);
  }
#ifdef CLEAVE_HAVE_CUDA
  if (dev.kind == CL_BACKEND_CUDA) {
    cusparse_run c = {.n = (int)n, .nnzb = (int)a.nnzb};
    void *bufs[5];
    size_t sizes[5] = {36 * a.nnzb * sizeof(double), (n + 1) * sizeof(int), a.nnzb * sizeof(int), m * sizeof(double),
                       m * sizeof(double)};
    const void *src[5] = {a.val, a.rowptr, a.col, x, NULL};
    for (int k = 0; k < 5; k++) {
      if (dev.alloc(&dev, &bufs[k], sizes[k], &err) != CL_OK) return fail("cusparse buffers", &err);
      if (src[k] && dev.to_device(&dev, bufs[k], src[k], sizes[k], &err) != CL_OK) return fail("upload", &err);
    }
    c.val = bufs[0], c.rowptr = bufs[1], c.col = bufs[2], c.x = bufs[3], c.y = bufs[4];
    if (cusparseCreate(&c.h) != CUSPARSE_STATUS_SUCCESS || cusparseCreateMatDescr(&c.descr) != CUSPARSE_STATUS_SUCCESS) {
      fprintf(stderr, "dda_spmv: cuSPARSE could not start\n");
      return 2;
    }
    double ms;
    if (bench_time_median(&dev, cusparse_product, &c, runs, &ms, &err) != CL_OK) return fail("cusparse", &err);
    if (dev.to_host(&dev, y, c.y, m * sizeof *y, &err) != CL_OK) return fail("download", &err);
    bad |= check("cuSPARSE BSR", y, ref, m, scale);
    double gbps = floor_bytes[1] / (ms * 1e-3) / 1e9;
    printf("%-10s %10.4f %10.2f %10.1f %9.0f%%\n", "cuSPARSE", ms, floor_bytes[1] / 1e6, gbps, 100 * gbps / peak);
    cusparseDestroyMatDescr(c.descr), cusparseDestroy(c.h);
    for (int k = 0; k < 5; k++) dev.release(&dev, bufs[k]);
  }
#endif
  free(x), free(ref), free(y);
  cl_dda_bsr_free(&a);
  cl_device_close(&dev);
  return bad;
}
