/* CPU loops of the finite particle method's precompiled kernels (OpenMP). */
#include "beam.h"
#include "fpm_dispatch.h"
#include "integrate.h"
#include "shell.h"

/* Loops shorter than this run on one thread: forking the team costs more than they do (a 10-beam
 * step took 1 ms with 2 threads on a busy 2-core machine, 10 us on one). */
#define CL_FPM_SERIAL_BELOW 4096

void CL_PREC(cl_fpm_step_cpu)(const cl_fpm_particle_args *a) {
#pragma omp parallel for schedule(static) if (a->n > CL_FPM_SERIAL_BELOW)
  for (size_t i = 0; i < a->n; i++) cl_fpm_step_at(a, i, a->q != NULL);
}

void CL_PREC(cl_fpm_gather_cpu)(const cl_fpm_gather_args *a) {
#pragma omp parallel for schedule(static) if (a->n > CL_FPM_SERIAL_BELOW)
  for (size_t i = 0; i < a->n; i++) cl_fpm_gather_at(a, i);
}

void CL_PREC(cl_fpm_shell_cpu)(const cl_fpm_shell_args *a) {
#pragma omp parallel for schedule(static) if (a->ne > CL_FPM_SERIAL_BELOW)
  for (size_t e = 0; e < a->ne; e++) cl_fpm_shell_at(a, e);
}

void CL_PREC(cl_fpm_pressure_cpu)(const cl_fpm_pressure_args *a) {
#pragma omp parallel for schedule(static) if (a->count > CL_FPM_SERIAL_BELOW)
  for (size_t r = 0; r < a->count; r++) cl_fpm_pressure_at(a, r);
}

void CL_PREC(cl_fpm_beam_cpu)(const cl_fpm_beam_args *a) {
#pragma omp parallel for schedule(static) if (a->ne > CL_FPM_SERIAL_BELOW)
  for (size_t e = 0; e < a->ne; e++) cl_fpm_beam_at(a, e);
}
