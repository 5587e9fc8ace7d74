/* The DDA narrow phase of one candidate pair of blocks (a, b): the vertex-edge (VE) and
 * vertex-vertex contacts with the angle check (VV1 for parallel opposite edges, VV2 otherwise).
 * No allocation and no sort: each pair is independent and writes into the room it is given,
 * counting what did not fit, so the host runs chunks of pairs in parallel and a device kernel
 * can run the same functions (count, prefix sum, write). */
#ifndef CL_DDA_NARROW_H
#define CL_DDA_NARROW_H

#include <stddef.h>
#include <stdint.h>

#include "block.h"

/* how far (as the sine of the angle) a vertex's wedge may dip below a contact edge and still
 * touch it from outside: blocks rotate a little within a step */
#define CL_DDA_ANGLE_TOLERANCE 0.01

typedef enum cl_dda_contact_kind { CL_DDA_VE = 0, CL_DDA_VV1 = 1, CL_DDA_VV2 = 2 } cl_dda_contact_kind;

/* The blocks as detection sees them. */
typedef struct cl_dda_geometry {
  size_t n;
  const int32_t *vstart; /* n + 1 */
  const double *vx, *vy;
} cl_dda_geometry;

/* A contact as the narrow phase finds it: vertex vi of block bi against the edge ej -> next of
 * block bj, t the vertex's projection on the edge (a ratio), length the joint it stands for. */
typedef struct cl_dda_found {
  int32_t bi, vi, bj, ej, kind;
  double t, length;
} cl_dda_found;

CL_HD static inline int32_t cl_dda_next_vertex(const cl_dda_geometry *g, int32_t b, int32_t v) {
  return v + 1 == g->vstart[b + 1] ? g->vstart[b] : v + 1;
}
CL_HD static inline int32_t cl_dda_prev_vertex(const cl_dda_geometry *g, int32_t b, int32_t v) {
  return v == g->vstart[b] ? g->vstart[b + 1] - 1 : v - 1;
}

/* The lengths a vertex-edge combination needs: of the edge, and of the vertex's edges from its
 * previous vertex and to its next (a vertex-vertex contact tries four combinations of the same four
 * edges: it measures each once, cl_dda_vertex_vertex). hypot(-x, -y) is hypot(x, y) bit for bit (it
 * works on |x| and |y|), so a length serves either direction of its edge. */
typedef struct cl_dda_lengths {
  double edge, prev, next;
} cl_dda_lengths;

CL_HD static inline double cl_dda_edge_length(const cl_dda_geometry *g, int32_t b, int32_t e) {
  int32_t f = cl_dda_next_vertex(g, b, e);
  return hypot(g->vx[f] - g->vx[e], g->vy[f] - g->vy[e]);
}

CL_HD static inline cl_dda_lengths cl_dda_lengths_of(const cl_dda_geometry *g, int32_t bv, int32_t v, int32_t be,
                                                     int32_t e) {
  cl_dda_lengths L = {cl_dda_edge_length(g, be, e), cl_dda_edge_length(g, bv, cl_dda_prev_vertex(g, bv, v)),
                      cl_dda_edge_length(g, bv, v)};
  return L;
}

/* The angle check: vertex v of block bv can touch edge e -> e+1 of block be from outside only
 * if both of its edges leave it on the outer side of that edge (its wedge above the edge). */
CL_HD static inline int cl_dda_angle_ok_of(const cl_dda_geometry *g, int32_t bv, int32_t v, int32_t be, int32_t e,
                                           cl_dda_lengths L) {
  int32_t f = cl_dda_next_vertex(g, be, e), p = cl_dda_prev_vertex(g, bv, v), q = cl_dda_next_vertex(g, bv, v);
  double dx = g->vx[f] - g->vx[e], dy = g->vy[f] - g->vy[e], l = L.edge;
  double nx = dy / l, ny = -dx / l;
  for (int k = 0; k < 2; k++) {
    int32_t w = k ? q : p;
    double ux = g->vx[w] - g->vx[v], uy = g->vy[w] - g->vy[v];
    if (nx * ux + ny * uy < -CL_DDA_ANGLE_TOLERANCE * (k ? L.next : L.prev)) return 0;
  }
  return 1;
}

