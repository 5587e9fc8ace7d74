/* The narrow phase (narrow.h) over candidate pairs on a device: one pass counts each pair's
 * contacts, a second writes them at given offsets, so that the list is the pairs' in order,
 * the same on the cpu and on cuda (f64). */
#ifndef CL_DDA_NARROW_KERNELS_H
#define CL_DDA_NARROW_KERNELS_H

#include "narrow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pointers on the device. count == NULL: write pass (out at offset[k] .. offset[k + 1] for pair k);
 * else count pass (count[k] = pair k's contacts). known[k]: pair k's first tasks' counts
 * (cl_dda_task_count_bits), written by the count pass, read by the write pass. detect.h runs the
 * sequence. */
typedef struct cl_dda_narrow_args {
  cl_dda_geometry g;
  const int32_t *pairs; /* 2 npairs */
  size_t npairs;
  double d0;
  int64_t *count;
  uint64_t *known;       /* npairs */
  const int64_t *offset; /* npairs + 1 */
  cl_dda_found *out;
} cl_dda_narrow_args;

#ifndef __CUDACC__
#include "../../runtime/device.h"

cl_status cl_k_dda_narrow(cl_device *d, const cl_dda_narrow_args *a, cl_error *err);

#endif

int cl_dda_narrow_cuda(const cl_dda_narrow_args *a);

#ifdef __cplusplus
}
#endif

#endif
