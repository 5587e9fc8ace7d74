/* Shapes and the points that discretise them.
 *
 * A shape is a small expression tree of primitives (rectangle/box,
 * disk/cylinder/sphere, polygon extruded or not) combined by union,
 * difference and intersection, flattened into an array of nodes in
 * post-order so it can be evaluated without recursion (on the host now, on
 * the device later). Points are the centres of the cells of a uniform grid
 * of spacing dx that fall inside the shape, each with volume dx^dim (times
 * the thickness in 2D). */
#ifndef CL_GEOM_H
#define CL_GEOM_H

#include <stddef.h>

#include "status.h"

typedef enum cl_shape_op {
  CL_SHAPE_BOX = 0,     /* p[0..5] = xmin, xmax, ymin, ymax, zmin, zmax (2D: z ignored) */
  CL_SHAPE_BALL,        /* p[0..3] = cx, cy, cz, r: disk in 2D, sphere in 3D */
  CL_SHAPE_CYLINDER,    /* p[0..4] = cx, cy, r, zmin, zmax (axis along z) */
  CL_SHAPE_POLYGON,     /* p[0] = first vertex index in the vertex table, p[1] = count,
                           p[2], p[3] = zmin, zmax (3D extrusion) */
  CL_SHAPE_UNION,       /* combine the two previous results */
  CL_SHAPE_DIFFERENCE,  /* second-to-last minus last */
  CL_SHAPE_INTERSECTION
} cl_shape_op;

typedef struct cl_shape_node {
  cl_shape_op op;
  double p[6];
} cl_shape_node;

typedef struct cl_shape {
  size_t count;
  const cl_shape_node *nodes; /* post-order */
  const double *vertices;     /* polygon vertices, x0 y0 x1 y1 ... */
  size_t nvertices;           /* vertices (pairs), not doubles */
} cl_shape;

/* Most operands a shape may leave pending at once while it is evaluated
 * (the fixed stack of cl_shape_contains). Combining as you go (a b union c
 * union ...) needs two; only deeply right-nested trees come near it. */
#define CL_SHAPE_STACK_MAX 64

/* 2D-only primitives (rectangle, disk, polygon without thickness) are boxes,
 * cylinders and polygons with the z range -INFINITY..INFINITY: they are
 * valid shapes, and 3D points of them fail as unbounded in z. */

/* Checks that the node sequence is a well-formed post-order tree (each
 * combinator has two operands; one result remains) and that every primitive
 * is valid (positive extents, polygons of >= 3 vertices within the table);
 * the message names the first bad node. */
cl_status cl_shape_check(const cl_shape *s, cl_error *err);

/* Whether point (x, y, z) is inside (dim 2: z is ignored). */
int cl_shape_contains(const cl_shape *s, int dim, double x, double y, double z);

/* Axis-aligned bounds of the shape (lo[3], hi[3]); difference uses the left operand's. */
void cl_shape_bounds(const cl_shape *s, int dim, double lo[3], double hi[3]);

/* The grid points inside the shape: centres of cells of side dx aligned so
 * that the shape's lower bound is a cell corner. Returns *n and host arrays
 * (malloc'ed; free with free()): x as SoA doubles (dim * n). Errors: dx <= 0,
 * an empty result (say the shape and dx), more than max_points points
 * (say how many the bounds would hold). */
cl_status cl_shape_points(const cl_shape *s, int dim, double dx, size_t max_points, size_t *n,
                          double **x, cl_error *err);

/* When the shape is one box, its grid points fill a box of grid indices: returns 1 with the grid
 * cl_shape_points lays (point (i, j, k) at lo + (index + 0.5) dx) and, per axis, the first index
 * and the count of the points (first[2] = 0, count[2] = 1 in 2D); 0 for any other shape or a
 * grid without points. Lets a rank build its own part of the points (runtime/partition.h). */
int cl_shape_grid_box(const cl_shape *s, int dim, double dx, double lo[3], size_t first[3], size_t count[3]);

#endif
