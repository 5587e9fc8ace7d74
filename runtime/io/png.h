/* PNG picture of a 2D scalar field with a colour bar, drawn with Cairo. */
#ifndef CL_PNG_H
#define CL_PNG_H

#include <stddef.h>
#include <stdint.h>

#include "../status.h"

typedef struct cl_png_plot {
  size_t npoints;
  const double *x, *y;   /* point coordinates */
  const double *value;   /* one scalar per point */
  size_t ntriangles;     /* > 0: shade these triangles (Gouraud); 0: draw points as squares */
  const int32_t *tri;    /* 3 * ntriangles 0-based point indices */
  double point_size;     /* model units; <= 0 picks one from the point density */
  const char *title;     /* field name shown above the colour bar; may be NULL */
  int width, height;     /* pixels; <= 0 picks 1200 x (aspect-fitted) */
  int fixed_range;       /* non-zero: use vmin/vmax below instead of the data range */
  double vmin, vmax;
} cl_png_plot;

cl_status cl_png_write(const char *path, const cl_png_plot *plot, cl_error *err);

#endif