CL_HD static inline int cl_dda_angle_ok(const cl_dda_geometry *g, int32_t bv, int32_t v, int32_t be, int32_t e) {
  return cl_dda_angle_ok_of(g, bv, v, be, e, cl_dda_lengths_of(g, bv, v, be, e));
}

/* The joint length a contact stands for: half of each edge at the vertex that lies along the
 * contact edge (a face against a face), none for a corner against a face; a VV1 pair makes two
 * contacts at the same corner, each standing for half of it. */
CL_HD static inline double cl_dda_joint_length_of(const cl_dda_geometry *g, int32_t bv, int32_t v, int32_t be,
                                                  int32_t e, int kind, cl_dda_lengths L) {
  int32_t f = cl_dda_next_vertex(g, be, e);
  double dx = g->vx[f] - g->vx[e], dy = g->vy[f] - g->vy[e], l = L.edge, sum = 0;
  int32_t ends[2][2] = {{cl_dda_prev_vertex(g, bv, v), v}, {v, cl_dda_next_vertex(g, bv, v)}};
  for (int k = 0; k < 2; k++) {
    double ux = g->vx[ends[k][1]] - g->vx[ends[k][0]], uy = g->vy[ends[k][1]] - g->vy[ends[k][0]];
    double lu = k ? L.next : L.prev;
    if (fabs(ux * dy - uy * dx) <= CL_DDA_ANGLE_TOLERANCE * l * lu && ux * dx + uy * dy < 0) sum += lu / 2;
  }
  return kind == CL_DDA_VV1 ? sum / 2 : sum;
}

CL_HD static inline double cl_dda_joint_length(const cl_dda_geometry *g, int32_t bv, int32_t v, int32_t be,
                                               int32_t e, int kind) {
  return cl_dda_joint_length_of(g, bv, v, be, e, kind, cl_dda_lengths_of(g, bv, v, be, e));
}

/* Signed distance of vertex v from the line of edge e (> 0 outside block be); *t its projection;
 * l the edge's length. */
CL_HD static inline double cl_dda_edge_gap_of(const cl_dda_geometry *g, int32_t v, int32_t be, int32_t e, double l,
                                              double *t) {
  int32_t f = cl_dda_next_vertex(g, be, e);
  double dx = g->vx[f] - g->vx[e], dy = g->vy[f] - g->vy[e];
  double px = g->vx[v] - g->vx[e], py = g->vy[v] - g->vy[e];
  *t = (px * dx + py * dy) / (l * l);
  return (px * dy - py * dx) / l;
}

CL_HD static inline double cl_dda_edge_gap(const cl_dda_geometry *g, int32_t v, int32_t be, int32_t e, double *t) {
  return cl_dda_edge_gap_of(g, v, be, e, cl_dda_edge_length(g, be, e), t);
}

/* A box around a block's vertices, grown by a margin. */
typedef struct cl_dda_box {
  double x0, y0, x1, y1;
} cl_dda_box;

CL_HD static inline cl_dda_box cl_dda_block_box(const cl_dda_geometry *g, int32_t b, double grow) {
  cl_dda_box r = {INFINITY, INFINITY, -INFINITY, -INFINITY};
  for (int32_t v = g->vstart[b]; v < g->vstart[b + 1]; v++) {
    r.x0 = fmin(r.x0, g->vx[v]), r.y0 = fmin(r.y0, g->vy[v]);
    r.x1 = fmax(r.x1, g->vx[v]), r.y1 = fmax(r.y1, g->vy[v]);
  }
  r.x0 -= grow, r.y0 -= grow, r.x1 += grow, r.y1 += grow;
  return r;
}

CL_HD static inline int cl_dda_in_box(const cl_dda_geometry *g, int32_t v, cl_dda_box r) {
  return g->vx[v] >= r.x0 && g->vx[v] <= r.x1 && g->vy[v] >= r.y0 && g->vy[v] <= r.y1;
}

/* Where the narrow phase of a pair writes: out[0 .. cap) (out may be NULL); count counts every
 * contact found, written or not, so a caller whose room ran out knows how much it needs. */
typedef struct cl_dda_found_out {
  cl_dda_found *out;
  int cap, count;
} cl_dda_found_out;

/* Records contact number o->count (when there is room) and counts it; its joint length (VE:
 * cl_dda_joint_length) only when written. */
