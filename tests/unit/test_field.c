/* Fields on the cpu device: creation, structure-of-arrays layout, row access,
 * whole-field copies, fill, reductions against values computed here, clone,
 * the host mirror, and refusal of impossible sizes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/field.h"
#include "lcg.h"

static cl_runtime rt;
static cl_error err;

static void setup(void) {
  memset(&err, 0, sizeof err);
  if (cl_runtime_init(&rt, "cpu") != CL_OK) cr_assert_fail("cpu runtime: %s", rt.err.msg);
}

static void teardown(void) { cl_runtime_release(&rt); }

TestSuite(field, .init = setup, .fini = teardown);


static cl_field *make(cl_dtype t, size_t n, int k) {
  cl_field *f = NULL;
  cl_status s = cl_field_create(rt.device, t, n, k, &f, &err);
  cr_assert_eq(s, CL_OK, "create %s %zu x %d: %s", cl_dtype_name(t), n, k, err.msg);
  cr_assert_not_null(f);
  return f;
}

/* ---- creation and layout ------------------------------------------------- */

Test(field, create_every_dtype_zero_filled) {
  for (int t = 0; t < CL_DTYPE_COUNT; t++) {
    const size_t n = 37;
    const int k = 3;
    cl_field *f = make((cl_dtype)t, n, k);
    cr_assert_eq(f->dtype, (cl_dtype)t);
    cr_assert_eq(f->n, n);
    cr_assert_eq(f->k, k);
    cr_assert_eq(cl_field_count(f), n * k);
    cr_assert_eq(cl_field_bytes(f), n * k * cl_dtype_size((cl_dtype)t), "%s bytes", cl_dtype_name(t));
    cr_assert_eq(f->device, rt.device, "field on the runtime's device");
    unsigned char buf[37 * 3 * 8];
    memset(buf, 0xAB, sizeof buf);
    cr_assert_eq(cl_field_download(f, buf, &err), CL_OK, "%s", err.msg);
    for (size_t i = 0; i < n * k; i++)
      cr_assert_eq(cl_dtype_get((cl_dtype)t, buf, i), 0.0, "%s element %zu is not zero", cl_dtype_name(t), i);
    cl_field_destroy(f);
  }
}

Test(field, create_holds_a_device_reference) {
  cr_assert_eq(rt.device->refs, 1);
  cl_field *f = make(CL_F32, 4, 1);
  cr_assert_eq(rt.device->refs, 2, "a field retains its device");
  cl_field_destroy(f);
  cr_assert_eq(rt.device->refs, 1, "destroy releases it");
  cl_field_destroy(NULL); /* a no-op */
}

Test(field, zero_components_is_an_argument_error) {
  cl_field *f = NULL;
  cr_assert_eq(cl_field_create(rt.device, CL_F64, 10, 0, &f, &err), CL_ERR_ARG);
  cr_assert_null(f, "no field on failure");
  cr_assert_not_null(strstr(err.msg, "k"), "message names k: %s", err.msg);
}

Test(field, components_are_stored_one_after_another) {
  const size_t n = 5;
  const int k = 3;
  cl_field *f = make(CL_F64, n, k);
  for (size_t i = 0; i < n; i++) {
    double row[3] = {(double)i, 100.0 + (double)i, 200.0 + (double)i};
    cr_assert_eq(cl_field_set(f, i, row, &err), CL_OK, "%s", err.msg);
  }
  for (int c = 0; c < k; c++) {
    double *comp = cl_field_component(f, c);
    cr_assert_eq((char *)comp, (char *)f->data + (size_t)c * n * sizeof(double),
                 "component %d starts at c*n elements", c);
    /* on the cpu device, device memory is host memory */
    for (size_t i = 0; i < n; i++)
      cr_assert_eq(comp[i], 100.0 * c + (double)i, "component %d row %zu = %g", c, i, comp[i]);
  }
  double host[15];
  cr_assert_eq(cl_field_download(f, host, &err), CL_OK, "%s", err.msg);
  for (int c = 0; c < k; c++)
    for (size_t i = 0; i < n; i++)
      cr_assert_eq(host[(size_t)c * n + i], 100.0 * c + (double)i, "host[%d*n+%zu]", c, i);
  cl_field_destroy(f);
}

