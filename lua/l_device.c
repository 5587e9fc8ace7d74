/* cleave.device and cleave.info: choosing a backend and describing the machine. */
#include <stdlib.h>
#include <string.h>

#include "../jit/cache_dir.h"
#include "l_util.h"

#ifndef CLEAVE_VERSION
#define CLEAVE_VERSION "0.0.0"
#endif

/* cleave.device() -> current name; cleave.device "cpu"|"cuda"|"auto" -> switches, returns name */
static int device(lua_State *L) {
  cl_runtime *rt = cl_lua_runtime(L);
  if (!lua_isnoneornil(L, 1)) {
    const char *name = luaL_checkstring(L, 1);
    if (cl_runtime_set_device(rt, name) != CL_OK) return cl_lua_fail(L, &rt->err);
  }
  lua_pushstring(L, rt->device->dev.name);
  return 1;
}

static void set_number(lua_State *L, const char *key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}

static void set_string(lua_State *L, const char *key, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, key);
}

static void push_version(lua_State *L, int encoded) {
  if (encoded <= 0) {
    lua_pushnil(L);
    return;
  }
  lua_pushfstring(L, "%d.%d", encoded / 1000, (encoded % 1000) / 10);
}

/* cleave.info() -> table describing this build, the current device and the GPU if any */
static int info(lua_State *L) {
  cl_runtime *rt = cl_lua_runtime(L);
  lua_newtable(L);
  set_string(L, "version", CLEAVE_VERSION);
  lua_newtable(L);
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, "cpu");
#ifdef CLEAVE_HAVE_CUDA
  lua_pushboolean(L, 1);
#else
  lua_pushboolean(L, 0);
#endif
  lua_setfield(L, -2, "cuda");
  lua_setfield(L, -2, "backends");
  set_string(L, "device", rt->device->dev.name);

  cl_device_info di;
  cl_error err;
  cl_device *d = &rt->device->dev;
  if (d->info(d, &di, &err) != CL_OK) return cl_lua_fail(L, &err);
  set_string(L, "device_name", di.name);
  set_number(L, "memory_total", (double)di.memory_total);
  set_number(L, "memory_free", (double)di.memory_free);

  int runtime, driver, nvrtc_major, nvrtc_minor;
  cl_device_cuda_versions(&runtime, &driver, &nvrtc_major, &nvrtc_minor);
  push_version(L, runtime);
  lua_setfield(L, -2, "cuda_runtime");
  push_version(L, driver);
  lua_setfield(L, -2, "cuda_driver");
  if (nvrtc_major) lua_pushfstring(L, "%d.%d", nvrtc_major, nvrtc_minor);
  else lua_pushnil(L);
  lua_setfield(L, -2, "nvrtc");

  int gpus = cl_device_cuda_count();
  lua_pushinteger(L, gpus);
  lua_setfield(L, -2, "gpu_count");
  if (gpus > 0) {
    cl_device gpu;
    cl_device_info gi;
    if (cl_device_cuda_open(&gpu, 0, &err) == CL_OK && gpu.info(&gpu, &gi, &err) == CL_OK) {
      lua_newtable(L);
      set_string(L, "name", gi.name);
      set_number(L, "memory_total", (double)gi.memory_total);
      set_number(L, "memory_free", (double)gi.memory_free);
      lua_pushfstring(L, "%d.%d", gi.compute_major, gi.compute_minor);
      lua_setfield(L, -2, "compute_capability");
      lua_pushinteger(L, gi.multiprocessors);
      lua_setfield(L, -2, "multiprocessors");
      lua_setfield(L, -2, "gpu");
    }
  }
  char dir[1024];
  if (cl_jit_cache_dir(dir, sizeof dir) == CL_OK) {
    set_string(L, "jit_cache", dir);
    set_number(L, "jit_cache_bytes", (double)cl_jit_cache_size(dir));
  }
  return 1;
}

int cl_lua_open_device(lua_State *L) {
  const luaL_Reg fns[] = {{"device", device}, {"info", info}, {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
  lua_pushstring(L, CLEAVE_VERSION);
  lua_setfield(L, -2, "version");
  return 0;
}
