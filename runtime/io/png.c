/* PNG picture of a 2D scalar field: the field (Gouraud-shaded triangles or
 * squares at points) in a plot area fitted to the data, a viridis colour
 * bar with five ticks on the right, and the field name above the bar. */
#include "png.h"

#include <cairo.h>
#include <math.h>

#include "atomic_file.h"

enum { DEFAULT_WIDTH = 1200, MIN_SIZE = 200, MAX_SIZE = 8000, NTICKS = 5 };

typedef struct rgb {
  double r, g, b;
} rgb;

/* Viridis sampled at t = 0, 1/8, ..., 1; piecewise linear in between. */
#define NVIRIDIS 9
static const unsigned char VIRIDIS[NVIRIDIS][3] = {
    {68, 1, 84},    {71, 44, 122},  {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
    {39, 173, 129}, {92, 200, 99},  {170, 220, 50}, {253, 231, 37},
};
static const rgb NAN_GREY = {0.6, 0.6, 0.6};

/* Written so that NaN gives lo: callers then never convert NaN to int. */
static double clampd(double v, double lo, double hi) { return v > lo ? (v < hi ? v : hi) : lo; }

static rgb viridis(double t) {
  double s = clampd(t, 0, 1) * (NVIRIDIS - 1);
  int i = s >= NVIRIDIS - 1 ? NVIRIDIS - 2 : (int)s;
  double w = s - i;
  const unsigned char *a = VIRIDIS[i], *b = VIRIDIS[i + 1];
  return (rgb){((1 - w) * a[0] + w * b[0]) / 255, ((1 - w) * a[1] + w * b[1]) / 255,
               ((1 - w) * a[2] + w * b[2]) / 255};
}

/* ---- data extent and value range ---------------------------------------- */

typedef struct bounds {
  double x0, x1, y0, y1;
} bounds;

static int data_bounds(const cl_png_plot *p, bounds *b) {
  *b = (bounds){INFINITY, -INFINITY, INFINITY, -INFINITY};
  for (size_t i = 0; i < p->npoints; i++) {
    if (!isfinite(p->x[i]) || !isfinite(p->y[i])) continue;
    b->x0 = fmin(b->x0, p->x[i]);
    b->x1 = fmax(b->x1, p->x[i]);
    b->y0 = fmin(b->y0, p->y[i]);
    b->y1 = fmax(b->y1, p->y[i]);
  }
  return b->x0 <= b->x1;
}

/* Side s of squares that tile the bounding box grown by half a square on
 * each edge: n s^2 = (w + s)(h + s). It is the spacing of a regular grid
 * (or of points on a line), and about sqrt(area / n) for large clouds. */
static double point_side(const cl_png_plot *p, const bounds *b) {
  if (p->point_size > 0) return p->point_size;
  double w = b->x1 - b->x0, h = b->y1 - b->y0, n = (double)p->npoints;
  if (w <= 0 && h <= 0) return 1; /* a single point, or all at one place */
  return ((w + h) + sqrt((w + h) * (w + h) + 4 * (n - 1) * w * h)) / (2 * (n - 1));
}

/* A line or a single point still gets a drawable, non-zero extent. */
static void widen_degenerate(bounds *b) {
  double w = b->x1 - b->x0, h = b->y1 - b->y0;
  double size = fmax(w, h) > 0 ? fmax(w, h) : 1;
  if (w <= 0) {
    b->x0 -= size / 2;
    b->x1 += size / 2;
  }
  if (h <= 0) {
    b->y0 -= size / 2;
    b->y1 += size / 2;
  }
}

typedef struct value_range {
  double lo, hi;
} value_range;

/* The data (or fixed) range, widened around a constant so that the colour
 * bar is labelled and the constant sits at its middle colour. */
static value_range field_range(const cl_png_plot *p) {
  value_range r = {p->vmin, p->vmax};
  if (!p->fixed_range) {
    r = (value_range){INFINITY, -INFINITY};
    for (size_t i = 0; i < p->npoints; i++)
      if (isfinite(p->value[i])) {
        r.lo = fmin(r.lo, p->value[i]);
        r.hi = fmax(r.hi, p->value[i]);
      }
    if (r.lo > r.hi) r = (value_range){0, 0};
  }
  if (r.hi == r.lo) {
    double d = r.lo != 0 ? 0.01 * fabs(r.lo) : 1;
    r.lo -= d;
    r.hi += d;
  }
  return r;
}

static rgb value_colour(double v, value_range r) {
  return isnan(v) ? NAN_GREY : viridis((v - r.lo) / (r.hi - r.lo));
}

/* ---- layout ------------------------------------------------------------- */

typedef struct margins {
  double left, right, top, bottom;
} margins;

static double font_px(double width, double height) {
  return clampd(fmin(width / 80, height / 15), 10, 40);
}

/* The right margin holds a gap, the colour bar and its tick labels. */
static margins margins_for(double font) {
  return (margins){2 * font, 9.5 * font, 3.5 * font, 2 * font};
}

static int clamp_size(double px) { return (int)clampd(round(px), MIN_SIZE, MAX_SIZE); }

static void width_from_height(int height, double aspect, int *width) {
  margins m = margins_for(font_px(height * 4.0 / 3, height));
  *width = clamp_size(m.left + m.right + (height - m.top - m.bottom) / aspect);
}

static void height_from_width(int width, double aspect, int *height) {
  margins m = margins_for(font_px(width, MAX_SIZE));
  *height = clamp_size(m.top + m.bottom + (width - m.left - m.right) * aspect);
}

/* Picture size: given sizes win, a missing one follows the data's aspect.
 * With neither given, the longer side is DEFAULT_WIDTH, so that a tall
 * domain does not make a picture thousands of pixels high. */
static void picture_size(const cl_png_plot *p, const bounds *b, int *width, int *height) {
  double aspect = (b->y1 - b->y0) / (b->x1 - b->x0);
  if (p->width > 0 && p->height > 0) {
    *width = clamp_size(p->width);
    *height = clamp_size(p->height);
  } else if (p->width > 0) {
    *width = clamp_size(p->width);
    height_from_width(*width, aspect, height);
  } else if (p->height > 0) {
    *height = clamp_size(p->height);
    width_from_height(*height, aspect, width);
  } else {
    *width = DEFAULT_WIDTH;
    height_from_width(*width, aspect, height);
    if (*height > DEFAULT_WIDTH) {
      *height = DEFAULT_WIDTH;
      width_from_height(*height, aspect, width);
    }
  }
}

typedef struct layout {
  int width, height;
  double font;
  double plot_x, plot_y, plot_w, plot_h; /* pixels, y down */
  double scale, x_origin, y_origin;      /* pixel = origin + scale * (model - corner) */
  bounds data;
  double bar_x, bar_w;
} layout;

static layout make_layout(const cl_png_plot *p, const bounds *b) {
  layout l = {.data = *b};
  picture_size(p, b, &l.width, &l.height);
  l.font = font_px(l.width, l.height);
  margins m = margins_for(l.font);
  l.plot_x = m.left;
  l.plot_y = m.top;
  l.plot_w = l.width - m.left - m.right;
  l.plot_h = l.height - m.top - m.bottom;
  double w = b->x1 - b->x0, h = b->y1 - b->y0;
  l.scale = fmin(l.plot_w / w, l.plot_h / h);
  l.x_origin = l.plot_x + (l.plot_w - l.scale * w) / 2;
  l.y_origin = l.plot_y + l.plot_h - (l.plot_h - l.scale * h) / 2;
  l.bar_x = l.width - m.right + 1.5 * l.font;
  l.bar_w = 1.5 * l.font;
  return l;
}

static double pixel_x(const layout *l, double x) {
  return l->x_origin + l->scale * (x - l->data.x0);
}
static double pixel_y(const layout *l, double y) {
  return l->y_origin - l->scale * (y - l->data.y0);
}

/* ---- drawing ------------------------------------------------------------ */

static int finite_point(const cl_png_plot *p, int32_t i) {
  return isfinite(p->x[i]) && isfinite(p->y[i]);
}

static void draw_triangles(cairo_t *cr, const cl_png_plot *p, const layout *l, value_range r) {
  cairo_pattern_t *mesh = cairo_pattern_create_mesh();
  for (size_t t = 0; t < p->ntriangles; t++) {
    const int32_t *v = p->tri + 3 * t;
    if (!finite_point(p, v[0]) || !finite_point(p, v[1]) || !finite_point(p, v[2])) continue;
    int any_nan = isnan(p->value[v[0]]) || isnan(p->value[v[1]]) || isnan(p->value[v[2]]);
    cairo_mesh_pattern_begin_patch(mesh);
    for (int k = 0; k < 3; k++) {
      double px = pixel_x(l, p->x[v[k]]), py = pixel_y(l, p->y[v[k]]);
      if (k == 0)
        cairo_mesh_pattern_move_to(mesh, px, py);
      else
        cairo_mesh_pattern_line_to(mesh, px, py);
    }
    for (int k = 0; k < 3; k++) {
      rgb c = any_nan ? NAN_GREY : value_colour(p->value[v[k]], r);
      cairo_mesh_pattern_set_corner_color_rgb(mesh, (unsigned)k, c.r, c.g, c.b);
    }
    cairo_mesh_pattern_end_patch(mesh);
  }
  cairo_set_source(cr, mesh);
  cairo_paint(cr);
  cairo_pattern_destroy(mesh);
}

static void draw_points(cairo_t *cr, const cl_png_plot *p, const layout *l, value_range r,
                        double side) {
  double px_side = fmax(1, side * l->scale);
  /* Without antialiasing, squares of a regular grid tile without seams. */
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
  for (size_t i = 0; i < p->npoints; i++) {
    if (!finite_point(p, (int32_t)i)) continue;
    rgb c = value_colour(p->value[i], r);
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_rectangle(cr, pixel_x(l, p->x[i]) - px_side / 2, pixel_y(l, p->y[i]) - px_side / 2,
                    px_side, px_side);
    cairo_fill(cr);
  }
  cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
}

static void draw_text(cairo_t *cr, const char *text, double x, double y, double x_align,
                      double y_align) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, text, &e);
  cairo_move_to(cr, x - e.x_bearing - x_align * e.width, y - e.y_bearing - y_align * e.height);
  cairo_show_text(cr, text);
}

