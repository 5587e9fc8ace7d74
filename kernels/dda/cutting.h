/* The block cutter (Shi's DC, the part that splits): polygons cut by line
 * segments. A segment splits a polygon only along a chord that crosses it
 * from boundary to boundary within the segment's length, so a trace that ends
 * inside a block leaves no dangling crack behind; a concave block crossed
 * several times gives several pieces. */
#ifndef CL_DDA_CUTTING_H
#define CL_DDA_CUTTING_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/status.h"

/* A list of polygons: polygon k has the vertices start[k] .. start[k + 1] - 1 of x, y; tag[v] is
 * the joint of the edge from vertex v to the next (-1: none). */
typedef struct cl_dda_polygons {
  size_t n, nv, cap_n, cap_v;
  int32_t *start, *tag;
  double *x, *y;
} cl_dda_polygons;

/* Appends a polygon (tag NULL: no joints on its edges). */
cl_status cl_dda_polygons_add(cl_dda_polygons *p, const double *x, const double *y, const int32_t *tag, int m,
                              cl_error *err);
void cl_dda_polygons_free(cl_dda_polygons *p);

/* Cuts every polygon of in by the segments (x1, y1, x2, y2 each) into out (emptied first); the
 * edges a segment makes get its tag (seg_tag[s]); points closer than tol count as on a line. */
cl_status cl_dda_cut(const cl_dda_polygons *in, size_t nseg, const double *seg, const int32_t *seg_tag, double tol,
                     cl_dda_polygons *out, cl_error *err);

#endif
