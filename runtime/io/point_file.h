/* Point clouds from text files: one point per line, "x y volume" (2D) or
 * "x y z volume" (3D), numbers separated by spaces, tabs or commas. Blank
 * lines and lines starting with '#' are skipped; the first data line fixes
 * the dimension. */
#ifndef CL_POINT_FILE_H
#define CL_POINT_FILE_H

#include <stddef.h>

#include "../status.h"

/* Reads path into *dim (2 or 3), *n points, *x (SoA: component c of point i
 * at x[c*n + i], dim * n doubles) and *volume (n doubles), malloc'ed: free
 * with free(). Errors say file:line and what is wrong (count of numbers,
 * not a number, non-positive volume); an unreadable file is CL_ERR_IO, a
 * file without points CL_ERR_ARG. On error nothing is returned (*x and
 * *volume NULL, *n and *dim 0). */
cl_status cl_point_file_read(const char *path, int *dim, size_t *n, double **x, double **volume, cl_error *err);

#endif
