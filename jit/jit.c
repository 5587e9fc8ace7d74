/* The run-time compiler's shared part (jit.h): the memory cache, the disk
 * cache's files, the embedded headers and the compile errors. */
#define _XOPEN_SOURCE 700
#include "jit.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runtime/embedded.h"
#include "cache_dir.h"

/* Bumped when the templates or the way entries are built change. */
#define TEMPLATE_VERSION "cleave-jit-1"

uint64_t cl_jit_fnv(uint64_t h, const void *bytes, size_t n) {
  const unsigned char *p = bytes;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t fnv_string(uint64_t h, const char *s) { return cl_jit_fnv(h, s, strlen(s) + 1); }

static cl_status make_dirs(const char *path, cl_error *err) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
    return cl_error_set(err, CL_ERR_IO, "jit: path too long: %s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return cl_error_set(err, CL_ERR_IO, "jit: cannot create the folder %s: %s", buf, strerror(errno));
    *p = '/';
  }
  if (mkdir(buf, 0755) != 0 && errno != EEXIST)
    return cl_error_set(err, CL_ERR_IO, "jit: cannot create the folder %s: %s", buf, strerror(errno));
  return CL_OK;
}

static cl_status cache_dir(char *buf, size_t len, cl_error *err) {
  if (cl_jit_cache_dir(buf, len) != CL_OK)
    return cl_error_set(err, CL_ERR_IO, "jit: no cache folder: set XDG_CACHE_HOME or HOME");
  return make_dirs(buf, err);
}

