/* 2D triangle (and, cl_msh_read_cells, quadrangle) meshes from Gmsh .msh files, ASCII format 2.2 or 4.1.
 *
 * Read: $MeshFormat (must come first), $PhysicalNames, $Entities (4.1: gives
 * each element block its physical group), $Nodes, $Elements; other sections
 * are skipped. Kept elements: 3-node (type 2) or 6-node (type 9) triangles,
 * and 2-node (type 1) or 3-node (type 8) lines that belong to a physical
 * group, as boundary edges. Every other element (points, quads, lines
 * without a group, 3D cells...) is skipped and counted.
 *
 * Refused, with "path:line: what was expected": binary files and versions
 * other than 2.2 and 4.1 (convert with gmsh FILE -save -format msh41 -o OUT,
 * or -format msh22), a missing $End line, a non-number where a number is
 * expected, a record with the wrong count of numbers, counts in a header
 * that the records do not match, a node tag defined twice, a node with
 * z != 0 (only meshes in the plane z = 0 are read), an element referring to
 * a node that $Nodes does not define, triangles of both orders, lines of
 * both orders or of an order other than the triangles', $Elements before
 * $Nodes, $Entities after $Elements, a section given twice. A file without
 * triangles is refused too.
 *
 * cl_msh_read_3d reads surfaces and solids in space instead (cleave.fpm's shells and hexahedra): every
 * node keeps x, y, z; the cells are 3-node triangles (type 2) or 8-node hexahedra (type 5), one kind
 * per file; every element of a physical group (points, lines, triangles, quadrangles, the cells...)
 * lists its nodes under that group (tagged_node, tagged_group), so that groups of any dimension
 * become sets of nodes; edges are not kept. */
#ifndef CL_MSH_H
#define CL_MSH_H

#include <stddef.h>
#include <stdint.h>

#include "../status.h"

/* Gmsh allows physical names of up to 127 characters. */
#define CL_MSH_NAME_MAX 128

/* One entry of $PhysicalNames. */
typedef struct cl_msh_physical {
  int dim, tag; /* dimension (0 to 3) and physical tag, as in the file */
  char name[CL_MSH_NAME_MAX];
} cl_msh_physical;

typedef struct cl_msh {
  /* Every node of $Nodes, in file order (used by a triangle or not): node
   * tags, arbitrary positive numbers in the file, become indices 0..nnodes-1. */
  size_t nnodes;
  double *x; /* nnodes * 2: x, y of node i at x[2i], x[2i+1] (cl_msh_read_3d: nnodes * 3, x, y, z at x[3i]...) */

  int order; /* 1: 3-node triangles (type 2); 2: 6-node triangles (type 9); with quad, 1, 2, 3:
              * 4-, 9-, 16-node quadrangles (types 3, 10, 36) */
  int quad;  /* cl_msh_read_cells only: the cells are quadrangles */
  size_t nelems;
  uint32_t *elem;      /* nelems * 3 * order node indices (quadrangles: (order + 1)^2), in Gmsh's node order
                        * (3 corners, then the midpoints of edges 01, 12, 20; quadrangles: 4 corners, the
                        * edge nodes of edges 01, 12, 23, 30, then the interior ones as a smaller quadrangle) */
  int32_t *elem_group; /* physical tag of each triangle, or -1 */

  size_t nedges;       /* lines that carry a physical group */
  uint32_t *edge;      /* nedges * (order + 1): 2 ends, then the midpoint for order 2 (the 2 interior
                        * nodes, from the first end, for order 3) */
  int32_t *edge_group; /* physical tag of each edge (never -1) */

  size_t ngroups;
  cl_msh_physical *groups; /* $PhysicalNames in file order (none if the file has none) */

  size_t nskipped; /* elements not kept: other types, and lines without a group */

  int hex;                /* cl_msh_read_3d: the cells are 8-node hexahedra (Gmsh's node order is VTK's) */
  size_t ntagged;         /* cl_msh_read_3d: (node, physical tag) pairs, one per node of each element */
  uint32_t *tagged_node;  /* of a physical group, in file order (a node may come more than once) */
  int32_t *tagged_group;  /* the physical tag */
  int32_t *tagged_dim;    /* and its dimension (Gmsh numbers physical groups per dimension) */
} cl_msh;

/* Reads path into *out (zeroed first; free with cl_msh_free). A 2.2 element
 * takes its first tag as its physical group (0 or no tags: -1); a 4.1
 * element takes the first physical tag of its block's entity in $Entities
 * (-1 without one). An unreadable file is CL_ERR_IO, anything wrong in it
 * CL_ERR_ARG; on error *out stays zeroed. */
cl_status cl_msh_read(const char *path, cl_msh *out, cl_error *err);

/* As cl_msh_read, also keeping quadrangles (4-, 9-, 16-node: types 3, 10, 36; one type per file, not
 * mixed with triangles) and the 4-node lines (type 26) that bound the 16-node ones. */
cl_status cl_msh_read_cells(const char *path, cl_msh *out, cl_error *err);

/* As cl_msh_read, for 3-node triangles or 8-node hexahedra in space (see the top of this file). */
cl_status cl_msh_read_3d(const char *path, cl_msh *out, cl_error *err);

/* Frees the arrays of m and zeroes it; m may be zeroed already. */
void cl_msh_free(cl_msh *m);

/* The dimension and tag of the physical group called name; an unknown name
 * is CL_ERR_ARG with a message listing the names there are. */
cl_status cl_msh_group(const cl_msh *m, const char *name, int *dim, int *tag, cl_error *err);

#endif
