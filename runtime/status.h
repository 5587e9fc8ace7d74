/* Status codes and the error record every runtime call reports through.
 * The library never prints or exits: a failing call fills a cl_error and
 * returns a non-zero cl_status; the caller decides what to show. */
#ifndef CL_STATUS_H
#define CL_STATUS_H

#include <stddef.h>

/* the codes themselves (cl_status) and cl_status_name are public: cleave.h */
#include "cleave.h"

#ifdef __cplusplus
extern "C" {
#endif

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