static cl_status write_file(const char *path, const void *bytes, size_t n, cl_error *err) {
  FILE *f = fopen(path, "wb");
  if (!f) return cl_error_set(err, CL_ERR_IO, "jit: cannot write %s: %s", path, strerror(errno));
  size_t wrote = fwrite(bytes, 1, n, f);
  if (fclose(f) != 0 || wrote != n) return cl_error_set(err, CL_ERR_IO, "jit: cannot write %s (disk full?)", path);
  return CL_OK;
}

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
    buf[n] = 0;
    *size = (size_t)n;
  } else {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

cl_status cl_jit_cache_temp(const char *ext, char *path, size_t len, cl_error *err) {
  static unsigned counter;
  char dir[4096];
  CL_TRY(cache_dir(dir, sizeof dir, err));
  if (snprintf(path, len, "%s/tmp-%ld-%u%s", dir, (long)getpid(), counter++, ext) >= (int)len)
    return cl_error_set(err, CL_ERR_IO, "jit: cache path too long");
  return CL_OK;
}

static cl_status entry_paths(const char *key, const char *ext, char *path, char *sum, size_t len, cl_error *err) {
  char dir[4096];
  CL_TRY(cache_dir(dir, sizeof dir, err));
  if (snprintf(path, len, "%s/%s%s", dir, key, ext) >= (int)len ||
      snprintf(sum, len, "%s/%s%s.sum", dir, key, ext) >= (int)len)
    return cl_error_set(err, CL_ERR_IO, "jit: cache path too long");
  return CL_OK;
}

cl_status cl_jit_cache_read(const char *key, const char *ext, void **bytes, size_t *size, char *path, size_t len,
                            cl_error *err) {
  char sum[4096];
  *bytes = NULL;
  CL_TRY(entry_paths(key, ext, path, sum, len, err));
  size_t n = 0, sum_n = 0;
  char *data = read_file(path, &n), *recorded = read_file(sum, &sum_n);
  char expected[32];
  if (data) snprintf(expected, sizeof expected, "%016llx %zu", (unsigned long long)cl_jit_fnv(CL_JIT_FNV_BASIS, data, n), n);
  if (data && recorded && strcmp(recorded, expected) == 0) {
    *bytes = data, *size = n;
  } else {
    if (data) unlink(path), unlink(sum); /* damaged or half-written: rebuilt by the caller */
    free(data);
  }
  free(recorded);
  return CL_OK;
}

cl_status cl_jit_cache_commit(const char *tmp, const char *key, const char *ext, char *path, size_t len,
                              cl_error *err) {
  char sum[4096], sum_tmp[4096], text[32];
  size_t n = 0;
  CL_TRY(entry_paths(key, ext, path, sum, len, err));
  char *data = read_file(tmp, &n);
  if (!data) return cl_error_set(err, CL_ERR_IO, "jit: the compiler wrote no %s", tmp);
  snprintf(text, sizeof text, "%016llx %zu", (unsigned long long)cl_jit_fnv(CL_JIT_FNV_BASIS, data, n), n);
  free(data);
  snprintf(sum_tmp, sizeof sum_tmp, "%s.sum", tmp);
  CL_TRY(write_file(sum_tmp, text, strlen(text), err));
  /* the entry first, its checksum last: a reader sees both or treats it as damaged */
  if (rename(tmp, path) != 0 || rename(sum_tmp, sum) != 0)
    return cl_error_set(err, CL_ERR_IO, "jit: cannot store %s: %s", path, strerror(errno));
  return CL_OK;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st, (void)type;
  if (ftw->level > 0) remove(path);
  return 0;
}

/* Removes what is inside dir (and, for remove_tree, dir itself). */
static int remove_tree_below(const char *dir) { return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
static void remove_tree(const char *dir) {
  remove_tree_below(dir);
  rmdir(dir);
}

/* Hash of every embedded header: a unit includes them by name, so a module built against other
 * headers (an older cleave) must not be taken from the disk cache. */
static uint64_t headers_hash(void) {
  uint64_t h = CL_JIT_FNV_BASIS;
  for (const cl_embedded_file *e = cl_jit_headers; e->name; e++)
    h = cl_jit_fnv(fnv_string(h, e->name), e->source, e->size);
  return h;
}

/* The headers go to include-<hash of their contents>, written once (a temporary
 * folder renamed into place, so concurrent processes never see half of it). */
cl_status cl_jit_include_dir(char *buf, size_t len, cl_error *err) {
  char dir[4096], tmp[4096], file[4096];
  const uint64_t h = headers_hash();
  CL_TRY(cache_dir(dir, sizeof dir, err));
  if (snprintf(buf, len, "%s/include-%016llx", dir, (unsigned long long)h) >= (int)len)
    return cl_error_set(err, CL_ERR_IO, "jit: cache path too long");
  struct stat st;
  if (stat(buf, &st) == 0) return CL_OK;
  CL_TRY(cl_jit_cache_temp(".include", tmp, sizeof tmp, err));
  for (const cl_embedded_file *e = cl_jit_headers; e->name; e++) {
    if (snprintf(file, sizeof file, "%s/%s", tmp, e->name) >= (int)sizeof file)
      return cl_error_set(err, CL_ERR_IO, "jit: cache path too long");
    *strrchr(file, '/') = 0;
    CL_TRY(make_dirs(file, err));
    *(file + strlen(file)) = '/';
    CL_TRY(write_file(file, e->source, e->size, err));
  }
  if (rename(tmp, buf) == 0) return CL_OK;
  if (stat(buf, &st) != 0) return cl_error_set(err, CL_ERR_IO, "jit: cannot create %s: %s", buf, strerror(errno));
  remove_tree(tmp); /* another process wrote the same headers first */
  return CL_OK;
}

/* ---- compile errors ---------------------------------------------------------------- */

/* The snippet's line `line` (1-based) from the source after `#line 1 "<what>"`. */
static int snippet_line(const cl_jit_unit *u, long line, char *out, size_t len) {
  char marker[160];
  snprintf(marker, sizeof marker, "#line 1 \"%s\"\n", u->what);
  const char *p = strstr(u->source, marker);
  if (!p || line < 1) return 0;
  p += strlen(marker);
  for (long k = 1; k < line && p; k++) p = (p = strchr(p, '\n')) ? p + 1 : NULL;
  if (!p) return 0;
  size_t n = strcspn(p, "\n");
  snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
  return 1;
}

/* gcc writes "<what>:L:C: error: ...", NVRTC "<what>(L): error: ...". */
static int message_position(const char *line, const char *what, long *l, long *c) {
  size_t w = strlen(what);
  if (strncmp(line, what, w) != 0) return 0;
  *c = 0;
  if (line[w] == ':') return sscanf(line + w, ":%ld:%ld", l, c) >= 1;
  return line[w] == '(' && sscanf(line + w, "(%ld)", l) == 1;
}

cl_status cl_jit_compile_error(cl_error *err, const cl_jit_unit *u, const char *compiler, const char *log) {
  char msg[CL_ERROR_MAX], text[256];
  size_t at = (size_t)snprintf(msg, sizeof msg, "%s: does not compile (%s):", u->what, compiler);
  int found = 0;
  for (const char *p = log; *p && at < sizeof msg;) {
    size_t n = strcspn(p, "\n");
    long l, c;
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
    if (message_position(line, u->what, &l, &c) && strstr(line, "error")) {
      found = 1;
      at += (size_t)snprintf(msg + at, sizeof msg - at, "\n%s", line);
      if (at < sizeof msg && snippet_line(u, l, text, sizeof text))
        at += (size_t)snprintf(msg + at, sizeof msg - at, "\n  %s\n  %*s^", text, c > 0 ? (int)c - 1 : 0, "");
    }
    p += n + (p[n] == '\n');
  }
  if (!found) snprintf(msg + at, sizeof msg - at, "\n%s", log);
  return cl_error_set(err, CL_ERR_ARG, "%s", msg);
}

/* ---- the memory cache and the entry point ------------------------------------------------ */

static cl_jit_module *loaded;

static void base_key(const cl_jit_unit *u, char out[33]) {
  const uint64_t headers = headers_hash();
  uint64_t a = fnv_string(CL_JIT_FNV_BASIS, TEMPLATE_VERSION), b = fnv_string(0x84222325cbf29ce4ull, TEMPLATE_VERSION);
  a = cl_jit_fnv(a, &headers, sizeof headers), b = cl_jit_fnv(b, &headers, sizeof headers);
  const char *fields[] = {u->what, u->source, u->fast_math ? "fast" : "ieee"};
  for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) a = fnv_string(a, fields[k]), b = fnv_string(b, fields[k]);
  for (const char *const *s = u->symbols; *s; s++) a = fnv_string(a, *s), b = fnv_string(b, *s);
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

cl_status cl_jit_build(cl_device *d, const cl_jit_unit *u, const cl_jit_module **out, cl_jit_origin *origin,
                       cl_error *err) {
  char key[33], memory_key[33];
  cl_jit_origin where = CL_JIT_MEMORY;
  int count = 0;
  while (u->symbols[count]) count++;
  if (count > CL_JIT_MAX_SYMBOLS)
    return cl_error_set(err, CL_ERR_ARG, "jit: %d entry points (at most %d)", count, CL_JIT_MAX_SYMBOLS);
  base_key(u, key);
  /* in memory per backend and GPU: the architecture is the GPU's */
  uint64_t h = cl_jit_fnv(CL_JIT_FNV_BASIS, key, 32);
  int target[2] = {(int)d->kind, d->ordinal};
  h = cl_jit_fnv(h, target, sizeof target);
  snprintf(memory_key, sizeof memory_key, "%016llx%.16s", (unsigned long long)h, key);
  for (cl_jit_module *m = loaded; m; m = m->next)
    if (strcmp(m->key, memory_key) == 0) {
      *out = m;
      if (origin) *origin = CL_JIT_MEMORY;
      return CL_OK;
    }
  cl_jit_module *m = calloc(1, sizeof *m);
  if (!m) return cl_error_set(err, CL_ERR_OOM, "jit: out of host memory");
  m->kind = d->kind;
  cl_status st = d->kind == CL_BACKEND_CPU ? cl_jit_build_cpu(u, key, m, &where, err)
                                           : cl_jit_build_cuda(d, u, key, m, &where, err);
  if (st != CL_OK) {
    free(m);
    return st;
  }
  memcpy(m->key, memory_key, sizeof m->key);
  m->next = loaded;
  loaded = m;
  *out = m;
  if (origin) *origin = where;
  return CL_OK;
}

cl_status cl_jit_clear_cache(cl_error *err) {
  char dir[4096];
  if (cl_jit_cache_dir(dir, sizeof dir) != CL_OK)
    return cl_error_set(err, CL_ERR_IO, "jit: no cache folder: set XDG_CACHE_HOME or HOME");
  struct stat st;
  if (stat(dir, &st) != 0) return CL_OK;
  if (remove_tree_below(dir) != 0)
    return cl_error_set(err, CL_ERR_IO, "jit: cannot clear %s: %s", dir, strerror(errno));
  return CL_OK;
}
