/* The hexahedron kernel (kernels/fpm/hex.h) around the built-in J2 law, as lua/cleave/jit.lua
 * generates its unit (f64), for test_fpm_hex_lanes.c: the CPU item (there) against the GPU's
 * 8-lane item with its warp shuffles emulated by 8 threads (fpm_hex_lanes_gpu.c). */
#ifndef CL_TEST_FPM_HEX_LANES_H
#define CL_TEST_FPM_HEX_LANES_H

#include <math.h>

#include "../../kernels/common/material_point.h"

static inline void cl_jit_law(const real *deps, real *sig, real *D, const cl_mp_args *cl_a, size_t cl_i) {
  const real E = 2e11, nu = 0.3, sy = 2.5e8, H = 2.2e10;
#define ep (((real *)cl_a->state[0])[cl_i])
#include "../../kernels/fe/laws/j2.c"
#undef ep
}
#define CL_FPM_LAW cl_jit_law
#define CL_FPM_LAW_STATES 1

struct cl_fpm_hex_args;
/* Every element of A by the GPU's lanes: 8 threads, one per lane, stepping through the elements
 * together. */
void fpm_hex_lanes_gpu(const struct cl_fpm_hex_args *A);
/* The same two paths with J2 in the plastic layout (fpm_hex_lanes_plastic.c, fpm_hex_lanes_cpu_plastic.c). */
void fpm_hex_lanes_gpu_plastic(const struct cl_fpm_hex_args *A);
void fpm_hex_lanes_cpu_plastic(const struct cl_fpm_hex_args *A);

#endif
