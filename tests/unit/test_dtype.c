/* Element types: sizes, names, parsing, and reading / writing host arrays
 * through cl_dtype_get / cl_dtype_put (conversion and truncation). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../runtime/dtype.h"

Test(dtype, sizes_match_the_c_types) {
  cr_assert_eq(cl_dtype_size(CL_F32), sizeof(float), "f32 is %zu bytes", cl_dtype_size(CL_F32));
  cr_assert_eq(cl_dtype_size(CL_F64), sizeof(double), "f64 is %zu bytes", cl_dtype_size(CL_F64));
  cr_assert_eq(cl_dtype_size(CL_I32), 4, "i32 is %zu bytes", cl_dtype_size(CL_I32));
  cr_assert_eq(cl_dtype_size(CL_U32), 4, "u32 is %zu bytes", cl_dtype_size(CL_U32));
  cr_assert_eq(cl_dtype_size(CL_U8), 1, "u8 is %zu bytes", cl_dtype_size(CL_U8));
}

Test(dtype, names) {
  cr_assert_str_eq(cl_dtype_name(CL_F32), "f32");
  cr_assert_str_eq(cl_dtype_name(CL_F64), "f64");
  cr_assert_str_eq(cl_dtype_name(CL_I32), "i32");
  cr_assert_str_eq(cl_dtype_name(CL_U32), "u32");
  cr_assert_str_eq(cl_dtype_name(CL_U8), "u8");
}

Test(dtype, parse_known_names) {
  cr_assert_eq(cl_dtype_parse("f32"), CL_F32);
  cr_assert_eq(cl_dtype_parse("f64"), CL_F64);
  cr_assert_eq(cl_dtype_parse("i32"), CL_I32);
  cr_assert_eq(cl_dtype_parse("u32"), CL_U32);
  cr_assert_eq(cl_dtype_parse("u8"), CL_U8);
}

Test(dtype, parse_is_the_inverse_of_name) {
  for (int t = 0; t < CL_DTYPE_COUNT; t++)
    cr_assert_eq(cl_dtype_parse(cl_dtype_name((cl_dtype)t)), t, "round trip of dtype %d", t);
}

Test(dtype, parse_unknown_is_minus_one) {
  const char *bad[] = {"", "f16", "f", "f320", "u", "u80", "int", "double", "f32 ", " f32"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(cl_dtype_parse(bad[i]), -1, "'%s' must not parse", bad[i]);
}

Test(dtype, get_reads_each_type_at_its_index) {
  float f[3] = {1.5f, -2.25f, 0.1f};
  double d[3] = {1.0 / 3.0, -1e300, 4.0};
  int32_t i[3] = {7, INT32_MIN, INT32_MAX};
  uint32_t u[3] = {1, UINT32_MAX, 123456789u};
  uint8_t b[3] = {0, 255, 17};
  cr_assert_eq(cl_dtype_get(CL_F32, f, 1), -2.25);
  cr_assert_eq(cl_dtype_get(CL_F32, f, 2), (double)0.1f);
  cr_assert_eq(cl_dtype_get(CL_F64, d, 0), 1.0 / 3.0);
  cr_assert_eq(cl_dtype_get(CL_F64, d, 1), -1e300);
  cr_assert_eq(cl_dtype_get(CL_I32, i, 1), (double)INT32_MIN);
  cr_assert_eq(cl_dtype_get(CL_I32, i, 2), (double)INT32_MAX);
  cr_assert_eq(cl_dtype_get(CL_U32, u, 1), 4294967295.0);
  cr_assert_eq(cl_dtype_get(CL_U32, u, 2), 123456789.0);
  cr_assert_eq(cl_dtype_get(CL_U8, b, 1), 255.0);
  cr_assert_eq(cl_dtype_get(CL_U8, b, 2), 17.0);
}

Test(dtype, put_writes_only_its_element) {
  /* a u8 write at index 2 of a 4-byte buffer touches byte 2 alone */
  uint8_t b[4] = {0xAA, 0xAA, 0xAA, 0xAA};
  cl_dtype_put(CL_U8, b, 2, 9);
  cr_assert(b[0] == 0xAA && b[1] == 0xAA && b[2] == 9 && b[3] == 0xAA,
            "bytes after put: %x %x %x %x", b[0], b[1], b[2], b[3]);
  double d[3] = {-1, -1, -1};
  cl_dtype_put(CL_F64, d, 1, 2.5);
  cr_assert(d[0] == -1 && d[1] == 2.5 && d[2] == -1, "f64 put at index 1: %g %g %g", d[0], d[1], d[2]);
}

