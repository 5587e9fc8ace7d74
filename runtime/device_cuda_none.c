/* The cuda backend entry points of a build without a CUDA toolkit. */
#include "../kernels/backend.h"
#include "device.h"

const char *cl_cuda_error_text(int code) {
  (void)code;
  return "CUDA support not built";
}

int cl_device_cuda_count(void) { return 0; }

cl_status cl_device_cuda_open(cl_device *dev, int ordinal, cl_error *err) {
  (void)dev;
  (void)ordinal;
  return cl_error_set(err, CL_ERR_UNAVAILABLE,
                      "cuda: this cleave was built without CUDA (no toolkit found at build time); "
                      "rebuild with a CUDA toolkit and -DCLEAVE_CUDA=ON, or use device \"cpu\"");
}

void cl_device_cuda_versions(int *runtime, int *driver, int *nvrtc_major, int *nvrtc_minor) {
  *runtime = *driver = *nvrtc_major = *nvrtc_minor = 0;
}

void *cl_device_cuda_nvrtc(void) { return NULL; }
