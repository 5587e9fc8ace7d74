/* DDA contacts on the host: detection (broad phase by a uniform grid of cells,
 * O(n) for blocks of bounded size; the narrow phase's vertex-edge (VE) and
 * vertex-vertex classes with the angle check, VV1 for parallel edges and VV2
 * otherwise, narrow.h) and the transfer of each contact's state from the previous
 * step by sorted search on its key (vertex block, vertex, edge block, edge). Both
 * phases run in parallel (OpenMP) and give the same lists, in the same order, bit
 * for bit, whatever the number of threads. */
#ifndef CL_DDA_CONTACTS_H
#define CL_DDA_CONTACTS_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/status.h"
#include "contact.h"
#include "narrow.h"

typedef struct cl_dda_contact {
  int32_t bi, vi;    /* the vertex: its block and its index among all vertices */
  int32_t bj, ej;    /* the edge: its block and the index of its first vertex (the edge runs to the next) */
  int32_t kind;      /* cl_dda_contact_kind */
  int32_t state;     /* cl_dda_contact_state */
  int32_t bonded;    /* cohesion and tensile strength still hold (lost once it opens or slides) */
  int32_t flips;     /* state changes in this step's open-close iteration */
  double t_ref;      /* the shear spring's anchor, a ratio along the edge */
  double length;     /* joint length the contact stands for (cohesion and tension act on it) */
  double sgn;        /* sliding direction (+1 / -1 along the edge) */
  double N;          /* normal force (compression > 0) of the last solution, used by friction */
  double S;          /* shear force of the last solution */
} cl_dda_contact;

typedef struct cl_dda_contact_list {
  cl_dda_contact *c;
  size_t count, cap;
} cl_dda_contact_list;

/* The candidate pairs (i < j) whose bounding boxes, grown by d0, overlap, sorted: a uniform grid
 * of cells as wide as the median box, each block in every cell its box covers, each pair found in
 * the cell of its overlap's lower-left corner -- O(n + pairs) for blocks of bounded size, a base as
 * wide as the domain included; *pairs (2 per pair, *cap pairs) is reallocated. */
cl_status cl_dda_broad_phase(const cl_dda_geometry *g, double d0, int32_t **pairs, size_t *npairs, size_t *cap,
                             cl_error *err);

/* The broad phase's list kept from step to step (Verlet-list style; detect.h keeps the device's
 * the same way): the pairs of the blocks' boxes grown by d0 / 2 + skin / 2 (the kept boxes), reused
 * while every block's box grown by d0 / 2 lies inside its kept box. Zeroed: none kept, skin 0. */
typedef struct cl_dda_kept_pairs {
  double skin;           /* metres; 0: the pairs found anew every call */
  size_t n;              /* the blocks the kept boxes are of (0: none kept: the next call builds) */
  cl_dda_box *kept, *now;
  int32_t *pairs;        /* the kept boxes' pairs (2 npairs, cap pairs) */
  size_t npairs, cap;
  long builds;           /* the grid's builds (with skin 0, every call's) */
} cl_dda_kept_pairs;

/* cl_dda_broad_phase's list, the same pairs in the same order, filtered from k's kept list where
 * every box lies inside its kept box, else from a new grid (k->builds counts them). */
cl_status cl_dda_broad_phase_kept(const cl_dda_geometry *g, double d0, cl_dda_kept_pairs *k, int32_t **pairs,
                                  size_t *npairs, size_t *cap, cl_error *err);
void cl_dda_kept_pairs_free(cl_dda_kept_pairs *k);

/* All contacts of the candidate pairs within distance d0, their states taken from prev where
 * the same (vertex, edge) was in contact (prev is sorted here), new ones closed (locked) when
 * touching or penetrating and open otherwise, bonded when `first` (the analysis' first step).
 * The list is sorted by key; equal keys (a vertex near both ends of a short edge) keep the
 * detection's order: by pair, then as cl_dda_pair_contacts finds them. */
cl_status cl_dda_narrow_phase(const cl_dda_geometry *g, const int32_t *pairs, size_t npairs, double d0,
                              cl_dda_contact_list *prev, int first, cl_dda_contact_list *out, cl_error *err);

/* The contacts found (m, in the pairs' order) as the step's list: sorted by key, equal keys in the
 * found order, each state carried from prev as cl_dda_narrow_phase says. The host vertices in g. */
cl_status cl_dda_transfer(const cl_dda_geometry *g, const cl_dda_found *found, size_t m, cl_dda_contact_list *prev,
                          int first, cl_dda_contact_list *out, cl_error *err);

void cl_dda_contact_list_free(cl_dda_contact_list *l);

#endif
