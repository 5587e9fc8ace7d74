#include "bond_max.h"
#include "force.h"

void CL_PREC(cl_pd_bond_max_cpu)(const cl_pd_force_args *a, const void *values, void *out) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < a->n; i++) ((real *)out)[i] = cl_pd_bond_max(a, (const real *)values, i);
}
