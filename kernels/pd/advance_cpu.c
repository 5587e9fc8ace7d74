#include "advance.h"
#include "force.h"

void CL_PREC(cl_pd_advance_cpu)(size_t n, int dim, void *u, const void *u_prev, void *v, const void *a,
                                const uint8_t *held, double dt, int free_too) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++)
    cl_pd_advance_point(n, dim, i, (real *)u, (const real *)u_prev, (real *)v, (const real *)a, held, (real)dt,
                        free_too);
}
