/* Entry points of the cohesive-FEM kernels (czm.h) per backend and
 * precision, and the dispatch that picks one (czm.c). Every operation works
 * on A->first .. A->first + A->count - 1: elements (one colour, or all) or
 * nodes. */
#ifndef CL_FE_CZM_KERNELS_H
#define CL_FE_CZM_KERNELS_H

#include "czm_args.h"

#ifdef __cplusplus
extern "C" {
#endif


void cl_czm_run_cpu_f32(const cl_czm_args *A, int op, void *out);
void cl_czm_run_cpu_f64(const cl_czm_args *A, int op, void *out);
int cl_czm_run_cuda_f32(const cl_czm_args *A, int op, void *out);
int cl_czm_run_cuda_f64(const cl_czm_args *A, int op, void *out);

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* Runs op on d for fields of type t (f32/f64); errors name the kernel. */
cl_status cl_k_czm(cl_device *d, cl_dtype t, const cl_czm_args *A, cl_czm_op op, void *out, cl_error *err);
#endif

#endif