static void draw_colour_bar(cairo_t *cr, const layout *l, value_range r) {
  double x = l->bar_x, y = l->plot_y, w = l->bar_w, h = l->plot_h;
  cairo_pattern_t *g = cairo_pattern_create_linear(0, y + h, 0, y);
  for (int i = 0; i < NVIRIDIS; i++) {
    double t = (double)i / (NVIRIDIS - 1);
    rgb c = viridis(t);
    cairo_pattern_add_color_stop_rgb(g, t, c.r, c.g, c.b);
  }
  cairo_rectangle(cr, x, y, w, h);
  cairo_set_source(cr, g);
  cairo_fill_preserve(cr);
  cairo_pattern_destroy(g);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  for (int k = 0; k < NTICKS; k++) {
    double t = (double)k / (NTICKS - 1), ty = y + h - t * h;
    char label[32];
    snprintf(label, sizeof label, "%.3g", r.lo + t * (r.hi - r.lo));
    cairo_move_to(cr, x + w, ty);
    cairo_line_to(cr, x + w + 0.3 * l->font, ty);
    cairo_stroke(cr);
    draw_text(cr, label, x + w + 0.5 * l->font, ty, 0, 0.5);
  }
}

static void draw_title(cairo_t *cr, const layout *l, const char *title) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, title, &e);
  /* Centred over the bar, but kept inside the picture when it is long. */
  double x = l->bar_x + l->bar_w / 2 - e.width / 2;
  x = fmax(0.5 * l->font, fmin(x, l->width - 0.5 * l->font - e.width));
  draw_text(cr, title, x, l->plot_y - 0.8 * l->font, 0, 1);
}

