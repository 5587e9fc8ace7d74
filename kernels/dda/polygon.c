/* Host polygon checks for DDA blocks (polygon.h). */
#include "polygon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double cl_dda_polygon_area2(const double *x, const double *y, int m) {
  double a = 0;
  for (int k = 0; k < m; k++) {
    int l = (k + 1) % m;
    a += (x[k] - x[0]) * (y[l] - y[0]) - (x[l] - x[0]) * (y[k] - y[0]);
  }
  return a;
}

double cl_dda_segment_distance(double px, double py, double x1, double y1, double x2, double y2, double *t) {
  double dx = x2 - x1, dy = y2 - y1, l2 = dx * dx + dy * dy;
  double r = l2 > 0 ? ((px - x1) * dx + (py - y1) * dy) / l2 : 0;
  r = r < 0 ? 0 : r > 1 ? 1 : r;
  if (t) *t = r;
  return hypot(px - x1 - r * dx, py - y1 - r * dy);
}

/* Signed distance of c from the line a -> b (> 0: left of it). */
static double side(double ax, double ay, double bx, double by, double cx, double cy) {
  double l = hypot(bx - ax, by - ay);
  return ((bx - ax) * (cy - ay) - (by - ay) * (cx - ax)) / l;
}

/* Whether the segments p1-p2 and q1-q2 cross at a point interior to both, each end farther
 * than tol from the other's line. */
static int segments_cross(double p1x, double p1y, double p2x, double p2y, double q1x, double q1y, double q2x,
                          double q2y, double tol) {
  double a = side(p1x, p1y, p2x, p2y, q1x, q1y), b = side(p1x, p1y, p2x, p2y, q2x, q2y);
  double c = side(q1x, q1y, q2x, q2y, p1x, p1y), d = side(q1x, q1y, q2x, q2y, p2x, p2y);
  return ((a > tol && b < -tol) || (a < -tol && b > tol)) && ((c > tol && d < -tol) || (c < -tol && d > tol));
}

const char *cl_dda_polygon_defect(const double *x, const double *y, int m, double tol, char *why, size_t size) {
  if (m < 3) {
    snprintf(why, size, "has %d vertices (a block needs at least 3)", m);
    return why;
  }
  for (int k = 0; k < m; k++) {
    int l = (k + 1) % m;
    if (!isfinite(x[k]) || !isfinite(y[k])) {
      snprintf(why, size, "has a coordinate of vertex %d that is not a finite number", k + 1);
      return why;
    }
    if (hypot(x[l] - x[k], y[l] - y[k]) <= tol) {
      snprintf(why, size, "is degenerate: vertices %d and %d are the same point", k + 1, l + 1);
      return why;
    }
  }
  int far = 1; /* all vertices on one line: the line through vertex 1 and the vertex farthest from it */
  for (int k = 2; k < m; k++)
    if (hypot(x[k] - x[0], y[k] - y[0]) > hypot(x[far] - x[0], y[far] - y[0])) far = k;
  int flat = 1;
  for (int k = 1; k < m && flat; k++) flat = fabs(side(x[0], y[0], x[far], y[far], x[k], y[k])) <= tol;
  if (flat) {
    snprintf(why, size, "is degenerate: its area is zero (all vertices on a line)");
    return why;
  }
  for (int k = 0; k < m; k++) /* a vertex lying on a non-adjacent edge: touching itself */
    for (int e = 0; e < m; e++) {
      int f = (e + 1) % m;
      if (e == k || f == k) continue;
      if (cl_dda_segment_distance(x[k], y[k], x[e], y[e], x[f], y[f], NULL) <= tol) {
        snprintf(why, size, "is self-intersecting: vertex %d lies on edge %d-%d", k + 1, e + 1, f + 1);
        return why;
      }
    }
  for (int e = 0; e < m; e++)
    for (int g = e + 2; g < m; g++) {
      if (e == 0 && g == m - 1) continue; /* adjacent through the closing edge */
      int f = e + 1, h = (g + 1) % m;
      if (segments_cross(x[e], y[e], x[f], y[f], x[g], y[g], x[h], y[h], 0)) {
        snprintf(why, size, "is self-intersecting: edges %d-%d and %d-%d cross", e + 1, f + 1, g + 1, h + 1);
        return why;
      }
    }
  return NULL;
}

int cl_dda_point_in_polygon(double px, double py, const double *x, const double *y, int m, double tol) {
  int inside = 0;
  for (int k = 0, l = m - 1; k < m; l = k++) {
    if (cl_dda_segment_distance(px, py, x[l], y[l], x[k], y[k], NULL) <= tol) return 1;
    if ((y[k] > py) != (y[l] > py) && px < (x[l] - x[k]) * (py - y[k]) / (y[l] - y[k]) + x[k]) inside = !inside;
  }
  return inside;
}

