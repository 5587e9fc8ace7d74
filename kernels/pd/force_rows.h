/* The step kernel on the host: OpenMP over points, each walking its row.
 * Included by force_cpu.c (built-in law) and by run-time compiled laws (jit/). */
#ifndef CL_PD_FORCE_ROWS_H
#define CL_PD_FORCE_ROWS_H

#include <string.h>

#include "point_force.h"

/* One instance per dimension, so that the per-axis loops have constant bounds. */
static void cl_pd_force_rows(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim) {
  const size_t end = CL_PD_ROWS_END(a);
#pragma omp parallel for schedule(static)
  for (size_t i = a->row0; i < end; i++) {
    cl_pd_partial p;
    memset(&p, 0, sizeof p);
    if (a->map) cl_pd_lattice_row(a, m, dim, i, 0, 1, &p);
    else cl_pd_row(a, m, dim, i, 0, 1, &p);
    cl_pd_finish(a, m, dim, i, &p);
  }
}

static void cl_pd_force_host(const cl_pd_force_args *a) {
  const cl_pd_pmb m = cl_pd_material(a);
  if (a->dim == 2) cl_pd_force_rows(a, &m, 2);
  else cl_pd_force_rows(a, &m, 3);
}

#endif
