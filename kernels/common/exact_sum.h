/* Order-independent sums of doubles: each term is cut into CL_EXACT_LIMBS fixed-point limbs of
 * CL_EXACT_BITS bits below 2^scale (scale: from the largest |term| of the whole sum, found first
 * by a max, which is order-independent), and the limbs are added as 64-bit integers, which is
 * associative. So threads, blocks, devices and MPI ranks may add in any order and get the same
 * bits: a sum over a partitioned body is the one-rank sum. The terms are cut after 96 bits below
 * the largest (a relative 1e-29 of it, far below a double's own rounding of the sum); up to
 * 2^39 terms fit the 64-bit limbs. */
#ifndef CL_EXACT_SUM_H
#define CL_EXACT_SUM_H

#include "real.h"

#define CL_EXACT_LIMBS 4
#define CL_EXACT_BITS 24

/* The scale of a sum whose largest |term| is max_abs (finite): every |term| < 2^scale. */
CL_HD static inline int cl_exact_scale(double max_abs) {
  int e;
  frexp(max_abs, &e);
  return e;
}

/* acc[0..CL_EXACT_LIMBS) += the fixed-point limbs of a (|a| < 2^scale). */
CL_HD static inline void cl_exact_add(long long *acc, double a, int scale) {
  double x = ldexp(a, -scale); /* |x| < 1; each step below is exact */
  for (int k = 0; k < CL_EXACT_LIMBS; k++) {
    x *= (double)(1 << CL_EXACT_BITS);
    double w = trunc(x);
    acc[k] += (long long)w;
    x -= w;
  }
}

/* Carries the low limbs into [0, 2^CL_EXACT_BITS) (the value is unchanged; acc[0] keeps the sign
 * and the rest), so that sums of normalised limbs of at most 2^29 x ranks terms stay exact in
 * doubles, as MPI adds them. */
static inline void cl_exact_normalize(long long *acc) {
  const long long base = 1LL << CL_EXACT_BITS;
  for (int k = CL_EXACT_LIMBS - 1; k > 0; k--) {
    long long low = acc[k] & (base - 1), carry = (acc[k] - low) / base;
    acc[k] = low, acc[k - 1] += carry;
  }
}

/* The sum the (normalised) limbs hold, rounded to a double the same way whatever order built them. */
static inline double cl_exact_value(const long long *acc, int scale) {
  double v = 0;
  for (int k = CL_EXACT_LIMBS - 1; k >= 0; k--) v += ldexp((double)acc[k], scale - CL_EXACT_BITS * (k + 1));
  return v;
}

#endif
