/* Serial host reference of cohesive-element insertion on T3/T6 meshes
 * (Alhadeff et al., sections 4.3 and 5: node duplication by traversal of
 * the elements around a node through the adjacency table), and an
 * independent checker of the resulting topology.
 *
 * A cohesive element lies on a cracked facet between two bulk elements;
 * it names the element and its local edge on each side. After insertion,
 * adj is -1 on both sides of every cracked facet, exactly as on the
 * boundary. The final topology depends only on the set of cracked facets,
 * not on the order of insertion (up to the numbering of the new nodes). */
#ifndef CL_MESH2D_INSERT_H
#define CL_MESH2D_INSERT_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/mesh2d.h"
#include "../../runtime/status.h"

typedef struct cl_cohesive {
  uint32_t elem[2];  /* the bulk element on each side */
  uint8_t edge[2];   /* its local edge (0..2) on the facet */
} cl_cohesive;

/* Growable array; zero-initialise before first use. */
typedef struct cl_cohesive_list {
  cl_cohesive *v;
  size_t n, cap;
} cl_cohesive_list;

/* Frees the array and zeroes the struct; c may be NULL. */
void cl_cohesive_list_free(cl_cohesive_list *c);

/* Cracks the count facets named by (elems[i], edges[i]) (either side may
 * name a facet), appending one cohesive element each to c, whose side 0 is
 * the named element. Then duplicates nodes: a T6 facet's mid-side node
 * always; a corner node when the elements around it are no longer
 * connected through uncracked edges (the group on the far side gets a
 * copy with the same coordinates). New nodes are appended to m->x, which
 * is reallocated. Errors (nothing is changed): element or edge out of
 * range, a boundary facet, an already cracked facet, a facet named twice
 * (each message names the element and edge), too many nodes, out of
 * memory. m->adj must be valid and consistent with c. */
cl_status cl_mesh2d_insert(cl_mesh2d *m, cl_cohesive_list *c, const uint32_t *elems, const uint8_t *edges,
                           size_t count, cl_error *err);

/* Independent check of a cracked mesh: node indices below nnodes and
 * every node used; adj symmetric with the same nodes on both sides of
 * every uncracked facet; every cohesive element in range, with adj -1 on
 * both sides, no facet side cracked twice, and its corners at equal
 * coordinates on the two sides (reversed); for every node, the elements
 * using it connected through uncracked edges at that node (so no node is
 * shared across a crack that separates them). The first violation is
 * named in err. Errors: out of memory. */
cl_status cl_mesh2d_topology_check(const cl_mesh2d *m, const cl_cohesive_list *c, cl_error *err);

#endif
