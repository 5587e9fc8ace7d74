/* The step kernels whose epilogue is cl_pd_finish (kernels/pd/point_force.h), one instance of each
 * shape, for hazard.sh: the tile kernels (3D also 6 cells deep, "tile6") and the table kernel (PLAIN,
 * the benchmark's bodies), the point kernel on a lattice and on a list, a group kernel and the half
 * stencil's finish pass; and the cohesive
 * FEM's node kernel (kernels/czm/czm_cuda.cu: czm_node_kernel, the same body), whose reactions read
 * and write the same words. */
#include "kernels/common/launch_cuda.cuh"
#include "kernels/czm/czm.h"
#include "kernels/pd/force_kernels.cuh"
#include "kernels/pd/half_stencil.h"
#include "kernels/pd/stencil_tile.cuh"

template __global__ void CL_PREC(pd_tile_kernel)<2, 28, 3, CL_PD_WEIGHTS_PLAIN>(cl_pd_force_args, cl_pd_pmb,
                                                                            const cl_pd_stencil_table<2, 28>);
template __global__ void CL_PREC(pd_tile_kernel)<3, 122, 3, CL_PD_WEIGHTS_PLAIN>(cl_pd_force_args, cl_pd_pmb,
                                                                             const cl_pd_stencil_table<3, 122>);
template __global__ void CL_PREC(pd_tile_kernel)<3, 122, 3, CL_PD_WEIGHTS_PLAIN, 6>(cl_pd_force_args, cl_pd_pmb,
                                                                                const cl_pd_stencil_table<3, 122>);
template __global__ void CL_PREC(pd_table_kernel)<2, 28, CL_PD_WEIGHTS_PLAIN>(cl_pd_force_args, cl_pd_pmb,
                                                                          const cl_pd_stencil_table<2, 28>);

__global__ void probe_point_lattice_3d(cl_pd_force_args a, cl_pd_pmb m) { cl_pd_point_body<3, true>(a, m); }
__global__ void probe_point_list_2d(cl_pd_force_args a, cl_pd_pmb m) { cl_pd_point_body<2, false>(a, m); }
__global__ void probe_group_lattice_2d(cl_pd_force_args a, cl_pd_pmb m) { cl_pd_group_body<2, true, 8>(a, m); }
__global__ void probe_half_finish_3d(cl_pd_force_args a, cl_pd_pmb m) {
  CL_GRID_STRIDE(i, a.n) cl_pd_half_finish(&a, &m, 3, i);
}
__global__ void probe_czm_node(cl_czm_args A, int op, real *out) {
  CL_GRID_STRIDE(r, A.count) cl_czm_node_op(&A, op, A.first + r, out);
}
