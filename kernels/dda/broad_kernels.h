/* The device's share of DDA contact detection (detect.h): the broad phase's passes (broad.h), and
 * the two primitives its count - offsets - write sequences need, a sort of 64-bit keys and the
 * offsets of counts, on the cpu (loops) or on cuda (kernels, CUB). */
#ifndef CL_DDA_BROAD_KERNELS_H
#define CL_DDA_BROAD_KERNELS_H

#include "broad.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __CUDACC__
#include "../../runtime/device.h"

/* CUB's temporary storage on a device, grown as needed and kept for the next call. */
typedef struct cl_dda_scratch {
  void *p;
  size_t bytes;
} cl_dda_scratch;

/* One pass over its items (n blocks, the cells + 1, the entries or the pairs). */
cl_status cl_k_dda_broad(cl_device *d, const cl_dda_broad_args *a, int pass, size_t items, cl_error *err);
/* sorted = keys in ascending order (keys is left as it was or used as room); every key <= max_key. */
cl_status cl_k_dda_sort_keys(cl_device *d, cl_dda_scratch *s, uint64_t *keys, uint64_t *sorted, size_t n,
                             uint64_t max_key, cl_error *err);
/* offset[0] = 0, offset[k + 1] = count[0] + ... + count[k] (n + 1 entries); *total = offset[n], read back. */
cl_status cl_k_dda_offsets(cl_device *d, cl_dda_scratch *s, const int64_t *count, int64_t *offset, size_t n,
                           int64_t *total, cl_error *err);
#endif

int cl_dda_broad_cuda(const cl_dda_broad_args *a, int pass, size_t items);
/* temp == NULL: *temp_bytes = the room needed */
int cl_dda_sort_keys_cuda(void *temp, size_t *temp_bytes, const uint64_t *keys, uint64_t *sorted, size_t n,
                          int end_bit);
int cl_dda_inclusive_sum_cuda(void *temp, size_t *temp_bytes, const int64_t *count, int64_t *sums, size_t n);

#ifdef __cplusplus
}
#endif

#endif
