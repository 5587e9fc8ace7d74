/* The runtime state: the current device, the last error, and the
 * interrupt flag that long loops poll at step boundaries. */
#ifndef CL_RUNTIME_H
#define CL_RUNTIME_H

#include <signal.h>

#include "device.h"
#include "status.h"

/* A device shared by the runtime and every field allocated on it; freed
 * when the last holder lets go, so switching devices never strands a field. */
typedef struct cl_device_ref {
  cl_device dev;
  int refs;
} cl_device_ref;

typedef struct cl_runtime {
  cl_device_ref *device;
  cl_error err;
} cl_runtime;

/* device_name NULL: $CLEAVE_DEVICE, else "auto". */
cl_status cl_runtime_init(cl_runtime *rt, const char *device_name);
void cl_runtime_release(cl_runtime *rt);
/* Switches to another backend; fields made earlier stay on their own device. */
cl_status cl_runtime_set_device(cl_runtime *rt, const char *name);

cl_device_ref *cl_device_ref_retain(cl_device_ref *r);
void cl_device_ref_release(cl_device_ref *r);

/* Ctrl-C: a signal handler (or a host) sets the flag; loops stop at the next
 * step boundary and return CL_ERR_INTERRUPTED with the state intact. */
extern volatile sig_atomic_t cl_interrupt_flag;
void cl_interrupt_request(void);
int cl_interrupt_take(void); /* returns and clears the flag */
/* How many interrupts have been taken so far (tells a caller whether its call was interrupted). */
unsigned long cl_interrupt_count(void);

#endif
