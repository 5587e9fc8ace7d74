/* Host-side 2D triangle meshes (T3 and T6) for the cohesive FEM method.
 *
 * The layout is the two tables of the GPU data structure for extrinsic
 * cohesive fragmentation (Alhadeff et al., section 5): node coordinates,
 * and per element its node incidence plus the element across each edge.
 * Cohesive elements are not stored here; they are appended on the device.
 *
 * Conventions:
 *   x     structure of arrays, as device fields are: x[i] is the x and
 *         x[nnodes + i] the y coordinate of node i.
 *   elem  per element, nper = 3 (T3) or 6 (T6) node indices: the corners
 *         counter-clockwise, then (T6) the mid-side nodes of edges 0-1,
 *         1-2, 2-0.
 *   adj   per element, 3 entries: adj[3e + k] is the element across edge k
 *         (edge k joins corners k and (k+1) % 3), -1 on the boundary.
 *
 * All arrays are malloc'ed; cl_mesh2d_free releases them. */
#ifndef CL_MESH2D_H
#define CL_MESH2D_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct cl_mesh2d {
  int order;           /* 1: T3, 2: T6 */
  size_t nnodes, nelems;
  double *x;           /* 2 * nnodes, SoA (all x, then all y) */
  uint32_t *elem;      /* nelems * nper */
  int32_t *adj;        /* nelems * 3 */
} cl_mesh2d;

/* Nodes per element: 3 for T3, 6 for T6. */
static inline size_t cl_mesh2d_nper(const cl_mesh2d *m) { return m->order == 2 ? 6 : 3; }

/* Allocates the arrays of an empty mesh (contents uninitialised, adj set
 * to -1). Errors: order not 1 or 2, more nodes than uint32 or elements than
 * int32 can index, out of memory. *out is zeroed on failure. */
cl_status cl_mesh2d_alloc(int order, size_t nnodes, size_t nelems, cl_mesh2d *out, cl_error *err);

/* Frees the arrays and zeroes the struct; m may be NULL. */
void cl_mesh2d_free(cl_mesh2d *m);

/* ---- generators (mesh2d_gen.c); the result has adj filled ---------------
 *
 * Both split an nx x ny (or nr x nt) grid of cells into triangles in one
 * of two patterns:
 *
 *   CL_MESH2D_ALTERNATE  two triangles per cell, the diagonal alternating
 *       like a chequerboard, so that the four diagonals around every grid
 *       vertex of even-even index meet there (also called "union-jack").
 *       In the cell of index (i, j) the diagonal joins (i, j)-(i+1, j+1)
 *       when i + j is even and (i+1, j)-(i, j+1) when it is odd.
 *   CL_MESH2D_CROSS  four triangles per cell around a centre node, the cell
 *       split by both its diagonals: the "union-jack" meshes of Alhadeff et
 *       al. (sections 7.2.1-7.2.2). The centre node lies at the mean of the
 *       cell's four corners (for the annulus: on the cell's mid-angle ray,
 *       at radius cos(pi / nt) times the mid radius, not on the arc). The
 *       triangles of a cell are, in order, those on its sides (i, j)-(i+1, j),
 *       (i+1, j)-(i+1, j+1), (i+1, j+1)-(i, j+1), (i, j+1)-(i, j); each has
 *       that side as edge 0 (corners 0, 1) and the centre as corner 2.
 *       An interior grid vertex has 8 elements, a centre 4.
 *
 * Elements are numbered cell by cell (i fastest), 2 (alternate) or 4
 * (cross) per cell, each counter-clockwise. T6 mid-side nodes are shared
 * by the two elements of an edge and lie at the midpoint of its straight
 * chord. Nodes are numbered row by row, i fastest: first the points of
 * the grid refined order times (corners; T6 also the midpoints of the cell
 * sides and of the cell, which is the alternate diagonal's mid-side node or
 * the cross centre); then, cross only, the points halfway between those:
 * T3 the cell centres (nx per row of cells), T6 the mid-sides of the
 * half-diagonals (two rows of 2 nx per row of cells). */

/* Structured triangle pattern of a grid cell (above). */
typedef enum cl_mesh2d_pattern {
  CL_MESH2D_ALTERNATE = 0, /* 2 triangles per cell, chequerboard diagonals */
  CL_MESH2D_CROSS = 1,     /* 4 triangles per cell around a centre node */
} cl_mesh2d_pattern;

