#include <string.h>

#include "point_force.h"

void CL_PREC(cl_pd_force_cpu)(const cl_pd_force_args *a) {
  const cl_pd_pmb m = cl_pd_material(a);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < a->n; i++) {
    cl_pd_partial p;
    memset(&p, 0, sizeof p);
    cl_pd_row(a, &m, i, 0, 1, &p);
    cl_pd_finish(a, &m, i, &p);
  }
}
