/* Setting one component of selected rows of a field to a value (boundary
 * conditions), or adding the value to it (loads): field[c*n + rows[r] - 1]
 * = value, or += value, for every listed row. Rows are 1-based, as in the
 * Lua API that builds them, and distinct. */
#ifndef CL_ROWS_H
#define CL_ROWS_H

#include "real.h"

CL_HD static inline void cl_set_row(real *field, size_t n, int component, const uint32_t *rows,
                                    size_t r, real value, int add) {
  real *at = &field[(size_t)component * n + rows[r] - 1];
  *at = add ? *at + value : value;
}

#endif
