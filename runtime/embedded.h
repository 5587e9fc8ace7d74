/* Files compiled into the library by cmake/embed_files.cmake: the pure-Lua
 * parts of the module, and the kernel headers the run-time compiler needs. */
#ifndef CL_EMBEDDED_H
#define CL_EMBEDDED_H

#include <stddef.h>

typedef struct cl_embedded_file {
  const char *name; /* Lua: chunk name "@[cleave]/<file>.lua"; headers: path from the source root */
  const char *source;
  size_t size;
} cl_embedded_file;

extern const cl_embedded_file cl_embedded_lua_files[]; /* end with a NULL name */
extern const cl_embedded_file cl_jit_headers[];

#endif
