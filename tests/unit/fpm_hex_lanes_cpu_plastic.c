/* The CPU path of kernels/fpm/hex.h with J2 in the plastic layout (see fpm_hex_lanes_plastic.c). */
#define CL_FPM_HEX_STATE CL_FPM_HEX_PLASTIC
#include "fpm_hex_lanes.h"
#include "../../kernels/fpm/hex.h"

void fpm_hex_lanes_cpu_plastic(const struct cl_fpm_hex_args *A) {
  for (size_t e = 0; e < A->ne; e++) cl_fpm_hex_item(A, e);
}