Test(dtype, f64_round_trip_is_exact) {
  const double v[] = {0.0, -0.0, 1.0 / 3.0, 6.02214076e23, -1.6e-19, DBL_MAX, DBL_MIN};
  double buf[7];
  for (size_t i = 0; i < 7; i++) cl_dtype_put(CL_F64, buf, i, v[i]);
  for (size_t i = 0; i < 7; i++)
    cr_assert_eq(cl_dtype_get(CL_F64, buf, i), v[i], "element %zu: %.17g != %.17g", i,
                 cl_dtype_get(CL_F64, buf, i), v[i]);
}

Test(dtype, f32_round_trip_rounds_to_float) {
  const double v[] = {0.1, 1.0 / 3.0, -2.5, 16777217.0, 3.4e38};
  float buf[5];
  for (size_t i = 0; i < 5; i++) cl_dtype_put(CL_F32, buf, i, v[i]);
  for (size_t i = 0; i < 5; i++) {
    double want = (double)(float)v[i];
    cr_assert_eq(cl_dtype_get(CL_F32, buf, i), want, "element %zu: %.9g != %.9g", i,
                 cl_dtype_get(CL_F32, buf, i), want);
  }
  cr_assert_eq(cl_dtype_get(CL_F32, buf, 3), 16777216.0, "2^24+1 rounds to 2^24 in f32");
}

Test(dtype, i32_truncates_toward_zero) {
  const double in[] = {2.9, -2.9, 0.99, -0.99, 1e9, -2147483648.0, 2147483647.0};
  const double want[] = {2, -2, 0, 0, 1e9, -2147483648.0, 2147483647.0};
  int32_t buf[7];
  for (size_t i = 0; i < 7; i++) cl_dtype_put(CL_I32, buf, i, in[i]);
  for (size_t i = 0; i < 7; i++)
    cr_assert_eq(cl_dtype_get(CL_I32, buf, i), want[i], "i32 put %.17g read %.17g, want %.17g", in[i],
                 cl_dtype_get(CL_I32, buf, i), want[i]);
}

Test(dtype, u32_truncates_toward_zero) {
  const double in[] = {3.99, 0.5, 4294967295.0, 2147483648.5};
  const double want[] = {3, 0, 4294967295.0, 2147483648.0};
  uint32_t buf[4];
  for (size_t i = 0; i < 4; i++) cl_dtype_put(CL_U32, buf, i, in[i]);
  for (size_t i = 0; i < 4; i++)
    cr_assert_eq(cl_dtype_get(CL_U32, buf, i), want[i], "u32 put %.17g read %.17g, want %.17g", in[i],
                 cl_dtype_get(CL_U32, buf, i), want[i]);
}

Test(dtype, u8_truncates_toward_zero) {
  const double in[] = {7.7, 0.2, 255.0, 254.999};
  const double want[] = {7, 0, 255, 254};
  uint8_t buf[4];
  for (size_t i = 0; i < 4; i++) cl_dtype_put(CL_U8, buf, i, in[i]);
  for (size_t i = 0; i < 4; i++)
    cr_assert_eq(cl_dtype_get(CL_U8, buf, i), want[i], "u8 put %.17g read %.17g, want %.17g", in[i],
                 cl_dtype_get(CL_U8, buf, i), want[i]);
}
