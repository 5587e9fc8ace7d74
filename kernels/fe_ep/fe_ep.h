/* Dispatch of the quasi-static FE operations (fe_ep_args.h) to the cpu loops or cuda launches. */
#ifndef CL_FE_EP_H
#define CL_FE_EP_H

#include "../../runtime/device.h"
#include "../../runtime/dtype.h"
#include "fe_ep_args.h"
#include "fe_ep_mg_kernels.h"

void cl_fe_ep_run_cpu_f32(const cl_fe_ep_args *A, int op);
void cl_fe_ep_run_cpu_f64(const cl_fe_ep_args *A, int op);
int cl_fe_ep_run_cuda_f32(const cl_fe_ep_args *A, int op);
int cl_fe_ep_run_cuda_f64(const cl_fe_ep_args *A, int op);

cl_status cl_k_fe_ep(cl_device *d, cl_dtype t, const cl_fe_ep_args *A, cl_fe_ep_op op, cl_error *err);

/* the multigrid preconditioner's operations (fe_ep_mg_kernels.h) */
void cl_fe_ep_mg_run_cpu_f32(const cl_fe_ep_mg_args *A, int op);
void cl_fe_ep_mg_run_cpu_f64(const cl_fe_ep_mg_args *A, int op);
int cl_fe_ep_mg_run_cuda_f32(const cl_fe_ep_mg_args *A, int op);
int cl_fe_ep_mg_run_cuda_f64(const cl_fe_ep_mg_args *A, int op);
cl_status cl_k_fe_ep_mg(cl_device *d, cl_dtype t, const cl_fe_ep_mg_args *A, cl_fe_ep_mg_op op, cl_error *err);

#endif