CL_HD static inline cl_dda_found *cl_dda_found_slot(cl_dda_found_out *o, int32_t bi, int32_t vi, int32_t bj,
                                                    int32_t ej, int kind, double t) {
  cl_dda_found *c = o->out && o->count < o->cap ? &o->out[o->count] : NULL;
  if (c) c->bi = bi, c->vi = vi, c->bj = bj, c->ej = ej, c->kind = kind, c->t = t;
  o->count++;
  return c;
}

CL_HD static inline void cl_dda_found_at(const cl_dda_geometry *g, cl_dda_found_out *o, int32_t bi, int32_t vi,
                                         int32_t bj, int32_t ej, int kind, double t) {
  cl_dda_found *c = cl_dda_found_slot(o, bi, vi, bj, ej, kind, t);
  if (c) c->length = cl_dda_joint_length(g, bi, vi, bj, ej, kind);
}

/* The VE contacts of block a's vertex v with block b's edges: the vertex within d0 of the edge's
 * interior (outside it, or less than d0 / 10 behind it) and farther than d0 from its ends (those
 * are vertex-vertex). near_b: b's box grown by more than d0 (a vertex outside is near none of
 * b's edges). */
CL_HD static inline void cl_dda_vertex_edge(const cl_dda_geometry *g, int32_t a, int32_t v, int32_t b,
                                            cl_dda_box near_b, double d0, cl_dda_found_out *o) {
  if (!cl_dda_in_box(g, v, near_b)) return;
  for (int32_t e = g->vstart[b]; e < g->vstart[b + 1]; e++) {
    int32_t f = cl_dda_next_vertex(g, b, e);
    /* as in cl_dda_pair_contacts: a vertex in contact lies within d0 of the edge */
    cl_dda_box near_e = {fmin(g->vx[e], g->vx[f]) - 2 * d0, fmin(g->vy[e], g->vy[f]) - 2 * d0,
                         fmax(g->vx[e], g->vx[f]) + 2 * d0, fmax(g->vy[e], g->vy[f]) + 2 * d0};
    if (!cl_dda_in_box(g, v, near_e)) continue;
    double t, gap = cl_dda_edge_gap(g, v, b, e, &t);
    /* a vertex deeper behind the edge than a tenth of d0 cannot have come through it in a step
     * (steps move less than d0 / 1.25): it lies across the other block, not in contact */
    if (gap >= d0 || gap <= -d0 / 10 || t <= 0 || t >= 1) continue;
    if (hypot(g->vx[v] - g->vx[e], g->vy[v] - g->vy[e]) < d0) continue;
    if (hypot(g->vx[v] - g->vx[f], g->vy[v] - g->vy[f]) < d0) continue;
    if (!cl_dda_angle_ok(g, a, v, b, e)) continue;
    cl_dda_found_at(g, o, a, v, b, e, CL_DDA_VE, t);
  }
}

/* Vertex p of block a near vertex q of block b: the four (vertex, edge) combinations, each edge
 * one of the two at the other vertex. Parallel opposite edges (VV1) keep every combination that
 * passes the angle check; otherwise (VV2) the one edge the vertex penetrates least. The shear
 * anchor is the vertex's projection on the edge's line, even beyond the edge's end, so that a new
 * contact's shear spring starts unstretched. The four combinations use the same four edges (each
 * vertex's two): their lengths are taken once, 4 hypot calls where each combination's angle check,
 * joint length and gap took up to 3 + 3 + 1 (28, and 4 more for the contact written) -- this is
 * the narrow phase's heaviest work, which the other lanes of its warp wait for on cuda. */
