#include "field.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/dispatch.h"

size_t cl_field_count(const cl_field *f) { return f->n * (size_t)f->k; }
size_t cl_field_bytes(const cl_field *f) { return cl_field_count(f) * cl_dtype_size(f->dtype); }

void *cl_field_component(cl_field *f, int c) {
  return (char *)f->data + (size_t)c * f->n * cl_dtype_size(f->dtype);
}

static cl_status out_of_device_memory(cl_device *dev, size_t bytes, cl_error *err) {
  cl_device_info info;
  char free_text[64] = "unknown";
  if (dev->info(dev, &info, NULL) == CL_OK && info.memory_free)
    snprintf(free_text, sizeof free_text, "%.3g GB", info.memory_free / 1e9);
  return cl_error_set(err, CL_ERR_OOM,
                      "%s: out of memory allocating a field of %.3g GB (%s free); use a coarser "
                      "discretisation, precision=\"f32\", or another device",
                      dev->name, bytes / 1e9, free_text);
}

cl_status cl_field_create(cl_device_ref *dev, cl_dtype t, size_t n, int k, cl_field **out,
                          cl_error *err) {
  if (k < 1) return cl_error_set(err, CL_ERR_ARG, "field components k must be >= 1 (got %d)", k);
  if (n > ((size_t)1 << 40) / (size_t)k)
    return cl_error_set(err, CL_ERR_ARG,
                        "field of %zu x %d %s entries (%.3g GB) exceeds the 2^40-entry limit", n, k,
                        cl_dtype_name(t), (double)n * (double)k * (double)cl_dtype_size(t) / 1e9);
  cl_field *f = calloc(1, sizeof *f);
  if (!f) return cl_error_set(err, CL_ERR_OOM, "out of host memory for a field header");
  f->dtype = t;
  f->n = n;
  f->k = k;
  size_t bytes = cl_field_bytes(f);
  if (dev->dev.alloc(&dev->dev, &f->data, bytes, NULL) != CL_OK) {
    free(f);
    return out_of_device_memory(&dev->dev, bytes, err);
  }
  f->device = cl_device_ref_retain(dev);
  cl_status s = cl_field_fill(f, 0.0, err);
  if (s != CL_OK) {
    cl_field_destroy(f);
    return s;
  }
  *out = f;
  return CL_OK;
}

void cl_field_destroy(cl_field *f) {
  if (!f) return;
  if (f->data) f->device->dev.release(&f->device->dev, f->data);
  cl_device_ref_release(f->device);
  free(f->host);
  free(f);
}

void cl_field_touch(cl_field *f) { f->host_valid = 0; }

void cl_field_swap_data(cl_field *f, cl_field *g) {
  void *data = f->data, *host = f->host;
  int valid = f->host_valid;
  f->data = g->data, f->host = g->host, f->host_valid = g->host_valid;
  g->data = data, g->host = host, g->host_valid = valid;
}

cl_status cl_field_host(cl_field *f, const void **host, cl_error *err) {
  if (!f->host) {
    f->host = malloc(cl_field_bytes(f) ? cl_field_bytes(f) : 1);
    if (!f->host) return cl_error_set(err, CL_ERR_OOM, "out of host memory for a field mirror");
    f->host_valid = 0;
  }
  if (!f->host_valid) {
    cl_device *d = &f->device->dev;
    CL_TRY(d->to_host(d, f->host, f->data, cl_field_bytes(f), err));
    f->host_valid = 1;
  }
  *host = f->host;
  return CL_OK;
}

static cl_status check_row(const cl_field *f, size_t row, cl_error *err) {
  if (row < f->n) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "row %zu out of range (field has %zu rows)", row, f->n);
}

cl_status cl_field_get(cl_field *f, size_t row, double *values, cl_error *err) {
  CL_TRY(check_row(f, row, err));
  const void *h;
  CL_TRY(cl_field_host(f, &h, err));
  for (int c = 0; c < f->k; c++) values[c] = cl_dtype_get(f->dtype, h, (size_t)c * f->n + row);
  return CL_OK;
}

