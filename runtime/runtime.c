#include "runtime.h"

#include <stdlib.h>
#include <string.h>

volatile sig_atomic_t cl_interrupt_flag = 0;

void cl_interrupt_request(void) { cl_interrupt_flag = 1; }

static unsigned long interrupts_taken;

int cl_interrupt_take(void) {
  /* one atomic exchange: a separate read and clear would lose a request that another thread
   * (cl_request_stop) makes between them, and the run it was meant to stop would go on */
  int was = __atomic_exchange_n(&cl_interrupt_flag, 0, __ATOMIC_SEQ_CST) != 0;
  interrupts_taken += (unsigned long)was;
  return was;
}

unsigned long cl_interrupt_count(void) { return interrupts_taken; }

cl_device_ref *cl_device_ref_retain(cl_device_ref *r) {
  if (r) r->refs++;
  return r;
}

void cl_device_ref_release(cl_device_ref *r) {
  if (r && --r->refs == 0) {
    cl_device_close(&r->dev);
    free(r);
  }
}

static cl_status open_device_ref(cl_device_ref **out, const char *name, cl_error *err) {
  cl_device_ref *r = calloc(1, sizeof *r);
  if (!r) return cl_error_set(err, CL_ERR_OOM, "out of host memory opening device '%s'", name);
  cl_status s = cl_device_open(&r->dev, name, err);
  if (s != CL_OK) {
    free(r);
    return s;
  }
  r->refs = 1;
  *out = r;
  return CL_OK;
}

cl_status cl_runtime_init(cl_runtime *rt, const char *device_name) {
  memset(rt, 0, sizeof *rt);
  if (!device_name) device_name = getenv("CLEAVE_DEVICE");
  if (!device_name || !*device_name) device_name = "auto";
  return open_device_ref(&rt->device, device_name, &rt->err);
}

void cl_runtime_release(cl_runtime *rt) {
  cl_device_ref_release(rt->device);
  rt->device = NULL;
}

cl_status cl_runtime_set_device(cl_runtime *rt, const char *name) {
  cl_device_ref *r;
  CL_TRY(open_device_ref(&r, name, &rt->err));
  cl_device_ref_release(rt->device);
  rt->device = r;
  return CL_OK;
}
