/* A compiled jit module as Lua userdata (l_jit.c), for the stages that launch it. */
#ifndef CL_LUA_JIT_H
#define CL_LUA_JIT_H

#include "../jit/jit.h"
#include "l_util.h"

typedef struct cl_lua_jit_module {
  const cl_jit_module *module;
  cl_device_ref *device; /* the device it was built for */
  cl_jit_origin origin;
  double seconds;        /* time taken to get it */
  int nsymbols;
  char what[64];         /* the snippet's name, for run-time messages */
} cl_lua_jit_module;

#define CL_LUA_JIT_MODULE_MT "cleave.jit.module"

const cl_lua_jit_module *cl_lua_check_jit_module(lua_State *L, int idx);

/* cl.jit (compile, clear_cache) into the module table on top of the stack. */
int cl_lua_open_jit(lua_State *L);

#endif
