/* The 8-particle hexahedral solid with 8 Gauss points, corotational (the vector-form intrinsic
 * solid of Ting, Shih & Wang 2004 in its total form). The fictitious reverse motion (paper eq. 6):
 * the rigid rotation R is the rotation of the polar decomposition of the deformation gradient at
 * the element's centre, the rigid translation that of its centroid; the pure deformation is
 *   eta_a = R^T (x_a - x_c) - (X_a - X_c)
 * in the deformation coordinate system (DCS: the reference axes turned by R). At each Gauss point
 * the small strain of eta, the stress_update law (CL_FPM_LAW, defined before this header: a built-in
 * or user snippet, lua/cleave/jit.lua) and what the point keeps (CL_FPM_HEX_STATE, below) give the
 * stress in the DCS; the element forces int B^T sig dV (eq. 9) are turned back by R and
 * subtracted from the particles' forces. A rigid motion leaves eta at round-off: no force.
 *
 * The work of an element is split among 8 lanes: lane a loads corner a, computes its eta and
 * assembles its force; lane g evaluates Gauss point g. On the GPU the lanes are 8 threads of a warp
 * exchanging values by shuffles, the corners' forces by a reduce-scatter of the points' shares (one
 * thread per element kept 8 x 3 values of each of X, x, eta, the gradients and the forces live: 255
 * registers and spills, docs/methods/finite-particle.md);
 * the CPU runs the same lane functions one after another in one thread per element, the lanes'
 * values in arrays, and so does a GPU module built with CL_FPM_HEX_ONE_THREAD (the kernel variant
 * "element", cleave.fpm.kernel_variant: the Gauss points one at a time, not unrolled, so that their
 * arrays are not all live at once). The gradients dN_a/dX = J^-T dN_a/ds are never formed: the displacement
 * gradient is (sum_a eta_a (x) dN_a/ds) J^-1 and the force of point g on corner a is T_g dN_a/ds
 * with the 3 x 3 T_g = sigma J^-T dV. */
#ifndef CL_FPM_HEX_H
#define CL_FPM_HEX_H

#include "fpm.h"
#include "rotation.h"

/* An element is 8 lanes of a warp on the GPU, unless the module is built one thread an element. */
#if defined(__CUDA_ARCH__) && !defined(CL_FPM_HEX_ONE_THREAD)
#define CL_FPM_HEX_WARP 1
#define CL_FPM_HEX_POINT_LOOP
#elif defined(__CUDA_ARCH__)
#define CL_FPM_HEX_POINT_LOOP _Pragma("unroll 1")
#else
#define CL_FPM_HEX_POINT_LOOP
#endif

/* Natural coordinates of the corners, VTK_HEXAHEDRON order. */
#define CL_FPM_HEX_CORNER(a, c) ((real)((((a) == 1 || (a) == 2 || (a) == 5 || (a) == 6) && (c) == 0) || \
                                         (((a) == 2 || (a) == 3 || (a) == 6 || (a) == 7) && (c) == 1) ||   \
                                         ((a) >= 4 && (c) == 2)) * 2 - 1)

/* The derivatives of corner a's shape function with respect to the natural coordinates at s. */
CL_HD static inline void cl_fpm_hex_dn(int a, const real *s, real *dn) {
  const real xi = CL_FPM_HEX_CORNER(a, 0), et = CL_FPM_HEX_CORNER(a, 1), ze = CL_FPM_HEX_CORNER(a, 2);
  dn[0] = xi * (1 + et * s[1]) * (1 + ze * s[2]) / 8;
  dn[1] = et * (1 + xi * s[0]) * (1 + ze * s[2]) / 8;
  dn[2] = ze * (1 + xi * s[0]) * (1 + et * s[1]) / 8;
}

/* Gauss point g's natural coordinates (weights 1). */
CL_HD static inline void cl_fpm_hex_gauss(int g, real *s) {
  const real gauss = (real)0.57735026918962576451; /* 1/sqrt(3) */
  for (int c = 0; c < 3; c++) s[c] = CL_FPM_HEX_CORNER(g, c) * gauss;
}

/* C = A B (transposed = 0) or A B^T (1), 3 x 3 row-major. */
CL_HD static inline void cl_fpm_hex_product(const real *A, const real *B, int transposed, real *C) {
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      C[3 * r + c] = transposed ? A[3 * r] * B[3 * c] + A[3 * r + 1] * B[3 * c + 1] + A[3 * r + 2] * B[3 * c + 2]
                                : A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
}

/* The lanes of one element: on the GPU the 8 threads of a warp named by mask, on the CPU arrays of
 * the values each lane shares (lane b's at rows + b stride). */
typedef struct cl_fpm_hex_lanes {
  unsigned mask;
  const real *rows;
  int stride;
} cl_fpm_hex_lanes;

/* Lane src's values first .. first + k - 1 (of its `mine`) into out; on the GPU every lane of the
 * element calls it alike. */
CL_HD static inline void cl_fpm_hex_fetch(const cl_fpm_hex_lanes *L, const real *mine, int first, int k, int src,
                                          real *out) {
#ifdef CL_FPM_HEX_WARP
  for (int c = 0; c < k; c++) out[c] = __shfl_sync(L->mask, mine[first + c], src, 8);
#else
  (void)mine;
  for (int c = 0; c < k; c++) out[c] = L->rows[src * L->stride + first + c];
#endif
}

/* sum over the corners b of v_b (x) dN_b/ds at natural point s, v_b lane b's values first .. first + 2
 * (0: the reference X, giving J; 3: eta): into G (3 x 3, row-major). */
CL_HD static inline void cl_fpm_hex_sum_dn(const cl_fpm_hex_lanes *L, const real *mine, int first, const real *s,
                                           real *G) {
  for (int k = 0; k < 9; k++) G[k] = 0;
  for (int b = 0; b < 8; b++) {
    real v[3], dn[3];
    cl_fpm_hex_fetch(L, mine, first, 3, b, v);
    cl_fpm_hex_dn(b, s, dn);
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++) G[3 * r + k] += v[r] * dn[k];
  }
}

/* The centre sums of corner a (reference X, current x): S[0..5] its share of the centroids X_c, x_c,
 * S[6..14] and S[15..23] of sum X_a (x) dN_a/ds and sum x_a (x) dN_a/ds at the centre. */
CL_HD static inline void cl_fpm_hex_centre_terms(int a, const real *X, const real *x, real *S) {
  const real centre[3] = {0, 0, 0};
  real dn[3];
  cl_fpm_hex_dn(a, centre, dn);
  for (int r = 0; r < 3; r++) {
    S[r] = X[r] / 8, S[3 + r] = x[r] / 8;
    for (int k = 0; k < 3; k++) S[6 + 3 * r + k] = X[r] * dn[k], S[15 + 3 * r + k] = x[r] * dn[k];
  }
}

/* The rigid rotation from the summed centre terms: the polar decomposition of F at the centre. */
CL_HD static inline void cl_fpm_hex_rotation(const real *S, real *R) {
  real Jinv[9], F[9];
  cl_fpm_inverse(S + 6, Jinv);
  cl_fpm_hex_product(S + 15, Jinv, 0, F);
  cl_fpm_polar(F, R);
}

/* Corner a's pure deformation eta = R^T (x - x_c) - (X - X_c) (S: the summed centre terms). */
CL_HD static inline void cl_fpm_hex_eta(const real *R, const real *S, const real *X, const real *x, real *eta) {
  const real rel[3] = {x[0] - S[3], x[1] - S[4], x[2] - S[5]};
  cl_fpm_apply_t(R, rel, eta);
  for (int c = 0; c < 3; c++) eta[c] -= X[c] - S[c];
}

#ifdef CL_FPM_LAW
/* What a Gauss point keeps between steps, chosen per law when the body is made (CL_FPM_HEX_STATE,
 * defined before this header; lua/cleave/fpm.lua):
 * - INCREMENTAL (a user's law): the stress and the strain of the last evaluation (eqs. 7-8), the
 *   law given the strain increment and the stored stress;
 * - TOTAL (the built-in elastic law): nothing. The formulation is total (eta is measured from the
 *   reference), so the incremental sum of D deps is D eps: the law is given a zero stress and the
 *   whole strain as its increment;
 * - PLASTIC (the built-in J2 law): the plastic strain. The law is given a zero stress and the
 *   elastic strain eps - eps_p, so its trial stress is D (eps - eps_p), which is the incremental
 *   path's trial sig_n + D deps as long as sig_n = D (eps_n - eps_p,n); the return keeps that true
 *   with eps_p = eps - C sig (C the elastic compliance). The law's state variables (ep) are kept as
 *   in every layout. */
#define CL_FPM_HEX_INCREMENTAL 0
#define CL_FPM_HEX_TOTAL 1
#define CL_FPM_HEX_PLASTIC 2
#ifndef CL_FPM_HEX_STATE
#define CL_FPM_HEX_STATE CL_FPM_HEX_INCREMENTAL
#endif

#ifndef CL_FPM_LAW_STATES
#error "define CL_FPM_LAW_STATES, the number of the law's state variables, before including hex.h"
#endif

/* A point's kept values (above) and its law's state variables, read before the element's work
 * begins: on the GPU their loads are in flight with the corners' (the element waits on memory once
 * before its arithmetic, not again at its points), and the law runs on them in registers. */
typedef struct cl_fpm_hex_kept {
#if CL_FPM_HEX_STATE == CL_FPM_HEX_INCREMENTAL
  real sig[6], eps[6];
#elif CL_FPM_HEX_STATE == CL_FPM_HEX_PLASTIC
  real plastic[6];
#endif
  real law[CL_FPM_LAW_STATES + 1]; /* + 1: no array of size 0 */
} cl_fpm_hex_kept;

/* Point i's kept values (i = 8 e + g). */
CL_HD static inline void cl_fpm_hex_keep(const cl_fpm_hex_args *A, size_t i, cl_fpm_hex_kept *k) {
  const size_t np = 8 * A->ne;
  (void)np;
#if CL_FPM_HEX_STATE == CL_FPM_HEX_INCREMENTAL
  for (int c = 0; c < 6; c++) k->sig[c] = ((const real *)A->sig)[c * np + i], k->eps[c] = ((const real *)A->eps)[c * np + i];
#elif CL_FPM_HEX_STATE == CL_FPM_HEX_PLASTIC
  for (int c = 0; c < 6; c++) k->plastic[c] = ((const real *)A->plastic)[c * np + i];
#endif
  for (int v = 0; v < CL_FPM_LAW_STATES; v++) k->law[v] = ((const real *)A->law.state[v])[i];
}

/* The strain of stress sig under isotropic elasticity (E, nu), Voigt with engineering shears. */
CL_HD static inline void cl_fpm_hex_compliance(real E, real nu, const real *sig, real *eps) {
  const real inv = 1 / E, trace = sig[0] + sig[1] + sig[2];
  for (int c = 0; c < 3; c++) eps[c] = ((1 + nu) * sig[c] - nu * trace) * inv;
  for (int c = 3; c < 6; c++) eps[c] = 2 * (1 + nu) * sig[c] * inv;
}

/* Gauss point g of element e: from the lanes' X and eta (6 values each, `mine` this lane's), the
 * strain, the law on the point's kept values k (read by cl_fpm_hex_keep; the new ones written), and
 * T = sigma J^-T dV; returns the point's elastic energy sig . eps / 2 dV. */
CL_HD static inline real cl_fpm_hex_point(const cl_fpm_hex_args *A, size_t e, int g, const cl_fpm_hex_lanes *L,
                                          const real *mine, cl_fpm_hex_kept *k, real *T) {
  const size_t np = 8 * A->ne, i = e * 8 + g;
  /* J from the corners' X, then sum eta (x) dN/ds: one of the two 3 x 3 sums live at a time */
  real s[3], J[9], Hn[9], Jinv[9], H[9]; /* H: the displacement gradient d eta_r / d X_c */
  cl_fpm_hex_gauss(g, s);
  cl_fpm_hex_sum_dn(L, mine, 0, s, J);
  const real dV = cl_fpm_inverse(J, Jinv);
  cl_fpm_hex_sum_dn(L, mine, 3, s, Hn);
  cl_fpm_hex_product(Hn, Jinv, 0, H);
  const real strain[6] = {H[0], H[4], H[8], H[5] + H[7], H[2] + H[6], H[1] + H[3]};
  real *sig = (real *)A->sig;
  real deps[6], st[6], D[36], energy = 0;
  for (int c = 0; c < 36; c++) D[c] = 0;
  cl_mp_args law = {1, 0, 0, 0, {0}}; /* the law's state variables: k->law, as its point 0 */
  for (int v = 0; v < CL_FPM_LAW_STATES; v++) law.state[v] = &k->law[v];
#if CL_FPM_HEX_STATE == CL_FPM_HEX_INCREMENTAL
  real *eps = (real *)A->eps;
  for (int c = 0; c < 6; c++) deps[c] = strain[c] - k->eps[c], eps[c * np + i] = strain[c], st[c] = k->sig[c];
#elif CL_FPM_HEX_STATE == CL_FPM_HEX_PLASTIC
  for (int c = 0; c < 6; c++) deps[c] = strain[c] - k->plastic[c], st[c] = 0;
#else
  for (int c = 0; c < 6; c++) deps[c] = strain[c], st[c] = 0;
#endif
  CL_FPM_LAW(deps, st, D, &law, 0);
#if CL_FPM_HEX_STATE == CL_FPM_HEX_PLASTIC
  real elastic[6], *plastic = (real *)A->plastic;
  cl_fpm_hex_compliance((real)A->E, (real)A->nu, st, elastic);
  for (int c = 0; c < 6; c++) plastic[c * np + i] = strain[c] - elastic[c];
#endif
  for (int v = 0; v < CL_FPM_LAW_STATES; v++) ((real *)A->law.state[v])[i] = k->law[v];
  for (int c = 0; c < 6; c++) energy += st[c] * strain[c] / 2 * dV;
  if (sig) /* the state (incremental), or the stress asked for as output */
    for (int c = 0; c < 6; c++) sig[c * np + i] = st[c];
  /* sigma dV as the symmetric 3 x 3 of the Voigt vector */
  const real Sv[9] = {st[0] * dV, st[5] * dV, st[4] * dV, st[5] * dV, st[1] * dV,
                      st[3] * dV, st[4] * dV, st[3] * dV, st[2] * dV};
  cl_fpm_hex_product(Sv, Jinv, 1, T);
  return energy;
}

/* A point's share T dN/ds of a corner's force, added to f. */
CL_HD static inline void cl_fpm_hex_add_share(const real *T, const real *dn, real *f) {
  for (int r = 0; r < 3; r++) f[r] += T[3 * r] * dn[0] + T[3 * r + 1] * dn[1] + T[3 * r + 2] * dn[2];
}

/* Point g's share of corner a's force, T_g dN_a/ds(s_g), added to f. */
CL_HD static inline void cl_fpm_hex_share(int g, int a, const real *T, real *f) {
  real s[3], dn[3];
  cl_fpm_hex_gauss(g, s);
  cl_fpm_hex_dn(a, s, dn);
  cl_fpm_hex_add_share(T, dn, f);
}

/* Corner a's force fl (in the DCS) turned back by R and taken from its particle p. */
CL_HD static inline void cl_fpm_hex_deposit(const cl_fpm_hex_args *A, size_t e, int a, uint32_t p, const real *R,
                                            const real *fl) {
  real fg[3];
  cl_fpm_apply(R, fl, fg);
  for (int c = 0; c < 3; c++) cl_fpm_deposit(A->fe, 8 * A->ne, A->ne, e, a, A->f, A->n, p, c, fg[c]);
}

/* Corner a of element e: its particle, reference and current position. */
CL_HD static inline uint32_t cl_fpm_hex_corner(const cl_fpm_hex_args *A, size_t e, int a, real *X, real *x) {
  const real *x0 = (const real *)A->x0, *d = (const real *)A->d;
  const uint32_t p = A->conn[a * A->ne + e];
  for (int c = 0; c < 3; c++) X[c] = x0[c * A->n + p], x[c] = X[c] + d[c * A->n + p];
  return p;
}

#ifdef CL_FPM_HEX_WARP
/* Threads per element (the lanes); the generated entry runs ne x CL_FPM_HEX_LANES items. */
#define CL_FPM_HEX_LANES CL_FPM_HEX_GPU_LANES

/* dN_a/ds at Gauss point g for the corner a = g ^ k, given g's corner signs: corner a's sign along
 * axis c is g's times that of k's bits (a corner's signs are bit 0 ^ bit 1, bit 1 and bit 2 of its
 * number, VTK order, and xor keeps parities), so in cl_fpm_hex_dn(a, s_g) the factors 1 + eta_a s_1
 * and 1 + zeta_a s_2 are 1 + (+-gauss), known where the loop over k is unrolled, and only the sign
 * in front is g's. The same values bit for bit: the factors and products are those of
 * cl_fpm_hex_dn, each sign a multiplication by +-1 (exact). Where a was a run-time number, every
 * share worked out its signs from a's bits and converted them, per component. */
__device__ static inline void cl_fpm_hex_dn_paired(const real *sign_g, int k, real *dn) {
  const real gauss = (real)0.57735026918962576451; /* 1/sqrt(3), as cl_fpm_hex_gauss */
  const real r[3] = {(real)(((k ^ (k >> 1)) & 1) ? -1 : 1), (real)((k >> 1) & 1 ? -1 : 1),
                     (real)((k >> 2) & 1 ? -1 : 1)};
  dn[0] = sign_g[0] * r[0] * ((1 + r[1] * gauss) * (1 + r[2] * gauss) / 8);
  dn[1] = sign_g[1] * r[1] * ((1 + r[0] * gauss) * (1 + r[2] * gauss) / 8);
  dn[2] = sign_g[2] * r[2] * ((1 + r[0] * gauss) * (1 + r[1] * gauss) / 8);
}

/* Point g's share of corner g ^ k's force, T_g dN/ds, added to f (cl_fpm_hex_share with a = g ^ k). */
__device__ static inline void cl_fpm_hex_share_paired(const real *sign_g, int k, const real *T, real *f) {
  real dn[3];
  cl_fpm_hex_dn_paired(sign_g, k, dn);
  cl_fpm_hex_add_share(T, dn, f);
}

/* Corner `lane`'s force sum_g T_g dN_lane/ds(s_g), from each lane g's T (`T` this lane's), by a
 * reduce-scatter: lane g forms its shares of the 8 corners, indexed relative to itself (share j is
 * corner g ^ j), and three exchanges with the lanes 4, 2 and 1 apart each send the half of the
 * partial sums that the partner keeps: 12 + 6 + 3 shuffled values instead of fetching the 8 lanes'
 * 9 values of T (72). Relative indices make the halves fixed (j >= 4, then 2, then 1), so no lane
 * selects what to send. */
__device__ static inline void cl_fpm_hex_corner_sum(unsigned mask, int lane, const real *T, real *fl) {
  const real sign[3] = {CL_FPM_HEX_CORNER(lane, 0), CL_FPM_HEX_CORNER(lane, 1), CL_FPM_HEX_CORNER(lane, 2)};
  real half[4][3];
  for (int k = 0; k < 4; k++) {
    real far[3] = {0, 0, 0};
    for (int r = 0; r < 3; r++) half[k][r] = 0;
    cl_fpm_hex_share_paired(sign, k, T, half[k]);
    cl_fpm_hex_share_paired(sign, k + 4, T, far);
    for (int r = 0; r < 3; r++) half[k][r] += __shfl_xor_sync(mask, far[r], 4, 8);
  }
  for (int k = 0; k < 2; k++)
    for (int r = 0; r < 3; r++) half[k][r] += __shfl_xor_sync(mask, half[k + 2][r], 2, 8);
  for (int r = 0; r < 3; r++) fl[r] = half[0][r] + __shfl_xor_sync(mask, half[1][r], 1, 8);
}

/* c ? a : b, as a select the compiler cannot see through: written plainly, R[lane] picked by a chain of
 * them becomes an indexed load and puts R in local memory for the whole kernel. */
__device__ static inline real cl_fpm_hex_select(int c, real a, real b) {
#ifndef __CUDACC__ /* the lanes emulated on the host (tests/unit/fpm_hex_lanes_gpu.c) */
  b = c ? a : b;
#elif defined(CL_PRECISION_F32)
  asm("{ .reg .pred p; setp.ne.s32 p, %3, 0; selp.f32 %0, %1, %2, p; }" : "=f"(b) : "f"(a), "f"(b), "r"(c));
#else
  asm("{ .reg .pred p; setp.ne.s32 p, %3, 0; selp.f64 %0, %1, %2, p; }" : "=d"(b) : "d"(a), "d"(b), "r"(c));
#endif
  return b;
}

/* Thread t: lane t % 8 of element t / 8 (blocks of a multiple of 32 threads: an element's lanes are
 * 8 aligned threads of one warp, all present or all absent). */
__device__ static inline void cl_fpm_hex_item(const cl_fpm_hex_args *A, size_t t) {
  const size_t e = t / 8;
  const int lane = (int)(t % 8);
  cl_fpm_hex_lanes L = {0xffu << (threadIdx.x & 24), 0, 0};
  real X[3], x[3], S[24], R[9];
  cl_fpm_hex_kept kept; /* point `lane`'s, read with the corner */
  cl_fpm_hex_keep(A, t, &kept);
  const uint32_t p = cl_fpm_hex_corner(A, e, lane, X, x);
  cl_fpm_hex_centre_terms(lane, X, x, S);
  for (int k = 1; k < 8; k <<= 1) /* the butterfly leaves every lane the same sums */
    for (int c = 0; c < 24; c++) S[c] += __shfl_xor_sync(L.mask, S[c], k, 8);
  cl_fpm_hex_rotation(S, R);
  real mine[6] = {X[0], X[1], X[2]};
  cl_fpm_hex_eta(R, S, X, x, mine + 3);
  /* R is the same in the 8 lanes: through the point each keeps one entry of it (lane k R[k], every
   * lane R[8]) and gathers it back for the deposit, 8 shuffles for 8 reals fewer live at the law */
  real R_lane = R[0];
  for (int k = 1; k < 8; k++) R_lane = cl_fpm_hex_select(lane == k, R[k], R_lane);
  const real R_8 = R[8];
  real T[9], fl[3];
  real energy = cl_fpm_hex_point(A, e, lane, &L, mine, &kept, T);
  cl_fpm_hex_corner_sum(L.mask, lane, T, fl);
  for (int k = 0; k < 8; k++) R[k] = __shfl_sync(L.mask, R_lane, k, 8);
  R[8] = R_8;
  cl_fpm_hex_deposit(A, e, lane, p, R, fl);
  for (int k = 1; k < 8; k <<= 1) energy += __shfl_xor_sync(L.mask, energy, k, 8);
  if (A->energy && lane == 0) ((real *)A->energy)[e] = energy;
}
#else
#define CL_FPM_HEX_LANES 1

/* Element t, its 8 lanes one after another. */
CL_HD static inline void cl_fpm_hex_item(const cl_fpm_hex_args *A, size_t t) {
  const size_t e = t;
  real X[8][3], x[8][3], S[24], R[9], lanes[8][9];
  uint32_t p[8];
  for (int c = 0; c < 24; c++) S[c] = 0;
  for (int a = 0; a < 8; a++) {
    real terms[24];
    p[a] = cl_fpm_hex_corner(A, e, a, X[a], x[a]);
    cl_fpm_hex_centre_terms(a, X[a], x[a], terms);
    for (int c = 0; c < 24; c++) S[c] += terms[c];
  }
  cl_fpm_hex_rotation(S, R);
  for (int a = 0; a < 8; a++) { /* lane a's X and eta */
    for (int c = 0; c < 3; c++) lanes[a][c] = X[a][c];
    cl_fpm_hex_eta(R, S, X[a], x[a], lanes[a] + 3);
  }
  cl_fpm_hex_lanes L = {0, lanes[0], 9};
  real T[8][9], energy = 0;
  CL_FPM_HEX_POINT_LOOP
  for (int g = 0; g < 8; g++) {
    cl_fpm_hex_kept kept;
    cl_fpm_hex_keep(A, 8 * e + g, &kept);
    energy += cl_fpm_hex_point(A, e, g, &L, lanes[g], &kept, T[g]);
  }
  CL_FPM_HEX_POINT_LOOP
  for (int a = 0; a < 8; a++) { /* corner a's force sum_g T_g dN_a/ds(s_g) */
    real fl[3] = {0, 0, 0};
    for (int g = 0; g < 8; g++) cl_fpm_hex_share(g, a, T[g], fl);
    cl_fpm_hex_deposit(A, e, a, p[a], R, fl);
  }
  if (A->energy) ((real *)A->energy)[e] = energy;
}
#endif
#endif

#endif
