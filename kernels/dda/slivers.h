/* The cutter's slivers: pieces so thin or so small against the joint spacing that the contact
 * springs, far stiffer than such a piece, would set the time step (a 0.013 m2 triangle among
 * 10 m2 blocks held a jointed slope at dt ~ 2e-7 s). Each is merged into the neighbour it shares
 * most of its boundary with, or dropped when no neighbour gives a simple polygon. */
#ifndef CL_DDA_SLIVERS_H
#define CL_DDA_SLIVERS_H

#include "cutting.h"

/* The size of a piece against which min_radius is set: 2 area / perimeter, the inscribed radius of
 * a triangle (and of any polygon with an inscribed circle), half the width of a long strip. */
double cl_dda_piece_radius(const double *x, const double *y, int m);

/* Merges every polygon of p whose cl_dda_piece_radius is below min_radius (thinnest first) into
 * the neighbour with which it shares the longest stretch of an edge (one edge lying along the
 * other's, within tol), keeping the joints of the edges; a piece with no such neighbour, or whose
 * every union would not be simple, is dropped. The polygons all turn the same way (they tile a
 * domain, cutting.h). Counts into *merged and *dropped. */
cl_status cl_dda_merge_slivers(cl_dda_polygons *p, double min_radius, double tol, size_t *merged, size_t *dropped,
                               cl_error *err);

#endif
