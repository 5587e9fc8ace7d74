#include "block_kernels.h"
#include "diagonal.h"

void CL_PREC(cl_dda_diagonal_cpu)(const cl_dda_block_args *a) {
#pragma omp parallel for schedule(static) if (a->n > 256)
  for (size_t i = 0; i < a->n; i++) cl_dda_diagonal_block(a, i);
}

void CL_PREC(cl_dda_update_cpu)(const cl_dda_block_args *a) {
#pragma omp parallel for schedule(static) if (a->n > 256)
  for (size_t i = 0; i < a->n; i++) cl_dda_update_block(a, i);
}

void CL_PREC(cl_dda_predict_cpu)(const cl_dda_block_args *a) {
#pragma omp parallel for schedule(static) if (a->n > 256)
  for (size_t i = 0; i < a->n; i++) cl_dda_predict_block(a, i);
}

void CL_PREC(cl_dda_check_cpu)(const cl_dda_block_args *a) {
#pragma omp parallel for schedule(static) if (a->n > 256)
  for (size_t i = 0; i < a->n; i++) cl_dda_check_block(a, i);
}
