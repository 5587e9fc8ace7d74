/* The quasi-static FE operations as CUDA kernels (fe_ep_kernels.h holds the physics): one
 * thread per Gauss point (stresses, forces), element-matrix row, node or matrix nonzero; no
 * atomics, so the result is the cpu loops' to round-off of the same sums in the same order. The
 * element kernels are compiled per operation, shape and order, so that each has the registers of
 * its own element size (one kernel over all orders would take p = 3's for p = 1). */
#include "../common/launch_cuda.cuh"
#include "fe_ep_kernels.h"

/* The element forces with one thread per Gauss point: a block holds blockDim.x elements of
 * blockDim.y = ngp points each (one thread per element was too few threads in flight at the Table 1
 * sizes, each holding a whole element's arrays). The block first stages its elements' node values
 * (du, matrix-free the coordinates) in shared memory, each read from global memory once rather than
 * once per point; each point's share of its element's force is then added into shared memory one
 * point after another, in the order the cpu loop adds them, so the sums are the same; the block writes
 * fe, consecutive threads consecutive elements. Shared arrays hold entry i of element x at
 * i blockDim.x + x: consecutive elements in consecutive banks. For Newton (OP CL_FE_EP_FORCES_TANGENT)
 * each point also leaves its law's tangent in dgp for the row kernel. */
extern __shared__ double fe_ep_shared[];
/* MF: the model's residual kind as a constant (A.matrix_free), so that each kernel holds the registers
 * of one way to get B-bar, not of both (ptxas, f64, sm_90, residual, p = 3: 288 B spilled with both,
 * 100 B matrix-free alone) */
template <int OP, int SHAPE, int ORDER, int MF>
__global__ void __launch_bounds__(CL_THREADS, 2) CL_PREC(fe_ep_gauss_kernel)(cl_fe_ep_args A) {
  A.matrix_free = MF;
  const int nn = cl_fe_nodes(SHAPE, ORDER), nd = 2 * nn, eb = blockDim.x, x = threadIdx.x, k = threadIdx.y;
  const size_t e = (size_t)blockIdx.x * eb + x;
  const bool live = e < A.ne;
  real *f = (real *)fe_ep_shared + x, *du = f + eb * nd, *xe = du + eb * nd;
  for (int i = k; i < nd; i += blockDim.y) f[i * eb] = 0;
  if (live)
    for (int a = k; a < nn; a += blockDim.y) cl_fe_ep_node_values(&A, OP, nn, e, a, du, xe, eb);
  __syncthreads();
  real grad[CL_FE_MAX_DOFS], D3[9], s3[3], w = 0;
  if (live) {
    w = cl_fe_ep_gauss_point(&A, OP, SHAPE, ORDER, e, k, du, xe, eb, grad, D3, s3);
    if (OP == CL_FE_EP_FORCES_TANGENT)
      for (int i = 0; i < 9; i++) ((real *)A.dgp)[i * A.ne * A.ngp + e * A.gs_e + k * A.gs_k] = D3[i];
  }
  for (int turn = 0; turn < (int)blockDim.y; turn++) {
    if (live && k == turn) cl_fe_add_btsig_strided(nn, grad, s3, w, f, eb);
    __syncthreads();
  }
  if (live)
    for (int i = k; i < nd; i += blockDim.y) ((real *)A.fe)[e * A.fe_e + i * A.fe_i] = f[i * eb];
}

/* The element forces of quadrilaterals by sum factorization (residual CL_FE_EP_SUM_FACTORIZED,
 * kernels/fe/quad_sum.h): a block of blockDim.x elements x (p+1)^2 threads, thread k of an element in
 * turn node k, Gauss point k and pass index k. The element's node values are staged in shared memory
 * once, then each pass reads the previous one's results there: the coordinates and du interpolated in
 * xi, the Gauss point's gradients (no per-node shape-function gradients: a thread holds 4 + 4 numbers,
 * not 2 x 2n) and its stress update, the reference fluxes, their contraction in xi, and the node's force,
 * which the thread writes to fe for the existing gather. Shared arrays (entry i of element x at
 * i blockDim.x + x, the passes' in quad_sum.h's order): du | xe (2n + 2n, then the fluxes, 4n), s1 (8n,
 * then the third pass, 4n); the tables L, dL ((p+1)^2 each) once per block. blockDim.x is the launch's
 * choice (cl_fe_ep_set_sum_threads). */
