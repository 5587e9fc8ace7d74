/* A read-only view of what an output writer needs: points, cells and named
 * arrays, all on the host. Arrays are structure-of-arrays (component c of
 * row i at data[c*n + i]), the layout of cleave fields. */
#ifndef CL_MESH_VIEW_H
#define CL_MESH_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "../dtype.h"

/* VTK cell type numbers used by cleave. */
enum {
  CL_VTK_VERTEX = 1,
  CL_VTK_LINE = 3,
  CL_VTK_TRIANGLE = 5,
  CL_VTK_POLYGON = 7,
  CL_VTK_QUAD = 9,
  CL_VTK_TETRA = 10,
  CL_VTK_HEXAHEDRON = 12,
  CL_VTK_QUADRATIC_TRIANGLE = 22
};

typedef struct cl_array_view {
  const char *name;
  cl_dtype dtype;
  int ncomp;        /* 1 (scalar), 2 or 3 (vector; 2 is padded to 3 in VTU), 6, 9 ... */
  const void *data; /* SoA, n rows */
} cl_array_view;

typedef struct cl_mesh_view {
  size_t npoints;
  int dim;          /* 2 or 3: coordinates have dim components; z = 0 when dim = 2 */
  const double *x;  /* SoA coordinates, dim * npoints */
  size_t ncells;    /* 0 => points written as VTK_VERTEX cells */
  const uint8_t *cell_types;   /* ncells VTK cell types */
  const int32_t *cell_offsets; /* ncells + 1 prefix offsets into connectivity (starts with 0) */
  const int32_t *connectivity; /* 0-based point indices */
  size_t npoint_arrays;
  const cl_array_view *point_arrays;
  size_t ncell_arrays;
  const cl_array_view *cell_arrays;
} cl_mesh_view;

#endif
