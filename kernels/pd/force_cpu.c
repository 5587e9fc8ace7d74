#include "force_rows.h"
#include "half_stencil.h"

void CL_PREC(cl_pd_force_cpu)(const cl_pd_force_args *a) { cl_pd_force_host(a); }

/* The half stencil's passes (half_stencil.h), with dim a constant of each instance. */
static void half_passes(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim) {
  memset(a->a, 0, a->n * (size_t)dim * sizeof(real));
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < a->n; i++) cl_pd_half_row(a, m, dim, i);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < a->n; i++) cl_pd_half_finish(a, m, dim, i);
}

void CL_PREC(cl_pd_force_half_cpu)(const cl_pd_force_args *a) {
  const cl_pd_pmb m = cl_pd_material(a);
  if (a->dim == 2) half_passes(a, &m, 2);
  else half_passes(a, &m, 3);
}

void CL_PREC(cl_pd_material_of)(const cl_pd_force_args *a, void *m) { *(cl_pd_pmb *)m = cl_pd_material(a); }