CL_HD static inline void cl_dda_vertex_vertex(const cl_dda_geometry *g, int32_t a, int32_t p, int32_t b, int32_t q,
                                              cl_dda_found_out *o) {
  int32_t vb[4] = {a, a, b, b}, vv[4] = {p, p, q, q}, eb[4] = {b, b, a, a};
  int32_t ee[4] = {cl_dda_prev_vertex(g, b, q), q, cl_dda_prev_vertex(g, a, p), p};
  /* the edges into and out of p (a's), into and out of q (b's) */
  const double lp0 = cl_dda_edge_length(g, a, ee[2]), lp1 = cl_dda_edge_length(g, a, p);
  const double lq0 = cl_dda_edge_length(g, b, ee[0]), lq1 = cl_dda_edge_length(g, b, q);
  const cl_dda_lengths L[4] = {{lq0, lp0, lp1}, {lq1, lp0, lp1}, {lp0, lq0, lq1}, {lp1, lq0, lq1}};
  int ok[4], parallel[4], any_parallel = 0;
  double joint[4];
  for (int k = 0; k < 4; k++) {
    ok[k] = cl_dda_angle_ok_of(g, vb[k], vv[k], eb[k], ee[k], L[k]);
    joint[k] = cl_dda_joint_length_of(g, vb[k], vv[k], eb[k], ee[k], CL_DDA_VE, L[k]);
    parallel[k] = ok[k] && joint[k] > 0;
    any_parallel |= parallel[k];
  }
  /* the best combination kept by value, not by index: an array read at a run-time index lives in
   * cuda's local memory (the kernel spilled) */
  int best = -1;
  int32_t best_e = 0;
  double best_gap = -INFINITY, best_t = 0, best_joint = 0;
  for (int k = 0; k < 4; k++) {
    if (!ok[k]) continue;
    double t, gap = cl_dda_edge_gap_of(g, vv[k], eb[k], ee[k], L[k].edge, &t);
    if (any_parallel) {
      cl_dda_found *c = parallel[k] ? cl_dda_found_slot(o, vb[k], vv[k], eb[k], ee[k], CL_DDA_VV1, t) : NULL;
      if (c) c->length = joint[k] / 2; /* cl_dda_joint_length's VV1 */
    } else if (gap > best_gap) {
      best = k, best_e = ee[k], best_gap = gap, best_t = t, best_joint = joint[k];
    }
  }
  if (best >= 0) { /* combinations 0 and 1: a's vertex p on b's edge; 2 and 3: b's q on a's */
    cl_dda_found *c = best < 2 ? cl_dda_found_slot(o, a, p, b, best_e, CL_DDA_VV2, best_t)
                               : cl_dda_found_slot(o, b, q, a, best_e, CL_DDA_VV2, best_t);
    if (c) c->length = best_joint; /* cl_dda_joint_length's VV2 is its VE */
  }
}

/* The vertex-vertex contacts of block a's vertex p with block b's vertices within d0. */
CL_HD static inline void cl_dda_vertex_near_vertices(const cl_dda_geometry *g, int32_t a, int32_t p, int32_t b,
                                                     cl_dda_box near_a, cl_dda_box near_b, double d0,
                                                     cl_dda_found_out *o) {
  if (!cl_dda_in_box(g, p, near_b)) return;
  for (int32_t q = g->vstart[b]; q < g->vstart[b + 1]; q++)
    if (cl_dda_in_box(g, q, near_a) && fabs(g->vx[p] - g->vx[q]) < d0 && fabs(g->vy[p] - g->vy[q]) < d0 &&
        hypot(g->vx[p] - g->vx[q], g->vy[p] - g->vy[q]) < d0)
      cl_dda_vertex_vertex(g, a, p, b, q, o);
}

/* A pair's work as tasks in the order of its contacts: a's vertices on b's edges (a task a vertex
 * of a), b's on a's, then a's vertices against b's vertices; cuda gives each its lane of the pair's
 * warp (narrow_device.cu). */
CL_HD static inline int32_t cl_dda_pair_tasks(const cl_dda_geometry *g, int32_t a, int32_t b) {
  return 2 * (g->vstart[a + 1] - g->vstart[a]) + (g->vstart[b + 1] - g->vstart[b]);
}

/* Task `task` of pair (a, b) (cl_dda_pair_tasks); near_a, near_b the blocks' boxes grown by 2 d0. */
CL_HD static inline void cl_dda_pair_task(const cl_dda_geometry *g, int32_t a, int32_t b, int32_t task,
                                          cl_dda_box near_a, cl_dda_box near_b, double d0, cl_dda_found_out *o) {
  const int32_t na = g->vstart[a + 1] - g->vstart[a], nb = g->vstart[b + 1] - g->vstart[b];
  if (task < na) cl_dda_vertex_edge(g, a, g->vstart[a] + task, b, near_b, d0, o);
  else if (task < na + nb) cl_dda_vertex_edge(g, b, g->vstart[b] + task - na, a, near_a, d0, o);
  else cl_dda_vertex_near_vertices(g, a, g->vstart[a] + task - na - nb, b, near_a, near_b, d0, o);
}