Test(field, component_pointer_scales_with_dtype) {
  cl_field *f = make(CL_U8, 7, 4);
  cr_assert_eq((char *)cl_field_component(f, 3), (char *)f->data + 21, "u8: 3 * 7 bytes");
  cl_field_destroy(f);
  f = make(CL_F32, 7, 4);
  cr_assert_eq((char *)cl_field_component(f, 2), (char *)f->data + 56, "f32: 2 * 7 * 4 bytes");
  cl_field_destroy(f);
}

/* ---- rows ---------------------------------------------------------------- */

Test(field, set_and_get_rows) {
  cl_field *f = make(CL_F64, 10, 2);
  double a[2] = {1.25, -3.5}, b[2] = {1e-300, 7};
  cr_assert_eq(cl_field_set(f, 3, a, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_field_set(f, 9, b, &err), CL_OK, "%s", err.msg);
  double got[2];
  cr_assert_eq(cl_field_get(f, 3, got, &err), CL_OK, "%s", err.msg);
  cr_assert(got[0] == 1.25 && got[1] == -3.5, "row 3 = {%g, %g}", got[0], got[1]);
  cr_assert_eq(cl_field_get(f, 9, got, &err), CL_OK, "%s", err.msg);
  cr_assert(got[0] == 1e-300 && got[1] == 7, "row 9 = {%g, %g}", got[0], got[1]);
  for (size_t i = 0; i < 10; i++) {
    if (i == 3 || i == 9) continue;
    cr_assert_eq(cl_field_get(f, i, got, &err), CL_OK, "%s", err.msg);
    cr_assert(got[0] == 0 && got[1] == 0, "row %zu untouched = {%g, %g}", i, got[0], got[1]);
  }
  cl_field_destroy(f);
}

Test(field, set_converts_to_the_dtype) {
  cl_field *f = make(CL_I32, 4, 2);
  double v[2] = {1.9, -7.2}, got[2];
  cr_assert_eq(cl_field_set(f, 2, v, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_field_get(f, 2, got, &err), CL_OK, "%s", err.msg);
  cr_assert(got[0] == 1 && got[1] == -7, "i32 row = {%g, %g}, want {1, -7}", got[0], got[1]);
  cl_field_destroy(f);

  f = make(CL_F32, 3, 1);
  double x = 0.1;
  cr_assert_eq(cl_field_set(f, 0, &x, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_field_get(f, 0, got, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(got[0], (double)0.1f, "f32 stores 0.1 as %.9g", got[0]);
  cl_field_destroy(f);
}

Test(field, set_after_a_host_read_updates_the_mirror) {
  cl_field *f = make(CL_F64, 6, 1);
  const void *h;
  cr_assert_eq(cl_field_host(f, &h, &err), CL_OK, "%s", err.msg);
  double v = 4.5, got = 0;
  cr_assert_eq(cl_field_set(f, 5, &v, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_field_get(f, 5, &got, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(got, 4.5, "get after set sees the new value (got %g)", got);
  cr_assert_eq(cl_field_host(f, &h, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(((const double *)h)[5], 4.5, "the mirror holds the new value");
  cr_assert_eq(((const double *)f->data)[5], 4.5, "and so does the device");
  cl_field_destroy(f);
}

/* ---- whole-field copies -------------------------------------------------- */

Test(field, upload_download_round_trip_every_dtype) {
  enum { N = 53, K = 2 };
  lcg_seed(12345);
  for (int t = 0; t < CL_DTYPE_COUNT; t++) {
    cl_field *f = make((cl_dtype)t, N, K);
    unsigned char src[N * K * 8], back[N * K * 8];
    for (size_t i = 0; i < N * K; i++)
      cl_dtype_put((cl_dtype)t, src, i, t == CL_I32 ? lcg_uniform(-1e6, 1e6) : lcg_uniform(0, 250));
    cr_assert_eq(cl_field_upload(f, src, &err), CL_OK, "%s", err.msg);
    memset(back, 0, sizeof back);
    cr_assert_eq(cl_field_download(f, back, &err), CL_OK, "%s", err.msg);
    cr_assert_arr_eq(back, src, cl_field_bytes(f), "%s round trip", cl_dtype_name(t));
    /* rows read through get agree with the SoA buffer */
    double row[K];
    cr_assert_eq(cl_field_get(f, 17, row, &err), CL_OK, "%s", err.msg);
    for (int c = 0; c < K; c++)
      cr_assert_eq(row[c], cl_dtype_get((cl_dtype)t, src, (size_t)c * N + 17), "%s row 17 comp %d",
                   cl_dtype_name(t), c);
    cl_field_destroy(f);
  }
}

Test(field, upload_after_a_host_read_is_seen) {
  cl_field *f = make(CL_F32, 3, 1);
  const void *h;
  cr_assert_eq(cl_field_host(f, &h, &err), CL_OK, "%s", err.msg);
  const float src[3] = {1, 2, 3};
  cr_assert_eq(cl_field_upload(f, src, &err), CL_OK, "%s", err.msg);
  float back[3];
  cr_assert_eq(cl_field_download(f, back, &err), CL_OK, "%s", err.msg);
  cr_assert(back[0] == 1 && back[1] == 2 && back[2] == 3, "download after upload: %g %g %g", back[0],
            back[1], back[2]);
  cl_field_destroy(f);
}

/* ---- fill ---------------------------------------------------------------- */

Test(field, fill_sets_every_entry) {
  cl_field *f = make(CL_F32, 41, 3);
  cr_assert_eq(cl_field_fill(f, 2.5, &err), CL_OK, "%s", err.msg);
  float buf[41 * 3];
  cr_assert_eq(cl_field_download(f, buf, &err), CL_OK, "%s", err.msg);
  for (size_t i = 0; i < 41 * 3; i++) cr_assert_eq(buf[i], 2.5f, "entry %zu = %g", i, buf[i]);
  cl_field_destroy(f);
}

Test(field, fill_converts_to_the_dtype) {
  cl_field *f = make(CL_U8, 9, 1);
  cr_assert_eq(cl_field_fill(f, 3.7, &err), CL_OK, "%s", err.msg);
  uint8_t buf[9];
  cr_assert_eq(cl_field_download(f, buf, &err), CL_OK, "%s", err.msg);
  for (int i = 0; i < 9; i++) cr_assert_eq(buf[i], 3, "u8 fill 3.7 gives %d", buf[i]);
  cl_field_destroy(f);
}

Test(field, fill_after_a_host_read_is_seen) {
  cl_field *f = make(CL_F64, 4, 1);
  double got;
  cr_assert_eq(cl_field_get(f, 0, &got, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(got, 0.0);
  cr_assert_eq(cl_field_fill(f, -9, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_field_get(f, 0, &got, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(got, -9.0, "fill marks the mirror stale (got %g)", got);
  cl_field_destroy(f);
}

/* ---- reductions ---------------------------------------------------------- */

typedef struct expected {
  double min, max, sum, sumsq, abssum;
} expected;

static expected expect_over(const void *h, cl_dtype t, size_t first, size_t count) {
  expected e = {INFINITY, -INFINITY, 0, 0, 0};
  for (size_t i = first; i < first + count; i++) {
    double v = cl_dtype_get(t, h, i);
    if (v < e.min) e.min = v;
    if (v > e.max) e.max = v;
    e.sum += v;
    e.sumsq += v * v;
    e.abssum += fabs(v);
  }
  return e;
}

static double reduce(cl_field *f, cl_reduce_op op, int c) {
  double out = NAN;
  cl_status s = cl_field_reduce(f, op, c, &out, &err);
  cr_assert_eq(s, CL_OK, "reduce op %d comp %d: %s", op, c, err.msg);
  return out;
}

/* min/max exact; sum within rel of the sum of |x|; norm within rel. */
static void check_reductions(cl_field *f, const void *h, double rel) {
  for (int c = -1; c < f->k; c++) {
    size_t first = c < 0 ? 0 : (size_t)c * f->n, count = c < 0 ? cl_field_count(f) : f->n;
    expected e = expect_over(h, f->dtype, first, count);
    double mn = reduce(f, CL_REDUCE_MIN, c), mx = reduce(f, CL_REDUCE_MAX, c);
    double sum = reduce(f, CL_REDUCE_SUM, c), norm = reduce(f, CL_REDUCE_NORM2, c);
    cr_assert_eq(mn, e.min, "%s min (comp %d): %.17g != %.17g", cl_dtype_name(f->dtype), c, mn, e.min);
    cr_assert_eq(mx, e.max, "%s max (comp %d): %.17g != %.17g", cl_dtype_name(f->dtype), c, mx, e.max);
    cr_assert_leq(fabs(sum - e.sum), rel * e.abssum, "%s sum (comp %d): %.17g != %.17g",
                  cl_dtype_name(f->dtype), c, sum, e.sum);
    double want_norm = sqrt(e.sumsq);
    cr_assert_leq(fabs(norm - want_norm), rel * want_norm, "%s norm (comp %d): %.17g != %.17g",
                  cl_dtype_name(f->dtype), c, norm, want_norm);
  }
}

Test(field, reductions_f64_match_a_serial_loop) {
  enum { N = 1000, K = 3 };
  cl_field *f = make(CL_F64, N, K);
  static double h[N * K];
  lcg_seed(2024);
  for (size_t i = 0; i < N * K; i++) h[i] = lcg_uniform(-1, 1) * (double)(1 + i % 7);
  cr_assert_eq(cl_field_upload(f, h, &err), CL_OK, "%s", err.msg);
  check_reductions(f, h, 1e-12);
  cl_field_destroy(f);
}

Test(field, reductions_f32_accumulate_in_double) {
  enum { N = 4099, K = 2 };
  cl_field *f = make(CL_F32, N, K);
  static float h[N * K];
  lcg_seed(99);
  for (size_t i = 0; i < N * K; i++) h[i] = (float)lcg_uniform(-50, 150);
  cr_assert_eq(cl_field_upload(f, h, &err), CL_OK, "%s", err.msg);
  check_reductions(f, h, 1e-6);
  cl_field_destroy(f);
}

Test(field, f32_sum_is_not_float_accumulated) {
  /* 2^24 + 1 + 1 + ... : a float accumulator would lose every 1 */
  enum { N = 1001 };
  static float h[N];
  h[0] = 16777216.0f;
  for (int i = 1; i < N; i++) h[i] = 1.0f;
  cl_field *f = make(CL_F32, N, 1);
  cr_assert_eq(cl_field_upload(f, h, &err), CL_OK, "%s", err.msg);
  double sum = reduce(f, CL_REDUCE_SUM, -1);
  cr_assert_eq(sum, 16777216.0 + 1000.0, "sum %.17g", sum);
  cl_field_destroy(f);
}

Test(field, reductions_of_integer_fields_are_exact) {
  enum { N = 500, K = 2 };
  cl_field *f = make(CL_I32, N, K);
  static int32_t h[N * K];
  lcg_seed(7);
  for (size_t i = 0; i < N * K; i++) h[i] = (int32_t)lcg_uniform(-100000, 100000);
  cr_assert_eq(cl_field_upload(f, h, &err), CL_OK, "%s", err.msg);
  check_reductions(f, h, 0);
  cl_field_destroy(f);

  cl_field *g = make(CL_U8, 300, 1);
  uint8_t b[300];
  for (int i = 0; i < 300; i++) b[i] = (uint8_t)((i * 7) % 256);
  cr_assert_eq(cl_field_upload(g, b, &err), CL_OK, "%s", err.msg);
  check_reductions(g, b, 0);
  cl_field_destroy(g);
}

Test(field, reduce_of_a_known_field) {
  /* rows (1, -2), (3, 4), (-5, 6): hand-computed values */
  cl_field *f = make(CL_F64, 3, 2);
  const double h[6] = {1, 3, -5, -2, 4, 6};
  cr_assert_eq(cl_field_upload(f, h, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(reduce(f, CL_REDUCE_MIN, -1), -5.0);
  cr_assert_eq(reduce(f, CL_REDUCE_MAX, -1), 6.0);
  cr_assert_eq(reduce(f, CL_REDUCE_SUM, -1), 7.0);
  cr_assert_float_eq(reduce(f, CL_REDUCE_NORM2, -1), sqrt(91.0), 1e-14);
  cr_assert_eq(reduce(f, CL_REDUCE_MIN, 1), -2.0, "component 2 (index 1) min");
  cr_assert_eq(reduce(f, CL_REDUCE_MAX, 0), 3.0, "component 1 (index 0) max");
  cr_assert_eq(reduce(f, CL_REDUCE_SUM, 0), -1.0);
  cr_assert_eq(reduce(f, CL_REDUCE_SUM, 1), 8.0);
  cr_assert_float_eq(reduce(f, CL_REDUCE_NORM2, 1), sqrt(56.0), 1e-14);
  cl_field_destroy(f);
}

Test(field, min_of_an_empty_field_is_an_error) {
  cl_field *f = make(CL_F64, 0, 1);
  cr_assert_eq(cl_field_count(f), 0);
  double out = 123;
  cr_assert_eq(cl_field_reduce(f, CL_REDUCE_MIN, -1, &out, &err), CL_ERR_ARG);
  cr_assert_not_null(strstr(err.msg, "empty"), "message: %s", err.msg);
  cr_assert_eq(cl_field_reduce(f, CL_REDUCE_MAX, 0, &out, &err), CL_ERR_ARG);
  cr_assert_eq(cl_field_reduce(f, CL_REDUCE_SUM, -1, &out, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(out, 0.0, "the empty sum is zero");
  cr_assert_eq(cl_field_reduce(f, CL_REDUCE_NORM2, -1, &out, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(out, 0.0, "the empty norm is zero");
  cl_field_destroy(f);
}

Test(field, component_out_of_range_is_an_error) {
  cl_field *f = make(CL_F64, 4, 2);
  double out = 0;
  cr_assert_eq(cl_field_reduce(f, CL_REDUCE_SUM, 2, &out, &err), CL_ERR_ARG);
  cr_assert_eq(err.code, CL_ERR_ARG);
  cr_assert_not_null(strstr(err.msg, "out of range"), "message: %s", err.msg);
  cr_assert_eq(cl_field_reduce(f, CL_REDUCE_MIN, 99, &out, &err), CL_ERR_ARG);
  cl_field_destroy(f);
}

/* ---- clone --------------------------------------------------------------- */

Test(field, clone_on_the_same_device_is_an_independent_copy) {
  cl_field *f = make(CL_F64, 20, 2);
  double h[40];
  for (int i = 0; i < 40; i++) h[i] = i * 0.5 - 3;
  cr_assert_eq(cl_field_upload(f, h, &err), CL_OK, "%s", err.msg);
  cl_field *g = NULL;
  cr_assert_eq(cl_field_clone(f, rt.device, &g, &err), CL_OK, "%s", err.msg);
  cr_assert_neq(g, f);
  cr_assert_neq(g->data, f->data, "the clone has its own storage");
  cr_assert(g->dtype == f->dtype && g->n == f->n && g->k == f->k, "same shape and dtype");
  double back[40];
  cr_assert_eq(cl_field_download(g, back, &err), CL_OK, "%s", err.msg);
  cr_assert_arr_eq(back, h, sizeof h, "clone holds the same values");
  cr_assert_eq(cl_field_fill(g, 1, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_field_download(f, back, &err), CL_OK, "%s", err.msg);
  cr_assert_arr_eq(back, h, sizeof h, "changing the clone leaves the original");
  cl_field_destroy(g);
  cl_field_destroy(f);
}

Test(field, clone_onto_another_device_reference) {
  cl_field *f = make(CL_I32, 8, 1);
  int32_t h[8] = {5, -4, 3, -2, 1, 0, 100, -100};
  cr_assert_eq(cl_field_upload(f, h, &err), CL_OK, "%s", err.msg);
  cl_device_ref *old = rt.device;
  cr_assert_eq(cl_runtime_set_device(&rt, "cpu"), CL_OK, "%s", rt.err.msg);
  cr_assert_neq(rt.device, old);
  cl_field *g = NULL;
  cr_assert_eq(cl_field_clone(f, rt.device, &g, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(g->device, rt.device, "the clone lives on the target device");
  int32_t back[8];
  cr_assert_eq(cl_field_download(g, back, &err), CL_OK, "%s", err.msg);
  cr_assert_arr_eq(back, h, sizeof h);
  cl_field_destroy(g);
  cl_field_destroy(f);
}

/* ---- host mirror --------------------------------------------------------- */

Test(field, host_mirror_is_cached_until_touched) {
  cl_field *f = make(CL_F64, 4, 1);
  const void *h1, *h2;
  cr_assert_eq(cl_field_host(f, &h1, &err), CL_OK, "%s", err.msg);
  cr_assert_neq(h1, f->data, "the mirror is a separate copy");
  cr_assert_eq(((const double *)h1)[2], 0.0);
  /* a "kernel" writes the device copy directly (cpu device memory is host memory) */
  ((double *)f->data)[2] = 42;
  cr_assert_eq(cl_field_host(f, &h2, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(h2, h1, "the mirror is reused");
  cr_assert_eq(((const double *)h2)[2], 0.0, "without touch the mirror is not re-read");
  cl_field_touch(f);
  cr_assert_eq(f->host_valid, 0, "touch marks the mirror stale");
  cr_assert_eq(cl_field_host(f, &h2, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(((const double *)h2)[2], 42.0, "after touch the mirror is refreshed");
  double got = 0;
  cr_assert_eq(cl_field_get(f, 2, &got, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(got, 42.0, "get reads the refreshed mirror");
  cl_field_destroy(f);
}

/* ---- impossible sizes ---------------------------------------------------- */

/* Under -DCLEAVE_SANITIZE=ON, AddressSanitizer aborts on a multi-TB request
 * instead of returning NULL as malloc does; ask it to behave like malloc so
 * that the huge-allocation test checks the library, not the sanitizer. */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static int overcommit_always(void) {
  FILE *p = fopen("/proc/sys/vm/overcommit_memory", "r");
  int mode = 0;
  if (p) {
    if (fscanf(p, "%d", &mode) != 1) mode = 0;
    fclose(p);
  }
  return mode == 1;
}

Test(field, huge_allocation_fails_with_a_size_in_GB) {
  /* 2^39 f64 = 4.4 TB: more than any test machine has */
  if (overcommit_always()) cr_skip_test("vm.overcommit_memory=1 would let a 4 TB allocation succeed");
  cl_field *f = NULL;
  cl_status s = cl_field_create(rt.device, CL_F64, (size_t)1 << 39, 1, &f, &err);
  cr_assert(s == CL_ERR_OOM || s == CL_ERR_ARG, "status %d (%s): %s", s, cl_status_name(s), err.msg);
  cr_assert_null(f, "no field on failure");
  cr_assert_not_null(strstr(err.msg, "GB"), "message should give the size in GB: %s", err.msg);
  cr_assert_eq(rt.device->refs, 1, "a failed create holds no device reference");
}

Test(field, beyond_the_size_limit_fails_with_a_size_in_GB) {
  /* 2^41 rows x 4 components: refused before any allocation is tried */
  cl_field *f = NULL;
  cl_status s = cl_field_create(rt.device, CL_F64, (size_t)1 << 41, 4, &f, &err);
  cr_assert(s == CL_ERR_OOM || s == CL_ERR_ARG, "status %d (%s): %s", s, cl_status_name(s), err.msg);
  cr_assert_null(f, "no field on failure");
  cr_assert_not_null(strstr(err.msg, "GB"), "message should give the size in GB: %s", err.msg);
}

Test(field, size_overflow_is_refused) {
  /* n * k * 8 wraps around size_t: must be refused, not allocated small */
  cl_field *f = NULL;
  cl_status s = cl_field_create(rt.device, CL_F64, SIZE_MAX / 4, 3, &f, &err);
  cr_assert(s == CL_ERR_OOM || s == CL_ERR_ARG, "status %d (%s): %s", s, cl_status_name(s), err.msg);
  cr_assert_null(f, "no field on failure");
}
