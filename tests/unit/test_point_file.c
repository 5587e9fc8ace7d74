/* Point files: 2D and 3D files with comments, commas, tabs and CRLF; each
 * error with its file and line; missing and empty files. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw (scratch_dir.h) */
#endif

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/io/point_file.h"
#include "scratch_dir.h"

static char path[128];

static void make_dir(void) {
  scratch_dir_make("cl_points");
  snprintf(path, sizeof path, "%s/points.txt", scratch_dir);
}

static void remove_dir(void) { scratch_dir_remove(); }

TestSuite(point_file, .init = make_dir, .fini = remove_dir);

static void write_file(const char *text) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

typedef struct points {
  int dim;
  size_t n;
  double *x, *volume;
} points;

static points read_ok(const char *text) {
  write_file(text);
  points p;
  cl_error err = {0};
  cr_assert_eq(cl_point_file_read(path, &p.dim, &p.n, &p.x, &p.volume, &err), CL_OK, "%s", err.msg);
  return p;
}

static void points_free(points *p) { free(p->x), free(p->volume); }

/* The error for text must be code and contain "points.txt:<needle>" (or just needle when line is 0). */
static void expect_error(const char *text, cl_status code, const char *needle) {
  write_file(text);
  points p = {7, 7, (double *)&p, (double *)&p};
  cl_error err = {0};
  cr_expect_eq(cl_point_file_read(path, &p.dim, &p.n, &p.x, &p.volume, &err), code,
               "expected an error mentioning '%s', got '%s'", needle, err.msg);
  cr_expect(strstr(err.msg, needle), "'%s' does not mention '%s'", err.msg, needle);
  cr_expect(strstr(err.msg, path) == err.msg, "'%s' does not start with the path", err.msg);
  cr_expect(p.dim == 0 && p.n == 0 && p.x == NULL && p.volume == NULL, "no result on error");
}

Test(point_file, two_d_with_comments_commas_and_tabs) {
  points p = read_ok("# x y volume\n"
                     "\n"
                     "0 0 1e-6\n"
                     "  # an indented comment\n"
                     "1.5,-2,2e-6\n"
                     "3\t4 ,\t 3e-6\n"
                     "\n");
  cr_assert_eq(p.dim, 2);
  cr_assert_eq(p.n, 3);
  const double x[] = {0, 1.5, 3, 0, -2, 4}, v[] = {1e-6, 2e-6, 3e-6};
  for (int i = 0; i < 6; i++) cr_expect_eq(p.x[i], x[i], "x[%d] (SoA)", i);
  for (int i = 0; i < 3; i++) cr_expect_eq(p.volume[i], v[i], "volume[%d]", i);
  points_free(&p);
}

Test(point_file, three_d_with_crlf_and_no_final_newline) {
  points p = read_ok("1 2 3 0.5\r\n4 5 6 0.25\r\n-1e-3 0 7.5 1");
  cr_assert_eq(p.dim, 3);
  cr_assert_eq(p.n, 3);
  const double x[] = {1, 4, -1e-3, 2, 5, 0, 3, 6, 7.5}, v[] = {0.5, 0.25, 1};
  for (int i = 0; i < 9; i++) cr_expect_eq(p.x[i], x[i], "x[%d] (SoA)", i);
  for (int i = 0; i < 3; i++) cr_expect_eq(p.volume[i], v[i], "volume[%d]", i);
  points_free(&p);
}

Test(point_file, many_points_grow_the_arrays) {
  size_t count = 5000;
  char *text = malloc(count * 32);
  cr_assert_not_null(text);
  size_t at = 0;
  for (size_t i = 0; i < count; i++) at += (size_t)sprintf(text + at, "%zu %zu 1\n", i, 2 * i);
  points p = read_ok(text);
  free(text);
  cr_assert_eq(p.n, count);
  cr_expect_eq(p.x[count - 1], (double)(count - 1));
  cr_expect_eq(p.x[2 * count - 1], (double)(2 * (count - 1)));
  points_free(&p);
}

Test(point_file, line_with_fewer_numbers_than_the_first) {
  expect_error("# header\n0 0 1\n1 1 1\n\n2 2\n", CL_ERR_ARG,
               "points.txt:5: expected 3 numbers like the first line, found 2");
}

Test(point_file, line_with_more_numbers_than_the_first) {
  expect_error("0 0 0 1\n1 1 1 1 1\n", CL_ERR_ARG, "points.txt:2: expected 4 numbers like the first line, found 5");
}

Test(point_file, first_line_of_the_wrong_width) {
  expect_error("\n1 2\n", CL_ERR_ARG, "points.txt:2: expected 3 numbers (x y volume) or 4 (x y z volume), found 2");
  expect_error("1 2 3 4 5\n", CL_ERR_ARG, "points.txt:1: expected 3 numbers (x y volume) or 4 (x y z volume), found 5");
}

Test(point_file, not_a_number) {
  expect_error("0 0 1\n1 abc 1\n", CL_ERR_ARG, "points.txt:2: not a number: 'abc'");
  expect_error("0 0 1\n1 2x 1\n", CL_ERR_ARG, "points.txt:2: not a number: '2x'");
  expect_error("x y volume\n", CL_ERR_ARG, "points.txt:1: not a number: 'x'");
  expect_error("0 0 1\n1 inf 1\n", CL_ERR_ARG, "points.txt:2: not a finite number: 'inf'");
}

Test(point_file, non_positive_volume) {
  expect_error("0 0 1\n1 1 0\n", CL_ERR_ARG, "points.txt:2: non-positive volume (0)");
  expect_error("0 0 0 -2.5\n", CL_ERR_ARG, "points.txt:1: non-positive volume (-2.5)");
}

Test(point_file, missing_file) {
  snprintf(path, sizeof path, "%s/no_such_file.txt", scratch_dir);
  points p;
  cl_error err = {0};
  cr_expect_eq(cl_point_file_read(path, &p.dim, &p.n, &p.x, &p.volume, &err), CL_ERR_IO);
  cr_expect(strstr(err.msg, "no_such_file.txt: No such file or directory"), "%s", err.msg);
  cr_expect(p.x == NULL && p.volume == NULL);
}

Test(point_file, empty_files) {
  expect_error("", CL_ERR_ARG, "points.txt: no points");
  expect_error("# only a comment\n\n   \n", CL_ERR_ARG, "points.txt: no points (the file has no data lines)");
}
