/* Level-1 vector operations on one entry. */
#ifndef CL_BLAS1_H
#define CL_BLAS1_H

#include "real.h"

CL_HD static inline real cl_axpy(real a, real x, real y) { return a * x + y; }
CL_HD static inline double cl_dot_term(real x, real y) { return (double)x * (double)y; }

#endif
