/* The per-block DDA kernels (diagonal.h) on a device: the diagonal submatrices
 * with their right-hand sides, the update of an accepted step, a dynamic step's predicted start, and
 * the checks of a solution. */
#ifndef CL_DDA_BLOCK_KERNELS_H
#define CL_DDA_BLOCK_KERNELS_H

#include "block_args.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __CUDACC__
#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* Pointers in a are on d, of type t (f32/f64). */
cl_status cl_k_dda_diagonal(cl_device *d, cl_dtype t, const cl_dda_block_args *a, cl_error *err);
cl_status cl_k_dda_update(cl_device *d, cl_dtype t, const cl_dda_block_args *a, cl_error *err);
cl_status cl_k_dda_predict(cl_device *d, cl_dtype t, const cl_dda_block_args *a, cl_error *err);
cl_status cl_k_dda_check(cl_device *d, cl_dtype t, const cl_dda_block_args *a, cl_error *err);
#endif

void cl_dda_diagonal_cpu_f32(const cl_dda_block_args *a);
void cl_dda_diagonal_cpu_f64(const cl_dda_block_args *a);
void cl_dda_update_cpu_f32(const cl_dda_block_args *a);
void cl_dda_update_cpu_f64(const cl_dda_block_args *a);
int cl_dda_diagonal_cuda_f32(const cl_dda_block_args *a);
int cl_dda_diagonal_cuda_f64(const cl_dda_block_args *a);
int cl_dda_update_cuda_f32(const cl_dda_block_args *a);
int cl_dda_update_cuda_f64(const cl_dda_block_args *a);
void cl_dda_predict_cpu_f32(const cl_dda_block_args *a);
void cl_dda_predict_cpu_f64(const cl_dda_block_args *a);
int cl_dda_predict_cuda_f32(const cl_dda_block_args *a);
int cl_dda_predict_cuda_f64(const cl_dda_block_args *a);
void cl_dda_check_cpu_f32(const cl_dda_block_args *a);
void cl_dda_check_cpu_f64(const cl_dda_block_args *a);
int cl_dda_check_cuda_f32(const cl_dda_block_args *a);
int cl_dda_check_cuda_f64(const cl_dda_block_args *a);

#ifdef __cplusplus
}
#endif

#endif
