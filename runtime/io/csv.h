/* CSV time histories: a header row of column names, then one row per call. */
#ifndef CL_CSV_H
#define CL_CSV_H

#include <stddef.h>

#include "../status.h"

typedef struct cl_csv cl_csv;

cl_status cl_csv_open(cl_csv **out, const char *path, size_t ncols, const char *const *names,
                      cl_error *err);
/* Continues the history in path (the header only when the file is empty or new): rows are
 * appended after those already there. */
cl_status cl_csv_append(cl_csv **out, const char *path, size_t ncols, const char *const *names,
                        cl_error *err);
/* Appends one row of ncols values (full precision, %.17g) and flushes it. */
cl_status cl_csv_row(cl_csv *csv, const double *values, cl_error *err);
void cl_csv_close(cl_csv *csv);

#endif
