/* The per-contact DDA kernels outside the solve on a device: the step's set-up of its contacts
 * (setup_ops.h), its pattern and the assembly's indices (pattern_ops.h), the transfer of the last
 * step's states (transfer_ops.h) and the accepted step's bookkeeping (account_ops.h). */
#ifndef CL_DDA_CONTACT_KERNELS_H
#define CL_DDA_CONTACT_KERNELS_H

#include "account_ops.h"
#include "pattern_ops.h"
#include "setup_ops.h"
#include "transfer_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __CUDACC__
#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* Pointers in a are on d, of type t (f32/f64). */
cl_status cl_k_dda_contact_setup(cl_device *d, cl_dtype t, const cl_dda_setup_args *a, cl_error *err);
cl_status cl_k_dda_account(cl_device *d, cl_dtype t, const cl_dda_account_args *a, cl_error *err);
/* One pass (cl_dda_pattern_pass) over its items. */
cl_status cl_k_dda_pattern(cl_device *d, const cl_dda_pattern_args *a, int pass, size_t items, cl_error *err);
/* One pass (cl_dda_transfer_pass) over the contacts found. */
cl_status cl_k_dda_transfer(cl_device *d, const cl_dda_transfer_args *a, int pass, cl_error *err);
#endif

void cl_dda_contact_setup_cpu_f32(const cl_dda_setup_args *a);
void cl_dda_contact_setup_cpu_f64(const cl_dda_setup_args *a);
int cl_dda_contact_setup_cuda_f32(const cl_dda_setup_args *a);
int cl_dda_contact_setup_cuda_f64(const cl_dda_setup_args *a);
void cl_dda_account_cpu_f32(const cl_dda_account_args *a);
void cl_dda_account_cpu_f64(const cl_dda_account_args *a);
int cl_dda_account_cuda_f32(const cl_dda_account_args *a);
int cl_dda_account_cuda_f64(const cl_dda_account_args *a);
void cl_dda_pattern_cpu_f64(const cl_dda_pattern_args *a, int pass, size_t items);
int cl_dda_pattern_cuda_f64(const cl_dda_pattern_args *a, int pass, size_t items);
void cl_dda_transfer_cpu_f64(const cl_dda_transfer_args *a, int pass);
int cl_dda_transfer_cuda_f64(const cl_dda_transfer_args *a, int pass);

#ifdef __cplusplus
}
#endif

#endif
