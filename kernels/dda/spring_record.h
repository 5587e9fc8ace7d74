/* A contact's springs as the device assembly reads them (cl_dda_pcg_args.cspring; assembly_ops.h):
 * its geometry (contact.h) contact-major, CL_DDA_SPRING_VALUES a contact, written with the
 * solver's SoA copy (cgeo, which the open-close rule and the account read) by the set-up
 * (setup_ops.h) or, from a host's geometry, by pcg.c. The gather computes each share's entry from
 * it: a share of the vertex block reads the pairs (en_r, es_r), one of the edge block (fn_r, fs_r),
 * each pair 16 contiguous bytes, and a contact's 208 bytes lie together where the SoA copy spread
 * them over 26 arrays. */
#ifndef CL_DDA_SPRING_RECORD_H
#define CL_DDA_SPRING_RECORD_H

#include "../common/real.h"

#define CL_DDA_SPRING_VALUES 26
#define CL_DDA_SPRING_A 0     /* (en_r, es_r), r = 0..5: the vertex block's side */
#define CL_DDA_SPRING_B 12    /* (fn_r, fs_r): the edge block's side */
#define CL_DDA_SPRING_GAPS 24 /* gn0, gs0 */

/* Contact k's record, each value as the SoA copy holds it (real). */
CL_HD static inline void cl_dda_spring_record_set(void *spring, size_t k, const double en[6], const double fn[6],
                                                  const double es[6], const double fs[6], double gn0, double gs0) {
  real *rec = (real *)spring + CL_DDA_SPRING_VALUES * k;
  for (int r = 0; r < 6; r++) {
    rec[CL_DDA_SPRING_A + 2 * r] = (real)en[r], rec[CL_DDA_SPRING_A + 2 * r + 1] = (real)es[r];
    rec[CL_DDA_SPRING_B + 2 * r] = (real)fn[r], rec[CL_DDA_SPRING_B + 2 * r + 1] = (real)fs[r];
  }
  rec[CL_DDA_SPRING_GAPS] = (real)gn0, rec[CL_DDA_SPRING_GAPS + 1] = (real)gs0;
}

#endif
