/* Partition of a cloud of points over ranks, and each rank's halo: which points it owns, which
 * it keeps as ghosts (points of other ranks within a reach of its own), and the rows it sends
 * to and receives from each other rank. Method-agnostic: a model gives coordinates, weights
 * (its work per point) and its reach (a PD horizon, an element's size). Every rank computes the
 * whole partition from the same global points, so the ranks agree without talking. */
#ifndef CL_PARTITION_H
#define CL_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* owner[i] in 0..parts-1 by recursive coordinate bisection: the points are cut across the
 * longest side of their box, at the weight fraction of the parts on each side (w = NULL: 1 per
 * point); ties in a coordinate are broken by index, so the result is the same on every rank.
 * x: n x dim, structure of arrays (x[c*n + i]), host memory. Refuses a part with no point. */
cl_status cl_partition_rcb(size_t n, int dim, const double *x, const double *w, int parts, int *owner,
                           cl_error *err);

/* owner[i] by a graph partition of the points' bond graph (CSR: point i's neighbours at
 * neighbors[offsets[i] .. offsets[i + 1]), symmetric; bits above CL_HALO_INDEX are the caller's flags,
 * such as PD's broken bit, and ignored): METIS's k-way partition minimising the halo's volume, each
 * point weighing its bonds, parts contiguous. A build without METIS (CLEAVE_METIS) returns
 * CL_ERR_UNAVAILABLE naming the fix; cl_partition_graph_available says which. METIS is run by one
 * rank and the result broadcast by the caller (libraries of other hosts may cut otherwise). */
#define CL_HALO_INDEX 0x7fffffffu
int cl_partition_graph_available(void);
cl_status cl_partition_graph(size_t n, const uint32_t *offsets, const uint32_t *neighbors, int parts, int *owner,
                             cl_error *err);

typedef struct cl_halo_peer {
  int rank;
  size_t recv_offset, recv_count; /* its points this rank keeps as ghosts: local rows owned + offset.. */
  size_t send_offset, send_count; /* this rank's points it keeps as ghosts: send_rows[offset..] */
} cl_halo_peer;

/* One rank's view: local rows are its owned points, those sent to no peer first (the interior, whose
 * forces need no ghost: computed while the halo is in flight), then those sent, each part in ascending
 * global index; then its ghosts grouped by owning rank (ascending), each group in ascending global
 * index. */
typedef struct cl_halo_plan {
  int rank, parts;
  uint64_t points;       /* all points (of every rank): global indices are 64-bit (a 10^10-point body) */
  size_t owned, local;   /* owned rows, owned + ghost rows: below 2^32 (local rows are 32-bit) */
  size_t interior;       /* owned rows 0..interior-1 are sent to no peer: their whole family is owned (a point
                            with a ghost in its reach lies within the reach of that ghost's rank: it is sent) */
  uint64_t *global;      /* local row -> global index (local entries) */
  uint32_t *send_rows;   /* local rows of owned points, peer by peer, in the order the peer keeps them */
  size_t nsend;
  cl_halo_peer *peers;   /* ranks exchanged with (ascending) */
  int npeers;
} cl_halo_plan;

/* The plan of `rank`: ghosts are the points of other ranks within `reach` of the box of its own
 * (a superset of those within reach of one of its points). */
cl_status cl_halo_plan_make(size_t n, int dim, const double *x, const int *owner, int parts, int rank,
                            double reach, cl_halo_plan *plan, cl_error *err);
/* The plan of `rank` from the bond graph (as cl_partition_graph reads it): its ghosts are exactly the
 * points of other ranks with a bond to one of its points (the box rule of cl_halo_plan_make would keep
 * whole regions of a non-convex part's box). */
cl_status cl_halo_plan_graph(size_t n, const uint32_t *offsets, const uint32_t *neighbors, const int *owner, int parts,
                             int rank, cl_halo_plan *plan, cl_error *err);
void cl_halo_plan_free(cl_halo_plan *plan);
/* From the rows a rank receives from and sends to each of the parts (recv[q], send[q]; 0 for itself)
 * and plan->owned: the plan's local and nsend, its global and send_rows arrays (to fill), and its peers
 * in part order with their offsets. Refuses, before allocating, a rank of 2^32 local points or more
 * (CL_HALO_LOCAL_MAX: local rows are u32 on the device). `who` names the caller in the errors. */
#define CL_HALO_LOCAL_MAX 4294967295u
cl_status cl_halo_plan_peers(cl_halo_plan *plan, int parts, const size_t *recv, const size_t *send, const char *who,
                             cl_error *err);
/* After cl_halo_plan_peers, for filling global and send_rows in one pass: recv_at[q] and send_at[q]
 * (the count arrays it was given, overwritten) become the first row of peer q's ghost block and its
 * first entry in send_rows. */
void cl_halo_plan_positions(const cl_halo_plan *plan, size_t *recv_at, size_t *send_at);

/* Puts the owned rows sent to no peer first (plan->interior of them), keeping the global order within
 * each part: renames the rows of plan->global and plan->send_rows; *to_new (malloc'ed, owned entries,
 * or NULL when not wanted) receives each former row's new one, for arrays laid out in the former rows. */
cl_status cl_halo_plan_interior_first(cl_halo_plan *plan, uint32_t **to_new, cl_error *err);

/* The points of a box grid (cl_shape_grid_box): point (first[a] + u[a]) at lo + (index + 0.5) dx
 * along each axis, u[a] = 0..count[a]-1 (count[2] = 1 in 2D). */
typedef struct cl_grid_box {
  int dim;
  double dx, lo[3];
  size_t first[3], count[3];
} cl_grid_box;

/* The plan of `rank` for the points of a box grid, from the grid alone (runtime/partition_grid.c):
 * no rank builds the global points. The index box is cut by recursive bisection balanced by point
 * count; a rank's ghosts are the points of other ranks within `reach` grid steps along every axis
 * of its box. A point's global index is its row on one rank: its position in Morton order over
 * cells of side `cell` of the coordinates rounded to `real`, ties in grid order, as
 * cl_pd_morton_order puts the points of cl_shape_points (cell = 0: grid order, z slowest, x
 * fastest). *x: the coordinates (real) of the local rows, SoA, malloc'ed (free with free()). */
cl_status cl_halo_plan_grid(const cl_grid_box *g, cl_dtype real, double cell, int reach, int parts, int rank,
                            cl_halo_plan *plan, void **x, cl_error *err);

/* The same partition, from the grid alone in memory of the grid's side and the parts (nothing per
 * point), for boxes too large to enumerate (10^10 points): the points `rank` owns and the ghosts it
 * keeps (what cl_halo_plan_grid would allocate), ... */
cl_status cl_grid_part_counts(const cl_grid_box *g, int reach, int parts, int rank, size_t *owned, size_t *ghosts,
                              cl_error *err);
/* ... and where point u (grid indices from g->first, u[2] = 0 in 2D) goes: its global index, the part
 * owning it, and the parts keeping it as a ghost (ghost_of[0..*nghost), ascending; room for parts - 1). */
cl_status cl_grid_point_locate(const cl_grid_box *g, cl_dtype real, double cell, int reach, int parts, const size_t u[3],
                               uint64_t *global, int *owner, int *ghost_of, int *nghost, cl_error *err);

#ifdef __cplusplus
}
#endif

#endif
