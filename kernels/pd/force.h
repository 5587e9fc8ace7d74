/* The peridynamic time-step kernel: PMB bond forces summed per point, bond
 * breaking, damage (paper 003 eq. 5) and optionally strain energy, in one
 * pass over the bond list. Two launch shapes on the GPU:
 *   CL_PD_POINT: one thread per point walks its row (paper's point-level parallelism);
 *   CL_PD_GROUPn: n lanes per point share its row and sum with warp
 *                shuffles (the paper's bond-level parallelism with warp
 *                reduction, Algorithm 4, without atomics: groups never straddle
 *                points, so every point is written by one lane).
 * The cpu backend always walks rows (OpenMP over points). A point's row is
 * its CSR list, or on a grid body its lattice stencil (lattice.h). */
#ifndef CL_PD_FORCE_H
#define CL_PD_FORCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CL_PD_GROUPn: n lanes per point (CL_PD_GROUP4 is "group"; CL_PD_POINT is the fastest measured). */
typedef enum cl_pd_kernel { CL_PD_POINT = 0, CL_PD_GROUP4 = 4, CL_PD_GROUP8 = 8, CL_PD_GROUP16 = 16, CL_PD_GROUP32 = 32 } cl_pd_kernel;

/* Pointers are device arrays in the precision of the kernel called (f32/f64);
 * vectors are SoA with dim components. */
typedef struct cl_pd_force_args {
  size_t n;
  int dim;
  const void *x;            /* reference coordinates */
  const void *u;            /* displacements */
  void *a;                  /* out: accelerations */
  const void *volume;       /* per-point volumes, or NULL: uniform_volume */
  double uniform_volume;
  const void *body;         /* body force per volume (SoA), or NULL */
  const void *surface;      /* surface correction factors per point and axis (SoA), or NULL */
  /* bonds: a CSR list (offsets != NULL) or a grid body's lattice (kernels/pd/lattice.h) */
  const uint32_t *offsets;  /* CSR rows, n + 1 */
  uint32_t *neighbors;      /* bond targets; CL_PD_BROKEN marks broken bonds (updated here) */
  const uint32_t *map, *cell; /* lattice: cell -> point, point -> cell */
  const int32_t *stencil;   /* lattice: map offset of each step */
  const void *stencil_geometry; /* lattice: per step xi (dim), |xi|, 1 / |xi| (AoS, dim + 2 per step) */
  uint32_t nstencil;
  uint32_t *broken;         /* lattice: bond-state bits, ceil(nstencil / 32) words x n (updated here) */
  void *damage;             /* out per point, or NULL */
  void *energy;             /* out: strain energy density per point, or NULL */
  double c, s0, rho, delta, dx; /* s0 <= 0: no breaking; dx <= 0: no partial volumes */
} cl_pd_force_args;

#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* The step kernel on d for fields of type t (f32/f64). */
cl_status cl_k_pd_force(cl_device *d, cl_dtype t, const cl_pd_force_args *a, cl_pd_kernel kernel,
                        cl_error *err);

/* One adaptive-dynamic-relaxation step (kernels/pd/adr.h) of n points x dim
 * components: f is the force density of the current u, f_prev the previous
 * one (overwritten with f), lambda the fictitious density per point; first
 * selects the start-up formula. *damping receives c_n. */
cl_status cl_k_pd_adr(cl_device *d, cl_dtype t, size_t n, int dim, void *u, void *v, const void *f,
                      void *f_prev, const void *lambda, int first, double *damping, cl_error *err);

void cl_pd_adr_quotient_cpu_f32(size_t count, size_t n, const void *u, const void *v, const void *f,
                                const void *f_prev, const void *lambda, double *num, double *den);
void cl_pd_adr_quotient_cpu_f64(size_t count, size_t n, const void *u, const void *v, const void *f,
                                const void *f_prev, const void *lambda, double *num, double *den);
void cl_pd_adr_update_cpu_f32(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                              const void *lambda, double damping, int first);
void cl_pd_adr_update_cpu_f64(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                              const void *lambda, double damping, int first);
int cl_pd_adr_quotient_cuda_f32(size_t count, size_t n, const void *u, const void *v, const void *f,
                                const void *f_prev, const void *lambda, double *scratch, double *num, double *den);
int cl_pd_adr_quotient_cuda_f64(size_t count, size_t n, const void *u, const void *v, const void *f,
                                const void *f_prev, const void *lambda, double *scratch, double *num, double *den);
int cl_pd_adr_update_cuda_f32(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                              const void *lambda, double damping, int first);
int cl_pd_adr_update_cuda_f64(size_t count, size_t n, void *u, void *v, const void *f, void *f_prev,
                              const void *lambda, double damping, int first);

void cl_pd_force_cpu_f32(const cl_pd_force_args *a);
void cl_pd_force_cpu_f64(const cl_pd_force_args *a);
int cl_pd_force_cuda_f32(const cl_pd_force_args *a, cl_pd_kernel kernel);
int cl_pd_force_cuda_f64(const cl_pd_force_args *a, cl_pd_kernel kernel);

#ifdef __cplusplus
}
#endif

#endif
