/* cleave: the C API for host applications.
 *
 * A host creates a context (a Lua state with the cleave runtime on a chosen
 * device), runs scripts in it, and reads fields back. Every function returns
 * a cl_status; on failure cl_last_error(ctx) describes what went wrong. The
 * library never prints and never exits on the host's behalf. */
#ifndef CLEAVE_H
#define CLEAVE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What every call returns. */
typedef enum cl_status {
  CL_OK = 0,
  CL_ERR_ARG,          /* bad argument value or type from the caller */
  CL_ERR_OOM,          /* host or device allocation failed */
  CL_ERR_DEVICE,       /* a backend call or kernel launch failed */
  CL_ERR_UNAVAILABLE,  /* requested backend or feature not built / no GPU */
  CL_ERR_IO,           /* file could not be read or written */
  CL_ERR_SCRIPT,       /* Lua script raised an error */
  CL_ERR_INTERRUPTED,  /* stopped by Ctrl-C or cl_request_stop at a step boundary */
  CL_ERR_EXIT,         /* the script called os.exit: it stopped there, the host goes on */
  CL_ERR_INTERNAL
} cl_status;

/* A short English name of a status ("script error"). */
const char *cl_status_name(cl_status s);

typedef struct cl_context cl_context;

/* device: "auto", "cpu", "cuda", or NULL for $CLEAVE_DEVICE / "auto". On
 * failure *out is NULL and, when msg is not NULL, the reason is copied there. */
cl_status cl_context_create(cl_context **out, const char *device, char *msg, size_t msglen);
void cl_context_destroy(cl_context *ctx);

/* Switches the device for fields created from now on. */
cl_status cl_context_set_device(cl_context *ctx, const char *device);
/* Name of the current device: "cpu" or "cuda". */
const char *cl_context_device(cl_context *ctx);

/* Runs a script file (argv becomes the script's `arg`, may be NULL) or a string.
 * A script's os.exit does not end the process: the script stops there and the
 * call returns CL_ERR_EXIT. */
cl_status cl_run_file(cl_context *ctx, const char *path, int argc, const char *const *argv);
cl_status cl_run_string(cl_context *ctx, const char *code);

/* Shape of the field a Lua expression names (e.g. "u" or "model.u"). */
cl_status cl_field_shape(cl_context *ctx, const char *expr, size_t *rows, int *components,
                         const char **dtype);
/* Copies that field into host memory as doubles, structure of arrays
 * (component c of row i at out[c*rows + i]); capacity is in doubles. */
cl_status cl_field_read(cl_context *ctx, const char *expr, double *out, size_t capacity);

/* Message of the last failing call on ctx ("" when none). */
const char *cl_last_error(const cl_context *ctx);

/* Asks the cleave.run loop of the call in progress (cl_run_file or
 * cl_run_string, perhaps in another thread) to stop at its next step
 * boundary; that call then returns CL_ERR_INTERRUPTED with the model state
 * intact. A request made while no call is in progress applies to the next
 * call; one a call did not use is dropped when it returns. Async-signal-safe. */
void cl_request_stop(void);

#ifdef __cplusplus
}
#endif

#endif