/* The count pass leaves the write pass each pair's first CL_DDA_KNOWN_TASKS tasks' contact counts, 4
 * bits each (15: 15 or more), so that the write pass runs a task again only to write what it found
 * (or to count it, beyond those or at 15): it ran every task to count, then those that found contacts
 * to write them -- twice the heaviest tasks' work (narrow_device.cu). */
#define CL_DDA_KNOWN_TASKS 16

CL_HD static inline uint64_t cl_dda_task_count_bits(int32_t task, int count) {
  return task < CL_DDA_KNOWN_TASKS ? (uint64_t)(count < 15 ? count : 15) << (4 * task) : 0;
}

/* Task `task`'s contacts: as the count pass's bits `known` say, else counted again. */
CL_HD static inline int cl_dda_pair_task_count(const cl_dda_geometry *g, int32_t a, int32_t b, int32_t task,
                                               cl_dda_box near_a, cl_dda_box near_b, double d0, uint64_t known) {
  const int bits = task < CL_DDA_KNOWN_TASKS ? (int)(known >> (4 * task) & 15) : 15;
  if (bits < 15) return bits;
  cl_dda_found_out o = {NULL, 0, 0};
  cl_dda_pair_task(g, a, b, task, near_a, near_b, d0, &o);
  return o.count;
}

/* The count pass of pair (a, b): its contacts, and *known its first tasks' counts' bits. */
CL_HD static inline int64_t cl_dda_pair_count(const cl_dda_geometry *g, int32_t a, int32_t b, double d0,
                                              uint64_t *known) {
  const cl_dda_box near_a = cl_dda_block_box(g, a, 2 * d0), near_b = cl_dda_block_box(g, b, 2 * d0);
  const int32_t tasks = cl_dda_pair_tasks(g, a, b);
  int64_t count = 0;
  *known = 0;
  for (int32_t task = 0; task < tasks; task++) {
    cl_dda_found_out o = {NULL, 0, 0};
    cl_dda_pair_task(g, a, b, task, near_a, near_b, d0, &o);
    *known |= cl_dda_task_count_bits(task, o.count);
    count += o.count;
  }
  return count;
}

/* The write pass of pair (a, b) into out[0 .. cap): each task's contacts after the tasks' before it
 * (their counts as cl_dda_pair_task_count gives them), only the tasks that found any run again. */
CL_HD static inline void cl_dda_pair_write(const cl_dda_geometry *g, int32_t a, int32_t b, double d0, uint64_t known,
                                           cl_dda_found *out, int64_t cap) {
  const cl_dda_box near_a = cl_dda_block_box(g, a, 2 * d0), near_b = cl_dda_block_box(g, b, 2 * d0);
  const int32_t tasks = cl_dda_pair_tasks(g, a, b);
  int64_t at = 0;
  for (int32_t task = 0; task < tasks; task++) {
    const int n = cl_dda_pair_task_count(g, a, b, task, near_a, near_b, d0, known);
    if (n > 0 && at < cap) {
      cl_dda_found_out o = {out + at, (int)(cap - at < n ? cap - at : n), 0};
      cl_dda_pair_task(g, a, b, task, near_a, near_b, d0, &o);
    }
    at += n;
  }
}

/* The contacts of candidate pair (a, b) within distance d0, in a fixed order: a's vertices on b's
 * edges, b's on a's, then the vertex-vertex pairs; the first cap written to out (unless NULL);
 * returns how many there are.
 * Only the vertices in the other block's box grown by 2 d0 are tried: a contact needs its vertex
 * within d0 of the other block (exactly so for vertex-vertex: hypot >= the larger of |dx|, |dy|;
 * for vertex-edge up to the rounding of the gap, ~1e-16 of the coordinates, far below the
 * margin d0), so the filter skips only work and the contacts are those of the full loops. */
CL_HD static inline int cl_dda_pair_contacts(const cl_dda_geometry *g, int32_t a, int32_t b, double d0,
                                             cl_dda_found *out, int cap) {
  cl_dda_found_out o = {out, cap, 0};
  const cl_dda_box near_a = cl_dda_block_box(g, a, 2 * d0), near_b = cl_dda_block_box(g, b, 2 * d0);
  const int32_t tasks = cl_dda_pair_tasks(g, a, b);
  for (int32_t task = 0; task < tasks; task++) cl_dda_pair_task(g, a, b, task, near_a, near_b, d0, &o);
  return o.count;
}

#endif
