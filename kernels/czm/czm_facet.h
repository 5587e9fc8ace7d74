/* The facet of a cohesive element as a 1D element: its Gauss rule and shape functions (the
 * corners A at s = -1, B at s = +1, the T6 mid-side node M at s = 0). Shared by the cohesive
 * kernel (czm_cohesive.h) and the host's stable time step (the contact penalty's stiffness). */
#ifndef CL_CZM_FACET_H
#define CL_CZM_FACET_H

#include "../common/real.h"

/* Point g of the rule: 2 points for T3 facets, 3 for T6 (exact for the products of shape
 * functions). */
CL_HD static inline void cl_czm_facet_rule(const int order, int g, real *s, real *w) {
  if (order == 1) {
    *s = (g ? 1 : -1) * (real)0.57735026918962576; /* 1 / sqrt 3 */
    *w = 1;
    return;
  }
  *s = (real)(g - 1) * (real)0.77459666924148338; /* sqrt(3/5) */
  *w = g == 1 ? (real)8 / 9 : (real)5 / 9;
}

/* Facet shape functions of A, B, M at s and their derivatives. */
CL_HD static inline void cl_czm_facet_shape(const int order, real s, real *N, real *dN) {
  if (order == 1) {
    N[0] = (1 - s) / 2, N[1] = (1 + s) / 2, N[2] = 0;
    dN[0] = -(real)0.5, dN[1] = (real)0.5, dN[2] = 0;
    return;
  }
  N[0] = s * (s - 1) / 2, N[1] = s * (s + 1) / 2, N[2] = 1 - s * s;
  dN[0] = s - (real)0.5, dN[1] = s + (real)0.5, dN[2] = -2 * s;
}

#endif
