/* PNG plots: file format, picture size, colours of the field, errors. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#endif

#include <cairo.h>
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../runtime/io/png.h"
#include "scratch_dir.h"

static char path[128];

static void make_dir(void) {
  scratch_dir_make("cl_png");
  snprintf(path, sizeof path, "%s/field.png", scratch_dir);
}

static void remove_dir(void) {
  scratch_dir_remove();
  cairo_debug_reset_static_data(); /* so leak checkers see only our memory */
}

TestSuite(png, .init = make_dir, .fini = remove_dir);

/* Under LeakSanitizer: fontconfig keeps a process-wide cache that only its
 * FcFini frees, so its blocks are not leaks of the code under test. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "print_suppressions=0"; }

typedef struct rgb8 {
  int r, g, b;
} rgb8;

/* Ends of the viridis map, and its middle. */
static const rgb8 LOW = {68, 1, 84}, MIDDLE = {33, 144, 141}, HIGH = {253, 231, 37};
static const rgb8 GREY = {153, 153, 153}, WHITE = {255, 255, 255};

static int near(rgb8 a, rgb8 b) {
  return abs(a.r - b.r) <= 6 && abs(a.g - b.g) <= 6 && abs(a.b - b.b) <= 6;
}

typedef struct picture {
  cairo_surface_t *surface;
  int width, height;
} picture;

static picture load(const char *p) {
  cairo_surface_t *s = cairo_image_surface_create_from_png(p);
  cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "cannot read %s", p);
  cairo_surface_flush(s);
  return (picture){s, cairo_image_surface_get_width(s), cairo_image_surface_get_height(s)};
}

static rgb8 pixel(picture pic, int x, int y) {
  const unsigned char *row =
      cairo_image_surface_get_data(pic.surface) + y * cairo_image_surface_get_stride(pic.surface);
  uint32_t v;
  memcpy(&v, row + 4 * x, sizeof v);
  return (rgb8){(int)(v >> 16 & 255), (int)(v >> 8 & 255), (int)(v & 255)};
}

/* First and last columns of the plot on row y: the first run of non-white pixels. */
static void plot_columns(picture pic, int y, int *first, int *last) {
  int x = 0;
  while (x < pic.width && near(pixel(pic, x, y), WHITE)) x++;
  *first = x;
  while (x < pic.width && !near(pixel(pic, x, y), WHITE)) x++;
  *last = x - 1;
  cr_assert_lt(*first + 10, *last, "no plot found on row %d", y);
}

/* A 2 x 1 rectangle (two triangles) with corner values v0..v3. */
typedef struct plate {
  double x[4], y[4], v[4];
  int32_t tri[6];
  cl_png_plot plot;
} plate;

static void make_plate(plate *p, double v0, double v1, double v2, double v3) {
  *p = (plate){.x = {0, 2, 2, 0}, .y = {0, 0, 1, 1}, .v = {v0, v1, v2, v3},
               .tri = {0, 1, 2, 0, 2, 3}};
  p->plot = (cl_png_plot){.npoints = 4, .x = p->x, .y = p->y, .value = p->v,
                          .ntriangles = 2, .tri = p->tri, .title = "u"};
}

static void write_ok(const cl_png_plot *plot) {
  cl_error err = {0};
  cr_assert_eq(cl_png_write(path, plot, &err), CL_OK, "%s", err.msg);
}

static void expect_ends(const char *what, rgb8 left, rgb8 right) {
  picture pic = load(path);
  int y = pic.height / 2, first, last;
  plot_columns(pic, y, &first, &last);
  rgb8 l = pixel(pic, first + 3, y), r = pixel(pic, last - 3, y);
  cr_expect(near(l, left), "%s: left end %d,%d,%d, expected %d,%d,%d", what, l.r, l.g, l.b,
            left.r, left.g, left.b);
  cr_expect(near(r, right), "%s: right end %d,%d,%d, expected %d,%d,%d", what, r.r, r.g, r.b,
            right.r, right.g, right.b);
  cairo_surface_destroy(pic.surface);
}

static uint32_t big_endian(const unsigned char *b) {
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* Width and height from the IHDR chunk, after checking the signature. */
static void read_ihdr(uint32_t *width, uint32_t *height) {
  static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char head[24];
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f);
  cr_assert_eq(fread(head, 1, sizeof head, f), sizeof head);
  fclose(f);
  cr_assert_eq(memcmp(head, signature, 8), 0, "PNG signature");
  cr_assert_eq(memcmp(head + 12, "IHDR", 4), 0, "IHDR is the first chunk");
  *width = big_endian(head + 16);
  *height = big_endian(head + 20);
}