static void draw_picture(cairo_t *cr, const cl_png_plot *p, const layout *l, double side) {
  value_range r = field_range(p);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  if (p->ntriangles > 0)
    draw_triangles(cr, p, l, r);
  else
    draw_points(cr, p, l, r, side);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, l->font);
  draw_colour_bar(cr, l, r);
  if (p->title && p->title[0]) draw_title(cr, l, p->title);
}

/* ---- validation and output ---------------------------------------------- */

static cl_status check_plot(const char *path, const cl_png_plot *p, cl_error *err) {
  if (!path || !p) return cl_error_set(err, CL_ERR_ARG, "png: path and plot are required");
  if (p->npoints == 0 || !p->x || !p->y || !p->value)
    return cl_error_set(err, CL_ERR_ARG, "png: nothing to plot (no points, coordinates or values)");
  if (p->ntriangles > 0 && !p->tri)
    return cl_error_set(err, CL_ERR_ARG, "png: %zu triangles but no indices", p->ntriangles);
  for (size_t k = 0; k < 3 * p->ntriangles; k++)
    if (p->tri[k] < 0 || (size_t)p->tri[k] >= p->npoints)
      return cl_error_set(err, CL_ERR_ARG, "png: triangle %zu uses point %d (points are 0..%zu)",
                          k / 3, (int)p->tri[k], p->npoints - 1);
  if (p->fixed_range && !(isfinite(p->vmin) && isfinite(p->vmax) && p->vmin <= p->vmax))
    return cl_error_set(err, CL_ERR_ARG,
                        "png: range [%g, %g] is invalid (need finite vmin <= vmax)", p->vmin,
                        p->vmax);
  return CL_OK;
}

