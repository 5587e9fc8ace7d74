#include "force_rows.h"

void CL_PREC(cl_pd_force_cpu)(const cl_pd_force_args *a) { cl_pd_force_host(a); }

void CL_PREC(cl_pd_material_of)(const cl_pd_force_args *a, void *m) { *(cl_pd_pmb *)m = cl_pd_material(a); }