/* Rectangle [x0, x1] x [y0, y1], nx x ny equal cells.
 *   alternate: nodes (nx+1)(ny+1) (T3), (2nx+1)(2ny+1) (T6); elements
 *     2 nx ny; boundary facets 2 (nx + ny).
 *   cross: nodes (nx+1)(ny+1) + nx ny (T3), (2nx+1)(2ny+1) + 4 nx ny (T6);
 *     elements 4 nx ny; boundary facets 2 (nx + ny).
 * Errors: empty or non-finite rectangle, nx or ny zero, order not 1 or 2,
 * unknown pattern, too many nodes or elements, out of memory. */
cl_status cl_mesh2d_rect(double x0, double x1, double y0, double y1, size_t nx, size_t ny, int order,
                         cl_mesh2d_pattern pattern, cl_mesh2d *out, cl_error *err);

/* cl_mesh2d_rect with CL_MESH2D_ALTERNATE. */
cl_status cl_mesh2d_rect_union_jack(double x0, double x1, double y0, double y1, size_t nx, size_t ny,
                                    int order, cl_mesh2d *out, cl_error *err);

/* Annulus r_in <= r <= r_out about the origin, nr radial x nt (>= 3)
 * circumferential divisions (i radial, j circumferential), closed at angle
 * 0 without duplicate nodes. Corner nodes lie on the circles
 * r_in + (r_out - r_in) i / nr; elements have straight edges, so the area
 * is that of the inscribed polygons.
 *   alternate: nodes (nr+1) nt (T3), (2nr+1) 2nt (T6); elements 2 nr nt.
 *     With nt odd the chequerboard breaks at the seam (two neighbouring
 *     cells there share a diagonal direction).
 *   cross: nodes (nr+1) nt + nr nt (T3), (2nr+1) 2nt + 4 nr nt (T6);
 *     elements 4 nr nt (20 x 160 T6: 12,800 elements, 25,920 nodes).
 * Errors as cl_mesh2d_rect. */
cl_status cl_mesh2d_ring_pattern(double r_in, double r_out, size_t nr, size_t nt, int order,
                                 cl_mesh2d_pattern pattern, cl_mesh2d *out, cl_error *err);

/* cl_mesh2d_ring_pattern with CL_MESH2D_ALTERNATE. */
cl_status cl_mesh2d_ring(double r_in, double r_out, size_t nr, size_t nt, int order, cl_mesh2d *out,
                         cl_error *err);

/* ---- operations (mesh2d.c) ----------------------------------------------- */

/* Moves each interior corner node by a random vector, uniform in the disk
 * of radius fraction * (shortest edge at that node), seeded by seed (same
 * seed, same mesh); nodes on boundary edges stay; mid-side nodes are then
 * re-centred on their (straight) edges. Needs adj. Errors: fraction outside
 * [0, 0.5), adj missing, out of memory. By a numerical search of the
 * worst case, no fraction below 1/(2 sqrt 2) (about 0.35) can invert an
 * element of a mesh of square cells, in either pattern; elongated cells
 * allow less in the cross pattern, whose centre may move by a fraction of
 * the half-diagonal towards a long side (cells of aspect ratio 2: about
 * 0.24, against 0.45 alternate). Run cl_mesh2d_check after perturbing
 * anything else. */
cl_status cl_mesh2d_perturb(cl_mesh2d *m, double fraction, uint64_t seed, cl_error *err);

/* Fills adj by sorting the element edges on their (smaller, larger) corner
 * pair: O(n log n). Errors: an edge shared by more than two elements (names
 * its nodes), out of memory. */
cl_status cl_mesh2d_adjacency(cl_mesh2d *m, cl_error *err);

/* Refuses: order not 1 or 2, node indices out of range, an inverted or
 * degenerate element (signed area <= 1e-12 times its longest edge squared;
 * names the element and its area), a T6 mid-side node outside the middle
 * half of its edge (projection on the chord outside (1/4, 3/4) of it, or
 * farther than a quarter of the chord from it). */
cl_status cl_mesh2d_check(const cl_mesh2d *m, cl_error *err);

/* Greedy Welsh-Powell colouring of the elements so that no two elements of
 * one colour share a node: elements in order of decreasing number of
 * node-sharing neighbours (ties by index) each take the smallest colour no
 * coloured neighbour has. colour has nelems entries; *ncolours receives the
 * number used. Deterministic. Node indices must be valid (cl_mesh2d_check).
 * Errors: out of memory. */
cl_status cl_mesh2d_colour(const cl_mesh2d *m, uint32_t *colour, uint32_t *ncolours, cl_error *err);

/* Counts interior facets (edges with an element on each side, counted once)
 * and boundary facets (adj == -1). Needs adj. */
void cl_mesh2d_facets(const cl_mesh2d *m, size_t *interior, size_t *boundary);

#endif
