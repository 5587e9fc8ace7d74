#include "status.h"

#include <stdarg.h>
#include <stdio.h>

cl_status cl_error_set(cl_error *err, cl_status code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return code;
}

void cl_error_clear(cl_error *err) {
  if (err) {
    err->code = CL_OK;
    err->msg[0] = '\0';
  }
}

const char *cl_status_name(cl_status s) {
  switch (s) {
    case CL_OK: return "ok";
    case CL_ERR_ARG: return "invalid argument";
    case CL_ERR_OOM: return "out of memory";
    case CL_ERR_DEVICE: return "device error";
    case CL_ERR_UNAVAILABLE: return "unavailable";
    case CL_ERR_IO: return "i/o error";
    case CL_ERR_SCRIPT: return "script error";
    case CL_ERR_INTERRUPTED: return "interrupted";
    case CL_ERR_EXIT: return "script called os.exit";
    case CL_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}
