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

/* The whole PCG solve of cl_dda_pcg after its uploads -- b.b, the start, the iterations until the
 * stopping rule, the scalars left in A->scal -- in one launch (pcg_persistent_cuda.cu; kind: a
 * cl_dda_preconditioner), and with rule, if the solve converged, the open-close rule on its solution
 * (CL_DDA_OP_OPEN_CLOSE, its counts among the scalars). *ran is 0, and nothing ran, where the device
 * cannot (the cpu, whose solve is a loop already, or a GPU without cooperative launch): the caller
 * runs the operations. */
cl_status cl_k_dda_pcg_persistent(cl_device *d, cl_dtype t, const cl_dda_pcg_args *A, int kind, int rule, int *ran,
                                  cl_error *err);
#endif

/* the cuda partials of a dot operation (cl_dda_pcg_args.partials): two per block (three: the
 * pipelined PCG's), at most CL_REDUCE_MAX_BLOCKS blocks; the persistent solve alternates two such sets */
#define CL_DDA_DOT_PARTIALS (6 * CL_REDUCE_MAX_BLOCKS)

/* cl_dda_pcg_persistent_cuda's answer where the device has no cooperative launch (nothing ran) */
#define CL_DDA_NO_COOPERATIVE (-2)

void cl_dda_pcg_cpu_f32(const cl_dda_pcg_args *A, int op);
void cl_dda_pcg_cpu_f64(const cl_dda_pcg_args *A, int op);
double cl_dda_dot_cpu_f32(size_t m, const void *x, const void *y);
double cl_dda_dot_cpu_f64(size_t m, const void *x, const void *y);
int cl_dda_pcg_cuda_f32(const cl_dda_pcg_args *A, int op);
int cl_dda_pcg_cuda_f64(const cl_dda_pcg_args *A, int op);
int cl_dda_pcg_persistent_cuda_f32(const cl_dda_pcg_args *A, int kind, int rule);
int cl_dda_pcg_persistent_cuda_f64(const cl_dda_pcg_args *A, int kind, int rule);

#ifdef __cplusplus
}
#endif

#endif
