/* The global DDA matrix's pattern on the host: block-sparse (BSR, 6x6 blocks,
 * row-major inside a block), symmetric, stored whole; the diagonal blocks
 * always present, an off-diagonal pair (i, j) and (j, i) wherever blocks i and
 * j are in contact. The model assembles the values on the device (pcg.h);
 * tests and benchmarks give host values (cl_dda_bsr_zero_values) to load. */
#ifndef CL_DDA_BSR_H
#define CL_DDA_BSR_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/status.h"

typedef struct cl_dda_bsr {
  size_t n, nnzb, cap;
  int32_t *rowptr; /* n + 1 */
  int32_t *col;    /* nnzb, sorted within each row */
  double *val;     /* 36 nnzb, or NULL: the pattern alone */
} cl_dda_bsr;

/* The pattern of n diagonal blocks and the pairs (pi[k], pj[k]) (either order, repeats allowed);
 * the values are not touched. */
cl_status cl_dda_bsr_pattern(cl_dda_bsr *a, size_t n, size_t npairs, const int32_t *pi, const int32_t *pj,
                             cl_error *err);
/* Values for the pattern, zeroed (36 nnzb). */
cl_status cl_dda_bsr_zero_values(cl_dda_bsr *a, cl_error *err);
/* The position of block (i, j) in the pattern (-1 when absent), and the block itself (NULL). */
int32_t cl_dda_bsr_position(const cl_dda_bsr *a, int32_t i, int32_t j);
double *cl_dda_bsr_block(const cl_dda_bsr *a, int32_t i, int32_t j);
void cl_dda_bsr_free(cl_dda_bsr *a);

#endif
