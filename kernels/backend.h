/* Entry points of the per-backend kernel files, for dispatch.c. Each real
 * kernel exists as _f32 and _f64 (one source compiled twice); pointers are
 * untyped here because one declaration serves both precisions. CPU loops
 * cannot fail; CUDA launchers return the cudaError_t of the launch (0 = ok). */
#ifndef CL_KERNEL_BACKEND_H
#define CL_KERNEL_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CL_BOTH_PRECISIONS(ret, name, params) \
  ret name##_f32 params;                      \
  ret name##_f64 params;

#define CL_REAL_KERNELS(ret, sfx)                                                              \
  CL_BOTH_PRECISIONS(ret, cl_axpy_##sfx, (size_t n, double a, const void *x, void *y))         \
  CL_BOTH_PRECISIONS(ret, cl_dot_##sfx,                                                        \
                     (size_t n, const void *x, const void *y, double *scratch, double *out))   \
  CL_BOTH_PRECISIONS(ret, cl_verlet_kick_drift_##sfx,                                          \
                     (size_t n, void *u, void *v, const void *a, double dt))                   \
  CL_BOTH_PRECISIONS(ret, cl_verlet_kick_##sfx, (size_t n, void *v, const void *a, double dt)) \
  CL_BOTH_PRECISIONS(ret, cl_wave2d_accel_##sfx,                                               \
                     (size_t nx, size_t ny, const void *u, void *a, double c2_over_dx2))         \
  CL_BOTH_PRECISIONS(ret, cl_set_rows_##sfx, (void *field, size_t n, int component,              \
                                              const uint32_t *rows, size_t count, double value, \
                                              int add))

CL_REAL_KERNELS(void, cpu)
CL_REAL_KERNELS(int, cuda)

/* Device reductions combine per-block partials in a scratch buffer of this
 * many doubles (the last one receives the result), owned by the cl_device. */
/* CPU backend: element-wise loops and reductions shorter than this run on the calling thread.
 * An element costs a load and a store; forking an OpenMP team costs microseconds (far more
 * on a busy machine), so below a few thousand elements the team costs more than the work. */
#define CL_CPU_PARALLEL_MIN 4096

#define CL_REDUCE_MAX_BLOCKS 1024
/* cl_k_reduce_many's most reductions in one call */
#define CL_REDUCE_MANY_MAX 8
/* The device's reduction scratch: each of up to CL_REDUCE_MANY_MAX reductions' partials and result
 * (CL_REDUCE_MAX_BLOCKS + 1 doubles; a single reduction uses the first), then their results side by
 * side, read back in one copy. */
#define CL_REDUCE_SCRATCH_DOUBLES ((CL_REDUCE_MAX_BLOCKS + 2) * CL_REDUCE_MANY_MAX)

/* dtype-generic array operations; t is a cl_dtype, op a cl_reduce_op */
void cl_fill_cpu(int t, void *data, size_t count, double value);
void cl_reduce_cpu(int t, const void *data, size_t count, int op, double *out);
int cl_fill_cuda(int t, void *data, size_t count, double value);
int cl_reduce_cuda(int t, const void *data, size_t count, int op, double *scratch, double *out);
int cl_reduce_many_cuda(int count, const double *const *data, const size_t *n, const int *op, double *scratch,
                        double *out);

/* Text of a CUDA error code (device_cuda.c). */
const char *cl_cuda_error_text(int code);

#ifdef __cplusplus
}
#endif

#endif
