/* The built-in Mohr-Coulomb law (laws/mohr_coulomb.c, the snippet a user copies with
 * cleave.jit.law_source "mohr_coulomb") as a function for the element kernels of the
 * quasi-static FE (kernels/fe_ep/) and the unit tests: one material point, stress and
 * equivalent plastic strain updated in place, tangent D[36] written. */
#ifndef CL_FE_MOHR_COULOMB_H
#define CL_FE_MOHR_COULOMB_H

#include "../common/real.h"

CL_HD static inline void cl_fe_mohr_coulomb(real E, real nu, real c, real phi, const real *deps, real *sig, real *D,
                                            real *cl_ep) {
#define ep (*cl_ep)
#include "laws/mohr_coulomb.c"
#undef ep
}

#endif
