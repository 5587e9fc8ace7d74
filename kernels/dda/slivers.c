/* The cutter's slivers merged into a neighbour or dropped (slivers.h). */
#include "slivers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polygon.h"

double cl_dda_piece_radius(const double *x, const double *y, int m) {
  double perimeter = 0;
  for (int k = 0; k < m; k++) perimeter += hypot(x[(k + 1) % m] - x[k], y[(k + 1) % m] - y[k]);
  return perimeter > 0 ? fabs(cl_dda_polygon_area2(x, y, m)) / perimeter : 0;
}

typedef struct piece {
  int m, alive;
  double *x, *y;
  int32_t *tag;
  double x0, x1, y0, y1; /* bounding box */
} piece;

typedef struct seam {
  int other, contained;  /* the neighbour; which of the two pieces' edges lies along the other's (0: the sliver's) */
  int e, f;              /* the sliver's edge, the neighbour's */
  double length;         /* of the shorter edge */
} seam;

static void set_box(piece *q) {
  q->x0 = q->y0 = INFINITY, q->x1 = q->y1 = -INFINITY;
  for (int k = 0; k < q->m; k++)
    q->x0 = fmin(q->x0, q->x[k]), q->x1 = fmax(q->x1, q->x[k]), q->y0 = fmin(q->y0, q->y[k]), q->y1 = fmax(q->y1, q->y[k]);
}

/* Whether edge e of P (a -> b) lies along edge f of C (c -> d), running the other way: both ends
 * within tol of C's edge. */
static int lies_along(const piece *P, int e, const piece *C, int f, double tol) {
  double ax = P->x[e], ay = P->y[e], bx = P->x[(e + 1) % P->m], by = P->y[(e + 1) % P->m];
  double cx = C->x[f], cy = C->y[f], dx = C->x[(f + 1) % C->m], dy = C->y[(f + 1) % C->m];
  if ((bx - ax) * (dx - cx) + (by - ay) * (dy - cy) >= 0) return 0;
  double t;
  return cl_dda_segment_distance(ax, ay, cx, cy, dx, dy, &t) <= tol &&
         cl_dda_segment_distance(bx, by, cx, cy, dx, dy, &t) <= tol;
}

static int seam_cmp(const void *a, const void *b) {
  double x = ((const seam *)a)->length, y = ((const seam *)b)->length;
  return x > y ? -1 : x < y;
}

/* The union of C and P glued along P's edge e lying on C's edge f: C's vertices from f's end
 * round to its start, then P's from e's end round to its start, leaving out P's ends where they
 * coincide with C's; into q (buffers of C->m + P->m). An edge along f keeps f's joint. */
static void glue(const piece *C, int f, const piece *P, int e, double tol, piece *q) {
  int n = 0;
  double cx = C->x[f], cy = C->y[f], dx = C->x[(f + 1) % C->m], dy = C->y[(f + 1) % C->m];
  for (int k = 1; k <= C->m; k++) {
    int v = (f + k) % C->m;
    q->x[n] = C->x[v], q->y[n] = C->y[v], q->tag[n++] = C->tag[v];
  }
  for (int k = 1; k <= P->m; k++) {
    int v = (e + k) % P->m;
    double px = P->x[v], py = P->y[v];
    if (k == 1 && hypot(px - cx, py - cy) <= tol) { /* b on c: c's edge is now P's next one */
      q->tag[n - 1] = P->tag[v];
      continue;
    }
    if (k == P->m && hypot(px - dx, py - dy) <= tol) continue; /* a on d */
    q->x[n] = px, q->y[n] = py, q->tag[n++] = k == P->m ? C->tag[f] : P->tag[v];
  }
  q->m = n;
}

