/* The cpu backend: device memory is host memory, aligned for vector loads. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "device.h"

static cl_status cpu_alloc(cl_device *d, void **ptr, size_t bytes, cl_error *err) {
  (void)d;
  size_t rounded = (bytes + 63) / 64 * 64;
  *ptr = rounded ? aligned_alloc(64, rounded) : NULL;
  if (rounded && !*ptr)
    return cl_error_set(err, CL_ERR_OOM, "cpu: cannot allocate %zu bytes of host memory", bytes);
  return CL_OK;
}

static void cpu_release(cl_device *d, void *ptr) {
  (void)d;
  free(ptr);
}

/* Large disjoint copies are split across the OpenMP threads: one core
 * cannot saturate memory bandwidth on its own. */
static cl_status cpu_copy(cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err) {
  (void)d;
  (void)err;
  const size_t chunk = (size_t)1 << 20;
  const char *s = src;
  char *t = dst;
  int disjoint = t + bytes <= s || s + bytes <= t;
  if (!disjoint || bytes < 4 * chunk) {
    if (bytes) memmove(dst, src, bytes);
    return CL_OK;
  }
  size_t pieces = (bytes + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
  for (size_t p = 0; p < pieces; p++) {
    size_t at = p * chunk, len = bytes - at < chunk ? bytes - at : chunk;
    memcpy(t + at, s + at, len);
  }
  return CL_OK;
}

static cl_status cpu_synchronize(cl_device *d, cl_error *err) {
  (void)d;
  (void)err;
  return CL_OK;
}

static int cpu_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static cl_status cpu_info(cl_device *d, cl_device_info *info, cl_error *err) {
  (void)d;
  (void)err;
  memset(info, 0, sizeof *info);
  info->multiprocessors = cpu_threads();
  snprintf(info->name, sizeof info->name, "CPU (%d OpenMP thread%s)", info->multiprocessors,
           info->multiprocessors == 1 ? "" : "s");
  long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES),
       page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) info->memory_total = (size_t)pages * (size_t)page;
  if (avail > 0 && page > 0) info->memory_free = (size_t)avail * (size_t)page;
  return CL_OK;
}

cl_status cl_device_cpu_open(cl_device *dev, cl_error *err) {
  (void)err;
  memset(dev, 0, sizeof *dev);
  dev->kind = CL_BACKEND_CPU;
  dev->name = "cpu";
  dev->alloc = cpu_alloc;
  dev->release = cpu_release;
  dev->host_alloc = cpu_alloc; /* device memory is host memory */
  dev->host_release = cpu_release;
  dev->to_device = cpu_copy;
  dev->to_host = cpu_copy;
  dev->copy = cpu_copy;
  dev->synchronize = cpu_synchronize;
  dev->info = cpu_info;
  return CL_OK;
}
