#include "device.h"

#include <stdlib.h>
#include <string.h>

#include "comm.h"

/* Under mpirun the ranks of a host spread over its GPUs: rank on the host mod GPUs (one rank per
 * GPU when there are as many; ranks share GPUs when there are more). */
static int rank_gpu(void) {
  int n = cl_device_cuda_count();
  return n > 0 ? cl_comm_local_rank() % n : 0;
}

cl_status cl_device_open(cl_device *dev, const char *name, cl_error *err) {
  memset(dev, 0, sizeof *dev);
  if (strcmp(name, "cpu") == 0) return cl_device_cpu_open(dev, err);
  if (strcmp(name, "cuda") == 0) return cl_device_cuda_open(dev, rank_gpu(), err);
  if (strcmp(name, "auto") == 0) {
    if (cl_device_cuda_count() > 0 && cl_device_cuda_open(dev, rank_gpu(), NULL) == CL_OK) return CL_OK;
    return cl_device_cpu_open(dev, err);
  }
  return cl_error_set(err, CL_ERR_ARG,
                      "unknown device '%s' (use \"auto\", \"cpu\" or \"cuda\")", name);
}

int cl_cuda_sync_each_launch(void) {
  static int mode = -1;
  if (mode < 0) {
    const char *v = getenv("CLEAVE_CUDA_SYNC");
    mode = v && *v && *v != '0';
  }
  return mode;
}

int cl_device_same(const cl_device *a, const cl_device *b) {
  return a->kind == b->kind && a->ordinal == b->ordinal;
}

void cl_device_close(cl_device *dev) {
  if (dev->synchronize) dev->synchronize(dev, NULL);
  if (dev->scratch) dev->release(dev, dev->scratch);
  memset(dev, 0, sizeof *dev);
}
