#include <stddef.h>

#include "adr.h"
#include "force.h"

void CL_PREC(cl_pd_adr_quotient_cpu)(size_t count, size_t n, const void *u, const void *v, const void *f,
                                     const void *f_prev, const void *lambda, double *num, double *den) {
  double sn = 0, sd = 0;
#pragma omp parallel for schedule(static) reduction(+ : sn, sd)
  for (size_t e = 0; e < count; e++) {
    double a, b;
    cl_pd_adr_terms(u, v, f, f_prev, lambda, n, e, &a, &b);
    sn += a, sd += b;
  }
  *num = sn, *den = sd;
}

void CL_PREC(cl_pd_adr_update_cpu)(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                                   const void *lambda, double damping, int first) {
#pragma omp parallel for schedule(static)
  for (size_t e = 0; e < count; e++) cl_pd_adr_step(u, v, f, f_prev, lambda, n, e, (real)damping, first);
}
