/* Plane polygons on the host: the checks a DDA block must pass (a simple
 * polygon, not degenerate), orientation, point location and the overlap test
 * of two blocks at the start. A polygon is (x[k], y[k]), k < m, not closed
 * (the last vertex joins the first). tol is a length below which points count
 * as touching. */
#ifndef CL_DDA_POLYGON_H
#define CL_DDA_POLYGON_H

#include <stddef.h>
#include <stdint.h>

/* NULL when the polygon is a simple polygon of positive area, else what is wrong with it
 * ("has fewer than 3 vertices", "has two equal consecutive vertices (vertex 3)", ...) written
 * into why (size bytes). */
const char *cl_dda_polygon_defect(const double *x, const double *y, int m, double tol, char *why, size_t size);

/* Twice the signed area (> 0: counter-clockwise). */
double cl_dda_polygon_area2(const double *x, const double *y, int m);

/* 1 inside, 0 outside; points within tol of the boundary count as inside. */
int cl_dda_point_in_polygon(double px, double py, const double *x, const double *y, int m, double tol);

/* 1 when inside and farther than tol from the boundary. */
int cl_dda_point_strictly_inside(double px, double py, const double *x, const double *y, int m, double tol);

/* Whether the interiors of two simple polygons overlap by more than tol (touching edges and
 * vertices do not). */
int cl_dda_polygons_overlap(const double *ax, const double *ay, int am, const double *bx, const double *by, int bm,
                            double tol);

/* Triangles of a simple counter-clockwise polygon by ear clipping: m - 2 triples of vertex indices
 * (0-based) into tri; returns the number of triangles written (fewer only for a polygon that is
 * not simple). */
int cl_dda_triangulate(const double *x, const double *y, int m, int32_t *tri);

/* Distance from (px, py) to the segment (x1, y1)-(x2, y2); *t receives the ratio of the
 * closest point along it (0..1). */
double cl_dda_segment_distance(double px, double py, double x1, double y1, double x2, double y2, double *t);

#endif
