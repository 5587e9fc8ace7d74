/* Adaptive dynamic relaxation (the physics: adr.h): the step's dispatch to the cpu loops or cuda
 * launches, and its damping's sums over the points of a body, partitioned over ranks or not. */
#ifndef CL_PD_RELAX_H
#define CL_PD_RELAX_H

#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One step of n points x dim components: f is the force density of the current u, f_prev the
 * previous one (overwritten with f), lambda the fictitious density per point; first selects the
 * start-up formula. *damping receives c_n. Its two sums run over the first `owned` rows (a
 * partitioned body's own points; n otherwise) and, with over_ranks, over every rank's (a
 * collective call). They are order-independent sums (kernels/common/exact_sum.h), so a step is
 * the same bits on any number of ranks, OpenMP threads or CUDA blocks. */
cl_status cl_k_pd_adr(cl_device *d, cl_dtype t, size_t n, size_t owned, int dim, void *u, void *v, const void *f,
                      void *f_prev, const void *lambda, int first, int over_ranks, double *damping, cl_error *err);

#define CL_PD_ADR_QUOTIENT_ARGS size_t owned, int dim, size_t n, const void *u, const void *v, const void *f, \
                                const void *f_prev, const void *lambda
/* The largest |term| of each sum (max[0]: numerator, max[1]: denominator). */
void cl_pd_adr_quotient_max_cpu_f32(CL_PD_ADR_QUOTIENT_ARGS, double max[2]);
void cl_pd_adr_quotient_max_cpu_f64(CL_PD_ADR_QUOTIENT_ARGS, double max[2]);
int cl_pd_adr_quotient_max_cuda_f32(CL_PD_ADR_QUOTIENT_ARGS, double *scratch, double max[2]);
int cl_pd_adr_quotient_max_cuda_f64(CL_PD_ADR_QUOTIENT_ARGS, double *scratch, double max[2]);
/* The fixed-point limbs of both sums at the given scales (acc[0..4): numerator, acc[4..8): denominator). */
void cl_pd_adr_quotient_sum_cpu_f32(CL_PD_ADR_QUOTIENT_ARGS, const int scale[2], long long acc[8]);
void cl_pd_adr_quotient_sum_cpu_f64(CL_PD_ADR_QUOTIENT_ARGS, const int scale[2], long long acc[8]);
int cl_pd_adr_quotient_sum_cuda_f32(CL_PD_ADR_QUOTIENT_ARGS, const int scale[2], double *scratch, long long acc[8]);
int cl_pd_adr_quotient_sum_cuda_f64(CL_PD_ADR_QUOTIENT_ARGS, const int scale[2], double *scratch, long long acc[8]);
void cl_pd_adr_update_cpu_f32(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                              const void *lambda, double damping, int first);
void cl_pd_adr_update_cpu_f64(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                              const void *lambda, double damping, int first);
int cl_pd_adr_update_cuda_f32(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                              const void *lambda, double damping, int first);
int cl_pd_adr_update_cuda_f64(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                              const void *lambda, double damping, int first);

#ifdef __cplusplus
}
#endif

#endif
