/* The narrow phase on a device (narrow_kernels.h): the cpu's loops, the dispatch to cuda, and the
 * count - prefix sum - write sequence. */
#include "narrow_kernels.h"

#include <stdlib.h>

#include "../dispatch.h"
#include "host_parallel.h"

cl_status cl_k_dda_narrow(cl_device *d, const cl_dda_narrow_args *a, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
#pragma omp parallel for schedule(dynamic, 64) if (a->npairs >= CL_DDA_PARALLEL_MIN)
    for (size_t k = 0; k < a->npairs; k++) {
      int32_t i = a->pairs[2 * k], j = a->pairs[2 * k + 1];
      if (a->count) a->count[k] = cl_dda_pair_contacts(&a->g, i, j, a->d0, NULL, 0);
      else cl_dda_pair_contacts(&a->g, i, j, a->d0, a->out + a->offset[k], (int)(a->offset[k + 1] - a->offset[k]));
    }
    return CL_OK;
  }
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_narrow_cuda(a)), "dda_narrow", err);
}

cl_status cl_dda_narrow_found_on(cl_device *d, const cl_dda_geometry *g, const int32_t *pairs, size_t npairs,
                                 double d0, cl_dda_found **found, size_t *nfound, cl_error *err) {
  *nfound = 0;
  if (npairs == 0) return CL_OK;
  int32_t *count = malloc(npairs * sizeof *count);
  int64_t *offset = malloc((npairs + 1) * sizeof *offset);
  void *dev_pairs = NULL, *dev_count = NULL, *dev_offset = NULL, *dev_out = NULL;
  cl_status st = CL_OK;
  if (!count || !offset) st = cl_error_set(err, CL_ERR_OOM, "DDA narrow phase: out of memory for %zu pairs", npairs);
  if (st == CL_OK) st = d->alloc(d, &dev_pairs, 2 * npairs * sizeof *pairs, err);
  if (st == CL_OK) st = d->alloc(d, &dev_count, npairs * sizeof *count, err);
  if (st == CL_OK) st = d->alloc(d, &dev_offset, (npairs + 1) * sizeof *offset, err);
  if (st == CL_OK) st = d->to_device(d, dev_pairs, pairs, 2 * npairs * sizeof *pairs, err);
  cl_dda_narrow_args a = {*g, dev_pairs, npairs, d0, dev_count, dev_offset, NULL};
  if (st == CL_OK) st = cl_k_dda_narrow(d, &a, err);
  if (st == CL_OK) st = d->to_host(d, count, dev_count, npairs * sizeof *count, err);
  if (st == CL_OK) {
    offset[0] = 0;
    for (size_t k = 0; k < npairs; k++) offset[k + 1] = offset[k] + count[k];
    *nfound = (size_t)offset[npairs];
    cl_dda_found *f = realloc(*found, (*nfound ? *nfound : 1) * sizeof *f);
    if (f) *found = f;
    else st = cl_error_set(err, CL_ERR_OOM, "DDA narrow phase: out of memory for %zu contacts", *nfound);
  }
  if (st == CL_OK && *nfound) st = d->alloc(d, &dev_out, *nfound * sizeof **found, err);
  if (st == CL_OK) st = d->to_device(d, dev_offset, offset, (npairs + 1) * sizeof *offset, err);
  a.count = NULL, a.out = dev_out;
  if (st == CL_OK && *nfound) st = cl_k_dda_narrow(d, &a, err);
  if (st == CL_OK && *nfound) st = d->to_host(d, *found, dev_out, *nfound * sizeof **found, err);
  if (st != CL_OK) *nfound = 0;
  void *dev[] = {dev_pairs, dev_count, dev_offset, dev_out};
  for (int k = 0; k < 4; k++)
    if (dev[k]) d->release(d, dev[k]);
  free(count), free(offset);
  return st;
}
