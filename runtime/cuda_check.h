/* Checking CUDA runtime calls: CL_CUDA_TRY returns a cl_status naming the
 * failing call (out of memory as CL_ERR_OOM). For files built with the CUDA
 * toolkit only (the cuda backend and the .cu launchers). */
#ifndef CL_CUDA_CHECK_H
#define CL_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "status.h"

#define CL_CUDA_TRY(err, call)                                                                 \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess)                                                                     \
      return cl_error_set(err, e_ == cudaErrorMemoryAllocation ? CL_ERR_OOM : CL_ERR_DEVICE,   \
                          "cuda: %s failed: %s (%s)", #call, cudaGetErrorString(e_),           \
                          cudaGetErrorName(e_));                                               \
  } while (0)

#endif
