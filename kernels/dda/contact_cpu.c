#include "contact_kernels.h"

void CL_PREC(cl_dda_contact_setup_cpu)(const cl_dda_setup_args *a) {
#pragma omp parallel for schedule(static) if (a->nc > 4096)
  for (size_t k = 0; k < a->nc; k++) cl_dda_contact_setup(a, k);
}

void CL_PREC(cl_dda_account_cpu)(const cl_dda_account_args *a) {
#pragma omp parallel for schedule(static) if (a->nc > 4096)
  for (size_t k = 0; k < a->nc; k++) cl_dda_contact_account(a, k);
}

/* integers only: one copy, the f64 build's */
#ifndef CL_PRECISION_F32
void cl_dda_pattern_cpu_f64(const cl_dda_pattern_args *a, int pass, size_t items) {
#pragma omp parallel for schedule(static) if (items > 4096)
  for (size_t k = 0; k < items; k++) cl_dda_pattern_item(a, pass, k);
}

void cl_dda_transfer_cpu_f64(const cl_dda_transfer_args *a, int pass) {
#pragma omp parallel for schedule(static) if (a->nfound > 4096)
  for (size_t k = 0; k < a->nfound; k++) cl_dda_transfer_item(a, pass, k);
}
#endif
