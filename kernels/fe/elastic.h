/* The built-in elastic law (laws/elastic.c, the snippet cleave.jit.law_source "elastic" gives)
 * as a function for the element kernels of the quasi-static FE (kernels/fe_ep/): sig[6] += D
 * deps, D[36] written. */
#ifndef CL_FE_ELASTIC_H
#define CL_FE_ELASTIC_H

#include "../common/real.h"

CL_HD static inline void cl_fe_elastic(real E, real nu, const real *deps, real *sig, real *D) {
#include "laws/elastic.c"
}

#endif
