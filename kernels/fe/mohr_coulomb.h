/* The built-in Mohr-Coulomb law (laws/mohr_coulomb.c, the snippet a user copies with
 * cleave.jit.law_source "mohr_coulomb") as a function for the element kernels of the
 * quasi-static FE (kernels/fe_ep/) and the unit tests: one material point, stress and
 * equivalent plastic strain updated in place, tangent D[36] written. The material's constants
 * (cl_fe_mc_law) are computed once per material, not at every point. */
#ifndef CL_FE_MOHR_COULOMB_H
#define CL_FE_MOHR_COULOMB_H

#include "../common/real.h"

typedef struct cl_fe_mc_law {
  double c, sp, cp, G, K; /* cohesion, sin phi, cos phi, shear and bulk moduli */
} cl_fe_mc_law;

CL_HD static inline cl_fe_mc_law cl_fe_mc_law_of(double E, double nu, double c, double phi_deg) {
  const double phi = phi_deg * 0.017453292519943295;
  const cl_fe_mc_law law = {c, sin(phi), cos(phi), E / (2 * (1 + nu)), E / (3 * (1 - 2 * nu))};
  return law;
}

CL_HD static inline void cl_fe_mohr_coulomb(const cl_fe_mc_law *law, const real *deps, real *sig, real *D,
                                            real *cl_ep) {
  const real c = (real)law->c, sp = (real)law->sp, cp = (real)law->cp, G = (real)law->G, K = (real)law->K;
#define CL_MC_CONSTANTS
#define ep (*cl_ep)
#include "laws/mohr_coulomb.c"
#undef ep
#undef CL_MC_CONSTANTS
}

#endif
