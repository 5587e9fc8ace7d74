/* One evaluation of a constitutive law at many independent points: the
 * material-point driver of run-time compiled laws of the kinds
 * stress_update (small strain: strain increment -> stress, state, tangent)
 * and traction (cohesive: opening -> traction, history). The methods that
 * own these kinds call the same law functions inside their element kernels;
 * the driver lets a law be run, plotted and verified on its own. The
 * generated unit (lua/cleave/jit.lua) defines the per-point function and the
 * loop around it. Vectors are SoA: component c of point i at c n + i. */
#ifndef CL_MATERIAL_POINT_H
#define CL_MATERIAL_POINT_H

#include "real.h"

#define CL_MP_STATE_MAX 8

typedef struct cl_mp_args {
  size_t n;                      /* points */
  const void *in;                /* stress_update: strain increments, 6 (Voigt: xx yy zz yz xz xy,
                                    engineering shears); traction: openings (normal, tangential), 2 */
  void *out;                     /* stress_update: stress, 6, previous in / new out; traction: 2, out */
  void *tangent;                 /* stress_update: 36 per point (row-major 6 x 6) out, or NULL */
  void *state[CL_MP_STATE_MAX];  /* the law's state variables, one real per point each (in/out) */
} cl_mp_args;

#endif
