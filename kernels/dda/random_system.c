/* A random symmetric positive definite block system (random_system.h). */
#include "random_system.h"

double cl_dda_random_uniform(uint64_t *state, double lo, double hi) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

cl_status cl_dda_random_spd(cl_dda_bsr *a, double diagonal, double jitter, uint64_t *state, cl_error *err) {
  CL_TRY(cl_dda_bsr_zero_values(a, err));
  for (size_t i = 0; i < a->n; i++)
    for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      size_t j = (size_t)a->col[p];
      if (j < i) continue;
      double *blk = a->val + 36 * (size_t)p, *sym = cl_dda_bsr_block(a, (int32_t)j, (int32_t)i);
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) {
          double v;
          if (j != i) v = cl_dda_random_uniform(state, -1, 1);
          else if (r == c) v = diagonal + (jitter > 0 ? cl_dda_random_uniform(state, 0, jitter) : 0);
          else v = r < c ? cl_dda_random_uniform(state, -1, 1) : blk[6 * c + r];
          blk[6 * r + c] = v;
          if (j != i) sym[6 * c + r] = v;
        }
    }
  return CL_OK;
}
