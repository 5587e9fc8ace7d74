/* CSV histories: header, full-precision rows readable while open, errors. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#endif

#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../runtime/io/csv.h"
#include "scratch_dir.h"

static char path[128];

static void make_dir(void) {
  scratch_dir_make("cl_csv");
  snprintf(path, sizeof path, "%s/history.csv", scratch_dir);
}

static void remove_dir(void) { scratch_dir_remove(); }

TestSuite(csv, .init = make_dir, .fini = remove_dir);

static char *read_file(const char *p) {
  FILE *f = fopen(p, "rb");
  cr_assert_not_null(f, "cannot open %s", p);
  static char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

Test(csv, header_and_rows_read_back) {
  const char *names[] = {"t", "energy", "damage"};
  cl_csv *csv;
  cl_error err = {0};
  cr_assert_eq(cl_csv_open(&csv, path, 3, names, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_csv_row(csv, (double[]){0, 1.5, 0}, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_csv_row(csv, (double[]){1e-6, -2.25e9, 0.125}, &err), CL_OK, "%s", err.msg);
  cl_csv_close(csv);
  cr_expect_str_eq(read_file(path), "t,energy,damage\n0,1.5,0\n9.9999999999999995e-07,-2250000000,0.125\n");
}

Test(csv, rows_are_on_disk_before_close) {
  const char *names[] = {"step"};
  cl_csv *csv;
  cl_error err = {0};
  cr_assert_eq(cl_csv_open(&csv, path, 1, names, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_csv_row(csv, (double[]){42}, &err), CL_OK, "%s", err.msg);
  cr_expect_str_eq(read_file(path), "step\n42\n");
  cl_csv_close(csv);
}

Test(csv, values_round_trip_at_full_precision) {
  const double values[] = {M_PI, 1.0 / 3.0, -5e-324, 1.7976931348623157e308};
  const char *names[] = {"a", "b", "c", "d"};
  cl_csv *csv;
  cl_error err = {0};
  cr_assert_eq(cl_csv_open(&csv, path, 4, names, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_csv_row(csv, values, &err), CL_OK, "%s", err.msg);
  cl_csv_close(csv);
  char *row = strchr(read_file(path), '\n') + 1;
  for (int i = 0; i < 4; i++) {
    char *end;
    double v = strtod(row, &end);
    cr_expect_eq(v, values[i], "column %d: %.17g != %.17g", i, v, values[i]);
    row = end + 1;
  }
}

Test(csv, names_with_separators_are_quoted) {
  const char *names[] = {"x", "force, N", "say \"hi\""};
  cl_csv *csv;
  cl_error err = {0};
  cr_assert_eq(cl_csv_open(&csv, path, 3, names, &err), CL_OK, "%s", err.msg);
  cl_csv_close(csv);
  cr_expect_str_eq(read_file(path), "x,\"force, N\",\"say \"\"hi\"\"\"\n");
}

Test(csv, missing_folder_is_an_io_error_naming_the_path) {
  const char *names[] = {"t"};
  char bad[160];
  snprintf(bad, sizeof bad, "%s/missing/h.csv", scratch_dir);
  cl_csv *csv = (cl_csv *)&csv;
  cl_error err = {0};
  cr_expect_eq(cl_csv_open(&csv, bad, 1, names, &err), CL_ERR_IO);
  cr_expect_null(csv);
  cr_expect_eq(err.code, CL_ERR_IO);
  cr_expect(strstr(err.msg, bad), "message names the path: %s", err.msg);
  cr_expect(strstr(err.msg, "No such file or directory"), "%s", err.msg);
}

Test(csv, no_columns_is_an_argument_error) {
  cl_csv *csv;
  cl_error err = {0};
  cr_expect_eq(cl_csv_open(&csv, path, 0, NULL, &err), CL_ERR_ARG);
  struct stat st;
  cr_expect_neq(stat(path, &st), 0, "nothing is created");
}
