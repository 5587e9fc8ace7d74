/* Polygons cut by segments (cutting.h). */
#include "cutting.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polygon.h"

cl_status cl_dda_polygons_add(cl_dda_polygons *p, const double *x, const double *y, const int32_t *tag, int m,
                              cl_error *err) {
  if (p->n + 2 > p->cap_n) {
    size_t c = p->cap_n ? 2 * p->cap_n : 64;
    int32_t *s = realloc(p->start, c * sizeof *s);
    if (!s) return cl_error_set(err, CL_ERR_OOM, "DDA cutting: out of memory");
    p->start = s, p->cap_n = c;
  }
  if (p->nv + (size_t)m > p->cap_v) {
    size_t c = p->cap_v ? 2 * p->cap_v : 256;
    while (c < p->nv + (size_t)m) c *= 2;
    double *nx = realloc(p->x, c * sizeof *nx);
    if (nx) p->x = nx;
    double *ny = realloc(p->y, c * sizeof *ny);
    if (ny) p->y = ny;
    int32_t *nt = realloc(p->tag, c * sizeof *nt);
    if (nt) p->tag = nt;
    if (!nx || !ny || !nt) return cl_error_set(err, CL_ERR_OOM, "DDA cutting: out of memory");
    p->cap_v = c;
  }
  if (p->n == 0) p->start[0] = 0;
  memcpy(p->x + p->nv, x, (size_t)m * sizeof *x), memcpy(p->y + p->nv, y, (size_t)m * sizeof *y);
  for (int k = 0; k < m; k++) p->tag[p->nv + (size_t)k] = tag ? tag[k] : -1;
  p->nv += (size_t)m;
  p->start[++p->n] = (int32_t)p->nv;
  return CL_OK;
}

void cl_dda_polygons_free(cl_dda_polygons *p) {
  free(p->start), free(p->tag), free(p->x), free(p->y);
  memset(p, 0, sizeof *p);
}

typedef struct hit {
  double s;  /* position along the segment's line */
  int index; /* in the polygon with the crossing points inserted */
} hit;

static int hit_cmp(const void *a, const void *b) {
  double x = ((const hit *)a)->s, y = ((const hit *)b)->s;
  return x < y ? -1 : x > y;
}

/* Splits the polygon (x, y, tags t, m) along the first chord of the segment (a -> b, tag stag)
 * that crosses its interior within the segment: the two pieces, the chord an edge of tag stag in
 * each, into out; returns 0 when no chord does (then nothing is added), -1 when out of memory. The
 * work arrays hold 4 m + 2 entries each. */
static int split(const double *x, const double *y, const int32_t *t, int m, const double *seg, int32_t stag,
                 double tol, double *wx, double *wy, int32_t *wt, hit *hits, cl_dda_polygons *out, cl_error *err) {
  double ax = seg[0], ay = seg[1], dx = seg[2] - seg[0], dy = seg[3] - seg[1], len = hypot(dx, dy);
  if (len <= tol) return 0;
  double ux = dx / len, uy = dy / len;
  int w = 0, nh = 0;
  for (int k = 0; k < m; k++) {
    int l = (k + 1) % m;
    double sk = ux * (y[k] - ay) - uy * (x[k] - ax), sl = ux * (y[l] - ay) - uy * (x[l] - ax);
    if (fabs(sk) <= tol) sk = 0;
    if (fabs(sl) <= tol) sl = 0;
    wx[w] = x[k], wy[w] = y[k], wt[w] = t[k];
    if (sk == 0) hits[nh].s = ux * (x[k] - ax) + uy * (y[k] - ay), hits[nh++].index = w;
    w++;
    if (sk * sl < 0) { /* the line crosses the edge's interior: a new vertex there */
      double r = sk / (sk - sl);
      wx[w] = x[k] + r * (x[l] - x[k]), wy[w] = y[k] + r * (y[l] - y[k]), wt[w] = t[k];
      hits[nh].s = ux * (wx[w] - ax) + uy * (wy[w] - ay), hits[nh++].index = w;
      w++;
    }
  }
  qsort(hits, (size_t)nh, sizeof *hits, hit_cmp);
  for (int h = 0; h + 1 < nh; h++) {
    const hit *p = &hits[h], *q = &hits[h + 1];
    if (q->s - p->s <= tol || p->s < -tol || q->s > len + tol) continue;
    double mx = (wx[p->index] + wx[q->index]) / 2, my = (wy[p->index] + wy[q->index]) / 2;
    /* the chord's midpoint strictly inside: the chord runs through the interior, not along an edge */
    if (!cl_dda_point_strictly_inside(mx, my, x, y, m, tol)) continue;
    int i = p->index < q->index ? p->index : q->index, j = p->index < q->index ? q->index : p->index;
    /* piece 1: i .. j, closed by the chord j -> i; piece 2: j .. w - 1, 0 .. i, closed by the chord
     * i -> j (copied to the work tail to be contiguous) */
    int n2 = 0;
    double *px = wx + w, *py = wy + w;
    int32_t *pt = wt + w;
    for (int k = j; k < w; k++) px[n2] = wx[k], py[n2] = wy[k], pt[n2++] = wt[k];
    for (int k = 0; k <= i; k++) px[n2] = wx[k], py[n2] = wy[k], pt[n2++] = wt[k];
    pt[n2 - 1] = stag;
    int32_t tj = wt[j];
    wt[j] = stag;
    cl_status st = cl_dda_polygons_add(out, wx + i, wy + i, wt + i, j - i + 1, err);
    wt[j] = tj;
    if (st != CL_OK || cl_dda_polygons_add(out, px, py, pt, n2, err) != CL_OK) return -1;
    return 1;
  }
  return 0;
}

