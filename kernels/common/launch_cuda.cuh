/* What every precompiled CUDA kernel file needs: the runtime and the launch geometry. */
#ifndef CL_LAUNCH_CUDA_CUH
#define CL_LAUNCH_CUDA_CUH

#include <cuda_runtime.h>

#include "grid.h"

#endif
