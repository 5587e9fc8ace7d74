/* 2D meshes from Abaqus input files (.inp), the part most users of the field already have.
 *
 * Read: *NODE (id, x, y[, z = 0]), *ELEMENT, TYPE=<t>[, ELSET=<name>] of one type per file among
 * CPE3, CPS3, CPE6, CPS6 (triangles), CPE4, CPS4 (4-node) and CPE8, CPS8 (8-node quadrilaterals, the
 * R/H variants too: CPE4R ...), data lines continued when they end with a comma; *NSET, NSET=<name>
 * and *ELSET, ELSET=<name>, lists of ids or, with GENERATE, first, last[, step]. Keywords are
 * case-insensitive; ** lines are comments; other keywords and their data are skipped. Ids are
 * arbitrary positive numbers; indices follow the file order.
 *
 * Refused, with "path:line: what was expected": a non-number where a number is expected, a node
 * with z != 0, an element type not listed above or a second type, an element with too few or too
 * many node ids; with "path: ..." naming the ids (found once the whole file is read): a node or
 * element id defined twice, an element or a set naming an undefined node or element, a file without
 * elements.
 *
 * cl_inp_read_3d reads surfaces and solids in space instead (cleave.fpm's shells and hexahedra): nodes
 * keep z (x holds nnodes * 3), and the element types are S3 (S3R: 3-node shells) or C3D8 (C3D8R,
 * C3D8I, C3D8H: 8-node hexahedra, Abaqus's node order is VTK's), one type per file. */
#ifndef CL_INP_H
#define CL_INP_H

#include <stddef.h>
#include <stdint.h>

#include "../status.h"

#define CL_INP_NAME_MAX 80

typedef struct cl_inp_set {
  char name[CL_INP_NAME_MAX]; /* as written (case kept) */
  int elements;               /* 0: a node set, 1: an element set */
  size_t n;
  uint32_t *items;            /* 0-based node or element indices, in the order given (repeats removed) */
} cl_inp_set;

typedef struct cl_inp {
  size_t nnodes;
  double *x;                  /* nnodes * 2 (cl_inp_read_3d: nnodes * 3, x, y, z) */
  char type[16];              /* the element type as written, upper case (e.g. "CPE8") */
  int nodes_per_elem;         /* 3, 4, 6 or 8 (3D: 3 or 8) */
  size_t nelems;
  uint32_t *elem;             /* nelems * nodes_per_elem node indices, in Abaqus's order (corners
                               * counter-clockwise, then the mid-side nodes of edges 12, 23, ...) */
  size_t nsets;
  cl_inp_set *sets;
} cl_inp;

/* Reads path into *out (zeroed first; free with cl_inp_free). An unreadable file is CL_ERR_IO,
 * anything wrong in it CL_ERR_ARG; on error *out stays zeroed. */
cl_status cl_inp_read(const char *path, cl_inp *out, cl_error *err);

/* As cl_inp_read, for S3 shells or C3D8 hexahedra in space (see the top of this file). */
cl_status cl_inp_read_3d(const char *path, cl_inp *out, cl_error *err);

void cl_inp_free(cl_inp *m);

#endif
