#include <stddef.h>

#include "../common/exact_sum.h"
#include "adr.h"
#include "relax.h"

/* The quotient's terms of the first `owned` rows of n (a partitioned body's own points): entry j
 * of the owned ones is entry (j / owned) * n + j % owned of the SoA field. */
void CL_PREC(cl_pd_adr_quotient_max_cpu)(size_t owned, int dim, size_t n, const void *u, const void *v,
                                         const void *f, const void *f_prev, const void *lambda, double max[2]) {
  double mn = 0, md = 0;
  size_t count = owned * (size_t)dim;
#pragma omp parallel for schedule(static) reduction(max : mn, md)
  for (size_t j = 0; j < count; j++) {
    double a, b;
    cl_pd_adr_terms(u, v, f, f_prev, lambda, n, j / owned * n + j % owned, &a, &b);
    mn = fmax(mn, fabs(a)), md = fmax(md, b);
  }
  max[0] = mn, max[1] = md;
}

void CL_PREC(cl_pd_adr_quotient_sum_cpu)(size_t owned, int dim, size_t n, const void *u, const void *v,
                                         const void *f, const void *f_prev, const void *lambda, const int scale[2],
                                         long long acc[2 * CL_EXACT_LIMBS]) {
  long long s[2 * CL_EXACT_LIMBS] = {0};
  size_t count = owned * (size_t)dim;
#pragma omp parallel for schedule(static) reduction(+ : s[:2 * CL_EXACT_LIMBS])
  for (size_t j = 0; j < count; j++) {
    double a, b;
    cl_pd_adr_terms(u, v, f, f_prev, lambda, n, j / owned * n + j % owned, &a, &b);
    cl_exact_add(s, a, scale[0]), cl_exact_add(s + CL_EXACT_LIMBS, b, scale[1]);
  }
  for (int k = 0; k < 2 * CL_EXACT_LIMBS; k++) acc[k] = s[k];
}

void CL_PREC(cl_pd_adr_update_cpu)(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                                   const void *lambda, double damping, int first) {
#pragma omp parallel for schedule(static)
  for (size_t e = 0; e < count; e++) cl_pd_adr_step(u, v, f, f_prev, lambda, n, e, (real)damping, first);
}