cl_status cl_field_set(cl_field *f, size_t row, const double *values, cl_error *err) {
  CL_TRY(check_row(f, row, err));
  for (int c = 0; c < f->k; c++)
    if (!cl_dtype_fits(f->dtype, values[c]))
      return cl_error_set(err, CL_ERR_ARG, "value %g does not fit in a %s field", values[c], cl_dtype_name(f->dtype));
  cl_device *d = &f->device->dev;
  size_t es = cl_dtype_size(f->dtype);
  for (int c = 0; c < f->k; c++) {
    unsigned char elem[8];
    cl_dtype_put(f->dtype, elem, 0, values[c]);
    size_t at = ((size_t)c * f->n + row) * es;
    CL_TRY(d->to_device(d, (char *)f->data + at, elem, es, err));
    if (f->host && f->host_valid) memcpy((char *)f->host + at, elem, es);
  }
  return CL_OK;
}

cl_status cl_field_upload(cl_field *f, const void *host, cl_error *err) {
  cl_device *d = &f->device->dev;
  CL_TRY(d->to_device(d, f->data, host, cl_field_bytes(f), err));
  cl_field_touch(f);
  return CL_OK;
}

cl_status cl_field_download(cl_field *f, void *host, cl_error *err) {
  const void *h;
  CL_TRY(cl_field_host(f, &h, err));
  memcpy(host, h, cl_field_bytes(f));
  return CL_OK;
}

cl_status cl_field_fill(cl_field *f, double value, cl_error *err) {
  if (!cl_dtype_fits(f->dtype, value))
    return cl_error_set(err, CL_ERR_ARG, "value %g does not fit in a %s field", value, cl_dtype_name(f->dtype));
  CL_TRY(cl_k_fill(&f->device->dev, f->dtype, f->data, cl_field_count(f), value, err));
  cl_field_touch(f);
  return CL_OK;
}

cl_status cl_field_reduce(cl_field *f, cl_reduce_op op, int c, double *out, cl_error *err) {
  if (c >= f->k)
    return cl_error_set(err, CL_ERR_ARG, "component %d out of range (field has %d)", c + 1, f->k);
  const void *start = c < 0 ? f->data : cl_field_component(f, c);
  size_t count = c < 0 ? cl_field_count(f) : f->n;
  if (count == 0 && (op == CL_REDUCE_MIN || op == CL_REDUCE_MAX))
    return cl_error_set(err, CL_ERR_ARG, "min/max of an empty field is undefined");
  CL_TRY(cl_k_reduce(&f->device->dev, f->dtype, start, count, op, out, err));
  if (op == CL_REDUCE_NORM2) *out = sqrt(*out);
  return CL_OK;
}

cl_status cl_field_first_nonfinite(cl_field *f, int *found, size_t *row, int *component, cl_error *err) {
  *found = 0;
  if ((f->dtype != CL_F32 && f->dtype != CL_F64) || cl_field_count(f) == 0) return CL_OK; /* integers are finite */
  double index;
  CL_TRY(cl_k_reduce(&f->device->dev, f->dtype, f->data, cl_field_count(f), CL_REDUCE_FIRST_NONFINITE, &index, err));
  if (isinf(index)) return CL_OK;
  *found = 1;
  *row = (size_t)index % f->n;
  *component = (int)((size_t)index / f->n);
  return CL_OK;
}

cl_status cl_field_clone(cl_field *f, cl_device_ref *dev, cl_field **out, cl_error *err) {
  cl_field *g;
  CL_TRY(cl_field_create(dev, f->dtype, f->n, f->k, &g, err));
  cl_status s;
  if (cl_device_same(&dev->dev, &f->device->dev)) {
    s = dev->dev.copy(&dev->dev, g->data, f->data, cl_field_bytes(f), err);
  } else {
    const void *h;
    s = cl_field_host(f, &h, err);
    if (s == CL_OK) s = cl_field_upload(g, h, err);
  }
  if (s != CL_OK) {
    cl_field_destroy(g);
    return s;
  }
  cl_field_touch(g);
  *out = g;
  return CL_OK;
}