int cl_dda_point_strictly_inside(double px, double py, const double *x, const double *y, int m, double tol) {
  if (!cl_dda_point_in_polygon(px, py, x, y, m, 0)) return 0;
  for (int k = 0, l = m - 1; k < m; l = k++)
    if (cl_dda_segment_distance(px, py, x[l], y[l], x[k], y[k], NULL) <= tol) return 0;
  return 1;
}

/* A point of the polygon's interior: a small step inwards from a vertex, normal to the chord of
 * its two neighbours, tried at each vertex with shrinking steps. */
static int interior_point(const double *x, const double *y, int m, double *px, double *py) {
  double a2 = cl_dda_polygon_area2(x, y, m), ext = 0;
  for (int k = 1; k < m; k++) ext = fmax(ext, hypot(x[k] - x[0], y[k] - y[0]));
  for (double step = 1e-3; step >= 1e-9; step /= 10)
    for (int k = 0; k < m; k++) {
      int p = (k + m - 1) % m, n = (k + 1) % m;
      double ex = x[n] - x[p], ey = y[n] - y[p], l = hypot(ex, ey);
      double nx = -ey / l, ny = ex / l; /* left normal of p -> n: inward when counter-clockwise */
      if (a2 < 0) nx = -nx, ny = -ny;
      double cx = x[k] + step * ext * nx, cy = y[k] + step * ext * ny;
      if (cl_dda_point_in_polygon(cx, cy, x, y, m, 0)) return *px = cx, *py = cy, 1;
    }
  return 0;
}

int cl_dda_polygons_overlap(const double *ax, const double *ay, int am, const double *bx, const double *by, int bm,
                            double tol) {
  for (int e = 0; e < am; e++)
    for (int g = 0; g < bm; g++) {
      int f = (e + 1) % am, h = (g + 1) % bm;
      if (segments_cross(ax[e], ay[e], ax[f], ay[f], bx[g], by[g], bx[h], by[h], tol)) return 1;
    }
  for (int k = 0; k < am; k++)
    if (cl_dda_point_strictly_inside(ax[k], ay[k], bx, by, bm, tol)) return 1;
  for (int k = 0; k < bm; k++)
    if (cl_dda_point_strictly_inside(bx[k], by[k], ax, ay, am, tol)) return 1;
  /* equal polygons touch everywhere and cross nowhere: test a point inside one of them */
  double px, py;
  if (interior_point(ax, ay, am, &px, &py) && cl_dda_point_strictly_inside(px, py, bx, by, bm, tol)) return 1;
  return 0;
}

/* Whether (px, py) lies inside or on the triangle a, b, c (counter-clockwise). */
static int in_triangle(double px, double py, double ax, double ay, double bx, double by, double cx, double cy) {
  double d1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  double d2 = (cx - bx) * (py - by) - (cy - by) * (px - bx);
  double d3 = (ax - cx) * (py - cy) - (ay - cy) * (px - cx);
  return d1 >= 0 && d2 >= 0 && d3 >= 0;
}

int cl_dda_triangulate(const double *x, const double *y, int m, int32_t *tri) {
  int *left = malloc((size_t)m * sizeof *left), n = m, count = 0;
  if (!left) return 0;
  for (int k = 0; k < m; k++) left[k] = k;
  for (int guard = 0; n > 3 && guard < m * m; guard++) {
    int found = 0;
    for (int k = 0; k < n && !found; k++) {
      int a = left[(k + n - 1) % n], b = left[k], c = left[(k + 1) % n];
      double cross = (x[b] - x[a]) * (y[c] - y[a]) - (y[b] - y[a]) * (x[c] - x[a]);
      if (cross <= 0) continue; /* reflex or flat: not an ear */
      int blocked = 0;
      for (int j = 0; j < n && !blocked; j++) {
        int v = left[j];
        if (v != a && v != b && v != c) blocked = in_triangle(x[v], y[v], x[a], y[a], x[b], y[b], x[c], y[c]);
      }
      if (blocked) continue;
      tri[3 * count] = a, tri[3 * count + 1] = b, tri[3 * count + 2] = c, count++;
      for (int j = k; j + 1 < n; j++) left[j] = left[j + 1];
      n--, found = 1;
    }
    if (!found) break;
  }
  if (n == 3) tri[3 * count] = left[0], tri[3 * count + 1] = left[1], tri[3 * count + 2] = left[2], count++;
  free(left);
  return count;
}
