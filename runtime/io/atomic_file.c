#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* getpid */
#endif

#include "atomic_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cl_status io_error(cl_error *err, const char *path, int errnum) {
  return cl_error_set(err, CL_ERR_IO,
                      "cannot write '%s': %s (create the folder first or choose another path)",
                      path, strerror(errnum));
}

/* A failing stdio call need not set errno; EIO then stands for "unknown". */
static int failure_errno(void) { return errno ? errno : EIO; }

cl_status cl_atomic_file_open(cl_atomic_file *f, const char *path, cl_error *err) {
  memset(f, 0, sizeof *f);
  if (!path || !path[0]) return cl_error_set(err, CL_ERR_ARG, "output path is empty");
  int len = snprintf(NULL, 0, "%s.tmp%ld", path, (long)getpid());
  f->tmp = malloc((size_t)len + 1);
  if (!f->tmp) return cl_error_set(err, CL_ERR_OOM, "out of memory naming '%s'", path);
  snprintf(f->tmp, (size_t)len + 1, "%s.tmp%ld", path, (long)getpid());
  f->path = path;
  f->fp = fopen(f->tmp, "wb");
  if (!f->fp) {
    int e = errno;
    free(f->tmp);
    f->tmp = NULL;
    return io_error(err, path, e);
  }
  return CL_OK;
}

void cl_atomic_file_write(cl_atomic_file *f, const void *bytes, size_t n) {
  if (f->write_errno || n == 0) return;
  if (fwrite(bytes, 1, n, f->fp) != n) f->write_errno = failure_errno();
}

void cl_atomic_file_printf(cl_atomic_file *f, const char *fmt, ...) {
  if (f->write_errno) return;
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf(f->fp, fmt, ap) < 0) f->write_errno = failure_errno();
  va_end(ap);
}

void cl_atomic_file_write_xml(cl_atomic_file *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '&': cl_atomic_file_printf(f, "&amp;"); break;
      case '<': cl_atomic_file_printf(f, "&lt;"); break;
      case '>': cl_atomic_file_printf(f, "&gt;"); break;
      case '"': cl_atomic_file_printf(f, "&quot;"); break;
      default: cl_atomic_file_write(f, s, 1);
    }
  }
}

void cl_atomic_file_abort(cl_atomic_file *f) {
  if (f->fp) fclose(f->fp);
  if (f->tmp) remove(f->tmp);
  free(f->tmp);
  memset(f, 0, sizeof *f);
}

cl_status cl_atomic_file_commit(cl_atomic_file *f, cl_error *err) {
  /* Buffered data may only fail to reach the disk (ENOSPC) at flush/close. */
  if (!f->write_errno && fflush(f->fp) != 0) f->write_errno = failure_errno();
  FILE *fp = f->fp;
  f->fp = NULL;
  if (fclose(fp) != 0 && !f->write_errno) f->write_errno = failure_errno();
  if (!f->write_errno && rename(f->tmp, f->path) != 0) f->write_errno = errno;
  if (f->write_errno) {
    cl_status s = io_error(err, f->path, f->write_errno);
    cl_atomic_file_abort(f);
    return s;
  }
  free(f->tmp);
  memset(f, 0, sizeof *f);
  return CL_OK;
}

