/* cleave's CSR product against cuSPARSE's SpMV on a model's matrix, for the benchmark (bench_fe.lua). */
#ifndef CL_FE_EP_CUSPARSE_H
#define CL_FE_EP_CUSPARSE_H

#include "fe_ep_model.h"

/* Assembles the elastic stiffness into kval and times y = K x, seconds per product over reps after a
 * warm-up: own, the CG's CSR row kernel on the model's device; on a CUDA device also cusparse,
 * cusparseSpMV on the same arrays (f64, 32-bit indices), and diff, max |y_cusparse - y_own| / max |y_own|
 * (NaN both on the CPU). Overwrites kval and the CG's vectors (a solve rebuilds them). cuSPARSE missing:
 * CL_ERR_UNAVAILABLE. */
cl_status cl_fe_ep_spmv_compare(cl_fe_ep_model *m, int reps, double *own, double *cusparse, double *diff,
                                cl_error *err);

#endif
