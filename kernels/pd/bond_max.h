/* The largest value of a per-bond quantity (a run-time law's state variable,
 * one value per bond slot as in force_args.h) over each point's bonds: the
 * per-point view of it that output files hold. 0 for a point without bonds. */
#ifndef CL_PD_BOND_MAX_H
#define CL_PD_BOND_MAX_H

#include "force_args.h"
#include "pmb.h"

CL_HD static inline real cl_pd_bond_max(const cl_pd_force_args *a, const real *values, size_t i) {
  int any = 0;
  real best = 0;
  if (a->map) {
    for (uint32_t k = 0; k < a->nstencil; k++) {
      if (a->map[(int64_t)a->cell[i] + a->stencil[k]] == CL_PD_ABSENT) continue;
      const real v = values[(size_t)k * a->n + i];
      best = !any || v > best ? v : best, any = 1;
    }
  } else {
    for (uint32_t b = a->offsets[i]; b < a->offsets[i + 1]; b++) {
      const real v = values[b];
      best = !any || v > best ? v : best, any = 1;
    }
  }
  return best;
}

#endif
