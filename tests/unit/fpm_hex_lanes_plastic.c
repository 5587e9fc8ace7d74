/* The hexahedron's two paths again with J2 in the plastic layout (kernels/fpm/hex.h: each point keeps
 * its plastic strain and ep, read at the element's start), for test_fpm_hex_lanes.c: the CPU item
 * over every element, and the GPU's 8-lane item through fpm_hex_lanes_gpu.c's emulated shuffles. */
#define CL_FPM_HEX_STATE CL_FPM_HEX_PLASTIC
#define fpm_hex_lanes_gpu fpm_hex_lanes_gpu_plastic
#include "fpm_hex_lanes_gpu.c"
