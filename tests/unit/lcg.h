/* A 64-bit linear congruential generator (Knuth's MMIX constants) for
 * reproducible pseudo-random test inputs. */
#ifndef CL_TEST_LCG_H
#define CL_TEST_LCG_H

#include <stddef.h>
#include <stdint.h>

static uint64_t lcg_state;

static inline void lcg_seed(uint64_t s) { lcg_state = s; }

/* 53 random bits */
static inline uint64_t lcg_next(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lcg_state >> 11;
}

/* uniform in [lo, hi) */
static inline double lcg_uniform(double lo, double hi) {
  return lo + (hi - lo) * (double)lcg_next() * (1.0 / 9007199254740992.0);
}

/* uniform in 0 .. n-1 */
static inline size_t lcg_below(size_t n) { return (size_t)(lcg_next() % n); }

#endif
