/* The DDA solver's operations (pcg_ops.h) on a device. */
#ifndef CL_DDA_PCG_KERNELS_H
#define CL_DDA_PCG_KERNELS_H

#include "pcg_args.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __CUDACC__
#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* Pointers in A are on d, of type t (f32/f64); op is a cl_dda_pcg_op. */
cl_status cl_k_dda_pcg(cl_device *d, cl_dtype t, const cl_dda_pcg_args *A, int op, cl_error *err);
#endif

/* the cuda partials of a dot operation (cl_dda_pcg_args.partials): two per block, at most
 * CL_REDUCE_MAX_BLOCKS blocks */
#define CL_DDA_DOT_PARTIALS (2 * CL_REDUCE_MAX_BLOCKS)

void cl_dda_pcg_cpu_f32(const cl_dda_pcg_args *A, int op);
void cl_dda_pcg_cpu_f64(const cl_dda_pcg_args *A, int op);
double cl_dda_dot_cpu_f32(size_t m, const void *x, const void *y);
double cl_dda_dot_cpu_f64(size_t m, const void *x, const void *y);
int cl_dda_pcg_cuda_f32(const cl_dda_pcg_args *A, int op);
int cl_dda_pcg_cuda_f64(const cl_dda_pcg_args *A, int op);

#ifdef __cplusplus
}
#endif

#endif
