/* Run-time compilation of generated kernel sources: NVRTC for a cuda device
 * (loaded through the runtime API's library calls, no libcuda link), the
 * system C compiler for the cpu (a shared object, dlopen'ed).
 *
 * A unit is one translation unit written by a code generator (the Lua side
 * wraps a user's snippet in a template). Its kernel headers come from the
 * binary itself (the physics headers under kernels/, embedded at build
 * time), so a run-time law is compiled against exactly the code of the
 * built-in kernels. The snippet is introduced by `#line 1 "<what>"`, so
 * compiler messages name the snippet's own lines; cl_jit_build keeps those
 * lines and shows the source line under them.
 *
 * Cache: in memory for the process, and on disk under cl_jit_cache_dir(),
 * keyed by a 128-bit hash of the source, the template version, the options,
 * the target (cpu, or the GPU's architecture) and the compiler's version.
 * Entries are written to a temporary name and renamed into place, each with
 * a checksum file; an entry whose checksum does not match is rebuilt. */
#ifndef CL_JIT_H
#define CL_JIT_H

#include <stdint.h>

#include "../runtime/device.h"

#define CL_JIT_MAX_SYMBOLS 16

typedef struct cl_jit_unit {
  const char *what;            /* the snippet's name, e.g. "bond_force" */
  const char *source;          /* the whole translation unit */
  const char *const *symbols;  /* entry points to look up, NULL-terminated */
  int fast_math;               /* cpu: -ffast-math; cuda: --use_fast_math */
} cl_jit_unit;

typedef enum cl_jit_origin { CL_JIT_COMPILED, CL_JIT_DISK, CL_JIT_MEMORY } cl_jit_origin;

typedef struct cl_jit_module {
  char key[33];                          /* hex of the cache key */
  cl_backend_kind kind;
  void *symbols[CL_JIT_MAX_SYMBOLS];     /* cpu: functions; cuda: cudaKernel_t */
  void *handle;                          /* dlopen handle or cudaLibrary_t */
  struct cl_jit_module *next;
} cl_jit_module;

/* The module of unit u for device d: from memory, from disk, or compiled.
 * Modules live until the process ends. *origin (may be NULL) says which. */
cl_status cl_jit_build(cl_device *d, const cl_jit_unit *u, const cl_jit_module **out, cl_jit_origin *origin,
                       cl_error *err);

/* Runs a compiled entry point that takes one struct of arguments: on the cpu
 * entry(args), on cuda a grid-stride kernel over n entries taking the struct
 * (bytes of it) by value. `what` names it in errors. */
cl_status cl_jit_launch(cl_device *d, void *entry, void *args, size_t n, const char *what, cl_error *err);
/* The same with blocks of `threads` (cuda): smaller blocks spread a small launch of heavy
 * threads over more multiprocessors. */
cl_status cl_jit_launch_threads(cl_device *d, void *entry, void *args, size_t n, unsigned threads, const char *what,
                               cl_error *err);

/* Removes every entry of the disk cache (loaded modules stay usable). */
cl_status cl_jit_clear_cache(cl_error *err);

/* ---- shared by the backends (jit.c) -------------------------------------------- */

/* 64-bit FNV-1a of bytes, continuing from h (start with CL_JIT_FNV_BASIS). */
#define CL_JIT_FNV_BASIS 0xcbf29ce484222325ull
uint64_t cl_jit_fnv(uint64_t h, const void *bytes, size_t n);

/* The folder holding the embedded kernel headers (written there once per content). */
cl_status cl_jit_include_dir(char *buf, size_t len, cl_error *err);

/* Reads the cache entry <dir>/<key><ext> into a malloc'ed buffer if it exists and its
 * checksum file agrees; *bytes = NULL when absent or damaged (a damaged one is removed). */
cl_status cl_jit_cache_read(const char *key, const char *ext, void **bytes, size_t *size, char *path, size_t len,
                            cl_error *err);

/* Moves the file tmp to the entry <dir>/<key><ext> with its checksum file (atomic renames). */
cl_status cl_jit_cache_commit(const char *tmp, const char *key, const char *ext, char *path, size_t len,
                              cl_error *err);

/* A unique temporary path in the cache folder ending with ext. */
cl_status cl_jit_cache_temp(const char *ext, char *path, size_t len, cl_error *err);

/* Turns a compiler's log into the error: the lines about the snippet, each followed by
 * the snippet's source line; the whole log when none is about it. */
cl_status cl_jit_compile_error(cl_error *err, const cl_jit_unit *u, const char *compiler, const char *log);

/* Backends. */
cl_status cl_jit_build_cpu(const cl_jit_unit *u, const char *key_in, cl_jit_module *m, cl_jit_origin *origin,
                           cl_error *err);
cl_status cl_jit_build_cuda(cl_device *d, const cl_jit_unit *u, const char *key_in, cl_jit_module *m,
                            cl_jit_origin *origin, cl_error *err);

#endif