cl_status cl_dda_cut(const cl_dda_polygons *in, size_t nseg, const double *seg, const int32_t *seg_tag, double tol,
                     cl_dda_polygons *out, cl_error *err) {
  out->n = out->nv = 0;
  cl_dda_polygons work = {0}, next = {0};
  cl_status st = CL_OK;
  for (size_t k = 0; k < in->n && st == CL_OK; k++)
    st = cl_dda_polygons_add(&work, in->x + in->start[k], in->y + in->start[k], in->tag + in->start[k],
                             in->start[k + 1] - in->start[k], err);
  double *buf = NULL;
  int32_t *tbuf = NULL;
  hit *hits = NULL;
  size_t buf_cap = 0;
  for (size_t s = 0; s < nseg && st == CL_OK; s++) {
    const double *sg = seg + 4 * s;
    double bx0 = fmin(sg[0], sg[2]) - tol, bx1 = fmax(sg[0], sg[2]) + tol;
    double by0 = fmin(sg[1], sg[3]) - tol, by1 = fmax(sg[1], sg[3]) + tol;
    next.n = next.nv = 0;
    /* each piece is split by this segment until no chord is left: a piece put back is examined again */
    for (size_t k = 0; k < work.n && st == CL_OK; k++) {
      const double *x = work.x + work.start[k], *y = work.y + work.start[k];
      const int32_t *t = work.tag + work.start[k];
      int m = work.start[k + 1] - work.start[k];
      double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
      for (int v = 0; v < m; v++) x0 = fmin(x0, x[v]), x1 = fmax(x1, x[v]), y0 = fmin(y0, y[v]), y1 = fmax(y1, y[v]);
      int r = 0;
      if (!(x1 < bx0 || x0 > bx1 || y1 < by0 || y0 > by1)) {
        if ((size_t)(4 * m + 4) > buf_cap) {
          buf_cap = (size_t)(4 * m + 4);
          double *b = realloc(buf, 2 * buf_cap * sizeof *b);
          int32_t *tb = realloc(tbuf, buf_cap * sizeof *tb);
          hit *h = realloc(hits, buf_cap * sizeof *h);
          if (b) buf = b;
          if (tb) tbuf = tb;
          if (h) hits = h;
          if (!b || !tb || !h) {
            st = cl_error_set(err, CL_ERR_OOM, "DDA cutting: out of memory");
            break;
          }
        }
        r = split(x, y, t, m, sg, seg_tag[s], tol, buf, buf + buf_cap, tbuf, hits, &work, err);
        if (r < 0) st = CL_ERR_OOM;
        /* work may have moved: the two pieces were appended to it and will be examined in turn */
      }
      if (r == 0 && st == CL_OK)
        st = cl_dda_polygons_add(&next, work.x + work.start[k], work.y + work.start[k], work.tag + work.start[k], m, err);
    }
    cl_dda_polygons t = work;
    work = next, next = t;
  }
  for (size_t k = 0; k < work.n && st == CL_OK; k++)
    st = cl_dda_polygons_add(out, work.x + work.start[k], work.y + work.start[k], work.tag + work.start[k],
                             work.start[k + 1] - work.start[k], err);
  free(buf), free(tbuf), free(hits);
  cl_dda_polygons_free(&work), cl_dda_polygons_free(&next);
  return st;
}
