/* Checkpoint files: named scalars (step, time, parameters) and named arrays
 * (fields, structure of arrays) in one binary file, written atomically and
 * protected by a checksum so a truncated or corrupted file is refused.
 *
 * Layout (little-endian): "CLVCKPT1", u32 version, u32 nvalues, u32 narrays;
 * per value: u16 name length, name, f64; per array: u16 name length, name,
 * u8 dtype, 3 pad bytes, u32 k, u64 n, n*k elements; then the u64 FNV-1a
 * hash of every byte before it. */
#ifndef CL_CHECKPOINT_H
#define CL_CHECKPOINT_H

#include <stddef.h>

#include "../dtype.h"
#include "../status.h"

typedef struct cl_checkpoint_value {
  const char *name;
  double value;
} cl_checkpoint_value;

typedef struct cl_checkpoint_array {
  const char *name;
  cl_dtype dtype;
  size_t n;
  int k;
  const void *data; /* host, SoA */
} cl_checkpoint_array;

cl_status cl_checkpoint_write(const char *path, size_t nvalues, const cl_checkpoint_value *values,
                              size_t narrays, const cl_checkpoint_array *arrays, cl_error *err);

/* A checkpoint read back whole; names and data point into its buffer. */
typedef struct cl_checkpoint {
  size_t nvalues, narrays;
  cl_checkpoint_value *values;
  cl_checkpoint_array *arrays;
  unsigned char *buffer;
} cl_checkpoint;

cl_status cl_checkpoint_read(const char *path, cl_checkpoint **out, cl_error *err);
void cl_checkpoint_free(cl_checkpoint *ck);

#endif
