/* Fields: typed device arrays of n rows x k components, stored as structure
 * of arrays (component c of row i at data[c*n + i]), with a host mirror that
 * is refreshed only when the device copy has changed since the last read. */
#ifndef CL_FIELD_H
#define CL_FIELD_H

#include <stddef.h>

#include "runtime.h"
#include "dtype.h"

/* Min, max and sums propagate NaN; CL_REDUCE_FIRST_NONFINITE gives the index
 * of the first NaN or infinite entry, +inf when there is none. */
typedef enum cl_reduce_op {
  CL_REDUCE_MIN = 0, CL_REDUCE_MAX, CL_REDUCE_SUM, CL_REDUCE_NORM2, CL_REDUCE_FIRST_NONFINITE
} cl_reduce_op;

typedef struct cl_field {
  cl_device_ref *device;
  cl_dtype dtype;
  size_t n;
  int k;
  void *data;     /* on the device */
  void *host;     /* mirror, allocated on first host read */
  int host_valid; /* mirror equals device data */
} cl_field;

/* Allocates an n x k field (contents zero). OOM errors say how much was
 * asked and how much the device has free. */
cl_status cl_field_create(cl_device_ref *dev, cl_dtype t, size_t n, int k, cl_field **out,
                          cl_error *err);
void cl_field_destroy(cl_field *f);

size_t cl_field_count(const cl_field *f); /* n * k */
size_t cl_field_bytes(const cl_field *f);
/* Device pointer to component c (SoA). */
void *cl_field_component(cl_field *f, int c);

/* Call after any kernel writes f on the device: the host mirror goes stale. */
void cl_field_touch(cl_field *f);
/* Exchanges the contents (device data and host mirrors) of two fields of the same dtype, rows and
 * components, without copying: stages that hold either field see the other's data when they next run
 * (a double buffer). */
void cl_field_swap_data(cl_field *f, cl_field *g);
/* Host mirror, refreshed from the device when stale. */
cl_status cl_field_host(cl_field *f, const void **host, cl_error *err);

cl_status cl_field_get(cl_field *f, size_t row, double *values, cl_error *err);
cl_status cl_field_set(cl_field *f, size_t row, const double *values, cl_error *err);
/* Whole-field copies between the device and a host SoA buffer of the field's dtype. */
cl_status cl_field_upload(cl_field *f, const void *host, cl_error *err);
cl_status cl_field_download(cl_field *f, void *host, cl_error *err);

cl_status cl_field_fill(cl_field *f, double value, cl_error *err);
/* Reduces component c (or all components when c < 0) on the device. */
cl_status cl_field_reduce(cl_field *f, cl_reduce_op op, int c, double *out, cl_error *err);
/* The first NaN or infinite entry of the field in storage order (component
 * by component): *found = 0 when every entry is finite, else 1 with its row
 * and component (0-based). One device reduction; nothing is copied. */
cl_status cl_field_first_nonfinite(cl_field *f, int *found, size_t *row, int *component, cl_error *err);
cl_status cl_field_clone(cl_field *f, cl_device_ref *dev, cl_field **out, cl_error *err);

#endif
