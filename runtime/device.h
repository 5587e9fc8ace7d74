/* The device abstraction: one table of memory operations per backend.
 * The cpu backend uses host memory; the cuda backend device memory. Kernels
 * are dispatched separately (kernels/dispatch.h), per backend and dtype. */
#ifndef CL_DEVICE_H
#define CL_DEVICE_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cl_backend_kind { CL_BACKEND_CPU = 0, CL_BACKEND_CUDA = 1 } cl_backend_kind;

typedef struct cl_device_info {
  char name[256];          /* "CPU (2 threads)" or the GPU's name */
  size_t memory_total;     /* bytes */
  size_t memory_free;      /* bytes */
  int compute_major, compute_minor;  /* cuda only */
  int multiprocessors;     /* cuda: SMs; cpu: OpenMP threads */
  int runtime_version, driver_version; /* cuda only, as CUDA encodes them (12040) */
} cl_device_info;

typedef struct cl_device {
  cl_backend_kind kind;
  const char *name;  /* "cpu" or "cuda" */
  int ordinal;       /* GPU index for cuda */
  void *scratch;     /* small device buffer for reduction partials (cuda), freed on close */
  cl_status (*alloc)(struct cl_device *d, void **ptr, size_t bytes, cl_error *err);
  void (*release)(struct cl_device *d, void *ptr);
  cl_status (*to_device)(struct cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err);
  cl_status (*to_host)(struct cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err);
  cl_status (*copy)(struct cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err);
  /* Host memory that to_device/to_host move at full speed: pinned (page-locked) on cuda, plain on
   * the cpu. For staging buffers that are copied every step (halo exchanges through MPI). */
  cl_status (*host_alloc)(struct cl_device *d, void **ptr, size_t bytes, cl_error *err);
  void (*host_release)(struct cl_device *d, void *ptr);
  cl_status (*synchronize)(struct cl_device *d, cl_error *err);
  cl_status (*info)(struct cl_device *d, cl_device_info *info, cl_error *err);
  /* Replay of a fixed sequence of launches (cuda; NULL on the cpu): graph_capture records what
   * record(data) launches, without running it, into *graph; graph_launch runs it. Launches to be
   * recorded go to the per-thread default stream (cudaStreamPerThread). */
  cl_status (*graph_capture)(struct cl_device *d, cl_status (*record)(void *data, cl_error *err), void *data,
                             void **graph, cl_error *err);
  cl_status (*graph_launch)(struct cl_device *d, void *graph, cl_error *err);
  void (*graph_release)(struct cl_device *d, void *graph);
} cl_device;

/* Opens a backend by name: "cpu", "cuda" or "auto" (cuda when a usable GPU
 * exists, else cpu). Fills *dev; a clear error when the name is unknown or
 * the backend cannot be used here. */
cl_status cl_device_open(cl_device *dev, const char *name, cl_error *err);
void cl_device_close(cl_device *dev);
/* Whether two opened devices are the same memory space (same backend and GPU). */
int cl_device_same(const cl_device *a, const cl_device *b);

/* Whether CLEAVE_CUDA_SYNC=1 asks to wait after every kernel launch, so that
 * a fault inside a kernel is reported under the kernel's own name. */
int cl_cuda_sync_each_launch(void);

/* cpu backend (always built) */
cl_status cl_device_cpu_open(cl_device *dev, cl_error *err);

/* cuda backend: CL_ERR_UNAVAILABLE when not built or no usable GPU; the
 * message says why (no driver, no device, driver too old). */
cl_status cl_device_cuda_open(cl_device *dev, int ordinal, cl_error *err);
/* Number of usable CUDA devices (0 when not built or no driver). */
int cl_device_cuda_count(void);
/* CUDA runtime and NVRTC versions, 0 when not built. */
void cl_device_cuda_versions(int *runtime, int *driver, int *nvrtc_major, int *nvrtc_minor);
/* The dlopen handle of NVRTC, loaded on first use; NULL when absent or not built. */
void *cl_device_cuda_nvrtc(void);

#ifdef __cplusplus
}
#endif

#endif
