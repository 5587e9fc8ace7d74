/* DDA contact detection on the model's device: the broad phase's passes (broad.h: boxes, their
 * median size and bounds by a sort and reductions, the cells' entries counted, offset, written and
 * sorted, each block's partners counted, offset, written and sorted by key) feeding the narrow
 * phase's count and write passes (narrow_kernels.h). The host reads back only counts and the grid's
 * five scalars until the contacts found come down for the transfer (contacts.h). The pairs and the
 * contacts are those of the host's cl_dda_broad_phase / cl_dda_narrow_phase, in the same order. */
#ifndef CL_DDA_DETECT_H
#define CL_DDA_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/device.h"
#include "broad_kernels.h"
#include "narrow_kernels.h"
#include "transfer_ops.h"

/* The device buffers of detection, kept from step to step (grown as needed). */
enum { CL_DDA_DB_BOXES, CL_DDA_DB_BOUNDS, CL_DDA_DB_SIZES, CL_DDA_DB_SORTED_SIZES, CL_DDA_DB_COUNT,
       CL_DDA_DB_OFFSET, CL_DDA_DB_KEYS, CL_DDA_DB_SORTED, CL_DDA_DB_START, CL_DDA_DB_IN_CELL, CL_DDA_DB_PAIRS,
       CL_DDA_DB_FOUND, CL_DDA_DB_TKEYS, CL_DDA_DB_LAST_KEYS, CL_DDA_DB_PERM, CL_DDA_DB_KEPT, CL_DDA_DB_KEPT_PAIRS,
       CL_DDA_DB_N };

typedef struct cl_dda_detect {
  cl_device *d;
  void *buf[CL_DDA_DB_N];
  size_t cap[CL_DDA_DB_N]; /* bytes */
  cl_dda_scratch scratch;
  size_t npairs, nfound;   /* of the last call */
  /* The broad phase's list kept from call to call (Verlet-list style): the pairs of the blocks' boxes
   * grown by d0 / 2 + skin / 2 (kept boxes), used again while every box grown by d0 / 2 lies inside
   * its kept box. The caller sets skin (metres; 0, as init leaves it: the pairs found anew each call). */
  double skin;
  size_t kept_n, nkept;    /* the blocks the kept boxes are of (0: none kept), the kept pairs */
  long builds;             /* the grid's builds (with skin 0, every call's) */
  /* The transfer's shortcut: where the contacts found have the keys of the last transfer's, in the same
   * order (a compare on the device, one host wait), the sort and the sorted search are skipped, each
   * sorted position's contact taken as the last transfer's was (its order: the sorted search's answer
   * depends on those keys alone). The caller sets shortcut (0, as init leaves it: never). */
  int shortcut;
  size_t last_nfound;      /* the contacts of the last transfer, whose keys and order s keeps (0: none) */
  long shortcuts;          /* the transfers that took the shortcut */
} cl_dda_detect;

void cl_dda_detect_init(cl_dda_detect *s, cl_device *d);
void cl_dda_detect_free(cl_dda_detect *s);

/* The candidate pairs of g (device pointers) with boxes grown by d0 / 2, into the device's pairs
 * buffer (s->npairs of them, (i, j) with i < j, sorted): the same list whether the kept one was
 * filtered (one wait for the device) or the grid built anew (three, and s->builds counts it). */
cl_status cl_dda_detect_pairs(cl_dda_detect *s, const cl_dda_geometry *g, double d0, cl_error *err);
/* The contacts of the pairs s holds (or of the npairs host pairs, when pairs is not NULL), into the
 * device's found buffer (s->nfound, in the pairs' order). */
cl_status cl_dda_detect_found(cl_dda_detect *s, const cl_dda_geometry *g, const int32_t *pairs, size_t npairs,
                              double d0, cl_error *err);
/* Copies of the device's pairs (2 s->npairs) and contacts found (s->nfound) to host arrays of room enough. */
cl_status cl_dda_detect_pairs_to_host(cl_dda_detect *s, int32_t *pairs, cl_error *err);
cl_status cl_dda_detect_found_to_host(cl_dda_detect *s, cl_dda_found *found, cl_error *err);
/* The transfer on the device (transfer_ops.h) of the contacts found last (cl_dda_detect_found, on g, of
 * nv vertices) into out (device arrays with room for s->nfound), in key order, their states carried from prev (the
 * last step's nprev contacts, in key order); first: the analysis' first step (new contacts bonded). With
 * s->shortcut, the same out bit for bit, without the sort where the keys found are the last transfer's in
 * the same order (s->shortcuts counts it) -- whatever prev is: it is searched as always. */
cl_status cl_dda_detect_transfer(cl_dda_detect *s, const cl_dda_geometry *g, size_t nv, const cl_dda_device_list *prev,
                                 size_t nprev, int first, const cl_dda_device_list *out, cl_error *err);

#endif
