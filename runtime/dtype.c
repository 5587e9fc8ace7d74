#include "dtype.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static const struct {
  const char *name;
  size_t size;
} dtype_info[CL_DTYPE_COUNT] = {
    [CL_F32] = {"f32", 4}, [CL_F64] = {"f64", 8}, [CL_I32] = {"i32", 4},
    [CL_U32] = {"u32", 4}, [CL_U8] = {"u8", 1},
};

size_t cl_dtype_size(cl_dtype t) { return dtype_info[t].size; }
const char *cl_dtype_name(cl_dtype t) { return dtype_info[t].name; }

int cl_dtype_parse(const char *name) {
  for (int t = 0; t < CL_DTYPE_COUNT; t++)
    if (strcmp(name, dtype_info[t].name) == 0) return t;
  return -1;
}

double cl_dtype_get(cl_dtype t, const void *base, size_t i) {
  switch (t) {
    case CL_F32: return ((const float *)base)[i];
    case CL_F64: return ((const double *)base)[i];
    case CL_I32: return ((const int32_t *)base)[i];
    case CL_U32: return ((const uint32_t *)base)[i];
    case CL_U8: return ((const uint8_t *)base)[i];
    default: return 0;
  }
}

/* Clamps v into [lo, hi] (NaN -> 0), so the integer conversion below is defined. */
static double saturate(double v, double lo, double hi) {
  return isnan(v) ? 0 : v < lo ? lo : v > hi ? hi : v;
}

void cl_dtype_put(cl_dtype t, void *base, size_t i, double v) {
  switch (t) {
    case CL_F32: ((float *)base)[i] = (float)v; break;
    case CL_F64: ((double *)base)[i] = v; break;
    case CL_I32: ((int32_t *)base)[i] = (int32_t)saturate(v, INT32_MIN, INT32_MAX); break;
    case CL_U32: ((uint32_t *)base)[i] = (uint32_t)saturate(v, 0, UINT32_MAX); break;
    case CL_U8: ((uint8_t *)base)[i] = (uint8_t)saturate(v, 0, UINT8_MAX); break;
    default: break;
  }
}

int cl_dtype_fits(cl_dtype t, double v) {
  switch (t) {
    case CL_F32: return !(v > FLT_MAX || v < -FLT_MAX) || isinf(v) || isnan(v);
    case CL_F64: return 1;
    case CL_I32: return v > -2147483649.0 && v < 2147483648.0;
    case CL_U32: return v > -1.0 && v < 4294967296.0;
    case CL_U8: return v > -1.0 && v < 256.0;
    default: return 0;
  }
}