Test(png, file_is_png_of_the_requested_size) {
  plate p;
  make_plate(&p, 0, 1, 1, 0);
  p.plot.width = 640;
  p.plot.height = 480;
  write_ok(&p.plot);
  uint32_t w, h;
  read_ihdr(&w, &h);
  cr_expect_eq(w, 640);
  cr_expect_eq(h, 480);
}

Test(png, default_size_follows_the_aspect_ratio) {
  plate p; /* 2 wide, 1 high */
  make_plate(&p, 0, 1, 1, 0);
  write_ok(&p.plot);
  uint32_t w, h;
  read_ihdr(&w, &h);
  cr_expect_eq(w, 1200);
  cr_expect(h > 480 && h < 720, "height %u fits a 2:1 plate plus margins", h);
}

Test(png, tiny_sizes_are_clamped) {
  plate p;
  make_plate(&p, 0, 1, 1, 0);
  p.plot.width = 10;
  p.plot.height = 10;
  write_ok(&p.plot);
  uint32_t w, h;
  read_ihdr(&w, &h);
  cr_expect(w == 200 && h == 200, "%ux%u", w, h);
}

Test(png, gradient_runs_from_low_to_high_colour) {
  plate p;
  make_plate(&p, 0, 1, 1, 0); /* value = x / 2 */
  write_ok(&p.plot);
  expect_ends("value = x", LOW, HIGH);
}

Test(png, reversed_gradient_swaps_the_ends) {
  plate p;
  make_plate(&p, 5, -5, -5, 5);
  write_ok(&p.plot);
  expect_ends("value = -x", HIGH, LOW);
}

Test(png, fixed_range_maps_values_against_it) {
  plate p;
  make_plate(&p, 0, 1, 1, 0);
  p.plot.fixed_range = 1;
  p.plot.vmin = 0;
  p.plot.vmax = 2;
  write_ok(&p.plot);
  expect_ends("range [0, 2]", LOW, MIDDLE);
}

Test(png, constant_field_uses_the_middle_colour) {
  plate p;
  make_plate(&p, 3, 3, 3, 3);
  write_ok(&p.plot);
  expect_ends("constant", MIDDLE, MIDDLE);
}

Test(png, nan_values_are_grey) {
  plate p;
  make_plate(&p, NAN, NAN, NAN, NAN);
  write_ok(&p.plot);
  expect_ends("NaN", GREY, GREY);
}

Test(png, points_are_drawn_as_squares_with_their_colour) {
  double x[6] = {0, 1, 2, 0, 1, 2}, y[6] = {0, 0, 0, 1, 1, 1}, v[6] = {0, 1, 2, 0, 1, 2};
  cl_png_plot plot = {.npoints = 6, .x = x, .y = y, .value = v, .title = "v"};
  write_ok(&plot);
  expect_ends("points, value = x", LOW, HIGH);
}

Test(png, missing_folder_is_an_io_error_naming_the_path) {
  plate p;
  make_plate(&p, 0, 1, 1, 0);
  char bad[160];
  snprintf(bad, sizeof bad, "%s/missing/f.png", scratch_dir);
  cl_error err = {0};
  cr_expect_eq(cl_png_write(bad, &p.plot, &err), CL_ERR_IO);
  cr_expect(strstr(err.msg, bad), "message names the path: %s", err.msg);
  cr_expect(strstr(err.msg, "No such file or directory"), "%s", err.msg);
}

Test(png, bad_triangle_index_is_an_argument_error) {
  plate p;
  make_plate(&p, 0, 1, 1, 0);
  p.tri[5] = 4;
  cl_error err = {0};
  cr_expect_eq(cl_png_write(path, &p.plot, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "triangle 1"), "%s", err.msg);
  struct stat st;
  cr_expect_neq(stat(path, &st), 0, "no file is written");
}

Test(png, inverted_fixed_range_is_an_argument_error) {
  plate p;
  make_plate(&p, 0, 1, 1, 0);
  p.plot.fixed_range = 1;
  p.plot.vmin = 1;
  p.plot.vmax = 0;
  cl_error err = {0};
  cr_expect_eq(cl_png_write(path, &p.plot, &err), CL_ERR_ARG);
}