cl_status cl_dda_merge_slivers(cl_dda_polygons *p, double min_radius, double tol, size_t *merged, size_t *dropped,
                               cl_error *err) {
  *merged = *dropped = 0;
  size_t n = p->n;
  piece *pc = calloc(n ? n : 1, sizeof *pc);
  int *order = calloc(n ? n : 1, sizeof *order);
  double *radius = calloc(n ? n : 1, sizeof *radius);
  seam *seams = NULL;
  size_t seam_cap = 0, nslivers = 0;
  cl_status st = pc && order && radius ? CL_OK : CL_ERR_OOM;
  for (size_t k = 0; k < n && st == CL_OK; k++) {
    int m = p->start[k + 1] - p->start[k];
    pc[k] = (piece){.m = m, .alive = 1, .x = malloc((size_t)m * sizeof(double)), .y = malloc((size_t)m * sizeof(double)),
                    .tag = malloc((size_t)m * sizeof(int32_t))};
    if (!pc[k].x || !pc[k].y || !pc[k].tag) {
      st = CL_ERR_OOM;
      break;
    }
    memcpy(pc[k].x, p->x + p->start[k], (size_t)m * sizeof(double));
    memcpy(pc[k].y, p->y + p->start[k], (size_t)m * sizeof(double));
    memcpy(pc[k].tag, p->tag + p->start[k], (size_t)m * sizeof(int32_t));
    set_box(&pc[k]);
    radius[k] = cl_dda_piece_radius(pc[k].x, pc[k].y, m);
    if (radius[k] < min_radius) order[nslivers++] = (int)k;
  }
  /* thinnest first (insertion sort: slivers are few) */
  for (size_t a = 1; a < nslivers; a++)
    for (size_t b = a; b > 0 && radius[order[b]] < radius[order[b - 1]]; b--) {
      int t = order[b];
      order[b] = order[b - 1], order[b - 1] = t;
    }
  for (size_t s = 0; s < nslivers && st == CL_OK; s++) {
    piece *S = &pc[order[s]];
    /* a sliver that has taken in another may have grown past the limit */
    if (!S->alive || cl_dda_piece_radius(S->x, S->y, S->m) >= min_radius) continue;
    size_t nseams = 0;
    for (size_t k = 0; k < n && st == CL_OK; k++) {
      piece *N = &pc[k];
      if (N == S || !N->alive || N->x1 < S->x0 - tol || N->x0 > S->x1 + tol || N->y1 < S->y0 - tol ||
          N->y0 > S->y1 + tol)
        continue;
      for (int e = 0; e < S->m; e++)
        for (int f = 0; f < N->m; f++) {
          int contained = lies_along(S, e, N, f, tol) ? 0 : lies_along(N, f, S, e, tol) ? 1 : -1;
          if (contained < 0) continue;
          const piece *P = contained ? N : S;
          int pe = contained ? f : e;
          double len = hypot(P->x[(pe + 1) % P->m] - P->x[pe], P->y[(pe + 1) % P->m] - P->y[pe]);
          if (len <= tol) continue;
          if (nseams == seam_cap) {
            seam_cap = seam_cap ? 2 * seam_cap : 16;
            seam *grown = realloc(seams, seam_cap * sizeof *grown);
            if (!grown) {
              st = CL_ERR_OOM;
              break;
            }
            seams = grown;
          }
          seams[nseams++] = (seam){(int)k, contained, e, f, len};
        }
    }
    if (st != CL_OK) break;
    qsort(seams, nseams, sizeof *seams, seam_cmp);
    int done = 0;
    for (size_t q = 0; q < nseams && !done && st == CL_OK; q++) {
      piece *N = &pc[seams[q].other];
      const piece *C = seams[q].contained ? S : N, *P = seams[q].contained ? N : S;
      int f = seams[q].contained ? seams[q].e : seams[q].f, e = seams[q].contained ? seams[q].f : seams[q].e;
      int cap = C->m + P->m;
      piece u = {.x = malloc((size_t)cap * sizeof(double)), .y = malloc((size_t)cap * sizeof(double)),
                 .tag = malloc((size_t)cap * sizeof(int32_t))};
      if (!u.x || !u.y || !u.tag) {
        free(u.x), free(u.y), free(u.tag);
        st = CL_ERR_OOM;
        break;
      }
      glue(C, f, P, e, tol, &u);
      /* a simple polygon of the two areas together: the glue made no fold */
      double area = fabs(cl_dda_polygon_area2(u.x, u.y, u.m)),
             parts = fabs(cl_dda_polygon_area2(S->x, S->y, S->m)) + fabs(cl_dda_polygon_area2(N->x, N->y, N->m));
      char why[160];
      if (!cl_dda_polygon_defect(u.x, u.y, u.m, tol, why, sizeof why) && fabs(area - parts) <= 1e-9 * parts) {
        free(N->x), free(N->y), free(N->tag);
        N->x = u.x, N->y = u.y, N->tag = u.tag, N->m = u.m;
        set_box(N);
        done = 1;
      } else {
        free(u.x), free(u.y), free(u.tag);
      }
    }
    S->alive = 0;
    if (done) (*merged)++;
    else (*dropped)++;
  }
  if (st == CL_OK) {
    cl_dda_polygons out = {0};
    for (size_t k = 0; k < n && st == CL_OK; k++)
      if (pc[k].alive) st = cl_dda_polygons_add(&out, pc[k].x, pc[k].y, pc[k].tag, pc[k].m, err);
    if (st == CL_OK) {
      cl_dda_polygons_free(p);
      *p = out;
    } else {
      cl_dda_polygons_free(&out);
    }
  } else if (st == CL_ERR_OOM) {
    cl_error_set(err, CL_ERR_OOM, "DDA cutting: out of memory merging slivers");
  }
  for (size_t k = 0; pc && k < n; k++) free(pc[k].x), free(pc[k].y), free(pc[k].tag);
  free(pc), free(order), free(radius), free(seams);
  return st;
}
