/* Where a runtime call becomes a kernel launch: each cl_k_* function checks
 * the device and element type, then calls the cpu loop or the cuda launcher
 * built from the same physics header. Errors name the kernel. */
#ifndef CL_DISPATCH_H
#define CL_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/device.h"
#include "../runtime/dtype.h"

/* cuda launchers exist only in a CUDA build; a cuda device cannot be opened
 * otherwise, so calls through CL_CUDA_CALL are then unreachable. */
#ifdef CLEAVE_HAVE_CUDA
#define CL_CUDA_CALL(expr) (expr)
#else
#define CL_CUDA_CALL(expr) (-1)
#endif

/* Turns a launcher's cudaError_t into a status naming the kernel; with
 * CLEAVE_CUDA_SYNC=1 also waits, so a fault inside it is reported under its name. */
cl_status cl_k_check_launch(cl_device *d, int code, const char *kernel, cl_error *err);

/* The device's buffer of CL_REDUCE_SCRATCH_DOUBLES doubles for reduction
 * partials (kernels/backend.h), allocated on first use, freed with the device. */
cl_status cl_k_reduce_scratch(cl_device *d, double **scratch, cl_error *err);

/* any dtype */
cl_status cl_k_fill(cl_device *d, cl_dtype t, void *data, size_t count, double value,
                    cl_error *err);
/* op: cl_reduce_op (min, max, sum, sum of squares) */
cl_status cl_k_reduce(cl_device *d, cl_dtype t, const void *data, size_t count, int op,
                      double *out, cl_error *err);

/* count (at most CL_REDUCE_MANY_MAX) reductions of f64 arrays: out[k] = op[k] over data[k][0, n[k]),
 * each as cl_k_reduce's, read back together (one host wait for all) */
cl_status cl_k_reduce_many(cl_device *d, int count, const double *const *data, const size_t *n, const int *op,
                           double *out, cl_error *err);

/* f32 / f64 */
cl_status cl_k_axpy(cl_device *d, cl_dtype t, size_t count, double a, const void *x, void *y,
                    cl_error *err);
cl_status cl_k_dot(cl_device *d, cl_dtype t, size_t count, const void *x, const void *y,
                   double *out, cl_error *err);
cl_status cl_k_verlet_kick_drift(cl_device *d, cl_dtype t, size_t count, void *u, void *v,
                                 const void *a, double dt, cl_error *err);
cl_status cl_k_verlet_kick(cl_device *d, cl_dtype t, size_t count, void *v, const void *a,
                           double dt, cl_error *err);
cl_status cl_k_wave2d_accel(cl_device *d, cl_dtype t, size_t nx, size_t ny, const void *u,
                            void *a, double c2_over_dx2, cl_error *err);

/* field[component, rows[r] - 1] = value, or += value when add (rows 1-based, distinct, u32,
 * on the same device) */
cl_status cl_k_set_rows(cl_device *d, cl_dtype t, void *field, size_t n, int component,
                        const uint32_t *rows, size_t count, double value, int add, cl_error *err);

#endif
