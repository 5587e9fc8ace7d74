/* Status codes and the error record every runtime call reports through.
 * The library never prints or exits: a failing call fills a cl_error and
 * returns a non-zero cl_status; the caller decides what to show. */
#ifndef CL_STATUS_H
#define CL_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cl_status {
  CL_OK = 0,
  CL_ERR_ARG,          /* bad argument value or type from the caller */
  CL_ERR_OOM,          /* host or device allocation failed */
  CL_ERR_DEVICE,       /* a backend call or kernel launch failed */
  CL_ERR_UNAVAILABLE,  /* requested backend or feature not built / no GPU */
  CL_ERR_IO,           /* file could not be read or written */
  CL_ERR_SCRIPT,       /* Lua script raised an error */
  CL_ERR_INTERRUPTED,  /* stopped by Ctrl-C at a step boundary */
  CL_ERR_INTERNAL
} cl_status;

#define CL_ERROR_MAX 1024

typedef struct cl_error {
  cl_status code;
  char msg[CL_ERROR_MAX];
} cl_error;

/* Records code and a printf-style message in err (err may be NULL); returns code. */
cl_status cl_error_set(cl_error *err, cl_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void cl_error_clear(cl_error *err);
const char *cl_status_name(cl_status s);

/* Propagate a failing status from a call that already filled the error. */
#define CL_TRY(call)                   \
  do {                                 \
    cl_status cl_try_s_ = (call);      \
    if (cl_try_s_ != CL_OK) return cl_try_s_; \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif
