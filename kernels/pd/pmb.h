/* Bond-based peridynamics, prototype microelastic brittle (PMB) material.
 *
 * Pairwise force density of a bond xi = x_j - x_i with relative
 * displacement eta = u_j - u_i (Silling 2000; paper 003 eqs. 2-4):
 *   f = c s mu (xi + eta) / |xi + eta|,  s = (|xi + eta| - |xi|) / |xi|,
 * mu = 0 once s has exceeded the critical stretch s0 (never heals).
 * Acceleration of point i: a_i = (sum_j f V_j beta_ij + b_i) / rho.
 *
 * Micromodulus c and critical stretch s0 from E, G0 and the horizon delta
 * (derivations: Silling & Askari 2005 for 3D; Ha & Bobaru 2010 for 2D):
 *   3D (nu = 1/4):           c = 12 E / (pi delta^4),       s0 = sqrt(5 G0 / (6 E delta))
 *   2D plane stress (1/3):   c = 9 E / (pi h delta^3),      s0 = sqrt(4 pi G0 / (9 E delta))
 *   2D plane strain (1/4):   c = 48 E / (5 pi h delta^3),   s0 = sqrt(5 pi G0 / (12 E delta))
 * where h is the thickness (2D volumes are dx^2 h).
 *
 * Partial-volume correction beta (Madenci & Oterkus 2014): a neighbour whose
 * cell is cut by the horizon contributes only the part inside it,
 *   beta = 1                          for |xi| <= delta - dx/2
 *   beta = (delta + dx/2 - |xi|) / dx for delta - dx/2 < |xi| < delta. */
#ifndef CL_PD_PMB_H
#define CL_PD_PMB_H

#include "../common/real.h"

#define CL_PD_BROKEN 0x80000000u /* high bit of a neighbour index: the bond is broken */
#define CL_PD_INDEX 0x7fffffffu
#define CL_PD_ABSENT 0xffffffffu /* a lattice map cell that holds no point (lattice.h) */

typedef struct cl_pd_pmb {
  real c;         /* micromodulus */
  real s0;        /* critical stretch; <= 0: no breaking */
  real inv_rho;   /* 1 / density */
  real delta;     /* horizon */
  real half_dx;   /* dx / 2 for the partial-volume correction; 0 disables it */
  real inv_dx;    /* 1 / dx when half_dx > 0 */
} cl_pd_pmb;

/* The bond law: the scalar force density of an intact bond (per volume of
 * both ends), from its reference and current vectors xi and xi + eta, their
 * lengths r0 and r and the stretch s; it sets *cl_broken to break the bond
 * for good; cl_a and cl_slot locate the bond's state variables (a
 * run-time law's, force_args.h). It is also called for bonds already broken
 * (*cl_broken is then 1 on entry, and the force is dropped). Built in: PMB, whose body is the snippet file laws/pmb.c, the
 * same text a user starts a cleave.jit.bond_force law from. A run-time
 * compiled law (jit/) defines CL_PD_BOND_LAW before including this header. */
struct cl_pd_force_args;
#ifndef CL_PD_BOND_LAW
#define CL_PD_BOND_LAW cl_pd_pmb_law
CL_HD static inline real cl_pd_pmb_law(const struct cl_pd_pmb *m, int dim, const real *xi, const real *eta,
                                       real r0, real r, real s, int *cl_broken,
                                       const struct cl_pd_force_args *cl_a, size_t cl_slot) {
  const real c = m->c, s0 = m->s0;
  (void)dim, (void)xi, (void)eta, (void)r0, (void)r, (void)cl_a, (void)cl_slot;
#define broken (*cl_broken)
#include "laws/pmb.c"
#undef broken
}
#endif

CL_HD static inline real cl_pd_volume_fraction(const cl_pd_pmb *m, real r0) {
  if (m->half_dx <= 0 || r0 <= m->delta - m->half_dx) return (real)1;
  return (m->delta + m->half_dx - r0) * m->inv_dx;
}

/* The stretch s = |xi + eta| / |xi| - 1 of a bond, written without cancellation: since
 * |xi + eta|^2 - |xi|^2 = eta . (2 xi + eta),
 *   s = eta . (xi + d) / (|xi| (|d| + |xi|)),  d = xi + eta.
 * The direct form subtracts two lengths that agree to about -log10(s) digits: its absolute
 * error is a few ulp of 1 whatever s is (in f32 ~1e-7, so 1e-4 of s at s = 1e-3; a hardware
 * reciprocal square root adds its own ~2 ulp; and with |xi| from the stencil it is not even 0 at
 * rest), while this form keeps a few ulp of s itself at any stretch, and is exactly 0 for eta = 0.
 * Returns s and gives d, r = |d| and inv_r = 1 / |d| for the force. The reciprocal of
 * |d| + |xi| is one hardware instruction in f32 on the GPU (cl_pd_rcp32, 1 ulp: a relative error
 * of s, harmless), and on the host exactly 1 / x.
 * f64 keeps the direct form: its cancellation leaves ~1e-16 of s (1e-10 of the smallest
 * stretches that matter, 1e-6), while the second reciprocal square root is a software sequence of
 * about ten FP64 instructions per bond on the GPU, whose f64 step is bound by instruction issue. */
#if defined(__CUDA_ARCH__) && defined(CL_PRECISION_F32)
/* The f32 stretch's reciprocals as single hardware instructions (rsqrt.approx 2 ulp, rcp.approx
 * 1 ulp, the bounds of the CUDA guide), flushing denormal arguments instead of the five-instruction
 * rescaling rsqrtf wraps them in: the arguments are |d|^2 and |d| + |xi| of a bond, never denormal
 * (|xi| >= dx). */
CL_HD static inline float cl_pd_rsqrt32(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
CL_HD static inline float cl_pd_rcp32(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
#elif defined(CL_PRECISION_F32)
#define cl_pd_rsqrt32(x) CL_RSQRT(x)
#define cl_pd_rcp32(x) (1 / (x))
#endif

CL_HD static inline real cl_pd_stretch(int dim, const real *xi, const real *eta, real r0, real inv_r0, real *d,
                                       real *r, real *inv_r) {
  real r_2 = 0;
#if defined(CL_PRECISION_F32)
  real q = 0;
  for (int c = 0; c < dim; c++) {
    d[c] = xi[c] + eta[c];
    r_2 += d[c] * d[c];
    q += eta[c] * (xi[c] + d[c]);
  }
  *inv_r = cl_pd_rsqrt32(r_2);
  *r = r_2 * *inv_r;
  return q * inv_r0 * cl_pd_rcp32(*r + r0);
#else
  for (int c = 0; c < dim; c++) {
    d[c] = xi[c] + eta[c];
    r_2 += d[c] * d[c];
  }
  *inv_r = CL_RSQRT(r_2);
  *r = r_2 * *inv_r;
  return (*r - r0) * inv_r0;
#endif
}

/* Adds bond (i, j)'s force to acc[0..dim) and returns whether it is intact
 * after this step; r0 = |xi| and inv_r0 = 1 / |xi| (constants of the bond:
 * a lattice reads them from its stencil), w the bond's weight V_j beta (the
 * partial volume of j inside the horizon, cl_pd_volume_fraction: a constant
 * of a stencil entry too), scale the surface correction of the bond (1
 * without), acc receives force density per volume. The damage weights count
 * volumes only. */
CL_HD static inline int cl_pd_bond(const cl_pd_pmb *m, int dim, const real *xi, const real *eta, real r0,
                                   real inv_r0, real w, real scale, int intact, real *acc, real *weight_all,
                                   real *weight_intact, const struct cl_pd_force_args *a, size_t slot) {
  real d[3], r, inv_r;
  const real s = cl_pd_stretch(dim, xi, eta, r0, inv_r0, d, &r, &inv_r);
  *weight_all += w;
  /* the law runs for broken bonds too (their force is dropped): one branch after it instead of
   * one before and one after made the lattice step 7% faster in f64 on the H100 */
  int broken = !intact;
  real force = CL_PD_BOND_LAW(m, dim, xi, eta, r0, r, s, &broken, a, slot);
  if (broken | !intact) return 0; /* a law cannot heal a bond */
  *weight_intact += w;
  real f = force * w * scale * inv_r;
  for (int c = 0; c < dim; c++) acc[c] += f * d[c];
  return 1;
}

/* Surface correction of bond i-j (Madenci & Oterkus 2014, sec. 4.3): from the
 * per-point factors g (one per axis, W_continuum / W_PD under a uniform
 * extension along that axis), the bond's factor is the ellipse radius along
 * its direction n = xi / |xi| with semi-axes (g_i + g_j) / 2, 1 / rho^2 = sum_c n_c^2 / g_c^2.
 * Written without a division per axis (issue 19: they were most of the cost of a corrected
 * bond): with s_c = gi_c + gj_c (positive, near 2) and r0 = |xi|,
 *   2D: rho = r0 s_0 s_1 / (2 sqrt(xi_0^2 s_1^2 + xi_1^2 s_0^2)),
 *   3D: rho = r0 s_0 s_1 s_2 / (2 sqrt(xi_0^2 (s_1 s_2)^2 + xi_1^2 (s_0 s_2)^2 + xi_2^2 (s_0 s_1)^2)),
 * one reciprocal square root (in f32 on the GPU the hardware one, as for the stretch). */
CL_HD static inline real cl_pd_surface_factor(int dim, const real *xi, real r0, const real *gi, const real *gj) {
  real s[3], q, product;
  for (int c = 0; c < dim; c++) s[c] = gi[c] + gj[c];
  if (dim == 2) {
    q = xi[0] * xi[0] * (s[1] * s[1]) + xi[1] * xi[1] * (s[0] * s[0]);
    product = s[0] * s[1];
  } else {
    const real s01 = s[0] * s[1], s02 = s[0] * s[2], s12 = s[1] * s[2];
    q = xi[0] * xi[0] * (s12 * s12) + xi[1] * xi[1] * (s02 * s02) + xi[2] * xi[2] * (s01 * s01);
    product = s01 * s[2];
  }
#if defined(CL_PRECISION_F32)
  return (real)0.5 * r0 * product * cl_pd_rsqrt32(q);
#else
  return (real)0.5 * r0 * product * CL_RSQRT(q);
#endif
}

#endif
