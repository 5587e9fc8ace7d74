/* The cuda backend of the run-time compiler: NVRTC (loaded with dlopen, see
 * cl_device_cuda_nvrtc) compiles the unit to a cubin for the GPU's own
 * architecture; the CUDA runtime's library calls load it and find the
 * kernels, which cudaLaunchKernel takes as they are (no libcuda link). */
#define _XOPEN_SOURCE 700
#include "jit.h"

#include "../kernels/common/grid.h"
#include "../kernels/dispatch.h"

#ifdef CLEAVE_HAVE_CUDA

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct nvrtc_api {
  nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
  nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*log_size)(nvrtcProgram, size_t *);
  nvrtcResult (*log)(nvrtcProgram, char *);
  nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
  nvrtcResult (*cubin)(nvrtcProgram, char *);
  nvrtcResult (*destroy)(nvrtcProgram *);
  nvrtcResult (*version)(int *, int *);
} nvrtc_api;

static cl_status nvrtc(nvrtc_api *api, cl_error *err) {
  void *lib = cl_device_cuda_nvrtc();
  if (!lib)
    return cl_error_set(err, CL_ERR_UNAVAILABLE, "jit: NVRTC (libnvrtc.so) is not installed: install the CUDA "
                        "toolkit's NVRTC or run on device \"cpu\"");
  struct { void **slot; const char *name; } fns[] = {
      {(void **)&api->create, "nvrtcCreateProgram"},   {(void **)&api->compile, "nvrtcCompileProgram"},
      {(void **)&api->log_size, "nvrtcGetProgramLogSize"}, {(void **)&api->log, "nvrtcGetProgramLog"},
      {(void **)&api->cubin_size, "nvrtcGetCUBINSize"}, {(void **)&api->cubin, "nvrtcGetCUBIN"},
      {(void **)&api->destroy, "nvrtcDestroyProgram"},  {(void **)&api->version, "nvrtcVersion"}};
  for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
    if (!(*fns[k].slot = dlsym(lib, fns[k].name)))
      return cl_error_set(err, CL_ERR_UNAVAILABLE, "jit: this NVRTC lacks %s", fns[k].name);
  return CL_OK;
}

static cl_status architecture(cl_device *d, int *sm, cl_error *err) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d->ordinal) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d->ordinal) != cudaSuccess)
    return cl_error_set(err, CL_ERR_DEVICE, "jit: cannot query the compute capability of GPU %d", d->ordinal);
  *sm = 10 * major + minor;
  return CL_OK;
}

/* Compiles to a cubin in a temporary file of the cache folder. */
static cl_status compile(const nvrtc_api *api, const cl_jit_unit *u, int sm, const char *tmp, cl_error *err) {
  char include[4096], arch[64], include_opt[4200];
  CL_TRY(cl_jit_include_dir(include, sizeof include, err));
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d", sm);
  snprintf(include_opt, sizeof include_opt, "--include-path=%s", include);
  const char *options[] = {arch, include_opt, "--std=c++17", u->fast_math ? "--use_fast_math" : "--fmad=true"};
  nvrtcProgram prog;
  if (api->create(&prog, u->source, u->what, 0, NULL, NULL) != NVRTC_SUCCESS)
    return cl_error_set(err, CL_ERR_OOM, "jit: NVRTC cannot create a program");
  cl_status st = CL_OK;
  if (api->compile(prog, (int)(sizeof options / sizeof *options), options) != NVRTC_SUCCESS) {
    size_t n = 0;
    api->log_size(prog, &n);
    char *log = malloc(n + 1);
    if (log) api->log(prog, log), log[n] = 0;
    st = cl_jit_compile_error(err, u, "NVRTC", log ? log : "(no log)");
    free(log);
  } else {
    size_t n = 0;
    api->cubin_size(prog, &n);
    char *cubin = malloc(n ? n : 1);
    FILE *f = cubin && api->cubin(prog, cubin) == NVRTC_SUCCESS ? fopen(tmp, "wb") : NULL;
    if (!f || fwrite(cubin, 1, n, f) != n) st = cl_error_set(err, CL_ERR_IO, "jit: cannot write %s", tmp);
    if (f && fclose(f) != 0 && st == CL_OK) st = cl_error_set(err, CL_ERR_IO, "jit: cannot write %s", tmp);
    free(cubin);
  }
  api->destroy(&prog);
  return st;
}

