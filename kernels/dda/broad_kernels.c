/* The broad phase's passes and primitives on a device (broad_kernels.h): the cpu's loops, the
 * dispatch to cuda. */
#include "broad_kernels.h"

#include <stdlib.h>

#include "../dispatch.h"
#include "host_parallel.h"

cl_status cl_k_dda_broad(cl_device *d, const cl_dda_broad_args *a, int pass, size_t items, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
#pragma omp parallel for schedule(dynamic, 64) if (items >= CL_DDA_PARALLEL_MIN)
    for (size_t k = 0; k < items; k++) cl_dda_broad_item(a, pass, k);
    return CL_OK;
  }
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_broad_cuda(a, pass, items)), "dda_broad", err);
}

/* The room CUB asks for, grown when it is more than s holds. */
static cl_status scratch_for(cl_device *d, cl_dda_scratch *s, size_t bytes, cl_error *err) {
  if (bytes <= s->bytes && s->p) return CL_OK;
  if (s->p) d->release(d, s->p), s->p = NULL, s->bytes = 0;
  CL_TRY(d->alloc(d, &s->p, bytes ? bytes : 8, err));
  s->bytes = bytes;
  return CL_OK;
}

static int u64_cmp(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

cl_status cl_k_dda_sort_keys(cl_device *d, cl_dda_scratch *s, uint64_t *keys, uint64_t *sorted, size_t n,
                             uint64_t max_key, cl_error *err) {
  if (n == 0) return CL_OK;
  if (d->kind == CL_BACKEND_CPU) {
    memcpy(sorted, keys, n * sizeof *keys);
    qsort(sorted, n, sizeof *sorted, u64_cmp);
    return CL_OK;
  }
  int end_bit = 1; /* the radix sort looks only at the bits a key can have */
  while (end_bit < 64 && max_key >> end_bit) end_bit++;
  size_t bytes = 0;
  CL_TRY(cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_sort_keys_cuda(NULL, &bytes, keys, sorted, n, end_bit)),
                           "dda_sort_keys", err));
  CL_TRY(scratch_for(d, s, bytes, err));
  bytes = s->bytes;
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_sort_keys_cuda(s->p, &bytes, keys, sorted, n, end_bit)),
                           "dda_sort_keys", err);
}

cl_status cl_k_dda_offsets(cl_device *d, cl_dda_scratch *s, const int64_t *count, int64_t *offset, size_t n,
                           int64_t *total, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
    offset[0] = 0;
    for (size_t k = 0; k < n; k++) offset[k + 1] = offset[k] + count[k];
    *total = offset[n];
    return CL_OK;
  }
  /* offset[0] = 0 by a launch: an upload from the host would wait for the device's queue first */
  CL_TRY(cl_k_fill(d, CL_U32, offset, 2, 0, err));
  if (n) {
    size_t bytes = 0;
    CL_TRY(cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_inclusive_sum_cuda(NULL, &bytes, count, offset + 1, n)),
                             "dda_offsets", err));
    CL_TRY(scratch_for(d, s, bytes, err));
    bytes = s->bytes;
    CL_TRY(cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_inclusive_sum_cuda(s->p, &bytes, count, offset + 1, n)),
                             "dda_offsets", err));
  }
  return d->to_host(d, total, offset + n, sizeof *total, err);
}