static cairo_status_t write_to_file(void *closure, const unsigned char *data,
                                    unsigned int length) {
  cl_atomic_file *f = closure;
  cl_atomic_file_write(f, data, length);
  return f->write_errno ? CAIRO_STATUS_WRITE_ERROR : CAIRO_STATUS_SUCCESS;
}

static cl_status save_surface(cairo_surface_t *surface, const char *path, cl_error *err) {
  cl_atomic_file f;
  CL_TRY(cl_atomic_file_open(&f, path, err));
  cairo_status_t cs = cairo_surface_write_to_png_stream(surface, write_to_file, &f);
  if (cs != CAIRO_STATUS_SUCCESS && !f.write_errno) {
    cl_atomic_file_abort(&f);
    return cl_error_set(err, CL_ERR_INTERNAL, "png: cannot encode '%s': %s", path,
                        cairo_status_to_string(cs));
  }
  return cl_atomic_file_commit(&f, err); /* reports a failed write with its errno */
}

static cl_status render(const cl_png_plot *p, const layout *l, double side, const char *path,
                        cl_error *err) {
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, l->width, l->height);
  cairo_t *cr = cairo_create(surface);
  draw_picture(cr, p, l, side);
  cairo_status_t cs = cairo_status(cr);
  cl_status s = cs == CAIRO_STATUS_SUCCESS
                    ? save_surface(surface, path, err)
                    : cl_error_set(err, cs == CAIRO_STATUS_NO_MEMORY ? CL_ERR_OOM : CL_ERR_INTERNAL,
                                   "png: drawing %dx%d '%s' failed: %s", l->width, l->height,
                                   path, cairo_status_to_string(cs));
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  return s;
}

cl_status cl_png_write(const char *path, const cl_png_plot *plot, cl_error *err) {
  CL_TRY(check_plot(path, plot, err));
  bounds b;
  if (!data_bounds(plot, &b))
    return cl_error_set(err, CL_ERR_ARG, "png: no point has finite coordinates");
  double side = point_side(plot, &b);
  if (plot->ntriangles == 0) { /* whole squares stay inside the plot area */
    b.x0 -= side / 2;
    b.x1 += side / 2;
    b.y0 -= side / 2;
    b.y1 += side / 2;
  }
  widen_degenerate(&b);
  layout l = make_layout(plot, &b);
  return render(plot, &l, side, path, err);
}
