/* The pure-Lua parts of the cleave module, compiled into the library. */
#ifndef CL_EMBEDDED_LUA_H
#define CL_EMBEDDED_LUA_H

#include <stddef.h>

typedef struct cl_embedded_lua {
  const char *name; /* chunk name, "@[cleave]/<file>.lua" */
  const char *source;
  size_t size;
} cl_embedded_lua;

extern const cl_embedded_lua cl_embedded_lua_files[]; /* ends with a NULL name */

#endif
