/* SASS probe (count.sh): the 3D tile kernel's PLAIN instance alone, compiled by count.sh against a copy
 * of the kernels whose dense loop is forced on, to count that loop with the point's share. */
#include "kernels/common/launch_cuda.cuh"
#include "kernels/pd/stencil_tile.cuh"

template __global__ void CL_PREC(pd_tile_kernel)<3, 122, 3, CL_PD_WEIGHTS_PLAIN>(cl_pd_force_args, cl_pd_pmb,
                                                                                const cl_pd_stencil_table<3, 122>,
                                                                                real, bool);
