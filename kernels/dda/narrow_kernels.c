/* The narrow phase on a device (narrow_kernels.h): the cpu's loops and the dispatch to cuda. */
#include "narrow_kernels.h"

#include "../dispatch.h"
#include "host_parallel.h"

cl_status cl_k_dda_narrow(cl_device *d, const cl_dda_narrow_args *a, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
#pragma omp parallel for schedule(dynamic, 64) if (a->npairs >= CL_DDA_PARALLEL_MIN)
    for (size_t k = 0; k < a->npairs; k++) {
      int32_t i = a->pairs[2 * k], j = a->pairs[2 * k + 1];
      if (a->count) a->count[k] = cl_dda_pair_count(&a->g, i, j, a->d0, &a->known[k]);
      else cl_dda_pair_write(&a->g, i, j, a->d0, a->known[k], a->out + a->offset[k], a->offset[k + 1] - a->offset[k]);
    }
    return CL_OK;
  }
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_narrow_cuda(a)), "dda_narrow", err);
}
