/* The cuda backend, through the CUDA runtime API only (libcudart is linked
 * statically and loads the driver itself), so the same binary starts and
 * falls back to the cpu on machines with no NVIDIA driver. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../kernels/backend.h"
#include "cuda_check.h"
#include "device.h"


const char *cl_cuda_error_text(int code) { return cudaGetErrorString((cudaError_t)code); }

static cl_status cuda_alloc(cl_device *d, void **ptr, size_t bytes, cl_error *err) {
  (void)d;
  *ptr = NULL;
  if (bytes == 0) return CL_OK;
  CL_CUDA_TRY(err, cudaMalloc(ptr, bytes));
  return CL_OK;
}

static void cuda_release(cl_device *d, void *ptr) {
  (void)d;
  if (ptr) cudaFree(ptr);
}

static cl_status cuda_host_alloc(cl_device *d, void **ptr, size_t bytes, cl_error *err) {
  (void)d;
  *ptr = NULL;
  if (bytes == 0) return CL_OK;
  CL_CUDA_TRY(err, cudaMallocHost(ptr, bytes));
  return CL_OK;
}

static void cuda_host_release(cl_device *d, void *ptr) {
  (void)d;
  if (ptr) cudaFreeHost(ptr);
}

static cl_status cuda_to_device(cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err) {
  (void)d;
  if (bytes) CL_CUDA_TRY(err, cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  return CL_OK;
}

static cl_status cuda_to_host(cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err) {
  (void)d;
  if (bytes) CL_CUDA_TRY(err, cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  return CL_OK;
}

static cl_status cuda_copy(cl_device *d, void *dst, const void *src, size_t bytes, cl_error *err) {
  (void)d;
  if (bytes) CL_CUDA_TRY(err, cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  return CL_OK;
}

static cl_status cuda_synchronize(cl_device *d, cl_error *err) {
  (void)d;
  CL_CUDA_TRY(err, cudaDeviceSynchronize());
  return CL_OK;
}

static cl_status cuda_graph_capture(cl_device *d, cl_status (*record)(void *data, cl_error *err), void *data,
                                    void **graph, cl_error *err) {
  (void)d;
  *graph = NULL;
  CL_CUDA_TRY(err, cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeThreadLocal));
  cl_status st = record(data, err);
  cudaGraph_t g = NULL;
  cudaError_t end = cudaStreamEndCapture(cudaStreamPerThread, &g);
  if (st == CL_OK && end != cudaSuccess)
    st = cl_error_set(err, CL_ERR_DEVICE, "cuda graph capture failed: %s", cudaGetErrorString(end));
  cudaGraphExec_t exec = NULL;
  if (st == CL_OK) {
    cudaError_t e = cudaGraphInstantiate(&exec, g, 0);
    if (e != cudaSuccess) st = cl_error_set(err, CL_ERR_DEVICE, "cuda graph instantiation failed: %s", cudaGetErrorString(e));
  }
  if (g) cudaGraphDestroy(g);
  if (st == CL_OK) *graph = exec;
  return st;
}

static cl_status cuda_graph_launch(cl_device *d, void *graph, cl_error *err) {
  (void)d;
  CL_CUDA_TRY(err, cudaGraphLaunch((cudaGraphExec_t)graph, cudaStreamPerThread));
  return CL_OK;
}

static void cuda_graph_release(cl_device *d, void *graph) {
  (void)d;
  if (graph) cudaGraphExecDestroy((cudaGraphExec_t)graph);
}

static cl_status cuda_info(cl_device *d, cl_device_info *info, cl_error *err) {
  struct cudaDeviceProp prop;
  memset(info, 0, sizeof *info);
  CL_CUDA_TRY(err, cudaGetDeviceProperties(&prop, d->ordinal));
  snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->compute_major = prop.major;
  info->compute_minor = prop.minor;
  info->multiprocessors = prop.multiProcessorCount;
  CL_CUDA_TRY(err, cudaMemGetInfo(&info->memory_free, &info->memory_total));
  cudaRuntimeGetVersion(&info->runtime_version);
  cudaDriverGetVersion(&info->driver_version);
  return CL_OK;
}

int cl_device_cuda_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear the non-sticky "no driver/no device" error */
    return 0;
  }
  return n;
}

cl_status cl_device_cuda_open(cl_device *dev, int ordinal, cl_error *err) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    cudaGetLastError();
    return cl_error_set(err, CL_ERR_UNAVAILABLE,
                        "cuda: no usable GPU (%s); use device \"cpu\" or \"auto\"",
                        e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found");
  }
  if (ordinal < 0 || ordinal >= n)
    return cl_error_set(err, CL_ERR_ARG, "cuda: GPU index %d out of range (found %d)", ordinal, n);
  CL_CUDA_TRY(err, cudaSetDevice(ordinal));
  CL_CUDA_TRY(err, cudaFree(NULL)); /* create the context now, so failures show here */
  memset(dev, 0, sizeof *dev);
  dev->kind = CL_BACKEND_CUDA;
  dev->name = "cuda";
  dev->ordinal = ordinal;
  dev->alloc = cuda_alloc;
  dev->release = cuda_release;
  dev->host_alloc = cuda_host_alloc;
  dev->host_release = cuda_host_release;
  dev->to_device = cuda_to_device;
  dev->to_host = cuda_to_host;
  dev->copy = cuda_copy;
  dev->synchronize = cuda_synchronize;
  dev->info = cuda_info;
  dev->graph_capture = cuda_graph_capture;
  dev->graph_launch = cuda_graph_launch;
  dev->graph_release = cuda_graph_release;
  return CL_OK;
}

/* NVRTC is loaded on demand, so its absence never stops the binary starting.
 * It stays loaded: the run-time compiler needs it again, and unloading it
 * would strand the allocations its C++ runtime made. */
void *cl_device_cuda_nvrtc(void) {
  static void *lib;
  const char *names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  for (size_t i = 0; !lib && i < sizeof names / sizeof names[0]; i++)
    lib = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
  return lib;
}

static void nvrtc_version(int *major, int *minor) {
  *major = *minor = 0;
  void *lib = cl_device_cuda_nvrtc();
  if (!lib) return;
  int (*version)(int *, int *);
  *(void **)&version = dlsym(lib, "nvrtcVersion");
  if (version) version(major, minor);
}

void cl_device_cuda_versions(int *runtime, int *driver, int *nvrtc_major, int *nvrtc_minor) {
  *runtime = *driver = 0;
  cudaRuntimeGetVersion(runtime);
  if (cudaDriverGetVersion(driver) != cudaSuccess) *driver = 0;
  nvrtc_version(nvrtc_major, nvrtc_minor);
}
