/* The per-contact bookkeeping of an accepted DDA step (account_ops.h) on a device. */
#ifndef CL_DDA_ACCOUNT_KERNELS_H
#define CL_DDA_ACCOUNT_KERNELS_H

#include "account_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __CUDACC__
#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* Pointers in a are on d, of type t (f32/f64). */
cl_status cl_k_dda_account(cl_device *d, cl_dtype t, const cl_dda_account_args *a, cl_error *err);
#endif

void cl_dda_account_cpu_f32(const cl_dda_account_args *a);
void cl_dda_account_cpu_f64(const cl_dda_account_args *a);
int cl_dda_account_cuda_f32(const cl_dda_account_args *a);
int cl_dda_account_cuda_f64(const cl_dda_account_args *a);

#ifdef __cplusplus
}
#endif

#endif
