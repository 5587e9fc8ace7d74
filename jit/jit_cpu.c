/* The cpu backend of the run-time compiler: the system C compiler ($CC, else
 * cc) builds the unit into a shared object, which is dlopen'ed. Floating-
 * point contraction is off (unless fast_math) so that a law compiled here
 * gives bitwise the results of the same law built into cleave. -O2, not -O3:
 * on the peridynamic step -O3 (with or without -march=native) ran 2x slower
 * than -O2 on this project's 2-core test machine (docs/benchmarks.md). */
#define _XOPEN_SOURCE 700
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit.h"

#define CPU_FLAGS "-std=c11 -O2 -march=native -fopenmp -shared -fPIC"

static const char *compiler(void) {
  const char *cc = getenv("CC");
  return cc && *cc ? cc : "cc";
}

/* Runs a shell command, appending its output to a malloc'ed *log; returns its exit status. */
static int run(const char *command, char **log) {
  FILE *p = popen(command, "r");
  if (!p) return -1;
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap), chunk[1024];
  size_t got;
  while (buf && (got = fread(chunk, 1, sizeof chunk, p)) > 0) {
    if (len + got + 1 > cap) buf = realloc(buf, cap = 2 * (len + got + 1));
    if (buf) memcpy(buf + len, chunk, got), len += got;
  }
  if (buf) buf[len] = 0;
  *log = buf;
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first line of `$CC --version`, once per process. */
static cl_status toolchain(char *version, size_t len, cl_error *err) {
  static char cached[256];
  if (!cached[0]) {
    char command[512], *log = NULL;
    snprintf(command, sizeof command, "%s --version 2>&1", compiler());
    int status = run(command, &log);
    if (status != 0) {
      free(log);
      return cl_error_set(err, CL_ERR_UNAVAILABLE,
                          "jit: no C compiler for the cpu backend ('%s --version' failed): install gcc "
                          "(apt-get install gcc) or set CC to a C compiler",
                          compiler());
    }
    snprintf(cached, sizeof cached, "%.*s", (int)strcspn(log, "\n"), log);
    free(log);
  }
  snprintf(version, len, "%s", cached);
  return CL_OK;
}

static cl_status check_quotable(const char *path, cl_error *err) {
  if (strchr(path, '\''))
    return cl_error_set(err, CL_ERR_IO, "jit: the cache path %s holds a quote; set XDG_CACHE_HOME elsewhere", path);
  return CL_OK;
}

static cl_status compile(const cl_jit_unit *u, const char *key, char *so_path, size_t len, cl_error *err) {
  char src[4096], out[4096], include[4096], command[16384];
  CL_TRY(cl_jit_include_dir(include, sizeof include, err));
  CL_TRY(cl_jit_cache_temp(".c", src, sizeof src, err));
  CL_TRY(cl_jit_cache_temp(".so", out, sizeof out, err));
  CL_TRY(check_quotable(include, err));
  CL_TRY(check_quotable(src, err));
  FILE *f = fopen(src, "w");
  if (!f || fputs(u->source, f) < 0 || fclose(f) != 0)
    return cl_error_set(err, CL_ERR_IO, "jit: cannot write %s", src);
  /* the unit from standard input: its temporary file's name (a process's own) would be written into
   * the object, and two processes' entries would differ byte for byte -- one's checksum beside the
   * other's entry when they commit at once (jit.c) */
  snprintf(command, sizeof command, "%s " CPU_FLAGS " %s -I'%s' -o '%s' -x c - < '%s' 2>&1", compiler(),
           u->fast_math ? "-ffast-math" : "-ffp-contract=off", include, out, src);
  char *log = NULL;
  int status = run(command, &log);
  unlink(src);
  cl_status st = CL_OK;
  if (status != 0) {
    unlink(out);
    st = cl_jit_compile_error(err, u, compiler(), log ? log : "(no output)");
  }
  free(log);
  return st == CL_OK ? cl_jit_cache_commit(out, key, ".so", so_path, len, err) : st;
}

cl_status cl_jit_build_cpu(const cl_jit_unit *u, const char *key_in, cl_jit_module *m, cl_jit_origin *origin,
                           cl_error *err) {
  char version[256], key[33], path[4096];
  CL_TRY(toolchain(version, sizeof version, err));
  uint64_t a = cl_jit_fnv(CL_JIT_FNV_BASIS, key_in, 32), b = cl_jit_fnv(a, CPU_FLAGS, sizeof CPU_FLAGS);
  a = cl_jit_fnv(a, version, strlen(version));
  b = cl_jit_fnv(b, "cpu", 3);
  snprintf(key, sizeof key, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
  void *bytes;
  size_t size;
  CL_TRY(cl_jit_cache_read(key, ".so", &bytes, &size, path, sizeof path, err));
  *origin = bytes ? CL_JIT_DISK : CL_JIT_COMPILED;
  free(bytes);
  if (*origin == CL_JIT_COMPILED) CL_TRY(compile(u, key, path, sizeof path, err));
  m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!m->handle) return cl_error_set(err, CL_ERR_IO, "jit: cannot load %s: %s", path, dlerror());
  for (int k = 0; u->symbols[k]; k++) {
    m->symbols[k] = dlsym(m->handle, u->symbols[k]);
    if (!m->symbols[k]) return cl_error_set(err, CL_ERR_INTERNAL, "jit: %s lacks the entry point %s", path, u->symbols[k]);
  }
  return CL_OK;
}