cl_status cl_jit_build_cuda(cl_device *d, const cl_jit_unit *u, const char *key_in, cl_jit_module *m,
                            cl_jit_origin *origin, cl_error *err) {
  nvrtc_api api;
  int sm, version[2] = {0, 0};
  CL_TRY(nvrtc(&api, err));
  CL_TRY(architecture(d, &sm, err));
  api.version(&version[0], &version[1]);
  char key[33], path[4096], tmp[4096];
  uint64_t a = cl_jit_fnv(CL_JIT_FNV_BASIS, key_in, 32), b = cl_jit_fnv(a, "cuda", 4);
  a = cl_jit_fnv(cl_jit_fnv(a, &sm, sizeof sm), version, sizeof version);
  b = cl_jit_fnv(b, &sm, sizeof sm);
  snprintf(key, sizeof key, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
  void *cubin;
  size_t size;
  CL_TRY(cl_jit_cache_read(key, ".cubin", &cubin, &size, path, sizeof path, err));
  *origin = cubin ? CL_JIT_DISK : CL_JIT_COMPILED;
  if (!cubin) {
    CL_TRY(cl_jit_cache_temp(".cubin", tmp, sizeof tmp, err));
    cl_status st = compile(&api, u, sm, tmp, err);
    if (st != CL_OK) {
      unlink(tmp);
      return st;
    }
    CL_TRY(cl_jit_cache_commit(tmp, key, ".cubin", path, sizeof path, err));
    CL_TRY(cl_jit_cache_read(key, ".cubin", &cubin, &size, path, sizeof path, err));
    if (!cubin) return cl_error_set(err, CL_ERR_IO, "jit: %s vanished after it was written", path);
  }
  cudaLibrary_t lib;
  cudaError_t e = cudaLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0);
  free(cubin);
  if (e != cudaSuccess) return cl_error_set(err, CL_ERR_DEVICE, "jit: cannot load %s: %s", path, cudaGetErrorString(e));
  m->handle = lib;
  for (int k = 0; u->symbols[k]; k++) {
    cudaKernel_t kernel;
    if ((e = cudaLibraryGetKernel(&kernel, lib, u->symbols[k])) != cudaSuccess)
      return cl_error_set(err, CL_ERR_INTERNAL, "jit: %s lacks the kernel %s: %s", path, u->symbols[k], cudaGetErrorString(e));
    m->symbols[k] = (void *)kernel;
  }
  return CL_OK;
}

static int launch(void *entry, void *args, size_t n, unsigned threads) {
  dim3 grid = {cl_grid_blocks(n, threads), 1, 1}, block = {threads, 1, 1};
  void *params[] = {args};
  /* the per-thread default stream, so that cuda graphs can record run-time compiled kernels too */
  return (int)cudaLaunchKernel(entry, grid, block, params, 0, cudaStreamPerThread);
}

#else

cl_status cl_jit_build_cuda(cl_device *d, const cl_jit_unit *u, const char *key_in, cl_jit_module *m,
                            cl_jit_origin *origin, cl_error *err) {
  (void)d, (void)u, (void)key_in, (void)m, (void)origin;
  return cl_error_set(err, CL_ERR_UNAVAILABLE, "jit: this build has no cuda backend");
}

#endif

cl_status cl_jit_launch_threads(cl_device *d, void *entry, void *args, size_t n, unsigned threads, const char *what,
                               cl_error *err) {
  (void)threads; /* unused without cuda */
  if (d->kind == CL_BACKEND_CPU) {
    void (*run)(void *);
    *(void **)&run = entry;
    run(args);
    return CL_OK;
  }
  return cl_k_check_launch(d, n ? CL_CUDA_CALL(launch(entry, args, n, threads)) : 0, what, err);
}

cl_status cl_jit_launch(cl_device *d, void *entry, void *args, size_t n, const char *what, cl_error *err) {
  return cl_jit_launch_threads(d, entry, args, n, CL_THREADS, what, err);
}
