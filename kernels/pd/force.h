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

#include "force_args.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* The step kernel on d for fields of type t (f32/f64). */
cl_status cl_k_pd_force(cl_device *d, cl_dtype t, const cl_pd_force_args *a, cl_pd_kernel kernel,
                        cl_error *err);

/* The step kernel of a run-time compiled bond law: entry is the jit module's
 * entry point built for d and the fields' precision (cpu: the rows loop of
 * force_rows.h; cuda: the kernel of launch shape `shape`). */
cl_status cl_k_pd_force_compiled(cl_device *d, cl_dtype t, const cl_pd_force_args *a, cl_pd_kernel shape,
                                 void *entry, cl_error *err);

/* out[i] = the largest of a per-bond quantity (values, one per bond slot) over point i's bonds;
 * a carries the bonds (offsets/neighbors or the lattice). */
cl_status cl_k_pd_bond_max(cl_device *d, cl_dtype t, const cl_pd_force_args *a, const void *values, void *out,
                           cl_error *err);
void cl_pd_bond_max_cpu_f32(const cl_pd_force_args *a, const void *values, void *out);
void cl_pd_bond_max_cpu_f64(const cl_pd_force_args *a, const void *values, void *out);
int cl_pd_bond_max_cuda_f32(const cl_pd_force_args *a, const void *values, void *out);
int cl_pd_bond_max_cuda_f64(const cl_pd_force_args *a, const void *values, void *out);

/* The opening kick-drift of a step whose force pass drifts the next step's displacements (advance.h):
 * n points, dim components, u the buffer the step's force pass reads, u_prev the last step's; held:
 * u8 per point (bit c: component c is prescribed) or NULL; free_too: drift the free components too. */
cl_status cl_k_pd_advance(cl_device *d, cl_dtype t, size_t n, int dim, void *u, const void *u_prev, void *v,
                          const void *a, const uint8_t *held, double dt, int free_too, cl_error *err);
#define CL_PD_ADVANCE_ARGS (size_t n, int dim, void *u, const void *u_prev, void *v, const void *a, \
                            const uint8_t *held, double dt, int free_too)
void cl_pd_advance_cpu_f32 CL_PD_ADVANCE_ARGS;
void cl_pd_advance_cpu_f64 CL_PD_ADVANCE_ARGS;
int cl_pd_advance_cuda_f32 CL_PD_ADVANCE_ARGS;
int cl_pd_advance_cuda_f64 CL_PD_ADVANCE_ARGS;

/* The material constants (cl_pd_pmb, at most CL_PD_MATERIAL_BYTES) in each precision, built on
 * the host for the kernels that take them as an argument. */
#define CL_PD_MATERIAL_BYTES 64
void cl_pd_material_of_f32(const cl_pd_force_args *a, void *m);
void cl_pd_material_of_f64(const cl_pd_force_args *a, void *m);
void cl_pd_force_cpu_f32(const cl_pd_force_args *a);
void cl_pd_force_cpu_f64(const cl_pd_force_args *a);
void cl_pd_force_half_cpu_f32(const cl_pd_force_args *a);
void cl_pd_force_half_cpu_f64(const cl_pd_force_args *a);
int cl_pd_force_cuda_f32(const cl_pd_force_args *a, cl_pd_kernel kernel);
int cl_pd_force_cuda_f64(const cl_pd_force_args *a, cl_pd_kernel kernel);

#ifdef __cplusplus
}
#endif

#endif