template <int ORDER>
/* The sum-factorized kernel's default block: 128 threads were the fastest on the H100 at every order's
 * largest level (docs/benchmarks.md, bench_fe table 1d: 58 / 55 / 59% of its floor at p = 1 / 2 / 3,
 * against 52 / 49 / 55% at 256). */
#define CL_FE_SUM_THREADS 128

__global__ void __launch_bounds__(CL_THREADS, 2) CL_PREC(fe_ep_sum_kernel)(cl_fe_ep_args A) {
  const int p1 = ORDER + 1, nn = p1 * p1, eb = blockDim.x, x = threadIdx.x, k = threadIdx.y;
  const size_t e = (size_t)blockIdx.x * eb + x;
  const bool live = e < A.ne;
  __shared__ real L[nn], dL[nn];
  real *du = (real *)fe_ep_shared + x, *xe = du + eb * 2 * nn, *s1 = xe + eb * 2 * nn, *s2 = du;
  real sig[6], ep = 0; /* the point's converged state, loaded first: its latency hides behind the passes */
  if (live) cl_fe_ep_state_n(&A, e * A.gs_e + k * A.gs_k, sig, &ep);
  if (x == 0 && k < p1) cl_quad_sum_table_row(ORDER, k, L, dL);
  if (live) cl_fe_ep_node_values(&A, CL_FE_EP_FORCES, nn, e, k, du, xe, eb);
  __syncthreads();
  if (live) cl_quad_sum_xi(ORDER, k, L, dL, xe, du, eb, s1);
  __syncthreads(); /* the node values read: s2 may overwrite them */
  if (live) cl_fe_ep_sum_gauss_point(&A, ORDER, e, k, L, dL, s1, sig, ep, s2, eb);
  __syncthreads(); /* s1 read: the third pass may overwrite it */
  if (live) cl_quad_sum_flux_xi(ORDER, k, L, dL, s2, eb, s1);
  __syncthreads();
  if (live) {
    real f[2];
    cl_quad_sum_force(ORDER, k, L, dL, s1, eb, f);
    ((real *)A.fe)[e * A.fe_e + 2 * k * A.fe_i] = f[0];
    ((real *)A.fe)[e * A.fe_e + (2 * k + 1) * A.fe_i] = f[1];
  }
}

/* The element matrices with one thread per row: thread t is row t / ne of element t % ne, so that a
 * warp reads the per-Gauss-point data of consecutive elements; each thread writes its whole row */
template <int OP, int SHAPE, int ORDER>
__global__ void CL_PREC(fe_ep_row_matrix_kernel)(cl_fe_ep_args A) {
  CL_GRID_STRIDE(t, A.ne * 2 * cl_fe_nodes(SHAPE, ORDER)) cl_fe_ep_element_row(&A, OP, SHAPE, ORDER, t % A.ne, (int)(t / A.ne));
}

template <int OP, int SHAPE, int ORDER>
static void CL_PREC(launch)(const cl_fe_ep_args *A) {
  const int ngp = cl_fe_ngauss(SHAPE, ORDER), nd = 2 * cl_fe_nodes(SHAPE, ORDER), eb = CL_THREADS / ngp;
  if (OP != CL_FE_EP_ELASTIC_TANGENT) {
    const int GOP = OP == CL_FE_EP_FORCES ? CL_FE_EP_FORCES : CL_FE_EP_FORCES_TANGENT;
    const dim3 grid((unsigned)((A->ne + eb - 1) / eb)), block(eb, ngp);
    const size_t shared = 3 * sizeof(real) * eb * nd;
    if (OP == CL_FE_EP_FORCES && SHAPE == CL_FE_QUAD && A->matrix_free == CL_FE_EP_SUM_FACTORIZED) {
      /* fewer elements a block than the others' when asked: its registers then round up less per SM */
      const int sb = (A->sum_threads ? A->sum_threads : CL_FE_SUM_THREADS) / ngp;
      CL_PREC(fe_ep_sum_kernel)<ORDER><<<(unsigned)((A->ne + sb - 1) / sb), dim3(sb, ngp),
                                         6 * sizeof(real) * sb * nd, cudaStreamPerThread>>>(*A); /* 12 n each */
    } else if (A->matrix_free)
      CL_PREC(fe_ep_gauss_kernel)<GOP, SHAPE, ORDER, 1><<<grid, block, shared, cudaStreamPerThread>>>(*A);
    else
      CL_PREC(fe_ep_gauss_kernel)<GOP, SHAPE, ORDER, 0><<<grid, block, shared, cudaStreamPerThread>>>(*A);
  }
  if (OP != CL_FE_EP_FORCES)
    CL_PREC(fe_ep_row_matrix_kernel)<OP == CL_FE_EP_ELASTIC_TANGENT ? CL_FE_EP_ELASTIC_TANGENT : CL_FE_EP_FORCES_TANGENT,
                                     SHAPE, ORDER><<<cl_grid_1d(A->ne * nd), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
}

