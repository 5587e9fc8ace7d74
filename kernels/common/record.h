/* Device-side flags that name the first offending entry, for the checks a
 * kernel reports back to the host (a law that gave NaN, ...). */
#ifndef CL_RECORD_H
#define CL_RECORD_H

#include "real.h"

/* Records entry i in *flag as i + 1 unless an entry is recorded already (the first stays). */
CL_HD static inline void cl_record_first(uint64_t *flag, size_t i) {
#ifdef __CUDA_ARCH__
  atomicCAS((unsigned long long *)flag, 0ull, (unsigned long long)i + 1);
#else
  uint64_t none = 0;
  __atomic_compare_exchange_n(flag, &none, (uint64_t)i + 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
}

#endif
