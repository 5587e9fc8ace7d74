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

typedef enum cl_czm_op {
  CL_CZM_FORCE_START,  /* nodes: a = load scale * load, or 0 */
  CL_CZM_FORCE,        /* elements: a += element and cohesive forces (scatter) */
  CL_CZM_FORCE_FINISH, /* nodes: a /= mass */
  CL_CZM_KINETIC,      /* nodes: out[i] = kinetic energy of node i */
  CL_CZM_MASS,         /* elements: mass += lumped masses (scatter; zero mass first) */
  CL_CZM_STRESS,       /* elements: stress += nodal extrapolations, weights (zero first) */
  CL_CZM_STIFFNESS,    /* elements: store K (A->stiffness, writable here) */
  CL_CZM_ENERGY,       /* elements: out[e] = strain energy of e */
  CL_CZM_CHECK,        /* elements: mask facets to crack; counters[2] += facets marked */
  CL_CZM_COUNT,        /* elements: counts[e] = new nodes << 32 | new cohesive elements */
  CL_CZM_SCAN,         /* elements: offsets = exclusive scan of counts over the range */
  CL_CZM_APPLY,        /* elements: crack the marked facets */
  CL_CZM_ADVANCE       /* counters[0, 1] += the range's totals */
} cl_czm_op;

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