/* op (forces; forces and consistent tangent; elastic tangent) on the model's element shape and order */
template <int OP>
static void CL_PREC(launch_elements)(const cl_fe_ep_args *A) {
  if (A->shape == CL_FE_QUAD && A->order == 1) CL_PREC(launch)<OP, CL_FE_QUAD, 1>(A);
  else if (A->shape == CL_FE_QUAD && A->order == 2) CL_PREC(launch)<OP, CL_FE_QUAD, 2>(A);
  else if (A->shape == CL_FE_QUAD) CL_PREC(launch)<OP, CL_FE_QUAD, 3>(A);
  else if (A->order == 1) CL_PREC(launch)<OP, CL_FE_TRI, 1>(A);
  else CL_PREC(launch)<OP, CL_FE_TRI, 2>(A);
}

__global__ void CL_PREC(fe_ep_node_kernel)(cl_fe_ep_args A) {
  CL_GRID_STRIDE(n, A.nnodes) cl_fe_ep_gather_node(&A, n);
}

__global__ void CL_PREC(fe_ep_nonzero_kernel)(cl_fe_ep_args A) {
  CL_GRID_STRIDE(j, A.nnz) cl_fe_ep_gather_nonzero(&A, j);
}

__global__ void CL_PREC(fe_ep_permute_kernel)(cl_fe_ep_args A) {
  CL_GRID_STRIDE(k, A.nnz) cl_fe_ep_permute_value(&A, k);
}

__global__ void CL_PREC(fe_ep_row_kernel)(cl_fe_ep_args A, int op) {
  CL_GRID_STRIDE(i, A.ndof) {
    if (op == CL_FE_EP_CONSTRAIN) cl_fe_ep_constrain_row(&A, i);
    else cl_fe_ep_cg_vector(&A, op, i);
  }
}

extern "C" int CL_PREC(cl_fe_ep_run_cuda)(const cl_fe_ep_args *A, int op) {
  switch (op) {
    case CL_FE_EP_GATHER_FORCES:
      if (A->nnodes) CL_PREC(fe_ep_node_kernel)<<<cl_grid_1d(A->nnodes), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
      break;
    case CL_FE_EP_GATHER_TANGENT:
      if (A->nnz) CL_PREC(fe_ep_nonzero_kernel)<<<cl_grid_1d(A->nnz), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
      break;
    case CL_FE_EP_FORCES:
      if (A->ne) CL_PREC(launch_elements)<CL_FE_EP_FORCES>(A);
      break;
    case CL_FE_EP_FORCES_TANGENT:
      if (A->ne) CL_PREC(launch_elements)<CL_FE_EP_FORCES_TANGENT>(A);
      break;
    case CL_FE_EP_PERMUTE:
      if (A->nnz) CL_PREC(fe_ep_permute_kernel)<<<cl_grid_1d(A->nnz), CL_THREADS, 0, cudaStreamPerThread>>>(*A);
      break;
    case CL_FE_EP_CONSTRAIN:
    case CL_FE_EP_CG_PRECONDITION:
    case CL_FE_EP_CG_STEP:
    case CL_FE_EP_CG_DIRECTION:
      if (A->ndof) CL_PREC(fe_ep_row_kernel)<<<cl_grid_1d(A->ndof), CL_THREADS, 0, cudaStreamPerThread>>>(*A, op);
      break;
    default:
      if (A->ne) CL_PREC(launch_elements)<CL_FE_EP_ELASTIC_TANGENT>(A);
  }
  return (int)cudaGetLastError();
}
