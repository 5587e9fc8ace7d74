/* Adaptive dynamic relaxation's step (relax.h): the damping from Rayleigh's quotient, whose sums are
 * order-independent (kernels/common/exact_sum.h) and, on a partitioned body, over every rank. */
#include "relax.h"

#include <math.h>

#include "../../runtime/comm.h"
#include "../common/exact_sum.h"
#include "../dispatch.h"

/* Both sums' limbs added over the ranks: normalised, each limb of each rank is an integer below 2^53
 * (exact in a double) and so are their sums for fewer than 2^29 terms per rank. */
static cl_status limbs_over_ranks(long long *acc, cl_error *err) {
  double limbs[2 * CL_EXACT_LIMBS];
  for (int s = 0; s < 2; s++) cl_exact_normalize(acc + s * CL_EXACT_LIMBS);
  for (int k = 0; k < 2 * CL_EXACT_LIMBS; k++) limbs[k] = (double)acc[k];
  CL_TRY(cl_comm_allreduce(limbs, 2 * CL_EXACT_LIMBS, CL_COMM_SUM, err));
  for (int k = 0; k < 2 * CL_EXACT_LIMBS; k++) acc[k] = (long long)limbs[k];
  return CL_OK;
}

/* c_n = 2 sqrt(sum u K u / sum u^2) over the owned entries (adr.h); 0 unless both are positive. */
static cl_status adr_damping(cl_device *d, cl_dtype t, size_t n, size_t owned, int dim, const void *u,
                             const void *v, const void *f, const void *f_prev, const void *lambda, int over_ranks,
                             double *damping, cl_error *err) {
  double *scratch = NULL, max[2];
  if (d->kind != CL_BACKEND_CPU) CL_TRY(cl_k_reduce_scratch(d, &scratch, err));
  int code = d->kind == CL_BACKEND_CPU
                 ? (t == CL_F32 ? cl_pd_adr_quotient_max_cpu_f32 : cl_pd_adr_quotient_max_cpu_f64)(
                       owned, dim, n, u, v, f, f_prev, lambda, max), 0
                 : (t == CL_F32 ? CL_CUDA_CALL(cl_pd_adr_quotient_max_cuda_f32(owned, dim, n, u, v, f, f_prev, lambda, scratch, max))
                                : CL_CUDA_CALL(cl_pd_adr_quotient_max_cuda_f64(owned, dim, n, u, v, f, f_prev, lambda, scratch, max)));
  CL_TRY(cl_k_check_launch(d, code, "pd_adr_quotient_max", err));
  if (over_ranks) CL_TRY(cl_comm_allreduce(max, 2, CL_COMM_MAX, err));
  *damping = 0;
  if (!isfinite(max[0]) || !isfinite(max[1])) return CL_OK; /* a diverged state: no damping to compute */
  int scale[2] = {cl_exact_scale(max[0]), cl_exact_scale(max[1])};
  long long acc[2 * CL_EXACT_LIMBS];
  code = d->kind == CL_BACKEND_CPU
             ? (t == CL_F32 ? cl_pd_adr_quotient_sum_cpu_f32 : cl_pd_adr_quotient_sum_cpu_f64)(
                   owned, dim, n, u, v, f, f_prev, lambda, scale, acc), 0
             : (t == CL_F32 ? CL_CUDA_CALL(cl_pd_adr_quotient_sum_cuda_f32(owned, dim, n, u, v, f, f_prev, lambda, scale, scratch, acc))
                            : CL_CUDA_CALL(cl_pd_adr_quotient_sum_cuda_f64(owned, dim, n, u, v, f, f_prev, lambda, scale, scratch, acc)));
  CL_TRY(cl_k_check_launch(d, code, "pd_adr_quotient_sum", err));
  if (over_ranks) CL_TRY(limbs_over_ranks(acc, err));
  for (int s = 0; s < 2; s++) cl_exact_normalize(acc + s * CL_EXACT_LIMBS);
  double num = cl_exact_value(acc, scale[0]), den = cl_exact_value(acc + CL_EXACT_LIMBS, scale[1]);
  *damping = num > 0 && den > 0 ? 2 * sqrt(num / den) : 0;
  return CL_OK;
}

cl_status cl_k_pd_adr(cl_device *d, cl_dtype t, size_t n, size_t owned, int dim, void *u, void *v, const void *f,
                      void *f_prev, const void *lambda, int first, int over_ranks, double *damping, cl_error *err) {
  *damping = 0;
  if (!first) CL_TRY(adr_damping(d, t, n, owned, dim, u, v, f, f_prev, lambda, over_ranks, damping, err));
  size_t count = n * (size_t)dim;
  int code = d->kind == CL_BACKEND_CPU
                 ? (t == CL_F32 ? cl_pd_adr_update_cpu_f32 : cl_pd_adr_update_cpu_f64)(count, n, u, v, f, f_prev,
                                                                                     lambda, *damping, first), 0
                 : (t == CL_F32 ? CL_CUDA_CALL(cl_pd_adr_update_cuda_f32(count, n, u, v, f, f_prev, lambda, *damping, first))
                                : CL_CUDA_CALL(cl_pd_adr_update_cuda_f64(count, n, u, v, f, f_prev, lambda, *damping, first)));
  return cl_k_check_launch(d, code, "pd_adr_update", err);
}
